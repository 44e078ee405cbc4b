// SPDX-License-Identifier: GPL-2.0
/*
 * AMD IBS facility (DESIGN §3.3). The probe needs the ibs_op PMU in sysfs,
 * Linux 6.2+ for per-thread use, and an ibs_op event that opens on this
 * process.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/cpu.h"
#include "core/facility.h"
#include "core/perf-util.h"

#define IBS_DIR "/sys/bus/event_source/devices"

/* "caps: name=value ..." from <pmu>/caps/, empty if none. */
static void read_caps(const char *pmu, char *buf, size_t len)
{
	char path[512], val[64];
	struct dirent *de;
	size_t n = 0;
	DIR *dir;

	buf[0] = '\0';
	snprintf(path, sizeof(path), IBS_DIR "/%s/caps", pmu);
	dir = opendir(path);
	if (!dir)
		return;
	while ((de = readdir(dir)) && n < len) {
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), IBS_DIR "/%s/caps/%s", pmu, de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (!fgets(val, sizeof(val), f))
			val[0] = '\0';
		fclose(f);
		val[strcspn(val, "\n")] = '\0';
		n += snprintf(buf + n, len - n, "%s%s=%s", n ? " " : "caps: ",
			      de->d_name, val);
	}
	closedir(dir);
}

static int ibs_probe(struct lp_probe *res)
{
	struct perf_event_attr a;
	struct lp_cpu_info ci;
	int op, fetch, fd, recent, n;
	char caps[96];

	memset(res, 0, sizeof(*res));
	op = perf__pmu_type("ibs_op");
	fetch = perf__pmu_type("ibs_fetch");
	if (op < 0) {
		cpu__read(&ci);
		if (fetch >= 0)
			snprintf(res->reason, sizeof(res->reason), "only ibs_fetch (type %d) "
				 "in sysfs; memory sampling needs ibs_op", fetch);
		else if (!cpu__is_amd(&ci))
			snprintf(res->reason, sizeof(res->reason), "no ibs_op/ibs_fetch PMU in "
				 "sysfs: IBS is AMD only (this is %s)", ci.vendor);
		else
			snprintf(res->reason, sizeof(res->reason), "no ibs_op/ibs_fetch PMU in "
				 "sysfs: %s", ci.hypervisor ? "this VM does not expose IBS" :
				 "the kernel does not expose IBS");
		return 0;
	}
	read_caps("ibs_op", caps, sizeof(caps));
	recent = perf__kernel_at_least(6, 2);
	if (recent != 1) {
		snprintf(res->reason, sizeof(res->reason), "ibs_op (type %d) present %s, but "
			 "kernel %s is older than 6.2: no per-thread IBS", op, caps,
			 perf__kernel_release());
		return 0;
	}
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = op;
	a.sample_period = 0x10000;	/* IBS periods are multiples of 16 */
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_RAW;
	a.disabled = 1;			/* no exclude_* bits: IBS rejects them */
	fd = perf__open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		n = snprintf(res->reason, sizeof(res->reason), "ibs_op (type %d) present, but ", op);
		perf__strerror(fd, &a, "ibs", res->reason + n, sizeof(res->reason) - n);
		return 0;
	}
	close(fd);
	res->usable = 1;
	n = snprintf(res->reason, sizeof(res->reason), "ibs_op (type %d) opens per thread", op);
	if (fetch >= 0)
		n += snprintf(res->reason + n, sizeof(res->reason) - n, "; ibs_fetch (type %d)",
			      fetch);
	if (caps[0])
		snprintf(res->reason + n, sizeof(res->reason) - n, "; %s", caps);
	return 0;
}

const struct lp_facility_ops lp_facility_ibs = {
	.name = "ibs",
	.desc = "AMD IBS: tagged ops with data address",
	.probe = ibs_probe,
	.period_unit = "events",
};
