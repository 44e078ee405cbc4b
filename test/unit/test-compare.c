// SPDX-License-Identifier: GPL-2.0
/*
 * compare: similarity S = 1 - sum|a - b| / 2 of normalized matrices and
 * histograms, and reading comdetect / reuse JSON. Expected values are
 * worked out by hand in the comments.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/compare.h"
#include "core/json.h"
#include "core/tests.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-12)

LP_TEST(test_compare_matrix_identical_and_scaled, "compare: same shape gives S = 1, whatever the scale")
{
	double a[9] = { 0, 3, 1, 3, 0, 2, 1, 2, 0 }, b[9];
	double s = -1;
	int i;

	TEST_ASSERT(compare__matrix_union(a, 3, a, 3, &s) == 0, "ret");
	TEST_ASSERT(NEAR(s, 1), "S=%.17g", s);
	for (i = 0; i < 9; i++)
		b[i] = a[i] * 1234.5;	/* counts vs fractions: same shape */
	TEST_ASSERT(compare__matrix_union(a, 3, b, 3, &s) == 0, "ret");
	TEST_ASSERT(NEAR(s, 1), "scaled S=%.17g", s);
	return TEST_OK;
}

LP_TEST(test_compare_matrix_disjoint, "compare: matrices with no common cell give S = 0")
{
	double a[4] = { 0, 5, 5, 0 }, b[4] = { 7, 0, 0, 1 }, s = -1;

	TEST_ASSERT(compare__matrix_union(a, 2, b, 2, &s) == 0, "ret");
	TEST_ASSERT(NEAR(s, 0), "S=%.17g", s);
	return TEST_OK;
}

LP_TEST(test_compare_matrix_partial_by_hand, "compare: partial overlap matches hand computation")
{
	/*
	 * a = [0 1; 1 0] -> .5 .5;  b = [0 3; 1 0] -> .75 .25
	 * sum|a-b| = .25 + .25 = .5 -> S = .75
	 */
	double a[4] = { 0, 1, 1, 0 }, b[4] = { 0, 3, 1, 0 }, s;
	/*
	 * point-to-point 0-1 (f=1), 2-3 (f=.5): 1/3 at (0,1),(1,0), 1/6 at
	 * (2,3),(3,2); write-volume: 1/12 in every off-diagonal cell.
	 * sum = 2(1/3-1/12) + 2(1/6-1/12) + 8/12 = 1/2 + 1/6 + 2/3 = 4/3
	 * -> S = 1 - 2/3 = 1/3.
	 */
	double p2p[16] = { 0, 2, 0, 0, 2, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0 }, wv[16];
	int i;

	TEST_ASSERT(compare__matrix_union(a, 2, b, 2, &s) == 0, "ret");
	TEST_ASSERT(NEAR(s, 0.75), "S=%.17g", s);
	TEST_ASSERT(compare__matrix_union(b, 2, a, 2, &s) == 0 && NEAR(s, 0.75), "not symmetric: %g", s);
	for (i = 0; i < 16; i++)
		wv[i] = i % 5 ? 1 : 0;	/* zero diagonal */
	TEST_ASSERT(compare__matrix_union(p2p, 4, wv, 4, &s) == 0, "ret");
	TEST_ASSERT(NEAR(s, 1.0 / 3), "S=%.17g", s);
	return TEST_OK;
}

LP_TEST(test_compare_matrix_size_mismatch_union, "compare: 4x4 vs 3x3 compared over the 4x4 union")
{
	/*
	 * a: uniform 4x4 off-diagonal, 12 cells of 1/12; b: uniform 3x3, 6
	 * cells of 1/6 in the top-left corner. Inside: 6 x |1/12 - 1/6| = 1/2;
	 * row/column 3: 6 x 1/12 = 1/2. S = 1 - 1/2 = 1/2.
	 */
	double a[16], b[9], s;
	int i;

	for (i = 0; i < 16; i++)
		a[i] = i % 5 ? 1 : 0;
	for (i = 0; i < 9; i++)
		b[i] = i % 4 ? 1 : 0;
	TEST_ASSERT(compare__matrix_union(a, 4, b, 3, &s) == 0, "ret");
	TEST_ASSERT(NEAR(s, 0.5), "S=%.17g", s);
	TEST_ASSERT(compare__matrix_union(b, 3, a, 4, &s) == 0 && NEAR(s, 0.5), "S=%g", s);
	/* a 3x3 embedded in a 4x4 (last row/column 0) is the same matrix */
	memset(a, 0, sizeof(a));
	for (i = 0; i < 9; i++)
		a[(i / 3) * 4 + i % 3] = b[i];
	TEST_ASSERT(compare__matrix_union(a, 4, b, 3, &s) == 0 && NEAR(s, 1), "S=%g", s);
	return TEST_OK;
}

LP_TEST(test_compare_matrix_empty_and_invalid, "compare: empty matrices and invalid cells")
{
	double z[4] = { 0 }, a[4] = { 0, 1, 1, 0 }, bad[4] = { 0, -1, 1, 0 }, s = -1;

	TEST_ASSERT(compare__matrix_union(z, 2, z, 2, &s) == 0 && NEAR(s, 1), "both empty: S=%g", s);
	TEST_ASSERT(compare__matrix_union(z, 2, a, 2, &s) == 0 && NEAR(s, 0), "one empty: S=%g", s);
	TEST_ASSERT(compare__matrix_union(a, 2, z, 2, &s) == 0 && NEAR(s, 0), "one empty: S=%g", s);
	TEST_ASSERT(compare__matrix_union(a, 2, bad, 2, &s) == -EINVAL, "negative cell accepted");
	bad[1] = NAN;
	TEST_ASSERT(compare__matrix_union(bad, 2, a, 2, &s) == -EINVAL, "NaN accepted");
	TEST_ASSERT(compare__matrix_union(a, -1, a, -1, &s) == -EINVAL, "n=-1 accepted");
	return TEST_OK;
}

LP_TEST(test_compare_hist_union_of_bins, "compare: histogram bins matched by [lo,hi], cold = inf")
{
	/*
	 * a: {0}:2 {1}:1 cold:1 -> .5 .25 .25
	 * b: {0}:.5 {2-3}:.25 cold:.25
	 * |.5-.5| + |.25-0| + |0-.25| + |.25-.25| = .5 -> S = .75
	 */
	struct compare_bin ab[3] = {
		{ COMPARE_BIN_FINITE, 0, 0, 2 }, { COMPARE_BIN_FINITE, 1, 1, 1 },
		{ COMPARE_BIN_COLD, INFINITY, INFINITY, 1 },
	};
	struct compare_bin bb[3] = {
		{ COMPARE_BIN_COLD, INFINITY, INFINITY, .25 }, { COMPARE_BIN_FINITE, 0, 0, .5 },
		{ COMPARE_BIN_FINITE, 2, 3, .25 },
	};
	struct compare_bin dup[3] = {	/* {0} split in two entries = a */
		{ COMPARE_BIN_FINITE, 0, 0, 1 }, { COMPARE_BIN_FINITE, 1, 1, 1 },
		{ COMPARE_BIN_FINITE, 0, 0, 1 },
	};
	struct compare_bin inval[1] = { { COMPARE_BIN_INVAL, INFINITY, INFINITY, 1 } };
	struct compare_bin cold[1] = { { COMPARE_BIN_COLD, INFINITY, INFINITY, 1 } };
	struct compare_hist a = { 3, ab }, b = { 3, bb }, d = { 3, dup }, c = { 2, ab };
	struct compare_hist hi = { 1, inval }, hc = { 1, cold };
	double s = -1;

	TEST_ASSERT(compare__hist(&a, &b, &s) == 0 && NEAR(s, 0.75), "S=%.17g", s);
	TEST_ASSERT(compare__hist(&b, &a, &s) == 0 && NEAR(s, 0.75), "S=%.17g", s);
	/* d = {0}:2 {1}:1 and c = a without cold: identical */
	TEST_ASSERT(compare__hist(&d, &c, &s) == 0 && NEAR(s, 1), "dup bins: S=%.17g", s);
	TEST_ASSERT(compare__hist(&hi, &hc, &s) == 0 && NEAR(s, 0), "inval vs cold: S=%g", s);
	bb[0].w = -1;
	TEST_ASSERT(compare__hist(&a, &b, &s) == -EINVAL, "negative weight accepted");
	return TEST_OK;
}

static struct json_value *parse(const char *text)
{
	struct json_value *v = NULL;

	if (json__parse(text, strlen(text), &v, NULL))
		return NULL;
	return v;
}

#define CD_OK "{\"command\":\"comdetect\",\"matrix\":{" \
	"\"all\":[[0,3],[3,0]],\"true\":[[0,1],[1,0]],\"false\":[[0,2],[2,0]]}," \
	"\"totals\":{\"all\":6,\"true\":2,\"false\":4}"

LP_TEST(test_compare_read_comdetect, "compare: comdetect JSON read, false fraction from key or totals")
{
	struct json_value *v = parse(CD_OK ",\"false_fraction\":0.25}");
	struct compare_comdetect c;
	char msg[COMPARE_MSG_LEN];
	int ret;

	TEST_ASSERT(v, "parse");
	TEST_ASSERT(compare__kind(v, msg, sizeof(msg)) == COMPARE_COMDETECT, "kind");
	ret = compare__read_comdetect(v, &c, msg, sizeof(msg));
	TEST_ASSERT(ret == 0, "ret %d: %.60s", ret, msg);
	TEST_ASSERT(c.m[COMPARE_ALL].n == 2 && c.m[COMPARE_ALL].cell[1] == 3 &&
		    c.m[COMPARE_FALSE].cell[2] == 2, "cells");
	TEST_ASSERT(c.false_fraction == 0.25 && c.false_fraction_from_key, "ff %g", c.false_fraction);
	TEST_ASSERT(!c.has_core, "core");
	compare__comdetect_free(&c);
	json__free(v);

	v = parse(CD_OK ",\"core_matrix\":{\"all\":[[1]],\"true\":[[1]],\"false\":[[0]]}}");
	TEST_ASSERT(v, "parse");
	ret = compare__read_comdetect(v, &c, msg, sizeof(msg));
	TEST_ASSERT(ret == 0, "ret %d: %.60s", ret, msg);
	/* totals.false / totals.all = 4 / 6 */
	TEST_ASSERT(NEAR(c.false_fraction, 4.0 / 6) && !c.false_fraction_from_key,
		    "ff %g", c.false_fraction);
	TEST_ASSERT(c.has_core && c.core[COMPARE_ALL].n == 1, "core");
	compare__comdetect_free(&c);
	json__free(v);
	return TEST_OK;
}

/* @text must fail with -EINVAL and a message containing @key */
static int bad_comdetect(const char *text, const char *key, char *why, size_t len)
{
	struct json_value *v = parse(text);
	struct compare_comdetect c;
	char msg[COMPARE_MSG_LEN] = "";
	int ret;

	if (!v) {
		snprintf(why, len, "test JSON does not parse");
		return 0;
	}
	ret = compare__read_comdetect(v, &c, msg, sizeof(msg));
	json__free(v);
	if (ret == 0)
		compare__comdetect_free(&c);
	if (ret != -EINVAL || !strstr(msg, key)) {
		snprintf(why, len, "ret %d, msg '%s', wanted key '%s'", ret, msg, key);
		return 0;
	}
	return 1;
}

LP_TEST(test_compare_read_comdetect_malformed, "compare: malformed comdetect JSON names the key")
{
	static const struct { const char *text, *key; } cases[] = {
		{ "{\"command\":\"comdetect\"}", "'matrix.all': missing" },
		{ "{\"matrix\":{\"all\":[[0]],\"true\":\"x\"}}", "'matrix.true': expected an array" },
		{ "{\"matrix\":{\"all\":[[0,1],[1]]}}", "'matrix.all.1'" },
		{ "{\"matrix\":{\"all\":[[0,\"1\"],[1,0]]}}", "'matrix.all.0.1': expected a number" },
		{ "{\"matrix\":{\"all\":[[0,1],[-1,0]]}}", "'matrix.all.1.0': expected a non-negative" },
		{ "{\"matrix\":{\"all\":[3]}}", "'matrix.all.0'" },
		{ "{\"matrix\":{\"all\":[[0]],\"true\":[[0]],\"false\":[[0]]},\"totals\":{\"all\":1}}",
		  "'totals.true': missing" },
		{ CD_OK ",\"false_fraction\":\"half\"}", "'false_fraction'" },
		{ CD_OK ",\"core_matrix\":{\"all\":[[1]]}}", "'core_matrix.true'" },
		{ "[1,2]", "top" },
	};
	char why[120];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		TEST_ASSERT(bad_comdetect(cases[i].text, cases[i].key, why, sizeof(why)),
			    "case %zu: %.60s", i, why);
	return TEST_OK;
}

LP_TEST(test_compare_kind, "compare: the command key decides the kind")
{
	static const struct { const char *text; int kind; } cases[] = {
		{ "{\"command\":\"comdetect\"}", COMPARE_COMDETECT },
		{ "{\"command\":\"coherence\"}", COMPARE_COMDETECT },
		{ "{\"command\":\"reuse\"}", COMPARE_REUSE },
		{ "{\"bins\":[]}", 0 },
		{ "{\"command\":\"list\"}", -EINVAL },
		{ "{\"command\":3}", -EINVAL },
		{ "3", -EINVAL },
	};
	char msg[COMPARE_MSG_LEN];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct json_value *v = parse(cases[i].text);
		int k;

		TEST_ASSERT(v, "parse %zu", i);
		k = compare__kind(v, msg, sizeof(msg));
		json__free(v);
		TEST_ASSERT(k == cases[i].kind, "case %zu: %d", i, k);
	}
	return TEST_OK;
}

#define R1 "{\"command\":\"reuse\",\"granularity\":\"line\",\"bins\":[" \
	"{\"lo\":0,\"hi\":0,\"fraction\":0.5},{\"lo\":1,\"hi\":1,\"fraction\":0.25}," \
	"{\"lo\":\"cold\",\"hi\":\"inf\",\"fraction\":0.25}]," \
	"\"per_thread\":[{\"bins\":[{\"lo\":0,\"hi\":0,\"fraction\":1}]}," \
	"{\"bins\":[{\"lo\":2,\"hi\":3,\"fraction\":1}]}],\"reuses\":30,\"invalidations\":10}"
#define R2 "{\"command\":\"reuse\",\"granularity\":\"line\",\"bins\":[" \
	"{\"lo\":0,\"hi\":0,\"count\":2},{\"lo\":2,\"hi\":3,\"count\":1}," \
	"{\"lo\":\"inf\",\"count\":1}]," \
	"\"per_thread\":[{\"bins\":[{\"lo\":0,\"hi\":0,\"fraction\":1}]}]," \
	"\"reuses\":10,\"invalidations\":10}"

LP_TEST(test_compare_reuse_by_hand, "compare: reuse results, per thread and invalidation fraction")
{
	struct json_value *v1 = parse(R1), *v2 = parse(R2);
	struct compare_reuse a, b;
	struct compare_reuse_result r;
	char msg[COMPARE_MSG_LEN];
	int ret;

	TEST_ASSERT(v1 && v2, "parse");
	ret = compare__read_reuse(v1, &a, msg, sizeof(msg));
	TEST_ASSERT(ret == 0, "r1: %.60s", msg);
	ret = compare__read_reuse(v2, &b, msg, sizeof(msg));
	TEST_ASSERT(ret == 0, "r2: %.60s", msg);
	TEST_ASSERT(a.all.nbins == 3 && a.all.bins[2].kind == COMPARE_BIN_COLD &&
		    b.all.bins[2].kind == COMPARE_BIN_COLD, "cold bins");
	TEST_ASSERT(a.nthreads == 2 && b.nthreads == 1, "threads %d %d", a.nthreads, b.nthreads);
	ret = compare__reuse(&a, &b, &r, msg, sizeof(msg));
	TEST_ASSERT(ret == 0, "compare: %.60s", msg);
	/* b normalized: .5 .25(2-3) .25(cold); vs a: |.25| + |.25| = .5 -> .75 */
	TEST_ASSERT(NEAR(r.s, 0.75), "S=%.17g", r.s);
	TEST_ASSERT(r.nthreads == 1 && NEAR(r.thread_s[0], 1), "per thread");
	/* 10/(30+10) = .25 vs 10/20 = .5 */
	TEST_ASSERT(r.has_inval && NEAR(r.inval_exp, 0.25) && NEAR(r.inval_meas, 0.5) &&
		    NEAR(r.inval_err, 0.25), "inval %g %g", r.inval_exp, r.inval_meas);
	compare__reuse_result_free(&r);

	/* different granularity: refused, the bins mean different things */
	snprintf(b.granularity, sizeof(b.granularity), "addr");
	ret = compare__reuse(&a, &b, &r, msg, sizeof(msg));
	TEST_ASSERT(ret == -EINVAL && strstr(msg, "granularity"), "ret %d msg %.60s", ret, msg);
	compare__reuse_free(&a);
	compare__reuse_free(&b);
	json__free(v1);
	json__free(v2);
	return TEST_OK;
}

#define RS "{\"command\":\"reuse\",\"bins\":[" \
	"{\"lo\":0,\"hi\":0,\"count\":60,\"fraction\":0.6,\"stderr\":0.05}," \
	"{\"lo\":4,\"hi\":7,\"count\":30,\"fraction\":0.3,\"stderr\":0.01}," \
	"{\"lo\":8,\"hi\":15,\"count\":10,\"fraction\":0.1,\"stderr\":0}],\"cold\":100}"
#define RX "{\"command\":\"reuse\",\"bins\":[" \
	"{\"lo\":0,\"hi\":0,\"fraction\":0.5},{\"lo\":4,\"hi\":7,\"fraction\":0.2}," \
	"{\"lo\":8,\"hi\":15,\"fraction\":0.1},{\"lo\":16,\"hi\":31,\"fraction\":0.2}]}"

LP_TEST(test_compare_reuse_sampling_error, "compare: bins beyond 2 standard errors, by hand")
{
	struct json_value *vs = parse(RS), *vx = parse(RX);
	struct compare_reuse x, m;
	struct compare_reuse_result r;
	char msg[COMPARE_MSG_LEN];

	TEST_ASSERT(vs && vx, "parse");
	TEST_ASSERT(!compare__read_reuse(vx, &x, msg, sizeof(msg)), "exact: %.60s", msg);
	TEST_ASSERT(!compare__read_reuse(vs, &m, msg, sizeof(msg)), "sampled: %.60s", msg);
	TEST_ASSERT(m.all.bins[0].has_se && !x.all.bins[0].has_se, "stderr read");
	TEST_ASSERT(!compare__reuse(&x, &m, &r, msg, sizeof(msg)), "compare");
	/*
	 * measured normalized with its cold (sum 200): .3 .15 .05; its errors
	 * scaled by .5: .025 .005 0. Against .5 .2 .1 .2:
	 * 0-0 z 8, 4-7 z 10, 8-15 |.05| with no error, 16-31 |.2| none
	 */
	TEST_ASSERT(r.has_se && r.ndiff == 4 && r.nwithin == 0, "ndiff %d within %d",
		    r.ndiff, r.nwithin);
	TEST_ASSERT(isinf(r.diff[0].z) && isinf(r.diff[1].z), "no error known first");
	TEST_ASSERT(r.diff[2].lo == 4 && NEAR(r.diff[2].z, 10) && NEAR(r.diff[2].se, 0.005),
		    "4-7: z %g se %g", r.diff[2].z, r.diff[2].se);
	TEST_ASSERT(r.diff[3].lo == 0 && NEAR(r.diff[3].z, 8), "0-0: z %g", r.diff[3].z);
	compare__reuse_result_free(&r);
	/* the same sampled result against itself: every bin within */
	TEST_ASSERT(!compare__reuse(&m, &m, &r, msg, sizeof(msg)), "self");
	TEST_ASSERT(r.has_se && r.ndiff == 0 && r.nwithin == 3, "self: %d %d", r.ndiff, r.nwithin);
	compare__reuse_result_free(&r);
	/* no errors on either side: no such view */
	TEST_ASSERT(!compare__reuse(&x, &x, &r, msg, sizeof(msg)) && !r.has_se, "exact pair");
	compare__reuse_result_free(&r);
	compare__reuse_free(&x);
	compare__reuse_free(&m);
	json__free(vs);
	json__free(vx);
	return TEST_OK;
}

LP_TEST(test_compare_read_reuse_malformed, "compare: malformed reuse JSON names the key")
{
	static const struct { const char *text, *key; } cases[] = {
		{ "{\"command\":\"reuse\"}", "'bins': missing" },
		{ "{\"bins\":{}}", "'bins': expected an array" },
		{ "{\"bins\":[{\"lo\":0,\"hi\":0,\"fraction\":1},{\"lo\":\"hot\",\"fraction\":1}]}",
		  "'bins.1.lo'" },
		{ "{\"bins\":[{\"lo\":4,\"fraction\":1}]}", "'bins.0.hi': missing" },
		{ "{\"bins\":[{\"lo\":4,\"hi\":7}]}", "'bins.0.fraction': missing" },
		{ "{\"bins\":[{\"lo\":4,\"hi\":2,\"fraction\":1}]}", "'bins.0'" },
		{ "{\"bins\":[],\"per_thread\":[{\"bins\":[3]}]}", "'per_thread.0.bins.0'" },
		{ "{\"bins\":[],\"per_thread\":7}", "'per_thread'" },
		{ "{\"bins\":[],\"reuses\":1,\"invalidations\":\"x\"}", "'invalidations'" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct json_value *v = parse(cases[i].text);
		struct compare_reuse r;
		char msg[COMPARE_MSG_LEN] = "";
		int ret;

		TEST_ASSERT(v, "parse %zu", i);
		ret = compare__read_reuse(v, &r, msg, sizeof(msg));
		json__free(v);
		if (!ret)
			compare__reuse_free(&r);
		TEST_ASSERT(ret == -EINVAL && strstr(msg, cases[i].key),
			    "case %zu: ret %d msg '%.60s' wanted '%.60s'", i, ret, msg, cases[i].key);
	}
	return TEST_OK;
}

LP_TEST(test_compare_text_pos, "compare: byte offset to line and column")
{
	const char *t = "{\n  \"a\": x\n}";
	int line, col;

	compare__text_pos(t, strlen(t), 9, &line, &col);	/* the 'x' */
	TEST_ASSERT(line == 2 && col == 8, "line %d col %d", line, col);
	compare__text_pos(t, strlen(t), 0, &line, &col);
	TEST_ASSERT(line == 1 && col == 1, "line %d col %d", line, col);
	return TEST_OK;
}

/*
 * ribench --expect style: bins with both fraction and count, and the cold
 * accesses as a top-level count. The cold count joins the counts (same
 * unit), never the fractions: a shifted histogram must not look identical.
 */
#define R3 "{\"command\":\"reuse\",\"granularity\":\"address\",\"cold\":1000,\"bins\":[" \
	"{\"lo\":0,\"hi\":0,\"count\":30,\"fraction\":0.3}," \
	"{\"lo\":1,\"hi\":1,\"count\":70,\"fraction\":0.7}]}"
#define R4 "{\"command\":\"reuse\",\"granularity\":\"address\",\"cold\":1000,\"bins\":[" \
	"{\"lo\":1,\"hi\":1,\"count\":30,\"fraction\":0.3}," \
	"{\"lo\":2,\"hi\":3,\"count\":70,\"fraction\":0.7}]}"
#define R5 "{\"command\":\"reuse\",\"granularity\":\"address\",\"cold\":1000,\"bins\":[" \
	"{\"lo\":1,\"hi\":1,\"fraction\":0.3},{\"lo\":2,\"hi\":3,\"fraction\":0.7}]}"

LP_TEST(test_compare_top_level_cold_count, "compare: a top-level cold count joins bin counts, not fractions")
{
	struct json_value *v3 = parse(R3), *v4 = parse(R4), *v5 = parse(R5);
	struct compare_reuse a, b, c;
	struct compare_reuse_result r;
	char msg[COMPARE_MSG_LEN];

	TEST_ASSERT(v3 && v4 && v5, "parse");
	TEST_ASSERT(compare__read_reuse(v3, &a, msg, sizeof(msg)) == 0, "r3: %.60s", msg);
	TEST_ASSERT(compare__read_reuse(v4, &b, msg, sizeof(msg)) == 0, "r4: %.60s", msg);
	TEST_ASSERT(compare__read_reuse(v5, &c, msg, sizeof(msg)) == 0, "r5: %.60s", msg);
	TEST_ASSERT(a.all.nbins == 3 && a.all.bins[2].kind == COMPARE_BIN_COLD, "cold joined counts");
	TEST_ASSERT(c.all.nbins == 2, "cold count left out of fractions: %d bins", c.all.nbins);
	TEST_ASSERT(compare__reuse(&a, &b, &r, msg, sizeof(msg)) == 0, "compare: %.60s", msg);
	/* each 1100 in total: cold 1000 in common, 30 overlap at [1,1]: S = 1030/1100 */
	TEST_ASSERT(NEAR(r.s, 1030.0 / 1100.0), "S=%.17g", r.s);
	compare__reuse_result_free(&r);
	/* without cold on one side the bins are fractions: S over the reuse bins */
	TEST_ASSERT(compare__reuse(&b, &c, &r, msg, sizeof(msg)) == 0, "compare: %.60s", msg);
	TEST_ASSERT(r.s < 0.1, "counts+cold vs fractions gave S=%g", r.s);
	compare__reuse_result_free(&r);
	compare__reuse_free(&a);
	compare__reuse_free(&b);
	compare__reuse_free(&c);
	json__free(v3);
	json__free(v4);
	json__free(v5);
	return TEST_OK;
}

/*
 * Marathe et al. 2005's quality measures by hand: the full result's top
 * lines A (100) and B (50) make V1 = 150; the lossy top is B, C (C has no
 * volume in the full result) and A at the bottom of 12 lines, so only
 * lines in the lossy top 10 count: V2 = 50 + 0 = 50 if A is 11th.
 */
LP_TEST(test_compare_top_lines_coverage, "compare: top-10 line coverage and false positives match hand computation")
{
	static const char full[] = "{\"command\":\"comdetect\",\"matrix\":{\"all\":[[0,1],[1,0]],"
		"\"true\":[[0,1],[1,0]],\"false\":[[0,0],[0,0]]},\"totals\":{\"all\":1,\"true\":1,\"false\":0},"
		"\"lines\":[{\"address\":\"0xa00\",\"true\":100,\"false\":0},"
		"{\"address\":\"0xb00\",\"true\":20,\"false\":30},{\"address\":\"0xc00\",\"true\":0,\"false\":0}]}";
	char lossy[4096];
	struct compare_comdetect e, m;
	struct compare_comdetect_result r;
	struct json_value *je, *jm;
	struct json_error jerr;
	char msg[256];
	int n, i;

	n = snprintf(lossy, sizeof(lossy), "{\"command\":\"comdetect\",\"matrix\":{\"all\":[[0,1],[1,0]],"
		     "\"true\":[[0,1],[1,0]],\"false\":[[0,0],[0,0]]},\"totals\":{\"all\":1,\"true\":1,"
		     "\"false\":0},\"lines\":[{\"address\":\"0xb00\",\"true\":90,\"false\":10},"
		     "{\"address\":\"0xc00\",\"true\":80,\"false\":0}");
	for (i = 0; i < 9; i++)	/* lines 3..11 of the lossy list; A is the last */
		n += snprintf(lossy + n, sizeof(lossy) - n, ",{\"address\":\"0x%x\",\"true\":%d,\"false\":0}",
			      i < 8 ? 0xd00 + 0x40 * i : 0xa00, 60 - i);
	snprintf(lossy + n, sizeof(lossy) - n, "]}");
	TEST_ASSERT(json__parse(full, strlen(full), &je, &jerr) == 0, "full JSON");
	TEST_ASSERT(json__parse(lossy, strlen(lossy), &jm, &jerr) == 0, "lossy JSON");
	TEST_ASSERT(compare__read_comdetect(je, &e, msg, sizeof(msg)) == 0, "%.150s", msg);
	TEST_ASSERT(compare__read_comdetect(jm, &m, msg, sizeof(msg)) == 0, "%.150s", msg);
	TEST_ASSERT(e.nlines == 3 && m.nlines == 11, "lines %d %d", e.nlines, m.nlines);
	TEST_ASSERT(compare__comdetect(&e, &m, &r) == 0, "compare");
	TEST_ASSERT(r.has_lines && r.top_meas == 10, "top %d", r.top_meas);
	/* lossy top 10: B, C and 8 lines the full result never saw; A is 11th */
	TEST_ASSERT(fabs(r.coverage - 50.0 / 150.0) < 1e-12, "coverage %g", r.coverage);
	TEST_ASSERT(r.false_pos == 9, "false positives %d", r.false_pos);
	compare__comdetect_free(&e);
	compare__comdetect_free(&m);
	json__free(je);
	json__free(jm);
	return TEST_OK;
}
