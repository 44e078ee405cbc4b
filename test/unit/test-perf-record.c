// SPDX-License-Identifier: GPL-2.0
/*
 * perf record parsing. Records are built byte by byte in the order of the
 * kernel ABI (include/uapi/linux/perf_event.h, perf_output_sample()), never
 * through the parser's own structs, so a wrong field order fails here.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/event.h"
#include "core/perf-record.h"
#include "core/ring.h"
#include "core/tests.h"

struct rb {
	unsigned char b[2048];
	size_t n;
};

static void put_le(struct rb *r, u64 v, int bytes)
{
	int i;

	for (i = 0; i < bytes; i++)
		r->b[r->n++] = (unsigned char)(v >> (8 * i));
}

static void rb_hdr(struct rb *r, u32 type, u16 misc)
{
	r->n = 0;
	put_le(r, type, 4);
	put_le(r, misc, 2);
	put_le(r, 0, 2);	/* size, patched by rb_done */
}

static size_t rb_done(struct rb *r)
{
	r->b[6] = r->n & 0xff;
	r->b[7] = r->n >> 8;
	return r->n;
}

static void rb_setsize(struct rb *r, size_t size)
{
	r->b[6] = size & 0xff;
	r->b[7] = size >> 8;
}

#define ST_ALL (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |	\
		PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |		\
		PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |	\
		PERF_SAMPLE_RAW | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_WEIGHT |	\
		PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION |		\
		PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP |			\
		PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE)

/* regs: AX (bit 0), SP (bit 7), IP (bit 8), R15 (bit 23) */
#define MASK ((1ULL << 0) | (1ULL << 7) | (1ULL << 8) | (1ULL << 23))

/* The full record, in ABI order; every value distinct. */
static size_t build_all(struct rb *r, u64 weight_word)
{
	rb_hdr(r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put_le(r, 0x1111000000000001ULL, 8);	/* IDENTIFIER */
	put_le(r, 0x00005555deadbeefULL, 8);	/* IP */
	put_le(r, 4242, 4);			/* pid */
	put_le(r, 4243, 4);			/* tid */
	put_le(r, 123456789012345ULL, 8);	/* TIME */
	put_le(r, 0x7ffc00001230ULL, 8);	/* ADDR */
	put_le(r, 0x1111000000000002ULL, 8);	/* ID */
	put_le(r, 0x2222000000000003ULL, 8);	/* STREAM_ID */
	put_le(r, 7, 4);			/* cpu */
	put_le(r, 0xffffffff, 4);		/* res */
	put_le(r, 100003, 8);			/* PERIOD */
	put_le(r, 12, 4);			/* RAW size */
	put_le(r, 0x0807060504030201ULL, 8);	/* RAW data, 12 bytes */
	put_le(r, 0x0c0b0a09, 4);
	put_le(r, PERF_SAMPLE_REGS_ABI_64, 8);	/* REGS_USER abi */
	put_le(r, 0xa0a0, 8);			/* AX */
	put_le(r, 0x7ffc0000f000ULL, 8);	/* SP */
	put_le(r, 0x00005555deadbeefULL, 8);	/* IP */
	put_le(r, 0xf15f15, 8);			/* R15 */
	put_le(r, weight_word, 8);		/* WEIGHT(_STRUCT) */
	put_le(r, 0x68100142ULL, 8);		/* DATA_SRC */
	put_le(r, 0x77, 8);			/* TRANSACTION */
	put_le(r, 0x123456000ULL, 8);		/* PHYS_ADDR */
	put_le(r, 0xc6, 8);			/* CGROUP */
	put_le(r, 4096, 8);			/* DATA_PAGE_SIZE */
	put_le(r, 2 << 20, 8);			/* CODE_PAGE_SIZE */
	return rb_done(r);
}

LP_TEST(test_perf_sample_every_field, "perf-record: every supported PERF_SAMPLE_* field in ABI order")
{
	static const unsigned char raw[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
	struct lp_perf_sample s;
	struct rb r;
	size_t len = build_all(&r, 0x0000000000000133ULL);
	int ret;

	ret = perf_sample__parse(r.b, len, ST_ALL, MASK, &s);
	TEST_ASSERT(ret == 0, "ret=%d", ret);
	TEST_ASSERT(s.sample_type == ST_ALL, "sample_type");
	TEST_ASSERT(s.misc == PERF_RECORD_MISC_USER, "misc=%u", s.misc);
	/* ID comes after IDENTIFIER and overwrites it (both mean the same). */
	TEST_ASSERT(s.id == 0x1111000000000002ULL, "id=%llx", (unsigned long long)s.id);
	TEST_ASSERT(s.ip == 0x00005555deadbeefULL, "ip");
	TEST_ASSERT(s.pid == 4242 && s.tid == 4243, "pid=%u tid=%u", s.pid, s.tid);
	TEST_ASSERT(s.time == 123456789012345ULL, "time");
	TEST_ASSERT(s.addr == 0x7ffc00001230ULL, "addr");
	TEST_ASSERT(s.stream_id == 0x2222000000000003ULL, "stream_id");
	TEST_ASSERT(s.cpu == 7, "cpu=%u", s.cpu);
	TEST_ASSERT(s.period == 100003, "period");
	TEST_ASSERT(s.raw_size == 12 && s.raw && !memcmp(s.raw, raw, 12), "raw");
	TEST_ASSERT((const unsigned char *)s.raw == r.b + 8 + 8 + 8 + 8 + 8 + 8 + 8 + 8 + 8 + 8 + 4,
		    "raw points into the record after its size");
	TEST_ASSERT(s.regs_abi == PERF_SAMPLE_REGS_ABI_64, "abi");
	TEST_ASSERT(s.regs_mask == MASK, "mask");
	TEST_ASSERT(s.regs[LP_REG_AX] == 0xa0a0, "ax=%llx", (unsigned long long)s.regs[LP_REG_AX]);
	TEST_ASSERT(s.regs[LP_REG_SP] == 0x7ffc0000f000ULL, "sp");
	TEST_ASSERT(s.regs[LP_REG_IP] == 0x00005555deadbeefULL, "regs ip");
	TEST_ASSERT(s.regs[LP_REG_R15] == 0xf15f15, "r15");
	TEST_ASSERT(s.regs[LP_REG_BX] == 0 && s.regs[LP_REG_R14] == 0, "unset regs 0");
	TEST_ASSERT(s.weight == 0x133, "weight=%llx", (unsigned long long)s.weight);
	TEST_ASSERT(s.data_src == 0x68100142ULL, "data_src");
	TEST_ASSERT(s.transaction == 0x77, "transaction");
	TEST_ASSERT(s.phys_addr == 0x123456000ULL, "phys_addr");
	TEST_ASSERT(s.cgroup == 0xc6, "cgroup");
	TEST_ASSERT(s.data_page_size == 4096, "data_page_size");
	TEST_ASSERT(s.code_page_size == 2 << 20, "code_page_size");
	return TEST_OK;
}

LP_TEST(test_perf_sample_weight_struct, "perf-record: WEIGHT_STRUCT gives var1_dw as latency")
{
	u64 st = (ST_ALL & ~PERF_SAMPLE_WEIGHT) | PERF_SAMPLE_WEIGHT_STRUCT;
	struct lp_perf_sample s;
	struct rb r;
	/* var1_dw = 0x2c5 (latency), var2_w = 0x0011, var3_w = 0x0022 */
	size_t len = build_all(&r, 0x00220011000002c5ULL);

	TEST_ASSERT(perf_sample__parse(r.b, len, st, MASK, &s) == 0, "parse");
	TEST_ASSERT(s.weight == 0x2c5, "weight=%llx", (unsigned long long)s.weight);
	TEST_ASSERT(s.weight_var2 == 0x11 && s.weight_var3 == 0x22, "var2/3");
	TEST_ASSERT(s.data_src == 0x68100142ULL, "data_src after weight");
	TEST_ASSERT(perf_sample__parse(r.b, len, st | PERF_SAMPLE_WEIGHT, MASK, &s) == -EINVAL,
		    "WEIGHT and WEIGHT_STRUCT together are invalid");
	return TEST_OK;
}

LP_TEST(test_perf_sample_truncated, "perf-record: every truncation of a sample is -EINVAL")
{
	struct lp_perf_sample s;
	struct rb r;
	size_t len = build_all(&r, 1), cut;
	int ret;

	for (cut = 0; cut < len; cut++) {
		/* header.size says cut: the record ends there */
		if (cut >= 8)
			rb_setsize(&r, cut);
		ret = perf_sample__parse(r.b, cut, ST_ALL, MASK, &s);
		TEST_ASSERT(ret == -EINVAL, "cut at %zu: ret=%d", cut, ret);
	}
	/* header.size larger than the buffer handed in */
	rb_setsize(&r, len);
	TEST_ASSERT(perf_sample__parse(r.b, len - 8, ST_ALL, MASK, &s) == -EINVAL,
		    "size beyond len");
	/* header.size smaller than a header */
	rb_setsize(&r, 4);
	TEST_ASSERT(perf_sample__parse(r.b, len, ST_ALL, MASK, &s) == -EINVAL, "size 4");
	return TEST_OK;
}

LP_TEST(test_perf_sample_raw_size_lies, "perf-record: a RAW size past the record is -EINVAL")
{
	struct lp_perf_sample s;
	struct rb r;

	rb_hdr(&r, PERF_RECORD_SAMPLE, 0);
	put_le(&r, 0x400000, 8);	/* IP */
	put_le(&r, 0xfffffff0, 4);	/* RAW size: huge */
	put_le(&r, 0, 4);
	rb_done(&r);
	TEST_ASSERT(perf_sample__parse(r.b, r.n, PERF_SAMPLE_IP | PERF_SAMPLE_RAW,
				       0, &s) == -EINVAL, "huge raw");
	rb_hdr(&r, PERF_RECORD_SAMPLE, 0);
	put_le(&r, 0x400000, 8);
	put_le(&r, 4, 4);
	put_le(&r, 0xabcd, 4);
	rb_done(&r);
	TEST_ASSERT(perf_sample__parse(r.b, r.n, PERF_SAMPLE_IP | PERF_SAMPLE_RAW,
				       0, &s) == 0, "raw of 4 fits exactly");
	TEST_ASSERT(s.raw_size == 4 && *(const u32 *)s.raw == 0xabcd, "raw value");
	return TEST_OK;
}

LP_TEST(test_perf_sample_regs_abi_none, "perf-record: REGS_USER with abi 0 carries no registers")
{
	struct lp_perf_sample s;
	struct rb r;

	/* kernel thread / no user regs: abi 0 then directly the next field */
	rb_hdr(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
	put_le(&r, 0xffffffff81000000ULL, 8);	/* IP */
	put_le(&r, PERF_SAMPLE_REGS_ABI_NONE, 8);
	put_le(&r, 0x5151, 8);			/* DATA_SRC */
	rb_done(&r);
	TEST_ASSERT(perf_sample__parse(r.b, r.n, PERF_SAMPLE_IP | PERF_SAMPLE_REGS_USER |
				       PERF_SAMPLE_DATA_SRC, LP_REGS_USER_MASK, &s) == 0,
		    "parse");
	TEST_ASSERT(s.regs_abi == 0 && s.regs_mask == 0, "no regs");
	TEST_ASSERT(s.data_src == 0x5151, "next field right after abi: %llx",
		    (unsigned long long)s.data_src);
	TEST_ASSERT(s.misc == PERF_RECORD_MISC_KERNEL, "misc");

	/* A mask bit beyond the registers lociprof names is still skipped over. */
	rb_hdr(&r, PERF_RECORD_SAMPLE, 0);
	put_le(&r, PERF_SAMPLE_REGS_ABI_64, 8);
	put_le(&r, 0x11, 8);	/* bit 1: BX */
	put_le(&r, 0x99, 8);	/* bit 40 */
	put_le(&r, 0x5252, 8);	/* DATA_SRC */
	rb_done(&r);
	TEST_ASSERT(perf_sample__parse(r.b, r.n, PERF_SAMPLE_REGS_USER | PERF_SAMPLE_DATA_SRC,
				       (1ULL << 1) | (1ULL << 40), &s) == 0, "parse 2");
	TEST_ASSERT(s.regs[LP_REG_BX] == 0x11 && s.data_src == 0x5252, "bx=%llx src=%llx",
		    (unsigned long long)s.regs[LP_REG_BX], (unsigned long long)s.data_src);
	TEST_ASSERT(s.regs_mask == (1ULL << 1), "mask keeps named registers only");
	return TEST_OK;
}

LP_TEST(test_perf_sample_callchain_between_read_and_regs, "perf-record: CALLCHAIN entries sit after PERIOD and before REGS_USER")
{
	struct lp_perf_sample s;
	struct rb r;
	u64 e[3];

	rb_hdr(&r, PERF_RECORD_SAMPLE, 0);
	put_le(&r, 0x401000, 8);		/* IP */
	put_le(&r, 3, 8);			/* CALLCHAIN nr */
	put_le(&r, (u64)PERF_CONTEXT_USER, 8);
	put_le(&r, 0x401234, 8);
	put_le(&r, 0x401567, 8);
	put_le(&r, PERF_SAMPLE_REGS_ABI_64, 8);	/* REGS_USER: ax */
	put_le(&r, 0xabc, 8);
	rb_done(&r);
	TEST_ASSERT(perf_sample__parse(r.b, r.n, PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN |
				       PERF_SAMPLE_REGS_USER, 1ULL << LP_REG_AX, &s) == 0, "parse");
	TEST_ASSERT(s.callchain_nr == 3, "nr %u", s.callchain_nr);
	memcpy(e, s.callchain, sizeof(e));
	TEST_ASSERT(e[0] == (u64)PERF_CONTEXT_USER && e[1] == 0x401234 && e[2] == 0x401567,
		    "entries %llx %llx", (unsigned long long)e[1], (unsigned long long)e[2]);
	TEST_ASSERT(s.regs[LP_REG_AX] == 0xabc, "ax %llx after the chain",
		    (unsigned long long)s.regs[LP_REG_AX]);
	/* a chain longer than the record */
	rb_setsize(&r, 8 + 8 + 8 + 16);
	TEST_ASSERT(perf_sample__parse(r.b, 8 + 8 + 8 + 16, PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN,
				       0, &s) == -EINVAL, "short chain accepted");
	return TEST_OK;
}

LP_TEST(test_perf_sample_stack_user, "perf-record: STACK_USER after REGS_USER, dyn_size bounds it, WEIGHT after")
{
	struct lp_perf_sample s;
	u64 w0, w1;
	struct rb r;

	rb_hdr(&r, PERF_RECORD_SAMPLE, 0);
	put_le(&r, PERF_SAMPLE_REGS_ABI_64, 8);	/* REGS_USER: sp */
	put_le(&r, 0x7ffd0000, 8);
	put_le(&r, 24, 8);			/* STACK_USER size */
	put_le(&r, 0x1111, 8);
	put_le(&r, 0x2222, 8);
	put_le(&r, 0x3333, 8);
	put_le(&r, 16, 8);			/* dyn_size: the third word is not stack */
	put_le(&r, 77, 8);			/* WEIGHT */
	rb_done(&r);
	TEST_ASSERT(perf_sample__parse(r.b, r.n, PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
				       PERF_SAMPLE_WEIGHT, 1ULL << LP_REG_SP, &s) == 0, "parse");
	TEST_ASSERT(s.stack_size == 16, "stack_size %llu", (unsigned long long)s.stack_size);
	memcpy(&w0, s.stack, 8);
	memcpy(&w1, (const char *)s.stack + 8, 8);
	TEST_ASSERT(w0 == 0x1111 && w1 == 0x2222, "words %llx %llx", (unsigned long long)w0,
		    (unsigned long long)w1);
	TEST_ASSERT(s.weight == 77 && s.regs[LP_REG_SP] == 0x7ffd0000, "weight %llu",
		    (unsigned long long)s.weight);
	/* size 0 (no user stack): no dyn_size follows */
	rb_hdr(&r, PERF_RECORD_SAMPLE, 0);
	put_le(&r, 0, 8);
	put_le(&r, 78, 8);
	rb_done(&r);
	TEST_ASSERT(perf_sample__parse(r.b, r.n, PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT, 0,
				       &s) == 0 && s.stack_size == 0 && s.weight == 78, "empty stack");
	/* a copy longer than the record */
	rb_hdr(&r, PERF_RECORD_SAMPLE, 0);
	put_le(&r, 64, 8);
	put_le(&r, 1, 8);
	rb_done(&r);
	TEST_ASSERT(perf_sample__parse(r.b, r.n, PERF_SAMPLE_STACK_USER, 0, &s) == -EINVAL,
		    "short stack accepted");
	return TEST_OK;
}

LP_TEST(test_perf_sample_rejects_unsupported, "perf-record: BRANCH, INTR, AUX rejected")
{
	static const u64 bad[] = {
		PERF_SAMPLE_BRANCH_STACK, PERF_SAMPLE_REGS_INTR, PERF_SAMPLE_AUX,
		PERF_SAMPLE_MAX, 1ULL << 40,
	};
	struct lp_perf_sample s;
	struct rb r;
	unsigned i;

	rb_hdr(&r, PERF_RECORD_SAMPLE, 0);
	for (i = 0; i < 32; i++)
		put_le(&r, i, 8);
	rb_done(&r);
	TEST_ASSERT(perf_sample__parse(r.b, r.n, PERF_SAMPLE_IP, 0, &s) == 0, "baseline");
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		TEST_ASSERT(perf_sample__parse(r.b, r.n, PERF_SAMPLE_IP | bad[i], 0, &s) == -EINVAL,
			    "bit %llx accepted", (unsigned long long)bad[i]);
	/* not a sample at all */
	r.b[0] = PERF_RECORD_LOST;
	TEST_ASSERT(perf_sample__parse(r.b, r.n, PERF_SAMPLE_IP, 0, &s) == -EINVAL, "type");
	return TEST_OK;
}

LP_TEST(test_perf_lost_throttle, "perf-record: LOST and (UN)THROTTLE bodies, truncations")
{
	struct lp_perf_throttle t;
	struct lp_perf_lost l;
	struct rb r;
	size_t cut;

	rb_hdr(&r, PERF_RECORD_LOST, 0);
	put_le(&r, 0xabc, 8);
	put_le(&r, 31337, 8);
	put_le(&r, 4242 | (4243ULL << 32), 8);	/* sample_id_all trailer: ignored */
	rb_done(&r);
	TEST_ASSERT(perf_lost__parse(r.b, r.n, &l) == 0, "lost");
	TEST_ASSERT(l.id == 0xabc && l.lost == 31337, "id=%llx lost=%llu",
		    (unsigned long long)l.id, (unsigned long long)l.lost);
	for (cut = 8; cut < 24; cut++) {
		rb_setsize(&r, cut);
		TEST_ASSERT(perf_lost__parse(r.b, r.n, &l) == -EINVAL, "lost cut %zu", cut);
	}

	rb_hdr(&r, PERF_RECORD_UNTHROTTLE, 0);
	put_le(&r, 999888777, 8);
	put_le(&r, 0x51, 8);
	put_le(&r, 0x52, 8);
	rb_done(&r);
	TEST_ASSERT(perf_throttle__parse(r.b, r.n, &t) == 0, "unthrottle");
	TEST_ASSERT(t.time == 999888777 && t.id == 0x51 && t.stream_id == 0x52, "values");
	r.b[0] = PERF_RECORD_THROTTLE;
	TEST_ASSERT(perf_throttle__parse(r.b, r.n, &t) == 0, "throttle");
	TEST_ASSERT(perf_lost__parse(r.b, r.n, &l) == -EINVAL, "throttle is not lost");
	for (cut = 0; cut < 32; cut++) {
		if (cut >= 8)
			rb_setsize(&r, cut);
		TEST_ASSERT(perf_throttle__parse(r.b, cut, &t) == -EINVAL, "cut %zu", cut);
	}
	return TEST_OK;
}

LP_TEST(test_perf_mmap2_and_trailer, "perf-record: MMAP2 body and its sample_id_all TIME, truncations")
{
	const u64 st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	struct lp_mmap m;
	struct rb r;
	size_t full, cut;

	rb_hdr(&r, PERF_RECORD_MMAP2, 0);
	put_le(&r, 4321, 4);			/* pid */
	put_le(&r, 4322, 4);			/* tid */
	put_le(&r, 0x7f0000001000ull, 8);	/* addr */
	put_le(&r, 0x3000, 8);			/* len */
	put_le(&r, 0x5000, 8);			/* pgoff */
	put_le(&r, 0x0803, 4);			/* maj */
	put_le(&r, 1, 4);			/* min */
	put_le(&r, 77, 8);			/* ino */
	put_le(&r, 2, 8);			/* ino generation */
	put_le(&r, 5, 4);			/* prot: read|exec */
	put_le(&r, 2, 4);			/* flags */
	memcpy(r.b + r.n, "/usr/lib/libx.so\0\0\0\0\0\0\0", 24);	/* padded to 8 */
	r.n += 24;
	put_le(&r, 4321 | (4322ull << 32), 8);	/* trailer: TID */
	put_le(&r, 123456789012ull, 8);		/* TIME */
	put_le(&r, 1, 8);			/* CPU, res */
	put_le(&r, 0xfeed, 8);			/* IDENTIFIER */
	full = rb_done(&r);
	TEST_ASSERT(perf_mmap2__parse(r.b, full, st, &m) == 0, "parse");
	TEST_ASSERT(m.pid == 4321 && m.start == 0x7f0000001000ull && m.len == 0x3000 &&
		    m.pgoff == 0x5000 && m.prot == 5, "fields pid %u start %llx len %llx pgoff %llx prot %u",
		    m.pid, (unsigned long long)m.start, (unsigned long long)m.len,
		    (unsigned long long)m.pgoff, m.prot);
	TEST_ASSERT(!strcmp(m.filename, "/usr/lib/libx.so"), "filename '%.40s'", m.filename);
	TEST_ASSERT(m.time == 123456789012ull, "time %llu from the trailer", (unsigned long long)m.time);
	/* without TIME in sample_type the trailer has none to give */
	TEST_ASSERT(perf_mmap2__parse(r.b, full, st & ~(u64)PERF_SAMPLE_TIME, &m) == 0 &&
		    m.time != 123456789012ull, "time read without PERF_SAMPLE_TIME");
	r.b[0] = PERF_RECORD_MMAP;
	TEST_ASSERT(perf_mmap2__parse(r.b, full, st, &m) == -EINVAL, "MMAP taken for MMAP2");
	r.b[0] = PERF_RECORD_MMAP2;
	for (cut = 0; cut < 8 + 64 + 1; cut++) {	/* header, fixed fields, 1 filename byte */
		rb_setsize(&r, cut < 8 ? 8 : cut);
		TEST_ASSERT(perf_mmap2__parse(r.b, cut < 8 ? cut : full, st, &m) == -EINVAL, "cut %zu", cut);
	}
	rb_setsize(&r, full);
	TEST_ASSERT(perf_mmap2__parse(r.b, full - 1, st, &m) == -EINVAL, "record longer than the buffer");
	return TEST_OK;
}

/*
 * A real sample from this kernel: pid/tid must be ours, the period the one
 * we asked for, and the user IP register must equal the sample IP.
 */
LP_TEST(test_perf_sample_live_regs, "perf-record: live task-clock sample parses consistently")
{
	u64 st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
		 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
		 PERF_SAMPLE_REGS_USER;
	const struct perf_event_header *ev;
	struct perf_event_attr attr;
	struct timespec a, b;
	struct lp_ring ring;
	int fd, n = 0, ret;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.sample_period = 200000;
	attr.sample_type = st;
	attr.sample_regs_user = LP_REGS_USER_MASK;
	attr.exclude_kernel = 1;
	attr.disabled = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0)
		TEST_SKIP("perf_event_open: %s", strerror(errno));
	TEST_ASSERT(ring__mmap(&ring, fd, 8) == 0, "mmap");
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + b.tv_nsec - a.tv_nsec < 50000000L);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (ring__read_init(&ring) == 0) {
		while ((ret = ring__read_event(&ring, &ev)) > 0) {
			struct lp_perf_sample s;

			if (ev->type != PERF_RECORD_SAMPLE)
				continue;
			ret = perf_sample__parse(ev, ev->size, st, LP_REGS_USER_MASK, &s);
			TEST_ASSERT(ret == 0, "parse: %d", ret);
			TEST_ASSERT(s.pid == (u32)getpid() && s.tid == (u32)gettid(),
				    "pid %u tid %u", s.pid, s.tid);
			TEST_ASSERT(s.period == 200000, "period %llu",
				    (unsigned long long)s.period);
			TEST_ASSERT(s.cpu < (u32)ncpu, "cpu %u", s.cpu);
			TEST_ASSERT(s.regs_abi == PERF_SAMPLE_REGS_ABI_64, "abi %llu",
				    (unsigned long long)s.regs_abi);
			TEST_ASSERT(s.regs[LP_REG_IP] == s.ip, "regs ip %llx != ip %llx",
				    (unsigned long long)s.regs[LP_REG_IP],
				    (unsigned long long)s.ip);
			TEST_ASSERT(s.time > 0, "time");
			n++;
		}
		ring__read_done(&ring);
	}
	ring__munmap(&ring);
	close(fd);
	TEST_LOG("%d live samples parsed", n);
	TEST_ASSERT(n >= 5, "only %d samples in 50 ms at 200 us", n);
	return TEST_OK;
}

/*
 * READ with a group (perf_event_open(2) struct read_format): nr, then
 * value and id per counter, leader first; it sits between PERIOD and RAW.
 */
LP_TEST(test_perf_sample_read_group, "perf-record: READ group values and ids in ABI order")
{
	const u64 rf = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	struct lp_perf_sample s;
	struct rb r;

	rb_hdr(&r, PERF_RECORD_SAMPLE, 0);
	put_le(&r, 0x401000, 8);	/* IP */
	put_le(&r, 1234, 8);		/* PERIOD */
	put_le(&r, 2, 8);		/* READ: nr */
	put_le(&r, 987654321, 8);	/*   leader value */
	put_le(&r, 77, 8);		/*   leader id */
	put_le(&r, 5, 8);		/*   member value */
	put_le(&r, 78, 8);		/*   member id */
	put_le(&r, 4, 4);		/* RAW size */
	put_le(&r, 0xdeadbeef, 4);
	rb_done(&r);
	TEST_ASSERT(perf_sample__parse_read(r.b, r.n, PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD |
					    PERF_SAMPLE_READ | PERF_SAMPLE_RAW, rf, 0, &s) == 0,
		    "parse");
	TEST_ASSERT(s.ip == 0x401000 && s.period == 1234, "ip/period");
	TEST_ASSERT(s.read_nr == 2 && s.read_value[0] == 987654321 && s.read_id[0] == 77 &&
		    s.read_value[1] == 5 && s.read_id[1] == 78, "nr %u v0 %llu", s.read_nr,
		    (unsigned long long)s.read_value[0]);
	TEST_ASSERT(s.raw_size == 4, "raw after read: %u", s.raw_size);
	/* one byte short of the last counter */
	rb_setsize(&r, r.n - 8 - 1);
	TEST_ASSERT(perf_sample__parse_read(r.b, r.n - 8 - 1, PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD |
					    PERF_SAMPLE_READ, rf, 0, &s) == -EINVAL, "short");
	/* without GROUP a READ is one value (read_format 0: just the count) */
	rb_hdr(&r, PERF_RECORD_SAMPLE, 0);
	put_le(&r, 42, 8);
	rb_done(&r);
	TEST_ASSERT(perf_sample__parse(r.b, r.n, PERF_SAMPLE_READ, 0, &s) == 0 &&
		    s.read_nr == 1 && s.read_value[0] == 42, "single value");
	TEST_ASSERT(perf_sample__parse_read(r.b, r.n, PERF_SAMPLE_READ, 1ULL << 20, 0, &s) == -EINVAL,
		    "unknown read_format bit accepted");
	return TEST_OK;
}
