// SPDX-License-Identifier: GPL-2.0
/* Exact reuse distance: hand-computed sequences and a naive O(N^2) oracle. */
#include <stdlib.h>
#include <string.h>

#include "core/tests.h"
#include "core/reuse-exact.h"

struct acc {
	u32 tid;
	u64 addr;
	int store;
};

static struct reuse_exact *new_re(enum reuse_exact_mode mode,
				  enum reuse_gran gran, u32 slots)
{
	struct reuse_exact_opts o = { .mode = mode, .gran = gran,
				      .init_slots = slots };
	struct reuse_exact *re = NULL;

	if (reuse_exact__new(&o, &re))
		return NULL;
	return re;
}

/* Run single-thread loads of @addrs; results into @res. */
static int run_loads(struct reuse_exact *re, const u64 *addrs, int n,
		     struct reuse_exact_res *res)
{
	int i, err;

	for (i = 0; i < n; i++) {
		err = reuse_exact__access(re, 1, addrs[i], 0, &res[i]);
		if (err)
			return err;
	}
	return 0;
}

LP_TEST(test_reuse_exact_abca, "reuse-exact: a b c a gives distance 2, time 2")
{
	const u64 a[] = { 0xa0, 0xb0, 0xc0, 0xa0 };
	struct reuse_exact_res r[4];
	struct reuse_exact *re = new_re(REUSE_EXACT_PER_THREAD, REUSE_GRAN_ADDR, 0);
	const struct reuse_exact_thread *t;

	TEST_ASSERT(re, "new");
	TEST_ASSERT(!run_loads(re, a, 4, r), "access");
	TEST_ASSERT(r[0].kind == REUSE_EXACT_COLD && r[1].kind == REUSE_EXACT_COLD &&
		    r[2].kind == REUSE_EXACT_COLD, "first touches not cold");
	TEST_ASSERT(r[3].kind == REUSE_EXACT_REUSE, "kind=%d", r[3].kind);
	TEST_ASSERT(r[3].dist == 2, "dist=%llu", (unsigned long long)r[3].dist);
	TEST_ASSERT(r[3].time == 2, "time=%llu", (unsigned long long)r[3].time);
	t = reuse_exact__thread(re, 0);
	TEST_ASSERT(t->cold == 3 && t->reuses == 1, "cold=%llu reuses=%llu",
		    (unsigned long long)t->cold, (unsigned long long)t->reuses);
	TEST_ASSERT(t->stack.cold == 3 && t->stack.bin[2] == 1,
		    "stack cold=%g bin2=%g", t->stack.cold, t->stack.bin[2]);
	reuse_exact__delete(re);
	return TEST_OK;
}

LP_TEST(test_reuse_exact_seed_example, "reuse-exact: Sasongko 2022 example a b c b d d a: d=3, t=5")
{
	const u64 a[] = { 1, 2, 3, 2, 4, 4, 1 };
	struct reuse_exact_res r[7];
	struct reuse_exact *re = new_re(REUSE_EXACT_PER_THREAD, REUSE_GRAN_ADDR, 0);

	TEST_ASSERT(re, "new");
	TEST_ASSERT(!run_loads(re, a, 7, r), "access");
	TEST_ASSERT(r[3].kind == REUSE_EXACT_REUSE && r[3].dist == 1 && r[3].time == 1,
		    "b: dist=%llu", (unsigned long long)r[3].dist);
	TEST_ASSERT(r[5].kind == REUSE_EXACT_REUSE && r[5].dist == 0 && r[5].time == 0,
		    "d: dist=%llu", (unsigned long long)r[5].dist);
	TEST_ASSERT(r[6].dist == 3 && r[6].time == 5, "a: dist=%llu time=%llu",
		    (unsigned long long)r[6].dist, (unsigned long long)r[6].time);
	reuse_exact__delete(re);
	return TEST_OK;
}

LP_TEST(test_reuse_exact_aa_abab, "reuse-exact: a a gives 0; a b a b gives 1, 1")
{
	const u64 aa[] = { 8, 8 }, abab[] = { 8, 16, 8, 16 };
	struct reuse_exact_res r[4];
	struct reuse_exact *re = new_re(REUSE_EXACT_PER_THREAD, REUSE_GRAN_ADDR, 0);

	TEST_ASSERT(re, "new");
	TEST_ASSERT(!run_loads(re, aa, 2, r), "access");
	TEST_ASSERT(r[1].kind == REUSE_EXACT_REUSE && r[1].dist == 0 && r[1].time == 0,
		    "a a: kind=%d dist=%llu", r[1].kind, (unsigned long long)r[1].dist);
	reuse_exact__delete(re);

	re = new_re(REUSE_EXACT_PER_THREAD, REUSE_GRAN_ADDR, 0);
	TEST_ASSERT(re, "new");
	TEST_ASSERT(!run_loads(re, abab, 4, r), "access");
	TEST_ASSERT(r[2].kind == REUSE_EXACT_REUSE && r[2].dist == 1, "third");
	TEST_ASSERT(r[3].kind == REUSE_EXACT_REUSE && r[3].dist == 1, "fourth");
	TEST_ASSERT(reuse_exact__thread(re, 0)->stack.bin[1] == 2, "bin1=%g",
		    reuse_exact__thread(re, 0)->stack.bin[1]);
	reuse_exact__delete(re);
	return TEST_OK;
}

LP_TEST(test_reuse_exact_line_merges, "reuse-exact: line granularity merges 0x1000 and 0x1008")
{
	const u64 a[] = { 0x1000, 0x1008, 0x1040, 0x1038 };
	struct reuse_exact_res r[4];
	struct reuse_exact *re = new_re(REUSE_EXACT_PER_THREAD, REUSE_GRAN_LINE, 0);

	TEST_ASSERT(re, "new");
	TEST_ASSERT(!run_loads(re, a, 4, r), "access");
	TEST_ASSERT(r[1].kind == REUSE_EXACT_REUSE && r[1].dist == 0, "0x1008 kind=%d",
		    r[1].kind);
	TEST_ASSERT(r[2].kind == REUSE_EXACT_COLD, "0x1040 is a new line");
	TEST_ASSERT(r[3].kind == REUSE_EXACT_REUSE && r[3].dist == 1 && r[3].time == 1,
		    "0x1038: dist=%llu", (unsigned long long)r[3].dist);
	reuse_exact__delete(re);

	re = new_re(REUSE_EXACT_PER_THREAD, REUSE_GRAN_ADDR, 0);
	TEST_ASSERT(re, "new");
	TEST_ASSERT(!run_loads(re, a, 4, r), "access");
	TEST_ASSERT(r[1].kind == REUSE_EXACT_COLD && r[3].kind == REUSE_EXACT_COLD,
		    "address granularity keeps them apart");
	reuse_exact__delete(re);
	return TEST_OK;
}

LP_TEST(test_reuse_exact_compaction, "reuse-exact: distances survive slot compaction")
{
	struct reuse_exact *re = new_re(REUSE_EXACT_PER_THREAD, REUSE_GRAN_ADDR, 2);
	struct reuse_exact_res r;
	int i, bad = 0;

	TEST_ASSERT(re, "new");
	/* a cycle over 5 addresses: every reuse has 4 others in between */
	for (i = 0; i < 500; i++) {
		TEST_ASSERT(!reuse_exact__access(re, 7, 64 * (i % 5), 0, &r), "i=%d", i);
		if (i >= 5 && (r.kind != REUSE_EXACT_REUSE || r.dist != 4 || r.time != 4))
			bad++;
	}
	TEST_ASSERT(!bad, "%d wrong", bad);
	TEST_ASSERT(reuse_exact__thread(re, 0)->stack.bin[3] == 495, "bin3=%g",
		    reuse_exact__thread(re, 0)->stack.bin[3]);
	reuse_exact__delete(re);
	return TEST_OK;
}

LP_TEST(test_reuse_exact_invalidation, "reuse-exact: a remote store invalidates, remote loads do not")
{
	struct reuse_exact *re = new_re(REUSE_EXACT_PER_THREAD, REUSE_GRAN_ADDR, 0);
	const struct reuse_exact_thread *t1, *t2;
	struct reuse_exact_res r;

	TEST_ASSERT(re, "new");
	/* T1 R x, T2 R x, T1 R x: R->R by another thread is no invalidation */
	reuse_exact__access(re, 1, 0x100, 0, NULL);
	reuse_exact__access(re, 2, 0x100, 0, NULL);
	reuse_exact__access(re, 1, 0x100, 0, &r);
	TEST_ASSERT(r.kind == REUSE_EXACT_REUSE && r.dist == 0, "R R R: kind=%d", r.kind);
	/* T1 W x: a reuse for T1, and R->W by another thread invalidates T2 */
	reuse_exact__access(re, 1, 0x100, 1, &r);
	TEST_ASSERT(r.kind == REUSE_EXACT_REUSE, "T1 store: kind=%d", r.kind);
	reuse_exact__access(re, 2, 0x100, 0, &r);
	TEST_ASSERT(r.kind == REUSE_EXACT_INVAL, "R(T2) W(T1) R(T2): kind=%d", r.kind);
	/* T2's load did not invalidate T1: W->R by another thread */
	reuse_exact__access(re, 1, 0x100, 0, &r);
	TEST_ASSERT(r.kind == REUSE_EXACT_REUSE, "W R R: kind=%d", r.kind);
	/* T2 W x reuses its own (re-fetched) use and invalidates T1's */
	reuse_exact__access(re, 2, 0x100, 1, &r);
	TEST_ASSERT(r.kind == REUSE_EXACT_REUSE, "T2 store: kind=%d", r.kind);
	reuse_exact__access(re, 1, 0x100, 0, &r);
	TEST_ASSERT(r.kind == REUSE_EXACT_INVAL, "R(T1) W(T2) R(T1): kind=%d", r.kind);
	t1 = reuse_exact__thread(re, 0);
	t2 = reuse_exact__thread(re, 1);
	TEST_ASSERT(t1->tid == 1 && t2->tid == 2, "tids %u %u", t1->tid, t2->tid);
	TEST_ASSERT(t1->invalidated == 1 && t2->invalidations == 1,
		    "t1 invalidated=%llu t2 invalidations=%llu",
		    (unsigned long long)t1->invalidated,
		    (unsigned long long)t2->invalidations);
	TEST_ASSERT(t2->invalidated == 1 && t1->invalidations == 1,
		    "t2 invalidated=%llu t1 invalidations=%llu",
		    (unsigned long long)t2->invalidated,
		    (unsigned long long)t1->invalidations);
	TEST_ASSERT(t1->inval_misses == 1 && t1->stack.inval == 1 && t1->time.inval == 1,
		    "inval misses=%llu", (unsigned long long)t1->inval_misses);
	TEST_ASSERT(t1->reuses == 3 && t2->reuses == 1, "reuses %llu %llu",
		    (unsigned long long)t1->reuses, (unsigned long long)t2->reuses);
	reuse_exact__delete(re);
	return TEST_OK;
}

LP_TEST(test_reuse_exact_invalidated_leaves_stack, "reuse-exact: an invalidated line no longer counts in the private stack")
{
	struct reuse_exact *re = new_re(REUSE_EXACT_PER_THREAD, REUSE_GRAN_LINE, 0);
	struct reuse_exact_res r;

	TEST_ASSERT(re, "new");
	/* T1: a b c a -> 2 */
	reuse_exact__access(re, 1, 0x1000, 0, NULL);
	reuse_exact__access(re, 1, 0x2000, 0, NULL);
	reuse_exact__access(re, 1, 0x3000, 0, NULL);
	/* T2 writes another word of b's line: false sharing still invalidates */
	reuse_exact__access(re, 2, 0x2008, 1, NULL);
	reuse_exact__access(re, 1, 0x1000, 0, &r);
	TEST_ASSERT(r.kind == REUSE_EXACT_REUSE && r.dist == 1 && r.time == 2,
		    "dist=%llu time=%llu (b dropped from T1's stack)",
		    (unsigned long long)r.dist, (unsigned long long)r.time);
	reuse_exact__access(re, 1, 0x2000, 0, &r);
	TEST_ASSERT(r.kind == REUSE_EXACT_INVAL, "b: kind=%d", r.kind);
	reuse_exact__access(re, 1, 0x3000, 0, &r);
	TEST_ASSERT(r.kind == REUSE_EXACT_REUSE && r.dist == 2, "c: dist=%llu",
		    (unsigned long long)r.dist);
	reuse_exact__delete(re);
	return TEST_OK;
}

LP_TEST(test_reuse_exact_shared_mode, "reuse-exact: shared mode interleaves threads, counts cross-thread reuse")
{
	struct reuse_exact *re = new_re(REUSE_EXACT_SHARED, REUSE_GRAN_ADDR, 0);
	struct reuse_exact_res r;
	struct reuse_exact_thread sum;

	TEST_ASSERT(re, "new");
	reuse_exact__access(re, 1, 0xa, 0, NULL);
	reuse_exact__access(re, 2, 0xb, 1, NULL);
	reuse_exact__access(re, 1, 0xa, 0, &r);
	TEST_ASSERT(r.kind == REUSE_EXACT_REUSE && r.dist == 1 && r.time == 1,
		    "T1 a: dist=%llu", (unsigned long long)r.dist);
	reuse_exact__access(re, 2, 0xa, 1, &r);
	TEST_ASSERT(r.kind == REUSE_EXACT_REUSE && r.dist == 0, "T2 a: kind=%d dist=%llu",
		    r.kind, (unsigned long long)r.dist);
	reuse_exact__access(re, 1, 0xa, 0, &r);
	TEST_ASSERT(r.kind == REUSE_EXACT_REUSE, "stores never invalidate in a shared cache");
	TEST_ASSERT(reuse_exact__thread(re, 1)->cross_thread == 1, "T2 cross=%llu",
		    (unsigned long long)reuse_exact__thread(re, 1)->cross_thread);
	TEST_ASSERT(reuse_exact__thread(re, 0)->cross_thread == 1, "T1 cross=%llu",
		    (unsigned long long)reuse_exact__thread(re, 0)->cross_thread);
	reuse_exact__sum(re, &sum);
	TEST_ASSERT(sum.accesses == 5 && sum.cold == 2 && sum.reuses == 3,
		    "sum: %llu %llu %llu", (unsigned long long)sum.accesses,
		    (unsigned long long)sum.cold, (unsigned long long)sum.reuses);
	TEST_ASSERT(reuse_hist__total(&sum.stack, REUSE_HIST_ALL) == 5, "hist total");
	reuse_exact__delete(re);
	return TEST_OK;
}

/*
 * RIBench (Sasongko 2022, Listing 6.1) with one private array, two threads
 * interleaved one j-iteration at a time. Each private access after the
 * first pass is a reuse with inv stores plus a1 - 1 other private elements
 * in between (Table 6.4's "inv + a1", which counts the element itself);
 * every shared store after the first is an invalidated miss.
 */
LP_TEST(test_reuse_exact_ribench_shape, "reuse-exact: RIBench reuse distance inv+a1 and invalidation counts")
{
	enum { OUTER = 2, A = 3, A1 = 8, INV = 4 };
	struct reuse_exact *re = new_re(REUSE_EXACT_PER_THREAD, REUSE_GRAN_ADDR, 4);
	const u64 shared = 0x10000, priv[2] = { 0x20000, 0x30000 };
	u64 at_dist[2] = { 0 }, other_reuse[2] = { 0 };
	struct reuse_exact_res r;
	int i, j, k, t;

	TEST_ASSERT(re, "new");
	for (i = 0; i < OUTER; i++) {
		for (j = 0; j < A; j++) {
			for (t = 0; t < 2; t++) {
				for (k = 0; k < INV; k++) {
					reuse_exact__access(re, t + 1, shared + 8 * k, 1, &r);
					if (r.kind == REUSE_EXACT_REUSE)
						other_reuse[t]++;
				}
				for (k = 0; k < A1; k += 2) {
					int s;

					for (s = 0; s < 2; s++) {
						reuse_exact__access(re, t + 1,
							priv[t] + 8 * (k + s), s, &r);
						if (r.kind == REUSE_EXACT_REUSE &&
						    r.dist == INV + A1 - 1)
							at_dist[t]++;
						else if (r.kind == REUSE_EXACT_REUSE)
							other_reuse[t]++;
					}
				}
			}
		}
	}
	for (t = 0; t < 2; t++) {
		const struct reuse_exact_thread *th = reuse_exact__thread(re, t);

		TEST_ASSERT(at_dist[t] == OUTER * A * A1 - A1, "t%d: %llu at inv+a1-1",
			    t, (unsigned long long)at_dist[t]);
		TEST_ASSERT(other_reuse[t] == 0, "t%d: %llu other reuses", t,
			    (unsigned long long)other_reuse[t]);
		TEST_ASSERT(th->inval_misses == OUTER * A * INV - INV,
			    "t%d inval misses=%llu", t,
			    (unsigned long long)th->inval_misses);
		TEST_ASSERT(th->cold == A1 + INV, "t%d cold=%llu", t,
			    (unsigned long long)th->cold);
	}
	TEST_ASSERT(reuse_exact__thread(re, 0)->invalidated == OUTER * A * INV,
		    "t1 invalidated=%llu",
		    (unsigned long long)reuse_exact__thread(re, 0)->invalidated);
	TEST_ASSERT(reuse_exact__thread(re, 1)->invalidated == (OUTER * A - 1) * INV,
		    "t2 invalidated=%llu",
		    (unsigned long long)reuse_exact__thread(re, 1)->invalidated);
	reuse_exact__delete(re);
	return TEST_OK;
}

/*
 * The oracle: for access i, walk the trace backwards to the stream's
 * previous access to the same key, collecting what lies in between.
 * Per-thread streams: only the thread's own accesses count, and a key y
 * counts only if no other thread stored to y after the thread's last access
 * to y (it was invalidated); x itself is invalidated by any such store.
 */
static void naive(const struct acc *tr, int i, int per_thread, int line,
		  unsigned char *seen, unsigned char *stored,
		  struct reuse_exact_res *res)
{
	u64 x = line ? tr[i].addr >> 6 : tr[i].addr;
	u64 dist = 0, time = 0;
	int p, found = -1;

	memset(seen, 0, 1 << 16);
	memset(stored, 0, 1 << 16);
	for (p = i - 1; p >= 0; p--) {
		u64 y = line ? tr[p].addr >> 6 : tr[p].addr;
		int mine = !per_thread || tr[p].tid == tr[i].tid;

		if (!mine) {
			if (tr[p].store)
				stored[y & 0xffff] = 1;
			continue;
		}
		if (y == x) {
			found = p;
			break;
		}
		time++;
		if (!seen[y & 0xffff]) {
			seen[y & 0xffff] = 1;
			if (!stored[y & 0xffff])
				dist++;
		}
	}
	res->dist = res->time = 0;
	if (found < 0) {
		res->kind = REUSE_EXACT_COLD;
	} else if (per_thread && stored[x & 0xffff]) {
		res->kind = REUSE_EXACT_INVAL;
	} else {
		res->kind = REUSE_EXACT_REUSE;
		res->dist = dist;
		res->time = time;
	}
}

LP_TEST_TIMEOUT(test_reuse_exact_vs_naive, "reuse-exact: matches a naive O(N^2) oracle on 10k random accesses", 60)
{
	enum { N = 10000 };
	struct acc *tr = malloc(N * sizeof(*tr));
	unsigned char *seen = malloc(1 << 16), *stored = malloc(1 << 16);
	unsigned int seed = 12345;
	int mode, gran, i, reuses = 0, invals = 0;

	TEST_ASSERT(tr && seen && stored, "malloc");
	for (i = 0; i < N; i++) {
		/* skewed: half the accesses go to 40 hot addresses */
		int hot = rand_r(&seed) % 2;

		tr[i].tid = 100 + rand_r(&seed) % 3;
		tr[i].addr = 0x8000 + 8 * (hot ? rand_r(&seed) % 40 :
					   rand_r(&seed) % 600);
		tr[i].store = rand_r(&seed) % 10 < 3;
	}
	for (mode = 0; mode < 2; mode++) {
		for (gran = 0; gran < 2; gran++) {
			struct reuse_exact *re = new_re(mode, gran, 4);
			struct reuse_exact_res got, want;

			TEST_ASSERT(re, "new");
			for (i = 0; i < N; i++) {
				TEST_ASSERT(!reuse_exact__access(re, tr[i].tid, tr[i].addr,
								 tr[i].store, &got), "i=%d", i);
				naive(tr, i, mode == REUSE_EXACT_PER_THREAD, gran,
				      seen, stored, &want);
				TEST_ASSERT(got.kind == want.kind && got.dist == want.dist &&
					    got.time == want.time,
					    "mode %d gran %d access %d: got %d/%llu/%llu want %d/%llu/%llu",
					    mode, gran, i, got.kind,
					    (unsigned long long)got.dist,
					    (unsigned long long)got.time, want.kind,
					    (unsigned long long)want.dist,
					    (unsigned long long)want.time);
				reuses += want.kind == REUSE_EXACT_REUSE;
				invals += want.kind == REUSE_EXACT_INVAL;
			}
			reuse_exact__delete(re);
		}
	}
	TEST_LOG("%d reuses, %d invalidated misses checked", reuses, invals);
	/* the comparison must have covered every kind */
	TEST_ASSERT(reuses > 10000 && invals > 1000, "reuses=%d invals=%d", reuses, invals);
	free(tr);
	free(seen);
	free(stored);
	return TEST_OK;
}

/*
 * The batched path (prefetching, holder lists built only when a second
 * thread appears) against the oracle: histograms bit-identical per thread.
 * One thread alone first, so the holder lists are seeded mid-trace.
 */
LP_TEST_TIMEOUT(test_reuse_exact_batch_vs_naive, "reuse-exact: batched histograms equal the naive oracle's in all modes and granularities", 60)
{
	enum { N = 6000, SOLO = 2000, THREADS = 3 };
	struct acc *tr = malloc(N * sizeof(*tr));
	struct reuse_exact_acc *v = malloc(N * sizeof(*v));
	unsigned char *seen = malloc(1 << 16), *stored = malloc(1 << 16);
	unsigned int seed = 777;
	int mode, gran, i, checked = 0;

	TEST_ASSERT(tr && v && seen && stored, "malloc");
	for (i = 0; i < N; i++) {
		int hot = rand_r(&seed) % 2;

		tr[i].tid = i < SOLO ? 100 : 100 + rand_r(&seed) % THREADS;
		tr[i].addr = 0x8000 + 8 * (hot ? rand_r(&seed) % 50 : rand_r(&seed) % 900);
		tr[i].store = rand_r(&seed) % 10 < 3;
		v[i] = (struct reuse_exact_acc){ .addr = tr[i].addr, .tid = tr[i].tid,
						 .is_store = tr[i].store };
	}
	for (mode = 0; mode < 2; mode++) {
		for (gran = 0; gran < 2; gran++) {
			struct reuse_hist want[THREADS][2];
			struct reuse_exact *re = new_re(mode, gran, 4);
			/* SHARED: reuses of another thread's use; the key's last thread */
			u64 want_cross[THREADS] = { 0 };
			static u32 last_tid[1 << 16];
			int done, t, k;

			TEST_ASSERT(re, "new");
			for (t = 0; t < THREADS; t++) {
				reuse_hist__init(&want[t][0], REUSE_STACK, gran);
				reuse_hist__init(&want[t][1], REUSE_TIME, gran);
			}
			for (i = 0; i < N; i++) {
				struct reuse_exact_res r;

				naive(tr, i, mode == REUSE_EXACT_PER_THREAD, gran, seen, stored, &r);
				t = tr[i].tid - 100;
				if (r.kind == REUSE_EXACT_COLD) {
					want[t][0].cold++;
					want[t][1].cold++;
				} else if (r.kind == REUSE_EXACT_INVAL) {
					want[t][0].inval++;
					want[t][1].inval++;
				} else {
					reuse_hist__add(&want[t][0], r.dist, 1);
					reuse_hist__add(&want[t][1], r.time, 1);
				}
				k = (gran ? tr[i].addr >> 6 : tr[i].addr) & 0xffff;
				want_cross[t] += mode == REUSE_EXACT_SHARED && r.kind == REUSE_EXACT_REUSE &&
						 last_tid[k] != tr[i].tid;
				last_tid[k] = tr[i].tid;
			}
			/* uneven batches, so prefetching crosses batch ends */
			for (done = 0; done < N; done += k) {
				k = 1 + rand_r(&seed) % 300;
				if (k > N - done)
					k = N - done;
				TEST_ASSERT(!reuse_exact__access_batch(re, v + done, k), "batch at %d", done);
			}
			TEST_ASSERT(reuse_exact__nr_threads(re) == THREADS, "threads=%d",
				    reuse_exact__nr_threads(re));
			for (i = 0; i < THREADS; i++) {
				const struct reuse_exact_thread *th = reuse_exact__thread(re, i);

				t = th->tid - 100;
				TEST_ASSERT(!memcmp(th->stack.bin, want[t][0].bin, sizeof(want[t][0].bin)) &&
					    th->stack.cold == want[t][0].cold &&
					    th->stack.inval == want[t][0].inval,
					    "mode %d gran %d tid %u: stack histogram differs",
					    mode, gran, th->tid);
				TEST_ASSERT(!memcmp(th->time.bin, want[t][1].bin, sizeof(want[t][1].bin)),
					    "mode %d gran %d tid %u: time histogram differs", mode, gran, th->tid);
				TEST_ASSERT(th->cross_thread == want_cross[t],
					    "mode %d gran %d tid %u: cross_thread %llu, oracle %llu", mode, gran,
					    th->tid, (unsigned long long)th->cross_thread,
					    (unsigned long long)want_cross[t]);
				checked += reuse_hist__total(&th->stack, 0) > 100;
			}
			reuse_exact__delete(re);
		}
	}
	/* every thread of every combination had reuses to compare */
	TEST_ASSERT(checked == 4 * THREADS, "checked=%d", checked);
	free(tr);
	free(v);
	free(seen);
	free(stored);
	return TEST_OK;
}

/*
 * Keys idle longer than the width an entry's time is kept at: with the
 * width narrowed to 12 bits (opts.seq_bits, for tests), keys idle 2^11
 * accesses or more go to the side table at compaction and come back
 * exact; without it a reuse 4096 + d accesses later would read d. Loads
 * only, so a distance is the keys touched since the key's last access
 * (an O(keys) count per access against each stream's last times).
 */
LP_TEST_TIMEOUT(test_reuse_exact_idle_keys_side_table, "reuse-exact: keys idle past the kept time width (narrowed to 12 bits) reuse at their exact distance", 60)
{
	enum { N = 40000, HOT = 40, COLD = 200, KEYS = HOT + COLD, THREADS = 2, BITS = 12 };
	static u64 last[THREADS + 1][KEYS];	/* stream time + 1 of the latest access, 0: none */
	u64 now[THREADS + 1];
	int mode, gran, i, k, wrapped = 0, old = 0, checked = 0;

	for (mode = 0; mode < 2; mode++) {
		for (gran = 0; gran < 2; gran++) {
			struct reuse_exact_opts o = { .mode = mode, .gran = gran, .seq_bits = BITS };
			struct reuse_exact *re = NULL;
			unsigned int seed = 4242;

			TEST_ASSERT(!reuse_exact__new(&o, &re), "new with seq_bits %d", BITS);
			memset(last, 0, sizeof(last));
			memset(now, 0, sizeof(now));
			for (i = 0; i < N; i++) {
				u32 t = rand_r(&seed) % THREADS;
				int key = rand_r(&seed) % 100 < 98 ? rand_r(&seed) % HOT :
					  HOT + rand_r(&seed) % COLD;
				int st = mode == REUSE_EXACT_PER_THREAD ? t : THREADS;
				struct reuse_exact_res got;
				u64 dist = 0;

				/* one key a line apart: the same keys at either granularity */
				TEST_ASSERT(!reuse_exact__access(re, 100 + t, 0x10000 + 64 * (u64)key, 0, &got),
					    "access %d", i);
				if (!last[st][key]) {
					TEST_ASSERT(got.kind == REUSE_EXACT_COLD, "mode %d gran %d access %d: "
						    "kind %d, want cold", mode, gran, i, got.kind);
				} else {
					u64 time = now[st] - last[st][key];

					for (k = 0; k < KEYS; k++)
						dist += k != key && last[st][k] > last[st][key];
					TEST_ASSERT(got.kind == REUSE_EXACT_REUSE && got.dist == dist &&
						    got.time == time, "mode %d gran %d access %d (key idle "
						    "%llu accesses): got %d/%llu/%llu, want reuse %llu/%llu",
						    mode, gran, i, (unsigned long long)time, got.kind,
						    (unsigned long long)got.dist, (unsigned long long)got.time,
						    (unsigned long long)dist, (unsigned long long)time);
					wrapped += time >= 1u << BITS;
					old += time >= 1u << (BITS - 1);
					checked++;
				}
				last[st][key] = ++now[st];
			}
			reuse_exact__delete(re);
		}
	}
	TEST_LOG("%d reuses checked, %d of keys idle 2^%d accesses or more, %d past 2^%d",
		 checked, old, BITS - 1, wrapped, BITS);
	/* the trace must reach both: the side table, and ages the width cannot hold */
	TEST_ASSERT(old > 500 && wrapped > 200, "old=%d wrapped=%d", old, wrapped);
	return TEST_OK;
}
