/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf_event_open and the one place that turns its failures into advice
 * (every failure says what failed and what to do).
 */
#ifndef LP_PERF_UTIL_H
#define LP_PERF_UTIL_H
#include <stddef.h>
#include <sys/types.h>
#include <linux/perf_event.h>
#include "core/types.h"

/* perf_event_open(2): the fd, or -errno. The kernel may rewrite attr->size (E2BIG). */
int perf__open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
	       unsigned long flags);

/*
 * Explain why opening @attr failed with @err (errno, either sign) for
 * @facility (a name such as "pebs", "watchpoint"; may be NULL): what was
 * opened, the error, and what to do. Returns the length written to @buf.
 */
int perf__strerror(int err, const struct perf_event_attr *attr, const char *facility,
		   char *buf, size_t len);

/*
 * A user-space hardware breakpoint on @len bytes at @addr, @type
 * HW_BREAKPOINT_R/W bits: everything else zero (counting, enabled).
 */
void perf__bp_attr(struct perf_event_attr *a, int type, u64 addr, int len);

/* "ENOSPC" for 28 (either sign); "E?" if unknown. */
const char *perf__errno_name(int err);

/* kernel.perf_event_paranoid into *level; 0 or -errno. */
int perf__paranoid(int *level);

/* Kernel release of this machine, as uname -r. */
const char *perf__kernel_release(void);
/* "6.18.44-fc" -> 6, 18. 0 or -EINVAL. */
int perf__parse_release(const char *release, int *major, int *minor);
/* 1 if this kernel is at least major.minor, 0 if older, -errno if unknown. */
int perf__kernel_at_least(int major, int minor);

/* Type of PMU @name from /sys/bus/event_source/devices/<name>/type, or -errno. */
int perf__pmu_type(const char *name);
/* Name of the PMU whose type is @type into @buf; 0 or -ENOENT. */
int perf__pmu_name(u32 type, char *buf, size_t len);

#endif
