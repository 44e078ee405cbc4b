/* SPDX-License-Identifier: GPL-2.0 */
/*
 * reuse's data-object view: each sampled use attributed to the object its
 * address falls in (a tracked heap block, a static variable, else the
 * mapping), and the objects ranked by the reuse-distance mass beyond each
 * cache: sum over their uses of weight x P(miss), with P(miss) from the
 * same SDCM model as the report's hit rates (cold and invalidated uses
 * miss every cache).
 */
#ifndef LP_REUSE_OBJECTS_H
#define LP_REUSE_OBJECTS_H
#include "core/reuse.h"
#include "core/sdcm.h"
#include "core/symbols.h"

#define REUSE_OBJECT_CACHES 8

enum reuse_object_kind {
	REUSE_OBJ_HEAP = 1,		/* a tracked allocation */
	REUSE_OBJ_STATIC,		/* a symbol of an ELF file, a TLS variable */
	REUSE_OBJ_REGION,		/* only its mapping is known ([heap], anon...) */
};

struct reuse_object {
	u8 kind;			/* enum reuse_object_kind */
	u64 start, size;
	const struct lp_object *heap;	/* REUSE_OBJ_HEAP: the block (call path) */
	char label[320];		/* lp_dataobj.label */
	u64 detections;			/* uses of it that were decided */
	double uses;			/* their weight */
	double cold, inval;		/* weight of uses never reused, invalidated */
	double beyond[REUSE_OBJECT_CACHES];	/* weight x P(miss) per cache */
};

/*
 * The objects of @res's uses, by beyond[@ncaches - 1] (the largest cache)
 * descending, then by uses; with no cache, by uses. *@out is malloc'd
 * (free it). 0; -ENODATA when no use's address is in a known mapping or
 * block (objects not available: a trace without mappings, no uses);
 * -ENOMEM.
 */
int reuse__objects(const struct reuse_result *res, struct lp_symbols *syms,
		   const struct sdcm_cache *caches, int ncaches, struct reuse_object **out,
		   int *n);

/* One key's exact counts (core/reuse-exact-objects.h). */
struct reuse_xobj_key {
	u64 addr;			/* its first access's data address */
	u64 accesses;
	u64 cold;			/* first accesses */
	u64 inval;			/* accesses after an invalidation */
	u64 beyond[REUSE_OBJECT_CACHES];	/* misses of a fully associative LRU cache */
};

/*
 * The same from exact counts: @k[0, @nk) grouped by the object of process
 * @pid holding each key's address; uses, detections: accesses; beyond[j]:
 * the keys' beyond[j] (@ncaches of them), the ranking as reuse__objects().
 */
int reuse__objects_exact(const struct reuse_xobj_key *k, size_t nk, struct lp_symbols *syms,
			 u32 pid, int ncaches, struct reuse_object **out, int *n);

#endif
