/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to core/reuse*.c: the tracker's state. reuse.c is the online
 * tracker (events in, detections and actions out); reuse-estimate.c turns
 * the detections into the result after the run
 * (Documentation/reuse-estimator.md).
 */
#ifndef LP_REUSE_INTERNAL_H
#define LP_REUSE_INTERNAL_H
#include "core/hash.h"
#include "core/reuse.h"

#define RU_MAX_THREADS	(1u << 24)
#define RU_NO_CPU	(~0u)
#define RU_STRIDE_CAP	4096		/* (thread, ip) entries of the stride cache */
#define RU_STRIDE_MAX	(1ull << 24)	/* accesses between two stride samples */
#define RU_LOOP_BYTES	256		/* IPs this close are one loop body */
#define RU_CHAIN_SLACK	8.0		/* a counted gap's rate vs the time rate */

enum ru_kind {
	RU_REUSE = 0,
	RU_INVAL = 1,
	RU_COLD = 2,
};

#define RU_LINE_REGS	2	/* registers of a line-granularity watch */
#define RU_MAX_INSN	15	/* bytes: the longest x86 instruction */

/* One watch: what a slot (debug register i of every thread) watches. */
struct ru_watch {
	u8 active;
	u8 len, exact;
	u8 pending;		/* held sample of an access not made yet */
	u8 again;		/* its use was reported again (ru_again) */
	u8 held;		/* armed while its thread was held (sync) */
	u8 use_size;		/* bytes of the sampled access */
	u32 owner;		/* use thread index */
	u32 owner_cpu;
	u64 cookie;
	u64 addr;		/* watched (aligned) address: the sampled chunk */
	u64 addr2;		/* line granularity: the chunk after it (ru_watch_bytes) */
	u8 nreg;		/* debug registers it holds per thread: 1 or 2 */
	u64 use_addr, use_ip;
	u64 use_ns, use_time;	/* thread CPU ns (0 if unknown), wall ns */
	u64 use_count;		/* accesses counted at the use (counted) */
	u8 counted;		/* a counting facility read use_count */
	double logp;		/* log P(armed and not yet replaced) */
	double logp_sel;	/* log P(armed): some slot took the sample */
	size_t cens;		/* its censoring (ru_cens) + 1, 0: none */
};

struct ru_slot {
	struct ru_watch cur, prev;	/* prev: censored, for late async traps */
	double n;			/* reservoir counter */
};

struct ru_thread {
	u32 tid;
	u32 pid;
	u8 started, live;
	u32 cpu;
	u64 samples, reuses, invalidations, cold, cross;
	u8 mode[REUSE_MAX_SLOTS];	/* current watch: 0, LP_WP_W, LP_WP_RW */
	u8 pmode[REUSE_MAX_SLOTS];	/* previous (censored) watch */
	u64 last_addr, last_ip;		/* its latest sample with an address */
	u64 last_count;			/* its counter at that sample, 0: none */
	u64 count;			/* its loads+stores, latest LP_EV_COUNTER */
	u8 counted;			/* a COUNTER event was seen */
};

struct ru_det {			/* one detection */
	u32 thread;
	u8 kind;		/* enum ru_kind */
	u8 wall;		/* ns is wall time, not thread CPU time */
	u8 shared_k;		/* shared mode: CPU-time multiplier used */
	u8 held;		/* a reuse timed from a held sample */
	double ns;
	double w;		/* 1 / P(observed): Horvitz-Thompson weight */
	double w0;		/* w before ru_access_weights */
	double wsel;		/* 1 / P(armed) only (ru_survival) */
	double age;		/* counted accesses it was held, the trap's own
				 * included (aged; cold: to the end, censored: to
				 * the replacing sample) */
	u8 aged;		/* age is known (a counting facility) */
	u64 use_time;		/* when the use was sampled (window order) */
	u64 use_count;		/* accesses counted at the use (aged) */
	u64 use_ns;		/* thread CPU ns at the use (0: unknown) */
	u64 end_time;		/* when the reuse trapped (reuses) */
	double acc;		/* accesses in between, set by ru_accesses */
	double rate;		/* accesses per ns used for it (reuses) */
	u64 addr, ip;		/* the use's data address and IP */
	u8 size;		/* the use's access size */
	u8 chained;		/* acc counted along the samples in between */
	u8 counted;		/* ns is an exact access count (counters) */
	u8 is_short;		/* timed within the resolution (reuse_resolution) */
	double stack;		/* reuses: stack distance (ru_convert_run), for uses[] */
};

struct ru_cens {		/* a counted watch replaced before its trap */
	u32 thread;		/* the use's */
	u8 live;		/* 0: a late trap decided it after all */
	u64 use_time;
	u64 use_count;		/* accesses counted at the use */
	double age;		/* accesses held: its reuse comes later */
	double wsel;		/* 1 / P(armed) */
};

struct ru_drop {			/* a usable sample no slot took */
	u32 thread;
	u64 time;
};

struct ru_pt {			/* a usable sample of a thread, for chains */
	u32 thread;
	u8 size;
	u64 ns, addr, ip;
	u32 seg;		/* its loop's phase (ru_segments), 0: unknown */
};

struct ru_dbl {			/* a growing vector of doubles */
	double *v;
	size_t n, cap;
};

struct ru_span {			/* a forward stride pair of one thread */
	u32 thread;
	u64 t0, t1;		/* thread CPU ns of its two samples */
	double rate;		/* accesses per ns */
};

struct ru_stride {
	u64 key;		/* thread << 48 ^ ip, 0: empty */
	u64 addr, ns;
	u8 size;
};

struct ru_pairrec {
	struct reuse_pair p;
	u8 used;
};

struct reuse {
	struct lp_analysis an;
	struct reuse_config cfg;
	u64 rng, cookie_gen;
	struct ru_slot slot[REUSE_MAX_SLOTS];
	int nwatch;			/* slots: cfg.nslots registers / nreg */
	int nreg;			/* registers per slot (RU_LINE_REGS at line) */

	struct ru_thread *thr;
	u32 nthr, thr_cap, nlive;
	struct lp_map tids;		/* tid -> thread index */

	struct ru_det *det;
	size_t ndet, det_cap;
	struct ru_cens *cens;		/* censored watches (counted ones) */
	size_t ncens, cens_cap;
	struct ru_drop *drops;		/* samples no slot took */
	size_t ndrops, drops_cap;

	struct ru_stride *stride;
	struct ru_dbl rates;		/* stride rates, accesses per ns */
	struct ru_dbl cal;		/* held stops: sample to own-access trap ns */
	struct ru_span *spans;		/* forward stride pairs, for local rates */
	size_t nspans, spans_cap;
	struct ru_pt *pts;		/* usable samples with thread CPU ns */
	size_t npts, pts_cap;
	double step_med;		/* median address-counted step, accesses */
	double step_rate;		/* their median accesses per ns */
	double size_sum;

	struct ru_pairrec *pairs;	/* open addressing, 2 x max_pairs */
	u32 pairs_cap;
	int npairs;

	int finished;
	int survival;			/* ru_survival applied (reuse-estimate.c) */
	struct reuse_stats st;

	/* result snapshot */
	struct reuse_result res;
	struct reuse_thread *r_thr;
	struct reuse_pair *r_pairs;
	struct reuse_use *r_uses;
};

/* reuse.c */
int ru_dbl_push(struct ru_dbl *d, double x);
/* reuse-estimate.c */
void ru_result_free(struct reuse *ru);

#endif
