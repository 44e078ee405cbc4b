/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Heap objects: each allocation (LP_EV_ALLOC) as an address range with its
 * size, thread, time and call path, retired by its free (LP_EV_FREE). A
 * freed range stays known, so an address can be looked up at a time (the
 * block live then) or without one (the latest block allocated there: a
 * reused address belongs to the later allocation). A block allocated where
 * a freed one started, over the same pages, takes over its entry: the
 * table grows with distinct addresses, not with allocations.
 */
#ifndef LP_OBJECTS_H
#define LP_OBJECTS_H
#include "core/event.h"

struct lp_objects;

struct lp_object {
	u64 start, size;
	u64 time;		/* allocated */
	u64 end;		/* freed, ~0 while live */
	u32 pid, tid;
	u8 fn;			/* enum lp_alloc_fn */
	u8 nframes;
	u64 frames[LP_ALLOC_MAX_FRAMES];	/* return addresses, innermost first */
	u32 id;			/* index of its entry (objects__get) */
};

struct lp_objects *objects__new(void);
void objects__delete(struct lp_objects *o);

/* Add a block (LP_EV_ALLOC), retire one (LP_EV_FREE). 0 or -ENOMEM. */
int objects__alloc(struct lp_objects *o, const struct lp_alloc *a);
int objects__free(struct lp_objects *o, const struct lp_alloc *a);

/*
 * The block of process @pid holding @addr: live at @time, or with @time 0
 * the latest allocated there. NULL if none. Valid until the next change.
 */
const struct lp_object *objects__find(const struct lp_objects *o, u32 pid, u64 addr,
				      u64 time);
/* Object @id (lp_object.id), NULL if out of range. */
const struct lp_object *objects__get(const struct lp_objects *o, u32 id);
u32 objects__count(const struct lp_objects *o);

#endif
