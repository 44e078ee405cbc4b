// SPDX-License-Identifier: GPL-2.0
/*
 * DWARF unwinding over a stack copy (unwind.h). One Dwfl per process,
 * attached with our own thread callbacks: the initial registers are the
 * sample's, memory reads come from the copy, else from /proc/PID/mem.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elfutils/libdwfl.h>

#include "core/perf-record.h"
#include "core/unwind.h"

#define UNWIND_PROCS 8		/* processes kept (each a Dwfl with its files) */

/* What the callbacks read: the sample being unwound. */
struct uctx {
	pid_t pid, tid;
	const u64 *regs;
	const u8 *stack;
	u64 sp, stack_size;
	int memfd;
	u64 *pcs;
	int n, max;
};

struct uproc {
	pid_t pid;		/* 0: free */
	Dwfl *dwfl;
	struct uctx ctx;	/* the Dwfl's callback argument */
	u64 used;		/* LRU stamp */
};

struct lp_unwinder {
	struct uproc procs[UNWIND_PROCS];
	u64 clock;
};

static char *debuginfo_path;

/* Only the files themselves: .eh_frame is all the unwinder needs. */
static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			Dwarf_Addr base, const char *file_name, const char *debuglink,
			GElf_Word crc, char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
	(void)debuglink, (void)crc, (void)debuginfo_file_name;
	return -1;
}

static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = no_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct uctx *c = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = c;
	return c->tid;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct uctx *c = arg;

	(void)dwfl;
	if (addr >= c->sp && addr - c->sp + sizeof(*result) <= c->stack_size) {
		memcpy(result, c->stack + (addr - c->sp), sizeof(*result));
		return true;
	}
	/* beyond the copy: the process now (not the stack: it has moved on) */
	if (addr >= c->sp && addr - c->sp < (1u << 20))
		return false;
	if (c->memfd < 0) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/mem", c->pid);
		c->memfd = open(path, O_RDONLY | O_CLOEXEC);
		if (c->memfd < 0)
			return false;
	}
	return pread(c->memfd, result, sizeof(*result), (off_t)addr) == sizeof(*result);
}

/* DWARF x86-64 numbering: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip. */
static const u8 dwarf_to_lp[17] = {
	LP_REG_AX, LP_REG_DX, LP_REG_CX, LP_REG_BX, LP_REG_SI, LP_REG_DI, LP_REG_BP,
	LP_REG_SP, LP_REG_R8, LP_REG_R9, LP_REG_R10, LP_REG_R11, LP_REG_R12, LP_REG_R13,
	LP_REG_R14, LP_REG_R15, LP_REG_IP,
};

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct uctx *c = arg;
	Dwarf_Word dw[17];
	int i;

	for (i = 0; i < 17; i++)
		dw[i] = c->regs[dwarf_to_lp[i]];
	return dwfl_thread_state_registers(thread, 0, 17, dw);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct uctx *c = arg;
	Dwarf_Addr pc;
	bool act;

	if (!dwfl_frame_pc(state, &pc, &act) || !pc)
		return DWARF_CB_ABORT;
	c->pcs[c->n++] = pc;
	return c->n < c->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

struct lp_unwinder *unwind__new(void)
{
	return calloc(1, sizeof(struct lp_unwinder));
}

static void proc_drop(struct uproc *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	if (p->ctx.memfd >= 0)
		close(p->ctx.memfd);
	memset(p, 0, sizeof(*p));
}

void unwind__delete(struct lp_unwinder *u)
{
	int i;

	if (!u)
		return;
	for (i = 0; i < UNWIND_PROCS; i++)
		if (u->procs[i].pid)
			proc_drop(&u->procs[i]);
	free(u);
}

void unwind__forget(struct lp_unwinder *u, pid_t pid)
{
	int i;

	for (i = 0; u && i < UNWIND_PROCS; i++)
		if (u->procs[i].pid == pid)
			proc_drop(&u->procs[i]);
}

/* The process's Dwfl, its modules reported from /proc/PID/maps. */
static struct uproc *proc_get(struct lp_unwinder *u, pid_t pid, u64 ip)
{
	struct uproc *p = NULL;
	int i;

	for (i = 0; i < UNWIND_PROCS; i++)
		if (u->procs[i].pid == pid)
			p = &u->procs[i];
	/* an address outside every file: mapped since (dlopen), report again */
	if (p && !dwfl_addrmodule(p->dwfl, ip))
		proc_drop(p), p = NULL;
	if (!p) {
		for (i = 0; i < UNWIND_PROCS; i++)
			if (!p || !u->procs[i].pid || (p->pid && u->procs[i].used < p->used))
				p = &u->procs[i];
		if (p->pid)
			proc_drop(p);
		p->ctx.memfd = -1;
		p->dwfl = dwfl_begin(&proc_callbacks);
		if (!p->dwfl)
			return NULL;
		p->pid = pid;
		dwfl_report_begin(p->dwfl);
		if (dwfl_linux_proc_report(p->dwfl, pid) || dwfl_report_end(p->dwfl, NULL, NULL) ||
		    !dwfl_attach_state(p->dwfl, NULL, pid, &thread_callbacks, &p->ctx)) {
			proc_drop(p);
			return NULL;
		}
	}
	p->used = ++u->clock;
	return p;
}

int unwind__frames(struct lp_unwinder *u, pid_t pid, pid_t tid, const u64 *regs,
		   const void *stack, u64 stack_size, u64 *pcs, int max)
{
	struct uproc *p;
	struct uctx *c;

	if (max < 1)
		return -EINVAL;
	p = proc_get(u, pid, regs[LP_REG_IP]);
	if (!p)
		return -ENOENT;
	c = &p->ctx;
	c->pid = pid;
	c->tid = tid;
	c->regs = regs;
	c->stack = stack;
	c->sp = regs[LP_REG_SP];
	c->stack_size = stack_size;
	c->pcs = pcs;
	c->n = 0;
	c->max = max;
	/* stops at the outermost frame or at the first it cannot unwind: what came before stands */
	dwfl_getthread_frames(p->dwfl, tid, frame_cb, c);
	return c->n ? c->n : -ENOENT;
}
