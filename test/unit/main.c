// SPDX-License-Identifier: GPL-2.0
/* Unit-test runner: runs every LP_TEST linked into this binary. */
#include <stdio.h>
#include <string.h>

#include "core/tests.h"

extern const struct lp_test *const __start_lp_tests[];
extern const struct lp_test *const __stop_lp_tests[];

int main(int argc, char **argv)
{
	struct lp_test_summary sum;
	const char *filter = NULL;
	int verbose = 0, i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v"))
			verbose = 1;
		else
			filter = argv[i];
	}
	lp_tests__run(__start_lp_tests, __stop_lp_tests, filter, verbose, &sum);
	printf("unit: %d passed, %d failed, %d skipped\n", sum.passed, sum.failed,
	       sum.skipped);
	return sum.failed ? 1 : 0;
}
