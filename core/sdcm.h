/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SDCM, the stack distance cache model of Brehob and Enbody as used by
 * PPT-Multicore (Barai et al., Eq. 1-3): an A-way set-associative LRU cache of B
 * blocks hits an access of reuse distance D (distinct lines in between) iff
 * fewer than A of those D lines map to its set. With random placement each
 * maps there with probability A/B = 1/S (S = B/A sets), so
 *
 *	P(hit | D) = sum_{a=0}^{A-1} C(D, a) (A/B)^a ((B-A)/B)^(D-a)
 *	           = P(Binomial(D, A/B) <= A - 1).
 *
 * Direct mapped (A = 1) gives ((B-1)/B)^D; fully associative (A = B, S = 1)
 * gives D < A. Computed exactly (no normal approximation) by the term
 * recurrence t_{a+1} = t_a (D-a)/(a+1) p/(1-p) in log space with
 * log-sum-exp, from log t_0 = D log1p(-p): stable for any D (it underflows
 * to 0 when the probability is below ~1e-308).
 *
 * The hit rate of a cache given a stack histogram of line reuse distances
 * is sum_bins mass * mean P(hit | D) over the bin / total, where cold and
 * invalidated accesses are misses and D is taken as spread evenly over the
 * bin's integers.
 */
#ifndef LP_SDCM_H
#define LP_SDCM_H
#include <stddef.h>
#include "core/types.h"
#include "core/reuse-hist.h"

#define SDCM_NAME_MAX 16

struct sdcm_cache {
	char name[SDCM_NAME_MAX];	/* "L1", "L2", ... as given */
	u64 size;			/* bytes */
	u32 ways;
	u32 line;			/* bytes */
};

/* P(hit | D) for @ways-way associativity and @blocks blocks (-EINVAL unless
 * 1 <= ways <= blocks). */
int sdcm__hit_prob(u64 d, u64 ways, u64 blocks, double *p);

/* Mean P(hit | D) over the integers of reuse_hist bin @k. */
int sdcm__bin_hit_prob(int k, u64 ways, u64 blocks, double *p);

/*
 * Predicted hit rate of @c for @stack (REUSE_STACK at REUSE_GRAN_LINE, and
 * @c->line must be LP_CACHE_LINE: else -EINVAL; -ENODATA if empty).
 */
int sdcm__hit_rate(const struct sdcm_cache *c, const struct reuse_hist *stack,
		   double *hit);

/*
 * Hit-rate curve: hit[k] for a cache of 2^k lines, k = 0..max_log2 (<= 62),
 * @ways-way associative (0: fully associative; a cache smaller than @ways
 * lines is taken as fully associative).
 */
int sdcm__mrc(const struct reuse_hist *stack, u32 ways, int max_log2,
	      double *hit);

/*
 * Parse "L1=48K:12,L2=2M:16,L3=105M:15" (NAME=SIZE:WAYS[:LINE], SIZE with
 * an optional K, M or G suffix (x1024), LINE 64 by default) into @out (room
 * for @max). 0 and *n set, or -EINVAL with the reason in @err.
 */
int sdcm__parse(const char *spec, struct sdcm_cache *out, int max, int *n,
		char *err, size_t errlen);

#endif
