// SPDX-License-Identifier: GPL-2.0
/*
 * pesbench experiment 3, bias and instruction attribution (Sasongko 2022,
 * 4.3.3, Table 4.3): the share of samples attributed to each instruction of
 * Bias-Bench. Without bias each of the four loads gets 25%; with exact
 * attribution subq, cmpq and jne get none. Pure.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "pesbench/pesbench.h"

int pesbench_bias__shares(const struct pesbench_expect *e,
			  const struct pesbench_run *runs, int n, double *share)
{
	u64 total = 0, per[PESBENCH_MAX_INSN] = { 0 };
	int i, k;

	for (k = 0; k < n; k++)
		for (i = 0; i < e->ninsn; i++) {
			per[i] += runs[k].insn[i];
			total += runs[k].insn[i];
		}
	if (!total)
		return -EINVAL;
	for (i = 0; i < e->ninsn; i++)
		share[i] = 100.0 * per[i] / total;
	return 0;
}

int pesbench_bias__add(struct pesbench_table *t, const char *fac,
		       const struct pesbench_expect *e, const char *config,
		       const struct pesbench_run *runs, int n)
{
	double share[PESBENCH_MAX_INSN], v[64], m, se, expected;
	u64 loads = 0;
	char metric[48];
	int i, k, err;

	if (n < 1 || n > 64)
		return -EINVAL;
	err = pesbench_bias__shares(e, runs, n, share);
	if (err)
		return err;
	for (i = 0; i < e->ninsn; i++)
		if (e->insn[i].kind == LP_ACCESS_LOAD || e->insn[i].kind == LP_ACCESS_ATOMIC)
			loads += e->insn[i].count;
	for (i = 0; i < e->ninsn && !err; i++) {
		const struct pesbench_insn *in = &e->insn[i];
		int is_load = in->kind == LP_ACCESS_LOAD || in->kind == LP_ACCESS_ATOMIC;

		/* per-run shares only for the error bar; the row's value pools all runs */
		for (k = 0; k < n; k++)
			v[k] = runs[k].in_loop ? 100.0 * runs[k].insn[i] / runs[k].in_loop : NAN;
		pesbench__mean_se(v, n, &m, &se);
		expected = is_load && loads ? 100.0 * in->count / loads : 0;
		snprintf(metric, sizeof(metric), "%s %%", in->name);
		err = pesbench__add_row(t, fac, e->bench, config, metric, expected,
					share[i], se, n);
	}
	return err;
}
