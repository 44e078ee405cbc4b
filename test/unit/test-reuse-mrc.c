// SPDX-License-Identifier: GPL-2.0
/* Miss-ratio curves from fine stack-distance bins; SHARDS against exact. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
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

/*
 * H hot lines, one every other access in turn, the other accesses from a
 * tail of T lines: a hot line's reuse distance is H - 1 hot lines plus
 * what the tail brings in between.
 */
enum { HOT_H = 256, HOT_N = 600000 };

static void hot_trace(u64 *line, const u64 *tail, u64 ntail, u64 *seed)
{
	int i;

	for (i = 0; i < HOT_N; i++)
		line[i] = i % 2 ? tail[lp_splitmix64(seed) % ntail] : 1000000 + (u64)((i / 2) % HOT_H);
}

/* The engine's sample rule (reuse-exact.h): hash(key ^ salt) mod 2^24 < rate x 2^24. */
static int sampled_by(u64 key, u64 salt, double rate)
{
	return (lp_hash64(key ^ salt) >> 40) < (u64)(rate * (1 << 24) + 0.5);
}

LP_TEST(test_reuse_exact_shards_hot_keys_exact, "reuse-exact: SHARDS with hot keys: hot lines found, their distances among hot lines exact")
{
	struct reuse_exact_opts o = { .mode = REUSE_EXACT_SHARED, .gran = REUSE_GRAN_LINE,
				      .sample_rate = 0.01, .salt = 777, .hot_keys = 1024 };
	u64 *line = malloc(HOT_N * sizeof(*line)), *tail = malloc(200000 * sizeof(*tail));
	u64 seed = 3, nk, first, last, t;
	struct reuse_exact *re = NULL;
	u64 bad = 0, checked = 0, over = 0, under = 0;
	int i, nt = 0;

	TEST_ASSERT(line && tail, "alloc");
	/* a tail none of which the hash samples: the estimate of a hot reuse is its hot part */
	for (t = 5000000; nt < 200000; t++)
		if (!sampled_by(t, o.salt, o.sample_rate))
			tail[nt++] = t;
	hot_trace(line, tail, nt, &seed);
	TEST_ASSERT(!reuse_exact__new(&o, &re), "new");
	for (i = 0; i < HOT_N; i++) {
		struct reuse_exact_res r;

		TEST_ASSERT(!reuse_exact__access(re, 1, 64 * line[i], 0, &r), "access %d", i);
		/* after the first quarter every hot line is hot: its distance is the others */
		if (i >= HOT_N / 4 && !(i % 2)) {
			checked++;
			bad += r.kind != REUSE_EXACT_REUSE || r.dist != HOT_H - 1;
			over = r.kind == REUSE_EXACT_REUSE && r.dist > over ? r.dist : over;
			under += r.kind != REUSE_EXACT_REUSE || r.dist < HOT_H - 1;
		}
	}
	reuse_exact__finish(re);
	TEST_ASSERT(!reuse_exact__hot_keys(re, &nk, &first, &last), "hot keys on");
	/*
	 * A few tail lines may be taken for hot (both their sketch counters
	 * shared with hot lines) and then count in a hot line's distance
	 * when in between (each tail line is 1 in 400000 accesses): the
	 * distance is then one more, for the HOT_H reuses around its access.
	 */
	TEST_ASSERT(nk >= HOT_H && nk <= HOT_H + 16, "%llu hot keys", (unsigned long long)nk);
	TEST_ASSERT(!under, "%llu hot reuses below %d", (unsigned long long)under, HOT_H - 1);
	TEST_ASSERT(over <= HOT_H - 1 + nk - HOT_H, "a hot reuse at %llu", (unsigned long long)over);
	TEST_ASSERT(first < HOT_N / 8, "first hot line found at access %llu", (unsigned long long)first);
	TEST_ASSERT(bad * 100 <= checked, "%llu of %llu hot reuses not at distance %d",
		    (unsigned long long)bad, (unsigned long long)checked, HOT_H - 1);
	reuse_exact__delete(re);
	free(line);
	free(tail);
	return TEST_OK;
}

LP_TEST(test_reuse_exact_shards_hot_keys_beat_plain, "reuse-exact: SHARDS with hot keys: curve error below plain SHARDS over 6 salts")
{
	enum { TAIL = 100000, SALTS = 6 };
	static u64 tail[TAIL];
	u64 *line = malloc(HOT_N * sizeof(*line)), seed = 5;
	struct reuse_exact_thread *ex = calloc(1, sizeof(*ex)), *sh = calloc(1, sizeof(*sh));
	double mae[2] = { 0, 0 };
	struct reuse_exact *re;
	int i, s, k;

	TEST_ASSERT(line && ex && sh, "alloc");
	for (i = 0; i < TAIL; i++)
		tail[i] = 5000000 + i;
	hot_trace(line, tail, TAIL, &seed);
	re = run_lines(0, REUSE_EXACT_SHARED, line, HOT_N);
	TEST_ASSERT(re, "exact");
	reuse_exact__sum(re, ex);
	reuse_exact__delete(re);
	for (s = 0; s < SALTS; s++)
		for (k = 0; k < 2; k++) {
			struct reuse_exact_opts o = { .mode = REUSE_EXACT_SHARED,
						      .gran = REUSE_GRAN_LINE, .sample_rate = 0.01,
						      .salt = lp_hash64(s + 1), .hot_keys = k ? 1024 : 0 };
			double e;

			TEST_ASSERT(!reuse_exact__new(&o, &re), "new");
			for (i = 0; i < HOT_N; i++)
				TEST_ASSERT(!reuse_exact__access(re, 1, 64 * line[i], 0, NULL), "access");
			reuse_exact__finish(re);
			reuse_exact__sum(re, sh);
			reuse_exact__delete(re);
			TEST_ASSERT(!reuse_mrc__mae(&ex->mrc, &sh->mrc, 100, ex->cold, &e), "mae");
			mae[k] += e / SALTS;
			if (getenv("LP_TEST_VERBOSE"))
				fprintf(stderr, "salt %d %s MAE %.4f\n", s, k ? "hot" : "plain", e);
		}
	TEST_ASSERT(mae[1] < mae[0] / 2, "MAE with hot keys %.4f, plain %.4f", mae[1], mae[0]);
	free(line);
	free(ex);
	free(sh);
	return TEST_OK;
}

/*
 * The batch path finds hot keys in two passes over chunks (the accesses
 * the sketch counts first, then the rest): it must find the same keys at
 * the same accesses as one call per access, so everything it estimates
 * is the same. Two threads (per-thread streams), uneven batches, and a
 * hot set that fills up (64 of the 256 lines hot).
 */
LP_TEST(test_reuse_exact_shards_hot_keys_batch_same, "reuse-exact: SHARDS with hot keys: batched equals one call per access (keys, times, histograms)")
{
	enum { TAIL = 50000 };
	static u64 tail[TAIL];
	u64 *line = malloc(HOT_N * sizeof(*line)), seed = 11, nk[2], first[2], last[2];
	struct reuse_exact_acc *v = malloc(HOT_N * sizeof(*v));
	struct reuse_exact_thread *sum = calloc(2, sizeof(*sum));
	struct reuse_exact *re[2] = { NULL, NULL };
	double tw[2];
	int i, k, off;

	TEST_ASSERT(line && v && sum, "alloc");
	for (i = 0; i < TAIL; i++)
		tail[i] = 5000000 + i;
	hot_trace(line, tail, TAIL, &seed);
	for (i = 0; i < HOT_N; i++)
		v[i] = (struct reuse_exact_acc){ .addr = 64 * line[i], .tid = 1 + (i / 7000) % 2,
						 .is_store = i % 3 == 0 };
	for (k = 0; k < 2; k++) {
		struct reuse_exact_opts o = { .mode = REUSE_EXACT_PER_THREAD,
					      .gran = REUSE_GRAN_LINE, .sample_rate = 0.02,
					      .salt = 99, .hot_keys = 64 };

		TEST_ASSERT(!reuse_exact__new(&o, &re[k]), "new");
		for (i = 0, off = 0; k && off < HOT_N; off += i, i = 1 + (i * 7 + 333) % 5000)
			TEST_ASSERT(!reuse_exact__access_batch(re[k], v + off,
							       HOT_N - off < i ? HOT_N - off : i),
				    "batch at %d", off);
		for (i = 0; !k && i < HOT_N; i++)
			TEST_ASSERT(!reuse_exact__access(re[k], v[i].tid, v[i].addr, v[i].is_store,
							 NULL), "access %d", i);
		reuse_exact__finish(re[k]);
		reuse_exact__sum(re[k], &sum[k]);
		TEST_ASSERT(!reuse_exact__hot_keys(re[k], &nk[k], &first[k], &last[k]), "hot keys");
	}
	TEST_LOG("%llu hot keys, first at access %llu, last at %llu; %llu hot accesses",
		 (unsigned long long)nk[0], (unsigned long long)first[0],
		 (unsigned long long)last[0], (unsigned long long)sum[0].hot);
	TEST_ASSERT(nk[0] == 64, "the hot set filled up: %llu keys", (unsigned long long)nk[0]);
	TEST_ASSERT(nk[0] == nk[1] && first[0] == first[1] && last[0] == last[1],
		    "hot keys %llu / %llu, first %llu / %llu, last %llu / %llu",
		    (unsigned long long)nk[0], (unsigned long long)nk[1],
		    (unsigned long long)first[0], (unsigned long long)first[1],
		    (unsigned long long)last[0], (unsigned long long)last[1]);
	TEST_ASSERT(sum[0].seen == sum[1].seen && sum[0].accesses == sum[1].accesses &&
		    sum[0].hot == sum[1].hot && sum[0].invalidations == sum[1].invalidations,
		    "seen %llu / %llu, accesses %llu / %llu, hot %llu / %llu",
		    (unsigned long long)sum[0].seen, (unsigned long long)sum[1].seen,
		    (unsigned long long)sum[0].accesses, (unsigned long long)sum[1].accesses,
		    (unsigned long long)sum[0].hot, (unsigned long long)sum[1].hot);
	TEST_ASSERT(!memcmp(sum[0].mrc.bin, sum[1].mrc.bin, sizeof(sum[0].mrc.bin)) &&
		    !memcmp(sum[0].stack.bin, sum[1].stack.bin, sizeof(sum[0].stack.bin)),
		    "batched curve or stack histogram differs from one call per access");
	/*
	 * A hot-key time distance is scaled by the thread's accesses over its
	 * tracked ones so far, and a batch counts the accesses it skips
	 * before the ones it buffered: the same mass, in bins a little apart.
	 */
	tw[0] = tw[1] = 0;
	for (k = 0; k < 2; k++)
		for (i = 0; i < REUSE_HIST_NBINS; i++)
			tw[k] += sum[k].time.bin[i];
	TEST_ASSERT(fabs(tw[0] - tw[1]) < 1e-9 * tw[0], "time histogram mass %g / %g", tw[0], tw[1]);
	reuse_exact__delete(re[0]);
	reuse_exact__delete(re[1]);
	free(line);
	free(v);
	free(sum);
	return TEST_OK;
}

/*
 * The batch path is compiled for several instruction sets (AVX-512 scans
 * SHARDS's accesses eight at a time, AVX2 updates the marker tree, popcnt
 * counts markers): every level the CPU has must give the same result,
 * counters and histograms bit for bit, exact and SHARDS with hot keys,
 * per thread and shared, lines and addresses.
 */
LP_TEST(test_reuse_exact_isa_levels_same, "reuse-exact: every instruction-set level of the batch path gives the same result, bit for bit")
{
	enum { TAIL = 50000 };
	static u64 tail[TAIL];
	static const struct reuse_exact_opts cfg[] = {
		{ .mode = REUSE_EXACT_PER_THREAD, .gran = REUSE_GRAN_LINE, .sample_rate = 0.02,
		  .salt = 99, .hot_keys = 64 },
		{ .mode = REUSE_EXACT_SHARED, .gran = REUSE_GRAN_ADDR, .sample_rate = 0.05,
		  .salt = 7, .hot_keys = 1024 },
		{ .mode = REUSE_EXACT_PER_THREAD, .gran = REUSE_GRAN_LINE },
		{ .mode = REUSE_EXACT_SHARED, .gran = REUSE_GRAN_ADDR },
	};
	const size_t off = offsetof(struct reuse_exact_thread, seen);
	u64 *line = malloc(HOT_N * sizeof(*line)), seed = 5;
	struct reuse_exact_acc *v = malloc(HOT_N * sizeof(*v));
	struct reuse_exact_thread *sum = calloc(4 * 2, sizeof(*sum));
	int i, c, lvl, top, nt, ok = 1;

	TEST_ASSERT(line && v && sum, "alloc");
	for (i = 0; i < TAIL; i++)
		tail[i] = 5000000 + 3 * i;
	hot_trace(line, tail, TAIL, &seed);
	for (i = 0; i < HOT_N; i++)
		v[i] = (struct reuse_exact_acc){ .addr = 64 * line[i] + 8 * (i % 3),
						 .tid = 1 + (i / 4999) % 2, .is_store = i % 5 == 0 };
	top = reuse_exact__isa(-1);
	TEST_LOG("this CPU's level: %d (0 none, 1 popcnt, 2 AVX2, 3 AVX-512)", top);
	for (c = 0; c < (int)(sizeof(cfg) / sizeof(cfg[0])); c++) {
		for (lvl = top; lvl >= 0; lvl--) {
			struct reuse_exact_thread *s = &sum[(lvl == top ? 0 : 1) * 4];
			struct reuse_exact *re;
			u64 k, e, m;

			TEST_ASSERT(reuse_exact__isa(lvl) == lvl, "level %d", lvl);
			TEST_ASSERT(!reuse_exact__new(&cfg[c], &re), "new");
			/*
			 * Each batch ends 1 to 7 accesses after a change of
			 * thread, so some changes fall in the part of a chunk
			 * AVX-512 scans one access at a time.
			 */
			for (k = 0, m = 1; k < HOT_N; k = e, m++) {
				e = m * 4999 + 1 + m % 7;
				e = e < HOT_N ? e : HOT_N;
				TEST_ASSERT(!reuse_exact__access_batch(re, v + k, e - k), "batch");
			}
			reuse_exact__finish(re);
			memset(s, 0, 4 * sizeof(*s));
			nt = reuse_exact__nr_threads(re);
			for (i = 0; i < nt && i < 4; i++)
				s[i] = *reuse_exact__thread(re, i);
			reuse_exact__delete(re);
			if (lvl == top)
				continue;
			for (i = 0; i < 4; i++) {
				if (!memcmp((char *)&sum[i] + off, (char *)&s[i] + off,
					    sizeof(*s) - off))
					continue;
				TEST_LOG("config %d, thread %d: level %d differs from level %d "
					 "(seen %llu / %llu, reuses %llu / %llu)", c, i, lvl, top,
					 (unsigned long long)sum[i].seen, (unsigned long long)s[i].seen,
					 (unsigned long long)sum[i].reuses,
					 (unsigned long long)s[i].reuses);
				ok = 0;
			}
		}
	}
	reuse_exact__isa(-1);
	free(line);
	free(v);
	free(sum);
	TEST_ASSERT(top >= 1, "this test compares levels: the CPU has none above plain x86-64");
	TEST_ASSERT(ok, "a level's result differs");
	return TEST_OK;
}
