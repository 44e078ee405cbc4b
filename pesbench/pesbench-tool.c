// SPDX-License-Identifier: GPL-2.0
/*
 * pesbench experiment 7, a full tool under the facility (Sasongko 2022,
 * 4.4, Figures 4.8-4.9): comdetect on Write-Volume, its total communication
 * against the benchmark's expected number of transfers, and its time
 * overhead. The soft facility's volume is ns of CPU time (one sample stands
 * for a period of it); it becomes accesses through the measured rate,
 * accesses / cpu_ns (Documentation/facilities.md, "Software precise sampling"). Pure.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "pesbench/pesbench.h"

int pesbench_tool__add(struct pesbench_table *t, const char *fac, int time_period,
		       const char *config, double expected_volume, u64 accesses,
		       const struct pesbench_run *runs, int n,
		       const struct pesbench_run *native, int nn)
{
	double v[64], d[64], w[64], nat[64], m, se, md, sd, mw, mn, sn, sw;
	int k, err;

	if (n < 1 || n > 64 || nn > 64)
		return -EINVAL;
	for (k = 0; k < n; k++) {
		const struct pesbench_run *r = &runs[k];

		v[k] = !time_period ? r->tool_volume :
		       r->cpu_ns ? r->tool_volume * accesses / r->cpu_ns : NAN;
		d[k] = (double)r->tool_detections;
		w[k] = (double)r->wall_ns;
	}
	pesbench__mean_se(v, n, &m, &se);
	pesbench__mean_se(d, n, &md, &sd);
	err = pesbench__add_row(t, fac, "write-volume", config, "transfers",
				expected_volume, m, se, n);
	if (!err)
		err = pesbench__add_row(t, fac, "write-volume", config, "detections",
					NAN, md, sd, n);
	if (!err && nn > 0) {
		for (k = 0; k < nn; k++)
			nat[k] = (double)native[k].wall_ns;
		pesbench__mean_se(w, n, &mw, &sw);
		pesbench__mean_se(nat, nn, &mn, &sn);
		err = pesbench__add_row(t, fac, "write-volume", config, "time ratio",
					1, mn > 0 ? mw / mn : NAN,
					mn > 0 && !isnan(sw) ? sw / mn : NAN, n);
	}
	return err;
}
