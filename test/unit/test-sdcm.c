// SPDX-License-Identifier: GPL-2.0
/* SDCM: closed forms, a naive binomial sum, hit rates, cache descriptions. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/tests.h"
#include "core/sdcm.h"
#include "core/reuse-exact.h"

LP_TEST(test_sdcm_fully_associative, "sdcm: A=4, S=1 hits at D=3, misses at D=4")
{
	double p;

	TEST_ASSERT(!sdcm__hit_prob(3, 4, 4, &p) && p == 1, "D=3: %g", p);
	TEST_ASSERT(!sdcm__hit_prob(4, 4, 4, &p) && p == 0, "D=4: %g", p);
	TEST_ASSERT(!sdcm__hit_prob(0, 4, 4, &p) && p == 1, "D=0: %g", p);
	/* bin 2 = {2,3}: all hit; bin 3 = {4..7}: none; with A=5 only D=4 */
	TEST_ASSERT(!sdcm__bin_hit_prob(2, 4, 4, &p) && p == 1, "bin 2: %g", p);
	TEST_ASSERT(!sdcm__bin_hit_prob(3, 4, 4, &p) && p == 0, "bin 3: %g", p);
	TEST_ASSERT(!sdcm__bin_hit_prob(3, 5, 5, &p) && p == 0.25, "bin 3, A=5: %g", p);
	TEST_ASSERT(sdcm__hit_prob(1, 0, 4, &p) == -EINVAL, "0 ways");
	TEST_ASSERT(sdcm__hit_prob(1, 8, 4, &p) == -EINVAL, "ways > blocks");
	return TEST_OK;
}

LP_TEST(test_sdcm_direct_mapped, "sdcm: A=1 gives ((B-1)/B)^D")
{
	static const double ds[] = { 0, 1, 10, 100, 1000, 1e5, 1e6 };
	unsigned int i;
	double p, want;

	for (i = 0; i < ARRAY_SIZE(ds); i++) {
		want = pow(63.0 / 64.0, ds[i]);
		TEST_ASSERT(!sdcm__hit_prob((u64)ds[i], 1, 64, &p), "D=%g", ds[i]);
		TEST_ASSERT(fabs(p - want) <= 1e-12 * want + 1e-300,
			    "D=%g: %.17g want %.17g", ds[i], p, want);
	}
	return TEST_OK;
}

/* C(d, a) p^a (1-p)^(d-a), summed plainly. */
static double naive_hit(u64 d, u64 ways, u64 blocks)
{
	double p = (double)ways / blocks, sum = 0;
	u64 a, i;

	for (a = 0; a < ways && a <= d; a++) {
		double c = 1;

		for (i = 0; i < a; i++)
			c = c * (double)(d - i) / (double)(i + 1);
		sum += c * pow(p, a) * pow(1 - p, d - a);
	}
	return sum;
}

LP_TEST(test_sdcm_vs_naive_sum, "sdcm: log-space recurrence equals the plain binomial sum at small D")
{
	static const u64 ways[] = { 1, 2, 4, 8, 12, 16 }, sets[] = { 2, 16, 64 };
	unsigned int i, j;
	u64 d;
	double p, want, worst = 0;

	for (i = 0; i < ARRAY_SIZE(ways); i++) {
		for (j = 0; j < ARRAY_SIZE(sets); j++) {
			for (d = 0; d <= 300; d++) {
				u64 b = ways[i] * sets[j];

				TEST_ASSERT(!sdcm__hit_prob(d, ways[i], b, &p), "prob");
				want = naive_hit(d, ways[i], b);
				if (fabs(p - want) > worst)
					worst = fabs(p - want);
				TEST_ASSERT(fabs(p - want) <= 1e-12,
					    "A=%llu S=%llu D=%llu: %.17g want %.17g",
					    (unsigned long long)ways[i],
					    (unsigned long long)sets[j],
					    (unsigned long long)d, p, want);
			}
		}
	}
	TEST_LOG("worst difference %.3g", worst);
	return TEST_OK;
}

LP_TEST(test_sdcm_monotone_and_huge_d, "sdcm: P(hit|D) falls with D, stays finite up to D = 1e9")
{
	double p, prev = 1;
	u64 d;

	/* a 48K 12-way L1: 768 lines, 64 sets */
	for (d = 0; d < 100000; d += 7) {
		TEST_ASSERT(!sdcm__hit_prob(d, 12, 768, &p), "prob");
		TEST_ASSERT(p <= prev && p >= 0 && p <= 1, "D=%llu: %g after %g",
			    (unsigned long long)d, p, prev);
		prev = p;
	}
	TEST_ASSERT(!sdcm__hit_prob(1000000000, 12, 768, &p) && p == 0, "1e9: %g", p);
	/* 105M 15-way L3: at D = half its lines, 7.5 expected per set of 15 */
	TEST_ASSERT(!sdcm__hit_prob(860160, 15, 1720320, &p) && p > 0.98 && p < 0.995,
		    "half full: %g", p);
	/* 2^40 blocks, 16 ways: D = 1e9 gives lambda = 0.0146, P ~ 1 */
	TEST_ASSERT(!sdcm__hit_prob(1000000000, 16, (u64)1 << 40, &p), "prob");
	TEST_ASSERT(fabs(p - 1) < 1e-12 && !isnan(p), "p=%.17g", p);
	/* at D = B there are A lines per set on average: P near 1/2 */
	TEST_ASSERT(!sdcm__hit_prob(16 * 4096, 16, 16 * 4096, &p) &&
		    p > 0.4 && p < 0.6, "median: %g", p);
	return TEST_OK;
}

LP_TEST_TIMEOUT(test_sdcm_bin_mean, "sdcm: bin mean by quadrature equals the exact sum over the bin", 60)
{
	static const u64 geom[][2] = { { 4, 262144 }, { 12, 196608 }, { 1, 100000 } };
	unsigned int g;
	int k;
	u64 d;
	double p, sum, q;

	/* bins 2^16..2^20: wider than the exact-sum limit, around the knee */
	for (g = 0; g < ARRAY_SIZE(geom); g++) {
		for (k = 17; k <= 21; k++) {
			u64 lo = reuse_hist__bin_lo(k), max = reuse_hist__bin_max(k);

			for (sum = 0, d = lo; d <= max; d++) {
				TEST_ASSERT(!sdcm__hit_prob(d, geom[g][0], geom[g][1], &q),
					    "prob");
				sum += q;
			}
			sum /= (double)(max - lo + 1);
			TEST_ASSERT(!sdcm__bin_hit_prob(k, geom[g][0], geom[g][1], &p), "bin");
			TEST_LOG("A=%llu B=%llu bin %d: %.12g exact %.12g",
				 (unsigned long long)geom[g][0],
				 (unsigned long long)geom[g][1], k, p, sum);
			TEST_ASSERT(fabs(p - sum) <= 1e-9, "A=%llu bin %d: %.12g want %.12g",
				    (unsigned long long)geom[g][0], k, p, sum);
		}
	}
	return TEST_OK;
}

LP_TEST(test_sdcm_hit_rate_barai_example, "sdcm: Barai et al. Table 2 profile in a 4-line cache hits 50%")
{
	struct sdcm_cache c = { "X", 4 * 64, 4, 64 };
	struct reuse_hist h;
	double hit;

	/* RD 0, 1, 2, 3 once each, infinity 4 times */
	reuse_hist__init(&h, REUSE_STACK, REUSE_GRAN_LINE);
	reuse_hist__add(&h, 0, 1);
	reuse_hist__add(&h, 1, 1);
	reuse_hist__add(&h, 2, 1);
	reuse_hist__add(&h, 3, 1);
	reuse_hist__add_cold(&h, 3);
	reuse_hist__add_inval(&h, 1);
	TEST_ASSERT(!sdcm__hit_rate(&c, &h, &hit), "hit rate");
	TEST_ASSERT(fabs(hit - 0.5) < 1e-12, "hit=%g", hit);
	c.size = 2 * 64;	/* 2 lines: only D = 0, 1 hit */
	c.ways = 2;
	TEST_ASSERT(!sdcm__hit_rate(&c, &h, &hit) && fabs(hit - 0.25) < 1e-12,
		    "hit=%g", hit);
	h.gran = REUSE_GRAN_ADDR;
	TEST_ASSERT(sdcm__hit_rate(&c, &h, &hit) == -EINVAL, "address granularity");
	h.gran = REUSE_GRAN_LINE;
	h.metric = REUSE_TIME;
	TEST_ASSERT(sdcm__hit_rate(&c, &h, &hit) == -EINVAL, "time histogram");
	return TEST_OK;
}

LP_TEST(test_sdcm_mrc, "sdcm: hit-rate curve of a 100-line loop steps at 128 lines")
{
	struct reuse_exact_opts o = { REUSE_EXACT_PER_THREAD, REUSE_GRAN_LINE, 0 };
	struct reuse_exact *re;
	struct reuse_exact_thread t;
	double hit[16], hit8[16];
	unsigned int seed = 3;
	int i, k;

	TEST_ASSERT(!reuse_exact__new(&o, &re), "new");
	for (i = 0; i < 10000; i++)
		reuse_exact__access(re, 1, 64 * (u64)(i % 100), 0, NULL);
	reuse_exact__sum(re, &t);
	reuse_exact__delete(re);
	TEST_ASSERT(!sdcm__mrc(&t.stack, 0, 15, hit), "mrc");
	for (k = 0; k <= 15; k++) {
		double want = k < 7 ? 0 : (10000.0 - 100) / 10000;

		TEST_ASSERT(fabs(hit[k] - want) < 1e-12, "2^%d lines: %g want %g", k,
			    hit[k], want);
	}

	/* a random trace, 8-way: the curve never falls as the cache grows */
	TEST_ASSERT(!reuse_exact__new(&o, &re), "new");
	for (i = 0; i < 100000; i++)
		reuse_exact__access(re, 1, 64 * (u64)(rand_r(&seed) % 3000), 0, NULL);
	reuse_exact__sum(re, &t);
	reuse_exact__delete(re);
	TEST_ASSERT(!sdcm__mrc(&t.stack, 8, 15, hit8), "mrc");
	for (k = 1; k <= 15; k++)
		TEST_ASSERT(hit8[k] >= hit8[k - 1] - 1e-12, "2^%d: %g < %g", k, hit8[k],
			    hit8[k - 1]);
	TEST_ASSERT(hit8[15] > 0.95 && hit8[6] < 0.05, "ends %g %g", hit8[6], hit8[15]);
	return TEST_OK;
}

LP_TEST(test_sdcm_parse, "sdcm: parse L1=48K:12,L2=2M:16,L3=105M:15 and line sizes")
{
	struct sdcm_cache c[4];
	char err[256] = "";
	int n = 0;

	TEST_ASSERT(!sdcm__parse("L1=48K:12,L2=2M:16,L3=105M:15", c, 4, &n, err,
				 sizeof(err)), "%s", err);
	TEST_ASSERT(n == 3, "n=%d", n);
	TEST_ASSERT(!strcmp(c[0].name, "L1") && c[0].size == 49152 && c[0].ways == 12 &&
		    c[0].line == 64, "L1 %s %llu %u %u", c[0].name,
		    (unsigned long long)c[0].size, c[0].ways, c[0].line);
	TEST_ASSERT(c[1].size == 2097152 && c[1].ways == 16, "L2");
	TEST_ASSERT(!strcmp(c[2].name, "L3") && c[2].size == 105ULL << 20 &&
		    c[2].ways == 15, "L3 %llu", (unsigned long long)c[2].size);
	TEST_ASSERT(!sdcm__parse("L1d=48K:12:128,LLC=1g:16", c, 4, &n, err, sizeof(err)),
		    "%s", err);
	TEST_ASSERT(n == 2 && c[0].line == 128 && !strcmp(c[0].name, "L1d") &&
		    c[1].size == 1ULL << 30, "line/lowercase");
	TEST_ASSERT(!sdcm__parse("X=4096:1", c, 4, &n, err, sizeof(err)) &&
		    c[0].size == 4096, "plain bytes");
	return TEST_OK;
}

LP_TEST(test_sdcm_parse_errors, "sdcm: bad cache descriptions give -EINVAL and say what is wrong")
{
	static const struct {
		const char *spec, *msg;
	} bad[] = {
		{ "", "empty" },
		{ "L1=48X:12", "bad size '48X'" },
		{ "L1=48K", "missing ':WAYS'" },
		{ "L1=48K:0", "bad associativity '0'" },
		{ "L1=48K:-1", "bad associativity '-1'" },
		{ "=48K:12", "expected NAME=SIZE:WAYS" },
		{ "L1 48K:12", "expected NAME=SIZE:WAYS" },
		{ "L1=48K:12,,L2=1M:8", "empty entry" },
		{ "L1=48K:12,", "empty entry" },
		{ "L1=100:4", "not a multiple of the 64-byte line" },
		{ "L1=64K:7", "whole sets of 7 ways" },
		{ "L1=48K:12:48", "bad line size '48'" },
		{ "L1=99999999999999999999K:4", "bad size" },
		{ "L$=1M:8", "bad character '$'" },
		{ "A=1M:8,B=1M:8,C=1M:8", "too many caches" },
	};
	struct sdcm_cache c[2];
	char err[256];
	unsigned int i;
	int n;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		err[0] = 0;
		TEST_ASSERT(sdcm__parse(bad[i].spec, c, 2, &n, err, sizeof(err)) == -EINVAL,
			    "'%s' accepted", bad[i].spec);
		TEST_ASSERT(strstr(err, bad[i].msg), "'%s': message '%s' lacks '%s'",
			    bad[i].spec, err, bad[i].msg);
	}
	return TEST_OK;
}
