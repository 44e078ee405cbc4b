/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A perf-test style harness: tests register themselves into a linker section,
 * each returns OK, FAIL or SKIP (with a reason), and a runner executes each in
 * a forked child so that a crash or a hang fails one test, not the run.
 *
 *   LP_TEST(test_ring_wraps, "ring buffer copies out a wrapped record")
 *   {
 *           TEST_ASSERT(x == 3, "x=%d", x);
 *           return TEST_OK;
 *   }
 *
 * LP_TEST goes into the unit-test binary (test/unit-tests); LP_SELFTEST into
 * lociprof itself, where `lociprof test` runs it on the user's machine.
 */
#ifndef LP_TESTS_H
#define LP_TESTS_H
#include <stdio.h>

enum { TEST_OK = 0, TEST_FAIL = -1, TEST_SKIP = -2 };

struct lp_test_ctx {
	int verbose;
	char reason[256];	/* why it failed or was skipped */
};

struct lp_test {
	const char *name;
	const char *desc;
	int (*fn)(struct lp_test_ctx *ctx);
	int timeout_s;		/* 0: default */
};

#define LP__TEST(sect, fn_, desc_, tmo_)                                      \
	static int fn_(struct lp_test_ctx *ctx);                               \
	static const struct lp_test lp__test_##fn_ = { #fn_, desc_, fn_, tmo_ }; \
	static const struct lp_test *lp__testp_##fn_                           \
		__attribute__((used, section(sect))) = &lp__test_##fn_;        \
	static int fn_(struct lp_test_ctx *ctx __attribute__((unused)))

#define LP_TEST(fn_, desc_) LP__TEST("lp_tests", fn_, desc_, 0)
#define LP_TEST_TIMEOUT(fn_, desc_, tmo_) LP__TEST("lp_tests", fn_, desc_, tmo_)
#define LP_SELFTEST(fn_, desc_) LP__TEST("lp_selftests", fn_, desc_, 0)

#define TEST_ASSERT(cond, fmt, ...)                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			snprintf(ctx->reason, sizeof(ctx->reason),             \
				 "%s:%d: %s: " fmt, __FILE__, __LINE__, #cond,  \
				 ##__VA_ARGS__);                               \
			return TEST_FAIL;                                      \
		}                                                              \
	} while (0)

#define TEST_SKIP(fmt, ...)                                                    \
	do {                                                                   \
		snprintf(ctx->reason, sizeof(ctx->reason), fmt, ##__VA_ARGS__); \
		return TEST_SKIP;                                              \
	} while (0)

#define TEST_LOG(fmt, ...)                                                     \
	do {                                                                   \
		if (ctx->verbose)                                              \
			fprintf(stderr, "    " fmt "\n", ##__VA_ARGS__);       \
	} while (0)

struct lp_test_summary {
	int passed, failed, skipped;
};

/*
 * Run the tests in [start, stop) that match @filter (all if NULL): a number
 * is a test's place in the section (its stable id, printed on its line),
 * anything else a substring of its name or description. One line per test
 * on stdout. Returns 0 if none failed, -1 if one did, -ENOENT if none matched.
 */
int lp_tests__run(const struct lp_test *const *start,
		  const struct lp_test *const *stop, const char *filter,
		  int verbose, struct lp_test_summary *sum);

#endif
