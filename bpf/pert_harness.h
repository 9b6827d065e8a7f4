/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the user-space vector harnesses (pert_vectors.c,
 * pert_adaptive_vectors.c) share: the recorded random draws of one event,
 * handed out as PERT_RANDOM_U32() in order, and the connection's fields
 * read from a vector line (PERT_HARNESS_SET_TP). A harness defines
 * PERT_RANDOM_U32() as pert_harness_draw() before including an algorithm.
 */
#ifndef PERT_HARNESS_H
#define PERT_HARNESS_H

#include <stdio.h>
#include <linux/types.h>

#define PERT_HARNESS_MAX_DRAWS 64

static __u32 pert_harness_draws[PERT_HARNESS_MAX_DRAWS];
static int pert_harness_n, pert_harness_used, pert_harness_overdrawn;

/* The next recorded draw; all ones (and a mark) when they are used up. */
static __u32 pert_harness_draw(void)
{
	if (pert_harness_used >= pert_harness_n) {
		pert_harness_overdrawn = 1;
		return 0xffffffffU;
	}
	return pert_harness_draws[pert_harness_used++];
}

/* Read n draws from standard input for the next event; 0 on success. */
static int pert_harness_read_draws(long long n)
{
	int i;

	if (n < 0 || n > PERT_HARNESS_MAX_DRAWS)
		return -1;
	pert_harness_n = (int)n;
	for (i = 0; i < pert_harness_n; i++) {
		unsigned long long d;

		if (scanf("%llu", &d) != 1)
			return -1;
		pert_harness_draws[i] = (__u32)d;
	}
	pert_harness_used = 0;
	pert_harness_overdrawn = 0;
	return 0;
}

/* Draws the event used, -1 if it asked for more than were recorded. */
static int pert_harness_draws_used(void)
{
	return pert_harness_overdrawn ? -1 : pert_harness_used;
}

/*
 * A connection's struct pert_tp from six numbers of a vector line, v[0..5]:
 * snd_cwnd, snd_ssthresh, snd_cwnd_cnt, snd_cwnd_clamp, snd_una, snd_nxt (the
 * order of both vector files). A macro: the struct is the algorithm header's,
 * included after this one.
 */
#define PERT_HARNESS_SET_TP(tp, v)                          \
	do {                                                \
		(tp).snd_cwnd = (__u32)(v)[0];              \
		(tp).snd_ssthresh = (__u32)(v)[1];          \
		(tp).snd_cwnd_cnt = (__u32)(v)[2];          \
		(tp).snd_cwnd_clamp = (__u32)(v)[3];        \
		(tp).snd_una = (__u32)(v)[4];               \
		(tp).snd_nxt = (__u32)(v)[5];               \
	} while (0)

#endif /* PERT_HARNESS_H */
