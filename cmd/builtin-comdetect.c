// SPDX-License-Identifier: GPL-2.0
/*
 * lociprof comdetect: communication matrices split into true and false
 * sharing (ComDetective). Option parsing, wiring and output only; the
 * analysis is core/comdetect.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/builtin.h"
#include "cmd/comdetect-report.h"
#include "cmd/profile.h"
#include "core/comdetect.h"
#include "core/symbols.h"

const char comdetect_usage[] =
	"usage: lociprof comdetect [options] [--] <program> [<args>]\n"
	"\n"
	"Run a program (or attach with -p) and show which threads communicate\n"
	"through which cache lines: thread and core matrices split into true and\n"
	"false sharing, the top lines with the byte ranges each thread touches, the\n"
	"source lines behind them and the data objects.\n"
	"\n"
	COMDETECT_OPTS_USAGE
	"    -o, --output FILE     also save the event stream (see lociprof report)\n"
	PROFILE_USAGE_OPTS
	"    -h, --help            show this help\n";

void comdetect_opts__init(struct comdetect_opts *co)
{
	memset(co, 0, sizeof(*co));
	comdetect__config_init(&co->cfg);
	co->top = 5;
	co->color = isatty(STDOUT_FILENO);
}

int comdetect_opts__parse(struct comdetect_opts *co, int c, const char *arg,
			  const char *usage)
{
	switch (c) {
	case 'b':
		co->cfg.board_size = (int)parse_ull_opt("--board", arg);
		if (co->cfg.board_size < 1 || co->cfg.board_size > 1 << 20) {
			lp_err("--board expects 1..1048576 entries, not '%s'", arg);
			usage_exit(usage, 1);
		}
		break;
	case 'd':
		co->cfg.max_dr = (int)parse_ull_opt("--debug-registers", arg);
		if (co->cfg.max_dr < 1 || co->cfg.max_dr > 4) {
			lp_err("--debug-registers expects 1..4, not '%s'", arg);
			usage_exit(usage, 1);
		}
		break;
	case 0x300: co->cfg.seed = parse_ull_opt("--seed", arg); break;
	case 0x301: co->top = (int)parse_ull_opt("--top", arg); break;
	case 0x302: co->json = arg; break;
	case 0x303: co->csv = arg; break;
	case 0x304: co->svg = arg; break;
	case 0x305: co->color = 0; break;
	default: return 0;
	}
	return 1;
}

int comdetect_opts__output(struct comdetect_opts *co, struct comdetect *cd,
			   struct comdetect_report *r)
{
	int err, ret = 0;

	r->res = comdetect__result(cd);
	r->cd = cd;
	r->top = co->top;
	r->color = co->color;
	if (!r->res) {
		lp_err("out of memory building the result");
		return 128;
	}
	if (!co->json || strcmp(co->json, "-"))
		comdetect_report__print(r, stdout);
	if (co->json && (err = comdetect_report__json(r, co->json))) {
		lp_err("cannot write '%s': %s", co->json, strerror(-err));
		ret = 128;
	}
	if (co->csv && (err = comdetect_report__csv(r, co->csv))) {
		lp_err("cannot write CSV files to '%s': %s", co->csv, strerror(-err));
		ret = 128;
	}
	if (co->svg && (err = comdetect_report__svg(r, co->svg))) {
		lp_err("cannot write SVG files to '%s': %s", co->svg, strerror(-err));
		ret = 128;
	}
	return ret;
}

int cmd_comdetect(int argc, char **argv)
{
	static const struct option opts[] = {
		PROFILE_LONG_OPTS,
		COMDETECT_LONG_OPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct comdetect_report r;
	struct comdetect_opts co;
	struct profile_opts po;
	struct recorder rec;
	struct lp_symbols *syms;
	struct lp_session *s;
	struct comdetect *cd;
	char pidbuf[32];
	int c, code, ret;

	profile_opts__init(&po);
	comdetect_opts__init(&co);
	while ((c = getopt_long(argc, argv, "+" PROFILE_SHORT_OPTS COMDETECT_SHORT_OPTS "h", opts, NULL)) != -1) {
		if (c == 'h')
			usage_exit(comdetect_usage, 0);
		if (!profile_opts__parse(&po, c, optarg, comdetect_usage) &&
		    !comdetect_opts__parse(&co, c, optarg, comdetect_usage))
			usage_exit(comdetect_usage, 1);
	}
	po.nslots = 4;
	s = profile__start(&po, argc - optind, argv + optind, 0, comdetect_usage);
	cd = comdetect__new(&co.cfg);
	syms = symbols__new();
	if (!cd || !syms)
		lp_die("cannot set up the analysis: %s", strerror(errno));
	session__add_sink(s, profile__symbols_sink, syms);
	session__add_analysis(s, comdetect__analysis(cd));
	if (po.output) {
		recorder__open(&rec, po.output, s, argc - optind, argv + optind, "comdetect");
		session__add_sink(s, recorder__sink, &rec);
	}
	if (profile__run(s) == -ENOEXEC)
		return 127;
	profile__print_stats(s, &po);
	code = profile__exit_code(s, &po);
	if (po.output && recorder__close(&rec, po.quiet))
		code = code ? code : 128;

	memset(&r, 0, sizeof(r));
	r.syms = syms;
	r.pid = session__pid(s);
	r.sampler = session__facility(s)->name;
	r.period_unit = session__facility(s)->period_unit;
	r.period = session__period(s);
	snprintf(pidbuf, sizeof(pidbuf), "pid %d", po.pid);
	r.command = po.pid > 0 ? pidbuf : profile__join_args(argc - optind, argv + optind);
	r.samples = session__stats(s)->samples;
	r.samples_addr = session__stats(s)->samples_addr;
	r.cpu_ns = session__stats(s)->cpu_ns;
	ret = comdetect_opts__output(&co, cd, &r);
	comdetect__delete(cd);
	symbols__delete(syms);
	session__delete(s);
	return code ? code : ret;
}
