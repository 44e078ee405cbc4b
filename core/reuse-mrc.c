// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <string.h>

#include "core/reuse-mrc.h"

void reuse_mrc__init(struct reuse_mrc *m)
{
	memset(m, 0, sizeof(*m));
}

u64 reuse_mrc__lo(int k)
{
	int o = k / REUSE_MRC_SUB, s = k % REUSE_MRC_SUB;

	if (k < REUSE_MRC_SUB)
		return k;
	if (o < 3 || k >= REUSE_MRC_NBINS)
		return 0;
	return ((u64)1 << o) + ((u64)s << (o - 3));
}

void reuse_mrc__merge(struct reuse_mrc *dst, const struct reuse_mrc *src)
{
	int k;

	for (k = 0; k < REUSE_MRC_NBINS; k++)
		dst->bin[k] += src->bin[k];
	dst->inf += src->inf;
}

int reuse_mrc__curve(const struct reuse_mrc *m, u64 max_size,
		     struct reuse_mrc_point *pts, int max)
{
	double total = m->inf, above;
	int k, n = 0;

	for (k = 0; k < REUSE_MRC_NBINS; k++)
		total += m->bin[k];
	if (!(total > 0))
		return -ENODATA;
	/* above: weight of the distances >= the size, infinite ones included */
	above = total;
	for (k = 0; k < REUSE_MRC_NBINS && n < max; k++) {
		u64 lo = reuse_mrc__lo(k);

		if (k && !lo)
			continue;		/* no distance falls in this bin */
		if (lo > max_size)
			break;
		if (lo >= 1)
			pts[n++] = (struct reuse_mrc_point){ .size = lo,
				.miss = fmin(1, fmax(0, above / total)) };
		above -= m->bin[k];
	}
	return n;
}

int reuse_mrc__mae(const struct reuse_mrc *a, const struct reuse_mrc *b,
		   u64 min_size, u64 max_size, double *mae)
{
	struct reuse_mrc_point pa[REUSE_MRC_NBINS], pb[REUSE_MRC_NBINS];
	int na = reuse_mrc__curve(a, max_size, pa, REUSE_MRC_NBINS);
	int nb = reuse_mrc__curve(b, max_size, pb, REUSE_MRC_NBINS);
	double sum = 0;
	int i, n = 0;

	if (na < 0 || nb < 0 || na != nb)
		return -ENODATA;	/* same bins: na == nb when both have data */
	for (i = 0; i < na; i++) {
		if (pa[i].size < min_size)
			continue;
		sum += fabs(pa[i].miss - pb[i].miss);
		n++;
	}
	if (!n)
		return -ENODATA;
	*mae = sum / n;
	return 0;
}
