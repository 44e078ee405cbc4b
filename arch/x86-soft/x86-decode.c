// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64 instruction -> memory access description, with Capstone 4.
 * See x86-decode.h for the choices made.
 */
#include <errno.h>
#include <string.h>
#include <capstone/capstone.h>

#include "core/event.h"
#include "arch/x86-soft/x86-decode.h"

/*
 * One Capstone handle per thread (cs_disasm_iter keeps state in the handle),
 * opened on first use; one with operand detail, one without for lengths.
 */
static __thread csh cs_detail_h, cs_len_h;
static __thread cs_insn *cs_detail_insn, *cs_len_insn;

static int cs__get(int detail, csh *h, cs_insn **insn)
{
	csh *hp = detail ? &cs_detail_h : &cs_len_h;
	cs_insn **ip = detail ? &cs_detail_insn : &cs_len_insn;

	if (!*ip) {
		if (cs_open(CS_ARCH_X86, CS_MODE_64, hp) != CS_ERR_OK)
			return -ENOMEM;
		if (detail)
			cs_option(*hp, CS_OPT_DETAIL, CS_OPT_ON);
		*ip = cs_malloc(*hp);
		if (!*ip) {
			cs_close(hp);
			return -ENOMEM;
		}
	}
	*h = *hp;
	*insn = *ip;
	return 0;
}

/* Capstone register -> perf register number, X86_NOREG if not a GPR/IP/FLAGS. */
static u8 reg__perf(x86_reg r)
{
	switch (r) {
	case X86_REG_RAX: case X86_REG_EAX: case X86_REG_AX:
	case X86_REG_AL: case X86_REG_AH:
		return LP_REG_AX;
	case X86_REG_RBX: case X86_REG_EBX: case X86_REG_BX:
	case X86_REG_BL: case X86_REG_BH:
		return LP_REG_BX;
	case X86_REG_RCX: case X86_REG_ECX: case X86_REG_CX:
	case X86_REG_CL: case X86_REG_CH:
		return LP_REG_CX;
	case X86_REG_RDX: case X86_REG_EDX: case X86_REG_DX:
	case X86_REG_DL: case X86_REG_DH:
		return LP_REG_DX;
	case X86_REG_RSI: case X86_REG_ESI: case X86_REG_SI: case X86_REG_SIL:
		return LP_REG_SI;
	case X86_REG_RDI: case X86_REG_EDI: case X86_REG_DI: case X86_REG_DIL:
		return LP_REG_DI;
	case X86_REG_RBP: case X86_REG_EBP: case X86_REG_BP: case X86_REG_BPL:
		return LP_REG_BP;
	case X86_REG_RSP: case X86_REG_ESP: case X86_REG_SP: case X86_REG_SPL:
		return LP_REG_SP;
	case X86_REG_RIP: case X86_REG_EIP: case X86_REG_IP:
		return LP_REG_IP;
	case X86_REG_EFLAGS:
		return LP_REG_FLAGS;
	case X86_REG_R8: case X86_REG_R8D: case X86_REG_R8W: case X86_REG_R8B:
		return LP_REG_R8;
	case X86_REG_R9: case X86_REG_R9D: case X86_REG_R9W: case X86_REG_R9B:
		return LP_REG_R9;
	case X86_REG_R10: case X86_REG_R10D: case X86_REG_R10W: case X86_REG_R10B:
		return LP_REG_R10;
	case X86_REG_R11: case X86_REG_R11D: case X86_REG_R11W: case X86_REG_R11B:
		return LP_REG_R11;
	case X86_REG_R12: case X86_REG_R12D: case X86_REG_R12W: case X86_REG_R12B:
		return LP_REG_R12;
	case X86_REG_R13: case X86_REG_R13D: case X86_REG_R13W: case X86_REG_R13B:
		return LP_REG_R13;
	case X86_REG_R14: case X86_REG_R14D: case X86_REG_R14W: case X86_REG_R14B:
		return LP_REG_R14;
	case X86_REG_R15: case X86_REG_R15D: case X86_REG_R15W: case X86_REG_R15B:
		return LP_REG_R15;
	default:
		return X86_NOREG;
	}
}

static int id_in(unsigned int id, const u16 *tab, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (tab[i] == id)
			return 1;
	return 0;
}

/* Touch no data: address computations, hints, cache maintenance. */
static const u16 not_memory_ids[] = {
	X86_INS_LEA, X86_INS_NOP, X86_INS_PREFETCH, X86_INS_PREFETCHNTA,
	X86_INS_PREFETCHT0, X86_INS_PREFETCHT1, X86_INS_PREFETCHT2,
	X86_INS_PREFETCHW, X86_INS_CLFLUSH, X86_INS_CLFLUSHOPT, X86_INS_CLWB,
	X86_INS_VGATHERPF0DPD, X86_INS_VGATHERPF0DPS, X86_INS_VGATHERPF0QPD,
	X86_INS_VGATHERPF0QPS, X86_INS_VGATHERPF1DPD, X86_INS_VGATHERPF1DPS,
	X86_INS_VGATHERPF1QPD, X86_INS_VGATHERPF1QPS, X86_INS_VSCATTERPF0DPD,
	X86_INS_VSCATTERPF0DPS, X86_INS_VSCATTERPF0QPD, X86_INS_VSCATTERPF0QPS,
	X86_INS_VSCATTERPF1DPD, X86_INS_VSCATTERPF1DPS, X86_INS_VSCATTERPF1QPD,
	X86_INS_VSCATTERPF1QPS,
};

/* Capstone 4 gets the VSIB index wrong for EVEX scatters: go by id. */
static const u16 vsib_ids[] = {
	X86_INS_VPGATHERDD, X86_INS_VPGATHERDQ, X86_INS_VPGATHERQD,
	X86_INS_VPGATHERQQ, X86_INS_VGATHERDPD, X86_INS_VGATHERDPS,
	X86_INS_VGATHERQPD, X86_INS_VGATHERQPS, X86_INS_VPSCATTERDD,
	X86_INS_VPSCATTERDQ, X86_INS_VPSCATTERQD, X86_INS_VPSCATTERQQ,
	X86_INS_VSCATTERDPD, X86_INS_VSCATTERDPS, X86_INS_VSCATTERQPD,
	X86_INS_VSCATTERQPS,
};

/* One-operand stores Capstone 4 marks as reads. */
static const u16 store1_ids[] = {
	X86_INS_FST, X86_INS_FSTP, X86_INS_FSTPNCE, X86_INS_FIST,
	X86_INS_FISTP, X86_INS_FISTTP, X86_INS_FBSTP, X86_INS_FNSTCW,
	X86_INS_FNSTSW, X86_INS_FNSTENV, X86_INS_FNSAVE, X86_INS_STMXCSR,
	X86_INS_VSTMXCSR, X86_INS_FXSAVE, X86_INS_FXSAVE64, X86_INS_XSAVE,
	X86_INS_XSAVE64, X86_INS_XSAVEC, X86_INS_XSAVEC64, X86_INS_XSAVEOPT,
	X86_INS_XSAVEOPT64, X86_INS_XSAVES, X86_INS_XSAVES64, X86_INS_SGDT,
	X86_INS_SIDT, X86_INS_SLDT, X86_INS_STR, X86_INS_SMSW,
};

/* Read-modify-write Capstone 4 marks as reads. */
static const u16 rmw_ids[] = {
	X86_INS_CMPXCHG, X86_INS_CMPXCHG8B, X86_INS_CMPXCHG16B,
};

/* Memory operand in first position that is only read. */
static const u16 read_dest_ids[] = {
	X86_INS_CMP, X86_INS_TEST, X86_INS_BT, X86_INS_PUSH, X86_INS_CALL,
	X86_INS_JMP, X86_INS_LCALL, X86_INS_LJMP,
};

static const u16 bitop_ids[] = {
	X86_INS_BT, X86_INS_BTS, X86_INS_BTR, X86_INS_BTC,
};

static u8 access__kind(int ac, int locked)
{
	if ((ac & CS_AC_READ) && (ac & CS_AC_WRITE))
		return locked ? LP_ACCESS_ATOMIC : LP_ACCESS_STORE;
	if (ac & CS_AC_WRITE)
		return LP_ACCESS_STORE;
	return LP_ACCESS_LOAD;
}

/* movs/cmps/stos/lods/scas/ins/outs by primary opcode (not by id: movsd
 * the string op and movsd the SSE move share one Capstone id). */
static int decode__string(const cs_x86 *x, struct x86_insn_info *out)
{
	u8 op = x->opcode[0];
	int wide = op & 1;

	if (x->opcode[1] || !((op >= 0xa4 && op <= 0xaf && op != 0xa8 &&
			       op != 0xa9) || (op >= 0x6c && op <= 0x6f)))
		return 0;
	out->mem = X86_MEM_STRING;
	out->size = !wide ? 1 : (x->rex & 8) ? 8 : x->prefix[2] == 0x66 ? 2 : 4;
	switch (op & ~1) {
	case 0xa4:		/* movs: store to rdi (and load from rsi) */
	case 0xaa:		/* stos */
	case 0x6c:		/* ins */
		out->base = LP_REG_DI;
		out->kind = LP_ACCESS_STORE;
		break;
	case 0xae:		/* scas */
		out->base = LP_REG_DI;
		out->kind = LP_ACCESS_LOAD;
		break;
	default:		/* cmps (first load), lods, outs */
		out->base = LP_REG_SI;
		out->kind = LP_ACCESS_LOAD;
		break;
	}
	if (x->prefix[0] == X86_PREFIX_REP || x->prefix[0] == X86_PREFIX_REPNE)
		out->flags |= X86_INSN_REP;
	return 1;
}

static int decode__stack(const cs_insn *in, const cs_x86 *x,
			 struct x86_insn_info *out)
{
	u8 op;

	switch (in->id) {
	case X86_INS_PUSH: case X86_INS_PUSHF: case X86_INS_PUSHFQ:
		op = X86_STACK_PUSH;
		break;
	case X86_INS_POP: case X86_INS_POPF: case X86_INS_POPFQ:
		op = X86_STACK_POP;
		break;
	case X86_INS_CALL:
		op = X86_STACK_CALL;
		break;
	case X86_INS_RET:
		op = X86_STACK_RET;
		break;
	case X86_INS_ENTER:
		op = X86_STACK_ENTER;
		break;
	case X86_INS_LEAVE:
		op = X86_STACK_LEAVE;
		break;
	default:
		return 0;
	}
	out->mem = X86_MEM_STACK;
	out->stack = op;
	if (op == X86_STACK_POP && x->op_count == 1 &&
	    x->operands[0].type == X86_OP_REG &&
	    reg__perf(x->operands[0].reg) == LP_REG_SP)
		out->flags |= X86_INSN_SP_DEST;
	out->base = LP_REG_SP;
	out->size = x->prefix[2] == 0x66 ? 2 : 8;
	switch (op) {
	case X86_STACK_PUSH: case X86_STACK_CALL: case X86_STACK_ENTER:
		out->disp = -(s64)out->size;
		out->kind = LP_ACCESS_STORE;
		break;
	case X86_STACK_LEAVE:
		out->base = LP_REG_BP;
		/* fall through */
	default:
		out->kind = LP_ACCESS_LOAD;
		break;
	}
	return 1;
}

static int decode__operand(const cs_insn *in, const cs_x86 *x,
			   struct x86_insn_info *out)
{
	const cs_x86_op *op = NULL;
	int i, mi = -1, ac;

	for (i = 0; i < x->op_count; i++) {
		if (x->operands[i].type == X86_OP_MEM) {
			op = &x->operands[i];
			mi = i;
			break;
		}
	}
	if (!op)
		return 0;
	out->mem = X86_MEM_OPERAND;
	out->size = op->size;
	out->disp = op->mem.disp;
	out->seg = op->mem.segment == X86_REG_FS ? X86_SEG_FS :
		   op->mem.segment == X86_REG_GS ? X86_SEG_GS : X86_SEG_NONE;
	out->scale = op->mem.scale;
	out->addr32 = x->addr_size == 4;
	if (op->mem.base != X86_REG_INVALID) {
		out->base = reg__perf(op->mem.base);
		if (out->base == X86_NOREG) {
			out->mem = X86_MEM_VSIB;	/* not addressable by GPRs */
			return 1;
		}
	}
	if (op->mem.index != X86_REG_INVALID) {
		out->index = reg__perf(op->mem.index);
		if (out->index == X86_NOREG || out->index == LP_REG_IP) {
			out->mem = X86_MEM_VSIB;	/* vector index */
			return 1;
		}
	}

	ac = op->access;
	if (id_in(in->id, store1_ids, ARRAY_SIZE(store1_ids)))
		ac = CS_AC_WRITE;
	else if (id_in(in->id, rmw_ids, ARRAY_SIZE(rmw_ids)))
		ac = CS_AC_READ | CS_AC_WRITE;
	else if (mi == 0 && x->op_count >= 2 && !(ac & CS_AC_WRITE) &&
		 !id_in(in->id, read_dest_ids, ARRAY_SIZE(read_dest_ids)))
		ac = CS_AC_WRITE;
	else if (!ac)
		ac = CS_AC_READ;
	if (in->id == X86_INS_XCHG && (ac & CS_AC_WRITE))
		out->flags |= X86_INSN_LOCKED;
	out->kind = access__kind(ac, out->flags & X86_INSN_LOCKED);

	if (id_in(in->id, bitop_ids, ARRAY_SIZE(bitop_ids)) &&
	    x->op_count == 2 && x->operands[1].type == X86_OP_REG) {
		out->bitreg = reg__perf(x->operands[1].reg);
		if (out->bitreg != X86_NOREG)
			out->flags |= X86_INSN_BITOFF;
	}
	return 1;
}

static u32 decode__written(csh h, const cs_insn *in, const cs_x86 *x)
{
	cs_regs rd, wr;
	u8 nrd = 0, nwr = 0, r;
	u32 mask = 0;
	int i;

	if (cs_regs_access(h, in, rd, &nrd, wr, &nwr) == CS_ERR_OK) {
		for (i = 0; i < nwr; i++) {
			r = reg__perf(wr[i]);
			if (r != X86_NOREG)
				mask |= 1u << r;
		}
	}
	/* Explicit operands too: Capstone's implicit lists have gaps. */
	for (i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];

		if (op->type != X86_OP_REG)
			continue;
		if ((op->access & CS_AC_WRITE) || (!op->access && i == 0)) {
			r = reg__perf(op->reg);
			if (r != X86_NOREG)
				mask |= 1u << r;
		}
	}
	switch (in->id) {
	case X86_INS_CMPXCHG:
		mask |= 1u << LP_REG_AX;
		break;
	case X86_INS_CMPXCHG8B: case X86_INS_CMPXCHG16B:
		mask |= 1u << LP_REG_AX | 1u << LP_REG_DX;
		break;
	}
	return mask;
}

/* ---- EVEX (AVX-512) instructions Capstone 4 does not decode ---------- */

/* ModRM/SIB register numbers (with REX/EVEX extension bits) to LP_REG_*. */
static const u8 gpr_of_enc[16] = {
	LP_REG_AX, LP_REG_CX, LP_REG_DX, LP_REG_BX, LP_REG_SP, LP_REG_BP, LP_REG_SI, LP_REG_DI,
	LP_REG_R8, LP_REG_R9, LP_REG_R10, LP_REG_R11, LP_REG_R12, LP_REG_R13, LP_REG_R14, LP_REG_R15,
};

/* EVEX opcodes that write their memory operand (map 1 = 0F, 2 = 0F38, 3 = 0F3A). */
static int evex_is_store(int map, u8 op)
{
	static const u8 map1[] = { 0x11, 0x13, 0x17, 0x29, 0x2b, 0x7e, 0x7f, 0xd6, 0xe7 };
	static const u8 map2[] = { 0x8a, 0x8b, 0x63 };
	static const u8 map3[] = { 0x14, 0x15, 0x16, 0x17, 0x19, 0x1b, 0x1d, 0x39, 0x3b };
	const u8 *t = map == 1 ? map1 : map == 2 ? map2 : map3;
	size_t i, n = map == 1 ? sizeof(map1) : map == 2 ? sizeof(map2) : sizeof(map3);

	for (i = 0; i < n; i++)
		if (t[i] == op)
			return 1;
	return 0;
}

/*
 * The memory operand of an EVEX instruction from its encoding (Intel SDM
 * vol. 2, 2.6: 62 P0 P1 P2, opcode, ModRM, [SIB], [disp], [imm8]): glibc's
 * *_evex string functions use AVX-512 compares Capstone 4 cannot decode. A
 * disp8 is scaled by N, the bytes the operand covers (full vector, or one
 * element when EVEX.b broadcasts), which is right for the full-vector
 * loads, stores and compares those functions use. -EILSEQ if not EVEX.
 */
static int evex__decode(const u8 *c, size_t len, u64 ip, struct x86_insn_info *out)
{
	u8 p0, p1, p2, op, modrm, mod, rm;
	int map, vl, imm, b, x, base = -1, index = -1, disp_len = 0;
	unsigned int bytes;
	size_t n = 6;
	s64 disp = 0;

	if (len < 6 || c[0] != 0x62)
		return -EILSEQ;
	p0 = c[1];
	p1 = c[2];
	p2 = c[3];
	op = c[4];
	modrm = c[5];
	map = p0 & 3;
	vl = (p2 >> 5) & 3;
	if ((p0 & 0x0c) || !(p1 & 0x04) || !map || vl == 3)
		return -EILSEQ;
	imm = map == 3 || (map == 1 && ((op >= 0x70 && op <= 0x73) || op == 0xc2 ||
					(op >= 0xc4 && op <= 0xc6)));
	mod = modrm >> 6;
	rm = modrm & 7;
	memset(out, 0, sizeof(*out));
	out->ip = ip;
	out->base = out->index = out->bitreg = X86_NOREG;
	snprintf(out->mnemonic, sizeof(out->mnemonic), "evex.%d.%02x", map, op);
	if (mod == 3) {			/* registers only */
		out->len = n + imm;
		return out->len <= len ? 0 : -EILSEQ;
	}
	b = (p0 & 0x20) ? 0 : 8;	/* inverted REX.B, REX.X */
	x = (p0 & 0x40) ? 0 : 8;
	if (rm == 4) {
		u8 sib;

		if (len < n + 1)
			return -EILSEQ;
		sib = c[n++];
		out->scale = 1u << (sib >> 6);
		index = ((sib >> 3) & 7) | x;
		if (index == 4)		/* no index */
			index = -1;
		base = (sib & 7) | b;
		if ((sib & 7) == 5 && mod == 0) {
			base = -1;
			disp_len = 4;
		}
	} else if (rm == 5 && mod == 0) {
		base = 16;		/* rip-relative */
		disp_len = 4;
	} else {
		base = rm | b;
	}
	if (mod == 1)
		disp_len = 1;
	else if (mod == 2)
		disp_len = 4;
	if (len < n + disp_len + imm)
		return -EILSEQ;
	bytes = (p2 & 0x10) ? ((p1 & 0x80) ? 8 : 4) : 16u << vl;
	if (disp_len == 1) {
		disp = (s64)(int8_t)c[n] * bytes;
	} else if (disp_len == 4) {
		s32 d;

		memcpy(&d, c + n, 4);
		disp = d;
	}
	out->len = n + disp_len + imm;
	out->mem = X86_MEM_OPERAND;
	out->base = base < 0 ? X86_NOREG : base == 16 ? LP_REG_IP : gpr_of_enc[base];
	out->index = index < 0 ? X86_NOREG : gpr_of_enc[index];
	if (!out->scale)
		out->scale = 1;
	out->disp = disp;
	out->size = bytes;
	out->kind = evex_is_store(map, op) ? LP_ACCESS_STORE : LP_ACCESS_LOAD;
	return 0;
}

int x86_decode__insn(const u8 *code, size_t len, u64 ip, struct x86_insn_info *out)
{
	const uint8_t *p = code;
	uint64_t addr = ip;
	cs_insn *in;
	cs_x86 *x;
	csh h;
	int err;

	memset(out, 0, sizeof(*out));
	out->ip = ip;
	out->base = out->index = out->bitreg = X86_NOREG;
	err = cs__get(1, &h, &in);
	if (err)
		return err;
	if (len > X86_MAX_INSN_LEN)
		len = X86_MAX_INSN_LEN;
	if (!len || !cs_disasm_iter(h, &p, &len, &addr, in))
		return evex__decode(code, len, ip, out);
	x = &in->detail->x86;
	out->len = in->size;
	out->id = in->id;
	memcpy(out->mnemonic, in->mnemonic, sizeof(out->mnemonic) - 1);
	if (x->prefix[0] == X86_PREFIX_LOCK)
		out->flags |= X86_INSN_LOCKED;
	if (cs_insn_group(h, in, X86_GRP_JUMP) ||
	    cs_insn_group(h, in, X86_GRP_CALL) ||
	    cs_insn_group(h, in, X86_GRP_RET) ||
	    cs_insn_group(h, in, X86_GRP_INT) ||
	    cs_insn_group(h, in, X86_GRP_IRET))
		out->flags |= X86_INSN_BRANCH;
	out->regs_written = decode__written(h, in, x);

	if (id_in(in->id, not_memory_ids, ARRAY_SIZE(not_memory_ids)))
		return 0;
	if (id_in(in->id, vsib_ids, ARRAY_SIZE(vsib_ids))) {
		out->mem = X86_MEM_VSIB;
		out->kind = (in->id == X86_INS_VPSCATTERDD ||
			     in->id == X86_INS_VPSCATTERDQ ||
			     in->id == X86_INS_VPSCATTERQD ||
			     in->id == X86_INS_VPSCATTERQQ ||
			     in->id == X86_INS_VSCATTERDPD ||
			     in->id == X86_INS_VSCATTERDPS ||
			     in->id == X86_INS_VSCATTERQPD ||
			     in->id == X86_INS_VSCATTERQPS) ?
			    LP_ACCESS_STORE : LP_ACCESS_LOAD;
		return 0;
	}
	if (decode__string(x, out))
		return 0;
	/* An explicit operand (push 8(%rax), call *(%rax)) wins over the stack. */
	if (decode__operand(in, x, out))
		return 0;
	if (decode__stack(in, x, out))
		return 0;
	switch (in->id) {
	case X86_INS_XLATB:		/* al = [rbx + al] */
		out->mem = X86_MEM_OPERAND;
		out->base = LP_REG_BX;
		out->index = LP_REG_AX;
		out->scale = 1;
		out->size = 1;
		out->kind = LP_ACCESS_LOAD;
		out->flags |= X86_INSN_XLAT;
		out->addr32 = x->addr_size == 4;
		break;
	case X86_INS_MASKMOVDQU: case X86_INS_VMASKMOVDQU: case X86_INS_MASKMOVQ:
		out->mem = X86_MEM_OPERAND;	/* byte-masked store to [rdi] */
		out->base = LP_REG_DI;
		out->scale = 1;
		out->size = in->id == X86_INS_MASKMOVQ ? 8 : 16;
		out->kind = LP_ACCESS_STORE;
		out->addr32 = x->addr_size == 4;
		break;
	}
	return 0;
}

size_t x86_decode__len(const u8 *code, size_t len, u64 ip)
{
	const uint8_t *p = code;
	uint64_t addr = ip;
	cs_insn *in;
	csh h;

	if (cs__get(0, &h, &in))
		return 0;
	if (len > X86_MAX_INSN_LEN)
		len = X86_MAX_INSN_LEN;
	if (!len || !cs_disasm_iter(h, &p, &len, &addr, in)) {
		struct x86_insn_info e;

		return evex__decode(code, len, ip, &e) ? 0 : e.len;
	}
	return in->size;
}

u64 x86_insn__regs_needed(const struct x86_insn_info *in)
{
	u64 m = 0;

	if (in->base != X86_NOREG && in->base != LP_REG_IP)
		m |= 1ull << in->base;
	if (in->index != X86_NOREG)
		m |= 1ull << in->index;
	if (in->flags & X86_INSN_BITOFF)
		m |= 1ull << in->bitreg;
	if (in->mem == X86_MEM_STRING)
		m |= 1ull << LP_REG_FLAGS;
	return m;
}

static u64 ea__compute(const struct x86_insn_info *in, const u64 regs[LP_REG__MAX],
		       u64 fs_base, u64 gs_base)
{
	u64 a = (u64)in->disp;

	if (in->base == LP_REG_IP)
		a += in->ip + in->len;		/* rip-relative: next IP */
	else if (in->base != X86_NOREG)
		a += regs[in->base];
	if (in->flags & X86_INSN_XLAT)
		a += regs[LP_REG_AX] & 0xff;
	else if (in->index != X86_NOREG)
		a += regs[in->index] * in->scale;
	if (in->flags & X86_INSN_BITOFF) {
		/* signed bit offset selects a unit of size bytes */
		s64 off = (s64)regs[in->bitreg];

		switch (in->size) {
		case 2: off = (int16_t)off; break;
		case 4: off = (s32)off; break;
		}
		a += (u64)((off >> (in->size == 2 ? 4 : in->size == 4 ? 5 : 6)) *
			   in->size);
	}
	if (in->addr32)
		a = (u32)a;
	if (in->seg == X86_SEG_FS)
		a += fs_base;
	else if (in->seg == X86_SEG_GS)
		a += gs_base;
	return a;
}

/*
 * A thread pointer of 0 is not known yet (a program's first thread is read
 * at its exec, before ld.so sets it): an %fs-relative address would be
 * wrong, so there is none.
 */
static bool seg_unknown(const struct x86_insn_info *in, u64 fs_base)
{
	return in->seg == X86_SEG_FS && !fs_base;
}

int x86_insn__ea(const struct x86_insn_info *in, const u64 regs[LP_REG__MAX],
		 u64 fs_base, u64 gs_base, struct x86_access *out)
{
	memset(out, 0, sizeof(*out));
	out->size = in->size;
	out->kind = in->kind;
	if (in->mem != X86_MEM_NONE && seg_unknown(in, fs_base))
		return -EOPNOTSUPP;
	switch (in->mem) {
	case X86_MEM_NONE:
		return -ENODATA;
	case X86_MEM_VSIB:
		return -EOPNOTSUPP;
	default:
		break;
	}
	out->addr = ea__compute(in, regs, fs_base, gs_base);
	return 0;
}

int x86_insn__ea_after(const struct x86_insn_info *in,
		       const u64 regs[LP_REG__MAX], u64 fs_base, u64 gs_base,
		       struct x86_access *out)
{
	u32 used;
	int df;

	memset(out, 0, sizeof(*out));
	out->size = in->size;
	out->kind = in->kind;
	switch (in->mem) {
	case X86_MEM_NONE:
		return -ENODATA;
	case X86_MEM_VSIB:
		return -EOPNOTSUPP;
	case X86_MEM_STRING:
		/* the element just done is one step behind rsi/rdi */
		df = !!(regs[LP_REG_FLAGS] & (1u << 10));
		out->addr = df ? regs[in->base] + in->size :
				 regs[in->base] - in->size;
		return 0;
	case X86_MEM_STACK:
		switch (in->stack) {
		case X86_STACK_PUSH:		/* rsp now points at the slot */
			out->addr = regs[LP_REG_SP];
			return 0;
		case X86_STACK_POP:		/* pop %rsp loads rsp itself */
			if (in->flags & X86_INSN_SP_DEST)
				return -EADDRNOTAVAIL;
			/* fall through */
		case X86_STACK_LEAVE:		/* rsp = old rbp + 8 */
			out->addr = regs[LP_REG_SP] - in->size;
			return 0;
		default:			/* control moved, or enter */
			return -EADDRNOTAVAIL;
		}
	default:
		break;
	}
	used = 0;
	if (in->base != X86_NOREG && in->base != LP_REG_IP)
		used |= 1u << in->base;
	if (in->index != X86_NOREG)
		used |= 1u << in->index;
	if (in->flags & X86_INSN_BITOFF)
		used |= 1u << in->bitreg;
	if (in->regs_written & used)
		return -EADDRNOTAVAIL;
	if (seg_unknown(in, fs_base))
		return -EOPNOTSUPP;
	out->addr = ea__compute(in, regs, fs_base, gs_base);
	return 0;
}
