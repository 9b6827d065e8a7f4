// SPDX-License-Identifier: GPL-2.0
/*
 * pert_loader: load an eBPF congestion control through its bpftool skeleton,
 * set its parameters, and register it through a BPF link. One source, two
 * builds: bpf/tcp_pert.bpf.o (`pert`), and with -DPERT_ADAPTIVE
 * bpf/tcp_pert_adaptive.bpf.o (`pert_adaptive`).
 *
 *   pert_loader hold [name=value ...]
 *       Register, print "ready" and keep the link until SIGINT/SIGTERM or
 *       end of standard input. The link is owned by this process only: if it
 *       dies in any way, the kernel drops the link and unregisters the
 *       congestion control.
 *   pert_loader pin DIR [name=value ...]
 *       Register and pin the link (DIR/link) and the counters (DIR/bss,
 *       DIR/flows) and parameters (DIR/rodata) maps in bpffs, then exit. Until the pins are
 *       made, the state is the one of `hold`: a loader that dies leaves
 *       nothing registered. Removing DIR/link unregisters it.
 *
 * Parameters, fixed point of pert_algo.h: t_min, t_max, t_end (us << 10),
 * p_max (units of 2^-32), weight_ppm, keep_ppm, have_t_end, literal,
 * respond_in_slow_start, min_rtt_window_us (0: P is the smallest RTT sample).
 * For pert_adaptive, the fields of struct
 * perta_params (pert_adaptive_algo.h): t_min, t_max, p_max, weight_ppm,
 * respond_in_slow_start, q_max_init, alpha_max, compete_frac, t3_frac,
 * ramp_pole_frac, alpha_period_rtts, high_speed_step, compete_step,
 * safe_decay, t3_floor, q_max_srtt, loss_half, min_rtt_window_us, and
 * weights=w1,w2,... (1 to 8).
 * pert_adaptive's hold also takes trace=FILE: the program then emits every
 * RTT sample with its srtt_0.99 and P (struct perta_sample), which the loader
 * writes to FILE until it ends, a line each: "t_us sport dport rtt_us srtt_us
 * min_rtt_us".
 *
 * Link-based registration: libbpf 1.1 (Debian 12) predates
 * SEC(".struct_ops.link"), so the loader sets BPF_F_LINK on the struct_ops
 * map itself and creates the link with BPF_LINK_CREATE (attach type
 * BPF_STRUCT_OPS); kernels from 6.4 support this.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#ifdef PERT_ADAPTIVE
#include <linux/types.h>
#define PERT_RANDOM_U32() 0U /* the loader needs the header's types, not its algorithm */
#include "pert_adaptive_algo.h"
#include "tcp_pert_adaptive.skel.h"
#define SKEL_T tcp_pert_adaptive_bpf
#define SKEL(f) tcp_pert_adaptive_bpf__##f
#define OPS_MAP pert_adaptive
#else
#include "tcp_pert.skel.h"
#define SKEL_T tcp_pert_bpf
#define SKEL(f) tcp_pert_bpf__##f
#define OPS_MAP pert
#endif

#ifndef BPF_F_LINK
#define BPF_F_LINK (1U << 13)
#endif
#define ATTACH_STRUCT_OPS 44 /* enum bpf_attach_type BPF_STRUCT_OPS, 6.4+ */

static volatile sig_atomic_t stop;
#ifdef PERT_ADAPTIVE
static FILE *trace_out;

static int on_sample(void *ctx, void *data, size_t len)
{
	const struct perta_sample *s = data;

	(void)ctx;
	if (len < sizeof(*s))
		return 0;
	fprintf(trace_out, "%llu %u %u %llu %llu %u\n", (unsigned long long)s->t_us, s->sport, s->dport, (unsigned long long)s->rtt_us,
		(unsigned long long)s->srtt_us, s->min_rtt_us);
	return 0;
}
#endif

static void on_signal(int sig) { (void)sig; stop = 1; }

#ifdef PERT_ADAPTIVE
/* weights=w1,w2,...: 1 to PERTA_MAX_WEIGHTS millionths. */
static int set_weights(struct perta_params *pp, const char *list)
{
	const char *p = list;
	char *end = NULL;
	__u32 n = 0;

	while (n < PERTA_MAX_WEIGHTS) {
		errno = 0;
		pp->weights[n++] = strtoull(p, &end, 0);
		if (errno || end == p)
			return -1;
		if (*end == 0)
			break;
		if (*end != ',')
			return -1;
		p = end + 1;
	}
	if (!end || *end != 0)
		return -1;
	pp->n_weights = n;
	return 0;
}
#endif

static int set_param(struct SKEL_T *skel, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char *end;
	unsigned long long v;
	size_t n;

	if (!eq)
		return -1;
	n = (size_t)(eq - arg);
#define IS(field) (n == strlen(#field) && !strncmp(arg, #field, n))
#ifdef PERT_ADAPTIVE
	if (IS(weights))
		return set_weights(&skel->rodata->perta_params, eq + 1);
#endif
	errno = 0;
	v = strtoull(eq + 1, &end, 0);
	if (errno || *end || end == eq + 1)
		return -1;
#ifdef PERT_ADAPTIVE
#define P(field)                                                         \
	if (IS(field)) {                                                 \
		skel->rodata->perta_params.field = v;                    \
		return 0;                                                \
	}
#define B(field)                                                         \
	if (IS(field)) {                                                 \
		skel->rodata->perta_params.base.field = v;               \
		return 0;                                                \
	}
	B(t_min) B(t_max) B(p_max) B(weight_ppm) B(respond_in_slow_start) B(min_rtt_window_us)
	P(q_max_init) P(alpha_max) P(compete_frac) P(t3_frac) P(ramp_pole_frac)
	P(alpha_period_rtts) P(high_speed_step) P(compete_step) P(safe_decay)
	P(t3_floor) P(q_max_srtt) P(loss_half)
#undef B
#else
#define P(field)                                                         \
	if (IS(field)) {                                                 \
		skel->rodata->pert_##field = v;                          \
		return 0;                                                \
	}
	P(t_min) P(t_max) P(t_end) P(p_max) P(weight_ppm) P(keep_ppm)
	P(have_t_end) P(literal) P(respond_in_slow_start) P(min_rtt_window_us)
#endif
#undef P
#undef IS
	return -1;
}

static __u32 map_id(const struct bpf_map *map)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(bpf_map__fd(map), &info, &len))
		return 0;
	return info.id;
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && !getenv("PERT_LOADER_DEBUG"))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

int main(int argc, char **argv)
{
	struct SKEL_T *skel;
	struct bpf_link *legacy;
	const char *dir = NULL;
	int first = 2, link_fd, i, err;
	char path[4096];

	if (argc < 2 || (strcmp(argv[1], "hold") && strcmp(argv[1], "pin"))) {
		fprintf(stderr, "usage: %s hold|pin DIR [name=value ...]\n", argv[0]);
		return 2;
	}
	if (!strcmp(argv[1], "pin")) {
		if (argc < 3) {
			fprintf(stderr, "pin needs a bpffs directory\n");
			return 2;
		}
		dir = argv[2];
		first = 3;
	}
	libbpf_set_print(libbpf_quiet);
	skel = SKEL(open)();
	if (!skel) {
		fprintf(stderr, "open the BPF object: %s\n", strerror(errno));
		return 1;
	}
	for (i = first; i < argc; i++) {
#ifdef PERT_ADAPTIVE
		if (!dir && !strncmp(argv[i], "trace=", 6)) {
			trace_out = fopen(argv[i] + 6, "w");
			if (!trace_out) {
				fprintf(stderr, "trace file '%s': %s\n", argv[i] + 6, strerror(errno));
				return 2;
			}
			skel->rodata->trace_samples = 1;
			continue;
		}
#endif
		if (set_param(skel, argv[i])) {
			fprintf(stderr, "bad parameter '%s'\n", argv[i]);
			return 2;
		}
	}
#ifdef PERT_ADAPTIVE
	/* Untraced: the ring buffer stays unused; keep it at one page. */
	if (!trace_out && bpf_map__set_max_entries(skel->maps.samples, 4096)) {
		fprintf(stderr, "size the trace ring buffer\n");
		return 1;
	}
#endif
	err = bpf_map__set_map_flags(skel->maps.OPS_MAP, bpf_map__map_flags(skel->maps.OPS_MAP) | BPF_F_LINK);
	if (err) {
		fprintf(stderr, "set BPF_F_LINK: %s\n", strerror(-err));
		return 1;
	}
	err = SKEL(load)(skel);
	if (err) {
		fprintf(stderr, "load: %s\n", strerror(-err));
		return 1;
	}
	/* With BPF_F_LINK this only fills the map; nothing is registered yet. */
	legacy = bpf_map__attach_struct_ops(skel->maps.OPS_MAP);
	if (!legacy) {
		fprintf(stderr, "initialise struct_ops map: %s\n", strerror(errno));
		return 1;
	}
	bpf_link__disconnect(legacy);
	bpf_link__destroy(legacy);
	link_fd = bpf_link_create(bpf_map__fd(skel->maps.OPS_MAP), 0, ATTACH_STRUCT_OPS, NULL);
	if (link_fd < 0) {
		fprintf(stderr, "register (BPF_LINK_CREATE struct_ops): %s\n", strerror(errno));
		return 1;
	}
	if (dir) {
		snprintf(path, sizeof(path), "%s/bss", dir);
		if (bpf_obj_pin(bpf_map__fd(skel->maps.bss), path)) {
			fprintf(stderr, "pin %s: %s\n", path, strerror(errno));
			return 1;
		}
		snprintf(path, sizeof(path), "%s/rodata", dir);
		if (bpf_obj_pin(bpf_map__fd(skel->maps.rodata), path)) {
			fprintf(stderr, "pin %s: %s\n", path, strerror(errno));
			return 1;
		}
		snprintf(path, sizeof(path), "%s/flows", dir);
		if (bpf_obj_pin(bpf_map__fd(skel->maps.flows), path)) {
			fprintf(stderr, "pin %s: %s\n", path, strerror(errno));
			return 1;
		}
		snprintf(path, sizeof(path), "%s/link", dir);
		if (bpf_obj_pin(link_fd, path)) {
			fprintf(stderr, "pin %s: %s\n", path, strerror(errno));
			return 1;
		}
		printf("pinned %s\n", dir);
		return 0;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("ready bss_map_id=%u flows_map_id=%u\n", map_id(skel->maps.bss), map_id(skel->maps.flows));
	fflush(stdout);
	{
		char buf[64];
		struct ring_buffer *rb = NULL;
		struct pollfd in = { .fd = 0, .events = POLLIN };

#ifdef PERT_ADAPTIVE
		if (trace_out) {
			rb = ring_buffer__new(bpf_map__fd(skel->maps.samples), on_sample, NULL, NULL);
			if (!rb) {
				fprintf(stderr, "trace ring buffer: %s\n", strerror(errno));
				return 1;
			}
		}
#endif
		while (!stop) {
			ssize_t r;

			if (rb) { /* samples every 50 ms, standard input between */
				if (ring_buffer__poll(rb, 50) < 0 && errno != EINTR)
					break;
				if (poll(&in, 1, 0) <= 0)
					continue;
			}
			r = read(0, buf, sizeof(buf));
			if (r == 0 || (r < 0 && errno != EINTR))
				break;
		}
		if (rb) {
			ring_buffer__consume(rb);
			ring_buffer__free(rb);
		}
	}
#ifdef PERT_ADAPTIVE
	if (trace_out && fclose(trace_out)) {
		fprintf(stderr, "trace file: %s\n", strerror(errno));
		return 1;
	}
#endif
	close(link_fd);
	SKEL(destroy)(skel);
	return 0;
}
