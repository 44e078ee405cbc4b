// SPDX-License-Identifier: GPL-2.0
/* comdetect's data-object view (comdetect-objects.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/comdetect-objects.h"
#include "core/hash.h"

static int same_object(const struct comdetect_object *o, const struct lp_dataobj *d, u8 kind)
{
	if (o->kind != kind)
		return 0;
	if (kind == COMDETECT_OBJ_HEAP)
		return o->heap == d->heap;
	return o->start == d->start && !strcmp(o->label, d->label);
}

/* Index of @d's object in *@v, added if new; -1 when out of memory. */
static int find_or_add(struct comdetect_object **v, int *n, size_t *cap,
		       const struct lp_dataobj *d, u8 kind)
{
	struct comdetect_object *o;
	int i;

	for (i = 0; i < *n; i++)
		if (same_object(&(*v)[i], d, kind))
			return i;
	if (lp_grow((void **)v, *n, cap, sizeof(**v), 16))
		return -1;
	o = &(*v)[(*n)++];
	memset(o, 0, sizeof(*o));
	o->kind = kind;
	o->start = d->start;
	o->size = d->size;
	o->heap = d->heap;
	o->off_lo = ~0u;
	o->points = NULL;
	snprintf(o->label, sizeof(o->label), "%s", d->label);
	return *n - 1;
}

/* Algorithm R over the points offered to @o; @rng a splitmix64 state. */
static int add_point(struct comdetect_object *o, const struct comdetect_object_point *p, u64 *rng)
{
	u64 j;

	o->points_seen++;
	if (!o->points) {
		o->points = malloc(COMDETECT_OBJECT_POINTS * sizeof(*o->points));
		if (!o->points)
			return -ENOMEM;
	}
	if (o->npoints < COMDETECT_OBJECT_POINTS) {
		o->points[o->npoints++] = *p;
		return 0;
	}
	j = lp_splitmix64(rng) % o->points_seen;
	if (j < COMDETECT_OBJECT_POINTS)
		o->points[j] = *p;
	return 0;
}

/* The object (index in @v) of @addr, added if new; -1 when out of memory. */
static int object_of(struct comdetect_object **v, int *n, size_t *cap, struct lp_symbols *syms,
		     u32 pid, u64 addr, u64 line)
{
	struct lp_dataobj d;

	if (symbols__data(syms, pid, addr, &d)) {
		memset(&d, 0, sizeof(d));
		snprintf(d.label, sizeof(d.label), "unknown");
		d.start = line;
	}
	return find_or_add(v, n, cap, &d, d.heap ? COMDETECT_OBJ_HEAP : d.name ?
			   COMDETECT_OBJ_STATIC : COMDETECT_OBJ_REGION);
}

/* The line's points, each to the object its offset falls in (@at[off]). */
static int line_points(const struct comdetect_line *l, struct comdetect_object **v, int *n,
		       size_t *cap, struct lp_symbols *syms, u32 pid, int *at, u64 *rng)
{
	int i, seen[COMDETECT_LINE_POINTS], nseen = 0, j;

	for (i = 0; i < l->npoints; i++) {
		const struct comdetect_point *p = &l->points[i];
		struct comdetect_object_point op;
		struct comdetect_object *o;

		if (at[p->off] < 0 &&
		    (at[p->off] = object_of(v, n, cap, syms, pid, l->line + p->off, l->line)) < 0)
			return -ENOMEM;
		o = &(*v)[at[p->off]];
		op = (struct comdetect_object_point){ .time = p->time, .thread = p->thread,
			.off = l->line + p->off - o->start, .len = p->len, .kind = p->kind };
		if (add_point(o, &op, rng))
			return -ENOMEM;
		for (j = 0; j < nseen && seen[j] != at[p->off]; j++)
			;
		if (j == nseen) {	/* the line's sampled accesses, once per object */
			seen[nseen++] = at[p->off];
			o->line_points_seen += l->points_seen;
		}
	}
	return 0;
}

void comdetect__objects_free(struct comdetect_object *v, int n)
{
	int i;

	for (i = 0; v && i < n; i++)
		free(v[i].points);
	free(v);
}

static int by_volume(const void *pa, const void *pb)
{
	const struct comdetect_object *a = pa, *b = pb;
	double va = a->vol_true + a->vol_false, vb = b->vol_true + b->vol_false;

	return va < vb ? 1 : va > vb ? -1 : (a->start > b->start) - (a->start < b->start);
}

int comdetect__objects(const struct comdetect_result *res, struct lp_symbols *syms, u32 pid,
		       struct comdetect_object **out, int *n)
{
	struct comdetect_object *v = NULL;
	int i, k, j, nv = 0;
	size_t cap = 0;
	u64 rng = 0x5eed;		/* the same picture for the same result */

	for (i = 0; i < res->nlines; i++) {
		const struct comdetect_line *l = &res->lines[i];
		int seen[COMDETECT_LINE_TOUCHES], at_off[256];
		int nseen = 0;
		u64 total = 0;

		for (k = 0; k < 256; k++)
			at_off[k] = -1;
		for (k = 0; k < l->ntouches; k++)
			total += l->touches[k].count;
		for (k = 0; k < l->ntouches && total; k++) {
			const struct comdetect_touch *t = &l->touches[k];
			double w = (double)t->count / total;
			struct comdetect_object *o;
			int at;
			u64 off;

			at = at_off[t->off] >= 0 ? at_off[t->off] :
			     object_of(&v, &nv, &cap, syms, pid, l->line + t->off, l->line);
			if (at < 0)
				goto out_nomem;
			at_off[t->off] = at;
			o = &v[at];
			o->vol_true += w * l->vol_true;
			o->vol_false += w * l->vol_false;
			if (t->thread < 64 && !(o->threads & 1ull << t->thread)) {
				o->threads |= 1ull << t->thread;
				o->nthreads++;
			} else if (t->thread >= 64) {
				o->nthreads++;	/* beyond the mask: may count one twice */
			}
			if (t->src == COMDETECT_SRC_SAMPLE) {
				if (t->kind == LP_ACCESS_LOAD)
					o->loads += t->count;
				else if (t->kind == LP_ACCESS_STORE)
					o->stores += t->count;
				else if (t->kind == LP_ACCESS_ATOMIC)
					o->atomics += t->count;
			}
			off = l->line + t->off - o->start;
			if (off < o->off_lo)
				o->off_lo = off;
			if (off + t->len - 1 > o->off_hi)
				o->off_hi = off + t->len - 1;
			for (j = 0; j < nseen && seen[j] != at; j++)
				;
			if (j == nseen) {	/* a line counts once per object */
				seen[nseen++] = at;
				o->nlines++;
			}
		}
		if (total && line_points(l, &v, &nv, &cap, syms, pid, at_off, &rng))
			goto out_nomem;
	}
	if (nv)
		qsort(v, nv, sizeof(*v), by_volume);
	*out = v;
	*n = nv;
	return 0;
out_nomem:
	comdetect__objects_free(v, nv);
	return -ENOMEM;
}
