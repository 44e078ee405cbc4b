// SPDX-License-Identifier: GPL-2.0
/*
 * Heap objects (objects.h). Every 4 KiB page a block covers points to it
 * (a chain per page in one map); blocks of more than LARGE_PAGES pages go
 * on one list instead, so a huge block costs one entry, not thousands.
 * A block allocated where a freed one of the same pages started takes over
 * its entry: a malloc/free loop at one address keeps one entry, not a
 * chain as long as the loop (lookups at a time before the latest reuse of
 * an address lose that older block).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/hash.h"
#include "core/objects.h"

#define PAGE_SHIFT 12
#define LARGE_PAGES 64

struct node {
	u32 obj;
	u32 next;		/* index + 1, 0 ends the chain */
};

struct lp_objects {
	struct lp_object *v;
	u32 n;
	size_t cap;
	struct node *nodes;
	u32 nnodes;
	size_t capnodes;
	struct lp_map pages;	/* (pid, page) -> first node + 1 */
	struct lp_map live;	/* (pid, start) -> live block + 1 */
	struct lp_map freed;	/* (pid, start) -> latest freed block there + 1 */
	u32 *large;		/* objects of more than LARGE_PAGES pages */
	u32 nlarge;
	size_t caplarge;
};

struct lp_objects *objects__new(void)
{
	return calloc(1, sizeof(struct lp_objects));
}

void objects__delete(struct lp_objects *o)
{
	if (!o)
		return;
	free(o->v);
	free(o->nodes);
	free(o->large);
	lp_map__exit(&o->pages);
	lp_map__exit(&o->live);
	lp_map__exit(&o->freed);
	free(o);
}

static u64 page_key(u32 pid, u64 page)
{
	return page | (u64)pid << 40;
}

/* Blocks start 16-byte aligned; the pid's low bits: a hit is checked. */
static u64 start_key(u32 pid, u64 start)
{
	return start >> 4 | (u64)(pid & 0x1fffff) << 43;
}

/* The block + 1 that @m holds for (@pid, @start), or 0. */
static u32 by_start(const struct lp_objects *o, const struct lp_map *m, u32 pid, u64 start)
{
	u64 v;

	if (!lp_map__get(m, start_key(pid, start), &v) || !v)
		return 0;
	return o->v[v - 1].pid == pid && o->v[v - 1].start == start ? (u32)v : 0;
}

static void fill(struct lp_object *b, const struct lp_alloc *a, u32 id)
{
	memset(b, 0, sizeof(*b));
	b->start = a->addr;
	b->size = a->size;
	b->time = a->time;
	b->end = ~0ull;
	b->pid = a->pid;
	b->tid = a->tid;
	b->fn = a->fn;
	b->nframes = a->nframes > LP_ALLOC_MAX_FRAMES ? LP_ALLOC_MAX_FRAMES : a->nframes;
	memcpy(b->frames, a->frames, sizeof(b->frames));
	b->id = id;
}

static int link_page(struct lp_objects *o, u32 pid, u64 page, u32 obj)
{
	u64 *head = lp_map__slot(&o->pages, page_key(pid, page));

	if (!head || lp_grow((void **)&o->nodes, o->nnodes, &o->capnodes, sizeof(*o->nodes), 256))
		return -ENOMEM;
	o->nodes[o->nnodes] = (struct node){ obj, (u32)*head };
	*head = ++o->nnodes;
	return 0;
}

int objects__alloc(struct lp_objects *o, const struct lp_alloc *a)
{
	u64 size = a->size ? a->size : 1, first = a->addr >> PAGE_SHIFT;
	u64 last = (a->addr + size - 1) >> PAGE_SHIFT, p;
	u32 id = o->n, r = by_start(o, &o->live, a->pid, a->addr);
	int err;

	/*
	 * Allocated where a live block starts: the same block reported again
	 * by the allocator that called the first (operator new's malloc), or a
	 * free not seen. The later report is the block; the other one ends.
	 */
	if (r) {
		struct lp_object *old = &o->v[r - 1];
		u64 oend = old->start + (old->size ? old->size : 1) - 1;

		if (oend >> PAGE_SHIFT == last && last - first < LARGE_PAGES) {
			fill(old, a, r - 1);
			return 0;
		}
		old->end = a->time;
		if (lp_map__put(&o->live, start_key(a->pid, a->addr), 0))
			return -ENOMEM;
	}
	r = by_start(o, &o->freed, a->pid, a->addr);
	if (r) {
		const struct lp_object *old = &o->v[r - 1];
		u64 oend = old->start + (old->size ? old->size : 1) - 1;

		/* same pages: its page links (or large entry) serve the new block */
		if (oend >> PAGE_SHIFT == last && last - first < LARGE_PAGES) {
			fill(&o->v[r - 1], a, r - 1);
			if (lp_map__put(&o->freed, start_key(a->pid, a->addr), 0) ||
			    lp_map__put(&o->live, start_key(a->pid, a->addr), r))
				return -ENOMEM;
			return 0;
		}
	}
	if (lp_grow((void **)&o->v, o->n, &o->cap, sizeof(*o->v), 256))
		return -ENOMEM;
	fill(&o->v[o->n++], a, id);
	if (lp_map__put(&o->live, start_key(a->pid, a->addr), id + 1))
		return -ENOMEM;
	if (last - first >= LARGE_PAGES) {
		if (lp_grow((void **)&o->large, o->nlarge, &o->caplarge, sizeof(*o->large), 256))
			return -ENOMEM;
		o->large[o->nlarge++] = id;
		return 0;
	}
	for (p = first; p <= last; p++) {
		err = link_page(o, a->pid, p, id);
		if (err)
			return err;
	}
	return 0;
}

static int holds(const struct lp_object *b, u32 pid, u64 addr)
{
	return b->pid == pid && addr >= b->start && addr - b->start < (b->size ? b->size : 1);
}

/* Is @b the better answer than @best for a lookup at @time? */
static int better(const struct lp_object *b, const struct lp_object *best, u64 time)
{
	if (time && (b->time > time || b->end <= time))
		return 0;
	return !best || b->time > best->time || (b->time == best->time && b->id > best->id);
}

const struct lp_object *objects__find(const struct lp_objects *o, u32 pid, u64 addr,
				      u64 time)
{
	const struct lp_object *best = NULL;
	u64 head;
	u32 i;

	if (lp_map__get(&o->pages, page_key(pid, addr >> PAGE_SHIFT), &head))
		for (i = (u32)head; i; i = o->nodes[i - 1].next) {
			const struct lp_object *b = &o->v[o->nodes[i - 1].obj];

			if (holds(b, pid, addr) && better(b, best, time))
				best = b;
		}
	for (i = 0; i < o->nlarge; i++) {
		const struct lp_object *b = &o->v[o->large[i]];

		if (holds(b, pid, addr) && better(b, best, time))
			best = b;
	}
	return best;
}

int objects__free(struct lp_objects *o, const struct lp_alloc *a)
{
	/* only a live block that starts there: free(p) of another p is not ours */
	u32 r = by_start(o, &o->live, a->pid, a->addr);
	struct lp_object *b = r ? &o->v[r - 1] : NULL;

	if (!b || b->end != ~0ull || b->time > a->time)
		return 0;
	b->end = a->time;
	if (lp_map__put(&o->live, start_key(a->pid, a->addr), 0) ||
	    lp_map__put(&o->freed, start_key(a->pid, a->addr), r))
		return -ENOMEM;
	return 0;
}

const struct lp_object *objects__get(const struct lp_objects *o, u32 id)
{
	return id < o->n ? &o->v[id] : NULL;
}

u32 objects__count(const struct lp_objects *o)
{
	return o->n;
}
