/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared-cache prediction: the concurrent reuse distance (CRD) histogram of
 * N threads sharing one cache, from each thread's standalone (private)
 * profile, by two models (Documentation/algorithms.md, "Predicting the
 * shared cache"):
 *
 *   REUSE_PREDICT_JIANG  Jiang, Zhang, Tian, Shen 2010, section 3.2: a reuse
 *     of time distance t in thread i gets CRD = d_i(t) + sum_j fp_j(w_j),
 *     d_i the thread's own stack distance of t (its footprint), fp_j the
 *     footprint of co-runner j over the w_j accesses it made meanwhile; Part
 *     II corrects for data the threads share (the reused datum touched by a
 *     co-runner breaks the interval; shared data both touched counts once).
 *   REUSE_PREDICT_PPT    PPT-Multicore (Barai et al., 3.2-3.3): replicate
 *     the threads' access streams (private data offset per copy, shared data
 *     not), interleave them round-robin and measure the CRD of the result
 *     with the exact engine (core/reuse-exact.c, shared mode).
 *
 * Both assume homogeneous threads when N differs from the measured count:
 * thread x of N behaves as measured thread x mod T. How co-runners
 * interleave is measured: Jiang takes, for each own reuse time, the
 * distribution of the other threads' accesses in between seen in the
 * trace (per co-runner); PPT interleaves round-robin in turns of each
 * thread's mean run of consecutive accesses. A forced quantum (or a
 * one-thread trace, which has no interleaving) uses turns of that many
 * accesses in both (1: the papers' fine-grained interleaving).
 *
 *   struct reuse_predict *rp;
 *   reuse_predict__new(REUSE_GRAN_LINE, max_stream, &rp);
 *   while (...) reuse_predict__access(rp, tid, addr);
 *   reuse_predict__finish(rp);
 *   reuse_predict__crd(rp, REUSE_PREDICT_JIANG, &opts, &hist);
 *   reuse_predict__delete(rp);
 *
 * Pure: no system calls, no printing; 0 or -errno.
 */
#ifndef LP_REUSE_PREDICT_H
#define LP_REUSE_PREDICT_H
#include "core/types.h"
#include "core/reuse-hist.h"
#include "core/sdcm.h"

enum reuse_predict_model {
	REUSE_PREDICT_JIANG = 0,
	REUSE_PREDICT_PPT = 1,
	REUSE_PREDICT_NMODELS
};

extern const char *const reuse_predict_model_names[REUSE_PREDICT_NMODELS];

/* Ratio bins: 0 for none, then quarter powers of two from 2^-16 to 2^16. */
#define REUSE_PREDICT_RATIO_BINS	130
int reuse_predict__ratio_bin(double r);

/* One measured thread's standalone profile. */
struct reuse_predict_thread {
	u32 tid;
	u64 accesses;
	u64 runs;		/* runs of consecutive accesses in the trace */
	u64 distinct;		/* N_i: distinct addresses (or lines) */
	u64 shared;		/* |S_i|: of them, also accessed by another thread */
	struct reuse_hist time;		/* standalone REUSE_TIME */
	struct reuse_hist stack;	/* standalone REUSE_STACK */
	struct reuse_hist time_shared;	/* the part of @time that is shared data */
	/* time distances in each bin of @time and @time_shared, summed, squared */
	double tsum[REUSE_HIST_NBINS], tsq[REUSE_HIST_NBINS];
	double tsum_sh[REUSE_HIST_NBINS], tsq_sh[REUSE_HIST_NBINS];
	/* stack distances in each bin of @stack, summed, squared */
	double ssum[REUSE_HIST_NBINS], ssq[REUSE_HIST_NBINS];
	/*
	 * The measured interleaving: for reuses of own time bin k, the other
	 * threads' accesses in between per own access (t + 1), by bin m of
	 * that ratio (reuse_predict__ratio_bin; count and sum), when the
	 * trace's previous access to the datum was the thread's own (else
	 * sharing, not interleaving, decided it).
	 */
	double inter_n[REUSE_HIST_NBINS][REUSE_PREDICT_RATIO_BINS];
	double inter_sum[REUSE_HIST_NBINS][REUSE_PREDICT_RATIO_BINS];
};

struct reuse_predict_opts {
	int nthreads;		/* N to predict, >= 1 */
	double quantum;		/* accesses per turn; 0: as measured (1 if T = 1) */
	int footprint_own;	/* JIANG: own distance of time t by the
				   footprint of t, as the paper (default: the
				   measured stack histogram at t's rank) */
	int no_sharing;		/* JIANG: skip the Part II correction */
};

struct reuse_predict;

/*
 * @max_stream: accesses kept for the PPT model (8 bytes each); past it
 * the PPT model answers -E2BIG. -EINVAL on a bad granularity, -ENOMEM.
 */
int reuse_predict__new(enum reuse_gran gran, u64 max_stream,
		       struct reuse_predict **rpp);
void reuse_predict__delete(struct reuse_predict *rp);

/* One access of the measured run, in trace order. 0, -ENOMEM, -EOVERFLOW. */
int reuse_predict__access(struct reuse_predict *rp, u32 tid, u64 addr);

/* End of the trace: the profiles. -ENODATA if no access was seen. */
int reuse_predict__finish(struct reuse_predict *rp);

int reuse_predict__nr_threads(const struct reuse_predict *rp);
const struct reuse_predict_thread *reuse_predict__thread(const struct reuse_predict *rp, int i);
/* The quantum the models use for @o (measured mean run, or @o's). */
double reuse_predict__quantum(const struct reuse_predict *rp, int i,
			      const struct reuse_predict_opts *o);

/*
 * The predicted shared-cache CRD histogram (REUSE_STACK, the input's
 * granularity) of @o->nthreads threads by @model, summed over threads.
 * -EINVAL (bad options, not finished), -E2BIG (PPT: the trace was longer
 * than max_stream), -ENOMEM.
 */
int reuse_predict__crd(const struct reuse_predict *rp, enum reuse_predict_model model,
		       const struct reuse_predict_opts *o, struct reuse_hist *out);

/* The measured CRD histogram: the trace as it was interleaved. */
int reuse_predict__measured(const struct reuse_predict *rp, struct reuse_hist *out);

/*
 * The private (PRD) histogram of @nthreads threads, each with a private
 * cache: the standalone profiles replicated (homogeneous threads).
 */
int reuse_predict__prd(const struct reuse_predict *rp, int nthreads, struct reuse_hist *out);

/* The distance below which fraction @u of @h's finite mass lies (NAN: none). */
double reuse_predict__quantile(const struct reuse_hist *h, double u);

/*
 * SDCM hit rate of each of @n caches for the stack histogram @h, turned
 * into lines as core/reuse-model.c does (dense data of @mean_size bytes
 * per access at address granularity). NAN where the model cannot say;
 * returns how many are numbers.
 */
int reuse_predict__hit_rates(const struct reuse_hist *h, double mean_size,
			     const struct sdcm_cache *caches, int n, double *hit);

#endif
