/* SPDX-License-Identifier: GPL-2.0 */
/*
 * coherence: a MESI simulator over a multithreaded access trace, the
 * ground truth comdetect is held to (Marathe, Mueller, de Supinski 2005:
 * full-trace coherence simulation, metrics per reference). Pure: accesses
 * in, counts out; no syscall, no printing.
 *
 * Model (written down once, here):
 *
 * - Each thread has one private cache level of @sets x @ways lines, LRU
 *   within a set; sets = 0 means unbounded (a line, once fetched, stays:
 *   only cold and coherence misses happen). A directory entry per line
 *   knows which caches hold it valid (S, E or M), which hold it Invalid
 *   (the tag is still there, the copy was invalidated) and the owner of
 *   an E or M copy.
 * - Load miss: the owner, if any, keeps an S copy (M is written back);
 *   the loader gets E if no other cache holds it valid, else S.
 *   Store: every other valid copy is invalidated (one invalidation per
 *   copy, counted for the writer -> victim pair); the writer gets M. A
 *   store to a line held S is an upgrade: invalidations, no miss.
 * - A miss is a coherence miss when the thread's cache holds the line's
 *   tag in state Invalid (Marathe et al.: the line was invalidated by
 *   another processor); cold when the thread never held the line; a
 *   capacity (or conflict) miss when LRU replaced it. An invalidated
 *   line keeps its way until LRU replaces it.
 * - A coherence miss of thread j counts for the pair (w, j), w the last
 *   thread that stored to the line (whose store j's access sees; the
 *   directory's data source). It is true sharing iff the bytes j accesses
 *   overlap bytes that other threads stored since j's copy was
 *   invalidated, false sharing otherwise.
 * - An access that spans lines is one access per line; size 0 means 8.
 * - References (Marathe et al.'s unit, a source location): a trace has
 *   no instruction address, so a reference is (thread, op, address).
 *   Coherence misses count for the missing access's reference,
 *   invalidations for the invalidating store's.
 */
#ifndef LP_COHERENCE_H
#define LP_COHERENCE_H
#include "core/types.h"

#define COHERENCE_MAX_THREADS	64	/* the directory's sharer masks are 64 bits */
#define COHERENCE_LINE_TOUCHES	16	/* per-line (thread, range, op) kept */

struct coherence_config {
	u32 line_size;		/* 16, 32 or 64; 0: 64 */
	u32 sets, ways;		/* per-thread cache; sets = 0: unbounded */
};

/* Counts of one thread, one line, or the whole trace. */
struct coherence_counts {
	u64 accesses, loads, stores;
	u64 hits, upgrades;		/* upgrades are stores that hit S */
	u64 cold, capacity;		/* misses that are not coherence misses */
	u64 misses;			/* coherence misses */
	u64 load_misses, store_misses;	/* of them, by the missing access */
	u64 true_sharing, false_sharing;	/* of them, by byte overlap */
	u64 invalidations;		/* copies invalidated by stores */
	u64 writebacks;			/* M copies downgraded or replaced */
};

/* One access pattern that missed on a line: who, which bytes, how often. */
struct coherence_touch {
	u32 thread;			/* thread index (in the result: tid order) */
	u8 off, len;			/* [off, off+len) within the line */
	u8 store;
	u64 count;
};

struct coherence_line {
	u64 line;			/* line address */
	u64 misses, true_sharing, false_sharing, invalidations;
	int ntouches;
	u64 touches_dropped;		/* missing accesses beyond touches[] */
	struct coherence_touch touches[COHERENCE_LINE_TOUCHES];
};

struct coherence_ref {
	u32 thread;			/* thread index */
	u8 store;
	u64 addr;
	u64 misses, true_sharing, false_sharing, invalidations;
};

/* Threads are indexed in tid order: a microbenchmark's trace tid i is T i. */
struct coherence_result {
	int nthreads;
	const u32 *tids;		/* [nthreads], ascending */
	const struct coherence_counts *threads;	/* [nthreads] */
	/*
	 * n x n row-major, [from * n + to], not symmetrized: misses from the
	 * last writer to the missing thread; invalidations writer -> victim
	 */
	const u64 *miss_all, *miss_true, *miss_false, *inval;
	struct coherence_counts total;
	/* lines with a coherence miss or an invalidation, by misses, then invalidations */
	int nlines;
	const struct coherence_line *lines;
	/* references with a coherence miss or an invalidation, by misses */
	int nrefs;
	const struct coherence_ref *refs;
};

struct coherence;

/* 0, -EINVAL (bad geometry) or -ENOMEM. @cfg may be NULL (defaults). */
int coherence__new(struct coherence **cp, const struct coherence_config *cfg);
void coherence__delete(struct coherence *c);

/*
 * One access of thread @tid (any number). 0, -E2BIG past
 * COHERENCE_MAX_THREADS threads, -ENOMEM.
 */
int coherence__access(struct coherence *c, u32 tid, int store, u64 addr, u32 size);

/*
 * The counts so far; owned by @c, valid until the next call or
 * coherence__delete. 0 or -ENOMEM.
 */
int coherence__result(struct coherence *c, const struct coherence_result **res);

#endif
