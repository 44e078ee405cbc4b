// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd/builtin.h"
#include "cmd/options.h"
#include "cmd/profile.h"
#include "core/cpu.h"
#include "core/datafile.h"
#include "core/event.h"
#include "core/perf-util.h"
#include "core/symbols.h"
#include "core/topology.h"

void profile_opts__init(struct profile_opts *po)
{
	memset(po, 0, sizeof(*po));
	po->sampler = "auto";
	po->sync = -1;
	po->pid = -1;
	po->prev_insn = LP_PREV_PREFER;
	po->objects_budget = 10;
	po->objects_stack = 8192;
}

/* The kernel takes multiples of 8 up to 65528 (a u16 record size). */
static int parse_objects_stack(void *obj, const char *arg)
{
	struct profile_opts *po = obj;
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 0);
	if (errno || end == arg || *end || v > 65528 || v % 8 || *arg == '-') {
		lp_err("--objects-stack expects a multiple of 8 up to 65528, not '%s'", arg);
		return -EINVAL;
	}
	po->objects_stack = (u32)v;
	return 0;
}

static int parse_sampler(void *obj, const char *arg)
{
	struct profile_opts *po = obj;

	if (!strncmp(arg, "trace=", 6) && arg[6]) {
		po->sampler = arg;
		return 0;
	}
	if (strcmp(arg, "auto") && !lp_facility__find(arg)) {
		lp_err("unknown sampler '%s' (auto, pebs, ibs, soft or trace=FILE)", arg);
		return -EINVAL;
	}
	po->sampler = arg;
	return 0;
}

static int parse_pages(void *obj, const char *arg)
{
	struct profile_opts *po = obj;
	unsigned long long n;
	char *end;

	errno = 0;
	n = strtoull(arg, &end, 0);
	if (errno || end == arg || *end || *arg == '-' || !n || (n & (n - 1)) || n > 4096) {
		lp_err("--mmap-pages expects a power of two up to 4096, not '%s'", arg);
		return -EINVAL;
	}
	po->ring_pages = (int)n;
	return 0;
}

static const char *const prev_insn_names[] = {	/* enum lp_prev_insn order */
	[LP_PREV_OFF] = "off", [LP_PREV_FALLBACK] = "fallback", [LP_PREV_PREFER] = "prefer", NULL,
};

#define PO(f) offsetof(struct profile_opts, f)
const struct lp_opt profile_options[] = {
	{ "pid", 'p', "PID", "attach to every thread of a running process",
	  LP_OPT_INT, PO(pid), 1, 4194304 },
	{ "count", 'c', "PERIOD", "sampling period (soft: ns of thread CPU time)", LP_OPT_U64,
	  PO(period), 1 },
	{ "freq", 'F', "HZ", "sample at this frequency instead of a period", LP_OPT_U64, PO(freq), 1 },
	{ "sampler", 0, "NAME", "auto|pebs|ibs|soft|trace=FILE (auto: pebs, then ibs, then soft)",
	  LP_OPT_CALL, .parse = parse_sampler },
	{ "sync", 0, NULL, "hold a sampled thread until its watchpoints are armed", LP_OPT_FLAG, PO(sync) },
	{ "async", 0, NULL, "arm watchpoints without holding the thread", LP_OPT_CLEAR, PO(sync) },
	{ "prev-insn", 0, "MODE", "soft: whose access a sample reports: prefer (the\n"
	  "instruction before the sampled one, where the time\n"
	  "went, if its address can be recomputed; default),\n"
	  "fallback (only if the sampled one has none), off", LP_OPT_ENUM, PO(prev_insn),
	  .names = prev_insn_names },
	{ "mmap-pages", 'm', "N", "ring buffer data pages per thread (power of 2)",
	  LP_OPT_CALL, .parse = parse_pages },
	{ "follow-fork", 0, NULL, "trace forked child processes too", LP_OPT_FLAG, PO(follow_fork) },
	{ "objects", 0, NULL, "name heap objects by allocation site: uprobes on the\n"
	  "allocator, each call a trap (off by default: it costs)", LP_OPT_FLAG, PO(objects) },
	{ "no-objects", 0, NULL, "do not track heap allocations (the default)", LP_OPT_CLEAR,
	  PO(objects) },
	{ "objects-max", 0, "N", "track the first N heap allocations, then remove the\n"
	  "probes (default 0: no limit)", LP_OPT_U64, PO(objects_max) },
	{ "objects-budget", 0, "PCT", "keep the allocator probes' traps below PCT% of the\n"
	  "run: past it they stop trapping until the budget has\n"
	  "grown (default 10, 0: always in place)", LP_OPT_INT, PO(objects_budget),
	  0, 1000 },
	{ "objects-stack", 0, "BYTES", "copy this much of the user stack at each allocation\n"
	  "for a DWARF unwind of its call path where frame\n"
	  "pointers are missing (default 8192, 0: frame pointers)", LP_OPT_CALL,
	  .parse = parse_objects_stack },
	{ "objects-all-threads", 0, NULL, "track the allocations of every thread, not only\n"
	  "the first thread's (each thread's probes cost ~0.6 s\n"
	  "of kernel time to remove)", LP_OPT_FLAG, PO(objects_all_threads) },
	{ "ldlat", 0, "CYCLES", "pebs: sample loads slower than CYCLES, with the\n"
	  "full data source (load-latency event)", LP_OPT_INT, PO(ldlat), 0, 65535 },
	{ "verbose", 'v', NULL, "more detail, including per-reason sample counts", LP_OPT_COUNT, PO(verbose) },
	{ "quiet", 'q', NULL, "print only errors (files asked for are still written)",
	  LP_OPT_FLAG, PO(quiet) },
	{ "lost-ok", 0, NULL, "threads that could not be monitored do not fail the\n"
	  "run (they are still reported)", LP_OPT_FLAG, PO(lost_ok) },
	{ NULL },
};

static const struct lp_facility_ops *pick_facility(const char *name)
{
	struct lp_probe pr;
	int i;

	if (strcmp(name, "auto")) {
		const struct lp_facility_ops *f = lp_facility__find(name);

		memset(&pr, 0, sizeof(pr));
		f->probe(&pr);
		if (!pr.usable)
			lp_die("sampler '%s' is not usable here: %s\n"
			    "hint: 'lociprof list' shows what this machine offers; "
			    "--sampler auto picks one that works", name, pr.reason);
		if (!f->setup || !f->decode)
			lp_die("sampler '%s' cannot sample live in this build", name);
		return f;
	}
	int nall;
	const struct lp_facility_ops *const *all = lp_facility__list(&nall);

	for (i = 0; i < nall; i++) {
		const struct lp_facility_ops *f = all[i];

		memset(&pr, 0, sizeof(pr));
		if (f->probe(&pr) == 0 && pr.usable && f->setup && f->decode)
			return f;
	}
	lp_die("no sampling facility works on this machine\n"
	    "hint: 'lociprof list' says why each one is unusable");
}

/* Is @prog something execvp can run? Says why not, like a shell would. */
static void check_program(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (strchr(prog, '/')) {
		struct stat st;

		if (stat(prog, &st) == 0 && S_ISDIR(st.st_mode)) {
			lp_err("cannot run '%s': it is a directory", prog);
			exit(126);	/* as a shell: found, not executable */
		}
		if (access(prog, X_OK) < 0)
			goto fail;
		return;
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, n ? path : ".", prog);
		if (access(buf, X_OK) == 0)
			return;
		path += n + (path[n] == ':');
	}
	errno = ENOENT;
fail:
	lp_err("cannot run '%s': %s", prog, strerror(errno));
	exit(errno == EACCES ? 126 : 127);	/* as a shell */
}

/* A usage error: say why and where the options are; exit 129 like getopt's. */
__attribute__((noreturn)) static void usage_error(const char *why)
{
	lp_err("%s (see '%s -h')", why, lp_cmd_name);
	exit(129);
}

/* What the kernel would refuse, refused here with its limit named. */
static void check_rate(const struct profile_opts *po)
{
	unsigned long long max = 0;
	FILE *f;

	if (po->period > (unsigned long long)INT64_MAX) {
		lp_err("-c %llu is above the largest period the kernel takes (%lld)",
		       po->period, (long long)INT64_MAX);
		exit(129);
	}
	if (!po->freq)
		return;
	f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");
	if (f) {
		if (fscanf(f, "%llu", &max) != 1)
			max = 0;
		fclose(f);
	}
	if (max && po->freq > max) {
		lp_err("-F %llu is above kernel.perf_event_max_sample_rate (%llu samples/s): "
		       "give -F %llu or less, or raise the sysctl (as root)", po->freq, max, max);
		exit(129);
	}
}

const char *profile__trace_path(const struct profile_opts *po)
{
	return strncmp(po->sampler, "trace=", 6) ? NULL : po->sampler + 6;
}

/* --sampler trace=FILE: the trace is the program (session__new_trace). */
static struct lp_session *start_trace(const struct profile_opts *po, int argc, int default_sync)
{
	struct lp_session_opts so;
	struct lp_session *s;
	char err[512] = "";
	int ret;

	if (argc > 0 || po->pid > 0 || po->freq || po->ldlat || po->follow_fork) {
		lp_err("--sampler trace=FILE plays a trace: no program, -p, -F, --ldlat or --follow-fork");
		exit(129);
	}
	memset(&so, 0, sizeof(so));
	so.sampling.period = po->period;
	so.sync = po->sync >= 0 ? po->sync : default_sync;
	so.nslots = po->nslots;
	so.verbose = po->verbose;
	ret = session__new_trace(&s, &so, profile__trace_path(po), err, sizeof(err));
	if (ret) {	/* input that cannot be read: exit 1, as report and compare */
		lp_err("cannot play the trace: %s", err[0] ? err : strerror(-ret));
		exit(ret == -EINVAL && po->freq ? 129 : 1);
	}
	return s;
}

struct lp_session *profile__start(const struct profile_opts *po, int argc,
				  char **argv, int default_sync)
{
	struct lp_session_opts so;
	struct lp_session *s;
	int err;

	if (profile__trace_path(po))
		return start_trace(po, argc, default_sync);
	if (po->pid > 0 && argc > 0) {
		usage_error("give either -p PID or a program, not both");
	}
	if (po->pid <= 0 && argc == 0) {
		usage_error("no program to profile");
	}
	if (po->period && po->freq) {
		usage_error("give either -c PERIOD or -F FREQ, not both");
	}
	check_rate(po);
	if (po->output && !strcmp(po->output, "-"))
		usage_error("-o - : a data file is binary, not for a terminal or a pipe; give a file "
			    "name ('lociprof script -i FILE' prints it)");
	if (argc > 0)
		check_program(argv[0]);
	memset(&so, 0, sizeof(so));
	so.fac = pick_facility(po->sampler);
	if (po->ldlat && strcmp(so.fac->name, "pebs")) {
		lp_err("--ldlat needs --sampler pebs (the sampler here is %s)", so.fac->name);
		exit(129);
	}
	so.sampling.ldlat = po->ldlat;
	so.sampling.period = po->period;
	so.sampling.freq = po->freq;
	so.sync = po->sync >= 0 ? po->sync : default_sync;
	so.follow_fork = po->follow_fork;
	so.nslots = po->nslots;
	so.no_watchpoints = po->no_watchpoints;
	so.ring_pages = po->ring_pages;
	so.prev_insn = po->prev_insn;
	so.objects = po->objects;
	so.objects_max = po->objects_max;
	so.objects_budget = po->objects_budget;
	so.objects_stack = po->objects_stack;
	so.objects_all_threads = po->objects_all_threads;
	so.verbose = po->verbose;
	err = session__new(&s, &so);
	if (err)
		lp_die("cannot set up profiling with sampler '%s': %s", so.fac->name,
		    strerror(-err));
	if (po->pid > 0)
		err = session__attach(s, po->pid);
	else
		err = session__start_command(s, argv);
	if (err) {
		const char *e = session__error(s);

		if (e[0])
			lp_die("%s", e);
		lp_die("cannot %s: %s", po->pid > 0 ? "attach" : "start the program",
		    strerror(-err));
	}
	return s;
}

static struct lp_session *running;
static volatile sig_atomic_t stopped_by;	/* SIGINT or SIGTERM that stopped the run */

static void on_signal(int sig)
{
	if (!stopped_by)
		stopped_by = sig;
	if (running)
		session__stop(running);
}

int profile__run(struct lp_session *s)
{
	struct sigaction sa, old_int, old_term;
	int err;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: wake the event loop */
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	running = s;
	err = session__run(s);
	running = NULL;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (err && session__error(s)[0])
		lp_err("%s", session__error(s));
	else if (session__error(s)[0] && !session__stats(s)->threads_unmonitored)
		lp_warn("%s", session__error(s));	/* lost threads: an error, in the stats */
	return err;
}

void profile__print_stats(const struct lp_session *s, const struct profile_opts *po)
{
	const struct lp_session_stats *st = session__stats(s);
	int i;

	if (st->threads_unmonitored)	/* an error: printed even with -q */
		lp_err("%llu of %llu threads could not be monitored; their accesses are missing "
		       "from the results (%s)%s", (unsigned long long)st->threads_unmonitored,
		       (unsigned long long)st->threads, session__error(s),
		       po->lost_ok ? "" : "; --lost-ok accepts such a run");
	if (po->quiet)
		return;
	if (st->ring_pages && st->ring_pages < (po->ring_pages ? po->ring_pages : 64))
		fprintf(stderr, "[ ring buffers shrunk to %d data pages per thread to fit the "
			"locked-memory budget of perf rings (kernel.perf_event_mlock_kb, ulimit -l) ]\n",
			st->ring_pages);
	fprintf(stderr, "[ lociprof: %llu threads, %llu samples, %llu with a data "
		"address (%.1f%%)",
		(unsigned long long)st->threads, (unsigned long long)st->samples,
		(unsigned long long)st->samples_addr,
		st->samples ? 100.0 * st->samples_addr / st->samples : 0.0);
	if (st->samples_prev)
		fprintf(stderr, ", %llu of them from the previous instruction",
			(unsigned long long)st->samples_prev);
	fprintf(stderr, ", %llu watchpoint traps ]\n", (unsigned long long)st->traps);
	if (st->samples && st->cpu_ns)
		fprintf(stderr, "[ %.2f s of thread CPU time: one sample per %.1f us of it ]\n",
			st->cpu_ns / 1e9, st->cpu_ns / 1e3 / st->samples);
	if (st->samples > st->samples_addr) {
		fprintf(stderr, "[ samples without an address:");
		for (i = 1; i < LP_NOADDR__MAX; i++)
			if (st->noaddr[i])
				fprintf(stderr, " %s %.1f%%;", lp_noaddr_names[i],
					100.0 * st->noaddr[i] / st->samples);
		fprintf(stderr, " ]\n");
	}
	if (st->alloc_probes || st->allocs) {
		fprintf(stderr, "[ heap objects: %llu allocations and %llu frees tracked (%d allocator "
			"probes)%s ]\n", (unsigned long long)st->allocs, (unsigned long long)st->frees,
			st->alloc_probes, st->alloc_stopped_at ? ", then --objects-max was reached: later allocations "
			"are not named" : "");
		if (st->alloc_hit_ns)
			fprintf(stderr, "[ allocator probes: %llu hits at %.1f us each (", (unsigned long long)st->alloc_hits,
				st->alloc_hit_ns / 1e3);
		if (st->alloc_hit_ns && st->alloc_dense_runs)	/* session-alloc.c: burst() */
			fprintf(stderr, "wall time per hit in runs of 32 hits; %.1f us measured at setup",
				st->alloc_calib_ns / 1e3);
		else if (st->alloc_hit_ns)
			fprintf(stderr, "measured at setup; %s", st->alloc_sparse_runs ?
				"no run of 32 hits was dense enough to time one" :
				"too few hits to time runs of them");
		if (st->alloc_hit_ns)
			fprintf(stderr, "): %.2f s", st->alloc_hits * st->alloc_hit_ns / 1e9);
		if (st->alloc_hit_ns && po->objects_budget)
			fprintf(stderr, "; in place %llu time%s, off %.2f s by --objects-budget %d "
				"(allocations then are not named)",
				(unsigned long long)st->alloc_windows, st->alloc_windows == 1 ? "" : "s",
				st->alloc_paused_ns / 1e9, po->objects_budget);
		if (st->alloc_hit_ns)
			fprintf(stderr, " ]\n");
		if (st->alloc_dwarf)
			fprintf(stderr, "[ %llu allocation call paths from a DWARF unwind of the "
				"stack (frame pointers missing) ]\n", (unsigned long long)st->alloc_dwarf);
	}
	else if (po->objects && st->last_alloc_error)
		fprintf(stderr, "[ heap objects not tracked: %s%s ]\n", strerror(-st->last_alloc_error),
			st->last_alloc_error == -EACCES || st->last_alloc_error == -EPERM ?
			" (allocator uprobes need CAP_PERFMON or root)" : "");
	if (st->alloc_open_errors)
		fprintf(stderr, "[ %llu allocator probes could not be opened, last: %s ]\n",
			(unsigned long long)st->alloc_open_errors, strerror(-st->last_alloc_error));
	if (st->lost || st->throttled)
		fprintf(stderr, "[ lost %llu records, throttled %llu times: "
			"use a longer period (-c) or more ring pages (-m) ]\n",
			(unsigned long long)st->lost, (unsigned long long)st->throttled);
	if (st->threads_lost)
		fprintf(stderr, "[ %llu threads vanished without an exit notification ]\n",
			(unsigned long long)st->threads_lost);
	if (st->arm_errors)
		fprintf(stderr, "[ %llu watchpoint actions failed, last: %s ]\n",
			(unsigned long long)st->arm_errors, strerror(-st->last_arm_error));
	if (po->verbose && session__facility(s)->stats) {
		char buf[512];

		if (session__facility(s)->stats(buf, sizeof(buf)) > 0)
			fprintf(stderr, "[ %s ]\n", buf);
	}
	if (po->verbose) {
		fprintf(stderr, "[ arms %llu (moves %llu), disarms %llu, held samples %llu, "
			"signals forwarded %llu, max live threads %llu ]\n",
			(unsigned long long)st->arms, (unsigned long long)st->arm_moves,
			(unsigned long long)st->disarms, (unsigned long long)st->sync_stops,
			(unsigned long long)st->signals_forwarded,
			(unsigned long long)st->max_live_threads);
		fprintf(stderr, "[ descriptors: %d at start, %d at end ]\n",
			st->fds_at_start, st->fds_at_end);
		{
			struct rusage self, children;

			getrusage(RUSAGE_SELF, &self);
			getrusage(RUSAGE_CHILDREN, &children);
			fprintf(stderr, "[ peak RSS: lociprof %ld KiB, program %ld KiB ]\n",
				self.ru_maxrss, children.ru_maxrss);
		}
	}
}

int profile__status_code(int st, int stopped, int quiet)
{
	int code = st < 0 ? 0 : WIFEXITED(st) ? WEXITSTATUS(st) :
		   WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 0;

	if (st < 0 || !WIFSIGNALED(st) || quiet)
		return code;
	/* like perf record: a forked program does not outlive lociprof's Ctrl-C */
	if (stopped && (WTERMSIG(st) == SIGTERM || WTERMSIG(st) == SIGKILL))
		fprintf(stderr, "lociprof: stopped the program with %s on %s; exit %d\n",
			WTERMSIG(st) == SIGTERM ? "SIGTERM" : "SIGKILL (SIGTERM did not end it in 2 s)",
			stopped == SIGINT ? "Ctrl-C" : "SIGTERM", code);
	else
		fprintf(stderr, "lociprof: the program was killed by signal %d (%s)\n",
			WTERMSIG(st), strsignal(WTERMSIG(st)));
	return code;
}

int profile__exit_code(const struct lp_session *s, const struct profile_opts *po)
{
	/* a run that lost threads fails, unless the program failed first */
	if (session__stats(s)->threads_unmonitored && !po->lost_ok && !session__exit_code(s))
		return 128;
	/* an attached process is detached, not stopped: it runs on */
	return profile__status_code(session__wait_status(s), po->pid <= 0 ? stopped_by : 0,
				    po->quiet);
}

void recorder__open(struct recorder *r, const char *path, struct lp_session *s,
		    int argc, char **argv, const char *analysis, const char *config,
		    u64 flags)
{
	struct lp_data_header *h = calloc(1, sizeof(*h));
	const struct lp_facility_ops *fac = session__facility(s);
	struct lp_cpu_info ci;
	struct timespec ts;
	int err;

	if (!h)
		lp_die("out of memory");
	memset(r, 0, sizeof(*r));
	r->path = path;
	if (cpu__read(&ci) == 0) {
		snprintf(h->cpu_vendor, sizeof(h->cpu_vendor), "%s", ci.vendor);
		h->cpu_family = ci.family;
		h->cpu_model = ci.model;
		snprintf(h->cpu_name, sizeof(h->cpu_name), "%s", ci.name);
	}
	snprintf(h->kernel_release, sizeof(h->kernel_release), "%s",
		 perf__kernel_release());
	gethostname(h->hostname, sizeof(h->hostname) - 1);
	snprintf(h->facility, sizeof(h->facility), "%s", fac->name);
	h->period = session__period(s);
	snprintf(h->period_unit, sizeof(h->period_unit), "%s",
		 fac->period_unit ? fac->period_unit : "events");
	h->sampling_flags = (session__is_sync(s) ? LP_DATA_SAMPLING_SIGTRAP : 0) | flags;
	if (argc > 0 && datafile__set_cmdline(h, argc, argv))
		datafile__set_cmdline(h, 1, argv);
	clock_gettime(CLOCK_REALTIME, &ts);
	h->start_time = (u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	h->start_perf_time = (u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	topology__read(&h->topo, NULL);
	snprintf(h->analysis, sizeof(h->analysis), "%s", analysis);
	snprintf(h->config, sizeof(h->config), "%s", config);
	err = datafile__create(&r->file, path, h);
	free(h);
	if (err)
		lp_die("cannot create '%s': %s", path, datafile__strerror(err));
}

/* Push what was recorded to the file about once a second, so that a
 * lociprof killed mid-run leaves a file that reads back up to then. */
#define RECORDER_FLUSH_NS	1000000000ull

int recorder__sink(void *arg, const struct lp_event *ev, struct lp_actions *acts)
{
	struct recorder *r = arg;
	struct timespec ts;
	int err;

	(void)acts;
	if (r->err)
		return r->err;
	err = datafile__write(r->file, ev);
	if (!err) {	/* a clock_gettime per event: far below an event's own cost */
		u64 now;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = (u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
		if (!r->flushed_ns)
			r->flushed_ns = now;
		if (now - r->flushed_ns >= RECORDER_FLUSH_NS) {
			err = datafile__flush(r->file);
			r->flushed_ns = now;
		}
	}
	if (err)
		r->err = err;
	return err;
}

int recorder__close(struct recorder *r, int quiet)
{
	u64 n = datafile__nr_events(r->file), good = datafile__nr_flushed(r->file);
	struct stat st;
	int err = datafile__close(r->file);

	if (!err)
		err = r->err;
	if (err) {
		lp_err("writing '%s' failed: %s; it reads back up to its last flush: "
		       "%llu of %llu events", r->path, datafile__strerror(err),
		       (unsigned long long)good, (unsigned long long)n);
		return err;
	}
	if (!quiet && stat(r->path, &st) == 0)
		fprintf(stderr, "[ lociprof: wrote %llu events to '%s' (%.1f KiB) ]\n",
			(unsigned long long)n, r->path, st.st_size / 1024.0);
	return 0;
}

int profile__symbols_sink(void *arg, const struct lp_event *ev, struct lp_actions *acts)
{
	(void)acts;
	if (ev->type == LP_EV_MMAP)
		symbols__add_mmap(arg, &ev->mmap);
	else if (ev->type == LP_EV_ALLOC || ev->type == LP_EV_FREE)
		symbols__add_alloc(arg, ev);
	else if (ev->type == LP_EV_THREAD_START || ev->type == LP_EV_THREAD_TLS)
		symbols__add_thread(arg, &ev->thread);
	return 0;
}

char *profile__join_args(int argc, char **argv)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = calloc(1, len);
	for (i = 0; s && i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}
