// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/hw_breakpoint.h>

#include "core/perf-util.h"
#include "core/probe.h"

#define LP_TRAP_PERF 6			/* si_code of a sigtrap perf event */
#define SIGINFO_PERF_DATA_OFF 24	/* siginfo_t::si_perf_data */

/* What the probes watch: one 8-byte slot per breakpoint, each aligned. */
static volatile u64 probe_slots[LP_PROBE_MAX_BP] __attribute__((aligned(64)));

static void bp_attr(struct perf_event_attr *a, volatile void *addr)
{
	perf__bp_attr(a, HW_BREAKPOINT_W, (u64)(unsigned long)addr, HW_BREAKPOINT_LEN_8);
	a->disabled = 1;
}

/* One enabled W watchpoint, three writes to it, one next door: count 3. */
static void probe_fires(struct lp_debugreg_probe *res)
{
	struct perf_event_attr a;
	u64 count = 0;
	int fd;

	perf__bp_attr(&a, HW_BREAKPOINT_W, (u64)(unsigned long)&probe_slots[0],
		      HW_BREAKPOINT_LEN_8);
	fd = perf__open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		perf__strerror(fd, &a, "watchpoint", res->fire_reason, sizeof(res->fire_reason));
		return;
	}
	probe_slots[0]++;
	probe_slots[1]++;
	probe_slots[0]++;
	probe_slots[0]++;
	if (read(fd, &count, sizeof(count)) != sizeof(count))
		snprintf(res->fire_reason, sizeof(res->fire_reason), "reading it: %s",
			 strerror(errno));
	else if (count == 3)
		res->fires = 1;
	if (res->fires)
		snprintf(res->fire_reason, sizeof(res->fire_reason),
			 "a write watchpoint caught 3 of 3 writes");
	else if (!res->fire_reason[0])
		snprintf(res->fire_reason, sizeof(res->fire_reason),
			 "a write watchpoint opened but caught %llu of 3 writes: this machine "
			 "(hypervisor) does not deliver debug exceptions, so no watchpoint "
			 "ever traps", (unsigned long long)count);
	close(fd);
}

int probe__debug_registers(struct lp_debugreg_probe *res)
{
	struct perf_event_attr a;
	int fds[LP_PROBE_MAX_BP], i, fd = 0;

	memset(res, 0, sizeof(*res));
	/* a slot is reserved when the event is created, enabled or not */
	for (i = 0; i < LP_PROBE_MAX_BP; i++) {
		bp_attr(&a, &probe_slots[i]);
		fd = perf__open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			break;
		fds[i] = fd;
	}
	res->count = i;
	if (fd < 0) {
		res->err = -fd;
		perf__strerror(fd, &a, "debug registers", res->reason, sizeof(res->reason));
	} else {
		snprintf(res->reason, sizeof(res->reason),
			 "all %d breakpoints opened (probe stops there)", LP_PROBE_MAX_BP);
	}
	while (i-- > 0)
		close(fds[i]);
	if (res->count)
		probe_fires(res);
	return 0;
}

/*
 * Open a breakpoint on one slot, move it with MODIFY_ATTRIBUTES, and check
 * that it then counts writes to the new address and not to the old one.
 */
static void probe_modify_attributes(struct lp_feature *f)
{
	struct perf_event_attr a, moved;
	u64 count = 0;
	int fd;

	bp_attr(&a, &probe_slots[0]);
	fd = perf__open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		perf__strerror(fd, &a, "modify-attributes needs a breakpoint", f->reason,
			       sizeof(f->reason));
		return;
	}
	moved = a;
	moved.bp_addr = (u64)(unsigned long)&probe_slots[1];
	if (ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &moved)) {
		snprintf(f->reason, sizeof(f->reason),
			 "ioctl PERF_EVENT_IOC_MODIFY_ATTRIBUTES: %s (%s): needs Linux 4.17+, "
			 "this kernel is %s", strerror(errno), perf__errno_name(errno),
			 perf__kernel_release());
		goto out;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	/* unmoved it would count 2, moved exactly 1 */
	probe_slots[0]++;
	probe_slots[0]++;
	probe_slots[1]++;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &count, sizeof(count)) != sizeof(count)) {
		snprintf(f->reason, sizeof(f->reason), "reading the moved breakpoint: %s",
			 strerror(errno));
		goto out;
	}
	if (count == 0) {
		snprintf(f->reason, sizeof(f->reason), "not known: the ioctl succeeded but the "
			 "breakpoint caught no write at either address (watchpoints do not fire "
			 "on this machine)");
		goto out;
	}
	if (count != 1) {
		snprintf(f->reason, sizeof(f->reason), "ioctl succeeded but the moved "
			 "breakpoint counted %llu writes, expected 1 (2 at the old address, 1 at the new)",
			 (unsigned long long)count);
		goto out;
	}
	f->ok = 1;
	snprintf(f->reason, sizeof(f->reason), "moved a watchpoint; it caught the write "
		 "at the new address only");
out:
	close(fd);
}

static volatile sig_atomic_t trap_code = -1;
static volatile u64 trap_data;

static void on_sigtrap(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	trap_code = si->si_code;
	memcpy((void *)&trap_data, (char *)si + SIGINFO_PERF_DATA_OFF, sizeof(trap_data));
}

static double thread_cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * A 1 ms cpu-clock with sigtrap on this thread must deliver SIGTRAP with
 * si_code TRAP_PERF and our sig_data.
 */
static void probe_sigtrap(struct lp_feature *f)
{
	struct sigaction sa, old;
	struct perf_event_attr a;
	double start;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000000;	/* 1 ms */
	a.exclude_kernel = 1;
	a.disabled = 1;
	a.sigtrap = 1;
	a.remove_on_exec = 1;
	a.sig_data = 0x10c1;
	fd = perf__open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		perf__strerror(fd, &a, "sigtrap", f->reason, sizeof(f->reason));
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigtrap;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTRAP, &sa, &old);
	trap_code = -1;
	trap_data = 0;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	start = thread_cpu_ms();
	while (trap_code == -1 && thread_cpu_ms() - start < 200)
		;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	close(fd);
	sigaction(SIGTRAP, &old, NULL);
	if (trap_code == -1)
		snprintf(f->reason, sizeof(f->reason), "the event opened but no SIGTRAP "
			 "arrived in 200 ms of CPU time");
	else if (trap_code != LP_TRAP_PERF || trap_data != 0x10c1)
		snprintf(f->reason, sizeof(f->reason), "SIGTRAP arrived with si_code %d, "
			 "si_perf_data 0x%llx (expected %d, 0x10c1)", (int)trap_code,
			 (unsigned long long)trap_data, LP_TRAP_PERF);
	else {
		f->ok = 1;
		snprintf(f->reason, sizeof(f->reason), "cpu-clock overflow delivered "
			 "SIGTRAP (TRAP_PERF) with sig_data");
	}
}

int probe__privileged(char *by, size_t len)
{
	unsigned long long eff = 0;
	char line[256];
	size_t n = 0;
	FILE *f;

	if (len)
		by[0] = '\0';
	f = fopen("/proc/self/status", "re");
	if (f) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "CapEff: %llx", &eff) == 1)
				break;
		fclose(f);
	}
	if (geteuid() == 0 && n < len)
		n += snprintf(by + n, len - n, "euid 0");
	if ((eff >> 38 & 1) && n < len)	/* CAP_PERFMON */
		n += snprintf(by + n, len - n, "%sCAP_PERFMON", n ? ", " : "");
	if ((eff >> 21 & 1) && n < len)	/* CAP_SYS_ADMIN */
		n += snprintf(by + n, len - n, "%sCAP_SYS_ADMIN", n ? ", " : "");
	if (!n) {
		snprintf(by, len, "no");
		return 0;
	}
	return 1;
}

int probe__kernel(struct lp_kernel_probe *k)
{
	memset(k, 0, sizeof(*k));
	snprintf(k->release, sizeof(k->release), "%s", perf__kernel_release());
	probe_sigtrap(&k->sigtrap);
	probe_modify_attributes(&k->modify_attributes);
	k->uprobe_type = perf__pmu_type("uprobe");
	if (k->uprobe_type >= 0) {
		k->uprobes.ok = 1;
		snprintf(k->uprobes.reason, sizeof(k->uprobes.reason),
			 "PMU 'uprobe', type %d", k->uprobe_type);
	} else {
		k->uprobe_type = -1;
		snprintf(k->uprobes.reason, sizeof(k->uprobes.reason),
			 "no /sys/bus/event_source/devices/uprobe (kernel without "
			 "CONFIG_UPROBE_EVENTS, or before 4.17)");
	}
	k->paranoid_ok = perf__paranoid(&k->paranoid) == 0;
	k->privileged = probe__privileged(k->privileged_by, sizeof(k->privileged_by));
	return 0;
}

int probe__facilities(struct lp_facility_status *st, int max)
{
	int i;

	int nall;

	const struct lp_facility_ops *const *all = lp_facility__list(&nall);

	for (i = 0; i < nall && i < max; i++) {
		memset(&st[i], 0, sizeof(st[i]));
		st[i].ops = all[i];
		if (!st[i].ops->probe) {
			snprintf(st[i].probe.reason, sizeof(st[i].probe.reason), "no probe");
			continue;
		}
		st[i].ret = st[i].ops->probe(&st[i].probe);
		if (st[i].ret < 0 && !st[i].probe.reason[0])
			snprintf(st[i].probe.reason, sizeof(st[i].probe.reason),
				 "probe failed: %s", strerror(-st[i].ret));
		if (st[i].ret < 0)
			st[i].probe.usable = 0;
	}
	return i;
}
