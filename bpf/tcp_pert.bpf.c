// SPDX-License-Identifier: GPL-2.0
/*
 * PERT/RED as a TCP congestion control in eBPF (struct_ops).
 *
 * The algorithm is bpf/pert_algo.h, shared with the user-space harness that
 * replays the Rust reference's test vectors (tests/vectors/pert.json); this
 * file only moves the fields of struct tcp_sock in and out of it.
 *
 * Parameters are `const volatile` rodata, set by the loader
 * (bpf/pert_loader.c) before the object is loaded, in the fixed point of
 * pert_algo.h. Counters live in .bss (a BPF array map the loader pins next
 * to the link, read by `pertlab linux status`), per connection in the
 * `flows` LRU hash (draws and early responses; the testbed's flow table).
 *
 * Hooks (Linux calls them as for any module):
 *   init        zero the per-socket state (CA private area, 64 bytes)
 *   pkts_acked  RTT sample of each ACK (ack_sample.rtt_us; < 0: none), at
 *               tcp_mstamp (us: P's window, if one is set)
 *   cong_avoid  one random draw per eligible ACK with p > 0, early response
 *               or Reno growth (only when tcp_is_cwnd_limited(), as
 *               tcp_reno_cong_avoid does)
 *   ssthresh    loss: Reno's max(cwnd / 2, 2)
 *   undo_cwnd   Reno's max(cwnd, prior_cwnd)
 *   set_state   nothing to do (the reference keeps srtt, P and the
 *               once-per-RTT guard across recovery); counts losses seen
 * pkts_acked, cong_avoid and set_state first put back a slow-start threshold
 * the kernel cannot have set (pert_ssthresh_invalid, pert_bpf_glue.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#define PERT_RANDOM_U32() bpf_get_prandom_u32()
/* A global function: the verifier checks it once, not at each of its calls.
 * Inlined, the verifier followed the loader's constants into it, and with
 * p_max = 1 (2^32, the 128-bit path) cong_avoid passed its million-instruction
 * budget: `pertlab linux load pert --p-max 1` failed with E2BIG. */
#define PERT_MUL_DIV_ATTR __attribute__((noinline))
#include "pert_algo.h"
#include "pert_bpf_glue.h"

char _license[] SEC("license") = "GPL";

/* The state lives in the socket's congestion-control private area (ICSK_CA_PRIV_SIZE). */
_Static_assert(sizeof(struct pert_state) <= 104, "struct pert_state must fit the 104-byte private area");

/* Defaults: the paper's (5 ms, 10 ms, 2 T_max on the queueing delay,
 * p_max 0.05, 35 % decrease, weight 0.99). */
const volatile __u64 pert_t_min = 5000ULL << PERT_SRTT_SHIFT;
const volatile __u64 pert_t_max = 10000ULL << PERT_SRTT_SHIFT;
const volatile __u64 pert_t_end = 0;
const volatile __u64 pert_p_max = 214748365ULL;
const volatile __u64 pert_weight_ppm = 990000;
const volatile __u64 pert_keep_ppm = 650000;
const volatile __u32 pert_have_t_end = 0;
const volatile __u32 pert_literal = 0;
const volatile __u32 pert_respond_in_slow_start = 1;
const volatile __u64 pert_min_rtt_window_us = 0; /* 0: P is the smallest sample */

/* Counters for `pertlab linux status` (all sockets together). */
__u64 cnt_sockets = 0;
__u64 cnt_rtt_samples = 0;
__u64 cnt_draws = 0;
__u64 cnt_early_responses = 0;
__u64 cnt_loss_events = 0;
/* Slow-start thresholds put back (pert_ssthresh_invalid, pert_bpf_glue.h). */
__u64 cnt_ssthresh_repairs = 0;

struct pert_flow_val {
	__u64 early_responses;
	__u64 draws;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct pert_flow_key);
	__type(value, struct pert_flow_val);
} flows SEC(".maps");

/* Count a draw, and a response if there was one, for this connection. */
static __always_inline void flow_count(const struct sock *sk, int responded)
{
	struct pert_flow_val *v, zero = {};

	v = flow_entry(&flows, sk, &zero);
	if (!v)
		return;
	__sync_fetch_and_add(&v->draws, 1);
	if (responded)
		__sync_fetch_and_add(&v->early_responses, 1);
}

static __always_inline struct pert_state *pert_st(const struct sock *sk)
{
	return (struct pert_state *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

static __always_inline void load_params(struct pert_params *pp)
{
	pp->t_min = pert_t_min;
	pp->t_max = pert_t_max;
	pp->t_end = pert_t_end;
	pp->p_max = pert_p_max;
	pp->weight_ppm = pert_weight_ppm;
	pp->keep_ppm = pert_keep_ppm;
	pp->have_t_end = pert_have_t_end;
	pp->literal = pert_literal;
	pp->respond_in_slow_start = pert_respond_in_slow_start;
	pp->pad = 0;
	pp->min_rtt_window_us = pert_min_rtt_window_us;
}

SEC("struct_ops/bpf_pert_init")
void BPF_PROG(bpf_pert_init, struct sock *sk)
{
	struct pert_state *st = pert_st(sk);

	__builtin_memset(st, 0, sizeof(*st));
	__sync_fetch_and_add(&cnt_sockets, 1);
	flow_reset(&flows, sk);
}

/* See pert_ssthresh_invalid: Reno's half of prior_cwnd, as this program's ssthresh. */
static __always_inline void repair_ssthresh(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct pert_tp t = { .snd_cwnd = pert_loss_base(tp) };

	if (pert_ssthresh_invalid(tp))
		pert_ssthresh_repair(tp, pert_ssthresh(&t), &cnt_ssthresh_repairs);
}

SEC("struct_ops/bpf_pert_pkts_acked")
void BPF_PROG(bpf_pert_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct pert_params pp;
	__s32 rtt_us = sample->rtt_us;

	repair_ssthresh(sk);
	if (rtt_us < 0)
		return;
	load_params(&pp);
	pert_update_rtt(&pp, pert_st(sk), (__u64)(__u32)rtt_us, tcp_sk(sk)->tcp_mstamp);
	__sync_fetch_and_add(&cnt_rtt_samples, 1);
}

SEC("struct_ops/bpf_pert_cong_avoid")
void BPF_PROG(bpf_pert_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct pert_state *st = pert_st(sk);
	struct pert_params pp;
	struct pert_tp t;
	__u32 before = st->early_responses;
	int grow, drawn;

	repair_ssthresh(sk);
	grow = is_cwnd_limited(tp);
	load_params(&pp);
	pert_tp_read(tp, &t);
	drawn = pert_may_respond(&pp, st, &t) && pert_probability(&pp, st) > 0;
	pert_cong_avoid(&pp, st, &t, acked, grow);
	if (drawn) {
		__sync_fetch_and_add(&cnt_draws, 1);
		flow_count(sk, st->early_responses != before);
	}
	if (st->early_responses != before)
		__sync_fetch_and_add(&cnt_early_responses, 1);
	pert_tp_write(tp, &t);
}

SEC("struct_ops/bpf_pert_ssthresh")
__u32 BPF_PROG(bpf_pert_ssthresh, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct pert_tp t = { .snd_cwnd = tp->snd_cwnd };

	return pert_ssthresh(&t);
}

SEC("struct_ops/bpf_pert_undo_cwnd")
__u32 BPF_PROG(bpf_pert_undo_cwnd, struct sock *sk)
{
	return pert_undo_cwnd(sk);
}

SEC("struct_ops/bpf_pert_set_state")
void BPF_PROG(bpf_pert_set_state, struct sock *sk, __u8 new_state)
{
	repair_ssthresh(sk);
	if (new_state == TCP_CA_Recovery || new_state == TCP_CA_Loss)
		__sync_fetch_and_add(&cnt_loss_events, 1);
}

/* Registered through a BPF link (the loader creates the map with BPF_F_LINK),
 * so the congestion control disappears with the last reference to the link. */
SEC(".struct_ops")
struct tcp_congestion_ops pert = {
	.init = (void *)bpf_pert_init,
	.pkts_acked = (void *)bpf_pert_pkts_acked,
	.cong_avoid = (void *)bpf_pert_cong_avoid,
	.ssthresh = (void *)bpf_pert_ssthresh,
	.undo_cwnd = (void *)bpf_pert_undo_cwnd,
	.set_state = (void *)bpf_pert_set_state,
	.name = "pert",
};
