// SPDX-License-Identifier: GPL-2.0
/*
 * Adaptive PERT (Kotla 2008) as a TCP congestion control in eBPF
 * (struct_ops), registered as `pert_adaptive`.
 *
 * The algorithm is bpf/pert_adaptive_algo.h, shared with the user-space
 * harness that replays the Rust reference's vectors
 * (tests/vectors/pert_adaptive.json); this file moves tcp_sock fields in and
 * out of it and keeps the counters.
 *
 * Per-socket state (struct perta_state, 352 bytes: two 8-interval
 * estimators do not fit the 104-byte congestion-control private area) lives
 * in BPF socket storage, created in init; a socket whose storage could not
 * be allocated runs Reno (counted in cnt_no_state). Parameters are one
 * `const volatile` rodata struct in the header's fixed point, set by the
 * loader (bpf/pert_loader.c built with -DPERT_ADAPTIVE). The clock is
 * tcp_sock.tcp_mstamp (microseconds).
 *
 * pkts_acked, cong_avoid and set_state first put back a slow-start threshold
 * the kernel cannot have set (pert_ssthresh_invalid, pert_bpf_glue.h).
 *
 * Counters: .bss totals over all sockets, and per connection the `flows`
 * LRU hash (early responses, draws, losses, alpha periods, and at the last
 * update alpha, mode, q_max, p, p' and the time spent in each mode).
 *
 * Trace (off by default; the loader's trace=FILE sets trace_samples): every
 * RTT sample with the srtt_0.99 and P it gave, into the `samples` ring buffer
 * (struct perta_sample, pert_adaptive_algo.h), which the loader writes out (Kotla
 * Fig. 15: the instantaneous RTT against srtt_0.99). With trace_samples 0 the
 * verifier drops the branch, so the untraced program is unchanged.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#define PERT_RANDOM_U32() bpf_get_prandom_u32()
/* A global function: the verifier checks it once, not at each of its calls. */
#define PERT_MUL_DIV_ATTR __attribute__((noinline))
#include "pert_adaptive_algo.h"
#include "pert_bpf_glue.h"

char _license[] SEC("license") = "GPL";

/* Defaults: the thesis's (Ch. II-IV; spec pert-theses-kotla-qian C1-C8). */
const volatile struct perta_params perta_params = {
	.base = {
		.t_min = 5000ULL << PERT_SRTT_SHIFT,
		.t_max = 10000ULL << PERT_SRTT_SHIFT,
		.p_max = 214748365ULL,
		.weight_ppm = 990000,
	},
	.q_max_init = 10000ULL << PERT_SRTT_SHIFT,
	.alpha_max = 32000000,
	.compete_frac = 500000,
	.t3_frac = 650000,
	.ramp_pole_frac = 10000,
	.alpha_period_rtts = 5000000,
	.high_speed_step = 500000,
	.compete_step = 100000,
	.safe_decay = 900000,
	.weights = { 1000000, 1000000, 1000000, 1000000, 800000, 600000, 400000, 200000 },
	.n_weights = 8,
	.t3_floor = 1,
};

/* Set by the loader's trace=FILE: emit every RTT sample into `samples`. */
const volatile __u32 trace_samples = 0;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);
} samples SEC(".maps");

/* One RTT sample and the srtt and P it gave (us), at the tcp_mstamp clock,
 * into `samples`; dropped when the buffer is full. */
static __always_inline void trace_sample(struct sock *sk, __u32 rtt_us, __u64 srtt_us, __u32 min_rtt_us)
{
	struct perta_sample *s = bpf_ringbuf_reserve(&samples, sizeof(*s), 0);

	if (!s)
		return;
	s->t_us = tcp_sk(sk)->tcp_mstamp;
	s->rtt_us = rtt_us;
	s->srtt_us = srtt_us;
	s->sport = sk->__sk_common.skc_num;
	s->dport = __builtin_bswap16(sk->__sk_common.skc_dport);
	s->min_rtt_us = min_rtt_us;
	bpf_ringbuf_submit(s, 0);
}

/* Totals for `pertlab linux status`. */
__u64 cnt_sockets = 0;
__u64 cnt_no_state = 0;
__u64 cnt_rtt_samples = 0;
__u64 cnt_draws = 0;
__u64 cnt_early_responses = 0;
__u64 cnt_loss_events = 0;
__u64 cnt_alpha_periods = 0;
/* Slow-start thresholds put back (pert_ssthresh_invalid, pert_bpf_glue.h). */
__u64 cnt_ssthresh_repairs = 0;

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct perta_state);
} state SEC(".maps");

/* Per connection: counts since the connection started using pert_adaptive,
 * and its state at the last update (a draw, a loss, an alpha period's end). */
struct perta_flow_val {
	__u64 early_responses;
	__u64 draws;
	__u64 losses;
	__u64 alpha_periods;
	__u64 alpha_ppm;
	__u64 q_max_us;
	__u64 p_ppm;
	__u64 p_early_ppm;
	__u64 mode_time_us[3]; /* high speed, safe, compete */
	__u32 mode;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct pert_flow_key);
	__type(value, struct perta_flow_val);
} flows SEC(".maps");

/*
 * The parameters as the loader set them. The cast drops `volatile` (the
 * algorithm takes a plain pointer), which lets clang read the fields of the
 * initializer above as constants: the program then ran with the defaults
 * whatever the loader wrote (a loopback run with alpha_max = 2 reached alpha
 * 32). barrier_var hides where the pointer points, so every field is read
 * from the rodata map at run time.
 */
static __always_inline const struct perta_params *params(void)
{
	const struct perta_params *pp = (const struct perta_params *)&perta_params;

	barrier_var(pp);
	return pp;
}

static __always_inline struct perta_state *state_of(struct sock *sk)
{
	return bpf_sk_storage_get(&state, sk, NULL, 0);
}

/* What happened: PERTA_DREW / PERTA_RESPONDED bits, a loss, a period's end. */
#define FLOW_LOSS 4
#define FLOW_PERIOD 8

static __always_inline void flow_update(struct sock *sk, const struct perta_state *st, int what)
{
	const struct perta_params *pp = params();
	struct perta_flow_val *v, zero = {};
	__u64 now = tcp_sk(sk)->tcp_mstamp;
	int m;

	v = flow_entry(&flows, sk, &zero);
	if (!v)
		return;
	if (what & (PERTA_DREW | PERTA_RESPONDED))
		v->draws++;
	if (what & PERTA_RESPONDED)
		v->early_responses++;
	if (what & FLOW_LOSS)
		v->losses++;
	if (what & FLOW_PERIOD)
		v->alpha_periods++;
	v->alpha_ppm = st->alpha;
	v->mode = st->mode;
	v->q_max_us = st->q_max >> PERT_SRTT_SHIFT;
	v->p_ppm = perta_rate_ppm(pp, &st->losses);
	v->p_early_ppm = perta_rate_ppm(pp, &st->early);
	for (m = 0; m < 3; m++)
		v->mode_time_us[m] = st->mode_time[m];
	if (st->have_period && st->mode < 3 && now > st->period_start)
		v->mode_time_us[st->mode] += now - st->period_start;
}

/* See pert_ssthresh_invalid: the window a loss of prior_cwnd leaves, without recording a loss. */
static __always_inline void repair_ssthresh(struct sock *sk, const struct perta_state *st)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct pert_tp t = { .snd_cwnd = pert_loss_base(tp) };

	if (pert_ssthresh_invalid(tp))
		pert_ssthresh_repair(tp, st ? perta_loss_window(params(), st, t.snd_cwnd) : pert_ssthresh(&t), &cnt_ssthresh_repairs);
}

SEC("struct_ops/bpf_perta_init")
void BPF_PROG(bpf_perta_init, struct sock *sk)
{
	struct perta_state *st = bpf_sk_storage_get(&state, sk, NULL, BPF_SK_STORAGE_GET_F_CREATE);

	__sync_fetch_and_add(&cnt_sockets, 1);
	flow_reset(&flows, sk);
	if (!st) {
		__sync_fetch_and_add(&cnt_no_state, 1);
		return;
	}
	perta_init(params(), st);
}

SEC("struct_ops/bpf_perta_pkts_acked")
void BPF_PROG(bpf_perta_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct perta_state *st = state_of(sk);
	__s32 rtt_us = sample->rtt_us;
	__u64 start;
	__u32 had;

	repair_ssthresh(sk, st);
	if (!st)
		return;
	had = st->have_period;
	start = st->period_start;
	perta_pkts_acked(params(), st, sample->pkts_acked, rtt_us >= 0, rtt_us >= 0 ? (__u64)(__u32)rtt_us : 0,
			 tcp_sk(sk)->tcp_mstamp);
	if (rtt_us >= 0)
		__sync_fetch_and_add(&cnt_rtt_samples, 1);
	if (trace_samples && rtt_us >= 0)
		trace_sample(sk, (__u32)rtt_us, st->sig.srtt >> PERT_SRTT_SHIFT, st->sig.min_rtt_us);
	if (had && st->period_start != start) {
		__sync_fetch_and_add(&cnt_alpha_periods, 1);
		flow_update(sk, st, FLOW_PERIOD);
	}
}

SEC("struct_ops/bpf_perta_cong_avoid")
void BPF_PROG(bpf_perta_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct perta_state *st = state_of(sk);
	struct pert_tp t;
	int did;

	repair_ssthresh(sk, st);
	pert_tp_read(tp, &t);
	if (!st) {
		if (is_cwnd_limited(tp))
			pert_reno_grow(&t, acked);
		pert_tp_write(tp, &t);
		return;
	}
	did = perta_cong_avoid(params(), st, &t, acked, is_cwnd_limited(tp));
	pert_tp_write(tp, &t);
	if (!did)
		return;
	__sync_fetch_and_add(&cnt_draws, 1);
	if (did == PERTA_RESPONDED)
		__sync_fetch_and_add(&cnt_early_responses, 1);
	flow_update(sk, st, did);
}

SEC("struct_ops/bpf_perta_ssthresh")
__u32 BPF_PROG(bpf_perta_ssthresh, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct perta_state *st = state_of(sk);
	struct pert_tp t = { .snd_cwnd = tp->snd_cwnd };
	__u32 ret;

	if (!st)
		return pert_ssthresh(&t);
	ret = perta_ssthresh(params(), st, &t);
	flow_update(sk, st, FLOW_LOSS);
	return ret;
}

SEC("struct_ops/bpf_perta_undo_cwnd")
__u32 BPF_PROG(bpf_perta_undo_cwnd, struct sock *sk)
{
	return pert_undo_cwnd(sk);
}

SEC("struct_ops/bpf_perta_set_state")
void BPF_PROG(bpf_perta_set_state, struct sock *sk, __u8 new_state)
{
	repair_ssthresh(sk, state_of(sk));
	if (new_state == TCP_CA_Recovery || new_state == TCP_CA_Loss)
		__sync_fetch_and_add(&cnt_loss_events, 1);
}

/* Registered through a BPF link, as `pert` (see tcp_pert.bpf.c). */
SEC(".struct_ops")
struct tcp_congestion_ops pert_adaptive = {
	.init = (void *)bpf_perta_init,
	.pkts_acked = (void *)bpf_perta_pkts_acked,
	.cong_avoid = (void *)bpf_perta_cong_avoid,
	.ssthresh = (void *)bpf_perta_ssthresh,
	.undo_cwnd = (void *)bpf_perta_undo_cwnd,
	.set_state = (void *)bpf_perta_set_state,
	.name = "pert_adaptive",
};
