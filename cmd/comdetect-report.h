/* SPDX-License-Identifier: GPL-2.0 */
/* Printing a comdetect result: terminal, JSON, CSV, SVG. No analysis here. */
#ifndef LP_COMDETECT_REPORT_H
#define LP_COMDETECT_REPORT_H
#include <getopt.h>
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

/* Options shared by comdetect and report. */
struct comdetect_opts {
	struct comdetect_config cfg;
	int top, color;
	const char *json, *csv, *svg;
};

#define COMDETECT_SHORT_OPTS "b:d:"
#define COMDETECT_LONG_OPTS                                    \
	{ "board", required_argument, NULL, 'b' },              \
	{ "debug-registers", required_argument, NULL, 'd' },    \
	{ "seed", required_argument, NULL, 0x300 },             \
	{ "top", required_argument, NULL, 0x301 },              \
	{ "json", required_argument, NULL, 0x302 },             \
	{ "csv", required_argument, NULL, 0x303 },              \
	{ "svg", required_argument, NULL, 0x304 },              \
	{ "stdio", no_argument, NULL, 0x305 }

#define COMDETECT_OPTS_USAGE                                                        \
	"    -b, --board N         bulletin-board entries (default 127)\n"            \
	"    -d, --debug-registers N  watchpoints a thread arms per line (1-4, default 4)\n" \
	"        --seed N          seed of the random chunk choice (default 0)\n"     \
	"        --top N           cache lines to show (default 5)\n"                 \
	"        --json FILE       write the result as JSON ('-': stdout only)\n"     \
	"        --csv DIR         write the matrices as CSV files\n"                 \
	"        --svg DIR         write the matrices as SVG heat maps\n"             \
	"        --stdio           plain text, no colours\n"

void comdetect_opts__init(struct comdetect_opts *co);
/* 1 if @c was a comdetect option; dies on a bad value. */
int comdetect_opts__parse(struct comdetect_opts *co, int c, const char *arg,
			  const char *usage);
/* Print and write everything asked for; returns an exit code (0 or 128). */
int comdetect_opts__output(struct comdetect_opts *co, struct comdetect *cd,
			   struct comdetect_report *r);

void comdetect_report__print(const struct comdetect_report *r, FILE *f);
int comdetect_report__json(const struct comdetect_report *r, const char *path);
int comdetect_report__csv(const struct comdetect_report *r, const char *dir);
int comdetect_report__svg(const struct comdetect_report *r, const char *dir);

#endif
