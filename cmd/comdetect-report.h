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
};

/* The printers of the comdetect descriptor: @view is a struct comdetect_report. */
void comdetect_report__print(const void *view, FILE *f);
int comdetect_report__json(const void *view, const char *path);
int comdetect_report__csv(const void *view, const char *dir);
int comdetect_report__svg(const void *view, const char *dir);

#endif
