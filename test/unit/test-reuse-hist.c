// SPDX-License-Identifier: GPL-2.0
/* Reuse histograms: bins, normalization, similarity, footprint conversion. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "core/tests.h"
#include "core/reuse-hist.h"
#include "core/reuse-exact.h"

#define NEAR(a, b, eps) (fabs((a) - (b)) <= (eps))

LP_TEST(test_reuse_hist_bins, "reuse-hist: bin 0 = {0}, bin k = [2^(k-1), 2^k)")
{
	int k;

	TEST_ASSERT(reuse_hist__bin(0) == 0, "0");
	TEST_ASSERT(reuse_hist__bin(1) == 1, "1");
	TEST_ASSERT(reuse_hist__bin(2) == 2 && reuse_hist__bin(3) == 2, "2,3");
	TEST_ASSERT(reuse_hist__bin(4) == 3 && reuse_hist__bin(7) == 3, "4,7");
	TEST_ASSERT(reuse_hist__bin(1000) == 10, "1000 -> %d", reuse_hist__bin(1000));
	TEST_ASSERT(reuse_hist__bin(UINT64_MAX) == 64, "max");
	TEST_ASSERT(reuse_hist__bin_lo(3) == 4 && reuse_hist__bin_max(3) == 7, "bin 3");
	TEST_ASSERT(reuse_hist__bin_lo(0) == 0 && reuse_hist__bin_max(0) == 0, "bin 0");
	for (k = 0; k < REUSE_HIST_NBINS; k++) {
		TEST_ASSERT(reuse_hist__bin(reuse_hist__bin_lo(k)) == k, "lo of %d", k);
		TEST_ASSERT(reuse_hist__bin(reuse_hist__bin_max(k)) == k, "max of %d", k);
		if (k < 64)
			TEST_ASSERT(reuse_hist__bin_max(k) + 1 == reuse_hist__bin_lo(k + 1),
				    "bins %d, %d are not adjacent", k, k + 1);
	}
	return TEST_OK;
}

LP_TEST(test_reuse_hist_add_merge, "reuse-hist: weighted adds, bad weights, merge checks tags")
{
	struct reuse_hist a, b;

	reuse_hist__init(&a, REUSE_STACK, REUSE_GRAN_LINE);
	reuse_hist__init(&b, REUSE_STACK, REUSE_GRAN_LINE);
	TEST_ASSERT(!reuse_hist__add(&a, 5, 2.5), "add");
	TEST_ASSERT(!reuse_hist__add(&a, 6, 0.5), "add");
	TEST_ASSERT(reuse_hist__add(&a, 6, -1) == -EINVAL, "negative weight");
	TEST_ASSERT(reuse_hist__add(&a, 6, NAN) == -EINVAL, "NaN weight");
	TEST_ASSERT(reuse_hist__add_cold(&a, INFINITY) == -EINVAL, "inf weight");
	TEST_ASSERT(!reuse_hist__add_cold(&b, 1) && !reuse_hist__add_inval(&b, 2), "cold");
	TEST_ASSERT(a.bin[3] == 3.0, "bin3=%g", a.bin[3]);
	TEST_ASSERT(!reuse_hist__merge(&a, &b), "merge");
	TEST_ASSERT(reuse_hist__total(&a, REUSE_HIST_ALL) == 6.0, "total=%g",
		    reuse_hist__total(&a, REUSE_HIST_ALL));
	TEST_ASSERT(reuse_hist__total(&a, REUSE_HIST_COLD) == 4.0, "w/o inval");
	TEST_ASSERT(reuse_hist__total(&a, 0) == 3.0, "finite only");
	reuse_hist__init(&b, REUSE_TIME, REUSE_GRAN_LINE);
	TEST_ASSERT(reuse_hist__merge(&a, &b) == -EINVAL, "metric mismatch");
	reuse_hist__init(&b, REUSE_STACK, REUSE_GRAN_ADDR);
	TEST_ASSERT(reuse_hist__merge(&a, &b) == -EINVAL, "granularity mismatch");
	return TEST_OK;
}

LP_TEST(test_reuse_hist_normalize, "reuse-hist: normalize sums to 1 including the bins asked for")
{
	struct reuse_hist h;
	double sum = 0;
	int k;

	reuse_hist__init(&h, REUSE_STACK, REUSE_GRAN_ADDR);
	TEST_ASSERT(reuse_hist__normalize(&h, REUSE_HIST_ALL) == -ENODATA, "empty");
	reuse_hist__add(&h, 0, 1);
	reuse_hist__add(&h, 100, 3);
	reuse_hist__add_cold(&h, 4);
	TEST_ASSERT(!reuse_hist__normalize(&h, REUSE_HIST_ALL), "normalize");
	for (k = 0; k < REUSE_HIST_NBINS; k++)
		sum += h.bin[k];
	TEST_ASSERT(NEAR(sum + h.cold, 1, 1e-12), "sum=%g", sum + h.cold);
	TEST_ASSERT(NEAR(h.cold, 0.5, 1e-12) && NEAR(h.bin[7], 0.375, 1e-12),
		    "cold=%g bin7=%g", h.cold, h.bin[7]);
	TEST_ASSERT(!reuse_hist__normalize(&h, 0), "finite only");
	TEST_ASSERT(NEAR(h.bin[0], 0.25, 1e-12) && NEAR(h.bin[7], 0.75, 1e-12),
		    "bin0=%g bin7=%g", h.bin[0], h.bin[7]);
	return TEST_OK;
}

LP_TEST(test_reuse_hist_similarity, "reuse-hist: S = 1 - sum|B - B'|/2 by hand")
{
	struct reuse_hist a, b;
	double s;

	reuse_hist__init(&a, REUSE_STACK, REUSE_GRAN_LINE);
	reuse_hist__init(&b, REUSE_STACK, REUSE_GRAN_LINE);
	reuse_hist__add(&a, 1, 1);
	reuse_hist__add(&a, 2, 1);
	reuse_hist__add(&b, 1, 10);
	reuse_hist__add(&b, 3, 30);
	/* (.5, .5) vs (.25, .75): sum |diff| = .5 */
	TEST_ASSERT(!reuse_hist__similarity(&a, &b, 0, &s), "similarity");
	TEST_ASSERT(NEAR(s, 0.75, 1e-12), "S=%g", s);
	TEST_ASSERT(!reuse_hist__similarity(&a, &a, 0, &s) && NEAR(s, 1, 1e-12), "self");
	/* cold counts as a bin when asked: b gains 40 cold -> (.125, .375, .5) */
	reuse_hist__add_cold(&b, 40);
	TEST_ASSERT(!reuse_hist__similarity(&a, &b, REUSE_HIST_COLD, &s), "with cold");
	TEST_ASSERT(NEAR(s, 1 - (0.375 + 0.125 + 0.5) / 2, 1e-12), "S=%g", s);
	reuse_hist__init(&b, REUSE_STACK, REUSE_GRAN_LINE);
	reuse_hist__add(&b, 1000, 1);
	TEST_ASSERT(!reuse_hist__similarity(&a, &b, 0, &s) && NEAR(s, 0, 1e-12),
		    "disjoint S=%g", s);
	reuse_hist__init(&b, REUSE_STACK, REUSE_GRAN_LINE);
	TEST_ASSERT(reuse_hist__similarity(&a, &b, 0, &s) == -ENODATA, "empty");
	return TEST_OK;
}

LP_TEST(test_reuse_hist_footprint_hand, "reuse-hist: footprint fp(w) = sum_{i<w} P(rt > i) by hand")
{
	struct reuse_hist h;
	double fp;

	/* t = 0 once, t = 1 once, two cold: P(T>0) = 3/4, P(T>1) = 2/4 */
	reuse_hist__init(&h, REUSE_TIME, REUSE_GRAN_ADDR);
	reuse_hist__add(&h, 0, 1);
	reuse_hist__add(&h, 1, 1);
	reuse_hist__add_cold(&h, 2);
	TEST_ASSERT(!reuse_hist__footprint(&h, 0, &fp) && fp == 0, "fp(0)=%g", fp);
	TEST_ASSERT(!reuse_hist__footprint(&h, 1, &fp) && NEAR(fp, 1, 1e-12), "fp(1)=%g", fp);
	TEST_ASSERT(!reuse_hist__footprint(&h, 2, &fp) && NEAR(fp, 1.75, 1e-12), "fp(2)=%g", fp);
	TEST_ASSERT(!reuse_hist__footprint(&h, 3, &fp) && NEAR(fp, 2.25, 1e-12), "fp(3)=%g", fp);
	TEST_ASSERT(!reuse_hist__footprint(&h, 1.5, &fp) && NEAR(fp, 1.375, 1e-12), "fp(1.5)=%g", fp);
	TEST_ASSERT(!reuse_hist__footprint(&h, 10, &fp) && NEAR(fp, 2.25 + 7 * 0.5, 1e-12),
		    "fp(10)=%g (cold keeps adding half a datum per access)", fp);

	/* bin 2 = {2, 3} with mass spread evenly: P(T>2) = 1/2, P(T>3) = 0 */
	reuse_hist__init(&h, REUSE_TIME, REUSE_GRAN_ADDR);
	reuse_hist__add(&h, 2, 4);
	TEST_ASSERT(!reuse_hist__footprint(&h, 3, &fp) && NEAR(fp, 3, 1e-12), "fp(3)=%g", fp);
	TEST_ASSERT(!reuse_hist__footprint(&h, 4, &fp) && NEAR(fp, 3.5, 1e-12), "fp(4)=%g", fp);
	TEST_ASSERT(!reuse_hist__footprint(&h, 100, &fp) && NEAR(fp, 3.5, 1e-12),
		    "fp(100)=%g: no cold, footprint saturates", fp);

	/* all cold (streaming): every access is new data */
	reuse_hist__init(&h, REUSE_TIME, REUSE_GRAN_ADDR);
	reuse_hist__add_cold(&h, 5);
	TEST_ASSERT(!reuse_hist__footprint(&h, 1e6, &fp) && NEAR(fp, 1e6, 1e-6), "fp=%g", fp);
	TEST_ASSERT(!reuse_hist__footprint(&h, 1e30, &fp) && fp > 1e18, "huge w: %g", fp);

	TEST_ASSERT(reuse_hist__footprint(&h, -1, &fp) == -EINVAL, "negative w");
	reuse_hist__init(&h, REUSE_STACK, REUSE_GRAN_ADDR);
	reuse_hist__add(&h, 1, 1);
	TEST_ASSERT(reuse_hist__footprint(&h, 1, &fp) == -EINVAL, "stack histogram");
	return TEST_OK;
}

static int run_trace(struct reuse_exact_thread *out, const u64 *addrs, int n)
{
	struct reuse_exact_opts o = { REUSE_EXACT_PER_THREAD, REUSE_GRAN_LINE, 0 };
	struct reuse_exact *re;
	int i, err = reuse_exact__new(&o, &re);

	for (i = 0; !err && i < n; i++)
		err = reuse_exact__access(re, 1, addrs[i], 0, NULL);
	if (!err)
		reuse_exact__sum(re, out);
	reuse_exact__delete(re);
	return err;
}

LP_TEST(test_reuse_hist_time_to_stack_cyclic, "reuse-hist: footprint conversion is exact on cyclic access")
{
	static const int periods[] = { 1, 2, 3, 8, 100 };
	u64 *a = malloc(20000 * sizeof(*a));
	struct reuse_exact_thread t;
	struct reuse_hist st;
	unsigned int p;
	int i;
	double s;

	TEST_ASSERT(a, "malloc");
	for (p = 0; p < ARRAY_SIZE(periods); p++) {
		for (i = 0; i < 20000; i++)
			a[i] = 64 * (u64)(i % periods[p]);
		TEST_ASSERT(!run_trace(&t, a, 20000), "trace");
		TEST_ASSERT(!reuse_hist__time_to_stack(&t.time, &st), "convert");
		TEST_ASSERT(st.metric == REUSE_STACK && st.gran == REUSE_GRAN_LINE, "tags");
		TEST_ASSERT(st.cold == periods[p], "cold=%g", st.cold);
		TEST_ASSERT(!reuse_hist__similarity(&st, &t.stack, REUSE_HIST_ALL, &s), "S");
		TEST_ASSERT(NEAR(s, 1, 1e-9), "period %d: S=%.6f", periods[p], s);
	}
	free(a);
	return TEST_OK;
}

LP_TEST(test_reuse_hist_time_to_stack_random, "reuse-hist: footprint conversion tracks the exact histogram on random access")
{
	enum { N = 400000 };
	u64 *a = malloc(N * sizeof(*a));
	struct reuse_exact_thread t;
	struct reuse_hist st, raw;
	unsigned int seed = 7;
	double s_conv, s_raw;
	int i;

	TEST_ASSERT(a, "malloc");
	/* 80% of accesses to 500 hot lines, the rest to 20000 lines */
	for (i = 0; i < N; i++)
		a[i] = 64 * (u64)(rand_r(&seed) % 10 < 8 ? rand_r(&seed) % 500 :
				  500 + rand_r(&seed) % 20000);
	TEST_ASSERT(!run_trace(&t, a, N), "trace");
	TEST_ASSERT(!reuse_hist__time_to_stack(&t.time, &st), "convert");
	TEST_ASSERT(NEAR(reuse_hist__total(&st, REUSE_HIST_ALL),
			 reuse_hist__total(&t.time, REUSE_HIST_ALL), 1e-6), "mass kept");
	TEST_ASSERT(!reuse_hist__similarity(&st, &t.stack, REUSE_HIST_ALL, &s_conv), "S");
	/* the unconverted time histogram read as distances, for contrast */
	raw = t.time;
	raw.metric = REUSE_STACK;
	TEST_ASSERT(!reuse_hist__similarity(&raw, &t.stack, REUSE_HIST_ALL, &s_raw), "S");
	TEST_LOG("S(converted, exact) = %.4f, S(time as distance, exact) = %.4f",
		 s_conv, s_raw);
	TEST_ASSERT(s_conv > 0.9, "S=%.4f", s_conv);
	TEST_ASSERT(s_conv > s_raw + 0.1, "conversion gains nothing: %.4f vs %.4f",
		    s_conv, s_raw);
	free(a);
	return TEST_OK;
}

LP_TEST(test_reuse_hist_time_to_stack_wide, "reuse-hist: conversion keeps mass in huge bins and the infinite bins")
{
	struct reuse_hist t, st;
	double sum = 0;
	int k;

	reuse_hist__init(&t, REUSE_TIME, REUSE_GRAN_ADDR);
	reuse_hist__add(&t, 3, 1);
	reuse_hist__add(&t, (u64)1 << 40, 2);
	reuse_hist__add(&t, UINT64_MAX, 0.5);
	reuse_hist__add_cold(&t, 0.25);
	reuse_hist__add_inval(&t, 0.125);
	TEST_ASSERT(!reuse_hist__time_to_stack(&t, &st), "convert");
	for (k = 0; k < REUSE_HIST_NBINS; k++) {
		TEST_ASSERT(st.bin[k] >= 0, "bin %d = %g", k, st.bin[k]);
		sum += st.bin[k];
	}
	TEST_ASSERT(NEAR(sum, 3.5, 1e-9), "finite mass %g", sum);
	TEST_ASSERT(st.cold == 0.25 && st.inval == 0.125, "infinite bins");
	/* d(t) = sum_{j<t} P(T > j) <= t: no mass moves to a higher bin */
	TEST_ASSERT(st.bin[0] + st.bin[1] + st.bin[2] >= 1 - 1e-9, "t=3 went up");
	for (sum = 0, k = 0; k <= 41; k++)
		sum += st.bin[k];
	TEST_ASSERT(sum >= 3 - 1e-9, "t=2^40 went up: %g", sum);
	TEST_ASSERT(reuse_hist__time_to_stack(&st, &t) == -EINVAL, "stack input");
	return TEST_OK;
}

LP_TEST(test_reuse_hist_err_se, "reuse-hist: a bin's standard error from its detections' weights")
{
	struct reuse_hist h;
	struct reuse_hist_err e = { { 0 } }, m = { { 0 } };
	double se;

	/* bin 3: weights 1 and 4 (a = 1 + 16), bin 5: weight 2 (a = 4) */
	reuse_hist__init(&h, REUSE_TIME, REUSE_GRAN_ADDR);
	reuse_hist__add(&h, 5, 1);
	reuse_hist__add(&h, 6, 4);
	reuse_hist__add(&h, 20, 2);
	reuse_hist_err__add(&e, 3, 1, 0);
	reuse_hist_err__add(&e, 3, 4, 0);
	reuse_hist_err__add(&e, 5, 2, 1);
	TEST_ASSERT(e.n[3] == 2 && e.n[5] == 1 && e.capped[5] == 1 && e.capped[3] == 0,
		    "counts %u %u, capped %u", e.n[3], e.n[5], e.capped[5]);
	/*
	 * by hand: W = 7, f3 = 5/7, A = 21:
	 * sqrt(17 (2/7)^2 + 4 (5/7)^2) / 7 = sqrt(168 / 49) / 7 = sqrt(168) / 49
	 */
	se = reuse_hist_err__se(&e, &h, 0, 3);
	TEST_ASSERT(NEAR(se, sqrt(168) / 49, 1e-12), "se of bin 3 %.6f, want %.6f", se, sqrt(168) / 49);
	/* two fractions that sum to 1 have the same error */
	TEST_ASSERT(NEAR(reuse_hist_err__se(&e, &h, 0, 5), se, 1e-12), "bin 5");
	/* an empty bin with f = 0 */
	TEST_ASSERT(reuse_hist_err__se(&e, &h, 0, 4) == 0, "an empty bin with f = 0");
	/* a short reuse of weight 3 joins the total: W = 10, A = 30 */
	reuse_hist_err__add(&e, REUSE_ERR_SHORT, 3, 0);
	se = reuse_hist_err__se(&e, &h, 3, -1);
	TEST_ASSERT(NEAR(se, sqrt(9 * 0.49 + 21 * 0.09) / 10, 1e-12), "short: %.6f", se);
	/* the infinite bins count for hit rates, not for the reuses' fractions */
	reuse_hist_err__add(&e, REUSE_ERR_COLD, 5, 0);
	reuse_hist_err__add(&e, REUSE_ERR_INVAL, 2, 0);
	TEST_ASSERT(NEAR(reuse_hist_err__se(&e, &h, 3, -1), se, 1e-12) && e.a_cold == 25 &&
		    e.a_inval == 4, "cold and inval kept apart");
	reuse_hist_err__merge(&m, &e);
	reuse_hist_err__merge(&m, &e);
	TEST_ASSERT(m.n[3] == 4 && m.a[3] == 34 && m.n_short == 2 && m.a_short == 18 &&
		    m.capped[5] == 2 && m.a_cold == 50 && m.a_inval == 8, "merge");
	/* nothing weighted */
	reuse_hist__init(&h, REUSE_TIME, REUSE_GRAN_ADDR);
	TEST_ASSERT(reuse_hist_err__se(&m, &h, 0, 3) == 0, "empty histogram");
	return TEST_OK;
}
