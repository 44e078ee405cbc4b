// SPDX-License-Identifier: GPL-2.0
/* The cache model over a reuse result: line histograms and hit rates. */
#include <math.h>
#include <string.h>

#include "core/reuse-model.h"
#include "core/tests.h"

LP_TEST(test_reuse_model_line_hist, "reuse model: address distances of 8-byte data become lines 3 bins lower")
{
	struct reuse_result res;
	struct reuse_hist lh;

	memset(&res, 0, sizeof(res));
	res.gran = REUSE_GRAN_ADDR;
	res.mean_access_size = 8;
	reuse_hist__init(&res.stack, REUSE_STACK, REUSE_GRAN_ADDR);
	res.stack.bin[10] = 5;	/* 8 bytes x 2^9..2^10 addresses: 2^6..2^7 lines */
	res.stack.bin[2] = 3;	/* within one line: distance 0 */
	res.stack.cold = 2;
	reuse_model__line_hist(&res, &lh);
	TEST_ASSERT(lh.bin[7] == 5 && lh.bin[10] == 0, "bin 7 %g, bin 10 %g", lh.bin[7], lh.bin[10]);
	TEST_ASSERT(lh.bin[0] == 3 && lh.cold == 2, "bin 0 %g cold %g", lh.bin[0], lh.cold);
	res.gran = REUSE_GRAN_LINE;	/* measured in lines: taken as is */
	reuse_model__line_hist(&res, &lh);
	TEST_ASSERT(lh.bin[10] == 5 && lh.bin[7] == 0, "line histogram shifted");
	return TEST_OK;
}

LP_TEST(test_reuse_model_hit_rates, "reuse model: hit rates per cache, NAN where SDCM cannot say")
{
	struct sdcm_cache c[3] = {
		{ "L1", 32768, 8, 64 },		/* 512 lines */
		{ "L2", 1 << 20, 16, 64 },	/* 16384 lines */
		{ "bad", 64, 8, 64 },		/* fewer lines than ways */
	};
	struct reuse_result res;
	double hit[3], want;
	int n;

	memset(&res, 0, sizeof(res));
	res.gran = REUSE_GRAN_LINE;
	reuse_hist__init(&res.stack, REUSE_STACK, REUSE_GRAN_LINE);
	res.stack.bin[5] = 1;		/* short: hits in both */
	res.stack.bin[12] = 1;		/* ~2K-4K lines: misses L1, hits L2 */
	n = reuse_model__hit_rates(&res, c, 3, hit);
	TEST_ASSERT(n == 2 && isnan(hit[2]), "n %d, bad cache %g", n, hit[2]);
	TEST_ASSERT(hit[0] > 0.45 && hit[0] < 0.55 && hit[1] > 0.95, "L1 %g L2 %g", hit[0], hit[1]);
	TEST_ASSERT(sdcm__hit_rate(&c[0], &res.stack, &want) == 0 && want == hit[0], "not SDCM's");
	return TEST_OK;
}
