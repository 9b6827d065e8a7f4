// SPDX-License-Identifier: GPL-2.0
/*
 * delayline: an emulated wide-area path in user space, for kernels without
 * netem. Used by the pertlab testbed (python/pertlab/linux/testbed.py).
 *
 *   delayline TUN [KEY=VALUE ...]
 *   delayline --check [KEY=VALUE ...]    (check the options, exit 0 or 2)
 *
 *   delay_us=N        constant delay, microseconds (0 to 10^7; default 0)
 *   jitter=D          none (default), uniform, exponential, normal, pareto:
 *                     a random delay added to the constant, per packet
 *   jitter_us=X       uniform: upper bound (U(0, X)); exponential, pareto,
 *                     normal: mean (0 to 10^7)
 *   jitter_sd_us=X    normal: standard deviation (0 to 10^7); the draw is
 *                     truncated at 0 (drawn again while negative)
 *   pareto_shape=A    pareto: shape, > 1 (default 2.5); a Lomax (Pareto II)
 *                     draw, starting at 0, of mean jitter_us
 *   order=keep|free   keep (default): a packet never leaves before the one
 *                     read before it between the same source and destination
 *                     addresses (release = max(due, that one's release); the
 *                     pairs are hashed into 1024 buckets, a collision only
 *                     orders more); free: each packet leaves at its own due
 *                     time (reordering)
 *   loss=P            Bernoulli loss, probability per packet (0 to 1)
 *   ge_p=P ge_r=R     Gilbert-Elliott loss: good -> bad with P, bad -> good
 *   ge_bad=H          with R per packet (0 to 1, R > 0); loss probability in
 *   ge_good=K         the bad state H (default 1) and in the good K (default 0).
 *                     Stationary loss rate (R K + P H) / (P + R).
 *   seed=N            seed of the random draws (default 0)
 *   rtprio=N          run under SCHED_FIFO at priority N (1 to 99; default 0:
 *                     the normal scheduler), so that releases are less late
 *                     on a busy machine
 *
 * Gilbert-Elliott keeps one chain per (source, destination) address pair (the
 * buckets of order=keep), advanced by that pair's packets: each direction of a
 * path has its own bursts. Loss and jitter draw from separate xorshift64*
 * streams: with the same seed, the same sequence of packets loses the same
 * packets whatever the jitter. A bad option is an error naming
 * it and its allowed values (exit 2).
 *
 * Creates (or attaches to) the TUN device TUN (IFF_TUN | IFF_NO_PI). The
 * router routes packets into TUN; every packet read is written back to the
 * same device at its due time (the kernel then sees it arrive on TUN and
 * forwards it by its main routing table). Packets wait in a binary heap
 * ordered by (due time, arrival number); releases are timed with ppoll()'s
 * nanosecond timeouts (timer slack set to 1 us).
 *
 * Prints "ready" once the device exists; on SIGINT / SIGTERM, or when its
 * standard input reaches end of file (the testbed holds the other end of a
 * pipe, so this happens when the testbed closes it or dies, even by SIGKILL),
 * prints one JSON line of statistics and exits; the TUN device goes with it.
 * Bytes read from standard input are ignored. The statistics: packets read,
 * released, lost (and how many of them in the Gilbert-Elliott bad state),
 * packets read in the bad state, drops for want of a free slot, releases
 * behind a later packet of the same address pair; the delay each released
 * packet was given (due - read: the drawn delay, raised to the previous
 * packet's in order=keep) and the delay it got (write - read), each as mean,
 * sd, min, max and quantiles (10 us bins); and the lateness of releases
 * (write - due, the jitter this program adds).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <float.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define SLOTS 32768
#define SLOT_BYTES 2048
#define MAX_US 10000000.0 /* 10 s */
#define BIN_NS 10000ULL   /* histogram bins of 10 us */
#define BINS 1000000      /* up to 10 s */

static unsigned char buf[SLOTS][SLOT_BYTES];
static unsigned char scratch[SLOT_BYTES];
static uint16_t len[SLOTS];
static uint64_t arrived[SLOTS];
static uint16_t pair_of[SLOTS];
/* Order is kept per (source, destination) address pair: hashed into PAIRS buckets. */
#define PAIRS 1024
static uint64_t pair_last_due[PAIRS], pair_last_seq[PAIRS];
static uint8_t pair_seen[PAIRS], pair_bad[PAIRS]; /* pair_bad: its Gilbert-Elliott state */
static unsigned free_slots[SLOTS], nfree;
/* min-heap of (due, seq, slot) */
struct entry {
	uint64_t due, seq;
	unsigned slot;
};
static struct entry heap[SLOTS];
static unsigned nheap;
static volatile sig_atomic_t stop;

static void on_signal(int sig) { (void)sig; stop = 1; }

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ---------------------------------------------------------------- options */

enum jitter { J_NONE, J_UNIFORM, J_EXP, J_NORMAL, J_PARETO };
static const char *const JITTER_NAMES[] = { "none", "uniform", "exponential", "normal", "pareto" };

static struct {
	double delay_us, jitter_us, jitter_sd_us, pareto_shape;
	enum jitter jitter;
	int keep_order;
	double loss, ge_p, ge_r, ge_bad, ge_good;
	int ge;
	uint64_t seed;
	double rtprio;
} opt = { .pareto_shape = 2.5, .keep_order = 1, .ge_bad = 1.0 };

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s TUN [delay_us=N] [jitter=none|uniform|exponential|normal|pareto] [jitter_us=X] [jitter_sd_us=X]\n"
		"       [pareto_shape=A] [order=keep|free] [loss=P] [ge_p=P ge_r=R [ge_bad=H] [ge_good=K]] [seed=N] [rtprio=N]\n",
		prog);
}

static int bad(const char *key, const char *val, const char *allowed)
{
	fprintf(stderr, "delayline: %s=%s: %s\n", key, val, allowed);
	return 0;
}

static int number(const char *key, const char *val, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(val, &end);
	/* An underflow (a subnormal such as 5e-324, or a value that rounds to 0) is
	 * a valid tiny number, not an error: the scenario's model accepts it. */
	if (errno == ERANGE && v < DBL_MIN && v > -DBL_MIN)
		errno = 0;
	if (!*val || *end || errno || !(v >= lo && v <= hi)) {
		char msg[96];

		snprintf(msg, sizeof(msg), "must be a number from %.10g to %.10g", lo, hi);
		return bad(key, val, msg);
	}
	*out = v;
	return 1;
}

static int parse(int argc, char **argv)
{
	int ge_keys = 0;

	for (int i = 2; i < argc; i++) {
		char key[32], *eq = strchr(argv[i], '=');
		const char *val;
		size_t k = eq ? (size_t)(eq - argv[i]) : 0;

		if (!eq || k == 0 || k >= sizeof(key)) {
			fprintf(stderr, "delayline: '%s': options are KEY=VALUE\n", argv[i]);
			return 0;
		}
		memcpy(key, argv[i], k);
		key[k] = 0;
		val = eq + 1;
		if (!strcmp(key, "delay_us")) {
			if (!number(key, val, 0, MAX_US, &opt.delay_us))
				return 0;
		} else if (!strcmp(key, "jitter")) {
			unsigned j;

			for (j = 0; j < sizeof(JITTER_NAMES) / sizeof(*JITTER_NAMES); j++)
				if (!strcmp(val, JITTER_NAMES[j]))
					break;
			if (j == sizeof(JITTER_NAMES) / sizeof(*JITTER_NAMES))
				return bad(key, val, "unknown distribution; allowed: none, uniform, exponential, normal, pareto");
			opt.jitter = (enum jitter)j;
		} else if (!strcmp(key, "jitter_us")) {
			if (!number(key, val, 0, MAX_US, &opt.jitter_us))
				return 0;
		} else if (!strcmp(key, "jitter_sd_us")) {
			if (!number(key, val, 0, MAX_US, &opt.jitter_sd_us))
				return 0;
		} else if (!strcmp(key, "pareto_shape")) {
			if (!number(key, val, 1.0, 100.0, &opt.pareto_shape))
				return 0;
			if (opt.pareto_shape <= 1.0)
				return bad(key, val, "must be above 1 (the mean is infinite otherwise)");
		} else if (!strcmp(key, "order")) {
			if (!strcmp(val, "keep"))
				opt.keep_order = 1;
			else if (!strcmp(val, "free"))
				opt.keep_order = 0;
			else
				return bad(key, val, "allowed: keep, free");
		} else if (!strcmp(key, "loss")) {
			if (!number(key, val, 0, 1, &opt.loss))
				return 0;
		} else if (!strcmp(key, "ge_p") || !strcmp(key, "ge_r") || !strcmp(key, "ge_bad") || !strcmp(key, "ge_good")) {
			double *dst = key[3] == 'p' ? &opt.ge_p : key[3] == 'r' ? &opt.ge_r : key[4] == 'a' ? &opt.ge_bad : &opt.ge_good;

			if (!number(key, val, 0, 1, dst))
				return 0;
			ge_keys |= key[3] == 'p' ? 1 : key[3] == 'r' ? 2 : 4;
		} else if (!strcmp(key, "rtprio")) {
			if (!number(key, val, 0, 99, &opt.rtprio))
				return 0;
			if (opt.rtprio != (int)opt.rtprio)
				return bad(key, val, "must be an integer from 0 to 99");
		} else if (!strcmp(key, "seed")) {
			char *end;

			errno = 0;
			opt.seed = strtoull(val, &end, 10);
			if (!*val || *end || errno || *val == '-')
				return bad(key, val, "must be an integer from 0 to 2^64 - 1");
		} else {
			fprintf(stderr,
				"delayline: unknown option '%s'; allowed: delay_us, jitter, jitter_us, jitter_sd_us, pareto_shape, order, "
				"loss, ge_p, ge_r, ge_bad, ge_good, seed, rtprio\n",
				key);
			return 0;
		}
	}
	if (ge_keys) {
		if ((ge_keys & 3) != 3) {
			fprintf(stderr, "delayline: Gilbert-Elliott loss needs both ge_p and ge_r\n");
			return 0;
		}
		if (opt.ge_r <= 0) {
			fprintf(stderr, "delayline: ge_r=0: must be above 0 (the bad state would never end)\n");
			return 0;
		}
		if (opt.loss > 0) {
			fprintf(stderr, "delayline: give loss (Bernoulli) or ge_p/ge_r (Gilbert-Elliott), not both\n");
			return 0;
		}
		opt.ge = 1;
	}
	return 1;
}

/* ---------------------------------------------------------------- random draws */

struct rng {
	uint64_t s;
};

static uint64_t next(struct rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dULL;
}

/* Uniform in (0, 1). */
static double unit(struct rng *r) { return ((double)(next(r) >> 11) + 0.5) / 9007199254740992.0; }

static double normal(struct rng *r)
{
	return sqrt(-2.0 * log(unit(r))) * cos(2.0 * M_PI * unit(r));
}

/* Jitter in microseconds. */
static double draw_jitter(struct rng *r)
{
	double x;

	switch (opt.jitter) {
	case J_UNIFORM:
		return opt.jitter_us * unit(r);
	case J_EXP:
		return -opt.jitter_us * log(unit(r));
	case J_NORMAL:
		for (int i = 0; i < 100; i++) {
			x = opt.jitter_us + opt.jitter_sd_us * normal(r);
			if (x >= 0)
				return x;
		}
		return 0;
	case J_PARETO:
		/* Lomax: scale * (U^(-1/shape) - 1), mean scale / (shape - 1). */
		x = opt.jitter_us * (opt.pareto_shape - 1.0) * (pow(unit(r), -1.0 / opt.pareto_shape) - 1.0);
		return x < MAX_US ? x : MAX_US;
	default:
		return 0;
	}
}

/* ---------------------------------------------------------------- statistics */

struct hist {
	uint32_t bin[BINS + 1]; /* the last: 10 s and more */
	uint64_t n;
	double sum, sumsq, min, max; /* us */
};
static struct hist given, got;

static void hist_add(struct hist *h, uint64_t ns)
{
	double us = ns / 1000.0;
	uint64_t b = ns / BIN_NS;

	h->bin[b < BINS ? b : BINS]++;
	if (!h->n || us < h->min)
		h->min = us;
	if (us > h->max)
		h->max = us;
	h->n++;
	h->sum += us;
	h->sumsq += us * us;
}

/* The q-quantile in us: the middle of the bin that holds it. */
static double hist_q(const struct hist *h, double q)
{
	uint64_t want = (uint64_t)ceil(q * h->n), seen = 0;

	if (!h->n)
		return 0;
	if (want < 1)
		want = 1;
	for (unsigned b = 0; b <= BINS; b++) {
		seen += h->bin[b];
		if (seen >= want)
			return (b + 0.5) * BIN_NS / 1000.0;
	}
	return h->max;
}

static void hist_json(const char *name, const struct hist *h)
{
	double mean = h->n ? h->sum / h->n : 0, var = h->n ? h->sumsq / h->n - mean * mean : 0;

	printf("\"%s\": {\"n\": %llu, \"mean_us\": %.3f, \"sd_us\": %.3f, \"min_us\": %.3f, \"max_us\": %.3f, "
	       "\"p10_us\": %.1f, \"p25_us\": %.1f, \"p50_us\": %.1f, \"p75_us\": %.1f, \"p90_us\": %.1f, \"p99_us\": %.1f}",
	       name, (unsigned long long)h->n, mean, var > 0 ? sqrt(var) : 0.0, h->min, h->max, hist_q(h, 0.10), hist_q(h, 0.25),
	       hist_q(h, 0.5), hist_q(h, 0.75), hist_q(h, 0.9), hist_q(h, 0.99));
}

/* ---------------------------------------------------------------- the heap */

static int before(const struct entry *a, const struct entry *b)
{
	return a->due < b->due || (a->due == b->due && a->seq < b->seq);
}

static void heap_push(struct entry e)
{
	unsigned i = nheap++;

	while (i > 0) {
		unsigned p = (i - 1) / 2;

		if (!before(&e, &heap[p]))
			break;
		heap[i] = heap[p];
		i = p;
	}
	heap[i] = e;
}

static struct entry heap_pop(void)
{
	struct entry top = heap[0], last = heap[--nheap];
	unsigned i = 0;

	for (;;) {
		unsigned c = 2 * i + 1;

		if (c >= nheap)
			break;
		if (c + 1 < nheap && before(&heap[c + 1], &heap[c]))
			c++;
		if (!before(&heap[c], &last))
			break;
		heap[i] = heap[c];
		i = c;
	}
	if (nheap)
		heap[i] = last;
	return top;
}

static uint64_t released, late_sum, late_max, late_over_100us, reordered;

/* The bucket of a packet's (source, destination) addresses (IPv4 or IPv6; 0 for anything else). */
static unsigned pair(const unsigned char *p, size_t n)
{
	size_t from, to;
	uint32_t h = 2166136261u;

	if (n >= 20 && p[0] >> 4 == 4)
		from = 12, to = 20;
	else if (n >= 40 && p[0] >> 4 == 6)
		from = 8, to = 40;
	else
		return 0;
	for (size_t i = from; i < to; i++)
		h = (h ^ p[i]) * 16777619u;
	return h % PAIRS;
}

/* Write every packet that is due. */
static void release(int fd)
{
	uint64_t t = now_ns();

	while (nheap && heap[0].due <= t) {
		struct entry e = heap_pop();
		unsigned i = e.slot;
		uint64_t late = t - e.due;

		if (write(fd, buf[i], len[i]) < 0 && errno != EAGAIN && errno != ENOBUFS)
			perror("write");
		late_sum += late;
		if (late > late_max)
			late_max = late;
		if (late > 100000)
			late_over_100us++;
		if (pair_seen[pair_of[i]] && e.seq < pair_last_seq[pair_of[i]])
			reordered++;
		else
			pair_last_seq[pair_of[i]] = e.seq;
		pair_seen[pair_of[i]] = 1;
		hist_add(&given, e.due - arrived[i]);
		hist_add(&got, t - arrived[i]);
		released++;
		free_slots[nfree++] = i;
		t = now_ns();
	}
}

int main(int argc, char **argv)
{
	struct ifreq ifr;
	struct rng loss_rng, jitter_rng;
	uint64_t packets = 0, lost = 0, lost_bad = 0, in_bad = 0, full = 0, seq = 0;
	int fd;

	int check = argc >= 2 && !strcmp(argv[1], "--check");

	if (argc < 2 || (argv[1][0] == '-' && !check) || strchr(argv[1], '=')) {
		usage(argv[0]);
		return 2;
	}
	if (!parse(argc, argv)) {
		usage(argv[0]);
		return 2;
	}
	if (check)
		return 0;
	loss_rng.s = 0x9e3779b97f4a7c15ULL ^ (opt.seed * 0xd1b54a32d192ed03ULL);
	jitter_rng.s = 0x6a09e667f3bcc909ULL ^ (opt.seed * 0x9e3779b97f4a7c15ULL);
	if (!loss_rng.s)
		loss_rng.s = 1;
	if (!jitter_rng.s)
		jitter_rng.s = 1;
	for (unsigned i = 0; i < SLOTS; i++)
		free_slots[i] = SLOTS - 1 - i;
	nfree = SLOTS;
	prctl(PR_SET_TIMERSLACK, 1000UL);
	if (opt.rtprio > 0) {
		struct sched_param sp = { .sched_priority = (int)opt.rtprio };

		if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0) {
			perror("sched_setscheduler SCHED_FIFO");
			return 1;
		}
	}
	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK);
	if (fd < 0) {
		perror("open /dev/net/tun");
		return 1;
	}
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
	strncpy(ifr.ifr_name, argv[1], IFNAMSIZ - 1);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		perror("TUNSETIFF");
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("ready\n");
	fflush(stdout);

	while (!stop) {
		struct pollfd pfd[2] = { { .fd = fd, .events = POLLIN }, { .fd = STDIN_FILENO, .events = POLLIN } };
		struct timespec to, *top = NULL;
		uint64_t t = now_ns();
		int r;

		if (nheap) {
			uint64_t d = heap[0].due > t ? heap[0].due - t : 0;

			to.tv_sec = (time_t)(d / 1000000000ULL);
			to.tv_nsec = (long)(d % 1000000000ULL);
			top = &to;
		}
		r = ppoll(pfd, 2, top, NULL);
		if (r < 0 && errno != EINTR) {
			perror("ppoll");
			return 1;
		}
		if (r > 0 && pfd[1].revents) {
			/* End of file (or a closed / invalid descriptor): the parent is gone. */
			ssize_t n = read(STDIN_FILENO, scratch, SLOT_BYTES);

			if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
				stop = 1;
		}
		if (r > 0 && (pfd[0].revents & POLLIN)) {
			for (;;) {
				unsigned i;
				ssize_t n;
				uint64_t now, due;
				unsigned b;

				if (!nfree) {
					/* All slots hold packets: read and drop. */
					n = read(fd, scratch, SLOT_BYTES);
					if (n <= 0)
						break;
					full++;
					packets++;
					continue;
				}
				i = free_slots[nfree - 1];
				n = read(fd, buf[i], SLOT_BYTES);
				if (n <= 0)
					break;
				packets++;
				b = pair(buf[i], (size_t)n);
				if (opt.ge) {
					/* The state this packet sees (its address pair's chain), then the loss draw in it. */
					uint8_t *bad_state = &pair_bad[b];

					if (*bad_state ? unit(&loss_rng) < opt.ge_r : unit(&loss_rng) < opt.ge_p)
						*bad_state = !*bad_state;
					in_bad += *bad_state;
					if (unit(&loss_rng) < (*bad_state ? opt.ge_bad : opt.ge_good)) {
						lost++;
						lost_bad += *bad_state;
						continue;
					}
				} else if (opt.loss > 0 && unit(&loss_rng) < opt.loss) {
					lost++;
					continue;
				}
				nfree--;
				now = now_ns();
				due = now + (uint64_t)llround((opt.delay_us + draw_jitter(&jitter_rng)) * 1000.0);
				if (opt.keep_order && due < pair_last_due[b])
					due = pair_last_due[b];
				pair_last_due[b] = due;
				pair_of[i] = (uint16_t)b;
				len[i] = (uint16_t)n;
				arrived[i] = now;
				heap_push((struct entry){ .due = due, .seq = seq++, .slot = i });
				/* Long batches must not hold back packets already due. */
				if ((packets & 15) == 0)
					release(fd);
			}
		}
		release(fd);
	}
	printf("{\"packets\": %llu, \"released\": %llu, \"lost\": %llu, \"lost_in_bad_state\": %llu, \"packets_in_bad_state\": %llu, "
	       "\"ring_full_drops\": %llu, \"reordered\": %llu, \"late_mean_us\": %.3f, \"late_max_us\": %.3f, \"late_over_100us\": %llu, ",
	       (unsigned long long)packets, (unsigned long long)released, (unsigned long long)lost, (unsigned long long)lost_bad,
	       (unsigned long long)in_bad, (unsigned long long)full, (unsigned long long)reordered,
	       released ? late_sum / 1000.0 / released : 0.0, late_max / 1000.0, (unsigned long long)late_over_100us);
	hist_json("delay_given", &given);
	printf(", ");
	hist_json("delay_got", &got);
	printf("}\n");
	fflush(stdout);
	close(fd);
	return 0;
}
