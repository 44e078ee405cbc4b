// SPDX-License-Identifier: GPL-2.0
#include <math.h>

#include "core/reuse-model.h"

/* log2(64 / mean access size) bins: address distances to lines (dense data) */
static int rm_shift(const struct reuse_result *res)
{
	if (res->gran == REUSE_GRAN_LINE)
		return 0;
	if (res->mean_access_size > 0 && res->mean_access_size < LP_CACHE_LINE)
		return (int)lround(log2(LP_CACHE_LINE / res->mean_access_size));
	return 0;
}

void reuse_model__line_hist(const struct reuse_result *res, struct reuse_hist *out)
{
	int k, shift = rm_shift(res);

	if (res->gran == REUSE_GRAN_LINE) {
		*out = res->stack;
		out->bin[0] += res->resolution.short_reuses;
		return;
	}
	reuse_hist__init(out, REUSE_STACK, REUSE_GRAN_LINE);
	out->cold = res->stack.cold;
	out->inval = res->stack.inval;
	for (k = 0; k < REUSE_HIST_NBINS; k++)
		out->bin[k - shift >= 1 ? k - shift : 0] += res->stack.bin[k];
	out->bin[0] += res->resolution.short_reuses;
}

/* Fewer than N accesses in between: at most ceil(N) - 1 distinct lines. */
static u64 rm_short_max(const struct reuse_result *res)
{
	double n = ceil(res->resolution.accesses);

	return n >= 1 ? (u64)(n > 1.8e19 ? 1.8e19 : n) - 1 : 0;
}

int reuse_model__resolved(const struct reuse_result *res, const struct sdcm_cache *c)
{
	double p;

	if (res->resolution.source == REUSE_RES_UNKNOWN)
		return 0;
	if (!(res->resolution.accesses > 0))
		return 1;
	if (!c->line || sdcm__hit_prob(rm_short_max(res), c->ways, c->size / c->line, &p))
		return 1;	/* a geometry SDCM cannot model: its hit rate says so */
	return p >= REUSE_MODEL_SURE;
}

u64 reuse_model__resolved_lines(const struct reuse_result *res)
{
	if (res->resolution.source == REUSE_RES_UNKNOWN)
		return ~0ull;
	return res->resolution.accesses > 0 ? rm_short_max(res) + 1 : 0;
}

int reuse_model__hit_rates(const struct reuse_result *res, const struct sdcm_cache *caches,
			   int n, double *hit)
{
	struct reuse_hist lh;
	int i, ok = 0;

	reuse_model__line_hist(res, &lh);
	for (i = 0; i < n; i++) {
		if (sdcm__hit_rate(&caches[i], &lh, &hit[i]))
			hit[i] = NAN;
		else
			ok++;
	}
	return ok;
}

void reuse_model__hit_se(const struct reuse_result *res, const struct sdcm_cache *caches,
			 int n, const double *hit, double *se)
{
	const struct reuse_hist_err *e = &res->stack_err;
	double a[REUSE_HIST_NBINS] = { 0 }, W, A;
	struct reuse_hist lh;
	int i, k, shift = rm_shift(res);

	reuse_model__line_hist(res, &lh);
	W = reuse_hist__total(&lh, REUSE_HIST_ALL);
	for (k = 0; k < REUSE_HIST_NBINS; k++)	/* the line histogram's bins */
		a[k - shift >= 1 ? k - shift : 0] += e->a[k];
	a[0] += e->a_short;
	A = e->a_inval + e->a_cold;
	for (k = 0; k < REUSE_HIST_NBINS; k++)
		A += a[k];
	for (i = 0; i < n; i++) {
		double v = (e->a_inval + e->a_cold) * hit[i] * hit[i], p;

		se[i] = 0;
		if (isnan(hit[i]) || !(W > 0))
			continue;
		for (k = 0; k < REUSE_HIST_NBINS; k++)
			if (a[k] > 0 && !sdcm__bin_hit_prob(k, caches[i].ways,
							    caches[i].size / caches[i].line, &p))
				v += a[k] * (p - hit[i]) * (p - hit[i]);
		se[i] = sqrt(v) / W;
		/*
		 * no fewer than one detection's worth: a rate near 0 or 1 from
		 * no miss (or no hit) at all has no spread to measure, yet one
		 * detection of the mean weight would move it by 1 / n_eff
		 * (n_eff = W^2 / A, Kish's effective sample size)
		 */
		if (se[i] < A / (W * W))
			se[i] = A / (W * W);
	}
}
