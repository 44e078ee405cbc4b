// SPDX-License-Identifier: GPL-2.0
/*
 * The reuse analysis descriptor (cmd/analyses.h): reuse-distance
 * histograms of each thread's private caches or of the shared cache
 * (ReuseTracker), or exact ones from a trace. The analysis is
 * core/reuse.c, the exact engine core/reuse-exact.c, the printers
 * cmd/reuse-report.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd/analyses.h"
#include "cmd/builtin.h"
#include "cmd/profile.h"
#include "cmd/reuse-report.h"
#include "core/costs.h"
#include "core/reuse-exact.h"
#include "core/reuse-exact-objects.h"
#include "core/reuse-exact-pairs.h"
#include "core/reuse-predict.h"
#include "core/reuse.h"
#include "core/symbols.h"
#include "core/trace.h"

struct an_reuse {
	struct reuse_config cfg;
	const char *cache_spec;			/* --cache */
	struct sdcm_cache caches[REUSE_MAX_CACHES];
	int ncaches;
	const char *trace;			/* --trace */
	struct reuse_predict_spec predict;	/* --predict-threads etc. */
	double sample_rate;			/* --sample-rate: SHARDS; 0 exact */
	int hot_keys;				/* --hot-keys: SHARDS tracks hot lines; -1: not given */
	int lackey_run;				/* --exact: the program under lackey */
	const char *pairs_by;			/* --pairs-by CACHE: rank exact pairs by reuses beyond it */
	struct reuse *ru;
	struct reuse_report r;
};

static void ru_init(void *opts)
{
	struct an_reuse *a = opts;

	memset(a, 0, sizeof(*a));
	a->hot_keys = -1;
	reuse__config_init(&a->cfg);
}

static int ru_nslots(const void *opts)
{
	return ((const struct an_reuse *)opts)->cfg.nslots;
}

/* Caches to model: --cache, else @topo's (may be NULL). */
static void ru_caches(struct an_reuse *a, const struct lp_topology *topo)
{
	int lvl, n = a->ncaches;

	a->r.caches = a->caches;
	a->r.cache_source = n ? "--cache" : NULL;
	if (n || !topo)
		goto out;
	/* the data/unified caches of the first CPU, by level */
	for (lvl = 1; lvl <= topology__llc_level(topo) && n < REUSE_MAX_CACHES; lvl++) {
		const struct lp_cache *c = topology__cache_of(topo, lvl,
							      lp_cpuset__first(&topo->caches[0].cpus));

		if (!c || c->size == 0 || c->ways <= 0 || c->line_size != LP_CACHE_LINE)
			continue;
		snprintf(a->caches[n].name, SDCM_NAME_MAX, "L%d", lvl);
		a->caches[n].size = c->size;
		a->caches[n].ways = (u32)c->ways;
		a->caches[n].line = (u32)c->line_size;
		n++;
	}
	a->ncaches = n;
	a->r.cache_source = n ? "sysfs" : NULL;
out:
	a->r.ncaches = a->ncaches;
}

/* ---- --trace: the exact engine, no program ---------------------------- */

/* A SHARDS count in the units of the full trace. */
static u64 scaled(u64 v, double rate)
{
	return rate < 1 ? (u64)llround((double)v / rate) : v;
}

/* The exact engine's per-thread results as a reuse result. */
static int exact_result(struct reuse_exact *re, const struct an_reuse *a,
			struct reuse_result *res, struct reuse_thread **thr)
{
	int i, n = reuse_exact__nr_threads(re);
	double rate = reuse_exact__sample_rate(re);

	memset(res, 0, sizeof(*res));
	*thr = calloc(n ? n : 1, sizeof(**thr));
	if (!*thr)
		return -ENOMEM;
	res->shared = a->cfg.shared;
	res->gran = a->cfg.gran;
	reuse_hist__init(&res->time, REUSE_TIME, a->cfg.gran);
	reuse_hist__init(&res->stack, REUSE_STACK, a->cfg.gran);
	for (i = 0; i < n; i++) {
		const struct reuse_exact_thread *e = reuse_exact__thread(re, i);
		struct reuse_thread *t = &(*thr)[i];

		t->tid = e->tid;
		t->samples = e->seen;
		t->reuses = scaled(e->reuses, rate);
		t->invalidations = scaled(e->inval_misses, rate);
		t->cold = scaled(e->cold, rate);
		t->cross_thread = scaled(e->cross_thread, rate);
		t->time = e->time;
		t->stack = e->stack;
		res->reuses += t->reuses;
		res->invalidations += t->invalidations;
		res->cold += t->cold;
		res->cross_thread += t->cross_thread;
		reuse_hist__merge(&res->time, &e->time);
		reuse_hist__merge(&res->stack, &e->stack);
	}
	res->nthreads = n;
	res->threads = *thr;
	res->access_rate = 0;
	return 0;
}

extern const struct lp_analysis_desc reuse_desc;

#define TRACE_BATCH 4096

/*
 * --hot-keys with --sample-rate unless given: the accurate configuration
 * (make bench, section engine), a string too for the help text.
 */
#define REUSE_HOT_KEYS_DEFAULT	8192
#define REUSE_HOT_KEYS_DEFAULT_S	"8192"
#define RU_COSTS_REPS 3		/* repetitions of each cost: 1-1.6 s here */

/* Is @name an executable file in $PATH? */
static int in_path(const char *name)
{
	const char *p = getenv("PATH") ?: "/usr/bin:/bin";
	char buf[PATH_MAX];

	for (;;) {
		size_t n = strcspn(p, ":");

		/* an empty entry is the current directory, as for execvp() */
		snprintf(buf, sizeof(buf), "%.*s/%s", n ? (int)n : 1, n ? p : ".", name);
		if (!access(buf, X_OK))
			return 1;
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

/*
 * --exact: run "valgrind --tool=lackey --trace-mem=yes" on the program with
 * its log on a pipe; the read end as a path trace__open() takes. Returns
 * the read end or -errno (-ENOENT: no valgrind in $PATH). Valgrind dies
 * with lociprof, whatever kills it.
 */
static int lackey__spawn(char **argv, int argc, pid_t *pid, char *path, size_t len)
{
	pid_t parent = getpid();
	int fd[2], i;

	if (!in_path("valgrind"))
		return -ENOENT;
	if (pipe2(fd, O_CLOEXEC))
		return -errno;
	*pid = fork();
	if (*pid < 0) {
		int err = -errno;

		close(fd[0]);
		close(fd[1]);
		return err;
	}
	if (!*pid) {
		char logfd[32], **args = calloc(argc + 6, sizeof(*args));
		int w = dup(fd[1]);	/* without O_CLOEXEC: valgrind writes to it */

		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(127);
		if (!args || w < 0)
			_exit(127);
		snprintf(logfd, sizeof(logfd), "--log-fd=%d", w);
		args[0] = "valgrind";
		args[1] = "--tool=lackey";
		args[2] = "--trace-mem=yes";
		args[3] = logfd;
		args[4] = "--";
		for (i = 0; i < argc; i++)
			args[5 + i] = argv[i];
		execvp("valgrind", args);
		fprintf(stderr, "lociprof: cannot run valgrind: %s\n", strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	snprintf(path, len, "/dev/fd/%d", fd[0]);
	return fd[0];
}

/*
 * --exact on Ctrl-C or SIGTERM: stop the program as a live run does (SIGTERM,
 * SIGKILL 2 s later) and read its trace to the end; the report follows.
 */
static volatile pid_t exact_pid;
static volatile sig_atomic_t exact_stopped;

static void exact__on_signal(int sig)
{
	if (exact_stopped)
		return;
	exact_stopped = sig;
	kill(exact_pid, SIGTERM);
	alarm(2);
}

static void exact__on_alarm(int sig)
{
	(void)sig;
	kill(exact_pid, SIGKILL);
}

static void exact__signals(pid_t pid, int on)
{
	static struct sigaction old[3];
	static const int sigs[3] = { SIGINT, SIGTERM, SIGALRM };
	struct sigaction sa;
	int i;

	if (!on) {
		alarm(0);
		for (i = 0; i < 3; i++)
			sigaction(sigs[i], &old[i], NULL);
		return;
	}
	exact_pid = pid;
	memset(&sa, 0, sizeof(sa));
	sa.sa_flags = SA_RESTART;	/* the trace is read on to its end */
	for (i = 0; i < 3; i++) {
		sa.sa_handler = sigs[i] == SIGALRM ? exact__on_alarm : exact__on_signal;
		sigaction(sigs[i], &sa, &old[i]);
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Past a few seconds, a line on stderr: how far, how fast, how big. */
struct progress {
	double t0, last;
	int shown, tty;
};

static void progress__tick(struct progress *p, u64 n, int quiet)
{
	struct rusage ru;
	double t = now_s(), rate = n / (t - p->t0);

	if (quiet || t - p->t0 < 3 || t - p->last < (p->tty ? 1 : 10))
		return;
	getrusage(RUSAGE_SELF, &ru);
	/* valgrind's pace (--exact) is thousands a second, a trace's millions */
	fprintf(stderr, "%slociprof reuse: %.1f M accesses, %.*f %s/s, peak RSS %ld MiB%s",
		p->tty ? "\r" : "", n / 1e6, rate < 1e6 ? 0 : 1, rate < 1e6 ? rate / 1e3 : rate / 1e6,
		rate < 1e6 ? "k" : "M", ru.ru_maxrss / 1024, p->tty ? "  " : "\n");
	p->last = t;
	p->shown = 1;
}

static int ru_trace(void *opts, const struct lp_output *out, int argc, char **argv)
{
	static struct reuse_exact_thread sum;
	struct reuse_exact_opts eo;
	struct an_reuse *a = opts;
	struct reuse_thread *thr = NULL;
	struct lp_topology *topo = NULL;
	struct reuse_result res;
	struct reuse_predict_report pr;
	struct reuse_predict *rp = NULL;
	struct reuse_exact *re;
	struct trace_access ac;
	struct trace *t;
	static struct reuse_exact_acc batch[TRACE_BATCH];
	struct progress prog = { .t0 = now_s(), .tty = isatty(2) };
	struct reuse_xpairs *xp = NULL;
	struct reuse_xobjs *xo = NULL;
	struct lp_symbols *syms = NULL;
	struct reuse_pair *pairs;
	u32 npairs = 0;
	u64 limit[REUSE_XPAIR_LIMITS];
	int i, nlimit = 0, by = -1;
	const char *cache_source;
	double maps_at = 0;
	const char *path = a->trace;
	char err[512], fdpath[64];
	double size_sum = 0;
	int ret, nb = 0, lackey, status = 0;
	pid_t pid = -1;
	u64 n = 0;

	if ((a->predict.sizes || a->predict.quantum > 0) && !a->predict.nn) {
		lp_err("--predict-cache and --predict-quantum go with --predict-threads");
		exit(129);
	}
	if (!a->trace && a->predict.nn) {
		lp_err("--predict-threads needs --trace: it predicts from a full access trace");
		exit(129);
	}
	if (a->hot_keys > 0 && !(a->sample_rate > 0 && a->sample_rate < 1)) {
		lp_err("--hot-keys goes with --sample-rate below 1 (SHARDS)");
		exit(129);
	}
	if (a->pairs_by && (!(a->trace || a->lackey_run) || a->cfg.gran != REUSE_GRAN_LINE ||
			    (a->sample_rate > 0 && a->sample_rate < 1))) {
		lp_err("--pairs-by ranks the exact pairs of --exact or a lackey --trace: give it "
		       "with one of them, --granularity line and no --sample-rate");
		exit(129);
	}
	/* SHARDS finds hot lines unless told not to: the accurate configuration (make bench) */
	if (a->hot_keys < 0)
		a->hot_keys = a->sample_rate > 0 && a->sample_rate < 1 ? REUSE_HOT_KEYS_DEFAULT : 0;
	if (!a->trace && !a->lackey_run) {
		if (a->sample_rate > 0) {
			lp_err("--sample-rate samples a trace: give --trace FILE or --exact");
			exit(129);
		}
		return -1;
	}
	if (a->trace && a->lackey_run) {
		lp_err("--trace reads a trace, --exact makes one: give one of them");
		exit(129);
	}
	if (a->trace && argc > 0) {
		lp_err("--trace reads a trace: give no program and no -p");
		exit(129);
	}
	if (a->lackey_run) {
		int fd;

		if (argc < 1) {
			lp_err("--exact runs a program under valgrind: give one");
			exit(129);
		}
		fd = lackey__spawn(argv, argc, &pid, fdpath, sizeof(fdpath));
		if (fd == -ENOENT) {
			lp_err("--exact runs the program under valgrind, which is not installed: "
			       "make deps (or apt-get install valgrind), or measure a trace "
			       "with --trace FILE");
			return 1;
		}
		if (fd < 0) {
			lp_err("--exact: cannot start valgrind: %s", strerror(-fd));
			return 1;
		}
		exact__signals(pid, 1);
		path = fdpath;
		ret = trace__open(&t, path, err, sizeof(err));
		close(fd);
	} else {
		ret = trace__open(&t, path, err, sizeof(err));
	}
	if (ret < 0) {
		lp_err("%s", err);
		return 1;
	}
	eo = (struct reuse_exact_opts){
		.mode = a->cfg.shared ? REUSE_EXACT_SHARED : REUSE_EXACT_PER_THREAD,
		.gran = a->cfg.gran,
		.sample_rate = a->sample_rate,
		.hot_keys = a->hot_keys,
	};
	ret = reuse_exact__new(&eo, &re);
	if (!ret && a->predict.nn)
		ret = reuse_predict__new(a->cfg.gran, PREDICT_MAX_STREAM, &rp);
	if (ret)
		lp_die("cannot set up the exact engine: %s", strerror(-ret));
	/* the caches to model, known before the pairs count reuses beyond them */
	if (!a->ncaches) {
		topo = calloc(1, sizeof(*topo));
		if (topo && topology__read(topo, NULL)) {
			free(topo);
			topo = NULL;
		}
	}
	ru_caches(a, topo);
	cache_source = a->r.cache_source;
	for (i = 0; i < a->ncaches && i < REUSE_XPAIR_LIMITS && a->cfg.gran == REUSE_GRAN_LINE; i++) {
		limit[nlimit++] = a->caches[i].size / a->caches[i].line;
		if (a->pairs_by && !strcasecmp(a->pairs_by, a->caches[i].name))
			by = i;
	}
	if (a->pairs_by && by < 0) {
		lp_err("--pairs-by %s: no such cache is modelled (%s); give it with --cache, "
		       "e.g. --cache L1=48K:12,L2=1M:16", a->pairs_by,
		       a->ncaches ? "see the caches the report lists" : "sysfs gave none here");
		if (pid > 0)
			kill(pid, SIGKILL);
		exit(129);
	}
	/* batches, so the engine can prefetch ahead; one at a time to name code */
	for (;;) {
		ret = trace__next(t, &ac, err, sizeof(err));
		if (ret > 0 && !n && ac.ip && !(a->sample_rate > 0 && a->sample_rate < 1)) {
			/* instruction addresses (lackey): use -> reuse pairs, exact mode only */
			xp = reuse_xpairs__new(limit, nlimit);
			if (!xp)
				lp_die("out of memory");
			if (pid > 0) {
				/* the program's mappings: code and data named, objects */
				syms = symbols__new();
				xo = reuse_xobjs__new(limit, nlimit);
				if (!syms || !xo)
					lp_die("out of memory");
			}
		}
		if (ret > 0 && xp) {
			u64 key = a->cfg.gran == REUSE_GRAN_LINE ? ac.addr >> 6 : ac.addr;
			struct reuse_exact_res er;
			int e = reuse_exact__access(re, ac.tid, ac.addr, ac.op == TRACE_WRITE, &er);

			if (!e)
				e = reuse_xpairs__access(xp, key, ac.addr, ac.ip, &er);
			if (!e && xo)
				e = reuse_xobjs__access(xo, key, ac.addr, &er);
			if (e) {
				snprintf(err, sizeof(err), "%s: %s", path, strerror(-e));
				ret = e;
			}
			/* the program's mappings, while it runs: libraries come and go */
			if (syms && !(n % 4096) && now_s() - maps_at > 0.5) {
				symbols__read_proc_maps(pid, symbols__add_mmap_cb, syms);
				maps_at = now_s();
			}
			if (!(n % TRACE_BATCH))
				progress__tick(&prog, n, out->quiet);
		} else if (ret > 0) {
			batch[nb++] = (struct reuse_exact_acc){ .addr = ac.addr, .tid = ac.tid,
								.is_store = ac.op == TRACE_WRITE };
		}
		if (ret > 0) {
			size_sum += ac.size ? ac.size : 8;
			n++;
			if (rp) {
				int e = reuse_predict__access(rp, ac.tid, ac.addr);

				if (e) {
					snprintf(err, sizeof(err), "%s: %s", path, strerror(-e));
					ret = e;
				}
			}
		}
		if (nb && (ret <= 0 || nb == TRACE_BATCH)) {
			int e = reuse_exact__access_batch(re, batch, nb);

			nb = 0;
			if (e) {
				snprintf(err, sizeof(err), "%s: %s", path, strerror(-e));
				ret = e;
			}
			progress__tick(&prog, n, out->quiet);
		}
		if (ret <= 0)
			break;
	}
	if (prog.shown && prog.tty)
		fputc('\n', stderr);
	lackey = trace__format(t) == TRACE_FMT_LACKEY;
	trace__close(t);
	if (pid > 0) {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		exact__signals(pid, 0);
		/* valgrind exits 127 / 126 when the program is not found / cannot run */
		if (ret >= 0 && WIFEXITED(status) && !n &&
		    (WEXITSTATUS(status) == 127 || WEXITSTATUS(status) == 126)) {
			lp_err("cannot run '%s' under valgrind: %s (valgrind says why above)", argv[0],
			       WEXITSTATUS(status) == 127 ? "not found" : "not executable");
			reuse_xpairs__delete(xp);
			reuse_xobjs__delete(xo);
			symbols__delete(syms);
			reuse_exact__delete(re);
			return WEXITSTATUS(status);
		}
	}
	if (ret < 0) {
		lp_err("%s", err);
		reuse_xpairs__delete(xp);
		reuse_xobjs__delete(xo);
		symbols__delete(syms);
		reuse_exact__delete(re);
		return 1;
	}
	reuse_exact__finish(re);
	reuse_exact__sum(re, &sum);
	if (exact_result(re, a, &res, &thr))
		lp_die("out of memory");
	res.mean_access_size = n ? size_sum / (double)n : 0;
	if (xp) {
		reuse_xpairs__sorted_by(xp, by, &pairs, &npairs);
		res.pairs = pairs;
		res.npairs = npairs > INT32_MAX ? INT32_MAX : (int)npairs;
	}
	memset(&a->r, 0, sizeof(a->r));
	a->r.caches = a->caches;
	a->r.ncaches = a->ncaches;
	a->r.cache_source = cache_source;
	if (xp) {
		a->r.pair_dist = reuse_xpairs__dist(xp);
		a->r.pair_nlimit = nlimit;
		a->r.pairs_by = by + 1;
	}
	a->r.xobjs = xo;
	a->r.xobj_ncaches = nlimit;
	a->r.res = &res;
	a->r.exact = 1;
	a->r.lackey = lackey;
	a->r.sample_rate = reuse_exact__sample_rate(re);
	a->r.sampled = sum.accesses;
	reuse_exact__sample_keys(re, &a->r.keys_sampled, &a->r.keys_est);
	a->r.hot_on = !reuse_exact__hot_keys(re, &a->r.hot_keys, &a->r.hot_first, &a->r.hot_last);
	a->r.hot_accesses = sum.hot;
	if (a->cfg.gran == REUSE_GRAN_LINE)
		a->r.mrc = &sum.mrc;
	if (rp) {
		ret = reuse_predict__finish(rp);
		if (!ret)
			ret = reuse_predict_report__build(&pr, rp, &a->predict, a->caches, a->ncaches,
							  res.mean_access_size);
		if (ret == -EINVAL)	/* a bad --predict-cache: said */
			exit(129);
		if (ret)
			lp_die("cannot predict: %s", strerror(-ret));
		a->r.predict = &pr;
	}
	{
		/* --exact: the program's code named from its mappings under valgrind */
		struct lp_run run = { .sampler = "exact", .period_unit = "",
				      .command = a->lackey_run ? argv[0] : a->trace,
				      .samples = n, .samples_addr = n, .sync = -1,
				      .syms = syms, .pid = pid > 0 ? (u32)pid : 0 };

		ret = analysis__output(&reuse_desc, a, &run, out);
	}
	/* --exact: the program's exit status, as a live run's (lociprof(1)) */
	if (!ret && pid > 0)
		ret = profile__status_code(status, exact_stopped, out->quiet);
	free(topo);
	free(thr);
	reuse_xpairs__delete(xp);
	reuse_xobjs__delete(xo);
	symbols__delete(syms);
	reuse_exact__delete(re);
	if (rp) {
		reuse_predict_report__free(&pr);
		reuse_predict__delete(rp);
	}
	return ret;
}

/* ---- live and replayed runs ------------------------------------------- */

static struct lp_analysis *ru_new(void *opts, const struct lp_run *run)
{
	struct an_reuse *a = opts;

	a->cfg.topo = a->cfg.shared ? run->topo : NULL;
	a->ru = reuse__new(&a->cfg);
	return a->ru ? reuse__analysis(a->ru) : NULL;
}

static int ru_result(void *opts, const struct lp_run *run)
{
	struct an_reuse *a = opts;
	int err;

	if (a->r.exact)		/* --trace: built by ru_trace */
		return 0;
	err = reuse__finish(a->ru);
	if (err)
		return err;
	memset(&a->r, 0, sizeof(a->r));
	a->r.res = reuse__result(a->ru);
	if (!a->r.res)
		return -ENOMEM;
	ru_caches(a, run->topo);
	return 0;
}

static const void *ru_view(void *opts, const struct lp_run *run, const struct lp_output *out)
{
	struct an_reuse *a = opts;

	a->r.run = *run;
	a->r.out = *out;
	return &a->r;
}

static void ru_delete(void *opts)
{
	struct an_reuse *a = opts;

	reuse__delete(a->ru);
	a->ru = NULL;
}

/* ---- options ---------------------------------------------------------- */

static int parse_cache(void *opts, const char *arg)
{
	struct an_reuse *a = opts;
	char err[256];

	if (sdcm__parse(arg, a->caches, REUSE_MAX_CACHES, &a->ncaches, err, sizeof(err))) {
		lp_err("--cache '%s': %s", arg, err);
		return -EINVAL;
	}
	a->cache_spec = arg;
	return 0;
}

/* Recorded as "estimate" when no rate was given. */
static int parse_rate(void *opts, const char *arg)
{
	struct an_reuse *a = opts;
	char *end;
	double v;

	if (!strcmp(arg, "estimate")) {
		a->cfg.access_rate = 0;
		return 0;
	}
	v = strtod(arg, &end);
	if (end == arg || *end || !(v > 0) || v > REUSE_MAX_RATE) {
		lp_err("--access-rate expects accesses per ns in (0, %g], not '%s'", REUSE_MAX_RATE, arg);
		return -EINVAL;
	}
	a->cfg.access_rate = v;
	return 0;
}

static void format_rate(const void *opts, char *buf, size_t len)
{
	const struct an_reuse *a = opts;

	if (a->cfg.access_rate > 0)
		snprintf(buf, len, "%.17g", a->cfg.access_rate);
	else
		snprintf(buf, len, "estimate");
}

/*
 * --resolution: "measure" (the default: at the start of a live run),
 * NS stated, or "measured:NS" as a run records what it measured.
 */
static int parse_resolution(void *opts, const char *arg)
{
	struct an_reuse *a = opts;
	int measured = !strncmp(arg, "measured:", 9);
	const char *p = measured ? arg + 9 : arg;
	char *end;
	double v;

	if (!strcmp(arg, "measure")) {
		a->cfg.resolution_ns = 0;
		a->cfg.resolution_measured = 0;
		return 0;
	}
	v = strtod(p, &end);
	if (end == p || *end || !(v > 0) || v > 1e12) {
		lp_err("--resolution expects ns of thread CPU time in (0, 1e12] or 'measure', not '%s'", arg);
		return -EINVAL;
	}
	a->cfg.resolution_ns = v;
	a->cfg.resolution_measured = measured;
	return 0;
}

static void format_resolution(const void *opts, char *buf, size_t len)
{
	const struct an_reuse *a = opts;

	if (!(a->cfg.resolution_ns > 0))
		snprintf(buf, len, "measure");
	else
		snprintf(buf, len, "%s%.17g", a->cfg.resolution_measured ? "measured:" : "",
			 a->cfg.resolution_ns);
}

/* A live run's resolution, unless stated: what a sample, arm and trap cost here. */
static void ru_measure(void *opts, int sync, int quiet)
{
	static struct lp_costs c;
	struct an_reuse *a = opts;
	char missing[64];
	double ns;

	if (a->cfg.resolution_ns > 0)
		return;
	ns = costs__measure_parts(&c, RU_COSTS_REPS, COSTS_SAMPLE | COSTS_TRAP |
				  (sync ? COSTS_HOLD : COSTS_ARM)) ? 0 :
	     costs__reuse_floor(&c, sync, missing, sizeof(missing));
	if (ns > 0) {
		a->cfg.resolution_ns = ns;
		a->cfg.resolution_measured = 1;
	}
	if (quiet)
		return;
	if (!(ns > 0))
		lp_warn("cannot measure this machine's resolution (lociprof list --costs): no hit "
			"rate will be printed; give --resolution NS");
	else if (missing[0])
		lp_warn("resolution %.1f us of thread CPU time, %s not measured (taken as 0: "
			"lociprof list --costs says why)", ns / 1000, missing);
}

static int parse_window(void *opts, const char *arg)
{
	struct an_reuse *a = opts;
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || *arg == '-' || v > 1000000) {
		lp_err("--window expects 0..1000000 reuses, not '%s'", arg);
		return -EINVAL;
	}
	a->cfg.window = v ? (int)v : -1;	/* 0: the whole run */
	return 0;
}

static void format_window(const void *opts, char *buf, size_t len)
{
	const struct an_reuse *a = opts;

	snprintf(buf, len, "%d", a->cfg.window < 0 ? 0 :
		 a->cfg.window ? a->cfg.window : reuse__default_window(a->cfg.gran));
}

static int parse_predict_threads(void *opts, const char *arg)
{
	return reuse_predict_spec__threads(&((struct an_reuse *)opts)->predict, arg);
}

static const char *const gran_names[] = {
	[REUSE_GRAN_ADDR] = "address", [REUSE_GRAN_LINE] = "line", NULL,
};

#define RU(f) offsetof(struct an_reuse, f)
static const struct lp_opt ru_opts[] = {
	{ "shared-cache", 0, NULL, "reuse in the last-level cache shared by threads\n"
	  "(default: each thread's private caches)", LP_OPT_FLAG, RU(cfg.shared), .flags = LP_OPT_CFG },
	{ "granularity", 0, "G", "address (default) or line: unit of the distances",
	  LP_OPT_ENUM, RU(cfg.gran), .names = gran_names, .flags = LP_OPT_CFG },
	{ "cache", 0, "SPEC", "model these caches, e.g. L1=48K:12,L2=2M:16\n"
	  "(default: the recording machine's, from sysfs)", LP_OPT_CALL, .parse = parse_cache,
	  .flags = LP_OPT_RPT },
	{ "access-rate", 0, "N", "memory accesses per ns of thread CPU time, to turn\n"
	  "reuse times into accesses (default: estimated)", LP_OPT_CALL,
	  .parse = parse_rate, .format = format_rate, .flags = LP_OPT_CFG | LP_OPT_RPT },
	{ "global-rate", 0, NULL, "one estimated rate for every reuse (default: each\n"
	  "reuse's local rate where its interval has one)", LP_OPT_FLAG, RU(cfg.global_rate),
	  .flags = LP_OPT_CFG | LP_OPT_RPT },
	{ "survival", 0, NULL, "access counters (trace, PMU): count a watch replaced\n"
	  "before its reuse as a reuse later than its age (Kaplan-Meier;\n"
	  "default: weigh each detection by its own chance to be kept)",
	  LP_OPT_FLAG, RU(cfg.survival), .flags = LP_OPT_CFG | LP_OPT_RPT },
	{ "no-chain", 0, NULL, "time every reuse by thread CPU time x rate (default:\n"
	  "count along the thread's samples in between)", LP_OPT_FLAG, RU(cfg.no_chain),
	  .flags = LP_OPT_CFG | LP_OPT_RPT },
	{ "resolution", 0, "NS", "reuses timed within NS of thread CPU time are only\n"
	  "known to be shorter: a bin apart, and hit rates only for the\n"
	  "caches they surely hit (default: measure the sample, arm and\n"
	  "trap costs at the start, as lociprof list --costs)", LP_OPT_CALL,
	  .parse = parse_resolution, .format = format_resolution, .flags = LP_OPT_CFG | LP_OPT_RPT },
	{ "window", 0, "N", "reuses per footprint conversion window (default 8,\n"
	  "64 at line granularity; "
	  "0: the whole run at once)", LP_OPT_CALL, .parse = parse_window, .format = format_window,
	  .flags = LP_OPT_CFG | LP_OPT_RPT },
	{ "slots", 0, "N", "debug registers used per thread, 1-4 (a line watch\n"
	  "takes 2)", LP_OPT_INT,
	  RU(cfg.nslots), 1, 4, .flags = LP_OPT_CFG },
	{ "seed", 0, "N", "seed of the reservoir sampling", LP_OPT_U64, RU(cfg.seed),
	  .flags = LP_OPT_CFG },
	{ "trace", 0, "FILE", "exact histograms of this access trace (lociprof-trace(5),\n"
	  "or valgrind lackey --trace-mem=yes output; zstd too); no program", LP_OPT_STR, RU(trace) },
	{ "exact", 0, NULL, "run the program under valgrind lackey and compute the\n"
	  "exact histograms of every access (threads serialized),\n"
	  "its use -> reuse pairs and data objects named", LP_OPT_FLAG, RU(lackey_run) },
	{ "sample-rate", 0, "R", "with --trace or --exact: estimate from the lines a hash samples\n"
	  "at rate R in (0, 1] (SHARDS), e.g. 0.01; 1: exact (default)", LP_OPT_DOUBLE,
	  RU(sample_rate), 0, 1 },
	{ "hot-keys", 0, "K", "with --sample-rate: track up to K lines found hot exactly\n"
	  "(weight 1), sample the others (Carra & Neglia 2020); default "
	  REUSE_HOT_KEYS_DEFAULT_S ", 0: off",
	  LP_OPT_INT, RU(hot_keys), 0, 1 << 20 },
	{ "pairs-by", 0, "CACHE", "with --exact (or a lackey --trace) at line granularity:\n"
	  "rank the use -> reuse pairs by their reuses beyond this\n"
	  "modelled cache, e.g. L2 (default: by reuses)", LP_OPT_STR, RU(pairs_by) },
	{ "predict-threads", 0, "N[,M..]", "with --trace: predict the shared cache at these\n"
	  "thread counts (Jiang et al. and PPT-Multicore)", LP_OPT_CALL, .parse = parse_predict_threads },
	{ "predict-cache", 0, "SIZE[:WAYS],..", "with --predict-threads: also predict these shared\n"
	  "cache sizes (ways default to the last --cache level's)", LP_OPT_STR, RU(predict.sizes) },
	{ "predict-quantum", 0, "N", "with --predict-threads: threads take turns of N accesses\n"
	  "(default: as measured in the trace; 1 for a one-thread trace)", LP_OPT_DOUBLE,
	  RU(predict.quantum), 0, 1e12 },
	{ NULL },
};

/* Recordings before data-file 1.2 named their settings in the analysis: "reuse,shared,line,seed=N". */
static int ru_legacy(void *opts, const char *suffix)
{
	struct an_reuse *a = opts;
	const char *p;

	for (p = suffix; *p == ','; ) {
		size_t n;

		p++;
		n = strcspn(p, ",");
		if (n == 6 && !strncmp(p, "shared", 6))
			a->cfg.shared = 1;
		else if (n == 4 && !strncmp(p, "line", 4))
			a->cfg.gran = REUSE_GRAN_LINE;
		else if (!strncmp(p, "slots=", 6))
			a->cfg.nslots = atoi(p + 6);
		else if (!strncmp(p, "seed=", 5))
			a->cfg.seed = strtoull(p + 5, NULL, 10);
		else
			return -EINVAL;
		p += n;
	}
	return *p ? -EINVAL : 0;
}

const struct lp_analysis_desc reuse_desc = {
	.name = "reuse",
	.summary = "Show reuse-distance histograms of private and shared caches",
	.head = "usage: lociprof reuse [options] [--] <program> [<args>]\n"
		"   or: lociprof reuse --trace FILE [options]\n"
		"   or: lociprof reuse --exact [options] [--] <program> [<args>]\n"
		"\n"
		"Run a program (or attach with -p) and show how far apart its threads reuse\n"
		"data: stack reuse-distance histograms of each thread's private caches (or,\n"
		"with --shared-cache, of the last-level cache the threads share), cache-line\n"
		"invalidations by other threads, predicted hit rates of the cache levels\n"
		"its resolution covers (reuses shorter than it are counted apart), the\n"
		"miss-ratio curve and the source lines behind the reuses. With --trace,\n"
		"compute the exact histograms of a lociprof-trace(5) file instead, or\n"
		"estimate them from a spatial sample of its lines with --sample-rate.\n"
		"With --exact, trace the program under valgrind lackey and do the same.\n"
		"With --predict-threads, also predict the shared cache at other thread\n"
		"counts and cache sizes from each thread's own profile.\n"
		"\n",
	.top_help = "use->reuse pairs to show (default 10)",
	.svg_help = "write histograms and the miss-ratio curve as SVG",
	.default_top = 10,
	.default_sync = 1,	/* the sampled thread's own reuse can come right away */
	.needs_traps = 1,	/* every reuse and invalidation is a trap */
	.opts = ru_opts,
	.opts_size = sizeof(struct an_reuse),
	.opts_init = ru_init,
	.nslots = ru_nslots,
	.run_alone = ru_trace,
	.measure = ru_measure,
	.legacy = ru_legacy,
	.new = ru_new,
	.result = ru_result,
	.view = ru_view,
	.delete = ru_delete,
	.print = reuse_report__print,
	.json = reuse_report__json,
	.svg = reuse_report__svg,
};
