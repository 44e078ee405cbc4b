/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tracing engine's events cost a thread on this machine, measured
 * by doing them (lociprof list --costs). Each cost is the extra CPU time of
 * the thread that pays it, per event: a fixed amount of work is timed
 * (CLOCK_THREAD_CPUTIME_ID) with and without the events, and the median
 * over repetitions of (with - without) / events is kept.
 *
 * - sample: one overflow of the soft facility's sampling event (cpu-clock
 *   with the user registers, its default period) on the thread itself.
 * - trap:   one hit of a read/write hardware watchpoint on the thread
 *   itself (sample_period 1, the engine's trap record).
 * - arm:    moving a watchpoint of another thread while it runs, as the
 *   engine does (PERF_EVENT_IOC_MODIFY_ATTRIBUTES, then the group
 *   rescheduled: see session.c group_kick), paid by that thread (from its
 *   work rate); wall_us: what the arming thread waits per arm.
 * - hold:   the synchronous path's stop (--sync: the sample's SIGTRAP, a
 *   ptrace signal-delivery stop, the tracer's resume) on top of the sample,
 *   in a forked child.
 *
 * Every cost the program's threads pay comes out of the sampling period,
 * which is thread CPU time: a period of P ns that pays O ns of them leaves
 * P - O ns of the program's own work, so a run takes at least
 * P / (P - O) of its native CPU time (costs__floor).
 */
#ifndef LP_COSTS_H
#define LP_COSTS_H
#include "core/types.h"

struct lp_cost {
	double us;		/* median extra thread CPU us per event; < 0: not measured */
	double wall_us;		/* arm only: the arming thread's wall us per arm */
	double events;		/* events per repetition (median) */
	int reps;		/* repetitions that measured something */
	char reason[256];	/* why not measured ("" if measured) */
};

struct lp_costs {
	u64 period_ns;		/* the soft facility's default period */
	struct lp_cost sample, trap, arm, hold;
};

/*
 * Measure every cost, @reps repetitions each (3..99; each a fraction of a
 * second). Briefly runs a thread and forks a traced child. 0, or -errno
 * if nothing could be measured at all (each cost carries its own reason).
 */
int costs__measure(struct lp_costs *c, int reps);

/* Only the @parts asked for (a hold needs its sample: both); the others
 * are not measured, with the reason "not asked for". */
#define COSTS_SAMPLE	(1u << 0)
#define COSTS_TRAP	(1u << 1)
#define COSTS_ARM	(1u << 2)
#define COSTS_HOLD	(1u << 3)
#define COSTS_ALL	(COSTS_SAMPLE | COSTS_TRAP | COSTS_ARM | COSTS_HOLD)
int costs__measure_parts(struct lp_costs *c, int reps, unsigned parts);

/*
 * The least time ratio to native of a thread whose every @period_ns of CPU
 * time pays @overhead_ns of it: period / (period - overhead). Pure.
 * INFINITY when the overhead fills the period; NAN for bad input.
 */
double costs__floor(double period_ns, double overhead_ns);

/*
 * The thread CPU time a watchpoint's trap on the sampled thread's very
 * next access comes after the sample's timestamp: the sample, then the
 * hold (@sync: the thread is armed while stopped) or an arm while it runs,
 * then the trap. The shortest reuse a time-based facility resolves
 * (reuse.h, reuse_resolution). Parts not measured count 0 and are named
 * in @missing ("" if none; may be NULL). 0 if none was measured. Pure.
 */
double costs__reuse_floor(const struct lp_costs *c, int sync, char *missing, size_t len);

/* Median of @n values (sorted in place); NAN if @n is 0. Pure. */
double costs__median(double *v, int n);

#endif
