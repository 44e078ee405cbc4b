// SPDX-License-Identifier: GPL-2.0
/*
 * PEBS without a PMU: event choice and encodings for PMUs this machine
 * lacks (LIBPFM_FORCE_PMU through setup_layout's pfm_pmu), checked against
 * Intel's codes (event | umask << 8 from the SDM / perfmon event lists:
 * MEM_UOPS_RETIRED.ALL_LOADS D0/81, .ALL_STORES D0/82, MEM_INST_RETIRED.*
 * D0/81, D0/82, MEM_TRANS_RETIRED.LOAD_LATENCY CD/01, SPR STORE_SAMPLE
 * CD/02, mem-loads-aux 03/82); decoding of sample records built byte by
 * byte in the kernel's field order, with DATA_SRC values written out
 * bit by bit from union perf_mem_data_src.
 */
#include <errno.h>
#include <string.h>

#include "arch/x86-intel/pebs.h"
#include "core/facility.h"
#include "core/perf-record.h"
#include "core/perf-util.h"
#include "arch/x86/data-src.h"
#include "core/tests.h"

static int layout(const char *pmu, int ldlat, int counters, struct perf_event_attr *a,
		  struct lp_attr_layout *lay, char *err, size_t len)
{
	struct lp_sampling_opts o = { 0 };

	o.ldlat = ldlat;
	o.counters = counters;
	return lp_facility_pebs.setup_layout(pmu, &o, a, lay, err, len);
}

static int check_default(struct lp_test_ctx *ctx, const char *pmu)
{
	struct perf_event_attr a[LP_MAX_FACILITY_ATTRS];
	struct lp_attr_layout lay;
	const u64 need = PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_CPU |
			 PERF_SAMPLE_TIME | PERF_SAMPLE_TID | PERF_SAMPLE_IP;
	char err[256];
	int ret, i;

	ret = layout(pmu, 0, 0, a, &lay, err, sizeof(err));
	TEST_ASSERT(ret == 0, "%.8s: %d %.60s", pmu, ret, err);
	TEST_ASSERT(lay.nattrs == 2, "%.8s: nattrs %d", pmu, lay.nattrs);
	/* Intel: D0H umask 81H / 82H on Haswell (MEM_UOPS_*) and later (MEM_INST_*) */
	TEST_ASSERT(a[0].config == 0x81d0, "%.8s: loads 0x%llx", pmu, (unsigned long long)a[0].config);
	TEST_ASSERT(a[1].config == 0x82d0, "%.8s: stores 0x%llx", pmu, (unsigned long long)a[1].config);
	for (i = 0; i < 2; i++) {
		TEST_ASSERT(a[i].type == PERF_TYPE_RAW, "%.8s: type %u", pmu, a[i].type);
		TEST_ASSERT(a[i].size == sizeof(a[i]), "%.8s: size", pmu);
		TEST_ASSERT(a[i].precise_ip == 2, "%.8s: precise_ip %u", pmu, a[i].precise_ip);
		TEST_ASSERT(a[i].config1 == 0, "%.8s: config1", pmu);
		TEST_ASSERT((a[i].sample_type & need) == need, "%.8s: sample_type 0x%llx", pmu,
			    (unsigned long long)a[i].sample_type);
		TEST_ASSERT(!!(a[i].sample_type & PERF_SAMPLE_WEIGHT) +
			    !!(a[i].sample_type & PERF_SAMPLE_WEIGHT_STRUCT) == 1,
			    "%.8s: exactly one of WEIGHT, WEIGHT_STRUCT", pmu);
		TEST_ASSERT(a[i].exclude_kernel && a[i].exclude_hv && !a[i].exclude_guest,
			    "%.8s: exclude bits", pmu);
		TEST_ASSERT(a[i].sample_period == PEBS_DEFAULT_PERIOD, "%.8s: period", pmu);
		TEST_ASSERT(lay.role[i] == LP_ATTR_SAMPLE && lay.leader[i] == -1, "%.8s: role", pmu);
	}
	TEST_ASSERT(lay.kind[0] == LP_ACCESS_LOAD && lay.kind[1] == LP_ACCESS_STORE, "%.8s: kinds", pmu);
	/* libpfm4 knew the PMU and agreed with Intel's codes */
	TEST_ASSERT(!strstr(lay.note, "libpfm4 encodes") && !strstr(lay.note, "lociprof's table") &&
		    !strstr(lay.note, "cannot encode"), "%.8s: note '%.60s'", pmu, lay.note);
	return TEST_OK;
}

LP_TEST(test_pebs_encodings_hsw_skx_icl_spr, "pebs: hsw/skx/icl/spr loads 0x81d0, stores 0x82d0 via LIBPFM_FORCE_PMU")
{
	static const char *const pmus[] = { "hsw", "skx", "icl", "spr" };
	size_t i;
	int r;

	for (i = 0; i < ARRAY_SIZE(pmus); i++) {
		r = check_default(ctx, pmus[i]);
		if (r != TEST_OK)
			return r;
	}
	return TEST_OK;
}

LP_TEST(test_pebs_spr_ldlat_aux_and_store_fix, "pebs: SPR ldlat: mem-loads-aux leader, 0x1cd, STORE_SAMPLE 0x2cd not libpfm's 0x3cd")
{
	struct perf_event_attr a[LP_MAX_FACILITY_ATTRS];
	struct lp_attr_layout lay;
	char err[256];

	TEST_ASSERT(layout("spr", 30, 0, a, &lay, err, sizeof(err)) == 0, "%.60s", err);
	TEST_ASSERT(lay.nattrs == 3, "nattrs %d", lay.nattrs);
	TEST_ASSERT(lay.role[0] == LP_ATTR_AUX && lay.leader[0] == 0, "aux role %d leader %d",
		    lay.role[0], lay.leader[0]);
	TEST_ASSERT(a[0].config == 0x8203, "aux 0x%llx", (unsigned long long)a[0].config);
	TEST_ASSERT(a[0].sample_period == 0 && a[0].precise_ip == 0, "aux counts only");
	TEST_ASSERT(lay.role[1] == LP_ATTR_SAMPLE && lay.leader[1] == 0, "loads in aux group");
	TEST_ASSERT(a[1].config == 0x1cd && a[1].config1 == 30, "ldlat 0x%llx/%llu",
		    (unsigned long long)a[1].config, (unsigned long long)a[1].config1);
	TEST_ASSERT(a[1].precise_ip == 2 && (a[1].sample_type & PERF_SAMPLE_DATA_SRC), "precise");
	TEST_ASSERT(a[2].config == 0x2cd, "STORE_SAMPLE 0x%llx", (unsigned long long)a[2].config);
	TEST_ASSERT(lay.kind[2] == LP_ACCESS_STORE && lay.leader[2] == -1, "stores alone");
	/* libpfm4 4.13's wrong encoding was seen and not used */
	TEST_ASSERT(strstr(lay.note, "0x3cd") && strstr(lay.note, "0x2cd"), "note '%.60s'", lay.note);
	return TEST_OK;
}

LP_TEST(test_pebs_skx_ldlat_no_aux, "pebs: SKX ldlat mode: 0x1cd ldlat in config1, no aux leader, stores 0x82d0")
{
	struct perf_event_attr a[LP_MAX_FACILITY_ATTRS];
	struct lp_attr_layout lay;
	char err[256];

	TEST_ASSERT(layout("skx", 3, 0, a, &lay, err, sizeof(err)) == 0, "%.60s", err);
	TEST_ASSERT(lay.nattrs == 2, "nattrs %d", lay.nattrs);
	TEST_ASSERT(a[0].config == 0x1cd && a[0].config1 == 3, "0x%llx",
		    (unsigned long long)a[0].config);
	TEST_ASSERT(lay.role[0] == LP_ATTR_SAMPLE && lay.leader[0] == -1, "no group");
	TEST_ASSERT(a[1].config == 0x82d0, "stores 0x%llx", (unsigned long long)a[1].config);
	return TEST_OK;
}

LP_TEST(test_pebs_counting_group, "pebs: counters: loads+stores counting group, leader first, GROUP read")
{
	struct perf_event_attr a[LP_MAX_FACILITY_ATTRS];
	struct lp_attr_layout lay;
	char err[256];
	int i;

	TEST_ASSERT(layout("icl", 0, 1, a, &lay, err, sizeof(err)) == 0, "%.60s", err);
	TEST_ASSERT(lay.nattrs == 4, "nattrs %d", lay.nattrs);
	TEST_ASSERT(lay.role[2] == LP_ATTR_COUNT && lay.role[3] == LP_ATTR_COUNT, "roles");
	TEST_ASSERT(lay.leader[2] == 2 && lay.leader[3] == 2, "leader %d %d", lay.leader[2],
		    lay.leader[3]);
	TEST_ASSERT(a[2].config == 0x81d0 && a[3].config == 0x82d0, "count codes");
	for (i = 2; i < 4; i++) {
		TEST_ASSERT(a[i].sample_period == 0 && !a[i].freq && a[i].precise_ip == 0,
			    "attr %d counts", i);
		TEST_ASSERT(a[i].read_format & PERF_FORMAT_GROUP, "attr %d read_format", i);
	}
	for (i = 0; i < lay.nattrs; i++)
		TEST_ASSERT(lay.leader[i] <= i, "leader after member at %d", i);
	return TEST_OK;
}

LP_TEST(test_pebs_unknown_to_libpfm, "pebs: emr (libpfm4 4.13 lacks it) gets raw codes; adl gets cpu_core+cpu_atom; zen9 a message")
{
	struct perf_event_attr a[LP_MAX_FACILITY_ATTRS];
	struct lp_attr_layout lay;
	char err[256];

	TEST_ASSERT(layout("emr", 0, 0, a, &lay, err, sizeof(err)) == 0, "%.60s", err);
	TEST_ASSERT(a[0].config == 0x81d0 && a[1].config == 0x82d0, "emr codes");
	TEST_ASSERT(strstr(lay.note, "lociprof's table"), "note '%.60s'", lay.note);

	TEST_ASSERT(layout("adl", 0, 0, a, &lay, err, sizeof(err)) == 0, "%.60s", err);
	TEST_ASSERT(lay.nattrs == 4, "adl nattrs %d", lay.nattrs);
	TEST_ASSERT(!strcmp(lay.pmu[0], "cpu_core") && !strcmp(lay.pmu[2], "cpu_atom"),
		    "pmus %s %s", lay.pmu[0], lay.pmu[2]);
	/* Gracemont: MEM_UOPS_RETIRED.LOAD_LATENCY D0/05 (ldlat), STORE_LATENCY D0/06 */
	TEST_ASSERT(a[2].config == 0x5d0 && a[2].config1 == PEBS_DEFAULT_LDLAT, "atom loads");
	TEST_ASSERT(a[3].config == 0x6d0, "atom stores 0x%llx", (unsigned long long)a[3].config);
	TEST_ASSERT(strstr(lay.note, "dynamic"), "note '%.60s'", lay.note);

	TEST_ASSERT(layout("adl", 3, 0, a, &lay, err, sizeof(err)) == 0, "%.60s", err);
	TEST_ASSERT(lay.role[0] == LP_ATTR_AUX && a[0].config == 0x8203, "adl P-core aux");

	TEST_ASSERT(layout("zen9", 0, 0, a, &lay, err, sizeof(err)) == -ENOENT, "zen9");
	TEST_ASSERT(strstr(err, "zen9") && strstr(err, "known"), "err '%.60s'", err);
	return TEST_OK;
}

LP_TEST(test_pebs_uarch_by_model, "pebs: CPUID family 6 models map to the PEBS table rows")
{
	TEST_ASSERT(pebs__uarch_by_model(6, 0x8f) == pebs__uarch_by_pfm("spr"), "SPR");
	TEST_ASSERT(pebs__uarch_by_model(6, 0xcf) == pebs__uarch_by_pfm("spr"), "EMR");
	TEST_ASSERT(pebs__uarch_by_model(6, 0x97) == pebs__uarch_by_pfm("spr"), "ADL");
	TEST_ASSERT(pebs__uarch_by_model(6, 0x55) == pebs__uarch_by_pfm("skx"), "SKX");
	TEST_ASSERT(pebs__uarch_by_model(6, 0xa7) == pebs__uarch_by_pfm("icl"), "RKL");
	TEST_ASSERT(pebs__uarch_by_model(6, 0x3c) == pebs__uarch_by_pfm("hsw"), "HSW");
	TEST_ASSERT(pebs__uarch_by_model(6, 0x2a)->store_raw == 0x2cd, "SNB PRECISE_STORE");
	TEST_ASSERT(pebs__uarch_by_model(6, 0x1a)->store_raw == 0, "NHM: no store event");
	TEST_ASSERT(pebs__uarch_by_model(6, 0x99) == NULL, "unknown model");
	TEST_ASSERT(pebs__uarch_by_model(0x19, 0x8f) == NULL, "not family 6");
	return TEST_OK;
}

/* ---- decode ---------------------------------------------------------------- */

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
	    PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC)

/* PERF_RECORD_SAMPLE in perf_output_sample() order for ST. */
static size_t sample_rec(struct rb *r, u16 misc, u64 ip, u64 addr, u64 weight, u64 dsrc)
{
	r->n = 0;
	put_le(r, PERF_RECORD_SAMPLE, 4);
	put_le(r, misc, 2);
	put_le(r, 0, 2);
	put_le(r, 77, 8);			/* IDENTIFIER */
	put_le(r, ip, 8);			/* IP */
	put_le(r, 1000, 4);			/* pid */
	put_le(r, 1001, 4);			/* tid */
	put_le(r, 123456789, 8);		/* TIME */
	put_le(r, addr, 8);			/* ADDR */
	put_le(r, 3, 4);			/* cpu */
	put_le(r, 0, 4);			/* res */
	put_le(r, weight, 8);			/* WEIGHT */
	put_le(r, dsrc, 8);			/* DATA_SRC */
	r->b[6] = r->n & 0xff;
	r->b[7] = r->n >> 8;
	return r->n;
}

static int decode(u16 misc, u64 addr, u64 dsrc, const struct perf_event_attr *attr,
		  struct lp_sample *s)
{
	struct lp_decode_ctx dctx;
	struct lp_perf_sample raw;
	struct rb r;
	size_t n = sample_rec(&r, misc, 0x401234, addr, 212, dsrc);

	if (perf_sample__parse(r.b, n, ST, 0, &raw))
		return -EINVAL;
	memset(&dctx, 0, sizeof(dctx));
	dctx.attr = attr;
	return lp_facility_pebs.decode(&dctx, &raw, s);
}

/*
 * union perf_mem_data_src: mem_op bits 0-4, mem_lvl 5-18, mem_snoop 19-23,
 * mem_lock 24-25, mem_dtlb 26-32, mem_lvl_num 33-36, mem_remote 37,
 * mem_snoopx 38-39. Values below are written out by hand.
 */
#define DS_LOAD_L1_HIT	 (0x2ULL | (0x0aULL << 5) | (0x02ULL << 19) | (0x0aULL << 26))	/* load, L1|HIT, no snoop, TLB L1|HIT */
#define DS_LOAD_L3_HITM	 (0x2ULL | (0x42ULL << 5) | (0x10ULL << 19))			/* load, L3|HIT, HITM */
#define DS_LOAD_REMOTE	 (0x2ULL | (0x102ULL << 5) | (0x1ULL << 37))			/* load, REM_RAM1|HIT, remote */
#define DS_LOAD_TLB_MISS (0x2ULL | (0x14ULL << 26))					/* load, TLB L2|MISS */
#define DS_LOAD_LOCKED	 (0x2ULL | (0x2ULL << 24))					/* load, LOCKED */
#define DS_LOAD_PEER	 (0x2ULL | (0x42ULL << 5) | (0x2ULL << 38))			/* load, L3 hit, snoopx PEER */

LP_TEST(test_pebs_decode_data_src, "pebs: decode of byte-built samples: L1 hit, L3 HITM, remote, TLB miss, locked, peer")
{
	struct lp_sample s;
	char buf[160];

	TEST_ASSERT(decode(PERF_RECORD_MISC_USER, 0x7f0000001000, DS_LOAD_L1_HIT, NULL, &s) == 0,
		    "decode");
	TEST_ASSERT(s.noaddr == LP_NOADDR_NONE && s.addr == 0x7f0000001000, "addr 0x%llx",
		    (unsigned long long)s.addr);
	TEST_ASSERT(s.ip == 0x401234 && s.pid == 1000 && s.tid == 1001 && s.cpu == 3 &&
		    s.time == 123456789, "header fields");
	TEST_ASSERT(s.kind == LP_ACCESS_LOAD && s.latency == 212 && s.flags == 0, "kind %u lat %u flags %u",
		    s.kind, s.latency, s.flags);
	TEST_ASSERT(s.data_src == DS_LOAD_L1_HIT, "data_src kept");
	lp_data_src__str(s.data_src, buf, sizeof(buf));
	TEST_ASSERT(!strcmp(buf, "load L1 hit no-snoop TLB-L1 hit"), "'%s'", buf);

	decode(PERF_RECORD_MISC_USER, 0x1000, DS_LOAD_L3_HITM, NULL, &s);
	lp_data_src__str(s.data_src, buf, sizeof(buf));
	TEST_ASSERT(!strcmp(buf, "load L3 hit snoop-HITM"), "'%s'", buf);

	decode(PERF_RECORD_MISC_USER, 0x1000, DS_LOAD_REMOTE, NULL, &s);
	lp_data_src__str(s.data_src, buf, sizeof(buf));
	TEST_ASSERT(!strcmp(buf, "load remote-RAM(1-hop) hit"), "'%s'", buf);

	decode(PERF_RECORD_MISC_USER, 0x1000, DS_LOAD_TLB_MISS, NULL, &s);
	TEST_ASSERT(s.flags == LP_SAMPLE_TLB_MISS && s.kind == LP_ACCESS_LOAD, "flags %u", s.flags);
	lp_data_src__str(s.data_src, buf, sizeof(buf));
	TEST_ASSERT(!strcmp(buf, "load TLB-L2 miss"), "'%s'", buf);

	decode(PERF_RECORD_MISC_USER, 0x1000, DS_LOAD_LOCKED, NULL, &s);
	TEST_ASSERT(s.flags == LP_SAMPLE_LOCKED && s.kind == LP_ACCESS_ATOMIC, "locked: flags %u kind %u",
		    s.flags, s.kind);

	decode(PERF_RECORD_MISC_USER, 0x1000, DS_LOAD_PEER, NULL, &s);
	lp_data_src__str(s.data_src, buf, sizeof(buf));
	TEST_ASSERT(strstr(buf, "snoop-peer"), "'%s'", buf);
	TEST_ASSERT(!strcmp(lp_data_src__str(0, buf, sizeof(buf)), "-"), "empty '%s'", buf);
	return TEST_OK;
}

LP_TEST(test_pebs_decode_kind_and_noaddr, "pebs: stores told apart by the attr; no address and kernel samples")
{
	struct perf_event_attr st = { .type = PERF_TYPE_RAW, .config = 0x82d0, .sample_period = 500 };
	struct perf_event_attr ld = { .type = PERF_TYPE_RAW, .config = 0x81d0, .sample_period = 500 };
	struct lp_sample s;

	/* ALL_STORES: mem_op may say NA (0x1); the event says store */
	decode(PERF_RECORD_MISC_USER, 0x2000, 0x1, &st, &s);
	TEST_ASSERT(s.kind == LP_ACCESS_STORE && s.period == 500, "kind %u period %llu", s.kind,
		    (unsigned long long)s.period);
	decode(PERF_RECORD_MISC_USER, 0x2000, 0x1, &ld, &s);
	TEST_ASSERT(s.kind == LP_ACCESS_LOAD, "kind %u", s.kind);
	/* without the attr, mem_op STORE (0x4) decides */
	decode(PERF_RECORD_MISC_USER, 0x2000, 0x4, NULL, &s);
	TEST_ASSERT(s.kind == LP_ACCESS_STORE, "kind %u", s.kind);
	decode(PERF_RECORD_MISC_USER, 0, DS_LOAD_L1_HIT, &ld, &s);
	TEST_ASSERT(s.noaddr == LP_NOADDR_HW_INVALID && s.addr == 0, "noaddr %u", s.noaddr);
	decode(PERF_RECORD_MISC_KERNEL, 0xffff888000001000ULL, DS_LOAD_L1_HIT, &ld, &s);
	TEST_ASSERT(s.noaddr == LP_NOADDR_KERNEL && (s.flags & LP_SAMPLE_KERNEL), "kernel %u", s.noaddr);
	return TEST_OK;
}

LP_TEST(test_pebs_error_messages, "pebs: no-PMU message (VM: vPMU hint), EACCES names paranoid, ENODATA names aux")
{
	struct perf_event_attr a[LP_MAX_FACILITY_ATTRS];
	struct lp_attr_layout lay;
	char msg[1024];

	pebs__no_pmu_msg(1, msg, sizeof(msg));
	TEST_ASSERT(strstr(msg, "no core PMU") && strstr(msg, "VM") && strstr(msg, "pmu=on") &&
		    strstr(msg, "--sampler soft"), "'%.60s'", msg);
	pebs__no_pmu_msg(0, msg, sizeof(msg));
	TEST_ASSERT(strstr(msg, "kernel exposes no hardware PMU") && !strstr(msg, "VM"), "'%.60s'", msg);

	TEST_ASSERT(layout("spr", 30, 0, a, &lay, msg, sizeof(msg)) == 0, "%.60s", msg);
	perf__strerror(EACCES, &a[1], "pebs", msg, sizeof(msg));
	TEST_ASSERT(strstr(msg, "perf_event_paranoid") && strstr(msg, "0x1cd"), "'%.60s'", msg);
	perf__strerror(ENODATA, &a[1], "pebs", msg, sizeof(msg));
	TEST_ASSERT(strstr(msg, "mem-loads-aux") && strstr(msg, "0x8203"), "'%.60s'", msg);
	return TEST_OK;
}

LP_TEST(test_pebs_this_machine, "pebs: on this machine setup agrees with probe (no PMU here: both say why)")
{
	struct perf_event_attr a[LP_MAX_FACILITY_ATTRS];
	struct lp_attr_layout lay;
	struct lp_probe pr;
	char err[256] = "";
	int ret;

	ret = lp_facility_pebs.setup_layout(NULL, NULL, a, &lay, err, sizeof(err));
	lp_facility_pebs.probe(&pr);
	if (ret) {
		TEST_ASSERT(!pr.usable && err[0] && !strcmp(err, pr.reason), "setup '%.40s' probe '%.40s'",
			    err, pr.reason);
		return TEST_OK;
	}
	TEST_ASSERT(lay.nattrs >= 1 && lay.role[0] != LP_ATTR_COUNT, "layout");
	return TEST_OK;
}
