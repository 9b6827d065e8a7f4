// SPDX-License-Identifier: GPL-2.0
/*
 * Step ECN marking at the testbed's bottleneck (testbed `bottleneck.step_k`;
 * docs/linux.md, "ECN at the bottleneck"): the kernel here has no RED or
 * DCTCP-style marking qdisc, so this tc program on the bottleneck's egress
 * (clsact, ahead of the htb rate limit) marks CE on an ECN-capable packet that
 * arrives while a virtual copy of the queue holds K full-size frames waiting
 * (K_BYTES), as the simulator's `step` queue marks an arrival that finds K
 * packets queued (Alizadeh et al. 2010, Section 3.1).
 *
 * The virtual queue is the FIFO of a link sending at exactly the htb rate
 * (RATE_BPS), the simulator's link: it drains continuously and takes what the
 * real FIFO would (up to LIMIT_BYTES, counting the frame in transmission, a
 * little less than the real FIFO takes). htb sends in bursts (its tokens), so
 * the real FIFO runs about one frame shorter (docs/linux.md, "ECN at the
 * bottleneck"). Built per scenario with the three constants
 * (pertlab.linux.build.build_ce_mark).
 * Counts nothing: the receiver's IpExt InCEPkts counts the marks that arrive.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#define TC_ACT_OK 0
#define NS_PER_S 1000000000ULL

struct virtual_queue {
	struct bpf_spin_lock lock;
	__u64 backlog; /* bytes */
	__u64 last_ns; /* when backlog was last drained */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct virtual_queue);
} vq SEC(".maps");

SEC("tc")
int step_mark(struct __sk_buff *skb)
{
	__u32 zero = 0;
	struct virtual_queue *q = bpf_map_lookup_elem(&vq, &zero);
	if (!q)
		return TC_ACT_OK;
	__u64 now = bpf_ktime_get_ns();
	int over;
	bpf_spin_lock(&q->lock);
	__u64 dt = now - q->last_ns;
	if (dt >= NS_PER_S) { /* a second idle empties any queue the scenario allows */
		q->backlog = 0;
	} else { /* dt < 1e9 and RATE_BPS <= 1e10 (10 Gbit/s): the product fits in 64 bits */
		__u64 drained = dt * RATE_BPS / (8 * NS_PER_S);
		q->backlog = q->backlog > drained ? q->backlog - drained : 0;
	}
	q->last_ns = now;
	/* The backlog holds the rest of the frame being sent (0 to 1 frame) and the
	 * frames waiting: at least K frames wait exactly when it exceeds K frames. */
	over = q->backlog > K_BYTES;
	if (q->backlog + skb->len <= LIMIT_BYTES)
		q->backlog += skb->len;
	bpf_spin_unlock(&q->lock);
	if (over)
		bpf_skb_ecn_set_ce(skb); /* a packet that is not ECN-capable stays as it is */
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
