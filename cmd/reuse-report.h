/* SPDX-License-Identifier: GPL-2.0 */
/* Printing a reuse result: terminal, JSON, SVG. No analysis here. */
#ifndef LP_REUSE_REPORT_H
#define LP_REUSE_REPORT_H
#include <stdio.h>

#include "cmd/analyses.h"
#include "cmd/reuse-predict-report.h"
#include "core/reuse.h"
#include "core/reuse-exact-objects.h"
#include "core/reuse-exact-pairs.h"
#include "core/reuse-mrc.h"
#include "core/sdcm.h"
#include "core/symbols.h"
#include "core/topology.h"

#define REUSE_MAX_CACHES 8

struct reuse_report {
	const struct reuse_result *res;
	struct lp_run run;		/* sampler "exact", command the path: --trace */
	int exact;			/* from a full trace: no watchpoints */
	double sample_rate;		/* exact: < 1 for a SHARDS estimate */
	int lackey;			/* exact: valgrind lackey's trace */
	u64 sampled;			/* SHARDS: accesses of the sampled lines */
	u64 keys_sampled;		/* SHARDS: distinct lines (addresses) sampled */
	double keys_est;		/* SHARDS: of these many, estimated */
	int hot_on;			/* SHARDS with hot keys (--hot-keys) */
	u64 hot_keys, hot_accesses;	/* lines found hot, their accesses tracked */
	u64 hot_first, hot_last;	/* accesses seen when the first, last turned hot */
	const struct reuse_mrc *mrc;	/* exact, line granularity: the fine curve */
	struct lp_output out;		/* top pairs to show, colours */
	const struct sdcm_cache *caches;
	int ncaches;
	const char *cache_source;	/* "sysfs", "--cache", or NULL: none */
	const struct reuse_predict_report *predict;	/* --predict-threads, or NULL */
	/* exact pairs: each one's distances (beside res->pairs), or NULL */
	const struct reuse_xpair_dist *pair_dist;
	int pair_nlimit;		/* its beyond[j]: caches[j]'s lines, j < this */
	int pairs_by;			/* exact pairs ranked by beyond[this - 1] (--pairs-by); 0: by reuses */
	/* --exact: every key's counts, for the objects (NULL: none kept) */
	const struct reuse_xobjs *xobjs;
	int xobj_ncaches;		/* their beyond[j]: caches[j], j < this (line granularity) */
};

/* The printers of the reuse descriptor: @view is a struct reuse_report. */
void reuse_report__print(const void *view, FILE *f);
int reuse_report__json(const void *view, const char *path);
int reuse_report__svg(const void *view, const char *dir);

#endif
