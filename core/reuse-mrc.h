/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Miss-ratio curves of a fully associative LRU cache from stack reuse
 * distances, at log-spaced sizes fine enough to read between powers of two.
 *
 * A distance d hits a cache of c entries iff d < c, so the miss ratio at c
 * is the weight of the distances >= c plus the infinite ones (cold and
 * invalidated), over the total. The bins are exact below 8 and split every
 * octave [2^o, 2^(o+1)) into REUSE_MRC_SUB equal parts above, so the curve
 * is exact at every bin's lower bound (sizes 1..8, then 8 per octave,
 * steps of at most 12.5%).
 *
 *   struct reuse_mrc m;
 *   reuse_mrc__init(&m);
 *   reuse_mrc__add(&m, d, 1.0);  ...  m.inf += 1.0;	// cold
 *   n = reuse_mrc__curve(&m, 1 << 20, pts, REUSE_MRC_NBINS);
 */
#ifndef LP_REUSE_MRC_H
#define LP_REUSE_MRC_H
#include "core/types.h"

#define REUSE_MRC_SUB	8
#define REUSE_MRC_NBINS	(64 * REUSE_MRC_SUB)

struct reuse_mrc {
	double bin[REUSE_MRC_NBINS];
	double inf;		/* cold and invalidated: a miss at every size */
};

struct reuse_mrc_point {
	u64 size;		/* cache entries (lines at line granularity) */
	double miss;		/* miss ratio */
};

static inline int reuse_mrc__bin(u64 d)
{
	int o;

	if (d < REUSE_MRC_SUB)
		return (int)d;
	o = 63 - __builtin_clzll(d);
	return o * REUSE_MRC_SUB + (int)((d >> (o - 3)) & (REUSE_MRC_SUB - 1));
}

static inline void reuse_mrc__add(struct reuse_mrc *m, u64 d, double w)
{
	m->bin[reuse_mrc__bin(d)] += w;
}

void reuse_mrc__init(struct reuse_mrc *m);
/* Smallest distance of bin @k; 0 for a bin no distance falls in. */
u64 reuse_mrc__lo(int k);
/* dst += src */
void reuse_mrc__merge(struct reuse_mrc *dst, const struct reuse_mrc *src);

/*
 * The curve at every bin bound from 1 to @max_size entries (ascending),
 * at most @max points; the number written, -ENODATA when @m is empty.
 */
int reuse_mrc__curve(const struct reuse_mrc *m, u64 max_size,
		     struct reuse_mrc_point *pts, int max);

/*
 * Mean absolute difference of two curves over the sizes @min_size..@max_size
 * (every bin bound, as reuse_mrc__curve): the error measure of SHARDS
 * (Waldspurger et al. 2015). -ENODATA when either is empty or no size is
 * in the range.
 */
int reuse_mrc__mae(const struct reuse_mrc *a, const struct reuse_mrc *b,
		   u64 min_size, u64 max_size, double *mae);
#endif
