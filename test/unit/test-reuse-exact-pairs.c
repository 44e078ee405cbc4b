// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>

#include "core/tests.h"
#include "core/reuse-exact.h"
#include "core/reuse-exact-pairs.h"

/* One access of a test: a data address and its instruction. */
struct acc {
	u64 addr, ip;
};

/*
 * Feed @n accesses (one thread, lines) to a new engine and a new pairs
 * table counting beyond @limit lines; the table, NULL on failure.
 */
static struct reuse_xpairs *feed(const struct acc *acc, u32 n, u64 limit)
{
	struct reuse_exact_opts o = { .mode = REUSE_EXACT_PER_THREAD, .gran = REUSE_GRAN_LINE };
	struct reuse_xpairs *xp = reuse_xpairs__new(&limit, 1);
	struct reuse_exact_res res;
	struct reuse_exact *re;
	u32 i;

	if (!xp || reuse_exact__new(&o, &re)) {
		reuse_xpairs__delete(xp);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (reuse_exact__access(re, 1, acc[i].addr, 0, &res) ||
		    reuse_xpairs__access(xp, acc[i].addr >> 6, acc[i].addr, acc[i].ip, &res)) {
			reuse_xpairs__delete(xp);
			xp = NULL;
			break;
		}
	}
	reuse_exact__delete(re);
	return xp;
}

/*
 * Instructions 0x10, 0x20, 0x30 touch lines A and B; every reuse counts
 * for (the instruction of the line's latest access, this one), a first
 * access for no pair, an unknown instruction (ip 0) for none either.
 */
LP_TEST(test_reuse_xpairs_from_engine, "reuse-exact-pairs: each reuse counts for (latest access's instruction, this one), with its distance")
{
	static const struct acc acc[] = {
		{ 0x1000, 0x10 }, { 0x2000, 0x20 },	/* cold, cold */
		{ 0x1008, 0x30 },			/* A: 0x10 -> 0x30 */
		{ 0x2000, 0x30 },			/* B: 0x20 -> 0x30 */
		{ 0x1000, 0x10 },			/* A: 0x30 -> 0x10 */
		{ 0x1010, 0x10 },			/* A: 0x10 -> 0x10 */
		{ 0x2000, 0 },				/* B: not known, no pair */
		{ 0x2000, 0x20 },			/* B: latest unknown, no pair */
		{ 0x1000, 0x30 }, { 0x1000, 0x10 },	/* A: 0x10 -> 0x30, 0x30 -> 0x10 */
		{ 0x2000, 0x30 },			/* B: 0x20 -> 0x30 */
	};
	/* and their distances in lines: beyond 1 line, the median's bin (0: distance 0) */
	static const struct { u64 use, reuse, n, beyond; int median; } want[] = {
		{ 0x10, 0x30, 2, 2, 1 }, { 0x20, 0x30, 2, 2, 1 }, { 0x30, 0x10, 2, 1, 0 },
		{ 0x10, 0x10, 1, 0, 0 },
	};
	struct reuse_xpairs *xp = feed(acc, sizeof(acc) / sizeof(acc[0]), 1);
	const struct reuse_xpair_dist *d;
	struct reuse_pair *v;
	u32 n, i;

	TEST_ASSERT(xp, "feed");
	reuse_xpairs__sorted(xp, &v, &n);
	for (i = 0; i < n; i++)
		TEST_LOG("%#llx -> %#llx: %llu", (unsigned long long)v[i].use_ip,
			 (unsigned long long)v[i].reuse_ip, (unsigned long long)v[i].reuses);
	TEST_ASSERT(n == 4, "%u pairs, want 4", n);
	for (i = 0; i < n; i++)
		TEST_ASSERT(v[i].use_ip == want[i].use && v[i].reuse_ip == want[i].reuse &&
			    v[i].reuses == want[i].n && !v[i].invalidations,
			    "pair %u: %#llx -> %#llx %llu, want %#llx -> %#llx %llu", i,
			    (unsigned long long)v[i].use_ip, (unsigned long long)v[i].reuse_ip,
			    (unsigned long long)v[i].reuses, (unsigned long long)want[i].use,
			    (unsigned long long)want[i].reuse, (unsigned long long)want[i].n);
	d = reuse_xpairs__dist(xp);
	TEST_ASSERT(d, "distances kept");
	for (i = 0; i < n; i++)
		TEST_ASSERT(d[i].beyond[0] == want[i].beyond &&
			    reuse_xpair_dist__median_bin(&d[i]) == want[i].median,
			    "pair %u: %llu beyond 1 line (want %llu), median bin %d (want %d)", i,
			    (unsigned long long)d[i].beyond[0], (unsigned long long)want[i].beyond,
			    reuse_xpair_dist__median_bin(&d[i]), want[i].median);
	reuse_xpairs__delete(xp);
	return TEST_OK;
}

/* Ranked by the reuses beyond a limit, the far pair comes first. */
LP_TEST(test_reuse_xpairs_sorted_by_beyond, "reuse-exact-pairs: ranked by reuses beyond a cache, not by reuses")
{
	static const struct acc acc[] = {
		{ 0x1000, 1 }, { 0x1000, 2 }, { 0x1000, 2 }, { 0x1000, 2 }, { 0x1000, 2 },
		{ 0x2000, 3 }, { 0x3000, 3 }, { 0x1000, 4 },	/* 2 -> 4 at distance 2 */
	};
	struct reuse_xpairs *xp = feed(acc, sizeof(acc) / sizeof(acc[0]), 2);
	struct reuse_pair *v;
	u32 n;

	TEST_ASSERT(xp, "feed");
	reuse_xpairs__sorted(xp, &v, &n);
	TEST_ASSERT(n == 3 && v[0].use_ip == 2 && v[0].reuse_ip == 2 && v[0].reuses == 3 &&
		    v[1].use_ip == 1 && v[2].use_ip == 2 && v[2].reuse_ip == 4,
		    "by reuses: %u pairs, first %llu -> %llu", n, (unsigned long long)v[0].use_ip,
		    (unsigned long long)v[0].reuse_ip);
	reuse_xpairs__sorted_by(xp, 0, &v, &n);
	TEST_ASSERT(n == 3 && v[0].use_ip == 2 && v[0].reuse_ip == 4 &&
		    reuse_xpairs__dist(xp)[0].beyond[0] == 1 && v[1].reuses == 3,
		    "by beyond 2 lines: first %llu -> %llu", (unsigned long long)v[0].use_ip,
		    (unsigned long long)v[0].reuse_ip);
	reuse_xpairs__delete(xp);
	return TEST_OK;
}
