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

/* The printers' view: the run's header and the result. */
static int cd_result(void *opts, const struct lp_run *run)
{
	struct an_comdetect *a = opts;
	struct comdetect_report *r = &a->r;

	memset(r, 0, sizeof(*r));
	r->res = comdetect__result(a->cd);
	if (!r->res)
		return -ENOMEM;
	r->cd = a->cd;
	r->syms = run->syms;
	r->pid = run->pid;
	r->sampler = run->sampler;
	r->period_unit = run->period_unit;
	r->period = run->period;
	r->command = run->command;
	r->samples = run->samples;
	r->samples_addr = run->samples_addr;
	r->cpu_ns = run->cpu_ns;
	return 0;
}

static void cd_delete(void *opts)
{
	struct an_comdetect *a = opts;

	comdetect__delete(a->cd);
	a->cd = NULL;
}

static struct comdetect_report *cd_report(void *opts, const struct lp_output *out)
{
	struct an_comdetect *a = opts;

	a->r.top = out->top;
	a->r.color = out->color;
	return &a->r;
}

static void cd_print(void *opts, const struct lp_run *run, const struct lp_output *out, FILE *f)
{
	(void)run;
	comdetect_report__print(cd_report(opts, out), f);
}

static int cd_json(void *opts, const struct lp_run *run, const struct lp_output *out, const char *path)
{
	(void)run;
	return comdetect_report__json(cd_report(opts, out), path);
}

static int cd_csv(void *opts, const struct lp_run *run, const struct lp_output *out, const char *dir)
{
	(void)run;
	return comdetect_report__csv(cd_report(opts, out), dir);
}

static int cd_svg(void *opts, const struct lp_run *run, const struct lp_output *out, const char *dir)
{
	(void)run;
	return comdetect_report__svg(cd_report(opts, out), dir);
}

#define CD(f) offsetof(struct an_comdetect, cfg.f)
static const struct lp_opt cd_opts[] = {
	{ "board", 'b', "N", "bulletin-board entries (default 127)", LP_OPT_INT, CD(board_size),
	  1, 1 << 20, .flags = LP_OPT_CFG },
	{ "debug-registers", 'd', "N", "watchpoints a thread arms per line (1-4, default 4)",
	  LP_OPT_INT, CD(max_dr), 1, 4, .flags = LP_OPT_CFG },
	{ "seed", 0, "N", "seed of the random chunk choice (default 0)", LP_OPT_U64, CD(seed),
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
	.delete = cd_delete,
	.print = cd_print,
	.json = cd_json,
	.csv = cd_csv,
	.svg = cd_svg,
};
