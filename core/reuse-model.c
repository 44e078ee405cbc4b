// SPDX-License-Identifier: GPL-2.0
#include <math.h>

#include "core/reuse-model.h"

void reuse_model__line_hist(const struct reuse_result *res, struct reuse_hist *out)
{
	int k, shift = 0;

	if (res->gran == REUSE_GRAN_LINE) {
		*out = res->stack;
		return;
	}
	if (res->mean_access_size > 0 && res->mean_access_size < LP_CACHE_LINE)
		shift = (int)lround(log2(LP_CACHE_LINE / res->mean_access_size));
	reuse_hist__init(out, REUSE_STACK, REUSE_GRAN_LINE);
	out->cold = res->stack.cold;
	out->inval = res->stack.inval;
	for (k = 0; k < REUSE_HIST_NBINS; k++)
		out->bin[k - shift >= 1 ? k - shift : 0] += res->stack.bin[k];
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
