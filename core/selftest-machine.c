// SPDX-License-Identifier: GPL-2.0
/*
 * Self tests of what `lociprof list` reports, run on the user's machine by
 * `lociprof test`: each probe is checked against an independent source
 * (a direct perf_event_open, /proc/cpuinfo, sysfs read here).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/hw_breakpoint.h>

#include "core/cpu.h"
#include "core/facility.h"
#include "core/perf-record.h"
#include "core/perf-util.h"
#include "core/probe.h"
#include "core/tests.h"
#include "core/topology.h"

static volatile u64 st_watched[2] __attribute__((aligned(64)));

LP_SELFTEST(selftest_debug_registers, "debug registers: at least one breakpoint opens")
{
	struct lp_debugreg_probe bp;
	struct perf_event_attr a;
	u64 count = 0;
	int fd;

	probe__debug_registers(&bp);
	if (!bp.count)
		TEST_SKIP("%.200s", bp.reason);
	TEST_LOG("%d per thread, stopped by %s", bp.count, perf__errno_name(bp.err));
	/* and one of them really catches a write, once */
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_BREAKPOINT;
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = (u64)(unsigned long)&st_watched[0];
	a.bp_len = HW_BREAKPOINT_LEN_8;
	a.exclude_kernel = 1;
	fd = perf__open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	TEST_ASSERT(fd >= 0, "probe opened %d but a single one fails: %s", bp.count,
		    perf__errno_name(fd));
	st_watched[1]++;	/* next door: not watched */
	st_watched[0]++;
	TEST_ASSERT(read(fd, &count, sizeof(count)) == sizeof(count), "read");
	close(fd);
	/* the probe's verdict on firing must agree with this independent count */
	TEST_ASSERT(bp.fires == (count == 1), "probe says watchpoints %s fire (%.100s), "
		    "but a breakpoint counted %llu of 1 write", bp.fires ? "do" : "do not",
		    bp.fire_reason, (unsigned long long)count);
	if (!bp.fires)
		TEST_SKIP("%.200s", bp.fire_reason);
	return TEST_OK;
}

LP_SELFTEST(selftest_soft_probe_agrees, "soft facility probe agrees with a real cpu-clock open")
{
	struct perf_event_attr a;
	struct lp_probe p;
	int fd, ret;

	memset(&p, 0, sizeof(p));
	ret = lp_facility__find("soft")->probe(&p);
	if (strstr(p.reason, "not implemented"))
		TEST_SKIP("soft facility probe not implemented yet");
	/* what the soft facility needs (Documentation/facilities.md, "Software precise sampling"), opened here directly */
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_CPU | PERF_SAMPLE_REGS_USER;
	a.sample_regs_user = LP_REGS_USER_MASK;
	a.exclude_kernel = 1;
	a.disabled = 1;
	fd = perf__open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0)
		close(fd);
	TEST_LOG("probe: ret %d usable %d (%s); direct open: %s", ret, p.usable, p.reason,
		 fd >= 0 ? "ok" : perf__errno_name(fd));
	TEST_ASSERT(p.usable == (fd >= 0), "probe says %s, direct open %s: %.100s",
		    p.usable ? "usable" : "unusable", fd >= 0 ? "works" : perf__errno_name(fd),
		    p.reason);
	return TEST_OK;
}

LP_SELFTEST(selftest_hw_probes_agree, "pebs/ibs probes agree with sysfs and a direct open")
{
	struct perf_event_attr a;
	struct lp_probe p;
	int type, fd = -ENOENT;

	memset(&p, 0, sizeof(p));
	lp_facility__find("pebs")->probe(&p);
	type = perf__pmu_type("cpu_core");
	if (type < 0)
		type = perf__pmu_type("cpu");
	if (type >= 0) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = type;
		a.config = 0x81d0;	/* loads with data address, Haswell+ */
		a.precise_ip = 2;
		a.sample_period = 10007;
		a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR;
		a.exclude_kernel = 1;
		a.disabled = 1;
		fd = perf__open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0)
			close(fd);
	}
	TEST_LOG("pebs: %d (%s); core PMU type %d, direct 0x81d0 open %d", p.usable,
		 p.reason, type, fd);
	if (type < 0)
		TEST_ASSERT(!p.usable, "pebs usable without a core PMU in sysfs");
	else if (fd >= 0)
		TEST_ASSERT(p.usable, "0x81d0 opens precisely but pebs says: %.100s", p.reason);

	memset(&p, 0, sizeof(p));
	lp_facility__find("ibs")->probe(&p);
	TEST_LOG("ibs: %d (%s)", p.usable, p.reason);
	if (perf__pmu_type("ibs_op") < 0)
		TEST_ASSERT(!p.usable, "ibs usable without ibs_op in sysfs");
	if (perf__kernel_at_least(6, 2) == 0)
		TEST_ASSERT(!p.usable, "ibs usable per thread before Linux 6.2");
	return TEST_OK;
}

/* "key\t: value" of the first cpu in /proc/cpuinfo */
static int cpuinfo(const char *key, char *val, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char *line = NULL;
	size_t cap = 0;
	int found = 0;

	if (!f)
		return 0;
	while (!found && getline(&line, &cap, f) > 0) {
		char *colon = strchr(line, ':');
		size_t k = strcspn(line, "\t:");

		if (!colon || k != strlen(key) || strncmp(line, key, k))
			continue;
		colon++;
		colon += strspn(colon, " ");
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(val, len, "%s", colon);
		found = 1;
	}
	free(line);
	fclose(f);
	return found;
}

LP_SELFTEST(selftest_cpu_matches_cpuinfo, "cpu: CPUID identification matches /proc/cpuinfo")
{
	static char flags[8192];
	struct lp_cpu_info ci;
	char v[256];

	if (cpu__read(&ci))
		TEST_SKIP("no CPUID on this architecture");
	if (!cpuinfo("vendor_id", v, sizeof(v)))
		TEST_SKIP("no vendor_id in /proc/cpuinfo");
	TEST_ASSERT(!strcmp(v, ci.vendor), "cpuinfo %.20s, cpuid %s", v, ci.vendor);
	TEST_ASSERT(cpuinfo("cpu family", v, sizeof(v)) && (unsigned)atoi(v) == ci.family,
		    "family %.20s vs %u", v, ci.family);
	TEST_ASSERT(cpuinfo("model", v, sizeof(v)) && (unsigned)atoi(v) == ci.model,
		    "model %.20s vs %u", v, ci.model);
	TEST_ASSERT(cpuinfo("stepping", v, sizeof(v)) && (unsigned)atoi(v) == ci.stepping,
		    "stepping %.20s vs %u", v, ci.stepping);
	/*
	 * The kernel may name the CPU itself rather than print CPUID's brand
	 * string (seen: 'AMD EPYC' for a bhyve guest whose brand string is
	 * 'Oxide Virtual Turin-like Processor'), so a difference is logged.
	 */
	if (cpuinfo("model name", v, sizeof(v)) && strcmp(v, ci.name))
		TEST_LOG("model name '%.60s' in /proc/cpuinfo, brand string '%.60s'", v, ci.name);
	if (cpuinfo("flags", flags, sizeof(flags))) {
		strcat(flags, " ");
		TEST_ASSERT(!!strstr(flags, " hypervisor ") == ci.hypervisor,
			    "cpuinfo flags and CPUID.1:ECX[31] disagree (%d)", ci.hypervisor);
	}
	return TEST_OK;
}

LP_SELFTEST(selftest_cpu_signature_decoding, "cpu: family/model decoding of CPUID signatures")
{
	static const struct { u32 eax; unsigned int family, model, stepping; } sig[] = {
		{ 0x000a0671, 6, 0xa7, 1 },	/* Rocket Lake: extended model */
		{ 0x00a10f11, 0x19, 0x11, 1 },	/* Zen 4: extended family and model */
		{ 0x00000f29, 0xf, 0x2, 9 },	/* Pentium 4: family 0xf, ext 0 */
		{ 0x00010543, 5, 0x4, 3 },	/* family 5: extended model ignored */
	};
	unsigned int f, m, s;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sig); i++) {
		cpu__decode_signature(sig[i].eax, &f, &m, &s);
		TEST_ASSERT(f == sig[i].family && m == sig[i].model && s == sig[i].stepping,
			    "0x%08x: %u/%u/%u", sig[i].eax, f, m, s);
	}
	return TEST_OK;
}

LP_SELFTEST(selftest_topology_cpu0_caches, "topology: cpu0 caches equal sysfs index*/size")
{
	static struct lp_topology t;
	char path[128], size[32], type[32];
	int idx, level, checked = 0;

	TEST_ASSERT(topology__read(&t, NULL) == 0, "topology__read");
	TEST_ASSERT(t.ncpus == sysconf(_SC_NPROCESSORS_ONLN), "ncpus %d vs %ld", t.ncpus,
		    sysconf(_SC_NPROCESSORS_ONLN));
	for (idx = 0; idx < 16; idx++) {
		FILE *f;
		unsigned long long kb;
		int i, found = 0;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", idx);
		if (!(f = fopen(path, "r")))
			break;
		if (fscanf(f, "%31s", size) != 1)
			size[0] = '\0';
		fclose(f);
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/level", idx);
		f = fopen(path, "r");
		TEST_ASSERT(f && fscanf(f, "%d", &level) == 1, "level");
		fclose(f);
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/type", idx);
		f = fopen(path, "r");
		TEST_ASSERT(f && fscanf(f, "%31s", type) == 1, "type");
		fclose(f);
		TEST_ASSERT(sscanf(size, "%lluK", &kb) == 1, "size '%s'", size);
		for (i = 0; i < t.ncaches; i++)
			if (t.caches[i].level == level && !strcmp(t.caches[i].type, type) &&
			    lp_cpuset__has(&t.caches[i].cpus, 0))
				found = t.caches[i].size == kb * 1024;
		TEST_ASSERT(found, "index%d: L%d %s %s not found", idx, level, type, size);
		checked++;
	}
	if (!checked)
		TEST_SKIP("no cache information in sysfs");
	return TEST_OK;
}

LP_SELFTEST(selftest_kernel_features, "kernel: sigtrap and modify-attributes work")
{
	struct lp_debugreg_probe bp;
	struct lp_kernel_probe k;

	probe__kernel(&k);
	probe__debug_registers(&bp);
	TEST_LOG("sigtrap %d (%s)", k.sigtrap.ok, k.sigtrap.reason);
	TEST_LOG("modify-attributes %d (%s)", k.modify_attributes.ok, k.modify_attributes.reason);
	if (perf__kernel_at_least(5, 13) == 1)
		TEST_ASSERT(k.sigtrap.ok, "Linux 5.13+ but sigtrap: %.150s", k.sigtrap.reason);
	else
		TEST_SKIP("kernel %s is older than 5.13", k.release);
	if (!bp.count)
		TEST_SKIP("no breakpoints for modify-attributes");
	if (!bp.fires)
		TEST_SKIP("modify-attributes cannot be checked: %.200s", bp.fire_reason);
	TEST_ASSERT(k.modify_attributes.ok, "%.200s", k.modify_attributes.reason);
	return TEST_OK;
}
