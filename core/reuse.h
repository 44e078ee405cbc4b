/* SPDX-License-Identifier: GPL-2.0 */
/*
 * reuse: multithreaded reuse distance for private and shared caches
 * (ReuseTracker: Sasongko, 2022, ch. 6). A pure event consumer: samples and
 * watchpoint traps in, arm/disarm actions out; no syscall, no printing.
 * What it computes, definition by definition: Documentation/reuse-estimator.md.
 */
#ifndef LP_REUSE_H
#define LP_REUSE_H
#include "core/analysis.h"
#include "core/reuse-hist.h"
#include "core/topology.h"

#define REUSE_MAX_SLOTS		16
#define REUSE_MIN_RATE_PAIRS	8
#define REUSE_MAX_RATE		16.0	/* accesses per ns: beyond any CPU */
#define REUSE_MAX_WEIGHT	1e3	/* cap of a detection's weight */
#define REUSE_FEW_DETECTIONS	5	/* a bin on fewer is flagged (reports) */
#define REUSE_MIN_TRAP_COST	3	/* own-access traps behind a trap cost */
#define REUSE_DEFAULT_WINDOW	8	/* detections per footprint window (x8 at line) */

/* Zero fields take their default (reuse__config_init). */
struct reuse_config {
	int nslots;			/* debug registers per thread, default 4: GlobalWP
					 * slots of 1 (address) or 2 (line) registers */
	int shared;			/* shared-cache mode */
	enum reuse_gran gran;		/* REUSE_GRAN_ADDR (default) or LINE */
	const struct lp_topology *topo;	/* shared mode: who shares the LLC */
	double access_rate;		/* accesses per ns; 0: estimate */
	u64 seed;			/* PRNG seed, 0: fixed default */
	int max_pairs;			/* use->reuse pairs kept, default 4096 */
	int unweighted;			/* every detection weight 1 (Sasongko 2022) */
	int survival;			/* counter path: survival weights (Kaplan-
					 * Meier over the replaced watches), not
					 * each watch's own Horvitz-Thompson one */
	int window;			/* detections per conversion window
					 * (0: reuse__default_window), < 0: all */
	int global_rate;		/* one stride rate for the run, no local rates */
	int no_chain;			/* time every reuse; no address chains */
	double resolution_ns;		/* thread CPU ns a timed reuse cannot be told
					 * from 0 (see reuse_resolution); 0: unknown */
	int resolution_measured;	/* measured on this machine, not stated */
};

void reuse__config_init(struct reuse_config *cfg);
/* Detections per footprint window when cfg.window is 0. */
int reuse__default_window(enum reuse_gran gran);

enum reuse_rate_source {
	REUSE_RATE_DEFAULT = 0,		/* nothing measured: 1 per ns */
	REUSE_RATE_USER = 1,		/* --access-rate */
	REUSE_RATE_STRIDE = 2,		/* estimated from sample strides */
	REUSE_RATE_COUNTER = 3,		/* none needed: access counters */
};

enum reuse_time_source {
	REUSE_TIME_NONE = 0,		/* no reuse measured */
	REUSE_TIME_THREAD_CPU = 1,	/* thread_ns of sample and trap */
	REUSE_TIME_WALL = 2,		/* CLOCK_MONOTONIC (thread_ns missing) */
	REUSE_TIME_MIXED = 3,		/* some of each */
	REUSE_TIME_COUNTER = 4,		/* loads+stores counted at use and reuse */
};

/*
 * The resolution of a run: a reuse timed by a clock (not counted) whose
 * trap came less than R ns of thread CPU time after its sample cannot be
 * told apart from one at distance 0 (the sample, the arm and the trap
 * cost the thread about R between them). It is at fewer than about
 * N = R x access rate accesses, and so fewer than N distinct lines or
 * addresses, and goes into the short bin instead of the histograms.
 */
enum reuse_res_source {
	REUSE_RES_EXACT = 0,		/* reuses counted (counters, a trace): R = 0 */
	REUSE_RES_STATED = 1,		/* --resolution NS */
	REUSE_RES_MEASURED = 2,		/* costs measured at the run's start */
	REUSE_RES_UNKNOWN = 3,		/* timed reuses, no resolution given */
};

struct reuse_resolution {
	enum reuse_res_source source;
	double ns;			/* R; 0 when exact or unknown */
	double accesses;		/* N: R x access rate (x threads sharing, shared) */
	double short_reuses;		/* weight of the reuses shorter than R */
	u64 short_detections;		/* ... as detected */
};

extern const char *const reuse_res_source_names[];	/* "exact", "stated", ... */
extern const char *const reuse_rate_source_names[];	/* "default", "user", ... */
extern const char *const reuse_time_source_names[];	/* "none", "thread_cpu", ... */

struct reuse_pair {
	u64 use_ip, reuse_ip;		/* reuse_ip: trap IP (after the access) */
	u64 addr;			/* one example data address of the use */
	u64 reuses, invalidations;
	u32 thread;			/* use thread index of the first one */
};

/*
 * qsort() order of pairs, sampled and exact alike: reuses + invalidations,
 * most first, ties in address order (use, then reuse instruction), so the
 * order does not depend on how the pairs were stored.
 */
int reuse_pair__cmp(const void *a, const void *b);

/* One sampled use and what followed it, for views by data object. */
enum reuse_use_kind { REUSE_USE_REUSE, REUSE_USE_INVAL, REUSE_USE_COLD };
struct reuse_use {
	u64 addr;			/* the use's data address */
	u32 pid, thread;		/* its process, thread index */
	u8 kind;			/* enum reuse_use_kind */
	double stack;			/* REUSE: stack distance (the result's granularity) */
	double w;			/* its weight, as in the histograms */
};

struct reuse_thread {
	u32 tid;			/* 0 if never started */
	u64 samples;			/* usable samples */
	u64 reuses, invalidations, cold, cross_thread;
	struct reuse_hist time, stack;	/* without the short reuses */
	struct reuse_hist_err time_err, stack_err;	/* what their bins rest on */
	double short_reuses;		/* weight of its reuses shorter than R */
};

struct reuse_stats {
	u64 samples;			/* LP_EV_SAMPLE seen */
	u64 samples_used;		/* armed a slot */
	u64 samples_noaddr;		/* no data address or access kind */
	u64 samples_unknown;		/* thread never started or exited */
	u64 samples_dropped;		/* reservoir kept the old watches */
	u64 replaced;			/* active watches censored by a new one */
	u64 traps, traps_stale, traps_late;
	u64 traps_again;		/* the use reported again (ru_again) */
	u64 traps_use;			/* a held pending sample's own access */
	u64 arm_actions, disarm_actions;
	u64 temporal, chunk;		/* reuses by watch kind (see above) */
	u64 spatial;			/* line: trapped on the next chunk, not the use's */
	u64 rate_pairs;			/* stride pairs behind the estimate */
};

struct reuse_result {
	int shared;
	enum reuse_gran gran;
	int nthreads;
	const struct reuse_thread *threads;	/* [nthreads], index order */
	struct reuse_hist time, stack;		/* whole program, without the short reuses */
	struct reuse_hist_err time_err, stack_err;	/* what their bins rest on */
	u64 replaced_beyond;			/* counter path: watches replaced after
						 * holding longer than longest_reuse */
	double longest_reuse;			/* accesses, of the longest reuse in time */
	double oldest_replaced;			/* accesses, the oldest replaced watch's age */
	struct reuse_resolution resolution;
	u64 reuses, invalidations, cold, cross_thread;
	double access_rate;			/* accesses per ns used */
	enum reuse_rate_source rate_source;
	double stride_rate;			/* the estimate, 0 if none */
	enum reuse_time_source time_source;
	double mean_access_size;		/* bytes, of used samples */
	double trap_cost_ns;			/* subtracted from held reuses, 0: none */
	u64 trap_cost_samples;			/* own-access traps measured */
	u64 local_rate_reuses;			/* reuses timed with a local rate */
	u64 chained_reuses;			/* reuses counted along address chains */
	u64 access_weighted;			/* detections weighted by accesses per sample */
	u64 counted_reuses;			/* reuses timed by access counters */
	u64 censored;				/* replaced watches behind survival
						 * weights (counter path), else 0 */
	int survival;				/* survival weights, not Horvitz-Thompson */
	int survival_unapplied;			/* asked for, but some detection had no
						 * counted age: Horvitz-Thompson */
	int window;				/* footprint window (cfg.window) */
	u64 rate_pairs_local;			/* stride pairs behind access_rate, if local */
	int npairs;
	const struct reuse_pair *pairs;		/* by reuses+invalidations, desc */
	size_t nuses;
	const struct reuse_use *uses;		/* every detection, in detection order */
	struct reuse_stats stats;
};

struct reuse;

/* NULL with errno EINVAL (bad config) or ENOMEM. @cfg may be NULL. */
struct reuse *reuse__new(const struct reuse_config *cfg);
void reuse__delete(struct reuse *ru);

struct lp_analysis *reuse__analysis(struct reuse *ru);
int reuse__event(struct reuse *ru, const struct lp_event *ev,
		 struct lp_actions *out);
/* End of stream: active watches become cold. */
int reuse__finish(struct reuse *ru);


/*
 * Histograms and counts of everything seen so far (normally after finish);
 * owned by @ru, valid until the next call or reuse__delete. NULL: ENOMEM.
 */
const struct reuse_result *reuse__result(struct reuse *ru);

/* The time distance (accesses strictly between) of @ns at @rate per ns. */
u64 reuse__ns_to_accesses(double ns, double rate);

#endif
