/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Adaptive PERT (Kotla, "Adapting a Delay-based Protocol to Heterogeneous
 * Environments", MS thesis, Texas A&M 2008, Chapters III and IV): the
 * algorithm in plain C with no BPF or kernel dependencies, on top of
 * pert_algo.h (srtt_0.99, P, the gentle-RED curve, the draw, the
 * once-per-RTT guard, Reno's slow start and pert_mul_div are PERT/RED's).
 *
 * One source, two builds: bpf/tcp_pert_adaptive.bpf.c includes it for the
 * kernel, bpf/pert_adaptive_vectors.c for the user-space harness that replays
 * tests/vectors/pert_adaptive.json. The reference is the Rust controller in
 * its fixed-point arithmetic (crates/pertlab-sim/src/tcp/cc/pert_adaptive.rs
 * with pert_adaptive/fixed.rs): what the thesis states and what is a choice
 * is documented there; every rounding below is the same there.
 *
 * Fixed point ("precision up to 6 decimals", thesis Ch. IV): alpha, beta,
 * the fractions of q_max, the steps, the decay, the estimator weights and the
 * alpha period (in RTTs) are millionths (ppm); times are us << 10 as in
 * pert_algo.h; the clock is the kernel's tcp_mstamp in microseconds. Every
 * product goes through pert_mul_div (exact, truncated once). Error bounds,
 * against the simulator's f64 controller on the same integer state:
 *   - parameters: rounded to the nearest millionth (<= 0.5e-6 each);
 *   - beta = floor(q 10^6 / (q + q_max)): the kept share is the f64's
 *     10^6 - round(10^6 beta) or one millionth more;
 *   - thresholds compete_frac, t3_frac, ramp_pole_frac times q_max:
 *     truncated to 1/1024 us (plus the fraction's rounding);
 *   - estimators: the ageing test open > S / W is exact (open W > S);
 *     intervals above 2^32 - 1 segments count as 2^32 - 1 in the sums;
 *   - 1 + p'/p: p'/p = floor(floor(S_l W_e / W_l) 10^6 / S_e), below 2 ppm
 *     relative + 1 ppm absolute;
 *   - the compete ramp: two truncations, < 1 + (w + d) / w ppm of alpha,
 *     plus (full - 1) (w + d) / (w d) per unit (w, d in 1/1024 us) by which
 *     the truncated lo, hi, d move (2.6e-6 (full - 1) with the defaults and
 *     a 40 ms q_max);
 *   - the safe decay truncates (< 1 ppm per period); other steps are exact;
 *   - additive increase: credit exact in ppm of a segment, at most
 *     PERTA_AI_MAX_STEPS segments per ACK (the rest carried over);
 *   - alpha period: floor(srtt_us * periods_ppm / 10^6) us, at least 1 us.
 * Ranges the loader enforces (so nothing overflows): alpha_max <= 4000
 * (alpha < 2^32 ppm), 1 to 8 weights each in [0, 1], every time below 2^40
 * (us << 10), ramp_pole_frac and alpha_period_rtts <= 1000.
 *
 * The includer defines the types and PERT_RANDOM_U32() as for pert_algo.h.
 */
#ifndef PERT_ADAPTIVE_ALGO_H
#define PERT_ADAPTIVE_ALGO_H

#include "pert_algo.h"

#define PERTA_MAX_WEIGHTS 8
#define PERTA_AI_MAX_STEPS 64
#define PERTA_MAX_INTERVAL 0xffffffffULL

/* The record of the programs' optional trace (an RTT sample, the srtt_0.99 and
 * P it gave, the connection's ports), shared with the loader that writes it
 * out; not part of the algorithm. */
struct perta_sample {
	__u64 t_us;
	__u64 rtt_us;
	__u64 srtt_us;
	__u16 sport;
	__u16 dport;
	__u32 min_rtt_us; /* P */
};

/* Modes, as the simulator numbers them (Mode as usize). */
#define PERTA_HIGH_SPEED 0U
#define PERTA_SAFE 1U
#define PERTA_COMPETE 2U

/* perta_intervals.flags */
#define PERTA_AGED 1U      /* the open interval is already hist[0] */
#define PERTA_HAVE_MEAN 2U /* mean_s / mean_w hold the mean at the last event */

struct perta_params {
	/* t_min, t_max, p_max, weight_ppm, respond_in_slow_start,
	 * min_rtt_window_us; the curve's
	 * end (t3) and keep_ppm are set per call, literal is 0. */
	struct pert_params base;
	__u64 q_max_init;        /* us << 10, > 0 */
	__u64 alpha_max;         /* ppm, >= 10^6 */
	__u64 compete_frac;      /* ppm of q_max */
	__u64 t3_frac;           /* ppm of q_max */
	__u64 ramp_pole_frac;    /* ppm of q_max */
	__u64 alpha_period_rtts; /* ppm of srtt */
	__u64 high_speed_step;   /* ppm */
	__u64 compete_step;      /* ppm */
	__u64 safe_decay;        /* ppm */
	__u64 weights[PERTA_MAX_WEIGHTS]; /* ppm, most recent first */
	__u32 n_weights;         /* 1..8 */
	__u32 t3_floor;          /* t3 at least 2 t_max */
	__u32 q_max_srtt;        /* q_max from srtt - P (else samples - P) */
	__u32 loss_half;         /* a loss keeps 1/2 (else 1 - beta) */
};

/* A loss-interval estimator (thesis Ch. IV, TFRC-style). */
struct perta_intervals {
	__u64 hist[PERTA_MAX_WEIGHTS]; /* segments, most recent first */
	__u64 open;                    /* segments since the last event */
	__u64 mean_s;                  /* sum w_i n_i at the last event */
	__u64 mean_w;                  /* sum w_i at the last event */
	__u32 len;
	__u32 flags;
};

struct perta_state {
	struct pert_state sig;    /* srtt, P (and its window), guard, early responses */
	__u64 q_max;              /* us << 10 */
	__u64 alpha;              /* ppm */
	__u64 credit;             /* ppm of a segment */
	__u64 region_acks[3];     /* this period, by region */
	__u64 period_start;       /* us */
	__u64 period_end;         /* us */
	__u64 mode_time[3];       /* us each mode was in force before period_start */
	__u32 mode;
	__u32 have_period;
	struct perta_intervals losses;
	struct perta_intervals early;
};

/* (S, W) of a history: S = sum w_i min(n_i, 2^32 - 1), W = sum w_i. */
static inline void perta_sums(const struct perta_params *pp, const struct perta_intervals *e,
			      __u64 *s, __u64 *w)
{
	int i;

	*s = 0;
	*w = 0;
	for (i = 0; i < PERTA_MAX_WEIGHTS; i++) {
		__u64 n = e->hist[i];

		if ((__u32)i >= e->len || (__u32)i >= pp->n_weights)
			break;
		*s += pp->weights[i] * (n < PERTA_MAX_INTERVAL ? n : PERTA_MAX_INTERVAL);
		*w += pp->weights[i];
	}
}

/* The mean S / W, as (S, W); 0 when there is none (empty, or W = 0). */
static inline int perta_mean(const struct perta_params *pp, const struct perta_intervals *e,
			     __u64 *s, __u64 *w)
{
	perta_sums(pp, e, s, w);
	return e->len > 0 && *w > 0;
}

static inline void perta_shift_in(const struct perta_params *pp, struct perta_intervals *e, __u64 n)
{
	int i;

	for (i = PERTA_MAX_WEIGHTS - 1; i > 0; i--)
		e->hist[i] = e->hist[i - 1];
	e->hist[0] = n;
	if (e->len < pp->n_weights)
		e->len++;
}

/* n more segments were ACKed; ages the history once past the mean. */
static inline void perta_intervals_acked(const struct perta_params *pp, struct perta_intervals *e, __u64 n)
{
	__u64 open;

	e->open += n;
	if (e->flags & PERTA_AGED) {
		e->hist[0] = e->open;
		return;
	}
	if (!(e->flags & PERTA_HAVE_MEAN))
		return;
	open = e->open < PERTA_MAX_INTERVAL ? e->open : PERTA_MAX_INTERVAL;
	if (open * e->mean_w > e->mean_s) {
		perta_shift_in(pp, e, e->open);
		e->flags |= PERTA_AGED;
	}
}

/* An event (loss, or early response): the open interval closes. */
static inline void perta_intervals_event(const struct perta_params *pp, struct perta_intervals *e)
{
	if (e->flags & PERTA_AGED)
		e->hist[0] = e->open;
	else
		perta_shift_in(pp, e, e->open);
	e->open = 0;
	e->flags = perta_mean(pp, e, &e->mean_s, &e->mean_w) ? PERTA_HAVE_MEAN : 0;
}

/* max(S, W): a mean below one segment counts as one (rate 1). */
static inline __u64 perta_floor_one(__u64 s, __u64 w) { return s > w ? s : w; }

/* Event rate in ppm (0 before the first event), for the counters. */
static inline __u64 perta_rate_ppm(const struct perta_params *pp, const struct perta_intervals *e)
{
	__u64 s, w;

	if (!perta_mean(pp, e, &s, &w))
		return 0;
	return pert_mul_div(w, PERT_PPM, perta_floor_one(s, w));
}

/* Kept share of the window after a decrease by beta = q / (q + q_max), ppm. */
static inline __u64 perta_keep_ppm(const struct perta_state *st)
{
	__u64 q = pert_qdelay(&st->sig);

	return PERT_PPM - pert_mul_div(q, PERT_PPM, q + st->q_max);
}

/* min(alpha_max, 1 + p'/p); alpha_max before a loss, 1 before an early response. */
static inline __u64 perta_full_target(const struct perta_params *pp, const struct perta_state *st)
{
	__u64 sl, wl, se, we, x, r;

	if (!perta_mean(pp, &st->losses, &sl, &wl))
		return pp->alpha_max;
	if (!perta_mean(pp, &st->early, &se, &we))
		return pert_min_u64(PERT_PPM, pp->alpha_max);
	x = pert_mul_div(perta_floor_one(sl, wl), we, wl);
	r = pert_mul_div(x, PERT_PPM, perta_floor_one(se, we));
	return pert_min_u64(pert_sat_add(PERT_PPM, r), pp->alpha_max);
}

/* The compete target: 1 up to compete_frac q_max, the full target from
 * t3_frac q_max, a hyperbola with its pole ramp_pole_frac q_max below the
 * start in between (spec Appendix X). */
static inline __u64 perta_compete_target(const struct perta_params *pp, const struct perta_state *st)
{
	__u64 full = perta_full_target(pp, st);
	__u64 q = pert_qdelay(&st->sig);
	__u64 lo = pert_mul_div(st->q_max, pp->compete_frac, PERT_PPM);
	__u64 hi = pert_mul_div(st->q_max, pp->t3_frac, PERT_PPM);
	__u64 w, d, x, up;

	if (q >= hi || hi <= lo)
		return full;
	if (q <= lo)
		return PERT_PPM;
	w = hi - lo;
	d = pert_mul_div(st->q_max, pp->ramp_pole_frac, PERT_PPM);
	x = q - lo;
	up = pert_mul_div(full > PERT_PPM ? full - PERT_PPM : 0, x, pert_sat_add(x, d));
	return PERT_PPM + pert_mul_div(up, pert_sat_add(w, d), w);
}

/* The curve's end: t3_frac q_max, at least 2 t_max if t3_floor. */
static inline __u64 perta_t3(const struct perta_params *pp, const struct perta_state *st)
{
	__u64 t3 = pert_mul_div(st->q_max, pp->t3_frac, PERT_PPM);
	__u64 floor = pert_sat_add(pp->base.t_max, pp->base.t_max);

	return pp->t3_floor && t3 < floor ? floor : t3;
}

/* PERT/RED's parameters with this moment's curve end and decrease. */
static inline void perta_curve(const struct perta_params *pp, const struct perta_state *st,
			       struct pert_params *out)
{
	*out = pp->base;
	out->t_end = perta_t3(pp, st);
	out->have_t_end = 1;
	out->literal = 0;
	out->keep_ppm = perta_keep_ppm(st);
}

/* Response probability now, units of 2^-32. */
static inline __u64 perta_probability(const struct perta_params *pp, const struct perta_state *st)
{
	struct pert_params c;

	perta_curve(pp, st, &c);
	return pert_probability(&c, &st->sig);
}

static inline void perta_init(const struct perta_params *pp, struct perta_state *st)
{
	__builtin_memset(st, 0, sizeof(*st));
	st->q_max = pp->q_max_init ? pp->q_max_init : 1;
	st->alpha = PERT_PPM;
	st->mode = PERTA_SAFE;
}

/* The region the queueing delay is in now. */
static inline __u32 perta_region(const struct perta_params *pp, const struct perta_state *st)
{
	__u64 q = pert_qdelay(&st->sig);

	if (q < pp->base.t_min)
		return PERTA_HIGH_SPEED;
	if (q > pert_mul_div(st->q_max, pp->compete_frac, PERT_PPM))
		return PERTA_COMPETE;
	return PERTA_SAFE;
}

static inline void perta_start_period(const struct perta_params *pp, struct perta_state *st, __u64 now_us)
{
	__u64 len = pert_mul_div(st->sig.srtt >> PERT_SRTT_SHIFT, pp->alpha_period_rtts, PERT_PPM);

	st->region_acks[0] = st->region_acks[1] = st->region_acks[2] = 0;
	st->period_start = now_us;
	st->period_end = pert_sat_add(now_us, len ? len : 1);
	st->have_period = 1;
}

/* End of an alpha period: the mode is the region most of its ACKs saw q in
 * (ties: high speed, safe, compete), alpha steps, the next period starts. */
static inline void perta_end_period(const struct perta_params *pp, struct perta_state *st, __u64 now_us)
{
	__u64 most = st->region_acks[0], a = st->alpha;
	__u32 m = PERTA_HIGH_SPEED;

	if (st->mode < 3)
		st->mode_time[st->mode] += now_us > st->period_start ? now_us - st->period_start : 0;
	if (st->region_acks[1] > most) {
		most = st->region_acks[1];
		m = PERTA_SAFE;
	}
	if (st->region_acks[2] > most) {
		most = st->region_acks[2];
		m = PERTA_COMPETE;
	}
	if (most > 0)
		st->mode = m;
	if (st->mode == PERTA_HIGH_SPEED) {
		a = pert_min_u64(pert_sat_add(a, pp->high_speed_step), pp->alpha_max);
	} else if (st->mode == PERTA_SAFE) {
		a = pert_mul_div(a, pp->safe_decay, PERT_PPM);
	} else {
		a = pert_min_u64(pert_sat_add(a, pp->compete_step), perta_compete_target(pp, st));
	}
	st->alpha = a < PERT_PPM ? PERT_PPM : a;
	perta_start_period(pp, st, now_us);
}

/*
 * pkts_acked: `acked` segments, with an RTT sample when have_rtt (rtt_us as
 * ack_sample.rtt_us). Both estimators count the segments; the sample feeds
 * srtt, P, q_max and the period's region count; the period ends on the
 * first sample at or after its end.
 */
static inline void perta_pkts_acked(const struct perta_params *pp, struct perta_state *st, __u32 acked,
				    int have_rtt, __u64 rtt_us, __u64 now_us)
{
	__u64 sample, seen, p;

	perta_intervals_acked(pp, &st->losses, acked);
	perta_intervals_acked(pp, &st->early, acked);
	if (!have_rtt)
		return;
	pert_update_rtt(&pp->base, &st->sig, rtt_us, now_us);
	if (pp->q_max_srtt) {
		seen = pert_qdelay(&st->sig);
	} else {
		sample = (rtt_us > PERT_MAX_RTT_US ? PERT_MAX_RTT_US : rtt_us) << PERT_SRTT_SHIFT;
		p = (__u64)st->sig.min_rtt_us << PERT_SRTT_SHIFT;
		seen = sample > p ? sample - p : 0;
	}
	if (seen > st->q_max)
		st->q_max = seen;
	st->region_acks[perta_region(pp, st) % 3] += acked ? acked : 1;
	if (!st->have_period)
		perta_start_period(pp, st, now_us);
	else if (now_us >= st->period_end)
		perta_end_period(pp, st, now_us);
}

/* cwnd += alpha / cwnd per ACKed segment. */
static inline void perta_additive_increase(struct perta_state *st, struct pert_tp *tp, __u32 acked)
{
	int i;

	st->credit = pert_sat_add(st->credit, st->alpha * acked);
	for (i = 0; i < PERTA_AI_MAX_STEPS; i++) {
		__u64 unit = (__u64)(tp->snd_cwnd ? tp->snd_cwnd : 1) * PERT_PPM;

		if (st->credit < unit || tp->snd_cwnd >= tp->snd_cwnd_clamp)
			break;
		st->credit -= unit;
		tp->snd_cwnd++;
	}
}

/* What perta_cong_avoid did. */
#define PERTA_DREW 1      /* one random draw, no response */
#define PERTA_RESPONDED 2 /* one random draw, an early response */

/*
 * cong_avoid: an early response (one PERT_RANDOM_U32() draw when the guard
 * is open and p > 0) keeps 1 - beta of the window; otherwise Reno's slow
 * start, then alpha / cwnd per segment. `grow` as in pert_cong_avoid.
 * Returns 0 (no draw), PERTA_DREW or PERTA_RESPONDED.
 */
static inline int perta_cong_avoid(const struct perta_params *pp, struct perta_state *st,
				   struct pert_tp *tp, __u32 acked, int grow)
{
	struct pert_params c;
	int drew = 0;

	perta_curve(pp, st, &c);
	if (pert_may_respond(&c, &st->sig, tp)) {
		__u64 p = pert_probability(&c, &st->sig);

		if (p > 0) {
			drew = PERTA_DREW;
			if ((__u64)PERT_RANDOM_U32() < p) {
				pert_respond(&c, &st->sig, tp);
				perta_intervals_event(pp, &st->early);
				st->credit = 0;
				return PERTA_RESPONDED;
			}
		}
	}
	if (!grow)
		return drew;
	if (pert_in_slow_start(tp)) {
		acked = pert_slow_start(tp, acked);
		if (!acked)
			return drew;
	}
	perta_additive_increase(st, tp, acked);
	return drew;
}

/* The window a loss leaves of `cwnd`: 1 - beta of it, or 1/2; at least 2. */
static inline __u32 perta_loss_window(const struct perta_params *pp, const struct perta_state *st, __u32 cwnd)
{
	__u64 keep = pp->loss_half ? PERT_PPM / 2 : perta_keep_ppm(st);
	__u64 kept = (__u64)cwnd * keep / PERT_PPM;
	__u32 w = kept > 0xffffffffULL ? 0xffffffffU : (__u32)kept;

	return w < PERT_MIN_CWND ? PERT_MIN_CWND : w;
}

/* ssthresh (loss event): p's interval closes; keep 1 - beta, or 1/2. */
static inline __u32 perta_ssthresh(const struct perta_params *pp, struct perta_state *st,
				   const struct pert_tp *tp)
{
	perta_intervals_event(pp, &st->losses);
	st->credit = 0;
	return perta_loss_window(pp, st, tp->snd_cwnd);
}

#endif /* PERT_ADAPTIVE_ALGO_H */
