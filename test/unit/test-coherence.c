// SPDX-License-Identifier: GPL-2.0
/*
 * The MESI simulator (core/coherence.h) on short traces whose counts are
 * derived by hand in each test's comment from the definitions in
 * core/coherence.h. The result orders threads by tid: the smallest is T0.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/coherence.h"
#include "core/tests.h"

#define L0 0x10000ull		/* a line-aligned address */
#define L1 0x10040ull		/* the next line */

struct acc {
	u32 tid;
	int store;
	u64 addr;
	u32 size;
};

static int run(struct coherence **cp, const struct coherence_config *cfg, const struct acc *a,
	       int n, const struct coherence_result **res)
{
	int i, err = coherence__new(cp, cfg);

	for (i = 0; !err && i < n; i++)
		err = coherence__access(*cp, a[i].tid, a[i].store, a[i].addr, a[i].size);
	return err ? err : coherence__result(*cp, res);
}

#define RUN(acc)							\
	TEST_ASSERT(run(&c, NULL, acc, ARRAY_SIZE(acc), &r) == 0, "simulation failed")
#define CELL(m, i, j)	((m)[(i) * r->nthreads + (j)])

/* The reference of @t's @store access at @addr, or NULL. */
static const struct coherence_ref *find_ref(const struct coherence_result *r, u32 t, int store,
					    u64 addr)
{
	int i;

	for (i = 0; i < r->nrefs; i++)
		if (r->refs[i].thread == t && r->refs[i].store == store && r->refs[i].addr == addr)
			return &r->refs[i];
	return NULL;
}

/*
 * A (tid 10) and B (tid 20) store the same word in turn: A B A B A, then
 * A once more.
 *   A: cold, M.   B: cold, invalidates A (B->A 1).
 *   A: coherence miss from B, true (B stored A's bytes); invalidates B (A->B 1).
 *   B: miss from A, true; B->A 2.   A: miss from B, true; A->B 2.
 *   A again: a hit on its M copy (not an upgrade: no other copy).
 * Misses 3 (B->A 2, A->B 1), all true, stores; invalidations 4; cold 2;
 * hits 1, upgrades 0.
 * References: A's store 2 misses, 2 invalidations; B's 1 and 2.
 */
LP_TEST(test_coherence_ping_pong, "coherence: ping-pong stores are true-sharing misses")
{
	static const struct acc acc[] = {
		{ 10, 1, L0, 8 }, { 20, 1, L0, 8 }, { 10, 1, L0, 8 }, { 20, 1, L0, 8 },
		{ 10, 1, L0, 8 }, { 10, 1, L0, 8 },
	};
	const struct coherence_result *r;
	const struct coherence_ref *ra, *rb;
	struct coherence *c;

	RUN(acc);
	TEST_ASSERT(r->nthreads == 2 && r->tids[0] == 10 && r->tids[1] == 20, "threads");
	TEST_ASSERT(r->total.misses == 3, "misses %llu", (unsigned long long)r->total.misses);
	TEST_ASSERT(r->total.true_sharing == 3 && r->total.false_sharing == 0, "true %llu",
		    (unsigned long long)r->total.true_sharing);
	TEST_ASSERT(r->total.store_misses == 3 && r->total.load_misses == 0, "by op");
	TEST_ASSERT(r->total.invalidations == 4, "invalidations %llu",
		    (unsigned long long)r->total.invalidations);
	TEST_ASSERT(r->total.cold == 2 && r->total.hits == 1 && r->total.upgrades == 0,
		    "cold %llu hits %llu upgrades %llu", (unsigned long long)r->total.cold,
		    (unsigned long long)r->total.hits, (unsigned long long)r->total.upgrades);
	TEST_ASSERT(CELL(r->miss_all, 1, 0) == 2 && CELL(r->miss_all, 0, 1) == 1, "B->A %llu A->B %llu",
		    (unsigned long long)CELL(r->miss_all, 1, 0),
		    (unsigned long long)CELL(r->miss_all, 0, 1));
	TEST_ASSERT(CELL(r->inval, 1, 0) == 2 && CELL(r->inval, 0, 1) == 2, "inval matrix");
	TEST_ASSERT(r->nlines == 1 && r->lines[0].line == L0 && r->lines[0].misses == 3 &&
		    r->lines[0].invalidations == 4, "line");
	ra = find_ref(r, 0, 1, L0);
	rb = find_ref(r, 1, 1, L0);
	TEST_ASSERT(ra && ra->misses == 2 && ra->invalidations == 2, "A's reference");
	TEST_ASSERT(rb && rb->misses == 1 && rb->invalidations == 2, "B's reference");
	TEST_ASSERT(r->refs[0].thread == 0, "references by misses: A first");
	coherence__delete(c);
	return TEST_OK;
}

/*
 * W (tid 1) stores, readers 2, 3, 4 load; three rounds.
 * Round 1: W cold (M); each reader cold, the first one's load makes W
 *   write back (M -> S), all S.
 * Rounds 2 and 3: W's store hits S: an upgrade (no miss), 3 invalidations;
 *   each reader then misses (coherence, load, from W, true), the first
 *   one again taking W's M copy to S (a writeback).
 * Misses 2 x 3 = 6, loads, true; W->Rk 2 each; invalidations 6;
 * upgrades 2; cold 4; hits 2 (W's upgrades); W's writebacks 3.
 */
LP_TEST(test_coherence_one_writer_many_readers, "coherence: one writer, three readers")
{
	static const struct acc acc[] = {
		{ 1, 1, L0, 8 }, { 2, 0, L0, 8 }, { 3, 0, L0, 8 }, { 4, 0, L0, 8 },
		{ 1, 1, L0, 8 }, { 2, 0, L0, 8 }, { 3, 0, L0, 8 }, { 4, 0, L0, 8 },
		{ 1, 1, L0, 8 }, { 2, 0, L0, 8 }, { 3, 0, L0, 8 }, { 4, 0, L0, 8 },
	};
	const struct coherence_result *r;
	struct coherence *c;
	int k;

	RUN(acc);
	TEST_ASSERT(r->total.misses == 6 && r->total.load_misses == 6, "misses %llu",
		    (unsigned long long)r->total.misses);
	TEST_ASSERT(r->total.true_sharing == 6, "true %llu", (unsigned long long)r->total.true_sharing);
	TEST_ASSERT(r->total.invalidations == 6, "invalidations");
	TEST_ASSERT(r->total.upgrades == 2 && r->total.hits == 2, "upgrades %llu hits %llu",
		    (unsigned long long)r->total.upgrades, (unsigned long long)r->total.hits);
	TEST_ASSERT(r->total.cold == 4, "cold");
	TEST_ASSERT(r->threads[0].writebacks == 3, "writebacks %llu",
		    (unsigned long long)r->threads[0].writebacks);
	for (k = 1; k < 4; k++) {
		TEST_ASSERT(CELL(r->miss_all, 0, k) == 2 && CELL(r->miss_all, k, 0) == 0,
			    "W->R%d %llu", k, (unsigned long long)CELL(r->miss_all, 0, k));
		TEST_ASSERT(CELL(r->inval, 0, k) == 2, "inval W->R%d", k);
		TEST_ASSERT(r->threads[k].misses == 2, "R%d misses", k);
	}
	TEST_ASSERT(CELL(r->miss_all, 1, 2) == 0, "readers do not communicate");
	coherence__delete(c);
	return TEST_OK;
}

/*
 * A stores bytes 0-7 of a line, B bytes 32-39, in turn: A B A B A B.
 * A, B cold (B invalidates A). Then each store misses (from the other)
 * and invalidates the other; the bytes the other stored (32-39 or 0-7)
 * never overlap the missing access: false sharing.
 * Misses 4, all false (B->A 2, A->B 2); invalidations 5.
 */
LP_TEST(test_coherence_false_sharing_two_offsets, "coherence: two offsets in a line are false sharing")
{
	static const struct acc acc[] = {
		{ 7, 1, L0, 8 }, { 8, 1, L0 + 32, 8 }, { 7, 1, L0, 8 }, { 8, 1, L0 + 32, 8 },
		{ 7, 1, L0, 8 }, { 8, 1, L0 + 32, 8 },
	};
	const struct coherence_result *r;
	struct coherence *c;

	RUN(acc);
	TEST_ASSERT(r->total.misses == 4, "misses %llu", (unsigned long long)r->total.misses);
	TEST_ASSERT(r->total.false_sharing == 4 && r->total.true_sharing == 0, "false %llu",
		    (unsigned long long)r->total.false_sharing);
	TEST_ASSERT(CELL(r->miss_false, 0, 1) == 2 && CELL(r->miss_false, 1, 0) == 2, "pairs");
	TEST_ASSERT(r->total.invalidations == 5, "invalidations %llu",
		    (unsigned long long)r->total.invalidations);
	TEST_ASSERT(r->nlines == 1 && r->lines[0].false_sharing == 4, "line");
	TEST_ASSERT(r->lines[0].ntouches == 2, "touches %d", r->lines[0].ntouches);
	coherence__delete(c);
	return TEST_OK;
}

/*
 * True or false by the bytes stored since the invalidation, by anyone:
 * A loads bytes 0-7; B stores 0-7 (A invalid, stored-since {0-7});
 * C stores 8-15 (B invalid, {8-15}; A's set grows to {0-15}).
 * A loads 8-15: miss from C (the last writer), true (C stored 8-15).
 * B loads 0-7: miss from C, false (only 8-15 were stored since B lost it).
 */
LP_TEST(test_coherence_true_by_bytes_since_invalidation, "coherence: true sharing by bytes stored since")
{
	static const struct acc acc[] = {
		{ 1, 0, L0, 8 }, { 2, 1, L0, 8 }, { 3, 1, L0 + 8, 8 }, { 1, 0, L0 + 8, 8 },
		{ 2, 0, L0, 8 },
	};
	const struct coherence_result *r;
	struct coherence *c;

	RUN(acc);
	TEST_ASSERT(r->total.misses == 2, "misses %llu", (unsigned long long)r->total.misses);
	TEST_ASSERT(CELL(r->miss_true, 2, 0) == 1, "C->A true");
	TEST_ASSERT(CELL(r->miss_false, 2, 1) == 1, "C->B false");
	TEST_ASSERT(CELL(r->miss_all, 1, 0) == 0, "B->A: not the last writer");
	coherence__delete(c);
	return TEST_OK;
}

/*
 * An 8-byte store at line offset 60 is two accesses (4 bytes in each
 * line). A stores, B loads (2 + 2 cold), A stores (2 invalidations),
 * B loads: 2 coherence misses, true.
 */
LP_TEST(test_coherence_access_spans_lines, "coherence: an access across a line boundary counts in both")
{
	static const struct acc acc[] = {
		{ 1, 1, L0 + 60, 8 }, { 2, 0, L0 + 60, 8 }, { 1, 1, L0 + 60, 8 },
		{ 2, 0, L0 + 60, 8 },
	};
	const struct coherence_result *r;
	struct coherence *c;

	RUN(acc);
	TEST_ASSERT(r->total.accesses == 8, "accesses %llu", (unsigned long long)r->total.accesses);
	TEST_ASSERT(r->total.cold == 4, "cold %llu", (unsigned long long)r->total.cold);
	TEST_ASSERT(r->total.misses == 2 && r->total.true_sharing == 2, "misses %llu",
		    (unsigned long long)r->total.misses);
	TEST_ASSERT(r->nlines == 2 && r->lines[0].line == L0 && r->lines[1].line == L1, "lines");
	coherence__delete(c);
	return TEST_OK;
}

/*
 * One-line caches (1 set x 1 way): A stores L0, B stores L0 (A's copy
 * Invalid), A loads L1 (replaces the invalid tag of L0), A loads L0: a
 * capacity miss, not a coherence miss: the tag was gone. Unbounded
 * caches make the same last load a coherence miss.
 */
LP_TEST(test_coherence_replaced_tag_is_capacity, "coherence: an invalid line LRU replaced misses as capacity")
{
	static const struct acc acc[] = {
		{ 1, 1, L0, 8 }, { 2, 1, L0, 8 }, { 1, 0, L1, 8 }, { 1, 0, L0, 8 },
	};
	struct coherence_config one = { .sets = 1, .ways = 1 };
	const struct coherence_result *r;
	struct coherence *c;

	TEST_ASSERT(run(&c, &one, acc, ARRAY_SIZE(acc), &r) == 0, "simulation failed");
	TEST_ASSERT(r->threads[0].capacity == 1 && r->threads[0].misses == 0, "capacity %llu misses %llu",
		    (unsigned long long)r->threads[0].capacity, (unsigned long long)r->threads[0].misses);
	TEST_ASSERT(r->threads[0].cold == 2, "cold");
	coherence__delete(c);
	RUN(acc);
	TEST_ASSERT(r->threads[0].misses == 1 && r->threads[0].capacity == 0, "unbounded: misses %llu",
		    (unsigned long long)r->threads[0].misses);
	coherence__delete(c);
	return TEST_OK;
}

LP_TEST(test_coherence_limits, "coherence: bad geometry and too many threads are errors")
{
	struct coherence_config bad = { .line_size = 128 };
	struct coherence *c;
	int t, err = 0;

	TEST_ASSERT(coherence__new(&c, &bad) == -EINVAL, "line size 128 accepted");
	TEST_ASSERT(coherence__new(&c, NULL) == 0, "defaults rejected");
	for (t = 0; t <= COHERENCE_MAX_THREADS && !err; t++)
		err = coherence__access(c, (u32)t, 1, L0, 8);
	TEST_ASSERT(err == -E2BIG && t == COHERENCE_MAX_THREADS + 1, "err %d at thread %d", err, t);
	coherence__delete(c);
	return TEST_OK;
}

/*
 * The result indexes threads by tid, not by first access: tid 9 stores,
 * tid 5 stores (invalidates 9), tid 9 stores (a miss from 5). T0 = tid 5,
 * T1 = tid 9: the miss is T0 -> T1, and the reference and the line's
 * missing access are T1's.
 */
LP_TEST(test_coherence_threads_in_tid_order, "coherence: threads are indexed in tid order")
{
	static const struct acc acc[] = { { 9, 1, L0, 8 }, { 5, 1, L0, 8 }, { 9, 1, L0, 8 } };
	const struct coherence_result *r;
	struct coherence *c;

	RUN(acc);
	TEST_ASSERT(r->tids[0] == 5 && r->tids[1] == 9, "tids %u %u", r->tids[0], r->tids[1]);
	TEST_ASSERT(CELL(r->miss_all, 0, 1) == 1 && CELL(r->miss_all, 1, 0) == 0, "direction");
	TEST_ASSERT(CELL(r->inval, 0, 1) == 1 && CELL(r->inval, 1, 0) == 1, "invalidations");
	TEST_ASSERT(r->threads[1].misses == 1 && r->threads[0].misses == 0, "per thread");
	TEST_ASSERT(r->refs[0].thread == 1 && r->refs[0].misses == 1, "reference thread %u",
		    r->refs[0].thread);
	TEST_ASSERT(r->nlines == 1 && r->lines[0].ntouches == 1 && r->lines[0].touches[0].thread == 1,
		    "touch thread");
	coherence__delete(c);
	return TEST_OK;
}

/*
 * Set-associative: 2 sets x 1 way; lines L0 and L0 + 128 map to set 0,
 * L1 to set 1. T stores L0 (cold, M), loads L1 (cold, set 1), loads L0
 * (hit), loads L0 + 128 (cold; replaces L0, which was M: a writeback),
 * loads L0 (capacity; replaces the clean line, no writeback).
 * Cold 3, hits 1, capacity 1, writebacks 1. (Two ways of one set would
 * have replaced L1 instead and hit L0 again.)
 */
LP_TEST(test_coherence_set_associative, "coherence: sets by line address, LRU within a set, writebacks")
{
	static const struct acc acc[] = {
		{ 1, 1, L0, 8 }, { 1, 0, L1, 8 }, { 1, 0, L0, 8 }, { 1, 0, L0 + 128, 8 },
		{ 1, 0, L0, 8 },
	};
	struct coherence_config two = { .sets = 2, .ways = 1 };
	const struct coherence_result *r;
	struct coherence *c;

	TEST_ASSERT(run(&c, &two, acc, ARRAY_SIZE(acc), &r) == 0, "simulation failed");
	TEST_ASSERT(r->total.cold == 3 && r->total.hits == 1 && r->total.capacity == 1,
		    "cold %llu hits %llu capacity %llu", (unsigned long long)r->total.cold,
		    (unsigned long long)r->total.hits, (unsigned long long)r->total.capacity);
	TEST_ASSERT(r->total.writebacks == 1, "writebacks %llu",
		    (unsigned long long)r->total.writebacks);
	coherence__delete(c);
	return TEST_OK;
}
