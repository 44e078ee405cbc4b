/* SPDX-License-Identifier: GPL-2.0 */
/* Printing a comdetect result: terminal, JSON, CSV, SVG. No analysis here. */
#ifndef LP_COMDETECT_REPORT_H
#define LP_COMDETECT_REPORT_H
#include <stdio.h>

#include "cmd/analyses.h"
#include "core/comdetect.h"
#include "core/symbols.h"

struct comdetect_report {
	const struct comdetect_result *res;
	struct comdetect *cd;
	struct lp_run run;		/* what every report says about the run */
	struct lp_output out;		/* top lines to show, ANSI heat map */
	const char *volume_unit;	/* NULL: the sampler's (detections x period) */
};

struct json_writer;

/* The printers of the comdetect descriptor: @view is a struct comdetect_report. */
void comdetect_report__print(const void *view, FILE *f);
int comdetect_report__json(const void *view, const char *path);
int comdetect_report__csv(const void *view, const char *dir);
int comdetect_report__svg(const void *view, const char *dir);

/*
 * The comdetect JSON with "command": @command, and @extra(w, @arg) adding
 * keys at the end of the top object (NULL: none): `lociprof coherence`
 * writes comdetect's schema so that `lociprof compare` scores one against
 * the other.
 */
int comdetect_report__json_as(const struct comdetect_report *r, const char *command,
			      void (*extra)(struct json_writer *w, const void *arg),
			      const void *arg, const char *path);

/*
 * A thread or core matrix as text: whole, the rows that communicate, or the
 * top pairs; cells in % of @total, which the title calls "% of @of".
 */
void comdetect_report__matrix(const struct comdetect_report *r, FILE *f, const char *title,
			      const char *of, const double *m, int n, const char *label,
			      double total);

#endif
