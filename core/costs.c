// SPDX-License-Identifier: GPL-2.0
/*
 * lociprof list --costs: the per-event costs of the tracing engine on this
 * machine (costs.h). Each measurement times the same work with and without
 * the events, alternating, and keeps the median of the per-event extras.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "core/costs.h"
#include "core/facility.h"
#include "core/perf-util.h"
#include "core/ring.h"

#ifndef TRAP_PERF
#define TRAP_PERF 6	/* asm-generic/siginfo.h; glibc 2.36 lacks it */
#endif

#define COST_RUN_NS	30000000.0	/* CPU time of one timed run of work */
#define COST_TRAPS	1000		/* watchpoint hits per run */
#define COST_ARMS	150		/* remote arms per run */
#define COST_ARM_BLOCK	15		/* arms (or not) in a row */
#define COST_ARM_GAP_NS	200000		/* between two arms: the target runs */
#define COST_RING_PAGES	128
#define COST_WORDS	4096		/* one unit of work: a 32 KiB pass */

static volatile u64 cost_buf[COST_WORDS];	/* volatile: every load is made */
static volatile u64 cost_sink;
static volatile u64 cost_watched[2] __attribute__((aligned(64)));

double costs__median(double *v, int n)
{
	int i, j;

	if (n <= 0)
		return NAN;
	for (i = 1; i < n; i++)		/* a handful of values */
		for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double costs__floor(double period_ns, double overhead_ns)
{
	if (!(period_ns > 0) || !(overhead_ns >= 0))
		return NAN;
	if (overhead_ns >= period_ns)
		return INFINITY;
	return period_ns / (period_ns - overhead_ns);
}

double costs__reuse_floor(const struct lp_costs *c, int sync, char *missing, size_t len)
{
	const struct lp_cost *part[3] = { &c->sample, sync ? &c->hold : &c->arm, &c->trap };
	const char *name[3] = { "sample", sync ? "hold" : "arm", "trap" };
	double ns = 0;
	size_t at = 0;
	int i;

	if (missing && len)
		missing[0] = 0;
	for (i = 0; i < 3; i++) {
		if (part[i]->us >= 0)
			ns += part[i]->us * 1000;
		else if (missing && at < len)
			at += snprintf(missing + at, len - at, "%s%s", at ? ", " : "", name[i]);
	}
	return ns;
}

static double clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* @units passes over cost_buf; one access to the watched word every @every. */
static void cost_work(long units, long every)
{
	u64 s = 0;
	long u;
	int i;

	for (u = 0; u < units; u++) {	/* loads of an L1-resident array */
		for (i = 0; i < COST_WORDS; i++)
			s += cost_buf[i] ^ (u64)i;
		if (every && u % every == 0)
			cost_watched[0]++;
	}
	cost_sink = s;
}

/* Units of work that take about COST_RUN_NS of CPU time. */
static long cost_units(void)
{
	double t;
	long n = 16;

	for (;;) {
		t = cpu_ns();
		cost_work(n, 0);
		t = cpu_ns() - t;
		if (t > 2e6 || n > (1L << 20))
			break;
		n *= 4;
	}
	n = (long)(n * COST_RUN_NS / (t > 0 ? t : 1));
	return n > 0 ? n : 1;
}

static void cost_fail(struct lp_cost *c, int err, const struct perf_event_attr *a,
		      const char *what)
{
	if (a)
		perf__strerror(err, a, what, c->reason, sizeof(c->reason));
	else
		snprintf(c->reason, sizeof(c->reason), "%s: %s", what, strerror(-err));
}

static void cost_done(struct lp_cost *c, double *v, double *ev, int n)
{
	c->reps = n;
	if (!n) {
		c->us = -1;
		return;
	}
	c->us = costs__median(v, n) / 1e3;
	c->events = costs__median(ev, n);
	c->reason[0] = 0;
	if (c->us < 0) {	/* the work ran faster with the events */
		snprintf(c->reason, sizeof(c->reason), "below the noise of this machine "
			 "(median %.1f us); rerun on a quieter machine", c->us);
		c->us = -1;
	}
}

/* Records of @type in a ring (LOST records count their losses). */
static double ring_count(struct lp_ring *r, u32 type)
{
	const struct perf_event_header *h;
	double n = 0;

	if (ring__read_init(r))
		return 0;
	while (ring__read_event(r, &h) > 0) {
		if (h->type == type)
			n++;
		else if (h->type == PERF_RECORD_LOST && h->size >= 24)
			n += (double)((const u64 *)(h + 1))[1];
	}
	ring__read_done(r);
	return n;
}

static int soft_attr(struct perf_event_attr *a, int sigtrap, u64 *period)
{
	struct perf_event_attr attrs[LP_MAX_FACILITY_ATTRS];
	const struct lp_facility_ops *soft = lp_facility__find("soft");
	struct lp_sampling_opts o = { .sigtrap = sigtrap };
	int n = 0, err = soft ? soft->setup(&o, attrs, &n) : -ENOENT;

	if (err || n < 1)
		return err ? err : -EINVAL;
	*a = attrs[0];
	/* as the session opens it: leader of the watchpoints, read into samples */
	a->sample_type |= PERF_SAMPLE_READ | PERF_SAMPLE_IDENTIFIER;
	a->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	a->disabled = 0;
	*period = a->sample_period;
	return 0;
}

/*
 * One repetition: @units of work untimed by @a, then with @a open on this
 * thread (its ring mapped); the event is left disabled, open and mapped
 * for the caller to count. 0, or -1 with @c's reason set.
 */
static int cost_pair(struct lp_cost *c, struct perf_event_attr *a, const char *what,
		     long units, long every, double *base, double *t, int *fd,
		     struct lp_ring *ring)
{
	int err;

	*base = cpu_ns();
	cost_work(units, every);
	*base = cpu_ns() - *base;
	*fd = perf__open(a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (*fd < 0) {
		cost_fail(c, *fd, a, what);
		return -1;
	}
	if ((err = ring__mmap(ring, *fd, COST_RING_PAGES))) {
		close(*fd);
		cost_fail(c, err, NULL, "mmap of the event's ring");
		return -1;
	}
	*t = cpu_ns();
	cost_work(units, every);
	*t = cpu_ns() - *t;
	ioctl(*fd, PERF_EVENT_IOC_DISABLE, 0);
	return 0;
}

static void measure_sample(struct lp_cost *c, int reps, long units, u64 *period)
{
	double v[100], ev[100], base, t, n;
	struct perf_event_attr a;
	struct lp_ring ring;
	int r, k = 0, fd, err;

	if ((err = soft_attr(&a, 0, period)))
		return cost_fail(c, err, NULL, "soft facility setup");
	for (r = 0; r < reps; r++) {
		if (cost_pair(c, &a, "soft (cpu-clock + user regs)", units, 0, &base, &t,
			      &fd, &ring))
			return;
		n = ring_count(&ring, PERF_RECORD_SAMPLE);
		ring__munmap(&ring);
		close(fd);
		if (n >= 10) {
			v[k] = (t - base) / n;
			ev[k++] = n;
		}
	}
	if (!k)
		snprintf(c->reason, sizeof(c->reason), "fewer than 10 samples per run");
	cost_done(c, v, ev, k);
}

static void bp_attr(struct perf_event_attr *a, int type, const volatile void *addr)
{
	/* as the session's traps */
	perf__bp_attr(a, type, (u64)(unsigned long)addr, HW_BREAKPOINT_LEN_8);
	a->sample_period = 1;
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_ADDR;
	a->wakeup_events = 1;
}

static void measure_trap(struct lp_cost *c, int reps, long units)
{
	double v[100], ev[100], base, t;
	long every = units / COST_TRAPS > 0 ? units / COST_TRAPS : 1;
	struct perf_event_attr a;
	struct lp_ring ring;
	u64 hits;
	int r, k = 0, fd;

	bp_attr(&a, HW_BREAKPOINT_R | HW_BREAKPOINT_W, &cost_watched[0]);
	for (r = 0; r < reps; r++) {
		if (cost_pair(c, &a, "watchpoint", units, every, &base, &t, &fd, &ring))
			return;
		if (read(fd, &hits, sizeof(hits)) != sizeof(hits))
			hits = 0;
		ring__munmap(&ring);
		close(fd);
		if (hits >= 10) {
			v[k] = (t - base) / (double)hits;
			ev[k++] = (double)hits;
		}
	}
	if (!k)
		snprintf(c->reason, sizeof(c->reason), "the watchpoint did not trap");
	cost_done(c, v, ev, k);
}

/* ---- arming a running thread's watchpoint ------------------------------ */

struct spinner {
	pthread_t th;
	volatile int stop;
	volatile pid_t tid;
	volatile u64 units;
	clockid_t clk;
};

static void *spin(void *arg)
{
	struct spinner *s = arg;

	s->tid = (pid_t)syscall(SYS_gettid);
	while (!s->stop) {
		cost_work(1, 0);
		__atomic_fetch_add(&s->units, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void sleep_ns(long ns)
{
	struct timespec ts = { ns / 1000000000L, ns % 1000000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void measure_arm(struct lp_cost *c, int reps)
{
	double v[100], ev[100], wv[100], c0, c1, w, rate0, t;
	struct perf_event_attr lead, a;
	struct spinner s = { 0 };
	u64 u0, u1;
	int r, i, b, k = 0, lfd = -1, fd = -1;

	if (pthread_create(&s.th, NULL, spin, &s)) {
		snprintf(c->reason, sizeof(c->reason), "cannot start a thread");
		return;
	}
	while (!s.tid)
		sleep_ns(100000);
	if (pthread_getcpuclockid(s.th, &s.clk)) {
		snprintf(c->reason, sizeof(c->reason), "no CPU clock of the thread");
		goto out;
	}
	memset(&lead, 0, sizeof(lead));	/* the session's group leader, never overflowing */
	lead.size = sizeof(lead);
	lead.type = PERF_TYPE_SOFTWARE;
	lead.config = PERF_COUNT_SW_CPU_CLOCK;
	lead.sample_period = 1000000000ULL;
	lead.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	lead.exclude_kernel = 1;
	lfd = perf__open(&lead, s.tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (lfd < 0) {
		cost_fail(c, lfd, &lead, "cpu-clock");
		goto out;
	}
	bp_attr(&a, HW_BREAKPOINT_W, &cost_watched[1]);	/* never written */
	a.sample_type |= PERF_SAMPLE_READ;
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	fd = perf__open(&a, s.tid, -1, lfd, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		cost_fail(c, fd, &a, "watchpoint");
		goto out;
	}
	for (r = 0; r < reps; r++) {
		/*
		 * Blocks without and with arms, alternating, each the same
		 * COST_ARM_BLOCK wake-ups of this thread: what differs is the
		 * arms alone, and drifts of the host (a VM's steal time runs
		 * the thread's CPU clock) fall on both alike.
		 */
		double cpu[2] = { 0, 0 }, units[2] = { 0, 0 };

		w = 0;
		for (b = 0; b < 2 * COST_ARMS / COST_ARM_BLOCK; b++) {
			int arming = b & 1;

			u0 = s.units;
			c0 = clock_ns(s.clk);
			for (i = 0; i < COST_ARM_BLOCK; i++) {
				if (arming) {
					a.bp_addr = (u64)(unsigned long)&cost_watched[i & 1];
					t = clock_ns(CLOCK_MONOTONIC);
					if (ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a) < 0) {
						cost_fail(c, -errno, NULL,
							  "PERF_EVENT_IOC_MODIFY_ATTRIBUTES");
						goto out;
					}
					ioctl(lfd, PERF_EVENT_IOC_DISABLE, 0);
					ioctl(lfd, PERF_EVENT_IOC_ENABLE, 0);
					w += clock_ns(CLOCK_MONOTONIC) - t;
				}
				sleep_ns(COST_ARM_GAP_NS);
			}
			u1 = s.units;
			c1 = clock_ns(s.clk);
			units[arming] += (double)(u1 - u0);
			cpu[arming] += c1 - c0;
		}
		if (!units[0] || !cpu[0] || !units[1])
			continue;
		rate0 = units[0] / cpu[0];
		v[k] = (cpu[1] - units[1] / rate0) / COST_ARMS;
		wv[k] = w / COST_ARMS;
		ev[k++] = COST_ARMS;
	}
	if (!k)
		snprintf(c->reason, sizeof(c->reason), "the thread did not run");
	cost_done(c, v, ev, k);
	if (k)
		c->wall_us = costs__median(wv, k) / 1e3;
out:
	s.stop = 1;
	pthread_join(s.th, NULL);
	if (fd >= 0)
		close(fd);
	if (lfd >= 0)
		close(lfd);
}

/* ---- the synchronous path's stop --------------------------------------- */

static int read_full(int fd, void *buf, size_t len)
{
	char *p = buf;
	ssize_t n;

	while (len) {
		n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * One forked child times @units of work twice: untraced, then held at
 * every sample of a sigtrap cpu-clock event under ptrace. *@extra: its
 * extra CPU ns per hold, *@holds: the holds. 0 or -errno.
 */
static int hold_once(const struct perf_event_attr *attr, long units, double *extra,
		     double *holds, char *why, size_t whylen)
{
	int go[2], res[2], status, fd = -1, err = 0;
	struct perf_event_attr a = *attr;
	double t[2] = { 0, 0 }, n = 0;
	struct lp_ring ring = { 0 };
	pid_t child;
	char b = 1;

	if (pipe(go))
		return -errno;
	if (pipe(res)) {
		err = -errno;
		close(go[0]);
		close(go[1]);
		return err;
	}
	child = fork();
	if (child < 0) {
		err = -errno;
		goto out_pipes;
	}
	if (!child) {
		double x[2];
		int i;

		close(go[1]);
		close(res[0]);
		for (i = 0; i < 2; i++) {
			if (read_full(go[0], &b, 1))
				_exit(1);
			x[i] = cpu_ns();
			cost_work(units, 0);
			x[i] = cpu_ns() - x[i];
			if (write(res[1], &x[i], sizeof(x[i])) != sizeof(x[i]))
				_exit(1);
		}
		_exit(0);
	}
	close(go[0]);
	close(res[1]);
	go[0] = res[1] = -1;
	if (ptrace(PTRACE_SEIZE, child, 0, (long)PTRACE_O_EXITKILL) < 0) {
		err = -errno;
		snprintf(why, whylen, "cannot trace a child (PTRACE_SEIZE): %s", strerror(-err));
		kill(child, SIGKILL);
		goto out_wait;
	}
	if (write(go[1], &b, 1) != 1 || read_full(res[0], &t[0], sizeof(t[0]))) {
		err = -EPIPE;
		snprintf(why, whylen, "the child stopped answering");
		kill(child, SIGKILL);
		goto out_wait;
	}
	fd = perf__open(&a, child, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 || (err = ring__mmap(&ring, fd, COST_RING_PAGES))) {
		err = fd < 0 ? fd : err;
		if (fd < 0)
			perf__strerror(err, &a, "soft with sigtrap (--sync)", why, whylen);
		else
			snprintf(why, whylen, "mmap of the sample ring: %s", strerror(-err));
		kill(child, SIGKILL);
		goto out_wait;
	}
	if (write(go[1], &b, 1) != 1) {
		err = -EPIPE;
		kill(child, SIGKILL);
		goto out_wait;
	}
	for (;;) {
		siginfo_t si;
		int sig;

		if (waitpid(child, &status, 0) < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (!WIFSTOPPED(status))
			break;		/* exited */
		sig = WSTOPSIG(status);
		if (status >> 16) {
			sig = 0;	/* a ptrace event stop */
		} else if (sig == SIGTRAP && !ptrace(PTRACE_GETSIGINFO, child, 0, &si) &&
			   si.si_code == TRAP_PERF) {
			n++;
			ring_count(&ring, PERF_RECORD_SAMPLE);	/* as the tracer drains */
			sig = 0;
		}
		ptrace(PTRACE_CONT, child, 0, (long)sig);
	}
	if (!err && (!WIFEXITED(status) || WEXITSTATUS(status) ||
		     read_full(res[0], &t[1], sizeof(t[1])))) {
		err = -ECHILD;
		snprintf(why, whylen, "the timed child did not finish");
	}
	*extra = n > 0 ? (t[1] - t[0]) / n : 0;
	*holds = n;
	goto out_pipes;
out_wait:
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
out_pipes:
	if (ring.meta)
		ring__munmap(&ring);
	if (fd >= 0)
		close(fd);
	if (go[0] >= 0)
		close(go[0]);
	if (res[1] >= 0)
		close(res[1]);
	close(go[1]);
	close(res[0]);
	return err;
}

static void measure_hold(struct lp_cost *c, const struct lp_cost *sample, int reps,
			 long units)
{
	double v[100], ev[100], extra = 0, holds = 0;
	struct perf_event_attr a;
	u64 period;
	int r, k = 0, err;

	if ((err = soft_attr(&a, 1, &period)))
		return cost_fail(c, err, NULL, "soft facility setup");
	if (sample->us < 0) {
		snprintf(c->reason, sizeof(c->reason), "the sample cost is unknown");
		return;
	}
	for (r = 0; r < reps; r++) {
		err = hold_once(&a, units, &extra, &holds, c->reason, sizeof(c->reason));
		if (err)
			break;
		if (holds >= 10) {
			v[k] = extra - sample->us * 1e3;
			ev[k++] = holds;
		}
	}
	if (!k && !c->reason[0])
		snprintf(c->reason, sizeof(c->reason), "fewer than 10 holds per run");
	cost_done(c, v, ev, k);
}

static void cost_skip(struct lp_cost *c, unsigned asked)
{
	if (!asked)
		snprintf(c->reason, sizeof(c->reason), "not asked for");
}

int costs__measure(struct lp_costs *c, int reps)
{
	return costs__measure_parts(c, reps, COSTS_ALL);
}

int costs__measure_parts(struct lp_costs *c, int reps, unsigned parts)
{
	long units;

	memset(c, 0, sizeof(*c));
	c->sample.us = c->trap.us = c->arm.us = c->hold.us = -1;
	c->sample.wall_us = c->trap.wall_us = c->arm.wall_us = c->hold.wall_us = -1;
	if (reps < 3 || reps > 99)
		return -EINVAL;
	units = cost_units();
	if (parts & (COSTS_SAMPLE | COSTS_HOLD))	/* a hold is what it adds to a sample */
		measure_sample(&c->sample, reps, units, &c->period_ns);
	if (parts & COSTS_TRAP)
		measure_trap(&c->trap, reps, units);
	if (parts & COSTS_ARM)
		measure_arm(&c->arm, reps);
	if (parts & COSTS_HOLD)
		measure_hold(&c->hold, &c->sample, reps, units);
	cost_skip(&c->sample, parts & (COSTS_SAMPLE | COSTS_HOLD));
	cost_skip(&c->trap, parts & COSTS_TRAP);
	cost_skip(&c->arm, parts & COSTS_ARM);
	cost_skip(&c->hold, parts & COSTS_HOLD);
	if (c->sample.us < 0 && c->trap.us < 0 && c->arm.us < 0 && c->hold.us < 0)
		return -ENODEV;
	return 0;
}
