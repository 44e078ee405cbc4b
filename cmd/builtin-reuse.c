// SPDX-License-Identifier: GPL-2.0
/*
 * lociprof reuse: reuse-distance histograms of each thread's private caches
 * or of the shared cache (ReuseTracker), or exact ones from a trace. Option
 * parsing, wiring and output only; the analysis is core/reuse.c, the exact
 * engine core/reuse-exact.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "cmd/profile.h"
#include "cmd/reuse-report.h"
#include "core/reuse-exact.h"
#include "core/reuse.h"
#include "core/symbols.h"
#include "core/trace.h"

const char reuse_usage[] =
	"usage: lociprof reuse [options] [--] <program> [<args>]\n"
	"   or: lociprof reuse --trace FILE [options]\n"
	"\n"
	"Run a program (or attach with -p) and show how far apart its threads reuse\n"
	"data: stack reuse-distance histograms of each thread's private caches (or,\n"
	"with --shared-cache, of the last-level cache the threads share), cache-line\n"
	"invalidations by other threads, predicted hit rates of each cache level,\n"
	"the miss-ratio curve and the source lines behind the reuses. With --trace,\n"
	"compute the exact histograms of a lociprof-trace(5) file instead.\n"
	"\n"
	REUSE_OPTS_USAGE
	"        --trace FILE      exact histograms of this access trace; no program\n"
	"    -o, --output FILE     also save the event stream (see lociprof report)\n"
	PROFILE_USAGE_OPTS
	"    -h, --help            show this help\n";

/* The exact engine's per-thread results as a reuse result. */
static int exact_result(struct reuse_exact *re, const struct reuse_opts *ro,
			struct reuse_result *res, struct reuse_thread **thr)
{
	int i, n = reuse_exact__nr_threads(re);

	memset(res, 0, sizeof(*res));
	*thr = calloc(n ? n : 1, sizeof(**thr));
	if (!*thr)
		return -ENOMEM;
	res->shared = ro->cfg.shared;
	res->gran = ro->cfg.gran;
	reuse_hist__init(&res->time, REUSE_TIME, ro->cfg.gran);
	reuse_hist__init(&res->stack, REUSE_STACK, ro->cfg.gran);
	for (i = 0; i < n; i++) {
		const struct reuse_exact_thread *e = reuse_exact__thread(re, i);
		struct reuse_thread *t = &(*thr)[i];

		t->tid = e->tid;
		t->samples = e->accesses;
		t->reuses = e->reuses;
		t->invalidations = e->inval_misses;
		t->cold = e->cold;
		t->cross_thread = e->cross_thread;
		t->time = e->time;
		t->stack = e->stack;
		res->reuses += e->reuses;
		res->invalidations += e->inval_misses;
		res->cold += e->cold;
		res->cross_thread += e->cross_thread;
		reuse_hist__merge(&res->time, &e->time);
		reuse_hist__merge(&res->stack, &e->stack);
	}
	res->nthreads = n;
	res->threads = *thr;
	res->access_rate = 0;
	return 0;
}

static int run_trace(struct reuse_opts *ro)
{
	struct reuse_exact_opts eo = {
		.mode = ro->cfg.shared ? REUSE_EXACT_SHARED : REUSE_EXACT_PER_THREAD,
		.gran = ro->cfg.gran,
	};
	struct reuse_thread *thr = NULL;
	struct reuse_result res;
	struct reuse_report r;
	struct reuse_exact *re;
	struct trace_access a;
	struct trace *t;
	u64 n = 0;
	double size_sum = 0;
	char err[512];
	int ret;

	if (trace__open(&t, ro->trace, err, sizeof(err)) < 0) {
		lp_err("%s", err);
		return 1;
	}
	ret = reuse_exact__new(&eo, &re);
	if (ret)
		lp_die("cannot set up the exact engine: %s", strerror(-ret));
	while ((ret = trace__next(t, &a, err, sizeof(err))) > 0) {
		ret = reuse_exact__access(re, a.tid, a.addr, a.op == TRACE_WRITE, NULL);
		if (ret) {
			snprintf(err, sizeof(err), "%s: %s", ro->trace, strerror(-ret));
			break;
		}
		size_sum += a.size ? a.size : 8;
		n++;
	}
	trace__close(t);
	if (ret < 0) {
		lp_err("%s", err);
		reuse_exact__delete(re);
		return 1;
	}
	if (exact_result(re, ro, &res, &thr))
		lp_die("out of memory");
	res.mean_access_size = n ? size_sum / (double)n : 0;
	memset(&r, 0, sizeof(r));
	r.res = &res;
	r.sampler = "exact";
	r.period_unit = "";
	r.command = ro->trace;
	r.samples = n;
	r.samples_addr = n;
	r.sync = -1;
	r.exact = 1;
	reuse_opts__caches(ro, NULL, &r);
	if (!r.ncaches) {
		struct lp_topology *topo = calloc(1, sizeof(*topo));

		if (topo && topology__read(topo, NULL) == 0)
			reuse_opts__caches(ro, topo, &r);
		free(topo);
	}
	ret = reuse_opts__output(ro, &r);
	free(thr);
	reuse_exact__delete(re);
	return ret;
}

int cmd_reuse(int argc, char **argv)
{
	static const struct option opts[] = {
		PROFILE_LONG_OPTS,
		REUSE_OWN_LONG_OPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct lp_topology *topo;
	struct reuse_report r;
	struct reuse_opts ro;
	struct profile_opts po;
	struct recorder rec;
	struct lp_symbols *syms;
	struct lp_session *s;
	struct reuse *ru;
	char pidbuf[32], name[32];
	int c, code, ret;

	profile_opts__init(&po);
	reuse_opts__init(&ro);
	while ((c = getopt_long(argc, argv, "+" PROFILE_SHORT_OPTS "h", opts, NULL)) != -1) {
		if (c == 'h')
			usage_exit(reuse_usage, 0);
		if (!profile_opts__parse(&po, c, optarg, reuse_usage) &&
		    !reuse_opts__parse(&ro, c, optarg, reuse_usage))
			usage_exit(reuse_usage, 1);
	}
	if (ro.trace) {
		if (optind < argc || po.pid > 0) {
			lp_err("--trace reads a trace: give no program and no -p");
			usage_exit(reuse_usage, 1);
		}
		return run_trace(&ro);
	}
	topo = calloc(1, sizeof(*topo));
	if (!topo)
		lp_die("out of memory");
	if (topology__read(topo, NULL) == 0 && ro.cfg.shared)
		ro.cfg.topo = topo;
	po.nslots = ro.cfg.nslots;
	/* the sampling thread's own reuse can come right away: hold it */
	s = profile__start(&po, argc - optind, argv + optind, 1, reuse_usage);
	ru = reuse__new(&ro.cfg);
	syms = symbols__new();
	if (!ru || !syms)
		lp_die("cannot set up the analysis: %s", strerror(errno));
	session__add_sink(s, profile__symbols_sink, syms);
	session__add_analysis(s, reuse__analysis(ru));
	if (po.output) {
		reuse__analysis_name(&ro.cfg, name, sizeof(name));
		recorder__open(&rec, po.output, s, argc - optind, argv + optind, name);
		session__add_sink(s, recorder__sink, &rec);
	}
	if (profile__run(s) == -ENOEXEC)
		return 127;
	profile__print_stats(s, &po);
	code = profile__exit_code(s, &po);
	if (po.output && recorder__close(&rec, po.quiet))
		code = code ? code : 128;
	reuse__finish(ru);

	memset(&r, 0, sizeof(r));
	r.res = reuse__result(ru);
	if (!r.res)
		lp_die("out of memory building the result");
	r.syms = syms;
	r.pid = session__pid(s);
	r.sampler = session__facility(s)->name;
	r.period_unit = session__facility(s)->period_unit;
	r.period = session__period(s);
	snprintf(pidbuf, sizeof(pidbuf), "pid %d", po.pid);
	r.command = po.pid > 0 ? pidbuf : profile__join_args(argc - optind, argv + optind);
	r.samples = session__stats(s)->samples;
	r.samples_addr = session__stats(s)->samples_addr;
	r.cpu_ns = session__stats(s)->cpu_ns;
	r.sync = session__is_sync(s);
	reuse_opts__caches(&ro, topo, &r);
	ret = reuse_opts__output(&ro, &r);
	reuse__delete(ru);
	symbols__delete(syms);
	session__delete(s);
	free(topo);
	return code ? code : ret;
}
