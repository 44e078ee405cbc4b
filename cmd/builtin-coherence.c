// SPDX-License-Identifier: GPL-2.0
/*
 * lociprof coherence: simulate MESI caches over a multithreaded trace and
 * print the communication comdetect would ideally find, in its views and
 * JSON schema. The simulator is core/coherence.c, the printers
 * cmd/coherence-report.c.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/builtin.h"
#include "cmd/coherence-report.h"
#include "core/coherence.h"
#include "core/sdcm.h"
#include "core/topology.h"
#include "core/trace.h"

const char coherence_usage[] =
	"usage: lociprof coherence --trace FILE [options]\n"
	"\n"
	"Simulate MESI coherence over a multithreaded memory trace (lociprof-trace(5),\n"
	"e.g. from a microbenchmark's --trace): a private cache per thread, a\n"
	"directory per line. Counts coherence misses per thread pair, per cache line\n"
	"and per reference (thread, access, address), invalidations caused, and true\n"
	"vs false sharing by the bytes involved; prints comdetect's views, and with\n"
	"--json its schema, so that 'lociprof compare' scores comdetect against it.\n"
	"\n"
	"    --trace FILE      the trace ('-': standard input; zstd is recognized)\n"
	"    --cache C         set-associative private caches: L1, L2 or L3 of this\n"
	"                      machine (as 'lociprof list' shows), or NAME=SIZE:WAYS[:LINE]\n"
	"    --lines N         fully associative private caches of N lines, LRU\n"
	"                      (default: unbounded, so only cold and coherence misses)\n"
	"    --line-size N     bytes per line: 16, 32 or 64 (default 64, or --cache's)\n"
	"    --top N           cache lines and references to show (default 5)\n"
	"    --json FILE       write the result as JSON ('-': stdout only)\n"
	"    --csv DIR         write the thread matrices as CSV files\n"
	"    --stdio           plain text, no colours\n"
	"    -h, --help        show this help\n";

enum { O_TRACE = 1000, O_CACHE, O_LINES, O_LINE_SIZE, O_TOP, O_JSON, O_CSV, O_STDIO };

/* --cache: a level of this machine's caches, or a spec. Dies on a bad one. */
static void parse_cache(const char *arg, struct coherence_config *cfg, char *words, size_t len)
{
	struct sdcm_cache sc;
	struct lp_topology *topo;
	char err[256];
	int n, lvl;

	if ((arg[0] == 'L' || arg[0] == 'l') && arg[1] >= '1' && arg[1] <= '9' && !arg[2]) {
		const struct lp_cache *c = NULL;

		lvl = arg[1] - '0';
		topo = calloc(1, sizeof(*topo));
		if (topo && topology__read(topo, NULL) == 0)
			c = topology__cache_of(topo, lvl, lp_cpuset__first(&topo->caches[0].cpus));
		if (!c || !c->size || c->ways <= 0 || !c->line_size)
			lp_die("--cache %s: this machine reports no such data cache (see 'lociprof list')",
			       arg);
		sc = (struct sdcm_cache){ .size = c->size, .ways = (u32)c->ways,
					  .line = (u32)c->line_size };
		snprintf(sc.name, sizeof(sc.name), "L%d", lvl);
		free(topo);
	} else if (sdcm__parse(arg, &sc, 1, &n, err, sizeof(err)) || n != 1) {
		lp_err("--cache '%s': %s (expected L1, L2, L3 or NAME=SIZE:WAYS[:LINE])", arg,
		       n != 1 ? "one cache only" : err);
		usage_exit(coherence_usage, 1);
	}
	cfg->line_size = sc.line;
	cfg->ways = sc.ways;
	cfg->sets = (u32)(sc.size / ((u64)sc.line * sc.ways));
	if (!cfg->sets || (u64)cfg->sets * sc.line * sc.ways != sc.size)
		lp_die("--cache '%s': %llu bytes are not whole sets of %u ways x %u bytes", arg,
		       (unsigned long long)sc.size, sc.ways, sc.line);
	snprintf(words, len, "%s, %llu KiB: %u sets x %u ways, LRU", sc.name,
		 (unsigned long long)(sc.size >> 10), cfg->sets, cfg->ways);
}

int cmd_coherence(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "trace", required_argument, NULL, O_TRACE },
		{ "cache", required_argument, NULL, O_CACHE },
		{ "lines", required_argument, NULL, O_LINES },
		{ "line-size", required_argument, NULL, O_LINE_SIZE },
		{ "top", required_argument, NULL, O_TOP },
		{ "json", required_argument, NULL, O_JSON },
		{ "csv", required_argument, NULL, O_CSV },
		{ "stdio", no_argument, NULL, O_STDIO },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct coherence_config cfg = { 0 };
	struct coherence_report rep = { 0 };
	const struct coherence_result *res;
	struct lp_output out = { .top = 5, .color = isatty(STDOUT_FILENO) };
	const char *trace = NULL;
	char cache[160] = "unbounded (a line once fetched stays: only cold and coherence misses)";
	char err[512];
	struct trace_access ac;
	struct coherence *c;
	struct trace *t;
	unsigned long long v;
	int o, ret, line_size = 0, code = 0;

	while ((o = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (o) {
		case O_TRACE: trace = optarg; break;
		case O_CACHE: parse_cache(optarg, &cfg, cache, sizeof(cache)); break;
		case O_LINES:
			v = parse_ull_opt("--lines", optarg);
			if (!v || v > (1u << 26)) {
				lp_err("--lines expects 1..%u, not '%s'", 1u << 26, optarg);
				usage_exit(coherence_usage, 1);
			}
			cfg.sets = 1;
			cfg.ways = (u32)v;
			snprintf(cache, sizeof(cache), "fully associative, %llu lines, LRU", v);
			break;
		case O_LINE_SIZE:
			line_size = (int)parse_ull_opt("--line-size", optarg);
			if (line_size != 16 && line_size != 32 && line_size != 64) {
				lp_err("--line-size expects 16, 32 or 64, not '%s'", optarg);
				usage_exit(coherence_usage, 1);
			}
			break;
		case O_TOP: out.top = (int)parse_ull_opt("--top", optarg); break;
		case O_JSON: out.json = optarg; break;
		case O_CSV: out.csv = optarg; break;
		case O_STDIO: out.color = 0; break;
		case 'h': usage_exit(coherence_usage, 0);
		default: usage_exit(coherence_usage, 1);
		}
	}
	if (optind < argc || !trace) {
		lp_err(trace ? "unexpected argument '%s'" : "--trace FILE is required",
		       trace ? argv[optind] : "");
		usage_exit(coherence_usage, 1);
	}
	if (line_size)
		cfg.line_size = (u32)line_size;
	ret = coherence__new(&c, &cfg);
	if (ret)
		lp_die("cannot set up the simulator: %s (line size %u)", strerror(-ret), cfg.line_size);
	if (trace__open(&t, trace, err, sizeof(err)) < 0) {
		lp_err("%s", err);
		coherence__delete(c);
		return 1;
	}
	while ((ret = trace__next(t, &ac, err, sizeof(err))) > 0) {
		ret = coherence__access(c, ac.tid, ac.op == TRACE_WRITE, ac.addr, ac.size);
		if (ret) {
			snprintf(err, sizeof(err), "%s: %s%s", trace, strerror(-ret),
				 ret == -E2BIG ? " (the simulator holds at most 64 threads)" : "");
			break;
		}
	}
	trace__close(t);
	if (ret < 0) {
		lp_err("%s", err);
		coherence__delete(c);
		return 1;
	}
	rep.trace = trace;
	rep.cache = cache;
	rep.line_size = cfg.line_size ? cfg.line_size : 64;
	if (coherence__result(c, &res) || coherence_report__init(&rep, res, &out))
		lp_die("out of memory");
	if (!out.json || strcmp(out.json, "-"))
		coherence_report__print(&rep, stdout);
	if (out.json && (ret = coherence_report__json(&rep, out.json))) {
		lp_err("cannot write '%s': %s", out.json, strerror(-ret));
		code = 128;
	}
	if (out.csv && (ret = comdetect_report__csv(&rep.view, out.csv))) {
		lp_err("cannot write CSV files to '%s': %s", out.csv, strerror(-ret));
		code = 128;
	}
	coherence_report__exit(&rep);
	coherence__delete(c);
	return code;
}
