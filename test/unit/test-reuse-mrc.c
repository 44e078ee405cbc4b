// SPDX-License-Identifier: GPL-2.0
/* Miss-ratio curves from fine stack-distance bins; SHARDS against exact. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "core/tests.h"
#include "core/reuse-exact.h"
#include "core/reuse-mrc.h"

/* Miss ratio of the curve at @size, -1 if it has no such point. */
static double miss_at(const struct reuse_mrc_point *p, int n, u64 size)
{
	int i;

	for (i = 0; i < n; i++)
		if (p[i].size == size)
			return p[i].miss;
	return -1;
}

LP_TEST(test_reuse_mrc_curve_counts_distances_at_least_the_size, "reuse-mrc: miss ratio at c = share of distances >= c, cold included")
{
	const u64 d[] = { 0, 5, 9, 9, 100, 1000 };
	struct reuse_mrc_point p[REUSE_MRC_NBINS];
	struct reuse_mrc m;
	int i, n;

	reuse_mrc__init(&m);
	for (i = 0; i < 6; i++)
		reuse_mrc__add(&m, d[i], 1);
	m.inf = 2;		/* two cold accesses: 8 in all */
	n = reuse_mrc__curve(&m, 4096, p, REUSE_MRC_NBINS);
	TEST_ASSERT(n > 20, "n=%d", n);
	TEST_ASSERT(p[0].size == 1 && fabs(p[0].miss - 7.0 / 8) < 1e-12, "size %llu miss %g",
		    (unsigned long long)p[0].size, p[0].miss);
	TEST_ASSERT(fabs(miss_at(p, n, 5) - 7.0 / 8) < 1e-12, "c=5: %g", miss_at(p, n, 5));
	TEST_ASSERT(fabs(miss_at(p, n, 6) - 6.0 / 8) < 1e-12, "c=6: %g", miss_at(p, n, 6));
	TEST_ASSERT(fabs(miss_at(p, n, 9) - 6.0 / 8) < 1e-12, "c=9: %g", miss_at(p, n, 9));
	TEST_ASSERT(fabs(miss_at(p, n, 10) - 4.0 / 8) < 1e-12, "c=10: %g", miss_at(p, n, 10));
	/* 96 and 104 are bin bounds around 100: 100 hits at 104, misses at 96 */
	TEST_ASSERT(fabs(miss_at(p, n, 96) - 4.0 / 8) < 1e-12, "c=96: %g", miss_at(p, n, 96));
	TEST_ASSERT(fabs(miss_at(p, n, 104) - 3.0 / 8) < 1e-12, "c=104: %g", miss_at(p, n, 104));
	TEST_ASSERT(fabs(miss_at(p, n, 1024) - 2.0 / 8) < 1e-12, "c=1024: %g", miss_at(p, n, 1024));
	for (i = 1; i < n; i++)
		TEST_ASSERT(p[i].size > p[i - 1].size && p[i].miss <= p[i - 1].miss,
			    "point %d not ascending/non-increasing", i);
	/* log spacing: 8 sizes per octave from 8 lines on, at most 12.5% apart */
	for (i = 1; i < n; i++)
		TEST_ASSERT(p[i - 1].size < 8 || p[i].size * 8 <= p[i - 1].size * 9,
			    "gap %llu -> %llu", (unsigned long long)p[i - 1].size,
			    (unsigned long long)p[i].size);
	return TEST_OK;
}

static struct reuse_exact *run_lines(double rate, enum reuse_exact_mode mode,
				     const u64 *line, int n)
{
	struct reuse_exact_opts o = { .mode = mode, .gran = REUSE_GRAN_LINE,
				      .sample_rate = rate };
	struct reuse_exact *re = NULL;
	int i;

	if (reuse_exact__new(&o, &re))
		return NULL;
	for (i = 0; i < n; i++)
		if (reuse_exact__access(re, 1, 64 * line[i], 0, NULL)) {
			reuse_exact__delete(re);
			return NULL;
		}
	reuse_exact__finish(re);
	return re;
}

LP_TEST(test_reuse_exact_shards_scales_sampled_distances, "reuse-exact: SHARDS scales a sweep's sampled distances by 1/rate, spread over one step")
{
	enum { M = 5000, N = 4 * M };
	struct reuse_exact_opts o = { .mode = REUSE_EXACT_SHARED, .gran = REUSE_GRAN_LINE,
				      .sample_rate = 0.1 };
	struct reuse_exact *re;
	struct reuse_exact_res r;
	u64 sampled_lines = 0, want = 0, bad = 0, reuses = 0, spread = 0;
	double rate;
	int i;

	TEST_ASSERT(!reuse_exact__new(&o, &re), "new");
	rate = reuse_exact__sample_rate(re);
	TEST_ASSERT(fabs(rate - 0.1) < 1e-6, "rate %g", rate);
	for (i = 0; i < N; i++) {
		TEST_ASSERT(!reuse_exact__access(re, 1, 64 * (u64)(i % M), 0, &r), "i=%d", i);
		if (i < M)
			sampled_lines += r.kind == REUSE_EXACT_COLD;
		else if (i == M)
			want = (u64)((double)(sampled_lines - 1) / rate);
		if (r.kind == REUSE_EXACT_REUSE) {
			reuses++;
			/* spread over [d / rate, (d + 1) / rate) */
			bad += r.dist < want || r.dist > want + (u64)ceil(1 / rate);
			spread += r.dist != want;
		}
	}
	/* a sample of 10% of 5000 lines, give or take a few standard deviations */
	TEST_ASSERT(sampled_lines > 400 && sampled_lines < 600, "sampled %llu lines",
		    (unsigned long long)sampled_lines);
	TEST_ASSERT(reuses == 3 * sampled_lines, "reuses=%llu", (unsigned long long)reuses);
	TEST_ASSERT(!bad, "%llu reuses not in [%llu, +1/rate)", (unsigned long long)bad,
		    (unsigned long long)want);
	TEST_ASSERT(spread > reuses / 2, "only %llu of %llu reuses spread",
		    (unsigned long long)spread, (unsigned long long)reuses);
	TEST_ASSERT(reuse_exact__thread(re, 0)->seen == N, "seen=%llu",
		    (unsigned long long)reuse_exact__thread(re, 0)->seen);
	reuse_exact__delete(re);
	return TEST_OK;
}

LP_TEST_TIMEOUT(test_reuse_exact_shards_mrc_close_to_exact, "reuse-exact: SHARDS at 10% gives the exact miss-ratio curve within 0.03, batched or not", 60)
{
	enum { M = 20000, N = 300000 };
	u64 *line = malloc(N * sizeof(*line)), seed = 3;
	struct reuse_exact_acc *v = malloc(N * sizeof(*v));
	struct reuse_exact *ex, *sh, *shb = NULL;
	struct reuse_exact_opts o = { .mode = REUSE_EXACT_PER_THREAD, .gran = REUSE_GRAN_LINE,
				      .sample_rate = 0.1 };
	struct reuse_exact_thread a, b, c;
	double mae = 1, total, want, est;
	u64 keys;
	int i;

	TEST_ASSERT(line && v, "malloc");
	/* half uniform over M lines, half a hot set of 500 */
	for (i = 0; i < N; i++) {
		line[i] = i % 2 ? lp_splitmix64(&seed) % M : M + lp_splitmix64(&seed) % 500;
		v[i] = (struct reuse_exact_acc){ .addr = 64 * line[i], .tid = 1 };
	}
	ex = run_lines(0, REUSE_EXACT_PER_THREAD, line, N);
	sh = run_lines(0.1, REUSE_EXACT_PER_THREAD, line, N);
	TEST_ASSERT(ex && sh && !reuse_exact__new(&o, &shb), "setup");
	TEST_ASSERT(!reuse_exact__access_batch(shb, v, N), "batch");
	reuse_exact__finish(shb);
	reuse_exact__sum(ex, &a);
	reuse_exact__sum(sh, &b);
	reuse_exact__sum(shb, &c);
	TEST_ASSERT(b.accesses > N / 20 && b.accesses < N / 5, "sampled %llu of %d",
		    (unsigned long long)b.accesses, N);
	TEST_ASSERT(!memcmp(b.mrc.bin, c.mrc.bin, sizeof(b.mrc.bin)) && b.seen == c.seen &&
		    b.accesses == c.accesses, "batched SHARDS differs from one call per access");
	/*
	 * SHARDS_adj: the curve weighs the accesses x the share of lines
	 * sampled / the rate; that share from a HyperLogLog of every line
	 */
	TEST_ASSERT(!reuse_exact__sample_keys(sh, &keys, &est), "sample keys");
	TEST_ASSERT(fabs(est - (M + 500)) < 0.03 * (M + 500), "estimated %g distinct lines of %d",
		    est, M + 500);
	TEST_ASSERT(keys == b.cold, "%llu keys sampled, %llu cold", (unsigned long long)keys,
		    (unsigned long long)b.cold);
	total = b.mrc.inf;
	for (i = 0; i < REUSE_MRC_NBINS; i++)
		total += b.mrc.bin[i];
	want = N * ((double)keys / est) / reuse_exact__sample_rate(sh);
	TEST_ASSERT(fabs(total - want) < 1e-6 * N, "estimated total %g, want %g", total, want);
	TEST_ASSERT(!reuse_mrc__mae(&a.mrc, &b.mrc, 10, M + 500, &mae), "mae");
	TEST_LOG("MAE %.4f over sizes 10..%d, %llu accesses sampled", mae, M + 500,
		 (unsigned long long)b.accesses);
	TEST_ASSERT(mae < 0.03, "MAE %g", mae);
	reuse_exact__delete(ex);
	reuse_exact__delete(sh);
	reuse_exact__delete(shb);
	free(line);
	free(v);
	return TEST_OK;
}

LP_TEST(test_reuse_exact_shards_salt_draws_other_lines, "reuse-exact: another SHARDS salt samples other lines at the same rate, the same salt the same ones")
{
	enum { M = 20000 };
	struct reuse_exact *re[3];
	struct reuse_exact_res r;
	u64 n[3] = { 0 }, both = 0, same = 0;
	int i, k;

	for (k = 0; k < 3; k++) {
		struct reuse_exact_opts o = { .mode = REUSE_EXACT_SHARED, .gran = REUSE_GRAN_LINE,
					      .sample_rate = 0.1, .salt = k ? 12345 : 0 };

		TEST_ASSERT(!reuse_exact__new(&o, &re[k]), "new %d", k);
	}
	for (i = 0; i < M; i++) {
		int in[3];

		for (k = 0; k < 3; k++) {
			TEST_ASSERT(!reuse_exact__access(re[k], 1, 64 * (u64)i, 0, &r), "i=%d", i);
			in[k] = r.kind != REUSE_EXACT_SKIPPED;
			n[k] += in[k];
		}
		both += in[0] && in[1];
		same += in[1] == in[2];
	}
	/* 10% each, give or take a few standard deviations (42 lines) */
	for (k = 0; k < 2; k++)
		TEST_ASSERT(n[k] > 1800 && n[k] < 2200, "salt %d sampled %llu of %d", k,
			    (unsigned long long)n[k], M);
	/* independent draws share about 1% of the lines, not 10% */
	TEST_ASSERT(both < 300, "%llu lines in both samples", (unsigned long long)both);
	TEST_ASSERT(same == M, "salt 12345 drew two samples");
	for (k = 0; k < 3; k++)
		reuse_exact__delete(re[k]);
	return TEST_OK;
}

LP_TEST(test_reuse_exact_shards_rejects_bad_rates, "reuse-exact: sample rates outside [0, 1] or below 2^-24 are refused")
{
	const double bad[] = { -0.1, 1.5, NAN, 1e-9 };
	struct reuse_exact_opts o = { .mode = REUSE_EXACT_SHARED, .gran = REUSE_GRAN_LINE };
	struct reuse_exact *re = NULL;
	int i;

	for (i = 0; i < 4; i++) {
		o.sample_rate = bad[i];
		TEST_ASSERT(reuse_exact__new(&o, &re) == -EINVAL, "rate %g accepted", bad[i]);
	}
	o.sample_rate = 1;
	TEST_ASSERT(!reuse_exact__new(&o, &re), "rate 1");
	TEST_ASSERT(reuse_exact__sample_rate(re) == 1, "rate 1 is exact");
	reuse_exact__delete(re);
	return TEST_OK;
}
