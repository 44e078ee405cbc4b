/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exact reuse distance of a full access trace, O(N log M) for N accesses
 * and M distinct addresses: a bitmap over access slots holds a 1 at the
 * latest access of every address (a tree of counts over its words), a hash
 * maps address -> that slot, so the distance of a reuse is the number of
 * 1s after the previous slot. Slots are renumbered (compacted) when they
 * run out, so memory follows the number of distinct addresses, not the
 * trace length. With a sample rate, SHARDS: the same on a spatial sample.
 *
 *   struct reuse_exact *re;
 *   struct reuse_exact_opts o = { .mode = REUSE_EXACT_PER_THREAD,
 *                                 .gran = REUSE_GRAN_LINE };
 *   reuse_exact__new(&o, &re);
 *   while (...) reuse_exact__access(re, tid, addr, is_store, NULL);
 *   // or, faster: reuse_exact__access_batch(re, accs, n);
 *   reuse_exact__finish(re);
 *   for (i = 0; i < reuse_exact__nr_threads(re); i++)
 *           t = reuse_exact__thread(re, i);	// t->stack, t->time, t->mrc, counters
 *   reuse_exact__delete(re);
 *
 * Modes:
 *   REUSE_EXACT_PER_THREAD  each thread's own access stream (private caches).
 *     Intra-thread reuse and invalidation follow Sasongko 2022, Definitions 6.2.1-2:
 *     a thread's access is a reuse of its previous access to the same
 *     address unless another thread stored to it in between; that store is
 *     one invalidation (of the earlier use), and the thread's next access
 *     is counted in the `inval` bin instead of a distance. Other threads'
 *     loads change nothing. An invalidated address also leaves the thread's
 *     LRU stack (a coherent private cache drops the line), so it does not
 *     count as an intervening distinct address until the thread touches it
 *     again: distances are those of a fully associative LRU private cache
 *     with invalidation, and equal plain reuse distances when no data is
 *     written by one thread and used by another.
 *   REUSE_EXACT_SHARED  one interleaved stream in trace order, all threads
 *     (a shared cache; concurrent reuse distance of Barai et al. and Jiang et al. 2010). A reuse may
 *     be by another thread than the use (counted in cross_thread). No
 *     invalidations (one cache). Results are kept per reusing thread.
 *
 * Granularity: REUSE_GRAN_ADDR keys by exact address (size ignored),
 * REUSE_GRAN_LINE by address >> 6 (so 0x1000 and 0x1008 are one line; a
 * store invalidates the whole line, false sharing included).
 */
#ifndef LP_REUSE_EXACT_H
#define LP_REUSE_EXACT_H
#include <errno.h>

#include "core/types.h"
#include "core/reuse-hist.h"
#include "core/reuse-mrc.h"

enum reuse_exact_mode {
	REUSE_EXACT_PER_THREAD = 0,
	REUSE_EXACT_SHARED = 1,
};

struct reuse_exact_opts {
	enum reuse_exact_mode mode;
	enum reuse_gran gran;
	u32 init_slots;		/* initial time-axis slots; 0: 65536 */
	/*
	 * SHARDS (Waldspurger et al., FAST 2015): 0 or 1 for every key, else
	 * only the keys with hash(key) mod 2^24 < rate x 2^24 (a spatial
	 * sample: all accesses of a sampled key, none of the others). Each
	 * sampled distance is scaled by 1/rate (in the curve: by all keys /
	 * sampled keys, at finish) and weighs 1/rate, so the histograms and
	 * the curve estimate the full trace's.
	 */
	double sample_rate;
	/*
	 * SHARDS: the hash salt that draws the sample (0: the default). Other
	 * salts draw other, independent samples of the same rate: how much
	 * the estimate depends on which keys were drawn.
	 */
	u64 salt;
	/*
	 * SHARDS with hot keys (Carra & Neglia, USENIX ATC 2020): up to this
	 * many keys found hot on the fly (a count-min sketch over all keys,
	 * aged) are tracked exactly at weight 1, the others sampled as above
	 * at weight 1/rate; a distance is then the hot keys in between plus
	 * the sampled others x all keys / sampled keys. A key's accesses up
	 * to and including the one that makes it hot are handled as SHARDS
	 * ones (sampled or not by its hash), the later ones exactly: the
	 * estimate stays unbiased. 0: off (plain SHARDS).
	 */
	u32 hot_keys;
	/*
	 * Tests only: keep an entry's latest access time modulo 2^seq_bits
	 * (8-32; 0: 32) and the time axis below 2^(seq_bits - 1) slots, so
	 * the side table of keys idle 2^(seq_bits - 1) accesses or more is
	 * reached in thousands of accesses rather than 2^31.
	 */
	u8 seq_bits;
};

/* Results of one thread (in SHARED mode: of the accesses it made). */
struct reuse_exact_thread {
	u32 tid;
	u64 seen;		/* accesses, sampled or not */
	u64 accesses;		/* accesses processed (all, or the sampled) */
	u64 reuses;		/* accesses with a finite distance */
	u64 cold;		/* first access to the address */
	u64 inval_misses;	/* access after its use was invalidated */
	u64 invalidated;	/* uses of this thread invalidated by others */
	u64 invalidations;	/* uses of others this thread's stores invalidated */
	u64 cross_thread;	/* SHARED: reuses of another thread's use */
	u64 hot;		/* SHARDS with hot keys: accesses tracked as hot (weight 1) */
	struct reuse_hist stack;	/* REUSE_STACK */
	struct reuse_hist time;		/* REUSE_TIME */
	struct reuse_mrc mrc;		/* stack distances, finer bins */
};

struct reuse_exact;

/* -EINVAL on a bad mode, granularity or sample rate, -ENOMEM. */
int reuse_exact__new(const struct reuse_exact_opts *opts,
		     struct reuse_exact **rep);
void reuse_exact__delete(struct reuse_exact *re);

enum reuse_exact_kind {
	REUSE_EXACT_COLD = 0,
	REUSE_EXACT_INVAL = 1,	/* previous use was invalidated */
	REUSE_EXACT_REUSE = 2,
	REUSE_EXACT_SKIPPED = 3,	/* SHARDS: the key is not sampled */
};

/* What one access was (for attribution to code or data). */
struct reuse_exact_res {
	enum reuse_exact_kind kind;
	u64 dist;		/* REUSE: stack distance */
	u64 time;		/* REUSE: time distance */
};

/*
 * The cache sizes, in keys (a cache's lines), that the per-access
 * consumers of the results (exact pairs, exact objects) count accesses
 * beyond: what a fully associative LRU cache of that size misses.
 */
#define REUSE_EXACT_LIMITS	8
struct reuse_exact_limits {
	u64 v[REUSE_EXACT_LIMITS];
	int n;
};

/* @l = @limit[0, @n): 0, or -EINVAL when @n is not in [0, REUSE_EXACT_LIMITS]. */
static inline int reuse_exact_limits__set(struct reuse_exact_limits *l, const u64 *limit, int n)
{
	int j;

	if (n < 0 || n > REUSE_EXACT_LIMITS)
		return -EINVAL;
	for (j = 0; j < n; j++)
		l->v[j] = limit[j];
	l->n = n;
	return 0;
}

/* beyond[j] += 1 for each limit @miss or @dist reaches. */
static inline void reuse_exact_limits__count(const struct reuse_exact_limits *l, u64 dist,
					     int miss, u64 *beyond)
{
	int j;

	for (j = 0; j < l->n; j++)
		beyond[j] += miss || dist >= l->v[j];
}

/*
 * One access, in trace order; @res (may be NULL) says what it was (with
 * SHARDS: kind COLD and distance 0 for an access not sampled, distances
 * scaled).
 * 0, -ENOMEM, or -EOVERFLOW (> 2^30 live addresses in one stream).
 * After an error the object can only be deleted.
 */
int reuse_exact__access(struct reuse_exact *re, u32 tid, u64 addr,
			int is_store, struct reuse_exact_res *res);

/*
 * The instruction sets the batch path may use, at most: 0 nothing beyond
 * x86-64, 1 popcnt, 2 AVX2 (with BMI1, BMI2 and LZCNT, which every CPU
 * with AVX2 has), 3 AVX-512; -1: all the CPU has (the default).
 * The level in use is returned. Every level gives the same results (the
 * unit tests compare them); this is for those tests and the bench.
 */
int reuse_exact__isa(int max);

/* One access of a batch. */
struct reuse_exact_acc {
	u64 addr;
	u32 tid;
	u32 is_store;
};

/*
 * @n accesses in trace order, as many reuse_exact__access() calls, only
 * faster: the key table lookups of later accesses are prefetched. Same
 * errors.
 */
int reuse_exact__access_batch(struct reuse_exact *re,
			      const struct reuse_exact_acc *v, size_t n);

/*
 * After the last access. SHARDS only (a no-op when exact): the sampled
 * accesses of a thread are rarely its accesses x the share of keys
 * sampled (a hot key in or out of the sample swings them), and the
 * difference is mostly hot short reuses, so it goes to distance 0
 * (SHARDS_adj, Waldspurger et al. 2015, 4.2). The share is the distinct
 * keys sampled over all distinct keys (a HyperLogLog estimate), not the
 * nominal rate: the sample of keys is itself off by a few percent, which
 * moves no mass to distance 0. The curve's bin 0 may go below 0 (the miss
 * ratio is cut at 1); the histograms give a surplus only as far as their
 * distance-0 bins hold it. Idempotent.
 */
void reuse_exact__finish(struct reuse_exact *re);
/* (finish also adds the sampled reuses to the curve: read it after.) */

/* SHARDS, after finish: distinct keys sampled, all distinct keys (estimated). */
int reuse_exact__sample_keys(const struct reuse_exact *re, u64 *sampled, double *est);

/*
 * SHARDS with hot keys: keys found hot (tracked exactly) and the accesses
 * seen (all threads) when the first and the last of them became hot.
 * -EINVAL when hot keys are off.
 */
int reuse_exact__hot_keys(const struct reuse_exact *re, u64 *nkeys, u64 *first, u64 *last);

/* The rate keys are sampled at (the one applied, a multiple of 2^-24); 1: exact. */
double reuse_exact__sample_rate(const struct reuse_exact *re);

/* Threads in order of first appearance. */
int reuse_exact__nr_threads(const struct reuse_exact *re);
const struct reuse_exact_thread *reuse_exact__thread(const struct reuse_exact *re,
						     int i);
/* Sum over all threads (tid = 0). */
void reuse_exact__sum(const struct reuse_exact *re,
		      struct reuse_exact_thread *sum);

#endif
