/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A sampling facility behind one ops table (Documentation/architecture.md): probe gates live use,
 * setup fills the per-thread perf_event_attr(s), decode turns a raw perf
 * sample into an lp_sample. core/ sees only this header, never arch/.
 */
#ifndef LP_FACILITY_H
#define LP_FACILITY_H
#include <linux/perf_event.h>
#include "core/event.h"
#include "core/perf-record.h"

struct lp_probe {
	int usable;		/* 1: can be used live on this machine */
	char reason[256];	/* why not, or what was found */
};

struct lp_sampling_opts {
	u64 period;		/* 0: facility default */
	u64 freq;		/* if non-zero, sample at this frequency instead */
	int sigtrap;		/* deliver SIGTRAP on overflow (synchronous path) */
	/*
	 * pebs only: 0 samples every retired load (MEM_INST_RETIRED.ALL_LOADS:
	 * only mem_op in DATA_SRC); N > 0 samples loads slower than N cycles
	 * with the load-latency facility (full DATA_SRC: level, snoop, TLB,
	 * lock), led by mem-loads-aux where the kernel requires it.
	 */
	int ldlat;
	/* also set up a counting group of loads+stores (reuse time) */
	int counters;
};

/* Context for decoding: how to read the traced program's code. */
struct lp_decode_ctx {
	u32 pid, tid;
	u64 fs_base, gs_base;
	/* read @len bytes at @addr of process @pid; returns bytes read or -errno */
	long (*read_mem)(void *arg, u32 pid, u64 addr, void *buf, size_t len);
	void *arg;
	void *cache;		/* facility-private decode cache (per process) */
	/*
	 * The attr (from setup) whose sample is being decoded, NULL if not
	 * known (then attrs[0]). Facilities with several sampling events
	 * (pebs: loads and stores) tell them apart by it.
	 */
	const struct perf_event_attr *attr;
};

#define LP_MAX_FACILITY_ATTRS 12

/* What the session does with attrs[i] (struct lp_attr_layout). */
enum lp_attr_role {
	LP_ATTR_SAMPLE = 0,	/* samples into the ring; decode each sample */
	LP_ATTR_AUX,		/* group leader the kernel requires; never decoded */
	LP_ATTR_COUNT,		/* counting only (no period): read(2) it, group-wise */
};

/*
 * How the attrs of setup_layout are opened, in index order (a leader always
 * has a lower index than its members): attrs[i] is opened with group_fd =
 * the fd of attrs[leader[i]] when leader[i] >= 0 and != i, alone otherwise.
 */
struct lp_attr_layout {
	int nattrs;
	u8 role[LP_MAX_FACILITY_ATTRS];		/* enum lp_attr_role */
	signed char leader[LP_MAX_FACILITY_ATTRS];	/* -1: opened alone */
	u8 kind[LP_MAX_FACILITY_ATTRS];		/* LP_ACCESS_* its samples/counts are */
	char name[LP_MAX_FACILITY_ATTRS][64];	/* event name, e.g. MEM_INST_RETIRED.ALL_LOADS */
	char pmu[LP_MAX_FACILITY_ATTRS][16];	/* sysfs PMU name: cpu, cpu_core, ibs_op */
	char note[256];				/* where the encodings came from, caveats */
};

struct lp_facility_ops {
	const char *name;	/* "soft", "pebs", "ibs" */
	const char *desc;
	int (*probe)(struct lp_probe *res);
	/* Per-thread sampling events; attrs[0] is the one whose samples decode. */
	int (*setup)(const struct lp_sampling_opts *opts,
		     struct perf_event_attr *attrs, int *nattrs);
	/* Raw sample -> memory sample. Returns 0 (out->noaddr says if usable). */
	int (*decode)(struct lp_decode_ctx *ctx, const struct lp_perf_sample *raw,
		      struct lp_sample *out);
	/*
	 * Optional: the access of the instruction before raw->ip, when it can
	 * be recovered (skid: the interrupt lands after a long-latency load).
	 */
	int (*decode_prev)(struct lp_decode_ctx *ctx,
			   const struct lp_perf_sample *raw, struct lp_sample *out);
	/* Free what decode cached for a process (mapping changed, exit). */
	void (*flush)(struct lp_decode_ctx *ctx);
	u64 default_period;
	const char *period_unit;	/* "ns" or "events" */
	/*
	 * Optional: setup with roles and groups (struct lp_attr_layout), for
	 * this machine (@pfm_pmu NULL) or, without opening anything, for a
	 * libpfm4 PMU such as "skx" or "amd64_fam19h_zen3" (list --attrs
	 * --pmu; dynamic PMU types are then -1). 0, or -errno with @err
	 * saying why. NULL: setup's attrs[0] samples, the rest open alone.
	 */
	int (*setup_layout)(const char *pfm_pmu, const struct lp_sampling_opts *opts,
			    struct perf_event_attr *attrs, struct lp_attr_layout *lay,
			    char *err, size_t errlen);
	/*
	 * Optional: what decode counted so far (ops kept and dropped by
	 * reason) as one line for reports and -v; returns its length.
	 */
	int (*stats)(char *buf, size_t len);
	/* --sampler auto tries facilities in this order, lowest first */
	int auto_order;
};

/*
 * A facility registers itself where its ops are defined, in a linker
 * section that core/facility.c reads: core names no facility.
 *
 *	const struct lp_facility_ops lp_facility_soft = { ... };
 *	LP_FACILITY(lp_facility_soft);
 */
#define LP_FACILITY(ops_)                                                      \
	static const struct lp_facility_ops *const lp__facility_##ops_          \
		__attribute__((used, section("lp_facilities"))) = &ops_

/* Every facility linked in, by auto_order (pebs, ibs, soft); *@n of them. */
const struct lp_facility_ops *const *lp_facility__list(int *n);

const struct lp_facility_ops *lp_facility__find(const char *name);

/* setup() of a facility that has setup_layout(): this machine's layout, attrs only. */
int lp_facility__setup_by_layout(const struct lp_facility_ops *f, const struct lp_sampling_opts *opts,
				 struct perf_event_attr *attrs, int *nattrs);

#endif
