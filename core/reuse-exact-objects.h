/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Data objects from a full trace (reuse --exact): per key (line or
 * address, as the engine's granularity) its accesses, first accesses,
 * accesses after an invalidation, and the accesses a fully associative
 * LRU cache of each modelled size misses (a reuse at a distance of at
 * least its lines, a first access, an access after an invalidation); at
 * the end the keys are grouped by the object their first access touched
 * (reuse__objects_exact(), core/reuse-objects.c). A pure consumer of the
 * engine's per-access results (struct reuse_exact_res).
 *
 *   struct reuse_xobjs *xo = reuse_xobjs__new(cache_lines, ncaches);
 *   reuse_exact__access(re, tid, addr, is_store, &res);
 *   reuse_xobjs__access(xo, key, addr, &res);
 *   reuse_xobjs__objects(xo, syms, pid, &objects, &n);	// at the end
 *   reuse_xobjs__delete(xo);
 */
#ifndef LP_REUSE_EXACT_OBJECTS_H
#define LP_REUSE_EXACT_OBJECTS_H
#include "core/reuse-exact.h"
#include "core/reuse-objects.h"

struct reuse_xobjs;

/*
 * @limit[0, @nlimit): the caches' sizes in keys (lines), at most
 * REUSE_EXACT_LIMITS; @nlimit may be 0 (objects ranked by accesses).
 * NULL when out of memory or @nlimit is out of range.
 */
struct reuse_xobjs *reuse_xobjs__new(const u64 *limit, int nlimit);
void reuse_xobjs__delete(struct reuse_xobjs *xo);

/* An access to @key (data address @addr) the engine reported as @res. 0 or -ENOMEM. */
int reuse_xobjs__access(struct reuse_xobjs *xo, u64 key, u64 addr,
			const struct reuse_exact_res *res);

/* The counts of @key so far: 0, or -ENOENT when it was never accessed. */
int reuse_xobjs__key(const struct reuse_xobjs *xo, u64 key, struct reuse_xobj_key *out);

/*
 * The objects of process @pid in @syms that the keys' first accesses fell
 * in, as reuse__objects_exact(): *@out malloc'd; 0, -ENODATA (no key in a
 * known object or mapping), -ENOMEM.
 */
int reuse_xobjs__objects(const struct reuse_xobjs *xo, struct lp_symbols *syms, u32 pid,
			 struct reuse_object **out, int *n);

#endif
