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
#include "cmd/reuse-report.h"
#include "core/comdetect.h"
#include "core/reuse.h"
#include "core/datafile.h"
#include "core/symbols.h"

const char report_usage[] =
	"usage: lociprof report [-i FILE] [options]\n"
	"\n"
	"Replay a data file saved with -o (or by lociprof record) through the\n"
	"analysis that recorded it (comdetect or reuse; comdetect for a file of\n"
	"lociprof record) and print its report, as the live command would.\n"
	"\n"
	"    -i, --input FILE      data file (default lociprof.data)\n"
	COMDETECT_OPTS_USAGE
	"\nreuse recordings (lociprof reuse -o) also take:\n"
	"        --cache SPEC      model these caches (default: the recording machine's)\n"
	"        --access-rate N   memory accesses per ns of thread CPU time\n"
	"        --global-rate     one estimated rate for every reuse\n"
	"        --no-chain        time every reuse (no counting along samples)\n"
	"        --window N        reuses per footprint window (default 8; 0: all)\n"
	"    -h, --help            show this help\n";

/* Replay a reuse recording: same configuration, same decisions, same result. */
/* What a replay learns beside the analysis's result. */
struct replay_info {
	u64 samples, samples_addr, cpu_ns;
	u32 pid;
};

/*
 * Feed every event of @f to @an in the recorded order, as the live run did;
 * its actions were executed then and their traps are in the file. Returns
 * 0, or 1 after saying that a damaged file was reported up to the damage.
 */
static int replay(struct lp_datafile *f, struct lp_analysis *an,
		  struct lp_symbols *syms, const char *input, struct replay_info *ri)
{
	struct lp_actions acts = { 0 };
	struct lp_event ev;
	int ret, code = 0;

	memset(ri, 0, sizeof(*ri));
	while ((ret = datafile__read(f, &ev)) > 0) {
		switch (ev.type) {
		case LP_EV_MMAP:
			symbols__add_mmap(syms, &ev.mmap);
			break;
		case LP_EV_THREAD_START:
			if (!ri->pid)
				ri->pid = ev.thread.pid;
			break;
		case LP_EV_THREAD_EXIT:
			ri->cpu_ns += ev.thread.cpu_ns;
			break;
		case LP_EV_SAMPLE:
			ri->samples++;
			ri->samples_addr += ev.sample.noaddr == LP_NOADDR_NONE;
			break;
		}
		an->event(an, &ev, &acts);
		lp_actions__reset(&acts);
	}
	if (ret < 0) {
		lp_err("'%s': %s after %llu events; reporting what was read", input,
		      datafile__strerror(ret), (unsigned long long)datafile__nr_events(f));
		code = 1;
	}
	if (an->finish)
		an->finish(an);
	lp_actions__exit(&acts);
	return code;
}

static int report_reuse(struct lp_datafile *f, struct lp_data_header *h,
			struct reuse_opts *ro, const struct comdetect_opts *co,
			const char *input, const char *cmdline)
{
	struct reuse_report r;
	struct lp_symbols *syms;
	struct replay_info ri;
	struct reuse *ru;
	int ret, code;

	/* options both analyses take were parsed into the comdetect ones */
	ro->json = co->json;
	ro->svg = co->svg;
	ro->color = co->color;
	if (co->top != 5)
		ro->top = co->top;
	{
		struct comdetect_config def;

		comdetect__config_init(&def);
		if (co->cfg.seed != def.seed)	/* --seed given */
			ro->cfg.seed = co->cfg.seed;
	}
	ro->cfg.topo = ro->cfg.shared ? &h->topo : NULL;
	ru = reuse__new(&ro->cfg);
	syms = symbols__new();
	if (!ru || !syms)
		lp_die("cannot set up the analysis: %s", strerror(errno));
	code = replay(f, reuse__analysis(ru), syms, input, &ri);
	memset(&r, 0, sizeof(r));
	r.res = reuse__result(ru);
	if (!r.res)
		lp_die("out of memory building the result");
	r.syms = syms;
	r.pid = ri.pid;
	r.sampler = h->facility;
	r.period_unit = h->period_unit;
	r.period = h->period;
	r.command = cmdline;
	r.samples = ri.samples;
	r.samples_addr = ri.samples_addr;
	r.cpu_ns = ri.cpu_ns;
	r.sync = !!(h->sampling_flags & LP_DATA_SAMPLING_SIGTRAP);
	reuse_opts__caches(ro, &h->topo, &r);
	ret = reuse_opts__output(ro, &r);
	reuse__delete(ru);
	symbols__delete(syms);
	return code ? code : ret;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		COMDETECT_LONG_OPTS,
		{ "cache", required_argument, NULL, 0x402 },
		{ "access-rate", required_argument, NULL, 0x403 },
		{ "global-rate", no_argument, NULL, 0x406 },
		{ "window", required_argument, NULL, 0x407 },
		{ "no-chain", no_argument, NULL, 0x408 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *input = "lociprof.data";
	struct comdetect_opts co;
	struct reuse_opts ro;
	struct comdetect_report r;
	struct lp_data_header *h;
	struct replay_info ri;
	struct lp_symbols *syms;
	struct lp_datafile *f;
	struct comdetect *cd;
	char cmdline[1024] = "";
	const char *args[64];
	int c, ret, i, n, code;

	comdetect_opts__init(&co);
	reuse_opts__init(&ro);
	while ((c = getopt_long(argc, argv, "+i:" COMDETECT_SHORT_OPTS "h", opts, NULL)) != -1) {
		if (c == 'i')
			input = optarg;
		else if (c == 'h')
			usage_exit(report_usage, 0);
		else if (c == 0x402 || c == 0x403 || (c >= 0x406 && c <= 0x408))
			reuse_opts__parse(&ro, c, optarg, report_usage);
		else if (!comdetect_opts__parse(&co, c, optarg, report_usage))
			usage_exit(report_usage, 1);
	}
	if (optind < argc)
		usage_exit(report_usage, 1);
	h = calloc(1, sizeof(*h));
	if (!h)
		lp_die("out of memory");
	ret = datafile__open(&f, input, h);
	if (ret) {
		lp_err("cannot read '%s': %s", input, datafile__strerror(ret));
		free(h);
		return 1;
	}
	if (!strncmp(h->analysis, "reuse", 5)) {
		n = datafile__get_argv(h, args, ARRAY_SIZE(args));
		for (i = 0; i < n; i++)
			snprintf(cmdline + strlen(cmdline), sizeof(cmdline) - strlen(cmdline),
				 "%s%s", i ? " " : "", args[i]);
		if (reuse__analysis_parse(h->analysis, &ro.cfg))
			lp_warn("unknown analysis '%s': replaying as reuse", h->analysis);
		ret = report_reuse(f, h, &ro, &co, input, cmdline);
		datafile__close(f);
		free(h);
		return ret;
	}
	cd = comdetect__new(&co.cfg);
	syms = symbols__new();
	if (!cd || !syms)
		lp_die("cannot set up the analysis: %s", strerror(errno));
	code = replay(f, comdetect__analysis(cd), syms, input, &ri);
	n = datafile__get_argv(h, args, ARRAY_SIZE(args));
	for (i = 0; i < n; i++)
		snprintf(cmdline + strlen(cmdline), sizeof(cmdline) - strlen(cmdline), "%s%s",
			 i ? " " : "", args[i]);
	memset(&r, 0, sizeof(r));
	r.syms = syms;
	r.pid = ri.pid;
	r.sampler = h->facility;
	r.period_unit = h->period_unit;
	r.period = h->period;
	r.command = cmdline;
	r.samples = ri.samples;
	r.samples_addr = ri.samples_addr;
	r.cpu_ns = ri.cpu_ns;
	ret = comdetect_opts__output(&co, cd, &r);
	datafile__close(f);
	comdetect__delete(cd);
	symbols__delete(syms);
	free(h);
	return code ? code : ret;
}
