/* SPDX-License-Identifier: GPL-2.0 */
/* Printing a reuse result: terminal, JSON, SVG. No analysis here. */
#ifndef LP_REUSE_REPORT_H
#define LP_REUSE_REPORT_H
#include <getopt.h>
#include <stdio.h>

#include "core/reuse.h"
#include "core/sdcm.h"
#include "core/symbols.h"
#include "core/topology.h"

#define REUSE_MAX_CACHES 8

struct reuse_report {
	const struct reuse_result *res;
	struct lp_symbols *syms;	/* may be NULL */
	u32 pid;
	const char *sampler;		/* facility name, or "exact" for --trace */
	const char *period_unit;	/* "ns", "events" or "" */
	u64 period;
	const char *command;		/* profiled command or trace path */
	u64 samples, samples_addr;
	u64 cpu_ns;
	int sync;			/* 1 sync, 0 async, -1 n/a */
	int exact;			/* from a full trace: nothing estimated */
	int top;
	int color;
	const struct sdcm_cache *caches;
	int ncaches;
	const char *cache_source;	/* "sysfs", "--cache", or NULL: none */
};

/* Options shared by reuse and report. */
struct reuse_opts {
	struct reuse_config cfg;
	int top, color;
	const char *json, *svg;
	const char *cache_spec;		/* --cache */
	struct sdcm_cache caches[REUSE_MAX_CACHES];
	int ncaches;
	const char *trace;		/* --trace */
};

#define REUSE_LONG_OPTS                                            \
	{ "shared-cache", no_argument, NULL, 0x400 },               \
	{ "granularity", required_argument, NULL, 0x401 },          \
	{ "cache", required_argument, NULL, 0x402 },                \
	{ "access-rate", required_argument, NULL, 0x403 },          \
	{ "trace", required_argument, NULL, 0x404 },                \
	{ "slots", required_argument, NULL, 0x405 },                \
	{ "global-rate", no_argument, NULL, 0x406 },               \
	{ "window", required_argument, NULL, 0x407 },               \
	{ "no-chain", no_argument, NULL, 0x408 }

/* options reuse and comdetect share in report are parsed by comdetect */
#define REUSE_OWN_LONG_OPTS                                        \
	REUSE_LONG_OPTS,                                            \
	{ "seed", required_argument, NULL, 0x300 },                 \
	{ "top", required_argument, NULL, 0x301 },                  \
	{ "json", required_argument, NULL, 0x302 },                 \
	{ "svg", required_argument, NULL, 0x304 },                  \
	{ "stdio", no_argument, NULL, 0x305 }

#define REUSE_OPTS_USAGE                                                            \
	"        --shared-cache    reuse in the last-level cache shared by threads\n"  \
	"                          (default: each thread's private caches)\n"          \
	"        --granularity G   address (default) or line: unit of the distances\n" \
	"        --cache SPEC      model these caches, e.g. L1=48K:12,L2=2M:16\n"       \
	"                          (default: this machine's, from sysfs)\n"             \
	"        --access-rate N   memory accesses per ns of thread CPU time, to turn\n" \
	"                          reuse times into accesses (default: estimated)\n"    \
	"        --global-rate     one estimated rate for every reuse (default: each\n"  \
	"                          reuse's local rate where its interval has one)\n"     \
	"        --no-chain        time every reuse by thread CPU time x rate (default:\n" \
	"                          count along the thread's samples in between)\n"     \
	"        --window N        reuses per footprint conversion window (default 8;\n" \
	"                          0: the whole run at once)\n"                       \
	"        --slots N         watchpoint slots (debug registers) used, 1-4\n"      \
	"        --seed N          seed of the reservoir sampling\n"                    \
	"        --top N           use->reuse pairs to show (default 10)\n"             \
	"        --json FILE       write the result as JSON ('-': stdout only)\n"       \
	"        --svg DIR         write histograms and the miss-ratio curve as SVG\n"  \
	"        --stdio           plain text, no colours\n"

void reuse_opts__init(struct reuse_opts *ro);
/* 1 if @c was a reuse option; dies on a bad value. */
int reuse_opts__parse(struct reuse_opts *ro, int c, const char *arg,
		      const char *usage);
/* Caches to model: --cache, else @topo's (may be NULL); fills @r. */
void reuse_opts__caches(struct reuse_opts *ro, const struct lp_topology *topo,
			struct reuse_report *r);
/* Print and write everything asked for; returns an exit code (0 or 128). */
int reuse_opts__output(struct reuse_opts *ro, struct reuse_report *r);

/* The "analysis" header field of a recording made with @cfg, and back. */
void reuse__analysis_name(const struct reuse_config *cfg, char *buf, size_t len);
int reuse__analysis_parse(const char *name, struct reuse_config *cfg);

void reuse_report__print(const struct reuse_report *r, FILE *f);
int reuse_report__json(const struct reuse_report *r, const char *path);
int reuse_report__svg(const struct reuse_report *r, const char *dir);

#endif
