// SPDX-License-Identifier: GPL-2.0
/*
 * libpfm4 for both x86 vendors: event names to perf_event_attr config,
 * for this machine's PMU or, in a child process, for a forced one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib.h>

#include "arch/x86/pfm.h"

/* ---- libpfm4 --------------------------------------------------------------- */

/*
 * pfm_perf_encode_arg_t of <perfmon/pfmlib_perf_event.h>, which cannot be
 * included with <linux/perf_event.h> (it carries its own copy).
 */
struct pfm_perf_arg {
	struct perf_event_attr *attr;
	char **fstr;
	size_t size;
	int idx, cpu, flags, pad0;
};

int x86_pfm__encode(const char *name, struct perf_event_attr *attr)
{
	struct perf_event_attr a;
	struct pfm_perf_arg arg;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);	/* libpfm4 checks it */
	memset(&arg, 0, sizeof(arg));
	arg.attr = &a;
	arg.size = sizeof(arg);
	if (pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT, &arg) != PFM_SUCCESS)
		return -ENOENT;
	attr->config = a.config;
	attr->config1 = a.config1;
	return 0;
}

/* Is a libpfm4 core PMU named @name present (as initialized)? */
static int pfm_present(const char *name)
{
	pfm_pmu_info_t info;
	int pmu;

	pfm_for_all_pmus(pmu) {
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_pmu_info(pmu, &info) != PFM_SUCCESS)
			continue;
		if (info.is_present && info.type == PFM_PMU_TYPE_CORE && !strcmp(info.name, name))
			return 1;
	}
	return 0;
}

struct pfm_answer {
	int ret;
	u64 config, config1;
};

/*
 * Run libpfm4 for a forced PMU in a child: LIBPFM_FORCE_PMU is read by
 * pfm_initialize only, and libpfm4 4.13 fails some events after
 * pfm_terminate + pfm_initialize (measured: SPR STORE_SAMPLE gives
 * PFM_ERR_ATTR on the second initialization), so every forced answer
 * comes from a fresh process and this one's libpfm4 is left alone.
 */
static int pfm_child(const char *pmu, const char *name, struct pfm_answer *ans)
{
	int fds[2], status;
	pid_t pid;
	ssize_t n;

	memset(ans, 0, sizeof(*ans));
	if (pipe(fds) < 0)
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		n = -errno;
		close(fds[0]);
		close(fds[1]);
		return (int)n;
	}
	if (!pid) {
		struct perf_event_attr a;

		close(fds[0]);
		pfm_terminate();
		setenv("LIBPFM_FORCE_PMU", pmu, 1);
		ans->ret = -ENOENT;
		if (pfm_initialize() == PFM_SUCCESS && pfm_present(pmu)) {
			ans->ret = 0;
			if (name) {
				memset(&a, 0, sizeof(a));
				ans->ret = x86_pfm__encode(name, &a);
				ans->config = a.config;
				ans->config1 = a.config1;
			}
		}
		n = write(fds[1], ans, sizeof(*ans));
		_exit(n == sizeof(*ans) ? 0 : 1);
	}
	close(fds[1]);
	do {
		n = read(fds[0], ans, sizeof(*ans));
	} while (n < 0 && errno == EINTR);
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (n != sizeof(*ans))
		return -EIO;
	return ans->ret;
}

int x86_pfm__known(const char *pmu)
{
	struct pfm_answer ans;

	return pfm_child(pmu, NULL, &ans) == 0;
}

int x86_pfm__encode_on(const char *pmu, const char *name, struct perf_event_attr *attr)
{
	struct pfm_answer ans;
	int ret;

	if (!pmu) {
		if (pfm_initialize() != PFM_SUCCESS)
			return -ENODEV;
		return x86_pfm__encode(name, attr);
	}
	ret = pfm_child(pmu, name, &ans);
	if (ret)
		return ret;
	attr->config = ans.config;
	attr->config1 = ans.config1;
	return 0;
}

