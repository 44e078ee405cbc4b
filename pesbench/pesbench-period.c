// SPDX-License-Identifier: GPL-2.0
/*
 * pesbench experiment 2, sensitivity to the sampling period and stability
 * (Sasongko 2022, 4.3.2, Figure 4.3): on Locked-Load, samples and the share
 * of locked samples at each period, with the standard error over runs. Pure.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "pesbench/pesbench.h"

int pesbench_period__add(struct pesbench_table *t, const char *fac, int time_period,
			 const struct pesbench_expect *e, u64 period,
			 const struct pesbench_run *runs, int n)
{
	double *v, exp_s, obs_s, se_s, obs_f, se_f, obs_c, se_c, obs_l, se_l, dummy;
	char cfg[48];
	int i, err;

	if (n < 1 || !e->instructions)
		return -EINVAL;
	v = calloc(5 * (size_t)n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct pesbench_run *r = &runs[i];
		struct pesbench_run q = *r;

		q.period = period;	/* what was asked: the kernel may clamp it */
		v[i] = pesbench__expected_samples(&q, time_period, e->locked);
		v[n + i] = (double)r->samples;
		v[2 * n + i] = r->samples ? 100.0 * r->locked / r->samples : NAN;
		v[3 * n + i] = (double)r->locked;
		v[4 * n + i] = (double)r->lost;
	}
	pesbench__mean_se(v, n, &exp_s, &dummy);
	pesbench__mean_se(v + n, n, &obs_s, &se_s);
	pesbench__mean_se(v + 2 * n, n, &obs_f, &se_f);
	pesbench__mean_se(v + 3 * n, n, &obs_c, &se_c);
	pesbench__mean_se(v + 4 * n, n, &obs_l, &se_l);
	snprintf(cfg, sizeof(cfg), "period %llu %s", (unsigned long long)period,
		 time_period ? "ns" : "events");
	err = pesbench__add_row(t, fac, e->bench, cfg, "samples", exp_s, obs_s, se_s, n);
	if (!err)
		err = pesbench__add_row(t, fac, e->bench, cfg, "locked samples",
					time_period ? exp_s * e->locked / e->instructions : exp_s,
					obs_c, se_c, n);
	if (!err)
		err = pesbench__add_row(t, fac, e->bench, cfg, "locked share %",
					time_period ? 100.0 * e->locked / e->instructions : 100.0,
					obs_f, se_f, n);
	/* records the kernel could not write: the reader fell behind */
	if (!err)
		err = pesbench__add_row(t, fac, e->bench, cfg, "lost records", 0, obs_l, se_l, n);
	free(v);
	return err;
}
