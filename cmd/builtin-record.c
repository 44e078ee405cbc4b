// SPDX-License-Identifier: GPL-2.0
/* lociprof record: save the event stream of a run for script and report. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd/builtin.h"
#include "cmd/profile.h"

const char record_usage[] =
	"usage: lociprof record [-o FILE] [options] [--] <program> [<args>]\n"
	"\n"
	"Run a program (or attach with -p) and save every thread's memory samples,\n"
	"mappings and thread starts and exits to a data file (default lociprof.data,\n"
	"mode 0600; an existing one is kept as FILE.old). Read it back with\n"
	"'lociprof script -i FILE'.\n"
	"\n"
	"    -o, --output FILE     data file (default lociprof.data)\n"
	PROFILE_USAGE_OPTS
	"    -h, --help            show this help\n";

int cmd_record(int argc, char **argv)
{
	static const struct option opts[] = {
		PROFILE_LONG_OPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct profile_opts po;
	struct recorder rec;
	struct lp_session *s;
	int c, code;

	profile_opts__init(&po);
	while ((c = getopt_long(argc, argv, "+" PROFILE_SHORT_OPTS "h", opts, NULL)) != -1) {
		if (c == 'h')
			usage_exit(record_usage, 0);
		if (!profile_opts__parse(&po, c, optarg, record_usage))
			usage_exit(record_usage, 1);
	}
	s = profile__start(&po, argc - optind, argv + optind, 0, record_usage);
	recorder__open(&rec, po.output ? po.output : "lociprof.data", s,
		       argc - optind, argv + optind, NULL);
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
