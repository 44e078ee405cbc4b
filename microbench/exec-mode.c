// SPDX-License-Identifier: GPL-2.0
/*
 * Exec-Mode (Sasongko 2022, Listings 4.4-4.5), without a kernel module: the
 * seed's loop entered a module's ioctl that made a locked add in the kernel.
 * Here every iteration makes one cheap system call, getppid(2), so the
 * thread switches to the kernel and back once per iteration:
 *
 *   movl $110,%eax; syscall; movl (%r9),%edx; subq $1,%r8; cmpq $0,%r8; jne
 *
 * The user-space loop holds no locked instruction (a locked sample "in user
 * mode" would be misattributed), one load, and the kernel time of getppid;
 * what the kernel does inside getppid is not known exactly, so --expect
 * gives no kernel-side counts: a profiler that samples user mode only
 * (exclude_kernel) should see no kernel sample, and its user samples should
 * cover the user CPU time only.
 */
#include "microbench/mb.h"
#include "microbench/pes.h"

/* ------------------------------------------------------------ the loop */

#define FN(name) ".text\n.globl " name "\n.type " name ",@function\n.p2align 6\n" name ":\n"
#define END(name) ".size " name ", .-" name "\n"

#include <sys/syscall.h>

__asm__(
	FN("exec_mode_loop")
	"	mov %rdi, %r8\n"
	"	mov %rsi, %r9\n"
	".Lem_0: movl $" "110" ", %eax\n"
	".Lem_1: syscall\n"
	".Lem_2: movl (%r9), %edx\n"
	".Lem_3: subq $1, %r8\n"
	".Lem_4: cmpq $0, %r8\n"
	".Lem_5: jne .Lem_0\n"
	"	ret\n"
	".Lem_end:\n"
	END("exec_mode_loop")
	".section .rodata\n.p2align 2\n"
	"em_offs: .long .Lem_0-exec_mode_loop, .Lem_1-exec_mode_loop, "
	".Lem_2-exec_mode_loop, .Lem_3-exec_mode_loop, .Lem_4-exec_mode_loop, "
	".Lem_5-exec_mode_loop, .Lem_end-exec_mode_loop\n"
	".text\n");

_Static_assert(SYS_getppid == 110, "the loop passes getppid's x86-64 number");

/* syscall clobbers rax, rcx, r11: all caller-saved, and the loop keeps its
 * state in r8/r9 */
void exec_mode_loop(long iters, const volatile int *p);
extern const int em_offs[];

/* ------------------------------------------------------------ the program */

static volatile int em_data = 1;
static struct mb_common opt;

static const struct mb_info info = {
	.name = "exec-mode",
	.summary = "One thread makes one getppid(2) system call per iteration, plus one\n"
		   "user-space load and no locked instruction (Sasongko 2022, Listing 4.4,\n"
		   "without the kernel module). --expect prints the exact dynamic counts of\n"
		   "the user-space loop and each instruction's offset from exec_mode_loop.",
	.def_threads = 1, .max_threads = 1,
	.def_iters = 2000000, .iters_help = "loop iterations (system calls)",
	.threads_help = "threads (always 1)",
};

static void expect(void)
{
	long long it = opt.iters;
	struct pes_insn in[] = {
		{ "mov nr", "movl $110,%eax", "none", .count = it },
		{ "syscall", "syscall (getppid)", "none", .syscall = 1, .count = it },
		{ "load", "movl (%r9),%edx", "load", .count = it },
		{ "sub", "subq $1,%r8", "none", .count = it },
		{ "cmp", "cmpq $0,%r8", "none", .count = it },
		{ "jne", "jne loop", "none", .branch = 1, .count = it, .taken = it ? it - 1 : 0 },
	};
	struct mb_json j;

	pes_expect(&j, info.name, "exec_mode_loop", (const void *)exec_mode_loop,
		   em_offs, in, 6, opt.iters);
	mb_json_str(&j, "kernel", "one getppid(2) per iteration; the kernel's own "
		    "instructions are not counted (no kernel module: their number is unknown)");
	mb_json_int(&j, "user_locked", 0);
	mb_json_obj_end(&j);
}

int main(int argc, char **argv)
{
	mb_parse(&opt, &info, argc, argv);
	if (opt.expect) {
		expect();
		return 0;
	}
	if (opt.iters > 0)
		exec_mode_loop(opt.iters, &em_data);
	return 0;
}
