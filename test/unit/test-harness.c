// SPDX-License-Identifier: GPL-2.0
/* The harness must report a crashing test as failed and keep going. */
#include <signal.h>
#include <string.h>

#include "core/tests.h"
#include "core/analysis.h"

static int crashes(struct lp_test_ctx *ctx)
{
	(void)ctx;
	raise(SIGSEGV);
	return TEST_OK;
}

static int skips(struct lp_test_ctx *ctx)
{
	TEST_SKIP("no such hardware");
}

LP_TEST(test_harness_isolates_crash, "harness: a crashing test fails alone")
{
	static const struct lp_test crash = { "crash", "crash", crashes, 5 };
	static const struct lp_test skip = { "skip", "skip", skips, 5 };
	const struct lp_test *list[] = { &crash, &skip };
	struct lp_test_summary sum;
	FILE *saved = stdout;

	stdout = fopen("/dev/null", "w");
	lp_tests__run(list, list + 2, NULL, 0, &sum);
	fclose(stdout);
	stdout = saved;
	TEST_ASSERT(sum.failed == 1, "failed=%d", sum.failed);
	TEST_ASSERT(sum.skipped == 1, "skipped=%d", sum.skipped);
	TEST_ASSERT(sum.passed == 0, "passed=%d", sum.passed);
	return TEST_OK;
}

LP_TEST(test_actions_grow, "analysis: action buffer grows and keeps order")
{
	struct lp_actions acts = { 0 };
	struct lp_action a;
	int i;

	memset(&a, 0, sizeof(a));
	for (i = 0; i < 100; i++) {
		a.addr = 0x1000 + i * 8;
		TEST_ASSERT(lp_actions__push(&acts, &a) == 0, "push %d", i);
	}
	TEST_ASSERT(acts.n == 100, "n=%d", acts.n);
	for (i = 0; i < 100; i++)
		TEST_ASSERT(acts.v[i].addr == 0x1000 + (u64)i * 8, "i=%d", i);
	lp_actions__exit(&acts);
	return TEST_OK;
}
