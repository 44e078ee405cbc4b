/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reuse histograms: power-of-two bins of a reuse distance, plus explicit
 * cold and invalidated bins, with double weights (a sample stands for
 * `period` accesses).
 *
 * Two metrics share the type:
 *   REUSE_STACK  stack (LRU) reuse distance d: the number of DISTINCT other
 *                addresses (or lines) accessed between the use and the reuse.
 *                "a a" gives 0, "a b c a" gives 2. A fully associative LRU
 *                cache of C entries hits iff d < C.
 *   REUSE_TIME   time reuse distance t: the number of accesses strictly
 *                between the use and the reuse (Sasongko 2022, 6.2.1: in
 *                a1 b1 c1 b2 d1 d2 a2, t = 5 and d = 3). Note: Jiang et al. and
 *                Xiang et al. count t2 - t1 instead, which is t + 1.
 *
 * Bins: bin 0 holds distance 0, bin k >= 1 holds [2^(k-1), 2^k), so bin 1
 * is {1}, bin 2 is {2,3}, bin 3 is {4..7}, ..., bin 64 is [2^63, 2^64).
 * reuse_hist__bin_lo()/bin_max() give each bin's inclusive bounds.
 *
 * cold:  first access to the address in the stream (infinite distance);
 * inval: the access found its previous use invalidated by another thread's
 *        store (Sasongko 2022, Definition 6.2.2); a miss, also infinite distance.
 */
#ifndef LP_REUSE_HIST_H
#define LP_REUSE_HIST_H
#include "core/types.h"

#define REUSE_HIST_NBINS 65

enum reuse_metric {
	REUSE_STACK = 0,	/* distinct addresses in between */
	REUSE_TIME = 1,		/* accesses in between */
};

enum reuse_gran {
	REUSE_GRAN_ADDR = 0,	/* exact byte address */
	REUSE_GRAN_LINE = 1,	/* 64-byte line: address >> 6 */
};

struct reuse_hist {
	enum reuse_metric metric;
	enum reuse_gran gran;
	double bin[REUSE_HIST_NBINS];
	double cold;
	double inval;
};

/* Which infinite bins a normalization or comparison includes. */
#define REUSE_HIST_COLD		(1 << 0)
#define REUSE_HIST_INVAL	(1 << 1)
#define REUSE_HIST_ALL		(REUSE_HIST_COLD | REUSE_HIST_INVAL)

void reuse_hist__init(struct reuse_hist *h, enum reuse_metric metric,
		      enum reuse_gran gran);

/* Bin index of distance @d, and the inclusive bounds of bin @k. */
int reuse_hist__bin(u64 d);
u64 reuse_hist__bin_lo(int k);
u64 reuse_hist__bin_max(int k);

/* Add weight @w (finite, >= 0; else -EINVAL) at distance @d / cold / inval. */
int reuse_hist__add(struct reuse_hist *h, u64 d, double w);
int reuse_hist__add_cold(struct reuse_hist *h, double w);
int reuse_hist__add_inval(struct reuse_hist *h, double w);

/* Sum of the finite bins, plus cold and/or inval as @flags say. */
double reuse_hist__total(const struct reuse_hist *h, int flags);

/* dst += src; -EINVAL if metric or granularity differ. */
int reuse_hist__merge(struct reuse_hist *dst, const struct reuse_hist *src);

/*
 * Divide every bin (cold and inval too) by reuse_hist__total(h, flags), so
 * the parts @flags include sum to 1. -ENODATA if that total is 0.
 */
int reuse_hist__normalize(struct reuse_hist *h, int flags);

/*
 * What a sampled histogram's bins rest on (Documentation/reuse-estimator.md,
 * "Sampling error"): per bin the detections in it, how many of them had
 * their weight capped, and the sum of w^2 of their weights w (the
 * Horvitz-Thompson variance of a bin's weight, in detection units, when
 * each access is taken independently with probability 1 / (period x w)),
 * and the same for the reuses kept apart as shorter than the resolution
 * and for the invalidated and cold ones.
 */
struct reuse_hist_err {
	u32 n[REUSE_HIST_NBINS];
	u32 capped[REUSE_HIST_NBINS];
	double a[REUSE_HIST_NBINS];
	u32 n_short;
	double a_short;
	double a_inval, a_cold;		/* the infinite bins' (hit-rate errors) */
};

#define REUSE_ERR_SHORT	(-1)
#define REUSE_ERR_INVAL	(-2)
#define REUSE_ERR_COLD	(-3)

/*
 * Count a detection of weight @w (@capped: at the cap) in bin @k, or in
 * REUSE_ERR_SHORT / _INVAL / _COLD.
 */
void reuse_hist_err__add(struct reuse_hist_err *e, int k, double w, int capped);
void reuse_hist_err__merge(struct reuse_hist_err *dst, const struct reuse_hist_err *src);

/*
 * The standard error of bin @k's fraction of @h's reuses (finite bins plus
 * @nshort short ones), by linearizing the ratio: sqrt(a_k (1 - f)^2 +
 * (A - a_k) f^2) / W, A the sum of every bin's a and W the reuses' weight.
 * @k = -1: the short reuses' fraction. 0 when nothing was weighted.
 */
double reuse_hist_err__se(const struct reuse_hist_err *e, const struct reuse_hist *h,
			  double nshort, int k);

/*
 * Histogram similarity of Sasongko 2022 (6.5.1): S = 1 - sum_i |B_i - B'_i| / 2
 * over normalized histograms; the bins are the finite ones plus cold and/or
 * inval per @flags. S is in [0, 1], 1 for identical shapes.
 * -EINVAL if metric or granularity differ, -ENODATA if one is empty.
 */
int reuse_hist__similarity(const struct reuse_hist *a,
			   const struct reuse_hist *b, int flags, double *s);

/*
 * Footprint of a time histogram (Xiang et al.'s HOTL theory as used by
 * Sasongko 2022, 6.2.1; Documentation/algorithms.md): the expected number of distinct addresses
 * in a window of @w consecutive accesses,
 *
 *	fp(w) = sum_{i=0}^{w-1} P(rt > i),	rt = t + 1,
 *
 * where cold and invalidated accesses have infinite reuse time. Within a
 * time bin the mass is taken as spread evenly over the bin's integers (exact
 * for bins 0 and 1); fp is exact under that assumption at integer w and
 * linear in between. -EINVAL if @h is not REUSE_TIME or w < 0, -ENODATA if
 * empty.
 */
int reuse_hist__footprint(const struct reuse_hist *h, double w, double *fp);

/*
 * The footprint of @h for many evaluations: reuse_fp__init keeps what it
 * needs of @h (which must outlive it) and fails as reuse_hist__footprint
 * does. reuse_fp__dist(t) = G(t) = sum_{j<t} P(T > j), T the time distance:
 * the expected distinct addresses among t accesses in a row that are not
 * reused within them, the stack distance of time distance t (the map of
 * reuse_hist__time_to_stack), linear between integers, 0 for t <= 0;
 * fp(w) = 1 + G(w - 1).
 */
struct reuse_fp {
	double total;
	double n[REUSE_HIST_NBINS];
	double above[REUSE_HIST_NBINS];
	double gcum[REUSE_HIST_NBINS];
	const double *m;
};

int reuse_fp__init(struct reuse_fp *fp, const struct reuse_hist *h);
double reuse_fp__dist(const struct reuse_fp *fp, double t);

/*
 * Time -> stack histogram: an access with time distance t gets stack
 * distance d(t) = fp(t + 1) - 1 = sum_{j<t} P(T > j), rounded to the nearest
 * integer. Each time bin's mass is spread evenly over its integers t and
 * each t's share goes to the stack bin of d(t) (d is monotone, so the split
 * is found by bisection over t, exact for any bin width). Cold and inval
 * carry over. @stack gets the granularity of @time. -EINVAL if @time is not
 * REUSE_TIME, -ENODATA if empty.
 */
int reuse_hist__time_to_stack(const struct reuse_hist *time,
			      struct reuse_hist *stack);

#endif
