// SPDX-License-Identifier: GPL-2.0
/*
 * delayline: a constant propagation delay (and optional random loss) in user
 * space, for kernels without netem. Used by the pertlab testbed
 * (python/pertlab/linux/testbed.py).
 *
 *   delayline TUN DELAY_US [LOSS_PPM [SEED]]
 *
 * Creates (or attaches to) the TUN device TUN (IFF_TUN | IFF_NO_PI). The
 * router routes packets into TUN; every packet read is written back to the
 * same device DELAY_US microseconds later (the kernel then sees it arrive on
 * TUN and forwards it by its main routing table). The delay is constant, so
 * packets leave in arrival order: one FIFO ring, released with ppoll()'s
 * nanosecond timeouts (timer slack set to 1 us). LOSS_PPM: each packet is
 * dropped with this probability in millionths (xorshift64*, SEED).
 *
 * Prints "ready" once the device exists; on SIGINT / SIGTERM, or when its
 * standard input reaches end of file (the testbed holds the other end of a
 * pipe, so this happens when the testbed closes it or dies, even by SIGKILL),
 * prints one JSON line of statistics (packets, drops, and the lateness of
 * releases: how much later than due a packet was written, the jitter this
 * delay line adds) and exits; the TUN device goes with it. Bytes read from
 * standard input are ignored.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
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

static unsigned char buf[SLOTS][SLOT_BYTES];
static unsigned char scratch[SLOT_BYTES];
static uint16_t len[SLOTS];
static uint64_t due[SLOTS];
static volatile sig_atomic_t stop;

static void on_signal(int sig) { (void)sig; stop = 1; }

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}


static uint64_t released, late_sum, late_max, late_over_100us;
static unsigned head, tail; /* ring: [head, tail) */

/* Write every packet that is due. */
static void release(int fd)
{
	uint64_t t = now_ns();

	while (head != tail && due[head % SLOTS] <= t) {
		unsigned i = head % SLOTS;
		uint64_t late = t - due[i];

		if (write(fd, buf[i], len[i]) < 0 && errno != EAGAIN && errno != ENOBUFS)
			perror("write");
		late_sum += late;
		if (late > late_max)
			late_max = late;
		if (late > 100000)
			late_over_100us++;
		released++;
		head++;
	}
}

int main(int argc, char **argv)
{
	struct ifreq ifr;
	uint64_t delay_ns, loss_ppm = 0, rng = 0x9e3779b97f4a7c15ULL;
	uint64_t packets = 0, lost = 0, full = 0;
	int fd;

	if (argc < 3) {
		fprintf(stderr, "usage: %s TUN DELAY_US [LOSS_PPM [SEED]]\n", argv[0]);
		return 2;
	}
	delay_ns = strtoull(argv[2], NULL, 10) * 1000ULL;
	if (argc > 3)
		loss_ppm = strtoull(argv[3], NULL, 10);
	if (argc > 4)
		rng ^= strtoull(argv[4], NULL, 10) * 0xd1b54a32d192ed03ULL;
	if (!rng)
		rng = 1;
	prctl(PR_SET_TIMERSLACK, 1000UL);
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

		if (head != tail) {
			uint64_t d = due[head % SLOTS] > t ? due[head % SLOTS] - t : 0;

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
				unsigned i = tail % SLOTS;
				ssize_t n;

				if (tail - head >= SLOTS) {
					/* Ring full: read and drop. */
					n = read(fd, scratch, SLOT_BYTES);
					if (n <= 0)
						break;
					full++;
					packets++;
					continue;
				}
				n = read(fd, buf[i], SLOT_BYTES);
				if (n <= 0)
					break;
				packets++;
				if (loss_ppm) {
					rng ^= rng >> 12;
					rng ^= rng << 25;
					rng ^= rng >> 27;
					if ((rng * 0x2545f4914f6cdd1dULL) % 1000000ULL < loss_ppm) {
						lost++;
						continue;
					}
				}
				len[i] = (uint16_t)n;
				due[i] = now_ns() + delay_ns;
				tail++;
				/* Long batches must not hold back packets already due. */
				if ((packets & 15) == 0)
					release(fd);
			}
		}
		release(fd);
	}
	printf("{\"packets\": %llu, \"released\": %llu, \"lost\": %llu, \"ring_full_drops\": %llu, "
	       "\"late_mean_us\": %.3f, \"late_max_us\": %.3f, \"late_over_100us\": %llu}\n",
	       (unsigned long long)packets, (unsigned long long)released, (unsigned long long)lost,
	       (unsigned long long)full, released ? late_sum / 1000.0 / released : 0.0, late_max / 1000.0,
	       (unsigned long long)late_over_100us);
	fflush(stdout);
	close(fd);
	return 0;
}
