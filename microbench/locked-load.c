// SPDX-License-Identifier: GPL-2.0
/*
 * Locked-Load (Sasongko 2022, 4.3.2): the 1/4 Load-Ratio loop with the load
 * turned into a locked read-modify-write, so that a profiler's own code
 * (which has no locked instructions) cannot add to the sampled event:
 *
 *   lock addl $1,(%rax); subq $1,%rcx; cmpq $0,%rcx; jne
 *
 * One instruction in four is locked (and is both a load and a store).
 */
#include "microbench/mb.h"
#include "microbench/pes.h"

/* ------------------------------------------------------------ the loop */

#define FN(name) ".text\n.globl " name "\n.type " name ",@function\n.p2align 6\n" name ":\n"
#define END(name) ".size " name ", .-" name "\n"

__asm__(
	FN("locked_load_loop")
	"	mov %rdi, %rcx\n"
	"	mov %rsi, %rax\n"
	".Lll_0: lock addl $1, (%rax)\n"
	".Lll_1: subq $1, %rcx\n"
	".Lll_2: cmpq $0, %rcx\n"
	".Lll_3: jne .Lll_0\n"
	"	ret\n"
	".Lll_end:\n"
	END("locked_load_loop")
	".section .rodata\n.p2align 2\n"
	"ll_offs: .long .Lll_0-locked_load_loop, .Lll_1-locked_load_loop, "
	".Lll_2-locked_load_loop, .Lll_3-locked_load_loop, .Lll_end-locked_load_loop\n"
	".text\n");

void locked_load_loop(long iters, volatile int *p);
extern const int ll_offs[];

/* ------------------------------------------------------------ the program */

static volatile int ll_data;
static struct mb_common opt;

static const struct mb_info info = {
	.name = "locked-load",
	.summary = "One thread runs the 1/4 Load-Ratio loop with a locked add as its load\n"
		   "(Sasongko 2022, 4.3.2). --expect prints the exact dynamic counts and each\n"
		   "loop instruction's offset from the symbol locked_load_loop.",
	.def_threads = 1, .max_threads = 1,
	.def_iters = 30000000, .iters_help = "loop iterations",
	.threads_help = "threads (always 1)",
};

static void expect(void)
{
	long long it = opt.iters;
	struct pes_insn in[] = {
		{ "lock add", "lock addl $1,(%rax)", "atomic", .locked = 1, .count = it },
		{ "sub", "subq $1,%rcx", "none", .count = it },
		{ "cmp", "cmpq $0,%rcx", "none", .count = it },
		{ "jne", "jne loop", "none", .branch = 1, .count = it, .taken = it ? it - 1 : 0 },
	};
	struct mb_json j;

	pes_expect(&j, info.name, "locked_load_loop", (const void *)locked_load_loop,
		   ll_offs, in, 4, opt.iters);
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
		locked_load_loop(opt.iters, &ll_data);
	return 0;
}
