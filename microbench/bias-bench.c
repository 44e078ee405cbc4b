// SPDX-License-Identifier: GPL-2.0
/*
 * Bias-Bench (Sasongko 2022, Listing 4.2): four identical loads of the same
 * word, then subq/cmpq/jne. Without bias each load gets 25% of the load
 * samples; with exact attribution no sample lands on subq, cmpq or jne.
 */
#include "microbench/mb.h"
#include "microbench/pes.h"

/* ------------------------------------------------------------ the loop */

#define FN(name) ".text\n.globl " name "\n.type " name ",@function\n.p2align 6\n" name ":\n"
#define END(name) ".size " name ", .-" name "\n"

__asm__(
	FN("bias_bench_loop")
	"	mov %rdi, %rcx\n"
	"	mov %rsi, %rax\n"
	".Lbb_0: movl (%rax), %edx\n"
	".Lbb_1: movl (%rax), %edx\n"
	".Lbb_2: movl (%rax), %edx\n"
	".Lbb_3: movl (%rax), %edx\n"
	".Lbb_4: subq $1, %rcx\n"
	".Lbb_5: cmpq $0, %rcx\n"
	".Lbb_6: jne .Lbb_0\n"
	"	ret\n"
	".Lbb_end:\n"
	END("bias_bench_loop")
	".section .rodata\n.p2align 2\n"
	"bb_offs: .long .Lbb_0-bias_bench_loop, .Lbb_1-bias_bench_loop, "
	".Lbb_2-bias_bench_loop, .Lbb_3-bias_bench_loop, .Lbb_4-bias_bench_loop, "
	".Lbb_5-bias_bench_loop, .Lbb_6-bias_bench_loop, .Lbb_end-bias_bench_loop\n"
	".text\n");

void bias_bench_loop(long iters, const volatile int *p);
extern const int bb_offs[];

/* ------------------------------------------------------------ the program */

static volatile int bb_data = 1;
static struct mb_common opt;

static const struct mb_info info = {
	.name = "bias-bench",
	.summary = "One thread runs four identical loads then subq/cmpq/jne per iteration\n"
		   "(Sasongko 2022, Listing 4.2). --expect prints the exact dynamic counts and\n"
		   "each loop instruction's offset from the symbol bias_bench_loop.",
	.def_threads = 1, .max_threads = 1,
	.def_iters = 150000000, .iters_help = "loop iterations",
	.threads_help = "threads (always 1)",
};

static void expect(void)
{
	long long it = opt.iters;
	struct pes_insn in[] = {
		{ "load 1", "movl (%rax),%edx", "load", .count = it },
		{ "load 2", "movl (%rax),%edx", "load", .count = it },
		{ "load 3", "movl (%rax),%edx", "load", .count = it },
		{ "load 4", "movl (%rax),%edx", "load", .count = it },
		{ "subq", "subq $1,%rcx", "none", .count = it },
		{ "cmpq", "cmpq $0,%rcx", "none", .count = it },
		{ "jne", "jne loop", "none", .branch = 1, .count = it, .taken = it ? it - 1 : 0 },
	};
	struct mb_json j;

	pes_expect(&j, info.name, "bias_bench_loop", (const void *)bias_bench_loop,
		   bb_offs, in, 7, opt.iters);
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
		bias_bench_loop(opt.iters, &bb_data);
	return 0;
}
