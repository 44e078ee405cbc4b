/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A sampling facility behind one ops table (DESIGN §1): probe gates live use,
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
};

/* Context for decoding: how to read the traced program's code. */
struct lp_decode_ctx {
	u32 pid, tid;
	u64 fs_base, gs_base;
	/* read @len bytes at @addr of process @pid; returns bytes read or -errno */
	long (*read_mem)(void *arg, u32 pid, u64 addr, void *buf, size_t len);
	void *arg;
	void *cache;		/* facility-private decode cache (per process) */
};

#define LP_MAX_FACILITY_ATTRS 4

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
};

extern const struct lp_facility_ops lp_facility_soft;
extern const struct lp_facility_ops lp_facility_pebs;
extern const struct lp_facility_ops lp_facility_ibs;

/* All facilities, in auto-selection preference order (pebs, ibs, soft). */
extern const struct lp_facility_ops *const lp_facilities[];
extern const int lp_nfacilities;

const struct lp_facility_ops *lp_facility__find(const char *name);

#endif
