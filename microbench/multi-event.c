// SPDX-License-Identifier: GPL-2.0
/*
 * Multi-Event (Sasongko 2022, Listing 4.3): known numbers of loads, stores,
 * branches, taken branches, calls, returns and locked operations per
 * iteration:
 *
 *   loop: call foo; lock addl $1,(%rsi); lock addl $1,(%rsi);
 *         movl (%rsi),%edx; subq $1,%rcx; cmpq $0,%rcx; je done;
 *         cmpq $0,%rcx; jne loop
 *   done: ret          foo: ret
 *
 * call writes the return address (a store), ret reads it (a load); a locked
 * add is a load, a store and a locked operation. The last iteration takes
 * je and skips the second cmpq/jne.
 */
#include "microbench/mb.h"
#include "microbench/pes.h"

/* ------------------------------------------------------------ the loop */

#define FN(name) ".text\n.globl " name "\n.type " name ",@function\n.p2align 6\n" name ":\n"
#define END(name) ".size " name ", .-" name "\n"

__asm__(
	FN("multi_event_loop")
	"	mov %rdi, %rcx\n"
	".Lme_0: call .Lme_foo\n"
	".Lme_1: lock addl $1, (%rsi)\n"
	".Lme_2: lock addl $1, (%rsi)\n"
	".Lme_3: movl (%rsi), %edx\n"
	".Lme_4: subq $1, %rcx\n"
	".Lme_5: cmpq $0, %rcx\n"
	".Lme_6: je .Lme_done\n"
	".Lme_7: cmpq $0, %rcx\n"
	".Lme_8: jne .Lme_0\n"
	".Lme_done: ret\n"
	".Lme_foo: ret\n"
	".Lme_end:\n"
	END("multi_event_loop")
	".section .rodata\n.p2align 2\n"
	"me_offs: .long .Lme_0-multi_event_loop, .Lme_foo-multi_event_loop, "
	".Lme_1-multi_event_loop, .Lme_2-multi_event_loop, .Lme_3-multi_event_loop, "
	".Lme_4-multi_event_loop, .Lme_5-multi_event_loop, .Lme_6-multi_event_loop, "
	".Lme_7-multi_event_loop, .Lme_8-multi_event_loop, .Lme_end-multi_event_loop\n"
	".text\n");

void multi_event_loop(long iters, volatile int *p);
extern const int me_offs[];

/* ------------------------------------------------------------ the program */

static volatile int me_data;
static struct mb_common opt;

static const struct mb_info info = {
	.name = "multi-event",
	.summary = "One thread runs a loop with known loads, stores, branches, taken branches,\n"
		   "calls, returns and locked operations (Sasongko 2022, Listing 4.3). --expect\n"
		   "prints the exact dynamic counts and each loop instruction's offset from the\n"
		   "symbol multi_event_loop (the called function is inside it).",
	.def_threads = 1, .max_threads = 1,
	.def_iters = 20000000, .iters_help = "loop iterations",
	.threads_help = "threads (always 1)",
};

static void expect(void)
{
	long long it = opt.iters, rest = it ? it - 1 : 0;
	/* in execution order: foo's ret right after the call */
	struct pes_insn in[] = {
		{ "call", "call foo", "store", .branch = 1, .call = 1, .count = it, .taken = it },
		{ "ret", "ret (foo)", "load", .branch = 1, .ret = 1, .count = it, .taken = it },
		{ "lock add 1", "lock addl $1,(%rsi)", "atomic", .locked = 1, .count = it },
		{ "lock add 2", "lock addl $1,(%rsi)", "atomic", .locked = 1, .count = it },
		{ "load", "movl (%rsi),%edx", "load", .count = it },
		{ "sub", "subq $1,%rcx", "none", .count = it },
		{ "cmp 1", "cmpq $0,%rcx", "none", .count = it },
		{ "je", "je done", "none", .branch = 1, .count = it, .taken = it ? 1 : 0 },
		{ "cmp 2", "cmpq $0,%rcx", "none", .count = rest },
		{ "jne", "jne loop", "none", .branch = 1, .count = rest, .taken = rest },
	};
	struct mb_json j;

	pes_expect(&j, info.name, "multi_event_loop", (const void *)multi_event_loop,
		   me_offs, in, 10, opt.iters);
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
		multi_event_loop(opt.iters, &me_data);
	return 0;
}
