// SPDX-License-Identifier: GPL-2.0
/*
 * User-space build of bpf/pert_algo.h, the algorithm the eBPF program runs,
 * for replaying the shared test vectors (tests/vectors/pert.json, generated
 * by the Rust reference). tests/python/test_pert_vectors.py turns the JSON
 * into lines on standard input:
 *
 *   case t_min t_max t_end have_t_end p_max weight_ppm keep_ppm literal
 *        respond_in_slow_start cwnd ssthresh cwnd_cnt clamp snd_una snd_nxt
 *        min_rtt_window_us
 *   ev now_us snd_una snd_nxt set_cwnd set_ssthresh set_cwnd_cnt
 *      call_ssthresh pkts_acked rtt_us cong_avoid acked n_draws draw...
 *
 * (-1: field not set / no RTT sample) and prints after each event:
 *   cwnd ssthresh cwnd_cnt early_responses srtt min_rtt_us prob ssthresh_ret
 *   draws_used
 * with -1 for srtt / min_rtt_us before a sample and for ssthresh_ret when
 * ssthresh was not called. The hooks run in the order the kernel calls them
 * (ssthresh on entering recovery, then pkts_acked, then cong_avoid), exactly
 * as bpf/tcp_pert.bpf.c calls them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include "pert_harness.h"

#define PERT_RANDOM_U32() pert_harness_draw()
#include "pert_algo.h"

int main(void)
{
	struct pert_params pp;
	struct pert_state st;
	struct pert_tp tp;
	char kind[8];

	memset(&pp, 0, sizeof(pp));
	memset(&st, 0, sizeof(st));
	memset(&tp, 0, sizeof(tp));
	while (scanf("%7s", kind) == 1) {
		if (!strcmp(kind, "case")) {
			unsigned long long v[16];
			int i;

			for (i = 0; i < 16; i++)
				if (scanf("%llu", &v[i]) != 1)
					return 2;
			pp.t_min = v[0];
			pp.t_max = v[1];
			pp.t_end = v[2];
			pp.have_t_end = (__u32)v[3];
			pp.p_max = v[4];
			pp.weight_ppm = v[5];
			pp.keep_ppm = v[6];
			pp.literal = (__u32)v[7];
			pp.respond_in_slow_start = (__u32)v[8];
			memset(&st, 0, sizeof(st));
			PERT_HARNESS_SET_TP(tp, v + 9);
			pp.min_rtt_window_us = v[15];
		} else if (!strcmp(kind, "ev")) {
			long long t, v[11];
			long long ret = -1;
			int i;

			if (scanf("%lld", &t) != 1)
				return 2;
			for (i = 0; i < 11; i++)
				if (scanf("%lld", &v[i]) != 1)
					return 2;
			if (pert_harness_read_draws(v[10]))
				return 2;
			tp.snd_una = (__u32)v[0];
			tp.snd_nxt = (__u32)v[1];
			if (v[2] >= 0)
				tp.snd_cwnd = (__u32)v[2];
			if (v[4] >= 0)
				tp.snd_cwnd_cnt = (__u32)v[4];
			if (v[5])
				ret = pert_ssthresh(&tp);
			if (v[3] >= 0)
				tp.snd_ssthresh = (__u32)v[3];
			if (v[6] && v[7] >= 0)
				pert_update_rtt(&pp, &st, (__u64)v[7], (__u64)t);
			if (v[8])
				pert_cong_avoid(&pp, &st, &tp, (__u32)v[9], 1);
			printf("%u %u %u %u %lld %lld %llu %lld %d\n", tp.snd_cwnd, tp.snd_ssthresh,
			       tp.snd_cwnd_cnt, st.early_responses,
			       (st.flags & PERT_HAVE_RTT) ? (long long)st.srtt : -1LL,
			       (st.flags & PERT_HAVE_RTT) ? (long long)st.min_rtt_us : -1LL,
			       (unsigned long long)pert_probability(&pp, &st), ret,
			       pert_harness_draws_used());
		} else {
			return 2;
		}
	}
	return 0;
}
