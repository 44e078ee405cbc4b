/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AMD IBS internals (Documentation/facilities.md, "AMD IBS"), for arch/x86-amd/ and its unit tests.
 * core/ never includes this: it sees lp_facility_ibs only.
 */
#ifndef LP_ARCH_IBS_H
#define LP_ARCH_IBS_H
#include <stddef.h>
#include <linux/perf_event.h>
#include "core/facility.h"
#include "core/types.h"

/* CPUID Fn8000_001B_EAX, as the first u32 of PERF_SAMPLE_RAW (bit 0: IBS exists) */
#define IBS_CAPS_AVAIL		(1u << 0)
#define IBS_CAPS_OPCNT		(1u << 4)
#define IBS_CAPS_BRNTRGT	(1u << 5)
#define IBS_CAPS_OPCNTEXT	(1u << 6)
#define IBS_CAPS_RIPINVALIDCHK	(1u << 7)
#define IBS_CAPS_OPDATA4	(1u << 10)
#define IBS_CAPS_ZEN4		(1u << 11)

/* PERF_SAMPLE_RAW of ibs_op: u32 caps, then these u64 in order */
enum ibs_reg {
	IBS_OP_CTL, IBS_OP_RIP, IBS_OP_DATA, IBS_OP_DATA2, IBS_OP_DATA3,
	IBS_DC_LINADDR, IBS_DC_PHYSADDR, IBS_BR_TARGET, IBS_OP_DATA4,
	IBS_NREGS
};

#define IBS_OP_VAL		(1ULL << 18)	/* IBS_OP_CTL */
#define IBS_OP_CNT_CTL_BIT	19
#define IBS_RIP_INVALID		(1ULL << 38)	/* IBS_OP_DATA */
/* IBS_OP_DATA3 */
#define IBS_LD_OP		(1ULL << 0)
#define IBS_ST_OP		(1ULL << 1)
#define IBS_DC_L1TLB_MISS	(1ULL << 2)
#define IBS_DC_L2TLB_MISS	(1ULL << 3)
#define IBS_DC_MISS		(1ULL << 7)
#define IBS_DC_UC_MEM_ACC	(1ULL << 14)
#define IBS_DC_LOCKED_OP	(1ULL << 15)
#define IBS_DC_MISS_NO_MAB	(1ULL << 16)
#define IBS_DC_LIN_ADDR_VALID	(1ULL << 17)
#define IBS_DC_PHY_ADDR_VALID	(1ULL << 18)
#define IBS_L2_MISS		(1ULL << 20)
#define IBS_WIDTH_SHIFT		22	/* 4 bits: bytes = 1 << (w - 1) */
#define IBS_MISS_LAT_SHIFT	32	/* 16 bits, cycles */
/* IBS_OP_DATA2 (loads) */
#define IBS_RMT_NODE		(1ULL << 4)
#define IBS_CACHE_HIT_ST	(1ULL << 5)	/* 0: line was Modified, 1: Owned */

#define IBS_MIN_PERIOD		0x90ULL		/* IbsOpMaxCnt >= 9 */
#define IBS_MAX_PERIOD		(0xffffULL << 4)		/* 20 bits */
#define IBS_MAX_PERIOD_EXT	(IBS_MAX_PERIOD | (0x7fULL << 20))	/* 27 bits */
#define IBS_DEFAULT_PERIOD	0x10000ULL
#define IBS_SAMPLE_TYPE		(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
				 PERF_SAMPLE_CPU | PERF_SAMPLE_RAW)

/* The raw record split into registers. */
struct ibs_raw {
	u32 caps;
	u64 reg[IBS_NREGS];
	int has[IBS_NREGS];	/* was it in the record */
};

/*
 * Split PERF_SAMPLE_RAW (@raw, @size bytes) by the caps it starts with.
 * 0, or -EINVAL if it is shorter than its caps imply.
 */
int ibs__parse_raw(const void *raw, u32 size, struct ibs_raw *out);

/* Why ops were not kept as memory samples (decode counts them). */
enum ibs_discard {
	IBS_KEPT,		/* load or store with a linear address */
	IBS_DISCARD_NOT_MEM,	/* neither load nor store */
	IBS_DISCARD_NO_ADDR,	/* load/store without a valid linear address */
	IBS_DISCARD_KERNEL,	/* kernel address or IP */
	IBS_DISCARD_BAD_RAW,	/* no or short PERF_SAMPLE_RAW */
	IBS_DISCARD__MAX
};
extern const char *const ibs_discard_names[IBS_DISCARD__MAX];

struct ibs_stats {
	u64 ops;			/* samples decoded */
	u64 reason[IBS_DISCARD__MAX];	/* [IBS_KEPT]: kept */
	u64 loads, stores, locked, rip_invalid, tlb_miss;
};
void ibs__stats(struct ibs_stats *st);
void ibs__stats_reset(void);

/* perf_mem_data_src of an op (as the kernel builds it, arch/x86/events/amd/ibs.c). */
u64 ibs__data_src(const struct ibs_raw *r);

/*
 * Round @req to a valid ibs_op period (multiple of 16) and check it against
 * the range the caps allow (0x90 .. 0xffff0, or 0x7fffff0 with OpCntExt).
 * 0 with *out set, or -ERANGE with @err saying the range.
 */
int ibs__period(u64 req, u32 caps, u64 *out, char *err, size_t len);

/* 0 if kernel @release runs IBS per thread (6.2+), else -EOPNOTSUPP and why. */
int ibs__kernel_check(const char *release, char *err, size_t len);

/* "config:19" -> field 0, bit 19; "config2:0" -> 2, 0. 0 or -EINVAL. */
int ibs__parse_format(const char *s, int *field, int *bit);

/* What the ibs_op PMU offers (sysfs, or assumed for a forced PMU). */
struct ibs_pmu {
	int type;		/* -1: dynamic, unknown here */
	u32 caps;
	int cnt_ctl_field, cnt_ctl_bit;	/* -1: no cnt_ctl */
	int swfilt_field, swfilt_bit;	/* -1: no swfilt */
	char pfm[32];		/* libpfm4 core PMU for the counting events, "" if none */
	int forced;		/* pfm is not this machine's */
};

int ibs__build(const struct ibs_pmu *p, const struct lp_sampling_opts *opts,
	       struct perf_event_attr *attrs, struct lp_attr_layout *lay,
	       char *err, size_t len);

extern const struct lp_facility_ops lp_facility_ibs;

#endif
