// SPDX-License-Identifier: GPL-2.0
/*
 * Intel PEBS facility (DESIGN §3.2). The probe needs a core PMU in sysfs
 * and a precise memory event that really opens on this process.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <perfmon/pfmlib.h>

#include "core/cpu.h"
#include "core/facility.h"
#include "core/perf-util.h"

/* Load events with a data address, newest microarchitectures first. */
static const char *const pebs_load_events[] = {
	"MEM_INST_RETIRED:ALL_LOADS",	/* Skylake .. SPR, ADL/RPL P-cores */
	"MEM_UOPS_RETIRED:ALL_LOADS",	/* Haswell, Broadwell */
};

#define PEBS_RAW_ALL_LOADS 0x81d0

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

/* libpfm4's encoding of the first load event it knows; 0 or -ENOENT. */
static int encode_load_event(u64 *config, const char **name)
{
	struct perf_event_attr a;
	struct pfm_perf_arg arg;
	size_t i;

	if (pfm_initialize() != PFM_SUCCESS)
		return -ENOENT;
	for (i = 0; i < ARRAY_SIZE(pebs_load_events); i++) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);	/* libpfm4 checks it */
		memset(&arg, 0, sizeof(arg));
		arg.attr = &a;
		arg.size = sizeof(arg);
		if (pfm_get_os_event_encoding(pebs_load_events[i], PFM_PLM3,
					      PFM_OS_PERF_EVENT, &arg) == PFM_SUCCESS) {
			*config = a.config;
			*name = pebs_load_events[i];
			return 0;
		}
	}
	return -ENOENT;
}

static int pebs_probe(struct lp_probe *res)
{
	static const char *const pmus[] = { "cpu_core", "cpu", "cpu_atom" };
	struct perf_event_attr a;
	struct lp_cpu_info ci;
	const char *pmu = NULL, *event;
	u64 config;
	int type = -1, fd, n;
	size_t i;

	memset(res, 0, sizeof(*res));
	cpu__read(&ci);
	for (i = 0; i < ARRAY_SIZE(pmus) && type < 0; i++) {
		type = perf__pmu_type(pmus[i]);
		pmu = pmus[i];
	}
	if (type < 0) {
		snprintf(res->reason, sizeof(res->reason),
			 "no core PMU in sysfs (/sys/bus/event_source/devices/cpu, cpu_core, cpu_atom): "
			 "%s", ci.hypervisor ? "this VM exposes no hardware PMU" :
			 "the kernel exposes no hardware PMU");
		return 0;
	}
	if (!cpu__is_intel(&ci)) {
		snprintf(res->reason, sizeof(res->reason),
			 "core PMU '%s' present, but PEBS is Intel only (this is %s)",
			 pmu, ci.vendor);
		return 0;
	}
	if (encode_load_event(&config, &event)) {
		config = PEBS_RAW_ALL_LOADS;
		event = "raw 0x81d0 (libpfm4 knows no load event here)";
	}
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.precise_ip = 2;
	a.sample_period = 10007;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.disabled = 1;
	fd = perf__open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		n = snprintf(res->reason, sizeof(res->reason), "core PMU '%s' present, but ", pmu);
		perf__strerror(fd, &a, "pebs", res->reason + n, sizeof(res->reason) - n);
		return 0;
	}
	close(fd);
	res->usable = 1;
	snprintf(res->reason, sizeof(res->reason),
		 "PMU '%s' (type %d): %s (0x%llx) opens with precise_ip=2 and data address",
		 pmu, type, event, (unsigned long long)config);
	return 0;
}

const struct lp_facility_ops lp_facility_pebs = {
	.name = "pebs",
	.desc = "Intel PEBS: precise loads/stores with data address",
	.probe = pebs_probe,
	.period_unit = "events",
};
