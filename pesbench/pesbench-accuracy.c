// SPDX-License-Identifier: GPL-2.0
/*
 * pesbench experiment 1, accuracy (Sasongko 2022, 4.3.1, Figures 4.1-4.2):
 * observed vs expected samples, in total and of a sub-event (loads among
 * the samples), on Load-Ratio. Pure.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pesbench/pesbench.h"

/* What an event facility counts: IBS op tags every op, PEBS loads and stores. */
static u64 sampled_count(const char *fac, const struct pesbench_expect *e)
{
	return !strcmp(fac, "ibs") ? e->instructions : e->loads + e->stores;
}

int pesbench_accuracy__add(struct pesbench_table *t, const char *fac, int time_period,
			   const struct pesbench_expect *e, const char *config,
			   const struct pesbench_run *runs, int n)
{
	double *v, exp_s, obs_s, se_s, exp_l, obs_l, se_l, exp_f, obs_f, se_f, dummy;
	double load_frac;
	char bench[96], cfg[48];
	int i, err = 0;

	if (n < 1 || !e->instructions)
		return -EINVAL;
	v = calloc(5 * (size_t)n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	/* the share of loads a sample is expected to fall on */
	load_frac = time_period ? (double)e->loads / e->instructions :
		    (double)e->loads / (sampled_count(fac, e) ? sampled_count(fac, e) : 1);
	for (i = 0; i < n; i++) {
		const struct pesbench_run *r = &runs[i];
		u64 loads = r->kind[LP_ACCESS_LOAD] + r->kind[LP_ACCESS_ATOMIC];

		v[i] = pesbench__expected_samples(r, time_period, sampled_count(fac, e));
		v[n + i] = (double)r->samples;
		v[2 * n + i] = (double)loads;
		v[3 * n + i] = r->samples ? 100.0 * loads / r->samples : NAN;
	}
	pesbench__mean_se(v, n, &exp_s, &dummy);
	pesbench__mean_se(v + n, n, &obs_s, &se_s);
	pesbench__mean_se(v + 2 * n, n, &obs_l, &se_l);
	pesbench__mean_se(v + 3 * n, n, &obs_f, &se_f);
	exp_l = exp_s * load_frac;
	exp_f = 100.0 * load_frac;
	snprintf(bench, sizeof(bench), "%s %s", e->bench, config);
	/* the period is in the table's note: rows of facilities with other units line up */
	snprintf(cfg, sizeof(cfg), "default period");
	err = pesbench__add_row(t, fac, bench, cfg, "samples", exp_s, obs_s, se_s, n);
	if (!err)
		err = pesbench__add_row(t, fac, bench, cfg, "load samples", exp_l, obs_l, se_l, n);
	if (!err)
		err = pesbench__add_row(t, fac, bench, cfg, "load share %", exp_f, obs_f, se_f, n);
	free(v);
	return err;
}
