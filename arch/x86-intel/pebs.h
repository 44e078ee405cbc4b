/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Intel PEBS internals (Documentation/facilities.md, "Intel PEBS"), for arch/x86-intel/ and its unit
 * tests. core/ never includes this: it sees lp_facility_pebs only.
 */
#ifndef LP_ARCH_PEBS_H
#define LP_ARCH_PEBS_H
#include <linux/perf_event.h>
#include "arch/x86/data-src.h"
#include "arch/x86/pfm.h"
#include "core/facility.h"
#include "core/types.h"

/* One row of the table in Documentation/facilities.md, "Intel PEBS": a microarchitecture's memory sampling events. */
struct pebs_uarch {
	const char *name;		/* "skl-icl" ... */
	const char *pfm[10];		/* libpfm4 PMU names of this row */
	u8 models[16];			/* CPUID family 6 models, for PMUs libpfm4 lacks */
	const char *unknown[6];		/* names libpfm4 4.13 lacks (--pmu emr) */
	/* default mode: every load / every store */
	const char *load_ev, *store_ev;	/* libpfm4 names, NULL: raw only */
	u64 load_raw, store_raw;	/* Intel's codes; store_raw 0: no store event */
	int load_needs_ldlat;		/* load event is a load-latency one */
	/* ldlat mode (opts->ldlat): full DATA_SRC */
	const char *ldlat_ev;
	u64 ldlat_raw;
	const char *st_lat_ev;		/* stores in ldlat mode */
	u64 st_lat_raw;
	int aux;			/* ldlat+DATA_SRC needs a mem-loads-aux (0x8203) leader */
	int atom;			/* cpu_atom PMU of a hybrid */
	int weight_struct;		/* PERF_SAMPLE_WEIGHT_STRUCT (Linux 5.12+) */
};

#define PEBS_MEM_LOADS_AUX	0x8203ULL
#define PEBS_DEFAULT_PERIOD	10007ULL	/* prime: no aliasing with loops */
#define PEBS_DEFAULT_LDLAT	3
#define PEBS_SAMPLE_TYPE	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
				 PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_DATA_SRC)

extern const struct pebs_uarch pebs_uarchs[];
extern const int pebs_nuarchs;
extern const struct lp_facility_ops lp_facility_pebs;

/* The row for a libpfm4 PMU name ("skx"), or for a name it lacks ("emr"). */
const struct pebs_uarch *pebs__uarch_by_pfm(const char *pfm);
/* The row for an Intel family 6 CPUID model, NULL if none. */
const struct pebs_uarch *pebs__uarch_by_model(unsigned int family, unsigned int model);

/* A core PMU to program: which row, which perf type, which sysfs name. */
struct pebs_pmu {
	const struct pebs_uarch *ua;
	int type;			/* perf attr.type; -1 if dynamic and unknown */
	char sysfs[16];			/* "cpu", "cpu_core", "cpu_atom" */
	char pfm[32];			/* libpfm4 PMU used to encode, "" for raw codes */
	int forced;			/* pfm is not this machine's: encode in a child */
};

/*
 * The core PMUs of this machine (hybrids: cpu_core then cpu_atom), or of
 * libpfm4 PMU @force (no sysfs: type PERF_TYPE_RAW). Returns how many, or
 * -errno with @err saying why (no PMU, not Intel, unknown CPU).
 */
int pebs__pmus(const char *force, struct pebs_pmu *pmus, int max, char *err, size_t len);

/*
 * Fill the attrs and layout for @pmus per @opts (Documentation/facilities.md, "Intel PEBS"). 0 or -errno
 * (-E2BIG: more than LP_MAX_FACILITY_ATTRS) with @err.
 */
int pebs__build(const struct pebs_pmu *pmus, int npmus, const struct lp_sampling_opts *opts,
		int weight_struct_ok, struct perf_event_attr *attrs,
		struct lp_attr_layout *lay, char *err, size_t len);

/* The message when no core PMU is in sysfs (@hypervisor: CPUID says VM). */
int pebs__no_pmu_msg(int hypervisor, char *buf, size_t len);

#endif
