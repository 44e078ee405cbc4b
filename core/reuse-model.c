// SPDX-License-Identifier: GPL-2.0
#include <math.h>

#include "core/reuse-model.h"

void reuse_model__line_hist(const struct reuse_result *res, struct reuse_hist *out)
{
	int k, shift = 0;

	if (res->gran == REUSE_GRAN_LINE) {
		*out = res->stack;
		out->bin[0] += res->resolution.short_reuses;
		return;
	}
	if (res->mean_access_size > 0 && res->mean_access_size < LP_CACHE_LINE)
		shift = (int)lround(log2(LP_CACHE_LINE / res->mean_access_size));
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
