// SPDX-License-Identifier: GPL-2.0
/*
 * pesbench experiment 5, multiple events (Sasongko 2022, 4.3.6, Figure
 * 4.7): on Multi-Event, for each event (load, store, branch, taken branch,
 * call, return, locked) the share of the loop's samples that fall on
 * instructions of that event against the event's share of the executed
 * instructions. A facility that samples all instructions from one source
 * (IBS op; the soft facility's one timer) gets every event from the same
 * samples, however many are asked for; one with a counter per event (PEBS)
 * loses samples once the events outnumber its counters. Pure.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "pesbench/pesbench.h"

enum { EV_LOAD, EV_STORE, EV_BRANCH, EV_TAKEN, EV_CALL, EV_RET, EV_LOCKED, EV__N };
static const char *const ev_names[EV__N] = {
	"load", "store", "branch", "taken branch", "call", "return", "locked",
};

/* How much of instruction @in's executions are event @ev (0..1). */
static double weight(const struct pesbench_insn *in, int ev)
{
	switch (ev) {
	case EV_LOAD: return in->kind == LP_ACCESS_LOAD || in->kind == LP_ACCESS_ATOMIC;
	case EV_STORE: return in->kind == LP_ACCESS_STORE || in->kind == LP_ACCESS_ATOMIC;
	case EV_BRANCH: return in->branch;
	case EV_TAKEN: return in->count ? (double)in->taken / in->count : 0;
	case EV_CALL: return in->call;
	case EV_RET: return in->ret;
	default: return in->locked;
	}
}

int pesbench_multi__add(struct pesbench_table *t, const char *fac,
			const struct pesbench_expect *e, const char *config,
			const struct pesbench_run *runs, int n)
{
	double v[64], m, se, expected;
	char metric[48];
	int ev, i, k, err = 0;

	if (n < 1 || n > 64 || !e->instructions)
		return -EINVAL;
	for (ev = 0; ev < EV__N && !err; ev++) {
		double cnt = 0;

		for (i = 0; i < e->ninsn; i++)
			cnt += weight(&e->insn[i], ev) * e->insn[i].count;
		if (cnt == 0)
			continue;
		expected = 100.0 * cnt / e->instructions;
		for (k = 0; k < n; k++) {
			double s = 0;

			for (i = 0; i < e->ninsn; i++)
				s += weight(&e->insn[i], ev) * runs[k].insn[i];
			v[k] = runs[k].in_loop ? 100.0 * s / runs[k].in_loop : NAN;
		}
		pesbench__mean_se(v, n, &m, &se);
		snprintf(metric, sizeof(metric), "%s share %%", ev_names[ev]);
		err = pesbench__add_row(t, fac, e->bench, config, metric, expected, m, se, n);
	}
	return err;
}
