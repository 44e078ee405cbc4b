// SPDX-License-Identifier: GPL-2.0
/*
 * pesbench experiment 6, user vs kernel attribution (Sasongko 2022, 4.3.7):
 * Exec-Mode enters the kernel once per iteration (getppid) and holds no
 * locked instruction in user space. A facility that samples user mode only
 * (exclude_kernel=1) must report no kernel sample and no user locked
 * sample; and because the kernel discards a timer sample whose interrupted
 * context is kernel mode (it is not moved to user mode), the soft
 * facility's samples should miss exactly the kernel's share of CPU time.
 * Pure.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "pesbench/pesbench.h"

int pesbench_mode__add(struct pesbench_table *t, const char *fac, int time_period,
		       const struct pesbench_expect *e,
		       const struct pesbench_run *runs, int n)
{
	double v[6][64], m[6], se[6], dummy;
	int i, k, after = -1, err;

	if (n < 1 || n > 64)
		return -EINVAL;
	for (i = 0; i + 1 < e->ninsn; i++)
		if (e->insn[i].syscall)
			after = i + 1;
	for (k = 0; k < n; k++) {
		const struct pesbench_run *r = &runs[k];
		double tot = (double)(r->utime_ns + r->stime_ns);

		v[0][k] = (double)r->kernel;
		v[1][k] = (double)r->locked;
		v[2][k] = (double)r->samples;
		v[3][k] = time_period && r->period ? (double)r->utime_ns / r->period : NAN;
		v[4][k] = tot > 0 ? 100.0 * r->stime_ns / tot : NAN;
		v[5][k] = r->cpu_ns && r->period ?
			  100.0 * (1.0 - (double)r->samples * r->period / r->cpu_ns) : NAN;
	}
	for (i = 0; i < 6; i++)
		pesbench__mean_se(v[i], n, &m[i], &se[i]);
	err = pesbench__add_row(t, fac, e->bench, "user only", "kernel-mode samples",
				0, m[0], se[0], n);
	if (!err)
		err = pesbench__add_row(t, fac, e->bench, "user only",
					"user locked samples", 0, m[1], se[1], n);
	if (!err && time_period)
		err = pesbench__add_row(t, fac, e->bench, "user only",
					"samples (user time / period)", m[3], m[2], se[2], n);
	if (!err && time_period)
		err = pesbench__add_row(t, fac, e->bench, "user only",
					"missing samples % (kernel time %)", m[4], m[5], se[5], n);
	if (!err && after >= 0) {
		for (k = 0; k < n; k++)
			v[0][k] = runs[k].in_loop ? 100.0 * runs[k].insn[after] / runs[k].in_loop : NAN;
		pesbench__mean_se(v[0], n, &m[0], &dummy);
		pesbench__mean_se(v[0], n, &m[0], &se[0]);
		err = pesbench__add_row(t, fac, e->bench, "user only",
					"after-syscall share %",
					100.0 * e->insn[after].count / e->instructions,
					m[0], se[0], n);
	}
	return err;
}
