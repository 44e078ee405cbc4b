/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cache model over a reuse result: its stack distances in cache lines
 * and the SDCM hit rate of each modelled cache (Documentation/algorithms.md,
 * "Hit rates"). Pure arithmetic; the printers call it, they compute nothing.
 */
#ifndef LP_REUSE_MODEL_H
#define LP_REUSE_MODEL_H
#include "core/reuse.h"
#include "core/sdcm.h"

/*
 * The result's stack histogram in distinct cache lines: as measured at
 * line granularity, else from address distances assuming dense data,
 * d_lines ~ d_addr x mean access size / 64 (a shift of log2(64 / size)
 * bins). The reuses shorter than the resolution are at 0: hits in every
 * cache reuse_model__resolved accepts.
 */
void reuse_model__line_hist(const struct reuse_result *res, struct reuse_hist *out);

/*
 * SDCM hit rate of each of @n caches into @hit (NAN where the model
 * cannot say). Returns how many are numbers.
 */
int reuse_model__hit_rates(const struct reuse_result *res, const struct sdcm_cache *caches,
			   int n, double *hit);

/*
 * The standard errors of reuse_model__hit_rates' @hit (sampled results:
 * res->stack_err; 0 where a hit rate is NAN) into @se: the hit rate is a
 * ratio of weighted sums over every detection (a reuse counts its bin's
 * SDCM hit probability p_k, an invalidation or a cold one 0), so by the
 * same linearization as reuse_hist_err__se, se = sqrt(sum_k a_k (p_k -
 * hit)^2) / W over the bins in lines (short reuses at 0), the
 * invalidated and the cold ones. The sampling's error only.
 */
void reuse_model__hit_se(const struct reuse_result *res, const struct sdcm_cache *caches,
			 int n, const double *hit, double *se);

/*
 * Whether the result resolves cache @c: its reuses shorter than the
 * resolution, at most N - 1 lines apart (N: resolution.accesses), hit @c
 * with SDCM probability >= REUSE_MODEL_SURE even at that distance, so
 * their unknown distances move its hit rate by less than 1 - that. Always
 * when exact, and for a geometry SDCM cannot model (its hit rate is NAN);
 * never when the resolution is unknown.
 */
#define REUSE_MODEL_SURE	0.99
int reuse_model__resolved(const struct reuse_result *res, const struct sdcm_cache *c);

/*
 * The smallest fully associative cache, in lines, the result resolves
 * (its short reuses all hit it): N rounded up, 0 when exact, ~0 when the
 * resolution is unknown. For the miss-ratio curve.
 */
u64 reuse_model__resolved_lines(const struct reuse_result *res);

#endif
