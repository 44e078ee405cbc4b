/* SPDX-License-Identifier: GPL-2.0 */
/* Printing a comdetect result: terminal, JSON, CSV, SVG. No analysis here. */
#ifndef LP_COMDETECT_REPORT_H
#define LP_COMDETECT_REPORT_H
#include <stdio.h>

#include "core/comdetect.h"
#include "core/symbols.h"

struct comdetect_report {
	const struct comdetect_result *res;
	struct comdetect *cd;
	struct lp_symbols *syms;	/* may be NULL */
	u32 pid;			/* process the addresses belong to */
	const char *sampler;		/* facility name */
	const char *period_unit;	/* "ns" or "events" */
	u64 period;
	const char *command;		/* the profiled command line, for titles */
	u64 samples, samples_addr;	/* from the session or the file */
	u64 cpu_ns;			/* CPU time of the profiled threads */
	int top;			/* top lines to show */
	int color;			/* ANSI heat map */
};

void comdetect_report__print(const struct comdetect_report *r, FILE *f);
int comdetect_report__json(const struct comdetect_report *r, const char *path);
int comdetect_report__csv(const struct comdetect_report *r, const char *dir);
int comdetect_report__svg(const struct comdetect_report *r, const char *dir);

#endif
