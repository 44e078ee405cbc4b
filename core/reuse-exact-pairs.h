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
 *   struct reuse_xpairs *xp = reuse_xpairs__new();
 *   reuse_exact__access(re, tid, addr, is_store, &res);
 *   reuse_xpairs__access(xp, key, addr, ip, &res);
 *   reuse_xpairs__sorted(xp, &pairs, &n);	// at the end, most first
 *   reuse_xpairs__delete(xp);
 */
#ifndef LP_REUSE_EXACT_PAIRS_H
#define LP_REUSE_EXACT_PAIRS_H
#include "core/reuse.h"
#include "core/reuse-exact.h"

struct reuse_xpairs;

struct reuse_xpairs *reuse_xpairs__new(void);
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
 * The pairs, most reuses + invalidations first, owned by @xp: once, at the
 * end (no access after it).
 */
void reuse_xpairs__sorted(struct reuse_xpairs *xp, struct reuse_pair **v, u32 *n);

#endif
