// SPDX-License-Identifier: GPL-2.0
/*
 * Self test of the soft facility on this machine (Documentation/facilities.md, soft facility):
 * a child loads at random from an array larger than the caches; cpu-clock
 * samples with user registers are decoded, and the decoded addresses must
 * fall in the array. Also reports how many samples got an address directly
 * and how many only through previous-instruction recovery (skid bias).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "arch/x86-soft/soft.h"
#include "core/facility.h"
#include "core/perf-util.h"
#include "core/ring.h"
#include "core/tests.h"
#include "arch/x86-soft/x86-decode.h"

#define ST_ARRAY_BYTES	(32u << 20)	/* beyond the LLC: loads are slow */
#define ST_WANT		400		/* samples */
#define ST_PERIOD	200000		/* ns: 5 kHz */

/* Random loads only from @arr; nothing else in the loop touches memory. */
static __attribute__((noinline, noreturn)) void st_loop(const u64 *arr, u64 mask)
{
	u64 x = 88172645463325252ULL, sum = 0;

	for (;;) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		sum += arr[x & mask];
		__asm__ volatile("" : "+r"(sum), "+r"(x));
	}
}

static long st_read_mem(void *arg, u32 pid, u64 addr, void *buf, size_t len)
{
	struct iovec l = { buf, len }, r = { (void *)addr, len };
	ssize_t n;

	(void)arg;
	n = process_vm_readv(pid, &l, 1, &r, 1, 0);
	return n < 0 ? -errno : n;
}

struct st_count {
	int samples, direct, direct_in, prev, prev_in, noaddr[LP_NOADDR__MAX];
};

static void st_sample(struct lp_decode_ctx *dc, const struct lp_perf_sample *raw,
		      u64 lo, u64 hi, struct st_count *c)
{
	struct lp_sample s;

	c->samples++;
	lp_facility_soft.decode(dc, raw, &s);
	if (s.noaddr == LP_NOADDR_NONE) {
		c->direct++;
		c->direct_in += s.addr >= lo && s.addr < hi;
		return;
	}
	if (soft__decode_prev(dc, raw, &s) == 0) {
		c->prev++;
		c->prev_in += s.addr >= lo && s.addr < hi;
		return;
	}
	c->noaddr[s.noaddr]++;
}

LP_SELFTEST(test_soft_addresses_land_in_array, "soft: decoded cpu-clock samples of a load loop point into its array")
{
	struct lp_sampling_opts opts = { .period = ST_PERIOD };
	struct perf_event_attr attr[LP_MAX_FACILITY_ATTRS];
	struct lp_decode_ctx dc = { 0 };
	struct st_count c = { 0 };
	struct lp_ring ring = { 0 };
	int pfd[2], n, fd = -1, ret = TEST_FAIL, i, tries;
	u64 lo = 0;
	pid_t child;

	if (pipe(pfd))
		TEST_SKIP("pipe: %s", strerror(errno));
	child = fork();
	if (child < 0)
		TEST_SKIP("fork: %s", strerror(errno));
	if (!child) {
		u64 *arr, k;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		arr = mmap(NULL, ST_ARRAY_BYTES, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (arr == MAP_FAILED)
			_exit(1);
		for (k = 0; k < ST_ARRAY_BYTES / 8; k++)
			arr[k] = k;
		k = (u64)arr;
		if (write(pfd[1], &k, sizeof(k)) != sizeof(k))
			_exit(1);
		st_loop(arr, ST_ARRAY_BYTES / 8 - 1);
	}
	close(pfd[1]);
	if (read(pfd[0], &lo, sizeof(lo)) != sizeof(lo)) {
		snprintf(ctx->reason, sizeof(ctx->reason), "child did not start");
		goto out;
	}
	lp_facility_soft.setup(&opts, attr, &n);
	fd = perf__open(&attr[0], child, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		char why[200];

		perf__strerror(fd, &attr[0], "soft", why, sizeof(why));
		snprintf(ctx->reason, sizeof(ctx->reason), "%s", why);
		ret = TEST_SKIP;
		goto out;
	}
	if (ring__mmap(&ring, fd, 64)) {
		snprintf(ctx->reason, sizeof(ctx->reason), "ring mmap failed");
		goto out;
	}
	dc.pid = child;
	dc.tid = child;
	dc.read_mem = st_read_mem;
	for (tries = 0; tries < 100 && c.samples < ST_WANT; tries++) {
		struct pollfd p = { fd, POLLIN, 0 };
		const struct perf_event_header *ev;

		poll(&p, 1, 50);
		if (ring__read_init(&ring))
			continue;
		while ((i = ring__read_event(&ring, &ev)) > 0) {
			struct lp_perf_sample raw;

			if (ev->type != PERF_RECORD_SAMPLE ||
			    perf_sample__parse(ev, ev->size, attr[0].sample_type,
					       attr[0].sample_regs_user, &raw))
				continue;
			raw.misc = ev->misc;
			st_sample(&dc, &raw, lo, lo + ST_ARRAY_BYTES, &c);
		}
		if (i < 0)
			ring__discard(&ring);
		ring__read_done(&ring);
	}
	TEST_LOG("samples %d: address at IP %d (%d in array), via previous "
		 "insn %d (%d in array), none %d (not-memory %d, no-regs %d, "
		 "unreadable %d, decode-failed %d, unsupported %d)",
		 c.samples, c.direct, c.direct_in, c.prev, c.prev_in,
		 c.samples - c.direct - c.prev, c.noaddr[LP_NOADDR_NOT_MEMORY],
		 c.noaddr[LP_NOADDR_NO_REGS], c.noaddr[LP_NOADDR_CODE_UNREADABLE],
		 c.noaddr[LP_NOADDR_DECODE_FAILED], c.noaddr[LP_NOADDR_UNSUPPORTED]);
	if (c.samples < 50) {
		snprintf(ctx->reason, sizeof(ctx->reason),
			 "only %d samples in 5 s", c.samples);
		goto out;
	}
	if (c.direct + c.prev < c.samples / 10) {
		snprintf(ctx->reason, sizeof(ctx->reason),
			 "only %d of %d samples got an address", c.direct + c.prev,
			 c.samples);
		goto out;
	}
	if ((c.direct_in + c.prev_in) * 10 < (c.direct + c.prev) * 8) {
		snprintf(ctx->reason, sizeof(ctx->reason),
			 "%d of %d decoded addresses in the array (< 80%%)",
			 c.direct_in + c.prev_in, c.direct + c.prev);
		goto out;
	}
	ret = TEST_OK;
out:
	if (ring.meta)
		ring__munmap(&ring);
	if (fd >= 0)
		close(fd);
	lp_facility_soft.flush(&dc);
	close(pfd[0]);
	kill(child, SIGKILL);
	while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
		;
	return ret;
}

LP_SELFTEST(test_soft_probe, "soft: the probe says usable exactly when setup's event opens on a child")
{
	struct perf_event_attr attr[LP_MAX_FACILITY_ATTRS];
	struct lp_sampling_opts opts = { 0 };
	struct lp_probe res;
	int n = 0, fd;
	pid_t child;

	memset(&res, 0, sizeof(res));
	TEST_ASSERT(lp_facility_soft.probe(&res) == 0, "probe returned an error");
	TEST_ASSERT(res.reason[0], "the probe gave no reason");
	TEST_ASSERT(lp_facility_soft.setup(&opts, attr, &n) == 0 && n >= 1, "setup: %d attrs", n);
	/* what the session does with it: open it on another, traced-to-be process */
	child = fork();
	TEST_ASSERT(child >= 0, "fork");
	if (!child) {
		for (;;)
			pause();
	}
	fd = perf__open(&attr[0], child, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0)
		close(fd);
	kill(child, SIGKILL);
	while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
		;
	TEST_LOG("probe: usable %d (%s); setup's event on a child: %s", res.usable, res.reason,
		 fd >= 0 ? "opens" : perf__errno_name(fd));
	TEST_ASSERT(res.usable == (fd >= 0), "probe says %s, setup's event on a child %s",
		    res.usable ? "usable" : "unusable", fd >= 0 ? "opens" : perf__errno_name(fd));
	return TEST_OK;
}
