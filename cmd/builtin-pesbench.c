// SPDX-License-Identifier: GPL-2.0
/*
 * lociprof pebs-ibs-compare (alias pesbench): characterize this machine's
 * precise sampling facilities with the microbenchmarks of Sasongko 2022
 * ch.4. Option parsing, running the benchmarks natively and under a session
 * per facility, and output; the experiments are core/pesbench-*.c.
 *
 * Every profiled run happens in a forked helper process, so that its peak
 * RSS and the program's (RUSAGE_CHILDREN of the helper: only the program)
 * are its own; the helper sends its struct pesbench_run back on a pipe.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>

#include "cmd/builtin.h"
#include "core/comdetect.h"
#include "core/json.h"
#include "pesbench/pesbench.h"
#include "core/probe.h"
#include "core/session.h"
#include "core/symbols.h"

#define PESBENCH_SYNOPSIS(name)							\
	"usage: lociprof " name " [--facility LIST] [--runs N] [--periods LIST] "	\
	"[--quick] [--json FILE] [--svg DIR]\n"					\
	"   or: lociprof " name " --merge [--svg DIR] A.json B.json ...\n"

#define PESBENCH_USAGE_BODY							\
	"\n"									\
	"Characterize this machine's precise event sampling (PEBS, IBS, or the\n"	\
	"software facility) on microbenchmarks with known answers: accuracy,\n"	\
	"sensitivity to the period and stability, bias and instruction\n"	\
	"attribution, time and memory overhead, multiple events, user vs kernel\n"	\
	"attribution, and comdetect under each facility (Sasongko 2022, ch.4).\n"	\
	"Facilities this machine lacks are listed as unavailable with the reason.\n"	\
	"\n"									\
	"    --facility LIST    facilities to run, comma separated (default: all;\n"	\
	"                       the unusable ones are reported, not run)\n"		\
	"    --runs N           runs per measurement (default 5; --quick 3)\n"	\
	"    --periods LIST     periods for the sensitivity experiment, in the\n"	\
	"                       facility's unit (soft: ns of thread CPU time;\n"	\
	"                       default 10000,20000,50000,100000,1000000)\n"	\
	"    --quick            the benchmarks' default lengths, fewer periods and\n"	\
	"                       runs (under a minute; the full run doubles them)\n"	\
	"    --scale F          multiply every benchmark's iterations by F\n"	\
	"                       (default 1 with --quick, else 2)\n"	\
	"    --json FILE        save the results, with the machine, as JSON\n"	\
	"    --svg DIR          write the figures (Sasongko 2022, Figures 4.1-4.9) as SVG\n"	\
	"    --merge            compare saved results side by side (machines)\n"	\
	"    --bench-dir DIR    where the microbenchmarks are (default: the\n"	\
	"                       microbench/ directory next to lociprof, else\n"	\
	"                       ../libexec/lociprof/microbench from it)\n"	\
	"    --example TEXT     label the JSON as an example (checked-in results)\n"	\
	"    -q, --quiet        no progress on stderr\n"				\
	"    -h, --help         show this help\n"

const char pebs_ibs_compare_usage[] =
	PESBENCH_SYNOPSIS("pebs-ibs-compare") PESBENCH_USAGE_BODY;
const char pesbench_usage[] = PESBENCH_SYNOPSIS("pesbench") PESBENCH_USAGE_BODY;

#define MAX_PERIODS 16

struct pb_opts {
	const char *facilities;
	int runs;
	u64 periods[MAX_PERIODS];
	int nperiods;
	int quick, quiet;
	double scale;
	const char *json, *svg, *bench_dir, *example;
};

static char bench_dir[PATH_MAX];
static const char *usage_text;

static void progress(const struct pb_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void progress(const struct pb_opts *o, const char *fmt, ...)
{
	va_list ap;

	if (o->quiet)
		return;
	va_start(ap, fmt);
	fputs("[ pesbench: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs(" ]\n", stderr);
	va_end(ap);
}

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static u64 tv_ns(const struct timeval *tv)
{
	return (u64)tv->tv_sec * 1000000000ull + (u64)tv->tv_usec * 1000;
}

/* ------------------------------------------------------ benchmarks */

struct bench {
	char path[PATH_MAX + 64];
	char *argv[16];
	char args[12][32];
	int argc;
};

/* "name", then "--opt", "value" pairs; NULL ends. */
static void bench_init(struct bench *b, const char *name, long iters, ...)
{
	va_list ap;
	const char *a;

	memset(b, 0, sizeof(*b));
	snprintf(b->path, sizeof(b->path), "%s/%s", bench_dir, name);
	b->argv[b->argc++] = b->path;
	snprintf(b->args[0], sizeof(b->args[0]), "--iters");
	snprintf(b->args[1], sizeof(b->args[1]), "%ld", iters);
	b->argv[b->argc++] = b->args[0];
	b->argv[b->argc++] = b->args[1];
	va_start(ap, iters);
	while ((a = va_arg(ap, const char *)) && b->argc < 13) {
		snprintf(b->args[b->argc - 1], sizeof(b->args[0]), "%s", a);
		b->argv[b->argc] = b->args[b->argc - 1];
		b->argc++;
	}
	va_end(ap);
	b->argv[b->argc] = NULL;
}

/* The benchmark's --expect output into @buf. 0 or -errno. */
static int bench_expect_text(const struct bench *b, char *buf, size_t len)
{
	int pfd[2], st;
	size_t n = 0;
	ssize_t k;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -errno;
	}
	if (!pid) {
		char *argv[18];
		int i;

		for (i = 0; i < b->argc; i++)
			argv[i] = b->argv[i];
		argv[i++] = (char *)"--expect";
		argv[i] = NULL;
		dup2(pfd[1], 1);
		execv(b->path, argv);
		_exit(127);
	}
	close(pfd[1]);
	while (n + 1 < len && (k = read(pfd[0], buf + n, len - 1 - n)) > 0)
		n += (size_t)k;
	buf[n] = 0;
	close(pfd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 && n ? 0 : -ENOEXEC;
}

static void bench_expect(const struct bench *b, struct pesbench_expect *e)
{
	static char buf[1 << 16];

	if (bench_expect_text(b, buf, sizeof(buf)) ||
	    pesbench__parse_expect(buf, strlen(buf), e))
		lp_die("cannot read '%s --expect' (is it built? --bench-dir says where "
		    "the microbenchmarks are)", b->path);
}

/* Run natively: wall time, peak RSS and CPU times from wait4. */
static int run_native(const struct bench *b, struct pesbench_run *r)
{
	struct rusage ru;
	u64 t0 = now_ns();
	int st;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execv(b->path, b->argv);
		_exit(127);
	}
	while (wait4(pid, &st, 0, &ru) < 0)
		if (errno != EINTR)
			return -errno;
	r->wall_ns = now_ns() - t0;
	r->target_rss_kib = ru.ru_maxrss;
	r->utime_ns = tv_ns(&ru.ru_utime);
	r->stime_ns = tv_ns(&ru.ru_stime);
	r->cpu_ns = r->utime_ns + r->stime_ns;
	r->status = st;
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -ECHILD;
}

/* ------------------------------------------------------ profiled runs */

struct collect {
	struct pesbench_run *run;
	const struct pesbench_expect *e;
	struct lp_symbols *syms;
};

static int collect_sink(void *arg, const struct lp_event *ev, struct lp_actions *acts)
{
	struct collect *c = arg;

	(void)acts;
	if (ev->type == LP_EV_MMAP)
		symbols__add_mmap(c->syms, &ev->mmap);
	if (ev->type == LP_EV_SAMPLE && !c->run->sym_base && c->e->symbol[0] &&
	    ev->sample.ip) {
		struct lp_srcloc loc;

		if (symbols__code(c->syms, ev->sample.pid, ev->sample.ip, &loc) == 0 &&
		    loc.function && !strcmp(loc.function, c->e->symbol))
			c->run->sym_base = ev->sample.ip - loc.offset;
	}
	pesbench__tally(c->run, c->e, ev);
	return 0;
}

/* VmRSS or VmHWM of this process in KiB, 0 if unknown. */
static long self_status_kib(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = 0;
	size_t n = strlen(key);

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':')
			v = atol(line + n + 1);
	fclose(f);
	return v;
}

struct prof_cfg {
	const struct lp_facility_ops *fac;
	u64 period;		/* 0: the facility's default */
	int prev_insn;
	int comdetect;		/* also run comdetect (experiment 7) */
};

/* In the helper: profile @b, fill @r. Returns 0 or -errno. */
static int profile_in_helper(const struct prof_cfg *pc, const struct bench *b,
			     const struct pesbench_expect *e, struct pesbench_run *r)
{
	struct lp_session_opts so;
	struct lp_session *s;
	struct comdetect *cd = NULL;
	struct collect c = { r, e, symbols__new() };
	struct rusage ru;
	long rss0 = self_status_kib("VmRSS");
	u64 t0;
	int err;

	memset(&so, 0, sizeof(so));
	so.fac = pc->fac;
	so.sampling.period = pc->period;
	so.prev_insn = pc->prev_insn;
	so.nslots = pc->comdetect ? 4 : 0;
	so.ring_pages = 256;	/* the first symbol lookup (libdw) is slow: room for 100 ms at 20 us */
	if (!c.syms)
		return -ENOMEM;
	err = session__new(&s, &so);
	if (err)
		return err;
	session__add_sink(s, collect_sink, &c);
	if (pc->comdetect) {
		cd = comdetect__new(NULL);
		if (!cd)
			return -ENOMEM;
		session__add_analysis(s, comdetect__analysis(cd));
	}
	t0 = now_ns();
	err = session__start_command(s, b->argv);
	if (!err)
		err = session__run(s);
	r->wall_ns = now_ns() - t0;
	if (err) {
		fprintf(stderr, "lociprof pebs-ibs-compare: error: %s: %s\n", b->path,
			session__error(s)[0] ? session__error(s) : strerror(-err));
		return err;
	}
	r->period = session__period(s);
	r->status = session__wait_status(s);
	if (cd) {
		const struct comdetect_result *cr = comdetect__result(cd);

		if (cr) {
			r->tool_volume = cr->total_all;
			r->tool_detections = cr->detections;
		}
	}
	getrusage(RUSAGE_CHILDREN, &ru);
	r->utime_ns = tv_ns(&ru.ru_utime);
	r->stime_ns = tv_ns(&ru.ru_stime);
	r->target_rss_kib = ru.ru_maxrss;
	r->profiler_rss_kib = self_status_kib("VmHWM") - rss0;
	if (r->profiler_rss_kib < 0)
		r->profiler_rss_kib = 0;
	if (cd)
		comdetect__delete(cd);
	session__delete(s);
	symbols__delete(c.syms);
	return 0;
}

static int run_profiled(const struct prof_cfg *pc, const struct bench *b,
			const struct pesbench_expect *e, struct pesbench_run *r)
{
	int pfd[2], st;
	ssize_t n;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->status = -1;
	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -errno;
	}
	if (!pid) {
		int err;

		close(pfd[0]);
		err = profile_in_helper(pc, b, e, r);
		if (!err && write(pfd[1], r, sizeof(*r)) != (ssize_t)sizeof(*r))
			err = -EIO;
		_exit(err ? 1 : 0);
	}
	close(pfd[1]);
	do {
		n = read(pfd[0], r, sizeof(*r));
	} while (n < 0 && errno == EINTR);
	close(pfd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof(*r))
		return -EIO;
	return r->status >= 0 && WIFEXITED(r->status) && !WEXITSTATUS(r->status) ? 0 : -ECHILD;
}

/* @n profiled runs; dies on failure (the facility probed usable). */
static void profile_n(const struct pb_opts *o, const struct prof_cfg *pc,
		      const struct bench *b, const struct pesbench_expect *e,
		      struct pesbench_run *runs, int n)
{
	int i, err;

	for (i = 0; i < n; i++) {
		err = run_profiled(pc, b, e, &runs[i]);
		if (err)
			lp_die("profiling '%s' with '%s' failed: %s", b->path, pc->fac->name,
			    strerror(-err));
	}
	char extra[96] = "", more[160] = "";
	size_t len = 0;

	for (i = 3; i < b->argc && len < sizeof(extra); i++)
		len += snprintf(extra + len, sizeof(extra) - len, " %s", b->argv[i]);
	len = 0;
	if (e->symbol[0])
		len += snprintf(more + len, sizeof(more) - len, ", %llu of them in %s",
				(unsigned long long)runs[0].in_loop, e->symbol);
	if (runs[0].lost || runs[0].throttled)
		len += snprintf(more + len, sizeof(more) - len, ", lost %llu records, "
				"throttled %llu times", (unsigned long long)runs[0].lost,
				(unsigned long long)runs[0].throttled);
	progress(o, "%s %s%s%s: %d run%s, period %llu %s: %llu samples in the first%s",
		 pc->fac->name, strrchr(b->path, '/') ? strrchr(b->path, '/') + 1 : b->path, extra,
		 pc->comdetect ? " (comdetect)" : "", n, n == 1 ? "" : "s",
		 (unsigned long long)runs[0].period, pc->fac->period_unit,
		 (unsigned long long)runs[0].samples, more);
}

static void native_n(const struct bench *b, struct pesbench_run *runs, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (run_native(b, &runs[i]))
			lp_die("running '%s' failed", b->path);
}

/* ------------------------------------------------------ experiments */

static long iters(const struct pb_opts *o, long base)
{
	double v = base * o->scale;

	return v < 1000 ? 1000 : (long)v;
}

static void check(int err, const char *what)
{
	if (err)
		lp_die("%s: %s", what, strerror(-err));
}

/* One facility's runs of the experiments: what every experiment uses. */
struct fac_run {
	const struct pb_opts *o;
	const struct lp_facility_ops *fac;
	struct pesbench_result *res;
	struct prof_cfg pc;
	struct pesbench_run *runs, *nat;
	int n;
	int tp;			/* the period is time (soft) */
};

/* Load-Ratio 1/1 .. 1/8: accuracy, and overhead against native runs */
static void exp_accuracy(const struct fac_run *x)
{
	const struct pb_opts *o = x->o;
	const struct lp_facility_ops *fac = x->fac;
	struct pesbench_result *res = x->res;
	struct pesbench_run *runs = x->runs, *nat = x->nat;
	struct prof_cfg pc = x->pc;
	int tp = x->tp, n = x->n, r;
	struct pesbench_expect e;
	struct pesbench_table *t;
	struct bench b;
	char arg[16], cfg[48];

	t = pesbench__table(res, "accuracy", "observed vs expected samples, total and loads "
			    "(Load-Ratio; Sasongko 2022, Figures 4.1-4.2)");
	snprintf(t->note, sizeof(t->note), "%s", tp ?
		 "soft: the period is time, so expected samples = thread CPU time / period and "
		 "the expected load share is the loop's instruction mix (loads / instructions); "
		 "a timer sample reports the access of the instruction before the sampled IP "
		 "when it can be recomputed (--prev-insn prefer), so loads are over-represented "
		 "on loops whose other instructions touch no memory." :
		 "expected samples = sampled events / period");
	for (r = 1; r <= 8; r++) {
		snprintf(arg, sizeof(arg), "%d", r);
		bench_init(&b, "load-ratio", iters(o, 300000000L * 4 / (r < 4 ? 4 : r)),
			   "--ratio", arg, NULL);
		bench_expect(&b, &e);
		profile_n(o, &pc, &b, &e, runs, n);
		snprintf(cfg, sizeof(cfg), "1/%d", r);
		check(pesbench_accuracy__add(t, fac->name, tp, &e, cfg, runs, n), "accuracy");
		native_n(&b, nat, n);
		snprintf(cfg, sizeof(cfg), "load-ratio 1/%d", r);
		t = pesbench__table(res, "overhead", "time and peak RSS against the native run "
				    "(Sasongko 2022, Figures 4.4-4.6)");
		snprintf(t->note, sizeof(t->note), "lociprof samples from outside the program "
			 "(ptrace + perf rings), so the program's own peak RSS should not grow; "
			 "'program+lociprof' adds lociprof's RSS growth while profiling.");
		check(pesbench_overhead__add(t, fac->name, cfg, nat, n, runs, n), "overhead");
		t = pesbench__table(res, "accuracy", NULL);
	}
	{
		size_t len = strlen(t->note);

		snprintf(t->note + len, sizeof(t->note) - len, " Default period of %s: %llu %s.",
			 fac->name, (unsigned long long)runs[0].period,
			 fac->period_unit ? fac->period_unit : "events");
	}
}

/* Locked-Load: sensitivity to the period, and stability */
static void exp_period(const struct fac_run *x)
{
	const struct pb_opts *o = x->o;
	const struct lp_facility_ops *fac = x->fac;
	struct pesbench_result *res = x->res;
	struct pesbench_run *runs = x->runs;
	struct prof_cfg pc = x->pc;
	int tp = x->tp, n = x->n, i;
	struct pesbench_expect e;
	struct pesbench_table *t;
	struct bench b;

	t = pesbench__table(res, "period", "samples and locked share per sampling period, "
			    "standard error over runs (Locked-Load; Sasongko 2022, Figure 4.3)");
	snprintf(t->note, sizeof(t->note), "stability = the stderr column (s/sqrt(runs))%s",
		 tp ? "; the kernel clamps cpu-clock periods below 10000 ns to 10000 ns, and "
		 "expected samples use the period asked for" : "");
	bench_init(&b, "locked-load", iters(o, 30000000), NULL);
	bench_expect(&b, &e);
	for (i = 0; i < o->nperiods; i++) {
		struct prof_cfg p2 = pc;

		p2.period = o->periods[i];
		profile_n(o, &p2, &b, &e, runs, n);
		check(pesbench_period__add(t, fac->name, tp, &e, o->periods[i], runs, n), "period");
	}
}

/* Bias-Bench: bias and instruction attribution, both attributions */
static void exp_bias(const struct fac_run *x)
{
	const struct pb_opts *o = x->o;
	const struct lp_facility_ops *fac = x->fac;
	struct pesbench_result *res = x->res;
	struct pesbench_run *runs = x->runs;
	struct prof_cfg pc = x->pc;
	int tp = x->tp, n = x->n;
	struct pesbench_expect e;
	struct pesbench_table *t;
	struct bench b;

	t = pesbench__table(res, "bias", "share of samples per instruction (Bias-Bench; "
			    "Sasongko 2022, Table 4.3)");
	snprintf(t->note, sizeof(t->note), "%s", tp ?
		 "soft: 'sampled ip' is where the timer interrupt landed (--prev-insn off); "
		 "'previous insn' is the instruction before it when its access can be "
		 "recomputed (--prev-insn prefer, lociprof's default): the skid correction. "
		 "Expected: 25% per load, 0% on subq/cmpq/jne." :
		 "Expected: 25% per load, 0% on subq/cmpq/jne.");
	bench_init(&b, "bias-bench", iters(o, 150000000), NULL);
	bench_expect(&b, &e);
	{
		struct prof_cfg p2 = pc;

		p2.prev_insn = LP_PREV_OFF;
		profile_n(o, &p2, &b, &e, runs, n);
		check(pesbench_bias__add(t, fac->name, &e, tp ? "sampled ip (prev-insn off)" :
					 "sampled ip", runs, n), "bias");
		if (tp && fac->decode_prev) {
			p2.prev_insn = LP_PREV_PREFER;
			profile_n(o, &p2, &b, &e, runs, n);
			check(pesbench_bias__add(t, fac->name, &e, "previous insn (prefer)",
						 runs, n), "bias");
		}
	}
}

/* Multi-Event: several events at once */
static void exp_multi(const struct fac_run *x)
{
	const struct pb_opts *o = x->o;
	const struct lp_facility_ops *fac = x->fac;
	struct pesbench_result *res = x->res;
	struct pesbench_run *runs = x->runs;
	struct prof_cfg pc = x->pc;
	int tp = x->tp, n = x->n;
	struct pesbench_expect e;
	struct pesbench_table *t;
	struct bench b;

	t = pesbench__table(res, "multi", "share of samples per event vs its share of "
			    "instructions (Multi-Event; Sasongko 2022, Figure 4.7)");
	snprintf(t->note, sizeof(t->note), "%s", tp ?
		 "soft: one cpu-clock timer per thread samples every instruction at once, like "
		 "IBS op: the events are told apart afterwards from the sampled instruction "
		 "(mapped by its offset in multi_event_loop), so asking for 1, 4, 5 or 6 events "
		 "is the same run and no hardware counter is shared or multiplexed. Software "
		 "timers (cpu-clock, task-clock) are not limited by counters; the qualitative "
		 "table shows how many open at once. Time-weighted: slow instructions (locked "
		 "adds) get more than their count's share." :
		 "one run with every event of the benchmark");
	bench_init(&b, "multi-event", iters(o, 20000000), NULL);
	bench_expect(&b, &e);
	profile_n(o, &pc, &b, &e, runs, n);
	check(pesbench_multi__add(t, fac->name, &e, tp ? "1 timer, all events" : "all events",
				  runs, n), "multi");
}

/* Exec-Mode: user vs kernel attribution */
static void exp_mode(const struct fac_run *x)
{
	const struct pb_opts *o = x->o;
	const struct lp_facility_ops *fac = x->fac;
	struct pesbench_result *res = x->res;
	struct pesbench_run *runs = x->runs;
	struct prof_cfg pc = x->pc;
	int tp = x->tp, n = x->n;
	struct pesbench_expect e;
	struct pesbench_table *t;
	struct bench b;

	t = pesbench__table(res, "mode", "user vs kernel attribution (Exec-Mode, getppid "
			    "per iteration; Sasongko 2022, 4.3.7)");
	snprintf(t->note, sizeof(t->note), "%s", tp ?
		 "soft samples with exclude_kernel=1: the kernel drops a cpu-clock sample "
		 "whose interrupted context is kernel mode (it is not moved to user mode), so "
		 "a correct facility reports no kernel-mode sample, no locked sample (the user "
		 "loop has none), and misses the kernel's share of CPU time (getrusage "
		 "utime/stime, tick-accounted). What the kernel does in getppid is not "
		 "sampled at all." : "user-mode samples only");
	bench_init(&b, "exec-mode", iters(o, 2000000), NULL);
	bench_expect(&b, &e);
	profile_n(o, &pc, &b, &e, runs, n);
	check(pesbench_mode__add(t, fac->name, tp, &e, runs, n), "mode");
}

/* comdetect on Write-Volume */
static void exp_tool(const struct fac_run *x)
{
	const struct pb_opts *o = x->o;
	const struct lp_facility_ops *fac = x->fac;
	struct pesbench_result *res = x->res;
	struct pesbench_run *runs = x->runs, *nat = x->nat;
	struct prof_cfg pc = x->pc;
	int tp = x->tp, n = x->n, i;
	struct pesbench_table *t;
	struct bench b;
	char cfg[48];

	t = pesbench__table(res, "tool", "comdetect on Write-Volume: total communication vs "
			    "expected transfers, time overhead (Sasongko 2022, Figures 4.8-4.9)");
	snprintf(t->note, sizeof(t->note), "%s", tp ?
		 "soft: comdetect's volume is ns of CPU time per detection; transfers = volume "
		 "x (stores / thread CPU time), stores = iters x threads. Expected: the "
		 "benchmark's coherence-miss model (--expect volume)." :
		 "volume in sampled events");
	{
		static const char *const fracs[] = { "0.1", "0.5", "1.0" };
		struct prof_cfg p2 = pc;
		static char ebuf[1 << 16];
		struct pesbench_expect none;
		long it = iters(o, 4000000);

		memset(&none, 0, sizeof(none));
		p2.comdetect = 1;
		for (i = o->quick ? 1 : 0; i < 3; i++) {
			const struct json_value *vol;
			struct json_value *v;
			double expected = NAN;

			bench_init(&b, "write-volume", it, "--threads", "2",
				   "--sharing-fraction", fracs[i], NULL);
			if (bench_expect_text(&b, ebuf, sizeof(ebuf)) == 0 &&
			    json__parse(ebuf, strlen(ebuf), &v, NULL) == 0) {
				vol = json__get(v, "volume");
				if (vol && vol->type == JV_NUMBER)
					expected = vol->num;
				json__free(v);
			}
			profile_n(o, &p2, &b, &none, runs, n);
			native_n(&b, nat, n);
			snprintf(cfg, sizeof(cfg), "sharing %s, 2 threads", fracs[i]);
			check(pesbench_tool__add(t, fac->name, tp, cfg, expected,
						 (u64)it * 2, runs, n, nat, n), "tool");
		}
	}
}

static void run_facility(const struct pb_opts *o, const struct lp_facility_ops *fac,
			 struct pesbench_result *res)
{
	struct fac_run x = { o, fac, res, { fac, 0, LP_PREV_PREFER, 0 }, NULL, NULL, o->runs,
			     fac->period_unit && !strcmp(fac->period_unit, "ns") };

	x.runs = calloc((size_t)x.n, sizeof(*x.runs));
	x.nat = calloc((size_t)x.n, sizeof(*x.nat));
	if (!x.runs || !x.nat)
		lp_die("out of memory");
	exp_accuracy(&x);
	exp_period(&x);
	exp_bias(&x);
	exp_multi(&x);
	exp_mode(&x);
	exp_tool(&x);
	free(x.runs);
	free(x.nat);
}

/* ------------------------------------------------------ the command */

static int parse_periods(struct pb_opts *o, const char *s)
{
	char *copy = strdup(s), *tok, *save = NULL;

	o->nperiods = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->nperiods == MAX_PERIODS) {
			lp_err("--periods takes at most %d periods", MAX_PERIODS);
			usage_exit(usage_text, 1);
		}
		o->periods[o->nperiods] = parse_ull_opt("--periods", tok);
		if (!o->periods[o->nperiods]) {
			lp_err("--periods: a period must be positive, not '%s'", tok);
			usage_exit(usage_text, 1);
		}
		o->nperiods++;
	}
	free(copy);
	return o->nperiods ? 0 : -EINVAL;
}

static int selected(const struct pb_opts *o, const char *name)
{
	const char *p = o->facilities;
	size_t n = strlen(name);

	if (!p)
		return 1;
	while (*p) {
		size_t k = strcspn(p, ",");

		if (k == n && !strncmp(p, name, n))
			return 1;
		p += k + (p[k] == ',');
	}
	return 0;
}

/* microbench/ next to lociprof (the build tree), else the installed libexec one. */
static void default_bench_dir(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	snprintf(bench_dir, sizeof(bench_dir), "microbench");
	if (n <= 0)
		return;
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (!slash)
		return;
	*slash = 0;
	snprintf(bench_dir, sizeof(bench_dir), "%.4000s/microbench", exe);
	if (access(bench_dir, X_OK) == 0)
		return;
	snprintf(bench_dir, sizeof(bench_dir), "%.4000s/../libexec/lociprof/microbench", exe);
	if (access(bench_dir, X_OK) < 0)	/* neither: say the build tree's */
		snprintf(bench_dir, sizeof(bench_dir), "%.4000s/microbench", exe);
}

static int write_json(const char *path, const struct pesbench_result *res)
{
	struct json_writer w;
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
	int err;

	if (!f)
		return -errno;
	json__init(&w, f, JSON_PRETTY);
	pesbench__write_json(&w, res);
	err = json__finish(&w);
	if (f != stdout && fclose(f) && !err)
		err = -errno;
	return err;
}

static int do_merge(const struct pb_opts *o, int argc, char **argv)
{
	struct pesbench_result *res;
	int i, err, ret = 0;

	if (argc < 1) {
		lp_err("--merge needs result files");
		usage_exit(usage_text, 1);
	}
	if (argc > PESBENCH_MAX_RESULTS)
		lp_die("--merge takes at most %d results", PESBENCH_MAX_RESULTS);
	res = calloc((size_t)argc, sizeof(*res));
	if (!res)
		lp_die("out of memory");
	for (i = 0; i < argc; i++) {
		err = pesbench__load(argv[i], &res[i]);
		if (err) {	/* bad input: 1, as report and compare */
			lp_err("cannot read '%s': %s", argv[i], err == -EINVAL ?
			       "not a pebs-ibs-compare result" : strerror(-err));
			free(res);
			return 1;
		}
	}
	pesbench__print_merge(stdout, res, argc);
	if (o->svg) {
		err = pesbench__svg(o->svg, res, argc);
		if (err < 0) {
			lp_err("cannot write SVG files to '%s': %s", o->svg, strerror(-err));
			ret = 128;
		}
	}
	for (i = 0; i < argc; i++)
		pesbench__result_exit(&res[i]);
	free(res);
	return ret;
}

int cmd_pesbench(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "facility", required_argument, NULL, 0x400 },
		{ "runs", required_argument, NULL, 0x401 },
		{ "periods", required_argument, NULL, 0x402 },
		{ "quick", no_argument, NULL, 0x403 },
		{ "json", required_argument, NULL, 0x404 },
		{ "svg", required_argument, NULL, 0x405 },
		{ "merge", no_argument, NULL, 0x406 },
		{ "scale", required_argument, NULL, 0x407 },
		{ "bench-dir", required_argument, NULL, 0x408 },
		{ "example", required_argument, NULL, 0x409 },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const u64 full_periods[] = { 10000, 20000, 50000, 100000, 1000000 };
	static const u64 quick_periods[] = { 20000, 100000, 1000000 };
	struct pesbench_result res;
	struct pb_opts o;
	int c, i, merge = 0, ran = 0, err, ret = 0, scale_given = 0;
	const char *periods = NULL;

	usage_text = strstr(lp_cmd_name, "pesbench") ? pesbench_usage : pebs_ibs_compare_usage;
	memset(&o, 0, sizeof(o));
	o.scale = 1;
	default_bench_dir();
	while ((c = getopt_long(argc, argv, "+qh", opts, NULL)) != -1) {
		switch (c) {
		case 'h': usage_exit(usage_text, 0);
		case 'q': o.quiet = 1; break;
		case 0x400: o.facilities = optarg; break;
		case 0x401:
			o.runs = (int)parse_ull_opt("--runs", optarg);
			if (o.runs < 1 || o.runs > 64) {
				lp_err("--runs expects 1..64, not '%s'", optarg);
				usage_exit(usage_text, 1);
			}
			break;
		case 0x402: periods = optarg; break;
		case 0x403: o.quick = 1; break;
		case 0x404: o.json = optarg; break;
		case 0x405: o.svg = optarg; break;
		case 0x406: merge = 1; break;
		case 0x407: {
			char *end;

			o.scale = strtod(optarg, &end);
			scale_given = 1;
			if (*end || end == optarg || !(o.scale > 0) || o.scale > 100) {
				lp_err("--scale expects a factor in (0, 100], not '%s'", optarg);
				usage_exit(usage_text, 1);
			}
			break;
		}
		case 0x408: snprintf(bench_dir, sizeof(bench_dir), "%s", optarg); break;
		case 0x409: o.example = optarg; break;
		default: usage_exit(usage_text, 1);
		}
	}
	if (merge) {
		if (o.json) {
			lp_err("--json saves a run; --merge prints and draws saved ones");
			usage_exit(usage_text, 1);
		}
		return do_merge(&o, argc - optind, argv + optind);
	}
	if (optind < argc) {
		lp_err("unexpected argument '%s' (result files go with --merge)", argv[optind]);
		usage_exit(usage_text, 1);
	}
	if (o.facilities) {
		const char *p = o.facilities;

		while (*p) {
			size_t k = strcspn(p, ",");
			char name[32];

			snprintf(name, sizeof(name), "%.*s", (int)(k < 31 ? k : 31), p);
			if (!lp_facility__find(name)) {
				lp_err("unknown facility '%s' (pebs, ibs or soft)", name);
				usage_exit(usage_text, 1);
			}
			p += k + (p[k] == ',');
		}
	}
	if (!o.runs)
		o.runs = o.quick ? 3 : 5;
	if (!o.quick && !scale_given)
		o.scale = 2;	/* the full run: twice the benchmarks' default lengths */
	if (periods) {
		if (parse_periods(&o, periods)) {
			lp_err("--periods expects a comma-separated list of periods");
			usage_exit(usage_text, 1);
		}
	} else if (o.quick) {
		memcpy(o.periods, quick_periods, sizeof(quick_periods));
		o.nperiods = ARRAY_SIZE(quick_periods);
	} else {
		memcpy(o.periods, full_periods, sizeof(full_periods));
		o.nperiods = ARRAY_SIZE(full_periods);
	}

	pesbench__result_init(&res);
	pesbench__probe_machine(&res.m);
	res.quick = o.quick;
	res.runs = o.runs;
	if (o.example)
		snprintf(res.example, sizeof(res.example), "%s", o.example);
	int nall;
	const struct lp_facility_ops *const *all = lp_facility__list(&nall);

	for (i = 0; i < nall && res.nfac < PESBENCH_MAX_FAC; i++)
		pesbench__probe_facility(all[i], &res.fac[res.nfac++]);
	for (i = 0; i < res.nfac; i++) {
		const struct lp_facility_ops *f = lp_facility__find(res.fac[i].name);

		if (!selected(&o, f->name))
			continue;
		if (!res.fac[i].usable) {
			progress(&o, "%s: unavailable on this machine: %s", f->name,
				 res.fac[i].reason);
			continue;
		}
		run_facility(&o, f, &res);
		ran++;
	}
	pesbench__print(stdout, &res);
	if (!ran)
		lp_warn("no selected facility is usable on this machine: nothing was measured");
	if (o.json && (err = write_json(o.json, &res))) {
		lp_err("cannot write '%s': %s", o.json, strerror(-err));
		ret = 128;
	}
	if (o.svg && (err = pesbench__svg(o.svg, &res, 1)) < 0) {
		lp_err("cannot write SVG files to '%s': %s", o.svg, strerror(-err));
		ret = 128;
	}
	pesbench__result_exit(&res);
	return ret ? ret : ran ? 0 : 1;
}
