// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>

#include "core/tidmap.h"

static u32 tid_hash(u32 tid)
{
	u64 x = tid;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return (u32)x;
}

int lp_tidmap__set(struct lp_tidmap *m, u32 tid, u32 idx)
{
	u32 mask, h, i;

	if ((m->n + 1) * 2 > m->cap) {	/* keep it at most half full */
		u32 cap = m->cap ? m->cap * 2 : 64, ocap = m->cap;
		struct lp_tidmap_entry *old = m->v, *v = calloc(cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		m->v = v;
		m->cap = cap;
		m->n = 0;
		for (i = 0; i < ocap; i++)
			if (old[i].used)
				lp_tidmap__set(m, old[i].tid, old[i].idx);
		free(old);
	}
	mask = m->cap - 1;
	for (h = tid_hash(tid) & mask; m->v[h].used; h = (h + 1) & mask) {
		if (m->v[h].tid == tid) {	/* tid reused by a new thread */
			m->v[h].idx = idx;
			return 0;
		}
	}
	m->v[h] = (struct lp_tidmap_entry){ tid, idx, 1 };
	m->n++;
	return 0;
}

int lp_tidmap__get(const struct lp_tidmap *m, u32 tid, u32 *idx)
{
	u32 mask = m->cap - 1, h;

	if (!m->cap)
		return 0;
	for (h = tid_hash(tid) & mask; m->v[h].used; h = (h + 1) & mask) {
		if (m->v[h].tid == tid) {
			*idx = m->v[h].idx;
			return 1;
		}
	}
	return 0;
}

void lp_tidmap__exit(struct lp_tidmap *m)
{
	free(m->v);
	m->v = NULL;
	m->n = m->cap = 0;
}
