// SPDX-License-Identifier: GPL-2.0
/*
 * pesbench: the qualitative comparison (Sasongko 2022, Table 4.1) found by probing
 * this machine, not assumed: counters from CPUID and from opening the
 * facility's own sampling event repeatedly, sampled data from the attr the
 * facility sets up, execution-mode filtering from opening it with each
 * exclude bit. Facilities that are not usable say why (their probe).
 */
#include <cpuid.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/cpu.h"
#include "core/perf-util.h"
#include "pesbench/pesbench.h"
#include "core/probe.h"

#define PROBE_MAX_OPEN 32

/* What CPUID says about the core PMU (both vendors). */
static void cpuid_counters(char *buf, size_t len)
{
	unsigned int a, b, c, d;
	struct lp_cpu_info ci;

	if (cpu__read(&ci)) {
		snprintf(buf, len, "CPUID unavailable");
		return;
	}
	if (cpu__is_amd(&ci)) {
		int ext = 0, ibs = 0;

		if (__get_cpuid(0x80000001, &a, &b, &c, &d)) {
			ext = !!(c & (1u << 23));
			ibs = !!(c & (1u << 10));
		}
		snprintf(buf, len, "CPUID: %d core counters (PerfCtrExtCore %s), IBS %s",
			 ext ? 6 : 4, ext ? "yes" : "no", ibs ? "yes" : "no");
		return;
	}
	if (!__get_cpuid_count(0xa, 0, &a, &b, &c, &d) || !(a & 0xff)) {
		snprintf(buf, len, "CPUID.0AH: no architectural PMU (version 0)");
		return;
	}
	snprintf(buf, len, "CPUID.0AH: PMU version %u, %u general-purpose + %u fixed counters",
		 a & 0xff, (a >> 8) & 0xff, d & 0x1f);
}

static const char *const sample_bits[] = {
	"IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU", "PERIOD",
	"STREAM_ID", "RAW", "BRANCH_STACK", "REGS_USER", "STACK_USER", "WEIGHT",
	"DATA_SRC", "IDENTIFIER", "TRANSACTION", "REGS_INTR", "PHYS_ADDR", "AUX",
	"CGROUP", "DATA_PAGE_SIZE", "CODE_PAGE_SIZE", "WEIGHT_STRUCT",
};

/* How many copies of @a open at once on this thread (up to PROBE_MAX_OPEN). */
static int open_many(const struct perf_event_attr *a, int *first_err)
{
	int fds[PROBE_MAX_OPEN], n, i;

	*first_err = 0;
	for (n = 0; n < PROBE_MAX_OPEN; n++) {
		struct perf_event_attr c = *a;

		c.disabled = 1;
		fds[n] = perf__open(&c, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fds[n] < 0) {
			*first_err = fds[n];
			break;
		}
	}
	for (i = 0; i < n; i++)
		close(fds[i]);
	return n;
}

static int opens(const struct perf_event_attr *a, int excl_user, int excl_kernel)
{
	struct perf_event_attr c = *a;
	int fd;

	c.disabled = 1;
	c.exclude_user = excl_user;
	c.exclude_kernel = excl_kernel;
	fd = perf__open(&c, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

int pesbench__probe_facility(const struct lp_facility_ops *ops,
			     struct pesbench_facility *out)
{
	struct perf_event_attr attrs[LP_MAX_FACILITY_ATTRS];
	struct lp_sampling_opts so = { 0 };
	struct lp_probe pr;
	char cpuid[96];
	size_t n = 0;
	int nattrs = 0, i, k, err;

	memset(out, 0, sizeof(*out));
	memset(&pr, 0, sizeof(pr));
	snprintf(out->name, sizeof(out->name), "%s", ops->name);
	snprintf(out->period_unit, sizeof(out->period_unit), "%s",
		 ops->period_unit ? ops->period_unit : "events");
	err = ops->probe ? ops->probe(&pr) : -ENOSYS;
	out->usable = !err && pr.usable && ops->setup && ops->decode;
	snprintf(out->reason, sizeof(out->reason), "%s",
		 err ? "probe failed" : pr.reason[0] ? pr.reason : "no reason given");
	cpuid_counters(cpuid, sizeof(cpuid));
	snprintf(out->events, sizeof(out->events), "%s", ops->desc ? ops->desc : ops->name);
	if (!ops->setup || ops->setup(&so, attrs, &nattrs) || nattrs < 1) {
		snprintf(out->counters, sizeof(out->counters), "not probed: no setup; %s", cpuid);
		snprintf(out->data, sizeof(out->data), "not probed: no setup in this build");
		snprintf(out->modes, sizeof(out->modes), "not probed: no setup in this build");
		return 0;
	}
	for (k = 0; k < (int)ARRAY_SIZE(sample_bits); k++)
		if (attrs[0].sample_type & (1ull << k))
			n += snprintf(out->data + n, sizeof(out->data) - n, "%s%s",
				      n ? " " : "", sample_bits[k]);
	if (attrs[0].sample_type & PERF_SAMPLE_REGS_USER && n < sizeof(out->data))
		n += snprintf(out->data + n, sizeof(out->data) - n, " (%d user registers)",
			      __builtin_popcountll(attrs[0].sample_regs_user));
	if (n < sizeof(out->data))
		snprintf(out->data + n, sizeof(out->data) - n, "; %d event%s per thread",
			 nattrs, nattrs == 1 ? "" : "s");
	if (!out->usable) {
		snprintf(out->counters, sizeof(out->counters), "not probed (unavailable); %s",
			 cpuid);
		snprintf(out->modes, sizeof(out->modes), "not probed (unavailable); "
			 "the facility asks exclude_user=%d exclude_kernel=%d",
			 attrs[0].exclude_user, attrs[0].exclude_kernel);
		return 0;
	}
	i = open_many(&attrs[0], &err);
	snprintf(out->counters, sizeof(out->counters), "%d of its sampling events open at "
		 "once on one thread%s%s; %s", i, i == PROBE_MAX_OPEN ? " (probe cap)" : ", then ",
		 i == PROBE_MAX_OPEN ? "" : perf__errno_name(err), cpuid);
	snprintf(out->modes, sizeof(out->modes),
		 "opens user-only %s, kernel-only %s, both %s; lociprof samples %s",
		 opens(&attrs[0], 0, 1) ? "yes" : "no", opens(&attrs[0], 1, 0) ? "yes" : "no",
		 opens(&attrs[0], 0, 0) ? "yes" : "no",
		 attrs[0].exclude_kernel ? "user mode only (exclude_kernel=1)" :
		 attrs[0].exclude_user ? "kernel mode only" : "both modes");
	return 0;
}

int pesbench__probe_machine(struct pesbench_machine *m)
{
	struct lp_cpu_info ci;
	time_t now = time(NULL);
	struct tm tm;
	long n;

	memset(m, 0, sizeof(*m));
	if (cpu__read(&ci) == 0) {
		snprintf(m->vendor, sizeof(m->vendor), "%s", ci.vendor);
		snprintf(m->cpu, sizeof(m->cpu), "%s", ci.name);
		snprintf(m->hypervisor, sizeof(m->hypervisor), "%s", ci.hv_vendor);
		snprintf(m->pmu, sizeof(m->pmu), "%s", ci.pfm_pmu);
		m->family = ci.family;
		m->model = ci.model;
	}
	snprintf(m->kernel, sizeof(m->kernel), "%s", perf__kernel_release());
	gethostname(m->host, sizeof(m->host) - 1);
	gmtime_r(&now, &tm);
	strftime(m->date, sizeof(m->date), "%Y-%m-%d %H:%M UTC", &tm);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	m->ncpus = n > 0 ? (int)n : 0;
	return 0;
}
