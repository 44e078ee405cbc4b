// SPDX-License-Identifier: GPL-2.0
/*
 * lociprof: data locality and inter-thread data movement profiler.
 * The command table and the dispatcher (perf.c / git.c style).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/analyses.h"
#include "cmd/builtin.h"

#ifndef LP_VERSION
#define LP_VERSION "0.0-unknown"
#endif
const char lp_version_string[] = LP_VERSION;

const struct lp_cmd lp_commands[] = {
	{ "list", cmd_list, list_usage, NULL, "Show sampling facilities, debug registers, kernel features, caches" },
	{ "test", cmd_test, test_usage, NULL, "Run self tests on this machine" },
	{ "coherence", cmd_coherence, coherence_usage, NULL, "Simulate MESI caches over a trace: the communication comdetect should find" },
	{ "compare", cmd_compare, compare_usage, NULL, "Compare two results: matrix or histogram similarity" },
	{ "report", cmd_report, NULL, report_usage, "Replay a data file through an analysis and print its report" },
	{ "pebs-ibs-compare", cmd_pesbench, pebs_ibs_compare_usage, NULL, "Characterize the precise sampling facilities (PEBS, IBS, soft)" },
	{ "pesbench", cmd_pesbench, pesbench_usage, NULL, "Alias of pebs-ibs-compare" },
	{ "record", cmd_record, NULL, record_usage, "Run a program and save its memory samples to a data file" },
	{ "script", cmd_script, script_usage, NULL, "Print the events of a data file, one per line" },
	{ NULL, NULL, NULL, NULL, NULL },
};

static const char lociprof_usage[] =
	"usage: lociprof [--version] [--help] <command> [<options>] [--] [<program> [<args>]]\n";

static void print_help(FILE *f)
{
	const struct lp_cmd *c;
	int i;

	fputs(lociprof_usage, f);
	fputs("\nlociprof shows how data moves between the threads of a program and how\n"
	      "well they reuse their caches.\n\nCommands:\n", f);
	for (i = 0; lp_analyses[i]; i++)
		fprintf(f, "   %-18s %s\n", lp_analyses[i]->name, lp_analyses[i]->summary);
	for (c = lp_commands; c->name; c++)
		fprintf(f, "   %-18s %s\n", c->name, c->summary);
	fputs("\nSee 'lociprof help <command>' or 'lociprof <command> -h'.\n", f);
}

static const struct lp_cmd *find_cmd(const char *name)
{
	const struct lp_cmd *c;

	for (c = lp_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* The man page next to the binary (build tree) or the installed one. */
static int show_man(const char *name)
{
	char exe[PATH_MAX], path[PATH_MAX + 64];
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(path, sizeof(path), "%s/man/lociprof%s%s.1", exe,
				 name ? "-" : "", name ? name : "");
			if (access(path, R_OK) == 0 && isatty(STDOUT_FILENO))
				execlp("man", "man", "-l", path, (char *)NULL);
		}
	}
	return -1;
}

static int cmd_help(int argc, char **argv)
{
	const struct lp_analysis_desc *an;
	const struct lp_cmd *c;

	if (argc < 2) {
		print_help(stdout);
		return 0;
	}
	an = analysis__find(argv[1]);
	c = find_cmd(argv[1]);
	if (!c && !an) {
		lp_err("'%s' is not a lociprof command. See 'lociprof --help'.", argv[1]);
		return 129;
	}
	show_man(argv[1]);
	/* no terminal or no man: the usage is the short form of the page */
	if (an)
		analysis__usage(an, stdout);
	else if (c->usage_fn)
		c->usage_fn(stdout);
	else
		fputs(c->usage, stdout);
	return 0;
}

int main(int argc, char **argv)
{
	const struct lp_analysis_desc *an;
	const struct lp_cmd *c;

	if (argc < 2) {
		print_help(stderr);
		return 129;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_help(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("lociprof version %s\n", lp_version_string);
		return 0;
	}
	if (!strcmp(argv[1], "help"))
		return cmd_help(argc - 1, argv + 1);
	if (argv[1][0] == '-') {
		lp_err("unknown option '%s'", argv[1]);
		print_help(stderr);
		return 129;
	}
	c = find_cmd(argv[1]);
	an = analysis__find(argv[1]);
	if (!c && !an) {
		lp_err("'%s' is not a lociprof command. See 'lociprof --help'.", argv[1]);
		return 129;
	}
	{
		static char name[64];

		snprintf(name, sizeof(name), "lociprof %s", argv[1]);
		lp_cmd_name = name;
		argv[1] = name;	/* getopt's messages name the command */
	}
	if (an)
		return analysis__cmd(an, argc - 1, argv + 1);
	return c->fn(argc - 1, argv + 1);
}
