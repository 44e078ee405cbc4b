// SPDX-License-Identifier: GPL-2.0
/* The cache model over a reuse result: line histograms and hit rates. */
#include <inttypes.h>
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

/* An empty result measured in lines, as an exact engine's (memset). */
static void line_result(struct reuse_result *res)
{
	memset(res, 0, sizeof(*res));
	res->gran = REUSE_GRAN_LINE;
	reuse_hist__init(&res->stack, REUSE_STACK, REUSE_GRAN_LINE);
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

	line_result(&res);
	res.stack.bin[5] = 1;		/* short: hits in both */
	res.stack.bin[12] = 1;		/* ~2K-4K lines: misses L1, hits L2 */
	n = reuse_model__hit_rates(&res, c, 3, hit);
	TEST_ASSERT(n == 2 && isnan(hit[2]), "n %d, bad cache %g", n, hit[2]);
	TEST_ASSERT(hit[0] > 0.45 && hit[0] < 0.55 && hit[1] > 0.95, "L1 %g L2 %g", hit[0], hit[1]);
	TEST_ASSERT(sdcm__hit_rate(&c[0], &res.stack, &want) == 0 && want == hit[0], "not SDCM's");
	return TEST_OK;
}

LP_TEST(test_reuse_model_resolution,
	"reuse model: a level is resolved when the short reuses surely hit it, and they count as hits there")
{
	struct sdcm_cache c[4] = {
		{ "L1", 49152, 12, 64 },	/* 768 lines, 64 sets */
		{ "L2", 1 << 20, 16, 64 },	/* 16384 lines, 1024 sets */
		{ "FA1", 1000 * 64, 1000, 64 },	/* fully associative, 1000 lines */
		{ "FA2", 999 * 64, 999, 64 },
	};
	struct reuse_result res;
	double hit[4], p;
	int i;

	line_result(&res);
	res.stack.bin[30] = 1;		/* ~2^29 lines: misses every cache here */
	/* a memset result (an exact engine's) resolves everything */
	for (i = 0; i < 4; i++)
		TEST_ASSERT(reuse_model__resolved(&res, &c[i]), "exact: %s", c[i].name);
	TEST_ASSERT(reuse_model__resolved_lines(&res) == 0, "exact: from 0 lines");

	/* fewer than 1000 accesses: at most 999 lines apart */
	res.resolution.source = REUSE_RES_STATED;
	res.resolution.ns = 1000;
	res.resolution.accesses = 1000;
	res.resolution.short_reuses = 1;
	TEST_ASSERT(sdcm__hit_prob(999, 12, 768, &p) == 0 && p < REUSE_MODEL_SURE,
		    "L1 at 999 lines: %g", p);
	TEST_ASSERT(!reuse_model__resolved(&res, &c[0]), "L1 (768 lines) resolved at 999 lines");
	TEST_ASSERT(reuse_model__resolved(&res, &c[1]), "L2 (16384 lines) not resolved");
	TEST_ASSERT(reuse_model__resolved(&res, &c[2]) && !reuse_model__resolved(&res, &c[3]),
		    "fully associative: 1000 lines hold 999 apart, 999 do not");
	{	/* 8-way, 999 lines apart: 320 sets hit with P 0.985, 384 sets with 0.995 */
		struct sdcm_cache a = { "A", 320 * 8 * 64, 8, 64 }, b = { "B", 384 * 8 * 64, 8, 64 };

		TEST_ASSERT(!reuse_model__resolved(&res, &a) && reuse_model__resolved(&res, &b),
			    "the 99%% line: 320 sets %d, 384 sets %d", reuse_model__resolved(&res, &a),
			    reuse_model__resolved(&res, &b));
	}
	TEST_ASSERT(reuse_model__resolved_lines(&res) == 1000, "from %" PRIu64 " lines",
		    reuse_model__resolved_lines(&res));
	/* the short reuse hits where resolved: half of the two reuses */
	TEST_ASSERT(reuse_model__hit_rates(&res, c, 4, hit) == 4, "hit rates");
	TEST_ASSERT(fabs(hit[1] - 0.5) < 1e-6 && fabs(hit[2] - 0.5) < 1e-6, "L2 %g FA1 %g",
		    hit[1], hit[2]);

	/* timed reuses, no resolution: nothing resolved */
	res.resolution.source = REUSE_RES_UNKNOWN;
	for (i = 0; i < 4; i++)
		TEST_ASSERT(!reuse_model__resolved(&res, &c[i]), "unknown: %s resolved", c[i].name);
	TEST_ASSERT(reuse_model__resolved_lines(&res) == ~0ull, "unknown: no size resolved");
	return TEST_OK;
}

LP_TEST(test_reuse_model_hit_se, "reuse model: a hit rate's standard error from the detections' weights, by hand")
{
	struct sdcm_cache c = { "L1", 1024 * 64, 1024, 64 };	/* fully associative, 1024 lines */
	struct reuse_result res;
	double hit, se;
	int j;

	line_result(&res);
	/* bin 3 (4-7 lines, hit for sure): weights 1 and 4; bin 20: 2; cold: 3 */
	res.stack.bin[3] = 5;
	res.stack.bin[20] = 2;
	res.stack.cold = 3;
	reuse_hist_err__add(&res.stack_err, 3, 1, 0);
	reuse_hist_err__add(&res.stack_err, 3, 4, 0);
	reuse_hist_err__add(&res.stack_err, 20, 2, 0);
	reuse_hist_err__add(&res.stack_err, REUSE_ERR_COLD, 3, 0);
	TEST_ASSERT(reuse_model__hit_rates(&res, &c, 1, &hit) == 1 && fabs(hit - 0.5) < 1e-12,
		    "hit %g", hit);
	/*
	 * sqrt(sum of a (p - hit)^2: (17 + 4 + 9) .25) / W = sqrt(7.5) / 10 =
	 * 0.274, but four detections this unequal are worth n_eff = W^2 / A =
	 * 100 / 30 of weight 1: no less than 1 / n_eff = 0.3
	 */
	reuse_model__hit_se(&res, &c, 1, &hit, &se);
	TEST_ASSERT(fabs(se - 0.3) < 1e-12, "se %.6f, want 0.3", se);
	/* 100 hits and 100 misses of weight 1: sqrt(200 x .25) / 200, binomial */
	line_result(&res);
	for (j = 0; j < 100; j++) {
		reuse_hist__add(&res.stack, 5, 1);
		reuse_hist__add(&res.stack, 1u << 20, 1);
		reuse_hist_err__add(&res.stack_err, 3, 1, 0);
		reuse_hist_err__add(&res.stack_err, 21, 1, 0);
	}
	reuse_model__hit_rates(&res, &c, 1, &hit);
	reuse_model__hit_se(&res, &c, 1, &hit, &se);
	TEST_ASSERT(fabs(hit - 0.5) < 1e-12 && fabs(se - sqrt(50) / 200) < 1e-12,
		    "binomial: hit %g se %.6f, want %.6f", hit, se, sqrt(50) / 200);
	/* at address granularity the bins move to lines as the histogram does */
	res.gran = REUSE_GRAN_ADDR;
	res.mean_access_size = 8;
	res.stack.bin[6] = res.stack.bin[3];	/* 32-63 addresses: 4-7 lines */
	res.stack.bin[3] = 0;
	res.stack.bin[24] = res.stack.bin[21];	/* bin 21 in lines */
	res.stack.bin[21] = 0;
	memset(&res.stack_err, 0, sizeof(res.stack_err));
	for (j = 0; j < 100; j++) {
		reuse_hist_err__add(&res.stack_err, 6, 1, 0);
		reuse_hist_err__add(&res.stack_err, 24, 1, 0);
	}
	reuse_model__hit_rates(&res, &c, 1, &hit);
	reuse_model__hit_se(&res, &c, 1, &hit, &se);
	TEST_ASSERT(fabs(hit - 0.5) < 1e-12 && fabs(se - sqrt(50) / 200) < 1e-12,
		    "address: hit %g se %.6f", hit, se);
	/* every detection a hit: no spread, one detection's worth, 1 / 200 */
	res.stack.bin[6] = 200;
	res.stack.bin[24] = 0;
	memset(&res.stack_err, 0, sizeof(res.stack_err));
	for (j = 0; j < 200; j++)
		reuse_hist_err__add(&res.stack_err, 6, 1, 0);
	reuse_model__hit_rates(&res, &c, 1, &hit);
	reuse_model__hit_se(&res, &c, 1, &hit, &se);
	TEST_ASSERT(hit == 1 && fabs(se - 0.005) < 1e-12, "all hits: se %.6f", se);
	return TEST_OK;
}
