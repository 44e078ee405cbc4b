/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pure x86-64 instruction decoding for the software precise-sampling
 * facility (Documentation/facilities.md, "Software precise sampling"): bytes -> memory-operand description (Capstone 4),
 * description + register file -> effective address, size and kind. No
 * syscalls, so it is unit-tested on byte arrays.
 *
 * Choices (Documentation/facilities.md leaves them to this module):
 * - Plain read-modify-write without lock (add %eax,(%rbx)) is LP_ACCESS_STORE
 *   (it makes the line dirty, which is what sharing analyses care about);
 *   LP_ACCESS_ATOMIC is for lock-prefixed RMW and xchg with memory (implicitly
 *   locked). cmpxchg/xadd without lock are plain RMW: STORE.
 * - lea, nop with a memory operand, prefetch*, clflush/clflushopt/clwb and
 *   the gather/scatter prefetches do not access data: X86_MEM_NONE.
 * - String instructions use rsi/rdi as they are *before* the next iteration
 *   (what the sample's registers hold), so the next element is at rsi/rdi
 *   whatever the direction flag; DF only matters when undoing a completed
 *   instruction (x86_insn__ea_after). movs and cmps touch two locations:
 *   movs reports its store (rdi), cmps its first load (rsi).
 * - push/call/enter/pushf store 8 bytes (2 with 0x66) at rsp-8; pop/ret/popf
 *   load at rsp; leave loads the saved rbp at [rbp]. An explicit memory
 *   operand wins over the stack access: push 8(%rax) reports the load of
 *   8(%rax), pop (%rax) the store to (%rax), call *0x18(%rax) the load of the
 *   function pointer.
 * - bt/bts/btr/btc with a register bit offset address the bit string:
 *   ea + (offset >> log2(bits)) * size, as the hardware does.
 * - Gathers/scatters (VSIB) are X86_MEM_VSIB: each lane's address needs a
 *   vector register, and sample_regs_user carries only GPRs.
 * - Capstone 4 marks many stores as reads (vmovdqu/movups/movnti/fst/
 *   vmaskmov...) and cmpxchg's memory operand as read-only; a memory operand
 *   in first (destination) position of a 2+ operand instruction is taken as
 *   written unless the instruction only compares (cmp, test, bt, ...), and
 *   tables fix the one-operand stores and cmpxchg*.
 */
#ifndef LP_X86_DECODE_H
#define LP_X86_DECODE_H
#include "core/types.h"
#include "core/perf-record.h"

#define X86_MAX_INSN_LEN 15
#define X86_NOREG 0xff

enum x86_mem_class {
	X86_MEM_NONE = 0,	/* no data access (incl. lea, nop, prefetch) */
	X86_MEM_OPERAND,	/* seg:base + index*scale + disp */
	X86_MEM_STRING,		/* movs/stos/lods/scas/cmps/ins/outs: rsi or rdi */
	X86_MEM_STACK,		/* implicit push/pop/call/ret/enter/leave */
	X86_MEM_VSIB,		/* gather/scatter: per-lane vector addresses */
};

enum x86_seg {
	X86_SEG_NONE = 0,	/* cs/ds/es/ss: base 0 in 64-bit mode */
	X86_SEG_FS,
	X86_SEG_GS,
};

enum x86_stack_op {
	X86_STACK_PUSH = 1,	/* push, pushf: store at rsp-8 */
	X86_STACK_POP,		/* pop, popf: load at rsp */
	X86_STACK_CALL,		/* store return address at rsp-8 */
	X86_STACK_RET,		/* load return address at rsp */
	X86_STACK_ENTER,	/* store rbp at rsp-8 */
	X86_STACK_LEAVE,	/* load saved rbp at [rbp] */
};

/* x86_insn.flags */
#define X86_INSN_LOCKED		(1u << 0)	/* lock prefix or xchg with memory */
#define X86_INSN_BRANCH		(1u << 1)	/* jmp/jcc/call/ret/int/iret/loop */
#define X86_INSN_REP		(1u << 2)	/* rep/repne on a string op */
#define X86_INSN_XLAT		(1u << 3)	/* index is al, zero-extended */
#define X86_INSN_BITOFF		(1u << 4)	/* bt* with register bit offset */
#define X86_INSN_SP_DEST	(1u << 5)	/* pop %rsp */

/* One decoded instruction: where its data access is, not the address. */
struct x86_insn_info {
	u64 ip;
	s64 disp;
	u32 regs_written;	/* LP_REG_* bit mask this instruction writes */
	u16 id;			/* Capstone instruction id (x86_insn) */
	u8 len;
	u8 mem;			/* enum x86_mem_class */
	u8 kind;		/* enum lp_access_kind */
	u8 size;		/* bytes accessed */
	u8 seg;			/* enum x86_seg */
	u8 base;		/* LP_REG_*, LP_REG_IP for rip-relative, X86_NOREG */
	u8 index;		/* LP_REG_* or X86_NOREG */
	u8 scale;
	u8 addr32;		/* 0x67: address computed in 32 bits */
	u8 stack;		/* enum x86_stack_op for X86_MEM_STACK */
	u8 bitreg;		/* LP_REG_* of the bit offset (X86_INSN_BITOFF) */
	u8 flags;		/* X86_INSN_* */
	char mnemonic[16];
};

struct x86_access {
	u64 addr;
	u8 size;
	u8 kind;		/* enum lp_access_kind */
};

/*
 * Decode the instruction at the start of @code (@len bytes, at most 15 are
 * looked at) located at @ip. Returns 0, -EILSEQ if the bytes do not decode,
 * -ENOMEM if Capstone cannot be set up.
 */
int x86_decode__insn(const u8 *code, size_t len, u64 ip, struct x86_insn_info *out);

/*
 * Length of the instruction at @code, or 0 if it does not decode. Cheaper
 * than x86_decode__insn (no operand detail); used to find boundaries.
 */
size_t x86_decode__len(const u8 *code, size_t len, u64 ip);

/* LP_REG_* bit mask of the registers x86_insn__ea needs valid. */
u64 x86_insn__regs_needed(const struct x86_insn_info *in);

/*
 * Effective address of @in's data access with @regs holding the registers
 * *before* it executes (regs indexed by LP_REG_*). Returns 0, -ENODATA if
 * it accesses no memory, -EOPNOTSUPP for gathers/scatters.
 */
int x86_insn__ea(const struct x86_insn_info *in, const u64 regs[LP_REG__MAX],
		 u64 fs_base, u64 gs_base, struct x86_access *out);

/*
 * The same, from the registers *after* @in executed (the sample landed on
 * the next instruction). Works when the address registers survive @in, or
 * when @in moved them by a known amount (push/pop/leave, string ops: rsi/rdi
 * stepped by the element size per DF). Returns 0, -ENODATA (no memory
 * access), -EOPNOTSUPP (gather/scatter), or -EADDRNOTAVAIL when @in
 * overwrote what its address was made of (mov (%rax),%rax; call; ret; enter).
 */
int x86_insn__ea_after(const struct x86_insn_info *in,
		       const u64 regs[LP_REG__MAX], u64 fs_base, u64 gs_base,
		       struct x86_access *out);

/*
 * Previous-instruction recovery (implemented in soft.c, same facility).
 * The cpu-clock interrupt tends to be taken once a long-latency load
 * retires, so the sample's IP is the instruction *after* the load while the
 * registers are those after it. This finds the instruction that ends at
 * @raw->ip and computes its address from the registers after it ran
 * (x86_insn__ea_after), setting LP_SAMPLE_PREV_INSN and out->ip to it.
 *
 * Where it starts: (1) a boundary learned from an earlier sample whose
 * decoded instruction ends exactly at IP (sampled IPs are true instruction
 * starts), else (2) forward decoding from 16 start offsets in the 64 bytes
 * before IP: x86 decoding resynchronises, and the streams that land exactly
 * on IP vote; at least 2 votes and 3/4 of them must agree. Both are cached
 * per IP.
 * Limits: it finds the instruction before IP *in memory*; if IP is a branch
 * target (loop head, after a call returned) the instruction executed before
 * may be another one, and nothing in a cpu-clock sample tells which. Data
 * in code or overlapping instructions can fool the vote (refused when two
 * learned boundaries disagree). Not recoverable: instructions that overwrite
 * their own address registers (mov (%rax),%rax), call/ret/enter/jmp *mem,
 * pop %rsp, gathers; rep string ops report their last element, which is
 * wrong if they ran zero iterations.
 *
 * Returns 0 iff @out carries an address; -ENOENT: previous instruction not
 * identified; -ENODATA: it accesses no memory; -EADDRNOTAVAIL: its address
 * registers were overwritten; -EOPNOTSUPP: gather/scatter; -EINVAL: kernel
 * sample or no registers. @out->noaddr says the same for the stream.
 */
struct lp_decode_ctx;
struct lp_perf_sample;
struct lp_sample;
int soft__decode_prev(struct lp_decode_ctx *ctx,
		      const struct lp_perf_sample *raw, struct lp_sample *out);

#endif
