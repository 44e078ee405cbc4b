// SPDX-License-Identifier: GPL-2.0
/* lociprof test: self tests on the user's machine, perf-test style. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>

#include "cmd/builtin.h"
#include "core/tests.h"

const char test_usage[] =
	"usage: lociprof test [-v] [NAME]\n"
	"\n"
	"Run lociprof's self tests on this machine: one line per test with Ok,\n"
	"FAILED! or Skip and the reason. NAME runs only tests whose name or\n"
	"description contains it; a number runs the test of that number (the\n"
	"numbers are stable: -l lists them). No matching test is an error.\n"
	"\n"
	"    -v, --verbose     show each test's progress and log lines\n"
	"    -l, --list        list the tests without running them\n"
	"    -h, --help        show this help\n";

extern const struct lp_test *const __start_lp_selftests[] __attribute__((weak));
extern const struct lp_test *const __stop_lp_selftests[] __attribute__((weak));

int cmd_test(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct lp_test_summary sum;
	int c, verbose = 0, list = 0;

	while ((c = getopt_long(argc, argv, "+vlh", opts, NULL)) != -1) {
		switch (c) {
		case 'v': verbose = 1; break;
		case 'l': list = 1; break;
		case 'h': usage_exit(test_usage, 0);
		default: usage_exit(test_usage, 1);
		}
	}
	if (argc - optind > 1)
		usage_exit(test_usage, 1);
	if (list) {
		const struct lp_test *const *it;

		int id = 0;

		for (it = __start_lp_selftests; it < __stop_lp_selftests; it++)
			printf("%3d: %-40s %s\n", ++id, (*it)->name, (*it)->desc);
		return 0;
	}
	if (lp_tests__run(__start_lp_selftests, __stop_lp_selftests,
			  optind < argc ? argv[optind] : NULL, verbose, &sum) == -ENOENT) {
		lp_err("no self test matches '%s' ('lociprof test -l' lists them)", argv[optind]);
		return 1;
	}
	printf("%d passed, %d failed, %d skipped\n", sum.passed, sum.failed,
	       sum.skipped);
	return sum.failed ? 1 : 0;
}
