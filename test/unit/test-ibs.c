// SPDX-License-Identifier: GPL-2.0
/*
 * IBS without IBS: PERF_SAMPLE_RAW records built byte by byte from the
 * layout in Documentation/facilities.md, "AMD IBS" (u32 caps, u64 IBS_OP_CTL, OP_RIP, OP_DATA,
 * OP_DATA2, OP_DATA3, DC_LINADDR, DC_PHYSADDR, [BR_TARGET if caps bit 5],
 * [OP_DATA4 if caps bit 10]) inside a PERF_RECORD_SAMPLE parsed by
 * perf_sample__parse, then decoded; period rounding and range; the kernel
 * version rule; attrs for a forced libpfm4 AMD PMU.
 */
#include <errno.h>
#include <string.h>

#include "arch/x86-amd/ibs.h"
#include "core/facility.h"
#include "core/perf-record.h"
#include "arch/x86/data-src.h"
#include "core/tests.h"

struct rb {
	unsigned char b[512];
	size_t n;
};

static void put_le(struct rb *r, u64 v, int bytes)
{
	int i;

	for (i = 0; i < bytes; i++)
		r->b[r->n++] = (unsigned char)(v >> (8 * i));
}

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	    PERF_SAMPLE_CPU | PERF_SAMPLE_RAW)

/* the registers of one op, by name, and which optional ones to emit */
struct op {
	u32 caps;
	u64 ctl, rip, data, data2, data3, linaddr, physaddr, brtarget, data4;
	int truncate;	/* drop this many bytes from the raw data */
};

static size_t sample(struct rb *r, u16 misc, const struct op *op)
{
	u32 raw = 4 + 7 * 8;

	if (op->caps & (1u << 5))
		raw += 8;
	if (op->caps & (1u << 10))
		raw += 8;
	r->n = 0;
	put_le(r, PERF_RECORD_SAMPLE, 4);
	put_le(r, misc, 2);
	put_le(r, 0, 2);
	put_le(r, 5, 8);		/* IDENTIFIER */
	put_le(r, 0x400000, 8);		/* IP: the interrupted one, not the op's */
	put_le(r, 2000, 4);
	put_le(r, 2001, 4);
	put_le(r, 999, 8);		/* TIME */
	put_le(r, 1, 4);		/* cpu */
	put_le(r, 0, 4);
	put_le(r, raw - op->truncate, 4);	/* RAW size */
	put_le(r, op->caps, 4);
	put_le(r, op->ctl, 8);
	put_le(r, op->rip, 8);
	put_le(r, op->data, 8);
	put_le(r, op->data2, 8);
	put_le(r, op->data3, 8);
	put_le(r, op->linaddr, 8);
	put_le(r, op->physaddr, 8);
	if (op->caps & (1u << 5))
		put_le(r, op->brtarget, 8);
	if (op->caps & (1u << 10))
		put_le(r, op->data4, 8);
	r->n -= op->truncate;
	while (r->n % 8)
		r->b[r->n++] = 0;
	r->b[6] = r->n & 0xff;
	r->b[7] = r->n >> 8;
	return r->n;
}

static int decode(u16 misc, const struct op *op, struct lp_sample *s)
{
	struct lp_decode_ctx dctx;
	struct lp_perf_sample raw;
	struct rb r;
	size_t n = sample(&r, misc, op);

	if (perf_sample__parse(r.b, n, ST, 0, &raw))
		return -EINVAL;
	memset(&dctx, 0, sizeof(dctx));
	return lp_facility_ibs.decode(&dctx, &raw, s);
}

/* Zen3-like caps: AVAIL FETCHSAM OPSAM RDWROPCNT OPCNT BRNTRGT OPCNTEXT RIPINVALIDCHK */
#define CAPS_ZEN3	0xffu
#define D3_LOAD		(1ULL << 0)
#define D3_STORE	(1ULL << 1)
#define D3_L1TLB_MISS	(1ULL << 2)
#define D3_L2TLB_MISS	(1ULL << 3)
#define D3_DC_MISS	(1ULL << 7)
#define D3_LOCKED	(1ULL << 15)
#define D3_LIN_VALID	(1ULL << 17)
#define D3_L2_MISS	(1ULL << 20)
#define D3_WIDTH(w)	((u64)(w) << 22)
#define D3_LAT(c)	((u64)(c) << 32)

LP_TEST(test_ibs_decode_load, "ibs: load with valid address: width, miss latency, remote DRAM, op's own RIP")
{
	struct op op = {
		.caps = CAPS_ZEN3, .ctl = 1ULL << 18, .rip = 0x401000,
		/* DataSrc 3 = DRAM, RmtNode */
		.data2 = 3 | (1ULL << 4),
		.data3 = D3_LOAD | D3_LIN_VALID | D3_WIDTH(3) | D3_DC_MISS | D3_L2_MISS |
			 D3_LAT(250),
		.linaddr = 0x7ffd12345678, .physaddr = 0x12345678, .brtarget = 0xdead,
	};
	struct lp_sample s;
	char buf[128];

	ibs__stats_reset();
	TEST_ASSERT(decode(PERF_RECORD_MISC_USER, &op, &s) == 0, "decode");
	TEST_ASSERT(s.noaddr == LP_NOADDR_NONE && s.addr == 0x7ffd12345678, "addr 0x%llx noaddr %u",
		    (unsigned long long)s.addr, s.noaddr);
	TEST_ASSERT(s.ip == 0x401000, "ip 0x%llx (OP_RIP, not the interrupted IP)",
		    (unsigned long long)s.ip);
	TEST_ASSERT(s.kind == LP_ACCESS_LOAD && s.size == 4 && s.latency == 250,
		    "kind %u size %u lat %u", s.kind, s.size, s.latency);
	TEST_ASSERT(s.tid == 2001 && s.cpu == 1 && s.time == 999, "header");
	lp_data_src__str(s.data_src, buf, sizeof(buf));
	TEST_ASSERT(strstr(buf, "load") && strstr(buf, "remote-RAM(1-hop)") &&
		    strstr(buf, "TLB-L1 hit"), "'%.80s'", buf);
	return TEST_OK;
}

LP_TEST(test_ibs_decode_store_l1, "ibs: store, 8 bytes, L1 hit; caps without BR_TARGET/OP_DATA4")
{
	struct op op = {
		.caps = 0x1f, .ctl = 1ULL << 18, .rip = 0x402000,
		.data3 = D3_STORE | D3_LIN_VALID | D3_WIDTH(4),
		.linaddr = 0x601040,
	};
	struct lp_sample s;
	char buf[128];

	TEST_ASSERT(decode(PERF_RECORD_MISC_USER, &op, &s) == 0, "decode");
	TEST_ASSERT(s.kind == LP_ACCESS_STORE && s.size == 8 && s.addr == 0x601040 &&
		    s.latency == 0, "kind %u size %u addr 0x%llx", s.kind, s.size,
		    (unsigned long long)s.addr);
	lp_data_src__str(s.data_src, buf, sizeof(buf));
	TEST_ASSERT(!strncmp(buf, "store L1 hit", 12), "'%.80s'", buf);
	return TEST_OK;
}

LP_TEST(test_ibs_decode_discards, "ibs: invalid address, non-memory op, kernel address, short raw: dropped and counted")
{
	struct op noaddr = { .caps = CAPS_ZEN3, .rip = 0x1, .data3 = D3_LOAD | D3_WIDTH(4) };
	struct op alu = { .caps = CAPS_ZEN3, .rip = 0x2, .data3 = 0 };
	struct op kern = { .caps = CAPS_ZEN3, .rip = 0x3, .data3 = D3_LOAD | D3_LIN_VALID,
			   .linaddr = 0xffff888000000000ULL };
	struct op shortraw = { .caps = CAPS_ZEN3 | (1u << 10), .data3 = D3_LOAD | D3_LIN_VALID,
			       .linaddr = 0x1000, .truncate = 8 };
	struct ibs_stats st;
	struct lp_sample s;
	char buf[512];

	ibs__stats_reset();
	decode(PERF_RECORD_MISC_USER, &noaddr, &s);
	TEST_ASSERT(s.noaddr == LP_NOADDR_HW_INVALID && s.kind == LP_ACCESS_LOAD, "noaddr %u", s.noaddr);
	decode(PERF_RECORD_MISC_USER, &alu, &s);
	TEST_ASSERT(s.noaddr == LP_NOADDR_NOT_MEMORY, "alu noaddr %u", s.noaddr);
	decode(PERF_RECORD_MISC_USER, &kern, &s);
	TEST_ASSERT(s.noaddr == LP_NOADDR_KERNEL, "kernel noaddr %u", s.noaddr);
	decode(PERF_RECORD_MISC_USER, &shortraw, &s);
	TEST_ASSERT(s.noaddr == LP_NOADDR_HW_INVALID, "short raw noaddr %u", s.noaddr);
	ibs__stats(&st);
	TEST_ASSERT(st.ops == 4 && st.reason[IBS_KEPT] == 0 &&
		    st.reason[IBS_DISCARD_NO_ADDR] == 1 && st.reason[IBS_DISCARD_NOT_MEM] == 1 &&
		    st.reason[IBS_DISCARD_KERNEL] == 1 && st.reason[IBS_DISCARD_BAD_RAW] == 1,
		    "ops %llu", (unsigned long long)st.ops);
	lp_facility_ibs.stats(buf, sizeof(buf));
	TEST_ASSERT(strstr(buf, "4 ops sampled, 0 kept") && strstr(buf, "1 not a load or store") &&
		    strstr(buf, "1 no valid linear address"), "'%.100s'", buf);
	return TEST_OK;
}

LP_TEST(test_ibs_decode_locked_tlb_ripinvalid, "ibs: locked op is atomic; DTLB miss flag; RIP invalid gives ip 0")
{
	struct op op = {
		.caps = CAPS_ZEN3, .rip = 0x403000, .data = 1ULL << 38,
		.data3 = D3_LOAD | D3_LOCKED | D3_LIN_VALID | D3_WIDTH(4) | D3_L1TLB_MISS |
			 D3_L2TLB_MISS,
		.linaddr = 0x7000,
	};
	struct ibs_stats st;
	struct lp_sample s;
	char buf[128];

	ibs__stats_reset();
	decode(PERF_RECORD_MISC_USER, &op, &s);
	TEST_ASSERT(s.kind == LP_ACCESS_ATOMIC && (s.flags & LP_SAMPLE_LOCKED) &&
		    (s.flags & LP_SAMPLE_TLB_MISS), "kind %u flags %u", s.kind, s.flags);
	TEST_ASSERT(s.ip == 0 && s.addr == 0x7000 && s.noaddr == LP_NOADDR_NONE, "ip 0x%llx",
		    (unsigned long long)s.ip);
	lp_data_src__str(s.data_src, buf, sizeof(buf));
	TEST_ASSERT(strstr(buf, "TLB-L2 miss") && strstr(buf, "locked"), "'%.80s'", buf);
	ibs__stats(&st);
	TEST_ASSERT(st.rip_invalid == 1 && st.locked == 1 && st.tlb_miss == 1, "stats");
	/* without RIPINVALIDCHK in caps bit 38 means nothing */
	op.caps = 0x7f;
	decode(PERF_RECORD_MISC_USER, &op, &s);
	TEST_ASSERT(s.ip == 0x403000, "ip 0x%llx", (unsigned long long)s.ip);
	return TEST_OK;
}

LP_TEST(test_ibs_raw_layout_caps, "ibs: BR_TARGET and OP_DATA4 follow DC_PHYSADDR only when caps say so")
{
	unsigned char b[4 + 9 * 8];
	struct ibs_raw r;
	u32 caps;
	int i, k;

	/* registers numbered 1..n in order; caps with both extras */
	caps = (1u << 5) | (1u << 10);
	memcpy(b, &caps, 4);
	for (i = 0; i < 9; i++)
		for (k = 0; k < 8; k++)
			b[4 + 8 * i + k] = k ? 0 : (unsigned char)(i + 1);
	TEST_ASSERT(ibs__parse_raw(b, sizeof(b), &r) == 0, "parse");
	TEST_ASSERT(r.reg[IBS_DC_PHYSADDR] == 7 && r.reg[IBS_BR_TARGET] == 8 &&
		    r.reg[IBS_OP_DATA4] == 9, "order");
	/* only OP_DATA4: it comes right after DC_PHYSADDR */
	caps = 1u << 10;
	memcpy(b, &caps, 4);
	TEST_ASSERT(ibs__parse_raw(b, 4 + 8 * 8, &r) == 0, "parse");
	TEST_ASSERT(r.reg[IBS_OP_DATA4] == 8 && !r.has[IBS_BR_TARGET], "OP_DATA4 at 8");
	TEST_ASSERT(ibs__parse_raw(b, 4 + 7 * 8, &r) == -EINVAL, "short");
	caps = 0;
	memcpy(b, &caps, 4);
	TEST_ASSERT(ibs__parse_raw(b, 4 + 7 * 8, &r) == 0 && !r.has[IBS_OP_DATA4], "no extras");
	return TEST_OK;
}

LP_TEST(test_ibs_data_src_hitm_zen4, "ibs: Zen3 local-cache HITM (Modified) vs Owned; Zen4 extended DataSrc")
{
	struct ibs_raw r;
	char buf[128];

	memset(&r, 0, sizeof(r));
	r.caps = CAPS_ZEN3;
	r.reg[IBS_OP_DATA3] = D3_LOAD | D3_LIN_VALID | D3_DC_MISS | D3_L2_MISS;
	r.reg[IBS_OP_DATA2] = 2;		/* DataSrc 2: local cache, CacheHitSt 0 = M */
	lp_data_src__str(ibs__data_src(&r), buf, sizeof(buf));
	TEST_ASSERT(strstr(buf, "L3") && strstr(buf, "snoop-HITM"), "'%.80s'", buf);
	r.reg[IBS_OP_DATA2] = 2 | (1ULL << 5);	/* Owned */
	lp_data_src__str(ibs__data_src(&r), buf, sizeof(buf));
	TEST_ASSERT(!strstr(buf, "HITM"), "'%.80s'", buf);

	r.caps = CAPS_ZEN3 | (1u << 11);	/* Zen4: DataSrcHi in bits 6-7 */
	r.reg[IBS_OP_DATA2] = 5;		/* far CCX peer cache */
	lp_data_src__str(ibs__data_src(&r), buf, sizeof(buf));
	TEST_ASSERT(strstr(buf, "remote-cache(2-hop)"), "'%.80s'", buf);
	r.reg[IBS_OP_DATA2] = (1ULL << 6) | 0;	/* DataSrc 8: extension memory (CXL) */
	lp_data_src__str(ibs__data_src(&r), buf, sizeof(buf));
	TEST_ASSERT(strstr(buf, "CXL"), "'%.80s'", buf);
	/* L2 hit: DC miss without L2 miss */
	r.reg[IBS_OP_DATA3] = D3_LOAD | D3_LIN_VALID | D3_DC_MISS;
	lp_data_src__str(ibs__data_src(&r), buf, sizeof(buf));
	TEST_ASSERT(strstr(buf, "L2 hit"), "'%.80s'", buf);
	return TEST_OK;
}

LP_TEST(test_ibs_period, "ibs: period: nearest multiple of 16, 0x90..0xffff0, 27 bits with OpCntExt")
{
	char err[256];
	u64 p;

	TEST_ASSERT(ibs__period(0, 0, &p, err, sizeof(err)) == 0 && p == 65536, "default %llu",
		    (unsigned long long)p);
	TEST_ASSERT(ibs__period(100000, 0, &p, err, sizeof(err)) == 0 && p == 100000, "100000");
	TEST_ASSERT(ibs__period(1001, 0, &p, err, sizeof(err)) == 0 && p == 1008, "1001->%llu",
		    (unsigned long long)p);
	TEST_ASSERT(ibs__period(1006, 0, &p, err, sizeof(err)) == 0 && p == 1008, "1006");
	TEST_ASSERT(ibs__period(999, 0, &p, err, sizeof(err)) == 0 && p == 992, "999");
	TEST_ASSERT(ibs__period(0x90, 0, &p, err, sizeof(err)) == 0 && p == 0x90, "min");
	TEST_ASSERT(ibs__period(0x80, 0, &p, err, sizeof(err)) == -ERANGE, "below min");
	TEST_ASSERT(strstr(err, "144") && strstr(err, "1048560"), "'%.80s'", err);
	TEST_ASSERT(ibs__period(0xffff0, 0, &p, err, sizeof(err)) == 0, "20-bit max");
	TEST_ASSERT(ibs__period(0x100000, 0, &p, err, sizeof(err)) == -ERANGE, "above 20 bits");
	TEST_ASSERT(strstr(err, "OpCntExt"), "'%.80s'", err);
	TEST_ASSERT(ibs__period(0x100000, 1u << 6, &p, err, sizeof(err)) == 0 && p == 0x100000,
		    "27 bits with OpCntExt");
	TEST_ASSERT(ibs__period(0x7fffff0, 1u << 6, &p, err, sizeof(err)) == 0, "27-bit max");
	TEST_ASSERT(ibs__period(0x8000000, 1u << 6, &p, err, sizeof(err)) == -ERANGE, "above 27");
	return TEST_OK;
}

LP_TEST(test_ibs_kernel_version, "ibs: per-thread IBS needs 6.2: old kernel named in the message")
{
	char err[256];

	TEST_ASSERT(ibs__kernel_check("5.15.0-91-generic", err, sizeof(err)) == -EOPNOTSUPP, "5.15");
	TEST_ASSERT(strstr(err, "5.15.0-91-generic") && strstr(err, "6.2"), "'%.80s'", err);
	TEST_ASSERT(ibs__kernel_check("6.1.0-18-amd64", err, sizeof(err)) == -EOPNOTSUPP, "6.1");
	TEST_ASSERT(ibs__kernel_check("6.2.0", err, sizeof(err)) == 0, "6.2");
	TEST_ASSERT(ibs__kernel_check("6.18.44-fc-v669", err, sizeof(err)) == 0, "6.18");
	TEST_ASSERT(ibs__kernel_check("7.0", err, sizeof(err)) == 0, "7.0");
	TEST_ASSERT(ibs__kernel_check("junk", err, sizeof(err)) == -EOPNOTSUPP, "junk");
	return TEST_OK;
}

LP_TEST(test_ibs_attrs_forced_zen3, "ibs: forced amd64_fam19h_zen3: cnt_ctl, no exclude bits, LS_DISPATCH 0x129/0x229 group")
{
	struct perf_event_attr a[LP_MAX_FACILITY_ATTRS];
	struct lp_sampling_opts o = { .period = 200000, .counters = 1 };
	struct lp_attr_layout lay;
	struct ibs_pmu p;
	char err[256];
	int field, bit;

	TEST_ASSERT(lp_facility_ibs.setup_layout("amd64_fam19h_zen3", &o, a, &lay, err,
						 sizeof(err)) == 0, "%.60s", err);
	TEST_ASSERT(lay.nattrs == 3, "nattrs %d", lay.nattrs);
	TEST_ASSERT(a[0].config == (1ULL << 19) && a[0].sample_period == 200000, "config 0x%llx",
		    (unsigned long long)a[0].config);
	TEST_ASSERT(!a[0].exclude_kernel && !a[0].exclude_user && !a[0].exclude_hv &&
		    !a[0].exclude_guest && !a[0].precise_ip, "no exclude bits");
	TEST_ASSERT(a[0].sample_type & PERF_SAMPLE_RAW, "RAW");
	/* AMD PPR: PMCx029 LsDispatch, umask bit 0 loads, bit 1 stores */
	TEST_ASSERT(a[1].config == 0x129 && a[2].config == 0x229, "dispatch codes");
	TEST_ASSERT(lay.role[1] == LP_ATTR_COUNT && lay.leader[1] == 1 && lay.leader[2] == 1,
		    "group");
	TEST_ASSERT(!strstr(lay.note, "libpfm4 encodes"), "libpfm4 disagrees: %.80s", lay.note);
	TEST_ASSERT(lp_facility_ibs.setup_layout("skx", &o, a, &lay, err, sizeof(err)) == -ENOENT,
		    "skx is no IBS PMU");

	/* swfilt makes exclude bits legal */
	memset(&p, 0, sizeof(p));
	p.type = 11;
	p.caps = CAPS_ZEN3;
	p.cnt_ctl_field = -1;
	p.swfilt_field = 2;
	p.swfilt_bit = 0;
	o.counters = 0;
	TEST_ASSERT(ibs__build(&p, &o, a, &lay, err, sizeof(err)) == 0, "build");
	TEST_ASSERT(a[0].type == 11 && a[0].config2 == 1 && a[0].exclude_kernel && a[0].config == 0,
		    "swfilt");
	o.period = 16;
	TEST_ASSERT(ibs__build(&p, &o, a, &lay, err, sizeof(err)) == -ERANGE, "period range");

	TEST_ASSERT(ibs__parse_format("config:19\n", &field, &bit) == 0 && field == 0 && bit == 19,
		    "cnt_ctl");
	TEST_ASSERT(ibs__parse_format("config2:0", &field, &bit) == 0 && field == 2 && bit == 0,
		    "swfilt");
	TEST_ASSERT(ibs__parse_format("config1:0-11", &field, &bit) == 0 && field == 1, "ldlat");
	TEST_ASSERT(ibs__parse_format("bogus", &field, &bit) == -EINVAL, "bogus");
	return TEST_OK;
}

LP_TEST(test_ibs_this_machine, "ibs: on this machine setup agrees with probe (no IBS here: both say why)")
{
	struct perf_event_attr a[LP_MAX_FACILITY_ATTRS];
	struct lp_attr_layout lay;
	struct lp_probe pr;
	char err[256] = "";
	int ret;

	ret = lp_facility_ibs.setup_layout(NULL, NULL, a, &lay, err, sizeof(err));
	lp_facility_ibs.probe(&pr);
	if (ret) {
		TEST_ASSERT(!pr.usable && strstr(pr.reason, err), "setup '%.60s' probe '%.60s'",
			    err, pr.reason);
		TEST_ASSERT(strstr(err, "ibs") || strstr(err, "IBS"), "'%.80s'", err);
	}
	return TEST_OK;
}
