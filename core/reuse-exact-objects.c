// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>

#include "core/grow.h"
#include "core/hash.h"
#include "core/reuse-exact-objects.h"

struct reuse_xobjs {
	struct lp_map idx;		/* key -> index + 1 in v */
	struct reuse_xobj_key *v;
	size_t n, cap;
	struct reuse_exact_limits lim;
};

_Static_assert(REUSE_OBJECT_CACHES >= REUSE_EXACT_LIMITS, "a key's beyond[] holds every limit");

struct reuse_xobjs *reuse_xobjs__new(const u64 *limit, int nlimit)
{
	struct reuse_xobjs *xo = calloc(1, sizeof(*xo));

	if (xo && reuse_exact_limits__set(&xo->lim, limit, nlimit)) {
		free(xo);
		xo = NULL;
	}
	return xo;
}

void reuse_xobjs__delete(struct reuse_xobjs *xo)
{
	if (!xo)
		return;
	lp_map__exit(&xo->idx);
	free(xo->v);
	free(xo);
}

int reuse_xobjs__access(struct reuse_xobjs *xo, u64 key, u64 addr,
			const struct reuse_exact_res *res)
{
	struct reuse_xobj_key *k;
	u64 *slot;

	if (res->kind == REUSE_EXACT_SKIPPED)
		return 0;
	slot = lp_map__slot(&xo->idx, key);
	if (!slot)
		return -ENOMEM;
	if (!*slot) {
		if (lp_grow((void **)&xo->v, xo->n, &xo->cap, sizeof(*xo->v), 1024))
			return -ENOMEM;
		xo->v[xo->n] = (struct reuse_xobj_key){ .addr = addr };
		*slot = ++xo->n;
	}
	k = &xo->v[*slot - 1];
	k->accesses++;
	k->cold += res->kind == REUSE_EXACT_COLD;
	k->inval += res->kind == REUSE_EXACT_INVAL;
	/* a first access and one after an invalidation miss every cache */
	reuse_exact_limits__count(&xo->lim, res->dist, res->kind != REUSE_EXACT_REUSE, k->beyond);
	return 0;
}

int reuse_xobjs__key(const struct reuse_xobjs *xo, u64 key, struct reuse_xobj_key *out)
{
	u64 i;

	if (!lp_map__get(&xo->idx, key, &i) || !i)
		return -ENOENT;
	*out = xo->v[i - 1];
	return 0;
}

int reuse_xobjs__objects(const struct reuse_xobjs *xo, struct lp_symbols *syms, u32 pid,
			 struct reuse_object **out, int *n)
{
	return reuse__objects_exact(xo->v, xo->n, syms, pid, xo->lim.n, out, n);
}
