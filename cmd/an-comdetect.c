// SPDX-License-Identifier: GPL-2.0
/*
 * The comdetect analysis descriptor (cmd/analyses.h): communication
 * matrices split into true and false sharing. The analysis is
 * core/comdetect.c, the printers cmd/comdetect-report.c.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/analyses.h"
#include "cmd/comdetect-report.h"
#include "core/comdetect.h"

struct an_comdetect {
	struct comdetect_config cfg;
	struct comdetect *cd;
	struct comdetect_report r;
};

static void cd_init(void *opts)
{
	struct an_comdetect *a = opts;

	memset(a, 0, sizeof(*a));
	comdetect__config_init(&a->cfg);
}

static int cd_nslots(const void *opts)
{
	return ((const struct an_comdetect *)opts)->cfg.nslots;
}

static struct lp_analysis *cd_new(void *opts, const struct lp_run *run)
{
	struct an_comdetect *a = opts;

	(void)run;
	a->cd = comdetect__new(&a->cfg);
	return a->cd ? comdetect__analysis(a->cd) : NULL;
}

static int cd_result(void *opts, const struct lp_run *run)
{
	struct an_comdetect *a = opts;

	(void)run;
	a->r.res = comdetect__result(a->cd);
	a->r.cd = a->cd;
	return a->r.res ? 0 : -ENOMEM;
}

static const void *cd_view(void *opts, const struct lp_run *run, const struct lp_output *out)
{
	struct an_comdetect *a = opts;

	a->r.run = *run;
	a->r.out = *out;
	return &a->r;
}

static void cd_delete(void *opts)
{
	struct an_comdetect *a = opts;

	comdetect__delete(a->cd);
	a->cd = NULL;
}

#define CD(f) offsetof(struct an_comdetect, cfg.f)
static const struct lp_opt cd_opts[] = {
	{ "board", 'b', "N", "bulletin-board entries (default and 0: 127 per lane)", LP_OPT_INT, CD(board_size),
	  0, 1 << 20, .flags = LP_OPT_CFG },
	{ "debug-registers", 'd', "N", "watchpoints a thread arms per line (1-4, default 4)",
	  LP_OPT_INT, CD(max_dr), 1, 4, .flags = LP_OPT_CFG },
	{ "lanes", 0, "N", "sample lanes: each sample looks up and publishes in one at random (1-16, default 4)",
	  LP_OPT_INT, CD(lanes), 1, COMDETECT_MAX_LANES, .flags = LP_OPT_CFG },
	{ "count-apart", 0, NULL, "count lookups between threads that did not run together (a time slice apart), and those across a resumption in full",
	  LP_OPT_FLAG, CD(count_apart), .flags = LP_OPT_CFG },
	{ "seed", 0, "N", "seed of the random lane and chunk choice (default 0)", LP_OPT_U64, CD(seed),
	  .flags = LP_OPT_CFG },
	{ NULL },
};

const struct lp_analysis_desc comdetect_desc = {
	.name = "comdetect",
	.summary = "Show which threads communicate through which cache lines",
	.head = "usage: lociprof comdetect [options] [--] <program> [<args>]\n"
		"\n"
		"Run a program (or attach with -p) and show which threads communicate\n"
		"through which cache lines: thread and core matrices split into true and\n"
		"false sharing, the top lines with the byte ranges each thread touches, the\n"
		"source lines behind them and the data objects.\n"
		"\n",
	.top_help = "cache lines to show (default 5)",
	.svg_help = "write the matrices as SVG heat maps",
	.default_top = 5,
	.default_sync = 0,
	.opts = cd_opts,
	.opts_size = sizeof(struct an_comdetect),
	.opts_init = cd_init,
	.nslots = cd_nslots,
	.new = cd_new,
	.result = cd_result,
	.view = cd_view,
	.delete = cd_delete,
	.print = comdetect_report__print,
	.json = comdetect_report__json,
	.csv = comdetect_report__csv,
	.svg = comdetect_report__svg,
};
