// SPDX-License-Identifier: GPL-2.0
/*
 * pesbench experiment 4, time and memory overhead (Sasongko 2022, 4.3.4-
 * 4.3.5, Figures 4.4-4.6): wall time and peak RSS of profiled runs as
 * ratios of the native runs' means. lociprof profiles from outside the
 * program, so the program's own peak RSS should not grow; the total counts
 * lociprof's growth too. Pure.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "pesbench/pesbench.h"

/* ratio of means and its standard error (first-order propagation) */
static void ratio(const double *p, int np, const double *q, int nq, double *r, double *se)
{
	double mp, sp, mq, sq;

	pesbench__mean_se(p, np, &mp, &sp);
	pesbench__mean_se(q, nq, &mq, &sq);
	*r = mq > 0 ? mp / mq : NAN;
	if (isnan(sp) && isnan(sq))
		*se = NAN;
	else
		*se = *r * sqrt((isnan(sp) ? 0 : (sp / mp) * (sp / mp)) +
				(isnan(sq) ? 0 : (sq / mq) * (sq / mq)));
}

int pesbench_overhead__add(struct pesbench_table *t, const char *fac, const char *bench,
			   const struct pesbench_run *native, int nn,
			   const struct pesbench_run *prof, int np)
{
	double *v, r, se;
	int i, err;

	if (nn < 1 || np < 1)
		return -EINVAL;
	v = calloc(3 * (size_t)(nn + np), sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < np; i++) {
		v[i] = (double)prof[i].wall_ns;
		v[np + i] = (double)prof[i].target_rss_kib;
		v[2 * np + i] = (double)(prof[i].target_rss_kib + prof[i].profiler_rss_kib);
	}
	for (i = 0; i < nn; i++) {
		v[3 * np + i] = (double)native[i].wall_ns;
		v[3 * np + nn + i] = (double)native[i].target_rss_kib;
	}
	ratio(v, np, v + 3 * np, nn, &r, &se);
	err = pesbench__add_row(t, fac, bench, "vs native", "time ratio", 1, r, se, np);
	ratio(v + np, np, v + 3 * np + nn, nn, &r, &se);
	if (!err)
		err = pesbench__add_row(t, fac, bench, "vs native", "program RSS ratio",
					1, r, se, np);
	ratio(v + 2 * np, np, v + 3 * np + nn, nn, &r, &se);
	if (!err)
		err = pesbench__add_row(t, fac, bench, "vs native",
					"program+lociprof RSS ratio", 1, r, se, np);
	free(v);
	return err;
}
