/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pebs-ibs-compare (pesbench): the characterization of a precise sampling
 * facility (Sasongko 2022, ch.4) as pure functions over tallies of profiled
 * runs of the microbenchmarks, their --expect answers and measured times.
 * One module per experiment (core/pesbench-<exp>.c); this header holds the
 * shared model: the expectation, the tally of one run, and the result
 * tables with their JSON form.
 *
 * Definitions (written down once, here):
 * - expected samples of a run: soft (period in ns of thread CPU time):
 *   cpu_ns / period, cpu_ns = sum of the threads' CPU time at exit;
 *   event facilities: (the event count --expect gives) / period.
 * - expected composition (soft): the loop's instruction mix; the share of
 *   samples of a kind is expected to be count(kind) / instructions.
 * - error_pct = 100 * (observed - expected) / expected (NaN if expected 0).
 * - stderr = s / sqrt(n), s the sample standard deviation of the per-run
 *   observed values (NaN for one run).
 * - bias shares: of the samples attributed to the listed loop instructions,
 *   the percentage attributed to each; they sum to 100.
 */
#ifndef LP_PESBENCH_H
#define LP_PESBENCH_H
#include <stdio.h>
#include "core/event.h"
#include "core/json.h"

#define PESBENCH_MAX_INSN	16
#define PESBENCH_MAX_FAC	4
#define PESBENCH_MAX_TABLES	8
#define PESBENCH_MAX_RESULTS	8

/* ------------------------------------------------------ expectation */

struct pesbench_insn {
	char name[24];
	char text[40];
	u32 off;		/* from the symbol */
	u8 kind;		/* enum lp_access_kind */
	u8 branch, call, ret, locked, syscall;
	u64 count, taken;	/* dynamic executions, taken */
};

struct pesbench_expect {
	char bench[32];
	char symbol[64];
	u32 size;		/* bytes of the symbol */
	u64 iters;
	u64 instructions, loads, stores, locked, branches, taken, calls,
	    returns, syscalls;
	int ninsn;
	struct pesbench_insn insn[PESBENCH_MAX_INSN];
};

/* Parse a microbenchmark's --expect JSON. 0, -EINVAL (not one), -ENOMEM. */
int pesbench__parse_expect(const char *text, size_t len, struct pesbench_expect *e);
/* Index of the loop instruction at @off from the symbol, or -1. */
int pesbench__insn_at(const struct pesbench_expect *e, u64 off);

/* ------------------------------------------------------ one run */

struct pesbench_run {
	u64 period;		/* effective period (facility unit) */
	u64 samples;		/* LP_EV_SAMPLE */
	u64 with_addr;		/* ...with a data address */
	u64 kind[4];		/* ...by enum lp_access_kind (with an address) */
	u64 kernel;		/* LP_SAMPLE_KERNEL */
	u64 locked;		/* LP_SAMPLE_LOCKED or kind atomic */
	u64 prev;		/* LP_SAMPLE_PREV_INSN */
	u64 in_symbol;		/* ip inside the benchmark's symbol */
	u64 in_loop;		/* ip at one of the loop's instructions */
	u64 insn[PESBENCH_MAX_INSN];	/* per loop instruction */
	u64 sym_base;		/* runtime address of the symbol, 0: not found */
	u64 cpu_ns;		/* sum of lp_thread.cpu_ns at thread exit */
	u64 threads;
	u64 lost, throttled;
	u64 wall_ns;		/* start of the program to its exit */
	u64 utime_ns, stime_ns;	/* the program's user and system time */
	long target_rss_kib;	/* the program's peak RSS */
	long profiler_rss_kib;	/* lociprof's growth of RSS while profiling */
	double tool_volume;	/* experiment 7: comdetect total (facility unit) */
	u64 tool_detections;
	int status;		/* wait status of the program, -1 unknown */
};

/*
 * Account one event of a profiled run. Samples are mapped to loop
 * instructions through run->sym_base (set by the caller once it knows where
 * the symbol is; 0: nothing is in the loop). Pure.
 */
void pesbench__tally(struct pesbench_run *r, const struct pesbench_expect *e,
		     const struct lp_event *ev);

/* Expected samples of @r: soft (@time_period) cpu_ns / period, else @count / period. */
double pesbench__expected_samples(const struct pesbench_run *r, int time_period,
				  u64 count);

/* mean and standard error (s / sqrt(n); NaN if n < 2) of @v[n]. */
void pesbench__mean_se(const double *v, int n, double *mean, double *se);
/* 100 * (obs - exp) / exp; NaN if exp == 0. */
double pesbench__error_pct(double observed, double expected);

/* ------------------------------------------------------ result tables */

struct pesbench_row {
	char facility[16];
	char bench[32];		/* "load-ratio 1/4" */
	char config[48];	/* "period 100000 ns", "prev-insn off" */
	char metric[48];	/* "samples", "load share %", "load 1 %" */
	double expected, observed, stderr_, error_pct;
	int runs;
};

struct pesbench_table {
	char id[16];		/* accuracy, period, bias, overhead, multi, mode, tool */
	char title[128];
	char note[1024];
	int n, cap;
	struct pesbench_row *rows;
};

struct pesbench_facility {
	char name[16];
	int usable;
	char reason[256];	/* the probe's words */
	char period_unit[16];
	char counters[256];	/* qualitative (Sasongko 2022, Table 4.1), probed */
	char events[160];
	char data[256];
	char modes[200];
};

struct pesbench_machine {
	char vendor[16], cpu[64], hypervisor[16], kernel[65], host[64], date[32];
	unsigned int family, model;
	int ncpus;
	char pmu[64];		/* libpfm4's PMU name */
};

struct pesbench_result {
	char example[320];	/* "" unless a labelled example */
	struct pesbench_machine m;
	int quick, runs;
	int nfac;
	struct pesbench_facility fac[PESBENCH_MAX_FAC];
	int ntables;
	struct pesbench_table tables[PESBENCH_MAX_TABLES];
};

struct lp_facility_ops;
/* Probe @ops for the qualitative table (opens events on the calling thread). 0. */
int pesbench__probe_facility(const struct lp_facility_ops *ops,
			     struct pesbench_facility *out);
/* CPU, kernel, host, date. 0. */
int pesbench__probe_machine(struct pesbench_machine *m);

void pesbench__result_init(struct pesbench_result *res);
void pesbench__result_exit(struct pesbench_result *res);
/* The table @id, created (with @title) if absent; NULL if full. */
struct pesbench_table *pesbench__table(struct pesbench_result *res,
				       const char *id, const char *title);
/* Append a row; error_pct computed from expected/observed. 0 or -ENOMEM. */
int pesbench__add_row(struct pesbench_table *t, const char *facility,
		      const char *bench, const char *config, const char *metric,
		      double expected, double observed, double se, int runs);
const struct pesbench_row *pesbench__find_row(const struct pesbench_table *t,
					      const char *facility, const char *bench,
					      const char *config, const char *metric);

/* JSON: the whole result ("command":"pebs-ibs-compare"). */
void pesbench__write_json(struct json_writer *w, const struct pesbench_result *res);
int pesbench__read_json(const struct json_value *v, struct pesbench_result *res);
/* Read a file; 0, -errno, or -EINVAL (not a pesbench result). */
int pesbench__load(const char *path, struct pesbench_result *res);

/* Text tables: one per experiment, plus the qualitative one. */
void pesbench__print(FILE *f, const struct pesbench_result *res);
/* Side by side: every row key of any result, one column group per result. */
void pesbench__print_merge(FILE *f, const struct pesbench_result *res, int n);
/*
 * SVG figures (Sasongko 2022, Figures 4.1-4.9) into directory @dir, one per table and
 * metric group, series = each result's facilities. Returns the number of
 * files written or -errno.
 */
int pesbench__svg(const char *dir, const struct pesbench_result *res, int n);

/* ------------------------------------------------------ experiments */

/*
 * Each takes the runs of one configuration (all of the same facility) and
 * appends rows to @t. @time_period: the facility's period is time (soft).
 */

/* 1: total samples and load samples/share vs expectation (load-ratio). */
int pesbench_accuracy__add(struct pesbench_table *t, const char *fac, int time_period,
			   const struct pesbench_expect *e, const char *config,
			   const struct pesbench_run *runs, int n);

/* 2: samples and locked share at one period (locked-load). */
int pesbench_period__add(struct pesbench_table *t, const char *fac, int time_period,
			 const struct pesbench_expect *e, u64 period,
			 const struct pesbench_run *runs, int n);

/*
 * 3: share of samples per loop instruction (bias-bench), one row per
 * instruction under @config (e.g. "sampled ip (prev-insn off)"); the
 * expected share is count(insn) among loads / loads (25% for each of four
 * loads, 0 for the others). Shares are over runs' in-loop samples summed.
 */
int pesbench_bias__add(struct pesbench_table *t, const char *fac,
		       const struct pesbench_expect *e, const char *config,
		       const struct pesbench_run *runs, int n);
/* The shares (percent) it reports, for @n runs: @share[e->ninsn]. 0 or -EINVAL (no sample). */
int pesbench_bias__shares(const struct pesbench_expect *e,
			  const struct pesbench_run *runs, int n, double *share);

/* 4: wall time and peak RSS ratios of profiled vs native runs. */
int pesbench_overhead__add(struct pesbench_table *t, const char *fac, const char *bench,
			   const struct pesbench_run *native, int nn,
			   const struct pesbench_run *prof, int np);

/*
 * 5: multi-event: per event (load, store, branch, taken, return, locked),
 * the share of in-loop samples at instructions of that event vs the share
 * of the event's count among instructions. @config names how the events
 * were sampled (soft: "1 timer, all events").
 */
int pesbench_multi__add(struct pesbench_table *t, const char *fac,
			const struct pesbench_expect *e, const char *config,
			const struct pesbench_run *runs, int n);

/* 6: user vs kernel attribution (exec-mode) with exclude_kernel sampling. */
int pesbench_mode__add(struct pesbench_table *t, const char *fac, int time_period,
		       const struct pesbench_expect *e,
		       const struct pesbench_run *runs, int n);

/*
 * 7: comdetect under the facility (write-volume): measured transfers vs the
 * benchmark's expected volume. Soft: tool_volume is ns of CPU time; it is
 * converted to accesses with the measured rate @accesses / cpu_ns.
 */
int pesbench_tool__add(struct pesbench_table *t, const char *fac, int time_period,
		       const char *config, double expected_volume, u64 accesses,
		       const struct pesbench_run *runs, int n,
		       const struct pesbench_run *native, int nn);

#endif
