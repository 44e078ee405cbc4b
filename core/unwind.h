/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DWARF call paths from a copy of the user stack (PERF_SAMPLE_STACK_USER)
 * and the user registers of a sample, where frame pointers are missing:
 * libdwfl unwinds over the copy with the CFI (.eh_frame) of the files the
 * process maps, as perf's util/unwind-libdw.c does. The process must still
 * run: its mappings are read from /proc/PID/maps (once per process, again
 * when an address falls outside them), memory outside the copy from
 * /proc/PID/mem.
 */
#ifndef LP_UNWIND_H
#define LP_UNWIND_H
#include <sys/types.h>

#include "core/types.h"

struct lp_unwinder;

struct lp_unwinder *unwind__new(void);
void unwind__delete(struct lp_unwinder *u);

/*
 * Up to @max program counters of thread @tid of process @pid into @pcs,
 * innermost first: regs[LP_REG_IP], then the return addresses. @regs is
 * indexed by LP_REG_* (IP, SP and BP at least, the callee-saved ones
 * where known); @stack holds @stack_size bytes copied from regs[LP_REG_SP]
 * up. Returns the frames found (>= 1), or -errno.
 */
int unwind__frames(struct lp_unwinder *u, pid_t pid, pid_t tid, const u64 *regs,
		   const void *stack, u64 stack_size, u64 *pcs, int max);

/* Forget process @pid (it exited). */
void unwind__forget(struct lp_unwinder *u, pid_t pid);

#endif
