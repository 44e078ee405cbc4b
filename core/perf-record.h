/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parsing of perf ring-buffer records. Pure functions over bytes: no
 * syscalls, so they are unit-tested on synthetic buffers.
 */
#ifndef LP_PERF_RECORD_H
#define LP_PERF_RECORD_H
#include <linux/perf_event.h>
#include "core/types.h"

/* x86-64 perf register numbers (asm/perf_regs.h) */
enum lp_perf_reg {
	LP_REG_AX, LP_REG_BX, LP_REG_CX, LP_REG_DX, LP_REG_SI, LP_REG_DI,
	LP_REG_BP, LP_REG_SP, LP_REG_IP, LP_REG_FLAGS, LP_REG_CS, LP_REG_SS,
	LP_REG_DS, LP_REG_ES, LP_REG_FS, LP_REG_GS,
	LP_REG_R8, LP_REG_R9, LP_REG_R10, LP_REG_R11, LP_REG_R12, LP_REG_R13,
	LP_REG_R14, LP_REG_R15,
	LP_REG__MAX
};

/* Every GPR, IP, FLAGS, CS, SS; DS/ES/FS/GS are rejected in 64-bit mode. */
#define LP_REGS_USER_MASK 0xff0fffULL

#define LP_PERF_MAX_READ 8	/* counters of a READ group kept */

/* One PERF_RECORD_SAMPLE, fields present per attr.sample_type. */
struct lp_perf_sample {
	u64 sample_type;	/* which fields below are valid */
	u16 misc;		/* header.misc: PERF_RECORD_MISC_USER/KERNEL... */
	u64 id;			/* PERF_SAMPLE_IDENTIFIER or ID */
	u64 ip;
	u32 pid, tid;
	u64 time;
	u64 addr;
	u64 stream_id;
	u32 cpu;
	u64 period;
	u64 weight;		/* WEIGHT, or WEIGHT_STRUCT's var1_dw (latency) */
	u64 data_src;
	u64 regs_abi;		/* PERF_SAMPLE_REGS_ABI_*; 0: no registers */
	u64 regs_mask;		/* which entries of regs[] are valid */
	u64 regs[LP_REG__MAX];
	u32 raw_size;
	const void *raw;	/* points into the parsed buffer */
	/* PERF_SAMPLE_CALLCHAIN: nr u64 entries, context markers included */
	u32 callchain_nr;
	const void *callchain;	/* points into the parsed buffer (memcpy each) */
	/* PERF_SAMPLE_STACK_USER: the bytes copied from the user sp up */
	u64 stack_size;
	const void *stack;	/* points into the parsed buffer */
	/* Parsed so that later fields line up; kept for whoever wants them. */
	u64 transaction;
	u64 phys_addr;
	u64 cgroup;
	u64 data_page_size;
	u64 code_page_size;
	u16 weight_var2, weight_var3;	/* WEIGHT_STRUCT's other halves */
	/* PERF_SAMPLE_READ: counters in group order (leader first) */
	u32 read_nr;		/* counters in the record (may exceed the array) */
	u64 read_value[LP_PERF_MAX_READ];
	u64 read_id[LP_PERF_MAX_READ];
	u64 time_enabled, time_running;
};

/*
 * Parse the body of a PERF_RECORD_SAMPLE (@rec points at the perf_event_header,
 * @len is header.size). @regs_mask is attr.sample_regs_user. Returns 0, or
 * -EINVAL if the record is shorter than its sample_type implies or carries a
 * field lociprof does not understand (BRANCH_STACK, REGS_INTR, AUX, bits beyond PERF_SAMPLE_MAX, or both WEIGHT
 * and WEIGHT_STRUCT). Fields are read in the kernel's output order
 * (perf_output_sample: ... PHYS_ADDR, CGROUP, DATA_PAGE_SIZE, CODE_PAGE_SIZE,
 * AUX); bytes after the last field are ignored. regs[] is indexed by
 * register number; bits of @regs_mask >= LP_REG__MAX are skipped over.
 */
int perf_sample__parse(const void *rec, size_t len, u64 sample_type,
		       u64 regs_mask, struct lp_perf_sample *out);
/*
 * The same for an event with PERF_SAMPLE_READ: @read_format is its
 * attr.read_format (GROUP, ID, TOTAL_TIME_*, LOST). perf_sample__parse is
 * this with read_format 0 (READ then carries one u64 value).
 */
int perf_sample__parse_read(const void *rec, size_t len, u64 sample_type,
			    u64 read_format, u64 regs_mask,
			    struct lp_perf_sample *out);

/* PERF_RECORD_LOST body: id, lost. */
struct lp_perf_lost {
	u64 id, lost;
};
int perf_lost__parse(const void *rec, size_t len, struct lp_perf_lost *out);

/* PERF_RECORD_THROTTLE / UNTHROTTLE body: time, id, stream_id. */
struct lp_perf_throttle {
	u64 time, id, stream_id;
};
int perf_throttle__parse(const void *rec, size_t len,
			 struct lp_perf_throttle *out);

/*
 * PERF_RECORD_MMAP2: pid, tid, addr, len, pgoff, maj/min/ino/gen, prot,
 * flags, filename; then the sample_id_all trailer of @sample_type (TID,
 * TIME, ID, STREAM_ID, CPU, IDENTIFIER, those present), whose TIME is the
 * mapping's. A filename longer than lp_mmap's is cut. 0 or -EINVAL.
 */
struct lp_mmap;
int perf_mmap2__parse(const void *rec, size_t len, u64 sample_type, struct lp_mmap *out);

#endif
