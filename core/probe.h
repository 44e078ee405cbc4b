/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What this machine offers, found by opening things rather than by reading
 * version numbers: debug registers, kernel perf features, facilities.
 */
#ifndef LP_PROBE_H
#define LP_PROBE_H
#include "core/facility.h"
#include "core/types.h"

#define LP_PROBE_MAX_BP 16	/* stop counting debug registers here */

struct lp_debugreg_probe {
	int count;		/* write watchpoints opened at once on one thread */
	int err;		/* errno that stopped the count, 0 if the cap was hit */
	char reason[512];	/* perf__strerror() of that failure */
	/*
	 * Whether an opened watchpoint catches anything: some hypervisors
	 * (seen: bhyve) let breakpoints open but never deliver the debug
	 * exception, so every trap-based detection is silently empty.
	 */
	int fires;		/* 1: a W watchpoint counted exactly the writes made */
	char fire_reason[256];	/* what was seen */
};

/* Open W/len-8 breakpoints on the calling thread until one fails, then
 * check that one catches writes (res->fires). 0. */
int probe__debug_registers(struct lp_debugreg_probe *res);

struct lp_feature {
	int ok;
	char reason[512];	/* what was checked, or why it failed */
};

struct lp_kernel_probe {
	char release[65];		/* uname -r */
	struct lp_feature sigtrap;	/* attr.sigtrap delivers SIGTRAP (5.13+) */
	struct lp_feature modify_attributes;	/* PERF_EVENT_IOC_MODIFY_ATTRIBUTES moves a breakpoint */
	struct lp_feature uprobes;	/* 'uprobe' PMU */
	int uprobe_type;		/* its type, -1 if none */
	int paranoid;			/* kernel.perf_event_paranoid */
	int paranoid_ok;		/* 0: could not read it */
	int privileged;			/* euid 0, CAP_PERFMON or CAP_SYS_ADMIN */
	char privileged_by[64];		/* "euid 0, CAP_PERFMON, CAP_SYS_ADMIN" or "no" */
};

/* Probe kernel features. Briefly installs a SIGTRAP handler. 0. */
int probe__kernel(struct lp_kernel_probe *k);

/* 1 if privileged for perf (euid 0 or CAP_PERFMON/CAP_SYS_ADMIN effective). */
int probe__privileged(char *by, size_t len);

struct lp_facility_status {
	const struct lp_facility_ops *ops;
	struct lp_probe probe;
	int ret;		/* what ->probe returned */
};

/* Run every facility's probe into @st (lp_nfacilities entries at most @max). */
int probe__facilities(struct lp_facility_status *st, int max);

#endif
