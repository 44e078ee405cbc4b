/* SPDX-License-Identifier: GPL-2.0 */
/* Printing a reuse result: terminal, JSON, SVG. No analysis here. */
#ifndef LP_REUSE_REPORT_H
#define LP_REUSE_REPORT_H
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

void reuse_report__print(const struct reuse_report *r, FILE *f);
int reuse_report__json(const struct reuse_report *r, const char *path);
int reuse_report__svg(const struct reuse_report *r, const char *dir);

#endif
