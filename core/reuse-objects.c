// SPDX-License-Identifier: GPL-2.0
/* reuse's data-object view (reuse-objects.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/hash.h"
#include "core/reuse-objects.h"

struct objs {
	struct reuse_object *v;
	int n;
	size_t cap;
	struct lp_map idx;	/* kind << 62 | start -> index + 1 */
	int ncaches;		/* sort key: beyond[ncaches - 1] */
};

/* The object of @d, added if new; NULL when out of memory. */
static struct reuse_object *object_get(struct objs *o, const struct lp_dataobj *d)
{
	u8 kind = d->heap ? REUSE_OBJ_HEAP : d->name ? REUSE_OBJ_STATIC : REUSE_OBJ_REGION;
	u64 key = (u64)kind << 62 ^ d->start, at;
	struct reuse_object *x;

	if (lp_map__get(&o->idx, key, &at) && at)
		return &o->v[at - 1];
	if (lp_grow((void **)&o->v, o->n, &o->cap, sizeof(*o->v), 16))
		return NULL;
	if (lp_map__put(&o->idx, key, o->n + 1))
		return NULL;
	x = &o->v[o->n++];
	memset(x, 0, sizeof(*x));
	x->kind = kind;
	x->start = d->start;
	x->size = d->size;
	x->heap = d->heap;
	snprintf(x->label, sizeof(x->label), "%s", d->label);
	return x;
}

/*
 * The object of process @pid holding @addr, added if new; NULL when no
 * mapping holds it (*@err 0) or out of memory (*@err -ENOMEM, @o freed).
 */
static struct reuse_object *object_at(struct objs *o, struct lp_symbols *syms, u32 pid,
				      u64 addr, int *err)
{
	struct reuse_object *x;
	struct lp_dataobj d;

	*err = 0;
	if (!syms || symbols__data(syms, pid, addr, &d))
		return NULL;
	x = object_get(o, &d);
	if (!x) {
		free(o->v);
		lp_map__exit(&o->idx);
		*err = -ENOMEM;
	}
	return x;
}

/* P(miss) in cache @c of a use with stack distance @lines (distinct lines). */
static double miss_prob(const struct sdcm_cache *c, double lines)
{
	u64 blocks = c->line ? c->size / c->line : c->size / LP_CACHE_LINE;
	double hit;

	if (sdcm__hit_prob((u64)llround(lines), c->ways ? c->ways : blocks, blocks, &hit))
		return NAN;
	return 1 - hit;
}

static int by_mass(const void *pa, const void *pb, void *arg)
{
	const struct reuse_object *a = pa, *b = pb;
	const struct objs *o = arg;
	double ka = o->ncaches ? a->beyond[o->ncaches - 1] : a->uses;
	double kb = o->ncaches ? b->beyond[o->ncaches - 1] : b->uses;

	if (ka != kb)
		return ka < kb ? 1 : -1;
	if (a->uses != b->uses)
		return a->uses < b->uses ? 1 : -1;
	return (a->start > b->start) - (a->start < b->start);
}

/* @o's objects ranked into *@out (*@n of them); -ENODATA when none. */
static int objs_done(struct objs *o, struct reuse_object **out, int *n)
{
	lp_map__exit(&o->idx);
	if (!o->n) {
		free(o->v);
		return -ENODATA;
	}
	qsort_r(o->v, o->n, sizeof(*o->v), by_mass, o);
	*out = o->v;
	*n = o->n;
	return 0;
}

int reuse__objects(const struct reuse_result *res, struct lp_symbols *syms,
		   const struct sdcm_cache *caches, int ncaches, struct reuse_object **out,
		   int *n)
{
	/* address distances in lines, as reuse_model__line_hist: dense data */
	double per_line = res->gran == REUSE_GRAN_LINE || !(res->mean_access_size > 0) ? 1 :
			  res->mean_access_size / LP_CACHE_LINE;
	struct objs o = { .ncaches = ncaches < REUSE_OBJECT_CACHES ? ncaches : REUSE_OBJECT_CACHES };
	size_t i;
	int c, err;

	*out = NULL;
	*n = 0;
	for (i = 0; i < res->nuses; i++) {
		const struct reuse_use *u = &res->uses[i];
		struct reuse_object *x = object_at(&o, syms, u->pid, u->addr, &err);

		if (err)
			return err;
		if (!x)
			continue;	/* in no mapping: not attributed */
		x->detections++;
		x->uses += u->w;
		if (u->kind == REUSE_USE_COLD)
			x->cold += u->w;
		else if (u->kind == REUSE_USE_INVAL)
			x->inval += u->w;
		for (c = 0; c < o.ncaches; c++) {
			double p = u->kind == REUSE_USE_REUSE ?
				   miss_prob(&caches[c], u->stack * per_line) : 1;

			if (isfinite(p))
				x->beyond[c] += u->w * p;
		}
	}
	return objs_done(&o, out, n);
}

int reuse__objects_exact(const struct reuse_xobj_key *k, size_t nk, struct lp_symbols *syms,
			 u32 pid, int ncaches, struct reuse_object **out, int *n)
{
	struct objs o = { .ncaches = ncaches < REUSE_OBJECT_CACHES ? ncaches : REUSE_OBJECT_CACHES };
	size_t i;
	int c, err;

	*out = NULL;
	*n = 0;
	for (i = 0; i < nk; i++) {
		struct reuse_object *x = object_at(&o, syms, pid, k[i].addr, &err);

		if (err)
			return err;
		if (!x)
			continue;	/* in no mapping: not attributed */
		x->detections += k[i].accesses;
		x->uses += (double)k[i].accesses;
		x->cold += (double)k[i].cold;
		x->inval += (double)k[i].inval;
		for (c = 0; c < o.ncaches; c++)
			x->beyond[c] += (double)k[i].beyond[c];
	}
	return objs_done(&o, out, n);
}
