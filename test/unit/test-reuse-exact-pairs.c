// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>

#include "core/tests.h"
#include "core/reuse-exact.h"
#include "core/reuse-exact-pairs.h"

/*
 * Instructions 0x10, 0x20, 0x30 touch lines A and B; every reuse counts
 * for (the instruction of the line's latest access, this one), a first
 * access for no pair, an unknown instruction (ip 0) for none either.
 */
LP_TEST(test_reuse_xpairs_from_engine, "reuse-exact-pairs: each reuse counts for (latest access's instruction, this one)")
{
	static const struct { u64 addr, ip; } acc[] = {
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
	static const struct { u64 use, reuse, n; } want[] = {
		{ 0x10, 0x30, 2 }, { 0x20, 0x30, 2 }, { 0x30, 0x10, 2 }, { 0x10, 0x10, 1 },
	};
	struct reuse_exact_opts o = { .mode = REUSE_EXACT_PER_THREAD, .gran = REUSE_GRAN_LINE };
	struct reuse_xpairs *xp = reuse_xpairs__new();
	struct reuse_exact *re;
	struct reuse_exact_res res;
	struct reuse_pair *v;
	u32 n, i;

	TEST_ASSERT(xp && !reuse_exact__new(&o, &re), "new");
	for (i = 0; i < sizeof(acc) / sizeof(acc[0]); i++) {
		TEST_ASSERT(!reuse_exact__access(re, 1, acc[i].addr, 0, &res), "access %u", i);
		TEST_ASSERT(!reuse_xpairs__access(xp, acc[i].addr >> 6, acc[i].addr, acc[i].ip, &res),
			    "pair %u", i);
	}
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
	reuse_exact__delete(re);
	reuse_xpairs__delete(xp);
	return TEST_OK;
}
