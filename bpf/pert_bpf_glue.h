/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the eBPF congestion controls (tcp_pert.bpf.c, tcp_pert_adaptive.bpf.c)
 * share besides their algorithm headers: the per-connection key of their
 * counter maps, the tcp_sock view of a socket, Linux's tcp_is_cwnd_limited()
 * and the copy of the tcp_sock fields the algorithms read and write.
 * Include after vmlinux.h, bpf_helpers.h, bpf_core_read.h and pert_algo.h.
 */
#ifndef PERT_BPF_GLUE_H
#define PERT_BPF_GLUE_H

/* Per-connection counters are keyed by addresses (IPv4; 0 for IPv6) and
 * ports in host order; an entry is reset when a connection starts using the
 * congestion control. */
struct pert_flow_key {
	__u32 saddr;
	__u32 daddr;
	__u16 sport;
	__u16 dport;
};

static __always_inline void flow_key(const struct sock *sk, struct pert_flow_key *k)
{
	k->saddr = sk->__sk_common.skc_rcv_saddr;
	k->daddr = sk->__sk_common.skc_daddr;
	k->sport = sk->__sk_common.skc_num;
	k->dport = __builtin_bswap16(sk->__sk_common.skc_dport);
}

/* This connection's entry in a per-connection counter map, created as
 * `zero` when missing; NULL when the map is full of busy entries. */
static __always_inline void *flow_entry(void *map, const struct sock *sk, const void *zero)
{
	struct pert_flow_key k;
	void *v;

	flow_key(sk, &k);
	v = bpf_map_lookup_elem(map, &k);
	if (!v) {
		bpf_map_update_elem(map, &k, zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(map, &k);
	}
	return v;
}

/* Forget this connection's counters (it starts using the controller). */
static __always_inline void flow_reset(void *map, const struct sock *sk)
{
	struct pert_flow_key k;

	flow_key(sk, &k);
	bpf_map_delete_elem(map, &k);
}

static __always_inline struct tcp_sock *tcp_sk(const struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

/* Linux tcp_is_cwnd_limited(). */
static __always_inline int is_cwnd_limited(struct tcp_sock *tp)
{
	if (tp->snd_cwnd < tp->snd_ssthresh)
		return tp->snd_cwnd < 2 * tp->max_packets_out;
	return BPF_CORE_READ_BITFIELD(tp, is_cwnd_limited);
}

/* The tcp_sock fields the algorithms use, in and out. */
static __always_inline void pert_tp_read(struct tcp_sock *tp, struct pert_tp *t)
{
	t->snd_cwnd = tp->snd_cwnd;
	t->snd_cwnd_cnt = tp->snd_cwnd_cnt;
	t->snd_ssthresh = tp->snd_ssthresh;
	t->snd_cwnd_clamp = tp->snd_cwnd_clamp;
	t->snd_una = tp->snd_una;
	t->snd_nxt = tp->snd_nxt;
}

static __always_inline void pert_tp_write(struct tcp_sock *tp, const struct pert_tp *t)
{
	tp->snd_cwnd = t->snd_cwnd;
	tp->snd_cwnd_cnt = t->snd_cwnd_cnt;
	tp->snd_ssthresh = t->snd_ssthresh;
}

/*
 * A slow-start threshold the kernel cannot have set. Linux keeps snd_ssthresh
 * at most TCP_INFINITE_SSTHRESH (0x7fffffff). On the 6.18 kernel of the
 * project's testbed, a pert_adaptive connection now and then holds 2165326096
 * there (0x81104110, the low half of 0xffffffff81104110, a return address
 * inside the kernel's srso_alias_return_thunk: a stale stack word), written at
 * a moment when this program's ssthresh did not run for it (docs/linux.md, "A
 * stale slow-start threshold"). Proportional Rate Reduction then computes a
 * window of about 10^9 segments from it and the connection bursts, then slow
 * starts without bound. Each hook puts the threshold back (`value`, the window
 * a loss of prior_cwnd leaves) before the kernel uses it again, and counts it.
 */
#define PERT_INFINITE_SSTHRESH 0x7fffffffU

static __always_inline int pert_ssthresh_invalid(const struct tcp_sock *tp)
{
	return tp->snd_ssthresh > PERT_INFINITE_SSTHRESH;
}

/* The window the last loss started from: prior_cwnd, or cwnd before any loss. */
static __always_inline __u32 pert_loss_base(const struct tcp_sock *tp)
{
	return tp->prior_cwnd ? tp->prior_cwnd : tp->snd_cwnd;
}

static __always_inline void pert_ssthresh_repair(struct tcp_sock *tp, __u32 value, __u64 *count)
{
	tp->snd_ssthresh = value;
	__sync_fetch_and_add(count, 1);
}

/* Reno's undo: max(cwnd, prior_cwnd). */
static __always_inline __u32 pert_undo_cwnd(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);

	return tp->snd_cwnd > tp->prior_cwnd ? tp->snd_cwnd : tp->prior_cwnd;
}

#endif /* PERT_BPF_GLUE_H */
