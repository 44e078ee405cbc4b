/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Use -> reuse pairs of instructions from a full trace that names the
 * instruction of each access (valgrind lackey's I lines): the exact
 * counterpart of the pairs the sampled analysis finds with watchpoints.
 * For each key (line or address, as the engine's granularity), the
 * instruction of its latest access; each reuse the engine reports counts
 * once for (that instruction, this one). A pure consumer of the engine's
 * per-access results (struct reuse_exact_res).
 *
 *   struct reuse_xpairs *xp = reuse_xpairs__new(cache_lines, ncaches);
 *   reuse_exact__access(re, tid, addr, is_store, &res);
 *   reuse_xpairs__access(xp, key, addr, ip, &res);
 *   reuse_xpairs__sorted(xp, &pairs, &n);	// at the end, most first
 *   d = reuse_xpairs__dist(xp);		// d[i]: pairs[i]'s distances
 *   reuse_xpairs__delete(xp);
 */
#ifndef LP_REUSE_EXACT_PAIRS_H
#define LP_REUSE_EXACT_PAIRS_H
#include "core/reuse.h"
#include "core/reuse-exact.h"

struct reuse_xpairs;

/* Caches a pair's reuses are counted beyond, at most. */
#define REUSE_XPAIR_LIMITS	REUSE_EXACT_LIMITS
/* Distances 0, then [2^(k-1), 2^k) for bin k, as struct reuse_hist's bins. */
#define REUSE_XPAIR_BINS	34

/* The distances (in the engine's keys) of one pair's reuses. */
struct reuse_xpair_dist {
	u32 hist[REUSE_XPAIR_BINS];	/* the last bin: 2^32 and beyond; saturating */
	u64 beyond[REUSE_XPAIR_LIMITS];	/* reuses at distance >= limit[j] */
};

/*
 * @limit[0, @nlimit): keys a reuse counts beyond (a cache's lines, which
 * a fully associative LRU cache of that size misses); @nlimit may be 0.
 * NULL when out of memory or @nlimit > REUSE_XPAIR_LIMITS.
 */
struct reuse_xpairs *reuse_xpairs__new(const u64 *limit, int nlimit);
void reuse_xpairs__delete(struct reuse_xpairs *xp);

/*
 * An access to @key (data address @addr) by the instruction at @ip (0:
 * not known), which the engine reported as @res: a reuse counts for the
 * pair (the instruction of the key's latest access, @ip), an access after
 * an invalidation as an invalidation of that pair. 0 or -ENOMEM.
 */
int reuse_xpairs__access(struct reuse_xpairs *xp, u64 key, u64 addr, u64 ip,
			 const struct reuse_exact_res *res);

/*
 * The pairs, most reuses + invalidations first, owned by @xp: at the end
 * (no access after it; it may be sorted again, by the same or another key).
 */
void reuse_xpairs__sorted(struct reuse_xpairs *xp, struct reuse_pair **v, u32 *n);

/*
 * The same, most reuses at a distance of at least limit[@beyond] first
 * (then as reuse_xpairs__sorted()); @beyond < 0: reuse_xpairs__sorted().
 */
void reuse_xpairs__sorted_by(struct reuse_xpairs *xp, int beyond, struct reuse_pair **v,
			     u32 *n);

/* After reuse_xpairs__sorted(): the distances of each pair, in its order. */
const struct reuse_xpair_dist *reuse_xpairs__dist(const struct reuse_xpairs *xp);

/* The distance bin holding the median of @d's reuses; -1 if none. */
int reuse_xpair_dist__median_bin(const struct reuse_xpair_dist *d);

#endif
