// SPDX-License-Identifier: GPL-2.0
/* Shared-cache prediction: Jiang et al.'s CRD model and PPT-Multicore's interleaving. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "core/tests.h"
#include "core/hash.h"
#include "core/reuse-predict.h"

/*
 * @nthr threads, turns of @turn accesses round-robin; thread x sweeps
 * its private array of @npriv lines cyclically, and with probability
 * @pshared (per access, seeded) touches a random line of a shared pool
 * of @nshared lines instead. Line granularity (addresses are lines x 64).
 */
static int feed(struct reuse_predict *rp, int nthr, int turn, u64 per_thread, u64 npriv,
		double pshared, u64 nshared)
{
	u64 seed = 42, i, pos[64] = { 0 };
	int x, s, err;

	for (i = 0; i < per_thread; i += turn)
		for (x = 0; x < nthr; x++)
			for (s = 0; s < turn; s++) {
				u64 r = lp_splitmix64(&seed), line;

				if ((double)(r >> 11) / 9007199254740992.0 < pshared)
					line = (1ull << 30) + lp_splitmix64(&seed) % nshared;
				else
					line = ((u64)(x + 1) << 32) + pos[x]++ % npriv;
				err = reuse_predict__access(rp, (u32)(100 + x), line << 6);
				if (err)
					return err;
			}
	return reuse_predict__finish(rp);
}

static int predict_s(const struct reuse_predict *rp, enum reuse_predict_model m,
		     const struct reuse_predict_opts *o, double *s)
{
	struct reuse_hist meas, pred;
	int err = reuse_predict__measured(rp, &meas);

	if (!err)
		err = reuse_predict__crd(rp, m, o, &pred);
	if (!err)
		err = reuse_hist__similarity(&meas, &pred, REUSE_HIST_COLD, s);
	return err;
}

LP_TEST(test_reuse_predict_disjoint_pair, "reuse-predict: two cyclic threads, no sharing: both models match the exact CRD")
{
	struct reuse_predict_opts o = { .nthreads = 2 };
	struct reuse_predict *rp;
	double s;
	int m;

	TEST_ASSERT(!reuse_predict__new(REUSE_GRAN_LINE, 1 << 20, &rp), "new");
	TEST_ASSERT(!feed(rp, 2, 1, 4000, 100, 0, 1), "feed");
	TEST_ASSERT(reuse_predict__nr_threads(rp) == 2, "threads %d", reuse_predict__nr_threads(rp));
	TEST_ASSERT(reuse_predict__thread(rp, 0)->distinct == 100 &&
		    reuse_predict__thread(rp, 0)->shared == 0, "distinct %llu shared %llu",
		    (unsigned long long)reuse_predict__thread(rp, 0)->distinct,
		    (unsigned long long)reuse_predict__thread(rp, 0)->shared);
	for (m = 0; m < REUSE_PREDICT_NMODELS; m++) {
		TEST_ASSERT(!predict_s(rp, m, &o, &s), "%s", reuse_predict_model_names[m]);
		TEST_ASSERT(s > 0.99, "%s: S = %.4f", reuse_predict_model_names[m], s);
	}
	reuse_predict__delete(rp);
	return TEST_OK;
}

LP_TEST(test_reuse_predict_scales_one_thread_to_four, "reuse-predict: one cyclic thread of 100 lines predicts CRD 399 at four threads")
{
	struct reuse_predict_opts o = { .nthreads = 4, .quantum = 1 };
	struct sdcm_cache c = { "L3", 256 * 64, 256, 64 };	/* fully associative, 256 lines */
	struct reuse_predict *rp, *four;
	struct reuse_hist h, meas;
	double hit, s;
	int m;

	TEST_ASSERT(!reuse_predict__new(REUSE_GRAN_LINE, 1 << 20, &rp), "new");
	TEST_ASSERT(!feed(rp, 1, 1, 4000, 100, 0, 1), "feed");
	TEST_ASSERT(!reuse_predict__new(REUSE_GRAN_LINE, 1 << 20, &four), "new");
	TEST_ASSERT(!feed(four, 4, 1, 4000, 100, 0, 1), "feed four");
	TEST_ASSERT(!reuse_predict__measured(four, &meas), "measured");
	for (m = 0; m < REUSE_PREDICT_NMODELS; m++) {
		TEST_ASSERT(!reuse_predict__crd(rp, m, &o, &h), "%s", reuse_predict_model_names[m]);
		/* 99 own lines + 3 co-runners x 100 = 399, bin [256, 511] */
		TEST_ASSERT(h.bin[reuse_hist__bin(399)] > 0.99 * reuse_hist__total(&h, 0),
			    "%s: %.0f of %.0f at 256-511", reuse_predict_model_names[m],
			    h.bin[reuse_hist__bin(399)], reuse_hist__total(&h, 0));
		TEST_ASSERT(!reuse_hist__similarity(&meas, &h, REUSE_HIST_COLD, &s) && s > 0.99,
			    "%s: S against the four-thread trace %.4f", reuse_predict_model_names[m], s);
		TEST_ASSERT(reuse_predict__hit_rates(&h, 64, &c, 1, &hit) == 1 && hit < 0.01,
			    "%s: 256 lines hit %.3f", reuse_predict_model_names[m], hit);
	}
	o.nthreads = 1;
	TEST_ASSERT(!reuse_predict__crd(rp, REUSE_PREDICT_JIANG, &o, &h), "one");
	TEST_ASSERT(reuse_predict__hit_rates(&h, 64, &c, 1, &hit) == 1 && hit > 0.95,
		    "one thread: 256 lines hit %.3f", hit);
	reuse_predict__delete(rp);
	reuse_predict__delete(four);
	return TEST_OK;
}

LP_TEST(test_reuse_predict_sharing_correction, "reuse-predict: with shared data, Jiang's Part II beats assuming none")
{
	struct reuse_predict_opts o = { .nthreads = 2 }, none = { .nthreads = 2, .no_sharing = 1 };
	struct reuse_predict *rp;
	double s, s_none;

	TEST_ASSERT(!reuse_predict__new(REUSE_GRAN_LINE, 1 << 20, &rp), "new");
	TEST_ASSERT(!feed(rp, 2, 4, 8000, 200, 0.5, 64), "feed");
	TEST_ASSERT(reuse_predict__thread(rp, 0)->shared == 64 &&
		    reuse_predict__thread(rp, 1)->shared == 64, "shared %llu",
		    (unsigned long long)reuse_predict__thread(rp, 0)->shared);
	TEST_ASSERT(!predict_s(rp, REUSE_PREDICT_JIANG, &o, &s), "jiang");
	TEST_ASSERT(!predict_s(rp, REUSE_PREDICT_JIANG, &none, &s_none), "jiang, no sharing");
	TEST_ASSERT(s > s_none + 0.05 && s > 0.85, "S with Part II %.4f, without %.4f", s, s_none);
	TEST_ASSERT(!predict_s(rp, REUSE_PREDICT_PPT, &o, &s), "ppt");
	TEST_ASSERT(s > 0.85, "ppt S %.4f", s);
	reuse_predict__delete(rp);
	return TEST_OK;
}

LP_TEST(test_reuse_predict_ppt_needs_the_streams, "reuse-predict: PPT refuses a trace past max_stream, Jiang still predicts")
{
	struct reuse_predict_opts o = { .nthreads = 2 };
	struct reuse_predict *rp;
	struct reuse_hist h;

	TEST_ASSERT(!reuse_predict__new(REUSE_GRAN_LINE, 100, &rp), "new");
	TEST_ASSERT(reuse_predict__crd(rp, REUSE_PREDICT_JIANG, &o, &h) == -EINVAL, "before finish");
	TEST_ASSERT(!feed(rp, 2, 1, 200, 10, 0, 1), "feed");
	TEST_ASSERT(reuse_predict__crd(rp, REUSE_PREDICT_PPT, &o, &h) == -E2BIG, "ppt");
	TEST_ASSERT(!reuse_predict__crd(rp, REUSE_PREDICT_JIANG, &o, &h), "jiang");
	TEST_ASSERT(fabs(reuse_hist__total(&h, REUSE_HIST_ALL) - 400) < 1e-6, "total %g",
		    reuse_hist__total(&h, REUSE_HIST_ALL));
	o.nthreads = 0;
	TEST_ASSERT(reuse_predict__crd(rp, REUSE_PREDICT_JIANG, &o, &h) == -EINVAL, "0 threads");
	reuse_predict__delete(rp);
	return TEST_OK;
}
