// SPDX-License-Identifier: GPL-2.0
/*
 * lociprof report: replay a data file through the analysis that recorded
 * it, with the settings it recorded, and print that analysis's report as
 * the live command did. A shell over the analysis descriptors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/analyses.h"
#include "cmd/builtin.h"
#include "core/datafile.h"
#include "core/session.h"
#include "cmd/profile.h"
#include "core/symbols.h"

#define MAX_AN	8
#define MAX_RPT	32

static const char report_head[] =
	"usage: lociprof report [-i FILE] [options]\n"
	"\n"
	"Replay a data file saved with -o (or by lociprof record) through the\n"
	"analysis that recorded it, with the settings it recorded (a file of\n"
	"lociprof record replays through comdetect), and print its report, as the\n"
	"live command did.\n"
	"\n";

struct report_opts {
	const char *input;
};

static const struct lp_opt report_opts[] = {
	{ "input", 'i', "FILE", "data file (default lociprof.data)", LP_OPT_STR, 0 },
	{ NULL },
};

struct report_groups {
	struct lp_optgroup g[2 + MAX_AN];
	struct lp_opt out[8];
	struct lp_opt rpt[MAX_AN][MAX_RPT];
	char title[MAX_AN][64];
	int n;
};

/* -i, the output options, and each analysis's replay options as its own group. */
static void report_groups(struct report_groups *rg, struct report_opts *ro, struct lp_output *out,
			  void **obj)
{
	int i, j, k;

	rg->g[0] = (struct lp_optgroup){ .opts = report_opts, .obj = ro };
	rg->g[1] = (struct lp_optgroup){ .opts = analysis__output_opts(
		"lines or pairs to show (default: the analysis's)", 1,
		"write SVG pictures (heat maps, histograms)", rg->out),
					 .obj = out };
	rg->n = 2;
	for (i = 0; lp_analyses[i] && i < MAX_AN; i++) {
		const struct lp_analysis_desc *d = lp_analyses[i];

		for (j = k = 0; d->opts[j].name && k < MAX_RPT - 1; j++)
			if (d->opts[j].flags & LP_OPT_RPT)
				rg->rpt[i][k++] = d->opts[j];
		rg->rpt[i][k] = (struct lp_opt){ NULL };
		if (!k)
			continue;
		snprintf(rg->title[i], sizeof(rg->title[i]), "%s recordings also take:", d->name);
		rg->g[rg->n++] = (struct lp_optgroup){ .opts = rg->rpt[i], .obj = obj ? obj[i] : NULL,
						       .title = rg->title[i], .owner = d->name };
	}
}

void report_usage(FILE *f)
{
	struct report_groups rg;
	struct report_opts ro;
	struct lp_output out;

	report_groups(&rg, &ro, &out, NULL);
	lp_opts__usage(f, rg.g, rg.n, report_head, NULL);
}

/* The recorded analysis and its settings; 0, or an exit code after saying why. */
static int load_settings(const struct lp_data_header *h, const char *input,
			 const struct lp_analysis_desc **dp, void *opts[])
{
	const struct lp_analysis_desc *d = lp_analyses[0];
	char name[sizeof(h->analysis)];
	const char *suffix;
	int i;

	snprintf(name, sizeof(name), "%s", h->analysis);
	name[strcspn(name, ",")] = '\0';
	suffix = h->analysis + strlen(name);
	for (i = 0; name[0] && lp_analyses[i]; i++)
		if (!strcmp(lp_analyses[i]->name, name))
			break;
	if (name[0] && !lp_analyses[i]) {
		lp_err("'%s' was recorded by analysis '%s', which this lociprof does not have",
		       input, h->analysis);
		return 1;
	}
	if (name[0])
		d = lp_analyses[i];
	else
		i = 0;
	*dp = d;
	if (*suffix && (!d->legacy || d->legacy(opts[i], suffix))) {
		lp_err("'%s': cannot read the recorded settings '%s'", input, h->analysis);
		return 1;
	}
	if (analysis__decode(d, opts[i], h->config)) {
		lp_err("'%s': its recorded settings '%s' do not apply", input, h->config);
		return 1;
	}
	return 0;
}

/* The input file named on the command line, before the settings are known. */
static const char *find_input(int argc, char **argv)
{
	struct report_groups rg;
	struct report_opts ro = { "lociprof.data" };
	struct lp_output out;
	void *scratch[MAX_AN];
	int i;

	for (i = 0; lp_analyses[i]; i++) {
		scratch[i] = calloc(1, lp_analyses[i]->opts_size);
		if (!scratch[i])
			lp_die("out of memory");
		lp_analyses[i]->opts_init(scratch[i]);
	}
	analysis__output_init(&out);
	report_groups(&rg, &ro, &out, scratch);
	if (lp_opts__parse(argc, argv, rg.g, rg.n, report_head, NULL) < argc) {
		lp_err("report takes no program: it replays a data file");
		lp_opts__usage_exit(rg.g, rg.n, report_head, NULL, 1);
	}
	for (i = 0; lp_analyses[i]; i++)
		free(scratch[i]);	/* lp_analyses' opts own nothing yet */
	return ro.input;
}

int cmd_report(int argc, char **argv)
{
	const struct lp_analysis_desc *d;
	struct lp_data_header *h;
	struct report_groups rg;
	struct report_opts ro;
	struct lp_output out;
	struct lp_analysis *an;
	struct lp_datafile *f;
	struct lp_session *s;
	struct lp_run run;
	void *opts[MAX_AN] = { 0 };
	const char *args[64];
	char *cmdline;
	size_t len = 1;
	int i, n, ret, code = 0;

	ro.input = find_input(argc, argv);
	h = calloc(1, sizeof(*h));
	if (!h)
		lp_die("out of memory");
	ret = datafile__open(&f, ro.input, h);
	if (ret) {
		lp_err("cannot read '%s': %s", ro.input, datafile__strerror(ret));
		free(h);
		return 1;
	}
	for (i = 0; lp_analyses[i]; i++) {
		opts[i] = calloc(1, lp_analyses[i]->opts_size);
		if (!opts[i])
			lp_die("out of memory");
		lp_analyses[i]->opts_init(opts[i]);
	}
	if ((code = load_settings(h, ro.input, &d, opts)))
		goto out;
	/* the command line overrides what was recorded, for this analysis only */
	analysis__output_init(&out);
	report_groups(&rg, &ro, &out, opts);
	for (i = 2; i < rg.n; i++)
		rg.g[i].off = strcmp(rg.g[i].owner, d->name) != 0;
	lp_opts__parse(argc, argv, rg.g, rg.n, report_head, NULL);
	if ((out.csv && !d->csv) || (out.svg && !d->svg)) {
		lp_err("%s results have no %s output", d->name, out.csv ? "--csv" : "--svg");
		code = 129;
		goto out;
	}
	for (i = 0; lp_analyses[i] != d; i++)
		;
	ret = session__new_replay(&s, f, h);
	if (ret) {
		lp_err("cannot replay '%s': it was recorded with sampler '%s', unknown to this lociprof",
		       ro.input, h->facility);
		code = 1;
		goto out;
	}
	memset(&run, 0, sizeof(run));
	run.topo = &h->topo;
	run.traps_dead = !!(h->sampling_flags & LP_DATA_SAMPLING_NO_TRAPS);
	run.syms = symbols__new();
	an = d->new(opts[i], &run);
	if (!an || !run.syms)
		lp_die("cannot set up the analysis: %s", strerror(errno));
	session__add_sink(s, profile__symbols_sink, run.syms);
	session__add_analysis(s, an);
	ret = session__replay(s);
	if (ret < 0) {
		lp_err("'%s': %s after %llu events; reporting what was read", ro.input,
		       datafile__strerror(ret), (unsigned long long)datafile__nr_events(f));
		code = 1;
	}
	n = datafile__get_argv(h, args, ARRAY_SIZE(args));
	for (i = 0; i < n; i++)
		len += strlen(args[i]) + 1;
	cmdline = calloc(1, len);
	if (!cmdline)
		lp_die("out of memory");
	for (i = 0; i < n; i++)
		snprintf(cmdline + strlen(cmdline), len - strlen(cmdline), "%s%s", i ? " " : "", args[i]);
	analysis__run_info(&run, s, cmdline);
	for (i = 0; lp_analyses[i] != d; i++)
		;
	ret = analysis__output(d, opts[i], &run, &out);
	code = code ? code : ret;
	d->delete(opts[i]);
	symbols__delete(run.syms);
	session__delete(s);
	free(cmdline);
out:
	for (i = 0; lp_analyses[i]; i++)
		free(opts[i]);
	datafile__close(f);
	free(h);
	return code;
}
