// SPDX-License-Identifier: GPL-2.0
/*
 * soft facility: setup's attr, decode of raw samples against a fake process
 * (code in a buffer read through a counting read_mem), the per-IP cache,
 * and previous-instruction recovery.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86-soft/soft.h"
#include "core/facility.h"
#include "core/tests.h"
#include "arch/x86-soft/x86-decode.h"

/* A fake text page at CODE_BASE; reads outside it fail like process_vm_readv. */
#define CODE_BASE 0x401000ULL

struct fake_proc {
	const u8 *code;
	size_t len;
	int calls;
};

static long fake_read(void *arg, u32 pid, u64 addr, void *buf, size_t len)
{
	struct fake_proc *p = arg;

	(void)pid;
	p->calls++;
	if (addr < CODE_BASE || addr - CODE_BASE >= p->len)
		return -EFAULT;
	if (len > p->len - (addr - CODE_BASE))
		len = p->len - (addr - CODE_BASE);
	memcpy(buf, p->code + (addr - CODE_BASE), len);
	return len;
}

/* Strict variant: a read crossing the end fails entirely. */
static long fake_read_strict(void *arg, u32 pid, u64 addr, void *buf, size_t len)
{
	struct fake_proc *p = arg;

	if (addr >= CODE_BASE && addr - CODE_BASE + len > p->len) {
		p->calls++;
		return -EFAULT;
	}
	return fake_read(arg, pid, addr, buf, len);
}

static void raw_init(struct lp_perf_sample *raw, u64 ip)
{
	memset(raw, 0, sizeof(*raw));
	raw->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			   PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			   PERF_SAMPLE_PERIOD | PERF_SAMPLE_REGS_USER;
	raw->misc = PERF_RECORD_MISC_USER;
	raw->ip = ip;
	raw->pid = 100;
	raw->tid = 101;
	raw->time = 123456789;
	raw->cpu = 1;
	raw->period = 100000;
	raw->regs_abi = PERF_SAMPLE_REGS_ABI_64;
	raw->regs_mask = LP_REGS_USER_MASK;
	raw->regs[LP_REG_IP] = ip;
	raw->regs[LP_REG_SP] = 0x7ffc0000;
	raw->regs[LP_REG_FLAGS] = 0x202;
}

/*
 * as + objdump -d of:
 *   0: 55                push %rbp
 *   1: 48 89 e5          mov %rsp,%rbp
 *   4: 48 89 fa          mov %rdi,%rdx
 *   7: 4c 8d 46 10       lea 0x10(%rsi),%r8
 *   b: 48 63 c9          movslq %ecx,%rcx
 *   e: 4c 6b c9 28       imul $0x28,%rcx,%r9
 *  12: 4c 01 ca          add %r9,%rdx
 *  15: 0f 1f 00          nopl (%rax)
 *  18: 8b 0a             mov (%rdx),%ecx
 *  1a: 01 c8             add %ecx,%eax
 *  1c: 48 8b 00          mov (%rax),%rax
 *  1f: 48 01 c3          add %rax,%rbx
 *  22: 5d                pop %rbp
 *  23: c3                ret
 */
static const u8 prog[] = {
	0x55, 0x48, 0x89, 0xe5, 0x48, 0x89, 0xfa, 0x4c, 0x8d, 0x46, 0x10,
	0x48, 0x63, 0xc9, 0x4c, 0x6b, 0xc9, 0x28, 0x4c, 0x01, 0xca,
	0x0f, 0x1f, 0x00, 0x8b, 0x0a, 0x01, 0xc8, 0x48, 0x8b, 0x00,
	0x48, 0x01, 0xc3, 0x5d, 0xc3,
};
#define OFF_MOV_RDX	0x18
#define OFF_ADD_ECX	0x1a
#define OFF_MOV_RAX	0x1c
#define OFF_ADD_RAX	0x1f
#define OFF_LEA		0x07
#define OFF_POP		0x22
#define OFF_RET		0x23

static void ctx_init(struct lp_decode_ctx *ctx, struct fake_proc *p)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->pid = 100;
	ctx->tid = 101;
	ctx->read_mem = fake_read;
	ctx->arg = p;
}

LP_TEST(test_soft_setup_attr, "soft: setup asks for cpu-clock with user regs, default 100000 ns")
{
	struct lp_sampling_opts opts = { 0 };
	struct perf_event_attr a[LP_MAX_FACILITY_ATTRS];
	u64 want;
	int n = 0;

	TEST_ASSERT(!lp_facility_soft.setup(&opts, a, &n), "setup");
	TEST_ASSERT(n == 1, "nattrs %d", n);
	TEST_ASSERT(a[0].type == PERF_TYPE_SOFTWARE &&
		    a[0].config == PERF_COUNT_SW_CPU_CLOCK, "type/config");
	TEST_ASSERT(a[0].sample_period == 100000 && !a[0].freq, "period %llu",
		    (unsigned long long)a[0].sample_period);
	TEST_ASSERT(lp_facility_soft.default_period == 100000 &&
		    !strcmp(lp_facility_soft.period_unit, "ns"), "default/unit");
	TEST_ASSERT(a[0].sample_regs_user == LP_REGS_USER_MASK, "regs mask");
	want = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
	       PERF_SAMPLE_CPU | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_IDENTIFIER |
	       PERF_SAMPLE_PERIOD;
	TEST_ASSERT(a[0].sample_type == want, "sample_type %#llx",
		    (unsigned long long)a[0].sample_type);
	TEST_ASSERT(a[0].exclude_kernel && a[0].exclude_hv, "exclude");
	TEST_ASSERT(!a[0].sigtrap && !a[0].remove_on_exec, "no sigtrap by default");

	opts.freq = 4000;
	opts.sigtrap = 1;
	TEST_ASSERT(!lp_facility_soft.setup(&opts, a, &n), "setup");
	TEST_ASSERT(a[0].freq && a[0].sample_freq == 4000, "freq");
	TEST_ASSERT(a[0].sigtrap && a[0].remove_on_exec && !a[0].sig_data, "sigtrap");
	opts.freq = 0;
	opts.period = 250000;
	TEST_ASSERT(!lp_facility_soft.setup(&opts, a, &n), "setup");
	TEST_ASSERT(a[0].sample_period == 250000 && !a[0].freq, "period");
	return TEST_OK;
}

LP_TEST(test_soft_decode_load_and_cache, "soft: decode reads code once per IP, computes the address, copies fields")
{
	struct fake_proc p = { prog, sizeof(prog), 0 };
	struct lp_decode_ctx dc;
	struct lp_perf_sample raw;
	struct lp_sample s;
	int calls;

	ctx_init(&dc, &p);
	raw_init(&raw, CODE_BASE + OFF_MOV_RDX);
	raw.regs[LP_REG_DX] = 0x601040;
	TEST_ASSERT(!lp_facility_soft.decode(&dc, &raw, &s), "decode");
	TEST_ASSERT(s.noaddr == LP_NOADDR_NONE, "noaddr %u", s.noaddr);
	TEST_ASSERT(s.addr == 0x601040 && s.size == 4 && s.kind == LP_ACCESS_LOAD,
		    "addr %#llx size %u kind %u", (unsigned long long)s.addr,
		    s.size, s.kind);
	TEST_ASSERT(s.ip == raw.ip && s.tid == 101 && s.pid == 100 && s.cpu == 1 &&
		    s.time == 123456789 && s.period == 100000, "fields");
	TEST_ASSERT(!(s.flags & LP_SAMPLE_PREV_INSN) && (s.flags & LP_SAMPLE_PENDING),
		    "flags %#x: the sampled instruction's own access has not run yet", s.flags);
	calls = p.calls;
	TEST_ASSERT(calls >= 1, "read_mem not called");

	raw.regs[LP_REG_DX] = 0x601080;	/* same IP, other registers */
	TEST_ASSERT(!lp_facility_soft.decode(&dc, &raw, &s), "decode");
	TEST_ASSERT(p.calls == calls, "cached IP read code again (%d -> %d)",
		    calls, p.calls);
	TEST_ASSERT(s.addr == 0x601080, "cache holds the operand, not the address: %#llx",
		    (unsigned long long)s.addr);

	lp_facility_soft.flush(&dc);
	TEST_ASSERT(dc.cache == NULL, "flush keeps the cache");
	TEST_ASSERT(!lp_facility_soft.decode(&dc, &raw, &s), "decode");
	TEST_ASSERT(p.calls > calls, "after flush code must be read again");
	lp_facility_soft.flush(&dc);
	return TEST_OK;
}

LP_TEST(test_soft_decode_noaddr_reasons, "soft: not-memory, kernel, no regs, unreadable and undecodable samples say why")
{
	static const u8 bad[] = { 0x06, 0x06, 0x06, 0x06 };	/* invalid in 64-bit mode */
	struct fake_proc p = { prog, sizeof(prog), 0 };
	struct fake_proc pb = { bad, sizeof(bad), 0 };
	struct lp_decode_ctx dc;
	struct lp_perf_sample raw;
	struct lp_sample s;

	ctx_init(&dc, &p);
	raw_init(&raw, CODE_BASE + OFF_LEA);
	TEST_ASSERT(!lp_facility_soft.decode(&dc, &raw, &s), "decode");
	TEST_ASSERT(s.noaddr == LP_NOADDR_NOT_MEMORY, "lea: noaddr %u", s.noaddr);

	raw_init(&raw, 0xffffffff81000000ULL);
	raw.misc = PERF_RECORD_MISC_KERNEL;
	TEST_ASSERT(!lp_facility_soft.decode(&dc, &raw, &s), "decode");
	TEST_ASSERT(s.noaddr == LP_NOADDR_KERNEL && (s.flags & LP_SAMPLE_KERNEL),
		    "kernel: noaddr %u flags %#x", s.noaddr, s.flags);

	raw_init(&raw, CODE_BASE + OFF_MOV_RDX);
	raw.regs_abi = 0;
	TEST_ASSERT(!lp_facility_soft.decode(&dc, &raw, &s), "decode");
	TEST_ASSERT(s.noaddr == LP_NOADDR_NO_REGS, "no regs: noaddr %u", s.noaddr);

	raw_init(&raw, 0x500000);		/* outside the fake text */
	TEST_ASSERT(!lp_facility_soft.decode(&dc, &raw, &s), "decode");
	TEST_ASSERT(s.noaddr == LP_NOADDR_CODE_UNREADABLE, "unreadable: noaddr %u",
		    s.noaddr);
	lp_facility_soft.flush(&dc);

	ctx_init(&dc, &pb);
	raw_init(&raw, CODE_BASE);
	TEST_ASSERT(!lp_facility_soft.decode(&dc, &raw, &s), "decode");
	TEST_ASSERT(s.noaddr == LP_NOADDR_DECODE_FAILED, "bad bytes: noaddr %u",
		    s.noaddr);
	lp_facility_soft.flush(&dc);
	return TEST_OK;
}

LP_TEST(test_soft_decode_page_end_partial_read, "soft: an instruction at the end of readable code decodes from a short read")
{
	struct fake_proc p = { prog, sizeof(prog), 0 };
	struct lp_decode_ctx dc;
	struct lp_perf_sample raw;
	struct lp_sample s;

	/* pop %rbp; ret are the last 2 bytes: a 15-byte read fails outright */
	ctx_init(&dc, &p);
	dc.read_mem = fake_read_strict;
	raw_init(&raw, CODE_BASE + OFF_POP);
	TEST_ASSERT(!lp_facility_soft.decode(&dc, &raw, &s), "decode");
	/* our fake "page" is not 4096 long, so only a real page end retries */
	TEST_ASSERT(s.noaddr == LP_NOADDR_CODE_UNREADABLE, "noaddr %u", s.noaddr);
	lp_facility_soft.flush(&dc);

	{
		static u8 page[4096];
		struct fake_proc pp = { page, sizeof(page), 0 };

		memset(page, 0x90, sizeof(page));
		page[4094] = 0x5d;	/* pop %rbp */
		page[4095] = 0xc3;	/* ret */
		ctx_init(&dc, &pp);
		dc.read_mem = fake_read_strict;
		raw_init(&raw, CODE_BASE + 4095);
		raw.regs[LP_REG_SP] = 0x7ffc1000;
		TEST_ASSERT(!lp_facility_soft.decode(&dc, &raw, &s), "decode");
		TEST_ASSERT(s.noaddr == LP_NOADDR_NONE, "ret at page end: noaddr %u",
			    s.noaddr);
		TEST_ASSERT(s.addr == 0x7ffc1000 && s.kind == LP_ACCESS_LOAD,
			    "ret loads at rsp: %#llx", (unsigned long long)s.addr);
		TEST_ASSERT(pp.calls == 2, "expected one failed and one short read, %d",
			    pp.calls);
		lp_facility_soft.flush(&dc);
	}
	return TEST_OK;
}

LP_TEST(test_soft_decode_fs_base_from_ctx, "soft: %fs-relative TLS load uses ctx->fs_base")
{
	static const u8 tls[] = { 0x64, 0x48, 0x8b, 0x04, 0x25, 0x10, 0x00, 0x00, 0x00,	/* mov %fs:0x10,%rax */
				  0x64, 0x48, 0x8b, 0x10 };				/* mov %fs:(%rax),%rdx */
	struct fake_proc p = { tls, sizeof(tls), 0 };
	struct lp_decode_ctx dc;
	struct lp_perf_sample raw;
	struct lp_sample s;

	ctx_init(&dc, &p);
	dc.fs_base = 0x7f00deadb000ULL;
	raw_init(&raw, CODE_BASE);
	TEST_ASSERT(!lp_facility_soft.decode(&dc, &raw, &s), "decode");
	TEST_ASSERT(s.addr == 0x7f00deadb010ULL && s.size == 8, "addr %#llx",
		    (unsigned long long)s.addr);
	raw_init(&raw, CODE_BASE + 9);
	raw.regs[LP_REG_AX] = 0x28;
	TEST_ASSERT(!lp_facility_soft.decode(&dc, &raw, &s), "decode");
	TEST_ASSERT(s.addr == 0x7f00deadb028ULL, "addr %#llx", (unsigned long long)s.addr);
	lp_facility_soft.flush(&dc);
	return TEST_OK;
}

LP_TEST(test_soft_prev_insn_recovers_load, "soft: IP at add %ecx,%eax recovers mov (%rdx),%ecx from rdx (by voting)")
{
	struct fake_proc p = { prog, sizeof(prog), 0 };
	struct lp_decode_ctx dc;
	struct lp_perf_sample raw;
	struct lp_sample s;
	int err;

	ctx_init(&dc, &p);
	raw_init(&raw, CODE_BASE + OFF_ADD_ECX);
	raw.regs[LP_REG_DX] = 0x601040;
	raw.regs[LP_REG_CX] = 7;		/* already overwritten by the load */
	/* nothing learned yet: the boundary comes from forward decoding */
	err = soft__decode_prev(&dc, &raw, &s);
	TEST_ASSERT(!err, "err %d noaddr %u", err, s.noaddr);
	TEST_ASSERT(s.ip == CODE_BASE + OFF_MOV_RDX, "prev ip %#llx",
		    (unsigned long long)s.ip);
	TEST_ASSERT(s.addr == 0x601040 && s.size == 4 && s.kind == LP_ACCESS_LOAD,
		    "addr %#llx size %u kind %u", (unsigned long long)s.addr,
		    s.size, s.kind);
	TEST_ASSERT((s.flags & LP_SAMPLE_PREV_INSN) && !(s.flags & LP_SAMPLE_PENDING),
		    "flags %#x", s.flags);
	TEST_ASSERT(s.noaddr == LP_NOADDR_NONE, "noaddr %u", s.noaddr);
	lp_facility_soft.flush(&dc);
	return TEST_OK;
}

LP_TEST(test_soft_prev_insn_below_min_addr, "soft: a previous instruction's address below vm.mmap_min_addr (IP at a jump target) is marked, not kept")
{
	struct fake_proc p = { prog, sizeof(prog), 0 };
	struct lp_decode_ctx dc;
	struct lp_perf_sample raw;
	struct lp_sample s;

	/* seen on xz: IP after 'mov %esi,(%rbx)' reached by a jump, rbx = 4 */
	ctx_init(&dc, &p);
	raw_init(&raw, CODE_BASE + OFF_ADD_ECX);
	raw.regs[LP_REG_DX] = 0x4;
	TEST_ASSERT(!soft__decode_prev(&dc, &raw, &s) && s.addr == 0x4, "addr %#llx",
		    (unsigned long long)s.addr);
	TEST_ASSERT(lp_sample_below_min(&s, 65536) && s.noaddr == LP_NOADDR_BELOW_MIN,
		    "noaddr %u", s.noaddr);
	TEST_ASSERT(!strcmp(lp_noaddr_names[s.noaddr],
			    "decoded address below vm.mmap_min_addr (not the instruction that ran)"),
		    "name '%s'", lp_noaddr_names[s.noaddr]);
	/* the lowest mappable address itself is kept, and so is any with min 0 */
	raw.regs[LP_REG_DX] = 65536;
	TEST_ASSERT(!soft__decode_prev(&dc, &raw, &s), "decode");
	TEST_ASSERT(!lp_sample_below_min(&s, 65536) && s.noaddr == LP_NOADDR_NONE,
		    "noaddr %u", s.noaddr);
	raw.regs[LP_REG_DX] = 0x4;
	TEST_ASSERT(!soft__decode_prev(&dc, &raw, &s), "decode");
	TEST_ASSERT(!lp_sample_below_min(&s, 0) && s.noaddr == LP_NOADDR_NONE,
		    "noaddr %u", s.noaddr);
	lp_facility_soft.flush(&dc);
	return TEST_OK;
}

LP_TEST(test_soft_prev_insn_learned_boundary, "soft: a boundary learned from a sample at the load is used without reading code")
{
	/* only the two instructions: too little code before IP to vote */
	static const u8 two[] = { 0x8b, 0x0a, 0x01, 0xc8 };	/* mov (%rdx),%ecx; add %ecx,%eax */
	struct fake_proc p = { two, sizeof(two), 0 };
	struct lp_decode_ctx dc;
	struct lp_perf_sample raw;
	struct lp_sample s;
	int calls;

	ctx_init(&dc, &p);
	raw_init(&raw, CODE_BASE + 2);
	raw.regs[LP_REG_DX] = 0x601040;
	TEST_ASSERT(soft__decode_prev(&dc, &raw, &s) == -ENOENT,
		    "one vote must not be enough");
	lp_facility_soft.flush(&dc);

	/* a sample on the load itself teaches where it ends */
	raw_init(&raw, CODE_BASE);
	raw.regs[LP_REG_DX] = 0x601000;
	TEST_ASSERT(!lp_facility_soft.decode(&dc, &raw, &s), "decode");
	calls = p.calls;
	raw_init(&raw, CODE_BASE + 2);
	raw.regs[LP_REG_DX] = 0x601040;
	TEST_ASSERT(!soft__decode_prev(&dc, &raw, &s), "noaddr %u", s.noaddr);
	TEST_ASSERT(s.ip == CODE_BASE && s.addr == 0x601040, "ip %#llx addr %#llx",
		    (unsigned long long)s.ip, (unsigned long long)s.addr);
	TEST_ASSERT(p.calls == calls, "learned boundary read code (%d -> %d)",
		    calls, p.calls);
	lp_facility_soft.flush(&dc);
	return TEST_OK;
}

LP_TEST(test_soft_prev_insn_not_recoverable, "soft: after mov (%rax),%rax the address is gone; after pop and lea say why")
{
	struct fake_proc p = { prog, sizeof(prog), 0 };
	struct lp_decode_ctx dc;
	struct lp_perf_sample raw;
	struct lp_sample s;
	int err;

	ctx_init(&dc, &p);
	raw_init(&raw, CODE_BASE + OFF_ADD_RAX);
	raw.regs[LP_REG_AX] = 0x1234;
	err = soft__decode_prev(&dc, &raw, &s);
	TEST_ASSERT(err == -EADDRNOTAVAIL, "err %d", err);
	TEST_ASSERT(s.ip == CODE_BASE + OFF_MOV_RAX, "found the load at %#llx",
		    (unsigned long long)s.ip);
	TEST_ASSERT(s.noaddr != LP_NOADDR_NONE, "noaddr %u", s.noaddr);

	/* IP at ret: previous is pop %rbp, loaded from rsp-8 */
	raw_init(&raw, CODE_BASE + OFF_RET);
	raw.regs[LP_REG_SP] = 0x7ffc0010;
	err = soft__decode_prev(&dc, &raw, &s);
	TEST_ASSERT(!err && s.addr == 0x7ffc0008 && s.kind == LP_ACCESS_LOAD,
		    "pop: err %d addr %#llx", err, (unsigned long long)s.addr);

	/* IP at movslq: previous is lea, not a memory access */
	raw_init(&raw, CODE_BASE + 0x0b);
	err = soft__decode_prev(&dc, &raw, &s);
	TEST_ASSERT(err == -ENODATA && s.noaddr == LP_NOADDR_NOT_MEMORY,
		    "lea: err %d noaddr %u", err, s.noaddr);
	lp_facility_soft.flush(&dc);
	return TEST_OK;
}
