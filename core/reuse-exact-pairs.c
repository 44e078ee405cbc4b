// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>

#include "core/hash.h"
#include "core/reuse-exact-pairs.h"

struct reuse_xpairs {
	struct lp_map last;	/* key -> ip of its latest access */
	struct lp_map idx;	/* mix of (use ip, reuse ip) -> index + 1 in v */
	struct reuse_pair *v;
	u32 n, cap;
};

struct reuse_xpairs *reuse_xpairs__new(void)
{
	return calloc(1, sizeof(struct reuse_xpairs));
}

void reuse_xpairs__delete(struct reuse_xpairs *xp)
{
	if (!xp)
		return;
	lp_map__exit(&xp->last);
	lp_map__exit(&xp->idx);
	free(xp->v);
	free(xp);
}

/* The pair (@use, @reuse), added with @addr when new; NULL: no memory. */
static struct reuse_pair *pair(struct reuse_xpairs *xp, u64 use, u64 reuse, u64 addr)
{
	u64 mix = lp_hash64(use) ^ lp_hash64(reuse + 0x9e3779b97f4a7c15ull), *slot;
	struct reuse_pair *p;

	for (;;) {
		slot = lp_map__slot(&xp->idx, mix);
		if (!slot)
			return NULL;
		if (!*slot)
			break;
		p = &xp->v[*slot - 1];
		if (p->use_ip == use && p->reuse_ip == reuse)
			return p;
		mix = lp_hash64(mix);	/* another pair has this mix: the next one */
	}
	if (xp->n == xp->cap) {
		u32 cap = xp->cap ? 2 * xp->cap : 256;
		struct reuse_pair *v = realloc(xp->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		xp->v = v;
		xp->cap = cap;
	}
	p = &xp->v[xp->n++];
	*p = (struct reuse_pair){ .use_ip = use, .reuse_ip = reuse, .addr = addr };
	*slot = xp->n;
	return p;
}

int reuse_xpairs__access(struct reuse_xpairs *xp, u64 key, u64 addr, u64 ip,
			 const struct reuse_exact_res *res)
{
	u64 use = 0;
	struct reuse_pair *p;

	if (res->kind == REUSE_EXACT_SKIPPED)
		return 0;
	if (res->kind != REUSE_EXACT_COLD && lp_map__get(&xp->last, key, &use) && use && ip &&
	    (res->kind == REUSE_EXACT_REUSE || res->kind == REUSE_EXACT_INVAL)) {
		p = pair(xp, use, ip, addr);
		if (!p)
			return -ENOMEM;
		if (res->kind == REUSE_EXACT_REUSE)
			p->reuses++;
		else
			p->invalidations++;
	}
	return lp_map__put(&xp->last, key, ip);
}

/* As the sampled analysis orders them: reuses + invalidations, most first. */
static int by_count(const void *a, const void *b)
{
	const struct reuse_pair *x = a, *y = b;
	u64 cx = x->reuses + x->invalidations, cy = y->reuses + y->invalidations;

	if (cx != cy)
		return cx < cy ? 1 : -1;
	/* ties in address order, so the output does not depend on the table */
	if (x->use_ip != y->use_ip)
		return x->use_ip < y->use_ip ? -1 : 1;
	return x->reuse_ip < y->reuse_ip ? -1 : x->reuse_ip > y->reuse_ip;
}

void reuse_xpairs__sorted(struct reuse_xpairs *xp, struct reuse_pair **v, u32 *n)
{
	qsort(xp->v, xp->n, sizeof(*xp->v), by_count);
	*v = xp->v;
	*n = xp->n;
}
