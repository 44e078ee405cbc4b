// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/tests.h"

#define DEFAULT_TIMEOUT_S 120

/* Result and reason travel from the child through a shared anonymous page. */
struct shared_result {
	int ret;
	struct lp_test_ctx ctx;
};

static int run_one(const struct lp_test *t, int verbose, char *reason,
		   size_t reason_len)
{
	struct shared_result *sr;
	int status, ret;
	pid_t pid;

	sr = mmap(NULL, sizeof(*sr), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sr == MAP_FAILED) {
		snprintf(reason, reason_len, "mmap: %s", strerror(errno));
		return TEST_FAIL;
	}
	memset(sr, 0, sizeof(*sr));
	sr->ret = TEST_FAIL;
	sr->ctx.verbose = verbose;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		snprintf(reason, reason_len, "fork: %s", strerror(errno));
		munmap(sr, sizeof(*sr));
		return TEST_FAIL;
	}
	if (pid == 0) {
		alarm(t->timeout_s ? t->timeout_s : DEFAULT_TIMEOUT_S);
		sr->ret = t->fn(&sr->ctx);
		fflush(stdout);
		fflush(stderr);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	ret = sr->ret;
	snprintf(reason, reason_len, "%s", sr->ctx.reason);
	if (WIFSIGNALED(status)) {
		ret = TEST_FAIL;
		snprintf(reason, reason_len, "killed by signal %d (%s)%s",
			 WTERMSIG(status), strsignal(WTERMSIG(status)),
			 WTERMSIG(status) == SIGALRM ? ": timed out" : "");
	}
	munmap(sr, sizeof(*sr));
	return ret;
}

/* Does test number @id (1-based, its place in the section) match @filter? */
static int test_matches(const struct lp_test *t, int id, const char *filter)
{
	char *end;
	long n;

	if (!filter)
		return 1;
	n = strtol(filter, &end, 10);
	if (end != filter && !*end)	/* a number is the test's stable id */
		return n == id;
	return strstr(t->name, filter) || strstr(t->desc, filter);
}

int lp_tests__run(const struct lp_test *const *start,
		  const struct lp_test *const *stop, const char *filter,
		  int verbose, struct lp_test_summary *sum)
{
	const struct lp_test *const *it;
	char reason[256];
	int id = 0, matched = 0;

	memset(sum, 0, sizeof(*sum));
	for (it = start; it < stop; it++) {
		const struct lp_test *t = *it;
		int ret;

		if (!test_matches(t, ++id, filter))
			continue;
		matched++;
		if (verbose)
			printf("%3d: %s: %s:\n", id, t->name, t->desc), fflush(stdout);
		ret = run_one(t, verbose, reason, sizeof(reason));
		printf("%3d: %-58s: ", id, t->desc);
		switch (ret) {
		case TEST_OK:
			printf("Ok\n");
			sum->passed++;
			break;
		case TEST_SKIP:
			printf("Skip (%s)\n", reason);
			sum->skipped++;
			break;
		default:
			printf("FAILED! [%s] %s\n", t->name, reason);
			sum->failed++;
			break;
		}
		fflush(stdout);
	}
	if (!matched)
		return -ENOENT;
	return sum->failed ? -1 : 0;
}
