// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/hash.h"
#include "core/reuse-exact-pairs.h"

struct reuse_xpairs {
	struct lp_map last;	/* key -> ip of its latest access */
	struct lp_map idx;	/* mix of (use ip, reuse ip) -> index + 1 in v */
	struct reuse_pair *v;
	struct reuse_xpair_dist *d;	/* beside v */
	u32 n, cap;
	struct reuse_exact_limits lim;
};

struct reuse_xpairs *reuse_xpairs__new(const u64 *limit, int nlimit)
{
	struct reuse_xpairs *xp = calloc(1, sizeof(*xp));

	if (xp && reuse_exact_limits__set(&xp->lim, limit, nlimit)) {
		free(xp);
		xp = NULL;
	}
	return xp;
}

void reuse_xpairs__delete(struct reuse_xpairs *xp)
{
	if (!xp)
		return;
	lp_map__exit(&xp->last);
	lp_map__exit(&xp->idx);
	free(xp->v);
	free(xp->d);
	free(xp);
}

/* The pair (@use, @reuse), added with @addr when new; NULL: no memory. */
static u32 pair(struct reuse_xpairs *xp, u64 use, u64 reuse, u64 addr)
{
	u64 mix = lp_hash64(use) ^ lp_hash64(reuse + 0x9e3779b97f4a7c15ull), *slot;
	struct reuse_pair *p;

	for (;;) {
		slot = lp_map__slot(&xp->idx, mix);
		if (!slot)
			return 0;
		if (!*slot)
			break;
		p = &xp->v[*slot - 1];
		if (p->use_ip == use && p->reuse_ip == reuse)
			return *slot;
		mix = lp_hash64(mix);	/* another pair has this mix: the next one */
	}
	if (xp->n == xp->cap) {
		u32 cap = xp->cap ? 2 * xp->cap : 256;
		struct reuse_pair *v = realloc(xp->v, cap * sizeof(*v));
		struct reuse_xpair_dist *d;

		if (!v)
			return 0;
		xp->v = v;
		d = realloc(xp->d, cap * sizeof(*d));
		if (!d)
			return 0;
		xp->d = d;
		xp->cap = cap;
	}
	xp->v[xp->n] = (struct reuse_pair){ .use_ip = use, .reuse_ip = reuse, .addr = addr };
	xp->d[xp->n] = (struct reuse_xpair_dist){ { 0 } };
	*slot = ++xp->n;
	return *slot;
}

int reuse_xpairs__access(struct reuse_xpairs *xp, u64 key, u64 addr, u64 ip,
			 const struct reuse_exact_res *res)
{
	u64 use, *last;
	u32 i;
	int b;

	if (res->kind == REUSE_EXACT_SKIPPED)
		return 0;
	/* one lookup: the key's latest instruction out, this one in */
	last = lp_map__slot(&xp->last, key);
	if (!last)
		return -ENOMEM;
	use = *last;
	*last = ip;
	if (use && ip && (res->kind == REUSE_EXACT_REUSE || res->kind == REUSE_EXACT_INVAL)) {
		i = pair(xp, use, ip, addr);
		if (!i)
			return -ENOMEM;
		if (res->kind == REUSE_EXACT_REUSE) {
			struct reuse_xpair_dist *d = &xp->d[i - 1];

			xp->v[i - 1].reuses++;
			b = res->dist ? 64 - __builtin_clzll(res->dist) : 0;
			b = b < REUSE_XPAIR_BINS ? b : REUSE_XPAIR_BINS - 1;
			/* saturating: a median of 2^32 reuses in one pair is left approximate */
			d->hist[b] += d->hist[b] != UINT32_MAX;
			reuse_exact_limits__count(&xp->lim, res->dist, 0, d->beyond);
		} else {
			xp->v[i - 1].invalidations++;
		}
	}
	return 0;
}

/* A pair and its distances, to sort them together. */
struct both {
	struct reuse_pair p;
	struct reuse_xpair_dist d;
};

/* @arg: the limit to rank by (an int *), < 0: none */
static int by_count_both(const void *a, const void *b, void *arg)
{
	const struct both *x = a, *y = b;
	int j = *(const int *)arg;

	if (j >= 0 && x->d.beyond[j] != y->d.beyond[j])
		return x->d.beyond[j] < y->d.beyond[j] ? 1 : -1;
	/* then as the sampled analysis orders its pairs */
	return reuse_pair__cmp(&x->p, &y->p);
}

void reuse_xpairs__sorted(struct reuse_xpairs *xp, struct reuse_pair **v, u32 *n)
{
	reuse_xpairs__sorted_by(xp, -1, v, n);
}

void reuse_xpairs__sorted_by(struct reuse_xpairs *xp, int beyond, struct reuse_pair **v,
			     u32 *n)
{
	struct both *t = xp->n ? malloc(xp->n * sizeof(*t)) : NULL;
	u32 i;

	if (t) {
		for (i = 0; i < xp->n; i++)
			t[i] = (struct both){ xp->v[i], xp->d[i] };
		if (beyond >= xp->lim.n)
			beyond = -1;
		qsort_r(t, xp->n, sizeof(*t), by_count_both, &beyond);
		for (i = 0; i < xp->n; i++) {
			xp->v[i] = t[i].p;
			xp->d[i] = t[i].d;
		}
		free(t);
	} else if (xp->n) {
		/* no memory to carry the distances along: the pairs alone, sorted */
		qsort(xp->v, xp->n, sizeof(*xp->v), reuse_pair__cmp);
		free(xp->d);
		xp->d = NULL;
	}
	*v = xp->v;
	*n = xp->n;
}

const struct reuse_xpair_dist *reuse_xpairs__dist(const struct reuse_xpairs *xp)
{
	return xp->d;
}

int reuse_xpair_dist__median_bin(const struct reuse_xpair_dist *d)
{
	u64 tot = 0, cum = 0;
	int b;

	for (b = 0; b < REUSE_XPAIR_BINS; b++)
		tot += d->hist[b];
	for (b = 0; b < REUSE_XPAIR_BINS && tot; b++) {
		cum += d->hist[b];
		if (2 * cum >= tot)
			return b;
	}
	return -1;
}
