// SPDX-License-Identifier: GPL-2.0
/*
 * lociprof report: replay a data file through an analysis, exactly as the
 * live run fed it, and print the analysis's report.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "cmd/comdetect-report.h"
#include "core/comdetect.h"
#include "core/datafile.h"
#include "core/symbols.h"

const char report_usage[] =
	"usage: lociprof report [-i FILE] [options]\n"
	"\n"
	"Replay a data file saved with -o (or by lociprof record) through the\n"
	"comdetect analysis and print its report, as the live command would.\n"
	"\n"
	"    -i, --input FILE      data file (default lociprof.data)\n"
	COMDETECT_OPTS_USAGE
	"    -h, --help            show this help\n";

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		COMDETECT_LONG_OPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *input = "lociprof.data";
	struct comdetect_opts co;
	struct comdetect_report r;
	struct lp_data_header *h;
	struct lp_actions acts = { 0 };
	struct lp_analysis *an;
	struct lp_symbols *syms;
	struct lp_datafile *f;
	struct comdetect *cd;
	struct lp_event ev;
	char cmdline[1024] = "";
	const char *args[64];
	u64 samples = 0, samples_addr = 0, cpu_ns = 0;
	u32 pid = 0;
	int c, ret, i, n, code = 0;

	comdetect_opts__init(&co);
	while ((c = getopt_long(argc, argv, "+i:" COMDETECT_SHORT_OPTS "h", opts, NULL)) != -1) {
		if (c == 'i')
			input = optarg;
		else if (c == 'h')
			usage_exit(report_usage, 0);
		else if (!comdetect_opts__parse(&co, c, optarg, report_usage))
			usage_exit(report_usage, 1);
	}
	if (optind < argc)
		usage_exit(report_usage, 1);
	h = calloc(1, sizeof(*h));
	if (!h)
		die("out of memory");
	ret = datafile__open(&f, input, h);
	if (ret) {
		error("cannot read '%s': %s", input, datafile__strerror(ret));
		free(h);
		return 1;
	}
	cd = comdetect__new(&co.cfg);
	syms = symbols__new();
	if (!cd || !syms)
		die("cannot set up the analysis: %s", strerror(errno));
	an = comdetect__analysis(cd);
	while ((ret = datafile__read(f, &ev)) > 0) {
		switch (ev.type) {
		case LP_EV_MMAP:
			symbols__add_mmap(syms, &ev.mmap);
			break;
		case LP_EV_THREAD_START:
			if (!pid)
				pid = ev.thread.pid;
			break;
		case LP_EV_THREAD_EXIT:
			cpu_ns += ev.thread.cpu_ns;
			break;
		case LP_EV_SAMPLE:
			samples++;
			samples_addr += ev.sample.noaddr == LP_NOADDR_NONE;
			break;
		}
		/* the live run executed these actions; the file holds their traps */
		an->event(an, &ev, &acts);
		lp_actions__reset(&acts);
	}
	if (ret < 0) {
		error("'%s': %s after %llu events; reporting what was read", input,
		      datafile__strerror(ret), (unsigned long long)datafile__nr_events(f));
		code = 1;
	}
	if (an->finish)
		an->finish(an);
	n = datafile__get_argv(h, args, ARRAY_SIZE(args));
	for (i = 0; i < n; i++)
		snprintf(cmdline + strlen(cmdline), sizeof(cmdline) - strlen(cmdline), "%s%s",
			 i ? " " : "", args[i]);
	memset(&r, 0, sizeof(r));
	r.syms = syms;
	r.pid = pid;
	r.sampler = h->facility;
	r.period_unit = h->period_unit;
	r.period = h->period;
	r.command = cmdline;
	r.samples = samples;
	r.samples_addr = samples_addr;
	r.cpu_ns = cpu_ns;
	ret = comdetect_opts__output(&co, cd, &r);
	lp_actions__exit(&acts);
	datafile__close(f);
	comdetect__delete(cd);
	symbols__delete(syms);
	free(h);
	return code ? code : ret;
}
