/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PERT/RED (Bhandarkar, Reddy, Zhang, Loguinov, "Emulating AQM from End
 * Hosts", SIGCOMM 2007, Section 3): the algorithm in plain C with no BPF or
 * kernel dependencies.
 *
 * One source, two builds: bpf/tcp_pert.bpf.c includes this header for the
 * kernel (eBPF struct_ops), and bpf/pert_vectors.c includes it for the
 * user-space test harness that replays tests/vectors/pert.json, the vectors the
 * Rust reference (crates/pertlab-sim/src/tcp/cc/pert.rs) generates. Every
 * rule and every rounding here follows that file; read its module
 * documentation for what is STATED in the paper and what is a CHOICE.
 *
 * The includer defines, before including this header:
 *   - the types __u8, __u32, __s32, __u64 (linux/types.h or vmlinux.h);
 *   - PERT_RANDOM_U32(): one uniform 32-bit random number
 *     (bpf_get_prandom_u32() in the kernel, a recorded draw in the harness).
 *
 * Fixed point (precision):
 *   - RTT samples in whole microseconds (Linux ack_sample.rtt_us, s32).
 *   - srtt in microseconds << PERT_SRTT_SHIFT (1/1024 us), updated as
 *       srtt = (srtt * w + (rtt_us << 10) * (10^6 - w)) / 10^6,
 *     truncated, w = 990000 (0.99 exactly). Error: under one unit (< 0.001
 *     us) per update; against a constant sample srtt settles within 99 units
 *     (0.1 us) below it. All terms stay below 2^62 (rtt_us < 2^31).
 *   - Probabilities in units of 2^-32 (PERT_PROB_ONE = 1), p_max rounded
 *     (0.05 -> 214748365); each linear piece of the gentle-RED curve is
 *     lo + (hi - lo) * num / den with the exact product truncated once
 *     (pert_mul_div: 64-bit fast path, exact shift-subtract otherwise).
 *   - The response keeps cwnd * keep / 10^6 segments, keep = 650000
 *     (35 % decrease), truncated, at least 2.
 * Everything is unsigned (the BPF back end has no signed division); the only
 * signed operation is the wrap-safe sequence comparison.
 */
#ifndef PERT_ALGO_H
#define PERT_ALGO_H

#define PERT_SRTT_SHIFT 10
#define PERT_PPM 1000000ULL
#define PERT_PROB_ONE (1ULL << 32)
#define PERT_MAX_RTT_US 0x7fffffffULL
#define PERT_MIN_CWND 2U

/* pert_state.flags */
#define PERT_HAVE_RTT 1U   /* srtt and min_rtt_us hold a sample */
#define PERT_HAVE_GUARD 2U /* guard holds snd_nxt at the last response */

/* Parameters, all in the fixed point above. */
struct pert_params {
	__u64 t_min;      /* queueing delay where p starts to rise, us << 10 */
	__u64 t_max;      /* queueing delay where p = p_max, us << 10 */
	__u64 t_end;      /* end of the gentle region, us << 10 (if have_t_end) */
	__u64 p_max;      /* units of 2^-32 */
	__u64 weight_ppm; /* srtt history weight, millionths */
	__u64 keep_ppm;   /* share of cwnd an early response keeps, millionths */
	__u32 have_t_end; /* 0: the paper's 2 T_max in the form `literal` says */
	__u32 literal;    /* thresholds on srtt as printed (2 (P + t_max)) */
	__u32 respond_in_slow_start;
	__u32 pad;
	/* P over the last this many us (an extension, pert_min_rtt_window_update);
	 * 0: the smallest sample of the connection (the paper, the theses) */
	__u64 min_rtt_window_us;
};

/*
 * P as the minimum RTT over a sliding window (with min_rtt_window_us set):
 * Nichols' three-sample estimator, as Linux keeps tcp_min_rtt
 * (lib/minmax.c) and the Rust reference crates/pertlab-sim/src/tcp/cc/
 * windowed_min.rs, step for step. The best, second and third choice, each
 * later than the one before.
 */
struct pert_min_rtt_window {
	__u64 t[3]; /* us */
	__u32 v[3]; /* us */
	__u32 have;
};

/* Per-socket state: 64 bytes, fits the congestion-control private area (104). */
struct pert_state {
	__u64 srtt;       /* us << 10 */
	__u32 min_rtt_us; /* P */
	__u32 guard;      /* no response until snd_una is after this */
	__u32 flags;
	__u32 early_responses;
	struct pert_min_rtt_window p_window;
};

/* The parts of struct tcp_sock the algorithm reads and writes. */
struct pert_tp {
	__u32 snd_cwnd;
	__u32 snd_cwnd_cnt;
	__u32 snd_ssthresh;
	__u32 snd_cwnd_clamp;
	__u32 snd_una;
	__u32 snd_nxt;
};

static inline __u64 pert_min_u64(__u64 a, __u64 b) { return a < b ? a : b; }

static inline __u64 pert_sat_add(__u64 a, __u64 b)
{
	__u64 s = a + b;
	return s < a ? ~0ULL : s;
}

/* Linux after(): a is after b in sequence space. */
static inline int pert_seq_after(__u32 a, __u32 b) { return (__s32)(a - b) > 0; }

/* One step of the restoring division of pert_mul_div: bring down `bit`. With
 * the divisor below 2^63 the remainder stays below 2^63 and its top bit after
 * the subtraction says whether it was below the divisor, so the step has no
 * branch: the verifier walks the 64 steps once each (with a branch per step
 * it explored their combinations and passed its million-instruction budget
 * as soon as the curve's end was a runtime value, as with `literal`). */
static inline void pert_div_step(__u64 *rem, __u64 *q, __u64 c, __u64 bit)
{
	__u64 r = (*rem << 1) | bit;
	__u64 ge = ((r - c) >> 63) ^ 1; /* r >= c */

	*rem = r - (c & (0 - ge));
	*q = (*q << 1) | ge;
}

/*
 * floor(a * b / c), exact, saturating at 2^64 - 1, for c < 2^63 (the loaders
 * keep every time below 2^50 in these units); a when c = 0. The 64-bit
 * product when both factors are below 2^32 (queueing delays up to 4.19 s),
 * else the 128-bit product by 32-bit limbs and restoring division of it, one
 * bit per step (the high half is below c when the quotient fits, so it is
 * the starting remainder). An includer may define PERT_MUL_DIV_ATTR (before
 * including) to make it a BPF global function, verified once rather than at
 * every call (tcp_pert_adaptive.bpf.c: many calls per hook).
 */
#ifndef PERT_MUL_DIV_ATTR
#define PERT_MUL_DIV_ATTR static inline
#endif
PERT_MUL_DIV_ATTR __u64 pert_mul_div(__u64 a, __u64 b, __u64 c)
{
	__u64 a_lo, a_hi, b_lo, b_hi, lo, hi, mid, rem, q = 0;
	int i;

	if (c == 0)
		return a;
	/* Both below 2^32: the product fits. (Written without a division-based
	 * overflow test, which clang turns into a 128-bit multiply BPF lacks.) */
	if (((a | b) >> 32) == 0)
		return a * b / c;
	a_lo = a & 0xffffffffULL;
	a_hi = a >> 32;
	b_lo = b & 0xffffffffULL;
	b_hi = b >> 32;
	lo = a_lo * b_lo;
	hi = a_hi * b_hi;
	mid = a_lo * b_hi;
	hi += mid >> 32;
	mid <<= 32;
	lo += mid;
	if (lo < mid)
		hi++;
	mid = a_hi * b_lo;
	hi += mid >> 32;
	mid <<= 32;
	lo += mid;
	if (lo < mid)
		hi++;
	if (hi >= c)
		return ~0ULL;
	rem = hi;
	for (i = 63; i >= 0; i--)
		pert_div_step(&rem, &q, c, (lo >> i) & 1);
	return q;
}

/* lo + (hi - lo) * num / den, truncated; hi when the span is empty. */
static inline __u64 pert_interpolate(__u64 lo, __u64 hi, __u64 num, __u64 den)
{
	__u64 step;

	if (den == 0)
		return hi;
	step = pert_mul_div(hi - lo, num, den);
	return lo + pert_min_u64(step, hi - lo);
}

/* Queueing delay srtt - P (us << 10); 0 before the first sample. */
static inline __u64 pert_qdelay(const struct pert_state *st)
{
	__u64 p;

	if (!(st->flags & PERT_HAVE_RTT))
		return 0;
	p = (__u64)st->min_rtt_us << PERT_SRTT_SHIFT;
	return st->srtt > p ? st->srtt - p : 0;
}

/* End of the gentle region as a queueing delay. */
static inline __u64 pert_curve_end(const struct pert_params *pp, const struct pert_state *st)
{
	__u64 two_t_max = pert_sat_add(pp->t_max, pp->t_max);
	__u64 p = 0;

	if (pp->have_t_end)
		return pp->t_end;
	if (!pp->literal)
		return two_t_max;
	if (st->flags & PERT_HAVE_RTT)
		p = (__u64)st->min_rtt_us << PERT_SRTT_SHIFT;
	return pert_sat_add(two_t_max, p); /* 2 (P + t_max) - P */
}

/* Gentle-RED response probability (units of 2^-32) at the current srtt. */
static inline __u64 pert_probability(const struct pert_params *pp, const struct pert_state *st)
{
	__u64 q = pert_qdelay(st);
	__u64 end = pert_curve_end(pp, st);

	if (q < pp->t_min)
		return 0;
	if (q < pp->t_max)
		return pert_interpolate(0, pp->p_max, q - pp->t_min, pp->t_max - pp->t_min);
	if (q < end)
		return pert_interpolate(pp->p_max, PERT_PROB_ONE, q - pp->t_max, end - pp->t_max);
	return PERT_PROB_ONE;
}

static inline void pert_choice(struct pert_min_rtt_window *m, int i, __u64 t, __u32 v)
{
	m->t[i] = t;
	m->v[i] = v;
}

static inline __u64 pert_age(__u64 now_us, __u64 t) { return now_us > t ? now_us - t : 0; }

/* The window's minimum after the sample v (us) at now_us (windowed_min.rs's update). */
static inline __u32 pert_min_rtt_window_update(struct pert_min_rtt_window *m, __u64 win, __u64 now_us, __u32 v)
{
	__u64 age;

	/* The first sample, a new minimum, or every choice has left the window: start again. */
	if (!m->have || v <= m->v[0] || pert_age(now_us, m->t[2]) > win) {
		m->have = 1;
		pert_choice(m, 0, now_us, v);
		pert_choice(m, 1, now_us, v);
		pert_choice(m, 2, now_us, v);
		return v;
	}
	if (v <= m->v[1]) {
		pert_choice(m, 1, now_us, v);
		pert_choice(m, 2, now_us, v);
	} else if (v <= m->v[2]) {
		pert_choice(m, 2, now_us, v);
	}
	age = pert_age(now_us, m->t[0]);
	if (age > win) {
		/* The best has expired: the later choices move up (twice if the
		 * second has expired too; the third is within the window). */
		pert_choice(m, 0, m->t[1], m->v[1]);
		pert_choice(m, 1, m->t[2], m->v[2]);
		pert_choice(m, 2, now_us, v);
		if (pert_age(now_us, m->t[0]) > win) {
			pert_choice(m, 0, m->t[1], m->v[1]);
			pert_choice(m, 1, m->t[2], m->v[2]);
			pert_choice(m, 2, now_us, v);
		}
	} else if (m->t[1] == m->t[0] && age > win / 4) {
		/* A quarter of the window without a second choice: take one from now. */
		pert_choice(m, 1, now_us, v);
		pert_choice(m, 2, now_us, v);
	} else if (m->t[2] == m->t[1] && age > win / 2) {
		/* Half the window without a third choice: take one from now. */
		pert_choice(m, 2, now_us, v);
	}
	return m->v[0];
}

/* pkts_acked with an RTT sample taken at now_us: srtt_0.99 and P. */
static inline void pert_update_rtt(const struct pert_params *pp, struct pert_state *st, __u64 rtt_us, __u64 now_us)
{
	__u64 sample;
	int first;

	if (rtt_us > PERT_MAX_RTT_US)
		rtt_us = PERT_MAX_RTT_US;
	sample = rtt_us << PERT_SRTT_SHIFT;
	first = !(st->flags & PERT_HAVE_RTT);
	st->flags |= PERT_HAVE_RTT;
	st->srtt = first ? sample : (st->srtt * pp->weight_ppm + sample * (PERT_PPM - pp->weight_ppm)) / PERT_PPM;
	if (pp->min_rtt_window_us)
		st->min_rtt_us = pert_min_rtt_window_update(&st->p_window, pp->min_rtt_window_us, now_us, (__u32)rtt_us);
	else if (first || rtt_us < st->min_rtt_us)
		st->min_rtt_us = (__u32)rtt_us;
}

static inline int pert_in_slow_start(const struct pert_tp *tp)
{
	return tp->snd_cwnd < tp->snd_ssthresh;
}

/* Once per RTT, and in slow start only if allowed. */
static inline int pert_may_respond(const struct pert_params *pp, const struct pert_state *st,
				   const struct pert_tp *tp)
{
	if ((st->flags & PERT_HAVE_GUARD) && !pert_seq_after(tp->snd_una, st->guard))
		return 0;
	return pp->respond_in_slow_start || !pert_in_slow_start(tp);
}

/* Early response: cwnd = ssthresh = cwnd * keep (>= 2). */
static inline void pert_respond(const struct pert_params *pp, struct pert_state *st, struct pert_tp *tp)
{
	__u64 kept = (__u64)tp->snd_cwnd * pp->keep_ppm / PERT_PPM;
	__u32 cwnd = kept > 0xffffffffULL ? 0xffffffffU : (__u32)kept;

	if (cwnd < PERT_MIN_CWND)
		cwnd = PERT_MIN_CWND;
	if (cwnd > tp->snd_cwnd)
		cwnd = tp->snd_cwnd;
	tp->snd_cwnd = cwnd;
	tp->snd_ssthresh = cwnd < PERT_MIN_CWND ? PERT_MIN_CWND : cwnd;
	tp->snd_cwnd_cnt = 0;
	st->guard = tp->snd_nxt;
	st->flags |= PERT_HAVE_GUARD;
	st->early_responses++;
}

/* Linux tcp_slow_start: returns the ACKed segments left for avoidance. */
static inline __u32 pert_slow_start(struct pert_tp *tp, __u32 acked)
{
	__u32 cwnd = tp->snd_cwnd + acked;
	__u32 grown;

	if (cwnd > tp->snd_ssthresh)
		cwnd = tp->snd_ssthresh;
	grown = cwnd - tp->snd_cwnd;
	acked -= grown < acked ? grown : acked;
	tp->snd_cwnd = cwnd < tp->snd_cwnd_clamp ? cwnd : tp->snd_cwnd_clamp;
	return acked;
}

/* Linux tcp_cong_avoid_ai: one segment per w ACKed segments. */
static inline void pert_cong_avoid_ai(struct pert_tp *tp, __u32 w, __u32 acked)
{
	if (w == 0)
		w = 1;
	if (tp->snd_cwnd_cnt >= w) {
		tp->snd_cwnd_cnt = 0;
		tp->snd_cwnd++;
	}
	tp->snd_cwnd_cnt += acked;
	if (tp->snd_cwnd_cnt >= w) {
		__u32 delta = tp->snd_cwnd_cnt / w;

		tp->snd_cwnd_cnt -= delta * w;
		tp->snd_cwnd += delta;
	}
	if (tp->snd_cwnd > tp->snd_cwnd_clamp)
		tp->snd_cwnd = tp->snd_cwnd_clamp;
}

/* Linux tcp_reno_cong_avoid after its cwnd-limited check. */
static inline void pert_reno_grow(struct pert_tp *tp, __u32 acked)
{
	if (pert_in_slow_start(tp)) {
		acked = pert_slow_start(tp, acked);
		if (!acked)
			return;
	}
	pert_cong_avoid_ai(tp, tp->snd_cwnd, acked);
}

/*
 * cong_avoid: on an eligible ACK with p > 0, exactly one PERT_RANDOM_U32()
 * draw; respond iff draw < p. An ACK that responds does not also grow the
 * window. Returns 1 on an early response. `grow` is 0 when the kernel's
 * tcp_is_cwnd_limited() says the window must not grow (the Rust reference
 * always grows; its vectors use grow = 1).
 */
static inline int pert_cong_avoid(const struct pert_params *pp, struct pert_state *st,
				  struct pert_tp *tp, __u32 acked, int grow)
{
	if (pert_may_respond(pp, st, tp)) {
		__u64 p = pert_probability(pp, st);

		if (p > 0 && (__u64)PERT_RANDOM_U32() < p) {
			pert_respond(pp, st, tp);
			return 1;
		}
	}
	if (grow)
		pert_reno_grow(tp, acked);
	return 0;
}

/* Loss: standard TCP, Reno's max(cwnd / 2, 2). */
static inline __u32 pert_ssthresh(const struct pert_tp *tp)
{
	__u32 half = tp->snd_cwnd >> 1;

	return half > 2 ? half : 2;
}

#endif /* PERT_ALGO_H */
