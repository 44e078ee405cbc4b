// SPDX-License-Identifier: GPL-2.0
/* lociprof record: save the event stream of a run for script and report. */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cmd/builtin.h"
#include "cmd/options.h"
#include "cmd/profile.h"

static const char record_head[] =
	"usage: lociprof record [-o FILE] [options] [--] <program> [<args>]\n"
	"\n"
	"Run a program (or attach with -p) and save every thread's memory samples,\n"
	"mappings and thread starts and exits to a data file (default lociprof.data,\n"
	"mode 0600; an existing one is kept as FILE.old). Read it back with\n"
	"'lociprof script -i FILE' or 'lociprof report -i FILE'.\n"
	"\n";

static const struct lp_opt record_opts[] = {
	{ "output", 'o', "FILE", "data file (default lociprof.data)", LP_OPT_STR,
	  offsetof(struct profile_opts, output) },
	{ NULL },
};

static int record_groups(struct profile_opts *po, struct lp_optgroup *g)
{
	g[0] = (struct lp_optgroup){ .opts = record_opts, .obj = po };
	g[1] = (struct lp_optgroup){ .opts = profile_options, .obj = po };
	return 2;
}

void record_usage(FILE *f)
{
	struct lp_optgroup g[2];

	lp_opts__usage(f, g, record_groups(NULL, g), record_head, NULL);
}

int cmd_record(int argc, char **argv)
{
	struct lp_optgroup g[2];
	struct profile_opts po;
	struct recorder rec;
	struct lp_session *s;
	int code, ng;

	profile_opts__init(&po);
	ng = record_groups(&po, g);
	optind = lp_opts__parse(argc, argv, g, ng, record_head, NULL);
	s = profile__start(&po, argc - optind, argv + optind, 0);
	recorder__open(&rec, po.output ? po.output : "lociprof.data", s,
		       argc - optind, argv + optind, "", "", 0);
	session__add_sink(s, recorder__sink, &rec);
	if (profile__run(s) == -ENOEXEC) {	/* exec failed: said why */
		recorder__close(&rec, 1);
		session__delete(s);
		return 127;
	}
	profile__print_stats(s, &po);
	code = profile__exit_code(s, &po);
	if (recorder__close(&rec, po.quiet))
		code = code ? code : 128;
	session__delete(s);
	return code;
}
