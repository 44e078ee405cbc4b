// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>

#include "core/hash.h"

static struct lp_map_slot *map_find(const struct lp_map *m, u64 key)
{
	u32 mask = m->cap - 1, h;

	for (h = lp_hash64(key) & mask; m->v[h].used; h = (h + 1) & mask)
		if (m->v[h].key == key)
			break;
	return &m->v[h];
}

static int map_grow(struct lp_map *m)
{
	u32 cap = m->cap ? m->cap * 2 : 64, i;
	struct lp_map old = *m;

	m->v = calloc(cap, sizeof(*m->v));
	if (!m->v) {
		*m = old;
		return -ENOMEM;
	}
	m->cap = cap;
	for (i = 0; i < old.cap; i++)
		if (old.v[i].used)
			*map_find(m, old.v[i].key) = old.v[i];
	free(old.v);
	return 0;
}

u64 *lp_map__slot(struct lp_map *m, u64 key)
{
	struct lp_map_slot *s;

	if ((m->n + 1) * 2 > m->cap && map_grow(m))
		return NULL;
	s = map_find(m, key);
	if (!s->used) {
		*s = (struct lp_map_slot){ key, 0, 1 };
		m->n++;
	}
	return &s->val;
}

int lp_map__put(struct lp_map *m, u64 key, u64 val)
{
	u64 *v = lp_map__slot(m, key);

	if (!v)
		return -ENOMEM;
	*v = val;
	return 0;
}

int lp_map__get(const struct lp_map *m, u64 key, u64 *val)
{
	const struct lp_map_slot *s;

	if (!m->cap)
		return 0;
	s = map_find(m, key);
	if (!s->used)
		return 0;
	*val = s->val;
	return 1;
}

void lp_map__exit(struct lp_map *m)
{
	free(m->v);
	*m = (struct lp_map){ 0 };
}
