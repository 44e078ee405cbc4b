// SPDX-License-Identifier: GPL-2.0
/*
 * x86-decode: instruction bytes (from `as` + `objdump -d` on this machine,
 * mnemonic in the comment) + registers -> effective address, size, kind.
 * Expected addresses are computed by hand from the ISA definition.
 */
#include <errno.h>
#include <string.h>

#include "core/event.h"
#include "core/tests.h"
#include "arch/x86-soft/x86-decode.h"

#define IP0 0x400000ULL

static int ea_of(const u8 *code, size_t len, u64 ip, const u64 *regs,
		 u64 fs, u64 gs, struct x86_access *acc,
		 struct x86_insn_info *insn)
{
	int err = x86_decode__insn(code, len, ip, insn);

	if (err)
		return err;
	return x86_insn__ea(insn, regs, fs, gs, acc);
}

LP_TEST(test_x86_decode_mov_load_sib, "x86-decode: mov 0x10(%rbx,%rcx,4),%eax loads 4 bytes at rbx+rcx*4+0x10")
{
	static const u8 code[] = { 0x8b, 0x44, 0x8b, 0x10 };	/* mov 0x10(%rbx,%rcx,4),%eax */
	u64 regs[LP_REG__MAX] = { 0 };
	struct x86_insn_info in;
	struct x86_access a;

	regs[LP_REG_BX] = 0x10000;
	regs[LP_REG_CX] = 3;
	TEST_ASSERT(!ea_of(code, sizeof(code), IP0, regs, 0, 0, &a, &in), "decode");
	TEST_ASSERT(in.len == 4, "len %u", in.len);
	TEST_ASSERT(a.addr == 0x1001c, "addr %#llx", (unsigned long long)a.addr);
	TEST_ASSERT(a.size == 4, "size %u", a.size);
	TEST_ASSERT(a.kind == LP_ACCESS_LOAD, "kind %u", a.kind);
	return TEST_OK;
}

LP_TEST(test_x86_decode_mov_store_negdisp, "x86-decode: mov %eax,-0x8(%rsi,%rdi,8) stores at rsi+rdi*8-8")
{
	static const u8 code[] = { 0x89, 0x44, 0xfe, 0xf8 };	/* mov %eax,-0x8(%rsi,%rdi,8) */
	u64 regs[LP_REG__MAX] = { 0 };
	struct x86_insn_info in;
	struct x86_access a;

	regs[LP_REG_SI] = 0x20000;
	regs[LP_REG_DI] = 2;
	TEST_ASSERT(!ea_of(code, sizeof(code), IP0, regs, 0, 0, &a, &in), "decode");
	TEST_ASSERT(a.addr == 0x20008, "addr %#llx", (unsigned long long)a.addr);
	TEST_ASSERT(a.kind == LP_ACCESS_STORE && a.size == 4, "kind %u size %u",
		    a.kind, a.size);
	return TEST_OK;
}

LP_TEST(test_x86_decode_rip_relative_uses_next_ip, "x86-decode: mov 0x1234(%rip),%rax is relative to the next instruction")
{
	static const u8 code[] = { 0x48, 0x8b, 0x05, 0x34, 0x12, 0x00, 0x00 };	/* mov 0x1234(%rip),%rax */
	u64 regs[LP_REG__MAX] = { 0 };
	struct x86_insn_info in;
	struct x86_access a;

	regs[LP_REG_IP] = 0xdead0000;	/* must not be used */
	TEST_ASSERT(!ea_of(code, sizeof(code), 0x401000, regs, 0, 0, &a, &in), "decode");
	TEST_ASSERT(a.addr == 0x401007 + 0x1234, "addr %#llx", (unsigned long long)a.addr);
	TEST_ASSERT(a.size == 8 && a.kind == LP_ACCESS_LOAD, "size %u kind %u",
		    a.size, a.kind);
	return TEST_OK;
}

LP_TEST(test_x86_decode_fs_gs_tls, "x86-decode: %fs:0x10, %fs:(%rax), %gs:8(%rbx) add the segment base")
{
	static const u8 fs_abs[] = { 0x64, 0x48, 0x8b, 0x04, 0x25, 0x10, 0x00, 0x00, 0x00 };	/* mov %fs:0x10,%rax */
	static const u8 fs_reg[] = { 0x64, 0x48, 0x8b, 0x10 };	/* mov %fs:(%rax),%rdx */
	static const u8 gs_reg[] = { 0x65, 0x48, 0x8b, 0x4b, 0x08 };	/* mov %gs:0x8(%rbx),%rcx */
	static const u8 plain[] = { 0x48, 0x8b, 0x00 };		/* mov (%rax),%rax: no segment */
	u64 regs[LP_REG__MAX] = { 0 };
	u64 fs = 0x7f1234560000ULL, gs = 0x5000;
	struct x86_insn_info in;
	struct x86_access a;

	regs[LP_REG_AX] = 0x40;
	regs[LP_REG_BX] = 0x100;
	TEST_ASSERT(!ea_of(fs_abs, sizeof(fs_abs), IP0, regs, fs, gs, &a, &in), "decode");
	TEST_ASSERT(in.len == 9, "len %u", in.len);
	TEST_ASSERT(a.addr == fs + 0x10, "addr %#llx", (unsigned long long)a.addr);
	TEST_ASSERT(!ea_of(fs_reg, sizeof(fs_reg), IP0, regs, fs, gs, &a, &in), "decode");
	TEST_ASSERT(a.addr == fs + 0x40, "addr %#llx", (unsigned long long)a.addr);
	TEST_ASSERT(!ea_of(gs_reg, sizeof(gs_reg), IP0, regs, fs, gs, &a, &in), "decode");
	TEST_ASSERT(a.addr == 0x5108, "addr %#llx", (unsigned long long)a.addr);
	TEST_ASSERT(!ea_of(plain, sizeof(plain), IP0, regs, fs, gs, &a, &in), "decode");
	TEST_ASSERT(a.addr == 0x40, "addr %#llx", (unsigned long long)a.addr);
	/* a thread pointer not known yet gives no address, not fs:disp from 0 */
	TEST_ASSERT(ea_of(fs_abs, sizeof(fs_abs), IP0, regs, 0, gs, &a, &in) == -EOPNOTSUPP,
		    "fs_base 0: addr %#llx", (unsigned long long)a.addr);
	TEST_ASSERT(!ea_of(plain, sizeof(plain), IP0, regs, 0, gs, &a, &in) && a.addr == 0x40,
		    "no segment: fs_base does not matter");
	return TEST_OK;
}

LP_TEST(test_x86_decode_atomic_kinds, "x86-decode: lock add/xchg/lock cmpxchg/lock xadd are atomic, plain RMW is a store")
{
	static const struct {
		u8 code[6];
		u8 len, size, kind;
		const char *what;
	} t[] = {
		{ { 0xf0, 0x83, 0x07, 0x01 }, 4, 4, LP_ACCESS_ATOMIC, "lock addl $1,(%rdi)" },
		{ { 0x48, 0x87, 0x07 }, 3, 8, LP_ACCESS_ATOMIC, "xchg %rax,(%rdi)" },
		{ { 0xf0, 0x48, 0x0f, 0xb1, 0x0f }, 5, 8, LP_ACCESS_ATOMIC, "lock cmpxchg %rcx,(%rdi)" },
		{ { 0xf0, 0x0f, 0xc1, 0x07 }, 4, 4, LP_ACCESS_ATOMIC, "lock xadd %eax,(%rdi)" },
		{ { 0x48, 0x0f, 0xb1, 0x0f }, 4, 8, LP_ACCESS_STORE, "cmpxchg %rcx,(%rdi)" },
		{ { 0x01, 0x07 }, 2, 4, LP_ACCESS_STORE, "add %eax,(%rdi)" },
		{ { 0x39, 0x07 }, 2, 4, LP_ACCESS_LOAD, "cmp %eax,(%rdi)" },
		{ { 0xdd, 0x1f }, 2, 8, LP_ACCESS_STORE, "fstpl (%rdi)" },
		{ { 0x0f, 0xc3, 0x07 }, 3, 4, LP_ACCESS_STORE, "movnti %eax,(%rdi)" },
	};
	u64 regs[LP_REG__MAX] = { 0 };
	struct x86_insn_info in;
	struct x86_access a;
	size_t i;

	regs[LP_REG_DI] = 0x3000;
	for (i = 0; i < ARRAY_SIZE(t); i++) {
		TEST_ASSERT(!ea_of(t[i].code, t[i].len, IP0, regs, 0, 0, &a, &in),
			    "%s: decode", t[i].what);
		TEST_ASSERT(in.len == t[i].len, "%s: len %u", t[i].what, in.len);
		TEST_ASSERT(a.addr == 0x3000, "%s: addr %#llx", t[i].what,
			    (unsigned long long)a.addr);
		TEST_ASSERT(a.size == t[i].size, "%s: size %u", t[i].what, a.size);
		TEST_ASSERT(a.kind == t[i].kind, "%s: kind %u want %u", t[i].what,
			    a.kind, t[i].kind);
		TEST_ASSERT(!!(in.flags & X86_INSN_LOCKED) ==
			    (t[i].kind == LP_ACCESS_ATOMIC), "%s: locked flag", t[i].what);
	}
	return TEST_OK;
}

LP_TEST(test_x86_decode_rep_movsb_df, "x86-decode: rep movsb stores at rdi before the step, undone per DF after")
{
	static const u8 rep_movsb[] = { 0xf3, 0xa4 };	/* rep movsb %ds:(%rsi),%es:(%rdi) */
	static const u8 movsb[] = { 0xa4 };		/* movsb */
	u64 regs[LP_REG__MAX] = { 0 };
	struct x86_insn_info in;
	struct x86_access a;

	regs[LP_REG_SI] = 0x6000;
	regs[LP_REG_DI] = 0x5000;
	regs[LP_REG_FLAGS] = 0x202;		/* DF=0 */
	TEST_ASSERT(!ea_of(rep_movsb, 2, IP0, regs, 0, 0, &a, &in), "decode");
	TEST_ASSERT(in.mem == X86_MEM_STRING && (in.flags & X86_INSN_REP), "class");
	TEST_ASSERT(a.addr == 0x5000 && a.size == 1 && a.kind == LP_ACCESS_STORE,
		    "addr %#llx size %u kind %u", (unsigned long long)a.addr,
		    a.size, a.kind);
	regs[LP_REG_FLAGS] = 0x602;		/* DF=1: next element still at rdi */
	TEST_ASSERT(!ea_of(rep_movsb, 2, IP0, regs, 0, 0, &a, &in), "decode");
	TEST_ASSERT(a.addr == 0x5000, "addr %#llx", (unsigned long long)a.addr);

	/* movsb done: rdi moved by +1 (DF=0) or -1 (DF=1) past 0x5000 */
	TEST_ASSERT(!x86_decode__insn(movsb, 1, IP0, &in), "decode");
	regs[LP_REG_FLAGS] = 0x202;
	regs[LP_REG_DI] = 0x5001;
	TEST_ASSERT(!x86_insn__ea_after(&in, regs, 0, 0, &a), "after");
	TEST_ASSERT(a.addr == 0x5000, "DF=0 after %#llx", (unsigned long long)a.addr);
	regs[LP_REG_FLAGS] = 0x602;
	regs[LP_REG_DI] = 0x4fff;
	TEST_ASSERT(!x86_insn__ea_after(&in, regs, 0, 0, &a), "after");
	TEST_ASSERT(a.addr == 0x5000, "DF=1 after %#llx", (unsigned long long)a.addr);
	return TEST_OK;
}

LP_TEST(test_x86_decode_string_ops, "x86-decode: stosq/lodsl/cmpsq/scasb pick rdi or rsi with the element size")
{
	static const struct {
		u8 code[3];
		u8 len, size, kind;
		u64 addr;
		const char *what;
	} t[] = {
		{ { 0xf3, 0x48, 0xab }, 3, 8, LP_ACCESS_STORE, 0x5000, "rep stos %rax,%es:(%rdi)" },
		{ { 0xad }, 1, 4, LP_ACCESS_LOAD, 0x6000, "lods %ds:(%rsi),%eax" },
		{ { 0x48, 0xa7 }, 2, 8, LP_ACCESS_LOAD, 0x6000, "cmpsq: first load (rsi)" },
		{ { 0xf2, 0xae }, 2, 1, LP_ACCESS_LOAD, 0x5000, "repnz scas %es:(%rdi),%al" },
	};
	u64 regs[LP_REG__MAX] = { 0 };
	struct x86_insn_info in;
	struct x86_access a;
	size_t i;

	regs[LP_REG_SI] = 0x6000;
	regs[LP_REG_DI] = 0x5000;
	for (i = 0; i < ARRAY_SIZE(t); i++) {
		TEST_ASSERT(!ea_of(t[i].code, t[i].len, IP0, regs, 0, 0, &a, &in),
			    "%s: decode", t[i].what);
		TEST_ASSERT(a.addr == t[i].addr && a.size == t[i].size &&
			    a.kind == t[i].kind, "%s: addr %#llx size %u kind %u",
			    t[i].what, (unsigned long long)a.addr, a.size, a.kind);
	}
	return TEST_OK;
}

LP_TEST(test_x86_decode_stack_ops, "x86-decode: push/call store at rsp-8, pop/ret load at rsp, leave at rbp")
{
	static const struct {
		u8 code[5];
		u8 len, size, kind;
		u64 addr;
		const char *what;
	} t[] = {
		{ { 0x55 }, 1, 8, LP_ACCESS_STORE, 0x7ffc0ff8, "push %rbp" },
		{ { 0x5b }, 1, 8, LP_ACCESS_LOAD, 0x7ffc1000, "pop %rbx" },
		{ { 0xe8, 0xfb, 0x00, 0x00, 0x00 }, 5, 8, LP_ACCESS_STORE, 0x7ffc0ff8, "call .+0x100" },
		{ { 0xc3 }, 1, 8, LP_ACCESS_LOAD, 0x7ffc1000, "ret" },
		{ { 0x9c }, 1, 8, LP_ACCESS_STORE, 0x7ffc0ff8, "pushfq" },
		{ { 0xc9 }, 1, 8, LP_ACCESS_LOAD, 0x9000, "leave: saved rbp at [rbp]" },
		{ { 0xff, 0x70, 0x08 }, 3, 8, LP_ACCESS_LOAD, 0x2008, "push 0x8(%rax): the operand" },
		{ { 0x8f, 0x40, 0x10 }, 3, 8, LP_ACCESS_STORE, 0x2010, "pop 0x10(%rax): the operand" },
		{ { 0xff, 0x50, 0x18 }, 3, 8, LP_ACCESS_LOAD, 0x2018, "call *0x18(%rax): the pointer" },
	};
	u64 regs[LP_REG__MAX] = { 0 };
	struct x86_insn_info in;
	struct x86_access a;
	size_t i;

	regs[LP_REG_SP] = 0x7ffc1000;
	regs[LP_REG_BP] = 0x9000;
	regs[LP_REG_AX] = 0x2000;
	for (i = 0; i < ARRAY_SIZE(t); i++) {
		TEST_ASSERT(!ea_of(t[i].code, t[i].len, IP0, regs, 0, 0, &a, &in),
			    "%s: decode", t[i].what);
		TEST_ASSERT(in.len == t[i].len, "%s: len %u", t[i].what, in.len);
		TEST_ASSERT(a.addr == t[i].addr && a.size == t[i].size &&
			    a.kind == t[i].kind, "%s: addr %#llx size %u kind %u",
			    t[i].what, (unsigned long long)a.addr, a.size, a.kind);
	}
	return TEST_OK;
}

LP_TEST(test_x86_decode_not_memory, "x86-decode: lea, nopw, prefetcht0 and register ops access no memory")
{
	static const struct {
		u8 code[6];
		u8 len;
		const char *what;
	} t[] = {
		{ { 0x48, 0x8d, 0x4c, 0x58, 0x08 }, 5, "lea 0x8(%rax,%rbx,2),%rcx" },
		{ { 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 }, 6, "nopw 0x0(%rax,%rax,1)" },
		{ { 0x0f, 0x18, 0x08 }, 3, "prefetcht0 (%rax)" },
		{ { 0x0f, 0xae, 0x38 }, 3, "clflush (%rax)" },
		{ { 0x01, 0xc8 }, 2, "add %ecx,%eax" },
	};
	u64 regs[LP_REG__MAX] = { 0 };
	struct x86_insn_info in;
	struct x86_access a;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		TEST_ASSERT(ea_of(t[i].code, t[i].len, IP0, regs, 0, 0, &a, &in) ==
			    -ENODATA, "%s: not -ENODATA", t[i].what);
		TEST_ASSERT(in.len == t[i].len, "%s: len %u", t[i].what, in.len);
	}
	return TEST_OK;
}

LP_TEST(test_x86_decode_gather_scatter_unsupported, "x86-decode: vpgatherdd and vpscatterdd (VSIB) are unsupported")
{
	static const u8 gather[] = { 0xc4, 0xe2, 0x6d, 0x90, 0x04, 0x88 };	/* vpgatherdd %ymm2,(%rax,%ymm1,4),%ymm0 */
	static const u8 scatter[] = { 0x62, 0xf2, 0x7d, 0x49, 0xa0, 0x04, 0x88 };	/* vpscatterdd %zmm0,(%rax,%zmm1,4){%k1} */
	u64 regs[LP_REG__MAX] = { 0 };
	struct x86_insn_info in;
	struct x86_access a;

	TEST_ASSERT(ea_of(gather, sizeof(gather), IP0, regs, 0, 0, &a, &in) ==
		    -EOPNOTSUPP, "gather");
	TEST_ASSERT(in.len == 6 && in.kind == LP_ACCESS_LOAD, "len %u kind %u",
		    in.len, in.kind);
	TEST_ASSERT(ea_of(scatter, sizeof(scatter), IP0, regs, 0, 0, &a, &in) ==
		    -EOPNOTSUPP, "scatter");
	TEST_ASSERT(in.kind == LP_ACCESS_STORE, "kind %u", in.kind);
	return TEST_OK;
}

LP_TEST(test_x86_decode_sizes, "x86-decode: vmovdqu load/store is 32 bytes, movzbl 1, movzwl 2")
{
	static const u8 vload[] = { 0xc5, 0xfe, 0x6f, 0x00 };		/* vmovdqu (%rax),%ymm0 */
	static const u8 vstore[] = { 0xc5, 0xfe, 0x7f, 0x40, 0x20 };	/* vmovdqu %ymm0,0x20(%rax) */
	static const u8 movzbl[] = { 0x0f, 0xb6, 0x08 };		/* movzbl (%rax),%ecx */
	static const u8 movzwl[] = { 0x0f, 0xb7, 0x48, 0x02 };		/* movzwl 0x2(%rax),%ecx */
	u64 regs[LP_REG__MAX] = { 0 };
	struct x86_insn_info in;
	struct x86_access a;

	regs[LP_REG_AX] = 0x8000;
	TEST_ASSERT(!ea_of(vload, sizeof(vload), IP0, regs, 0, 0, &a, &in), "vload");
	TEST_ASSERT(a.size == 32 && a.kind == LP_ACCESS_LOAD && a.addr == 0x8000,
		    "size %u kind %u", a.size, a.kind);
	TEST_ASSERT(!ea_of(vstore, sizeof(vstore), IP0, regs, 0, 0, &a, &in), "vstore");
	TEST_ASSERT(a.size == 32 && a.kind == LP_ACCESS_STORE && a.addr == 0x8020,
		    "size %u kind %u addr %#llx", a.size, a.kind,
		    (unsigned long long)a.addr);
	TEST_ASSERT(!ea_of(movzbl, sizeof(movzbl), IP0, regs, 0, 0, &a, &in), "movzbl");
	TEST_ASSERT(a.size == 1 && a.kind == LP_ACCESS_LOAD, "size %u", a.size);
	TEST_ASSERT(!ea_of(movzwl, sizeof(movzwl), IP0, regs, 0, 0, &a, &in), "movzwl");
	TEST_ASSERT(a.size == 2 && a.addr == 0x8002, "size %u", a.size);
	return TEST_OK;
}

LP_TEST(test_x86_decode_odd_addressing, "x86-decode: addr32, bt bit-string offset, xlat, disp-only index")
{
	static const u8 addr32[] = { 0x67, 0x8b, 0x08 };		/* mov (%eax),%ecx */
	static const u8 bt[] = { 0x0f, 0xa3, 0x03 };			/* bt %eax,(%rbx) */
	static const u8 xlat[] = { 0xd7 };				/* xlat %ds:(%rbx) */
	static const u8 idx[] = { 0x48, 0x8b, 0x04, 0xcd, 0x10, 0x00, 0x00, 0x00 };	/* mov 0x10(,%rcx,8),%rax */
	u64 regs[LP_REG__MAX] = { 0 };
	struct x86_insn_info in;
	struct x86_access a;

	regs[LP_REG_AX] = 0x100000010ULL;
	TEST_ASSERT(!ea_of(addr32, sizeof(addr32), IP0, regs, 0, 0, &a, &in), "addr32");
	TEST_ASSERT(a.addr == 0x10, "addr32 %#llx", (unsigned long long)a.addr);

	regs[LP_REG_BX] = 0x1000;
	regs[LP_REG_AX] = 100;				/* bit 100: dword 3 */
	TEST_ASSERT(!ea_of(bt, sizeof(bt), IP0, regs, 0, 0, &a, &in), "bt");
	TEST_ASSERT(a.addr == 0x100c && a.kind == LP_ACCESS_LOAD, "bt %#llx",
		    (unsigned long long)a.addr);
	regs[LP_REG_AX] = 0xffffffff;			/* bit -1: dword -1 */
	TEST_ASSERT(!ea_of(bt, sizeof(bt), IP0, regs, 0, 0, &a, &in), "bt");
	TEST_ASSERT(a.addr == 0xffc, "bt -1 %#llx", (unsigned long long)a.addr);

	regs[LP_REG_AX] = 0x1234;			/* al = 0x34 */
	TEST_ASSERT(!ea_of(xlat, sizeof(xlat), IP0, regs, 0, 0, &a, &in), "xlat");
	TEST_ASSERT(a.addr == 0x1034 && a.size == 1, "xlat %#llx",
		    (unsigned long long)a.addr);

	regs[LP_REG_CX] = 5;
	TEST_ASSERT(!ea_of(idx, sizeof(idx), IP0, regs, 0, 0, &a, &in), "index only");
	TEST_ASSERT(a.addr == 0x10 + 40, "index only %#llx", (unsigned long long)a.addr);
	return TEST_OK;
}

LP_TEST(test_x86_decode_undecodable, "x86-decode: invalid and truncated bytes are -EILSEQ")
{
	static const u8 bad1[] = { 0x06, 0x00, 0x00 };	/* push %es: invalid in 64-bit mode */
	static const u8 bad2[] = { 0xff, 0xff, 0x00 };	/* ff /7: undefined */
	static const u8 trunc[] = { 0x48, 0x8b, 0x05, 0x34 };	/* mov 0x1234(%rip),%rax cut short */
	struct x86_insn_info in;

	TEST_ASSERT(x86_decode__insn(bad1, sizeof(bad1), IP0, &in) == -EILSEQ, "06");
	TEST_ASSERT(x86_decode__insn(bad2, sizeof(bad2), IP0, &in) == -EILSEQ, "ff ff");
	TEST_ASSERT(x86_decode__insn(trunc, sizeof(trunc), IP0, &in) == -EILSEQ, "truncated");
	TEST_ASSERT(x86_decode__len(trunc, sizeof(trunc), IP0) == 0, "len of truncated");
	return TEST_OK;
}

LP_TEST(test_x86_decode_ea_after_overwrite, "x86-decode: after mov (%rdx),%ecx rdx still gives the address; after mov (%rax),%rax not")
{
	static const u8 keeps[] = { 0x8b, 0x0a };		/* mov (%rdx),%ecx */
	static const u8 clobbers[] = { 0x48, 0x8b, 0x00 };	/* mov (%rax),%rax */
	static const u8 push[] = { 0x55 };			/* push %rbp */
	static const u8 pop[] = { 0x5d };			/* pop %rbp */
	u64 regs[LP_REG__MAX] = { 0 };
	struct x86_insn_info in;
	struct x86_access a;

	regs[LP_REG_DX] = 0x7000;
	regs[LP_REG_AX] = 0x8000;
	regs[LP_REG_SP] = 0x7ffc0ff8;
	TEST_ASSERT(!x86_decode__insn(keeps, sizeof(keeps), IP0, &in), "decode");
	TEST_ASSERT(!x86_insn__ea_after(&in, regs, 0, 0, &a), "recoverable");
	TEST_ASSERT(a.addr == 0x7000 && a.size == 4, "addr %#llx",
		    (unsigned long long)a.addr);
	TEST_ASSERT(!x86_decode__insn(clobbers, sizeof(clobbers), IP0, &in), "decode");
	TEST_ASSERT(in.regs_written & (1u << LP_REG_AX), "rax written");
	TEST_ASSERT(x86_insn__ea_after(&in, regs, 0, 0, &a) == -EADDRNOTAVAIL,
		    "mov (%%rax),%%rax must not be recoverable");
	/* after push rsp points at the pushed slot; after pop 8 above it */
	TEST_ASSERT(!x86_decode__insn(push, 1, IP0, &in), "decode");
	TEST_ASSERT(!x86_insn__ea_after(&in, regs, 0, 0, &a) && a.addr == 0x7ffc0ff8,
		    "push after %#llx", (unsigned long long)a.addr);
	TEST_ASSERT(!x86_decode__insn(pop, 1, IP0, &in), "decode");
	TEST_ASSERT(!x86_insn__ea_after(&in, regs, 0, 0, &a) && a.addr == 0x7ffc0ff0,
		    "pop after %#llx", (unsigned long long)a.addr);
	return TEST_OK;
}

LP_TEST(test_x86_decode_evex_capstone_lacks, "x86-decode: AVX-512 compares Capstone 4 rejects: address, 32-byte size, disp8*N, length")
{
	/* vpcmpnequb (%rdi),%ymm17,%k1 ; vpcmpeqb 0x20(%rdi,%rdx,1),%ymm16,%k0 (disp8 1 x 32) */
	static const u8 cmp1[] = { 0x62, 0xf3, 0x75, 0x20, 0x3e, 0x0f, 0x04 };
	static const u8 cmp2[] = { 0x62, 0xf1, 0x7d, 0x20, 0x74, 0x44, 0x17, 0x01 };
	/* vmovdqu8 %zmm16,-0x40(%r9) (disp8 -1 x 64), a store */
	static const u8 st[] = { 0x62, 0xc1, 0x7f, 0x48, 0x7f, 0x41, 0xff };
	u64 regs[LP_REG__MAX] = { 0 };
	struct x86_insn_info in;
	struct x86_access a;

	regs[LP_REG_DI] = 0x7f0000001000ull;
	regs[LP_REG_DX] = 0x40;
	regs[LP_REG_R9] = 0x5000;
	TEST_ASSERT(!ea_of(cmp1, sizeof(cmp1), IP0, regs, 0, 0, &a, &in), "vpcmpnequb decodes");
	TEST_ASSERT(in.len == 7 && a.addr == 0x7f0000001000ull && a.size == 32 &&
		    a.kind == LP_ACCESS_LOAD, "len %u addr %#llx size %u kind %u", in.len,
		    (unsigned long long)a.addr, a.size, a.kind);
	TEST_ASSERT(!ea_of(cmp2, sizeof(cmp2), IP0, regs, 0, 0, &a, &in), "vpcmpeqb decodes");
	TEST_ASSERT(in.len == 8 && a.addr == 0x7f0000001000ull + 0x40 + 0x20 && a.size == 32,
		    "len %u addr %#llx size %u", in.len, (unsigned long long)a.addr, a.size);
	TEST_ASSERT(!ea_of(st, sizeof(st), IP0, regs, 0, 0, &a, &in), "vmovdqu8 store decodes");
	TEST_ASSERT(in.len == 7 && a.addr == 0x5000 - 0x40 && a.size == 64 && a.kind == LP_ACCESS_STORE,
		    "len %u addr %#llx size %u kind %u", in.len, (unsigned long long)a.addr, a.size, a.kind);
	TEST_ASSERT(x86_decode__len(cmp1, sizeof(cmp1), IP0) == 7, "length for the previous-instruction walk");
	return TEST_OK;
}
