/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Printing a coherence (MESI simulator) result: text, and JSON in
 * comdetect's schema (plus the simulator's own keys), so that `lociprof
 * compare` scores comdetect against it. No simulation here.
 */
#ifndef LP_COHERENCE_REPORT_H
#define LP_COHERENCE_REPORT_H
#include <stdio.h>

#include "cmd/comdetect-report.h"
#include "core/coherence.h"

struct coherence_report {
	const struct coherence_result *res;
	const char *trace;		/* the trace file, for titles */
	const char *cache;		/* the private caches, in words */
	u32 line_size;
	/* the same counts as a comdetect result: the shared printers' input */
	struct comdetect_result cd;
	struct comdetect_report view;
	double *mat;			/* all, true, false, invalidations: n x n each */
	struct comdetect_line *lines;
	u64 *accesses;			/* per thread */
};

/* Builds the comdetect form of @res; 0 or -ENOMEM. */
int coherence_report__init(struct coherence_report *r, const struct coherence_result *res,
			   const struct lp_output *out);
void coherence_report__exit(struct coherence_report *r);

void coherence_report__print(const struct coherence_report *r, FILE *f);
int coherence_report__json(const struct coherence_report *r, const char *path);

#endif
