// SPDX-License-Identifier: GPL-2.0
/*
 * Load-Ratio (Sasongko 2022, Listing 4.1): a single-thread loop in which
 * exactly one instruction in N reads memory, N = --ratio 1..8. The loops are
 * written in assembly (top-level asm) so the compiler cannot change them;
 * each is a function symbol load_ratio_<N> whose instructions' offsets
 * --expect prints, so a profiler can map sample IPs to instructions.
 *
 *   1/1  add (%rsi),%rcx; cmovz (%r8),%r9; jmp *(%r9)   every one reads memory
 *   1/2  add (%rsi),%rcx; jne                           (%rsi) holds -1
 *   1/3  movl (%rax),%edx; subq $1,%rcx; jne
 *   1/4  movl (%rax),%edx; subq $1,%rcx; cmpq $0,%rcx; jne   (the listing)
 *   1/N  as 1/4 with N-4 "addl $1,%r8d" after the load (N = 5..8)
 *
 * cmovz with a memory source reads it whether or not the move happens
 * (Intel SDM, CMOVcc), and jmp *(%r9) reads its target: in 1/1 every
 * instruction is a load.
 */
#include "microbench/mb.h"
#include "microbench/pes.h"

/* ------------------------------------------------------------ the loops */

#define FN(name) ".text\n.globl " name "\n.type " name ",@function\n.p2align 6\n" name ":\n"
#define END(name) ".size " name ", .-" name "\n"

__asm__(
	/* 1/1: rsi -> -1, r8 -> pointer to the exit cell, r9 -> loop cell */
	FN("load_ratio_1")
	"	mov %rdi, %rcx\n"
	"	lea lr_minus1(%rip), %rsi\n"
	"	lea lr1_exit_ptr(%rip), %r8\n"
	"	lea lr1_loop_cell(%rip), %r9\n"
	".Llr1_0: add (%rsi), %rcx\n"
	".Llr1_1: cmovz (%r8), %r9\n"
	".Llr1_2: jmp *(%r9)\n"
	".Llr1_x: ret\n"
	".Llr1_end:\n"
	END("load_ratio_1")
	FN("load_ratio_2")
	"	mov %rdi, %rcx\n"
	"	lea lr_minus1(%rip), %rsi\n"
	".Llr2_0: add (%rsi), %rcx\n"
	".Llr2_1: jne .Llr2_0\n"
	"	ret\n"
	".Llr2_end:\n"
	END("load_ratio_2")
	FN("load_ratio_3")
	"	mov %rdi, %rcx\n"
	"	mov %rsi, %rax\n"
	".Llr3_0: movl (%rax), %edx\n"
	".Llr3_1: subq $1, %rcx\n"
	".Llr3_2: jne .Llr3_0\n"
	"	ret\n"
	".Llr3_end:\n"
	END("load_ratio_3")
	FN("load_ratio_4")
	"	mov %rdi, %rcx\n"
	"	mov %rsi, %rax\n"
	".Llr4_0: movl (%rax), %edx\n"
	".Llr4_1: subq $1, %rcx\n"
	".Llr4_2: cmpq $0, %rcx\n"
	".Llr4_3: jne .Llr4_0\n"
	"	ret\n"
	".Llr4_end:\n"
	END("load_ratio_4")
	FN("load_ratio_5")
	"	mov %rdi, %rcx\n"
	"	mov %rsi, %rax\n"
	".Llr5_0: movl (%rax), %edx\n"
	".Llr5_1: addl $1, %r8d\n"
	".Llr5_2: subq $1, %rcx\n"
	".Llr5_3: cmpq $0, %rcx\n"
	".Llr5_4: jne .Llr5_0\n"
	"	ret\n"
	".Llr5_end:\n"
	END("load_ratio_5")
	FN("load_ratio_6")
	"	mov %rdi, %rcx\n"
	"	mov %rsi, %rax\n"
	".Llr6_0: movl (%rax), %edx\n"
	".Llr6_1: addl $1, %r8d\n"
	".Llr6_2: addl $1, %r8d\n"
	".Llr6_3: subq $1, %rcx\n"
	".Llr6_4: cmpq $0, %rcx\n"
	".Llr6_5: jne .Llr6_0\n"
	"	ret\n"
	".Llr6_end:\n"
	END("load_ratio_6")
	FN("load_ratio_7")
	"	mov %rdi, %rcx\n"
	"	mov %rsi, %rax\n"
	".Llr7_0: movl (%rax), %edx\n"
	".Llr7_1: addl $1, %r8d\n"
	".Llr7_2: addl $1, %r8d\n"
	".Llr7_3: addl $1, %r8d\n"
	".Llr7_4: subq $1, %rcx\n"
	".Llr7_5: cmpq $0, %rcx\n"
	".Llr7_6: jne .Llr7_0\n"
	"	ret\n"
	".Llr7_end:\n"
	END("load_ratio_7")
	FN("load_ratio_8")
	"	mov %rdi, %rcx\n"
	"	mov %rsi, %rax\n"
	".Llr8_0: movl (%rax), %edx\n"
	".Llr8_1: addl $1, %r8d\n"
	".Llr8_2: addl $1, %r8d\n"
	".Llr8_3: addl $1, %r8d\n"
	".Llr8_4: addl $1, %r8d\n"
	".Llr8_5: subq $1, %rcx\n"
	".Llr8_6: cmpq $0, %rcx\n"
	".Llr8_7: jne .Llr8_0\n"
	"	ret\n"
	".Llr8_end:\n"
	END("load_ratio_8")
	/* offsets of each loop instruction from its symbol, then the symbol size */
	".section .rodata\n.p2align 2\n"
	"lr_offs1: .long .Llr1_0-load_ratio_1, .Llr1_1-load_ratio_1, .Llr1_2-load_ratio_1, .Llr1_end-load_ratio_1\n"
	"lr_offs2: .long .Llr2_0-load_ratio_2, .Llr2_1-load_ratio_2, .Llr2_end-load_ratio_2\n"
	"lr_offs3: .long .Llr3_0-load_ratio_3, .Llr3_1-load_ratio_3, .Llr3_2-load_ratio_3, .Llr3_end-load_ratio_3\n"
	"lr_offs4: .long .Llr4_0-load_ratio_4, .Llr4_1-load_ratio_4, .Llr4_2-load_ratio_4, .Llr4_3-load_ratio_4, .Llr4_end-load_ratio_4\n"
	"lr_offs5: .long .Llr5_0-load_ratio_5, .Llr5_1-load_ratio_5, .Llr5_2-load_ratio_5, .Llr5_3-load_ratio_5, .Llr5_4-load_ratio_5, .Llr5_end-load_ratio_5\n"
	"lr_offs6: .long .Llr6_0-load_ratio_6, .Llr6_1-load_ratio_6, .Llr6_2-load_ratio_6, .Llr6_3-load_ratio_6, .Llr6_4-load_ratio_6, .Llr6_5-load_ratio_6, .Llr6_end-load_ratio_6\n"
	"lr_offs7: .long .Llr7_0-load_ratio_7, .Llr7_1-load_ratio_7, .Llr7_2-load_ratio_7, .Llr7_3-load_ratio_7, .Llr7_4-load_ratio_7, .Llr7_5-load_ratio_7, .Llr7_6-load_ratio_7, .Llr7_end-load_ratio_7\n"
	"lr_offs8: .long .Llr8_0-load_ratio_8, .Llr8_1-load_ratio_8, .Llr8_2-load_ratio_8, .Llr8_3-load_ratio_8, .Llr8_4-load_ratio_8, .Llr8_5-load_ratio_8, .Llr8_6-load_ratio_8, .Llr8_7-load_ratio_8, .Llr8_end-load_ratio_8\n"
	".p2align 3\nlr_minus1: .quad -1\n"
	/* absolute code addresses: writable data, relocated at load (PIE) */
	".data\n.p2align 3\n"
	"lr1_loop_cell: .quad .Llr1_0\n"
	"lr1_exit_cell: .quad .Llr1_x\n"
	"lr1_exit_ptr: .quad lr1_exit_cell\n"
	".text\n");

void load_ratio_1(long iters), load_ratio_2(long iters);
void load_ratio_3(long iters, const volatile int *p), load_ratio_4(long iters, const volatile int *p);
void load_ratio_5(long iters, const volatile int *p), load_ratio_6(long iters, const volatile int *p);
void load_ratio_7(long iters, const volatile int *p), load_ratio_8(long iters, const volatile int *p);
extern const int lr_offs1[], lr_offs2[], lr_offs3[], lr_offs4[];
extern const int lr_offs5[], lr_offs6[], lr_offs7[], lr_offs8[];

/* ------------------------------------------------------------ the program */

static volatile int lr_data = 1;
static long ratio = 4;
static struct mb_common opt;

static const struct mb_opt opts[] = {
	{ "ratio", MB_OPT_LONG, &ratio, 1, 8, "N",
	  "one instruction in N is a load, N = 1..8 (default 4)" },
	{ NULL },
};

static const struct mb_info info = {
	.name = "load-ratio",
	.summary = "One thread runs a loop in which exactly one instruction in N reads\n"
		   "memory (Sasongko 2022, Listing 4.1). --expect prints the exact dynamic\n"
		   "counts and each loop instruction's offset from the symbol load_ratio_<N>.",
	.def_threads = 1, .max_threads = 1,
	.def_iters = 300000000, .iters_help = "loop iterations",
	.threads_help = "threads (always 1)",
	.opts = opts,
};

static void expect(void)
{
	static const int *const offs[9] = { NULL, lr_offs1, lr_offs2, lr_offs3,
		lr_offs4, lr_offs5, lr_offs6, lr_offs7, lr_offs8 };
	const void *const fns[9] = { NULL, (const void *)load_ratio_1,
		(const void *)load_ratio_2, (const void *)load_ratio_3,
		(const void *)load_ratio_4, (const void *)load_ratio_5,
		(const void *)load_ratio_6, (const void *)load_ratio_7,
		(const void *)load_ratio_8 };
	struct pes_insn in[8];
	long long it = opt.iters;
	char sym[32], fill[6][16];
	struct mb_json j;
	int n = 0, i;

	snprintf(sym, sizeof(sym), "load_ratio_%ld", ratio);
	if (ratio == 1) {
		in[n++] = (struct pes_insn){ "add", "add (%rsi),%rcx", "load", .count = it };
		in[n++] = (struct pes_insn){ "cmovz", "cmovz (%r8),%r9", "load", .count = it };
		in[n++] = (struct pes_insn){ "jmp", "jmp *(%r9)", "load", .branch = 1,
					      .count = it, .taken = it };
	} else if (ratio == 2) {
		in[n++] = (struct pes_insn){ "add", "add (%rsi),%rcx", "load", .count = it };
		in[n++] = (struct pes_insn){ "jne", "jne loop", "none", .branch = 1,
					      .count = it, .taken = it ? it - 1 : 0 };
	} else {
		in[n++] = (struct pes_insn){ "load", "movl (%rax),%edx", "load", .count = it };
		for (i = 0; i < ratio - 4; i++) {
			snprintf(fill[i], sizeof(fill[i]), "add %d", i + 1);
			in[n++] = (struct pes_insn){ fill[i], "addl $1,%r8d", "none", .count = it };
		}
		in[n++] = (struct pes_insn){ "sub", "subq $1,%rcx", "none", .count = it };
		if (ratio >= 4)
			in[n++] = (struct pes_insn){ "cmp", "cmpq $0,%rcx", "none", .count = it };
		in[n++] = (struct pes_insn){ "jne", "jne loop", "none", .branch = 1,
					      .count = it, .taken = it ? it - 1 : 0 };
	}
	pes_expect(&j, info.name, sym, fns[ratio], offs[ratio], in, n, opt.iters);
	mb_json_int(&j, "ratio", ratio);
	mb_json_str(&j, "load_ratio", ratio == 1 ? "1/1" : ratio == 2 ? "1/2" :
		    ratio == 3 ? "1/3" : ratio == 4 ? "1/4" : ratio == 5 ? "1/5" :
		    ratio == 6 ? "1/6" : ratio == 7 ? "1/7" : "1/8");
	mb_json_obj_end(&j);
}

int main(int argc, char **argv)
{
	mb_parse(&opt, &info, argc, argv);
	if (opt.expect) {
		expect();
		return 0;
	}
	if (opt.iters <= 0)
		return 0;
	switch (ratio) {
	case 1: load_ratio_1(opt.iters); break;
	case 2: load_ratio_2(opt.iters); break;
	case 3: load_ratio_3(opt.iters, &lr_data); break;
	case 4: load_ratio_4(opt.iters, &lr_data); break;
	case 5: load_ratio_5(opt.iters, &lr_data); break;
	case 6: load_ratio_6(opt.iters, &lr_data); break;
	case 7: load_ratio_7(opt.iters, &lr_data); break;
	default: load_ratio_8(opt.iters, &lr_data); break;
	}
	return 0;
}
