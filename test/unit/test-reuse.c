// SPDX-License-Identifier: GPL-2.0
/*
 * reuse (ReuseTracker) on hand-built event streams. Expected values come
 * from the definitions in core/reuse.h (Sasongko 2022, ch. 6, Algorithms 2-3),
 * computed here by hand.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/reuse-exact.h"
#include "core/reuse.h"
#include "core/tests.h"
#include "test/unit/events.h"
#include "test/unit/reuse-helpers.h"

LP_TEST(test_reuse_private_arms_rw_self_w_others,
	"reuse: private mode arms RW on the sampler, W on every other thread, same slot")
{
	struct lp_actions acts = { 0 };
	struct reuse *ru = new_ru(4, 0, REUSE_GRAN_ADDR, 0, NULL);
	const struct lp_action *a0, *a1, *a2;

	TEST_ASSERT(ru, "new");
	FEED(ev_start(10, 0, 0));
	FEED(ev_start(11, 1, 1));
	FEED(ev_start(12, 2, 0));
	FEED(ev_sample(11, 1, LP_ACCESS_LOAD, 0x1008, 8, 1000));
	TEST_ASSERT(acts.n == 3, "one ARM per live thread, got %d actions", acts.n);
	a0 = arm_of(&acts, 10);
	a1 = arm_of(&acts, 11);
	a2 = arm_of(&acts, 12);
	TEST_ASSERT(a0 && a1 && a2, "every thread armed");
	TEST_ASSERT(acts.v[0].tid == 11, "the held sampler first, got tid %u", acts.v[0].tid);
	TEST_ASSERT(a1->mode == LP_WP_RW, "sampler RW, got %d", a1->mode);
	TEST_ASSERT(a0->mode == LP_WP_W && a2->mode == LP_WP_W, "others W-only");
	TEST_ASSERT(a0->slot == a1->slot && a1->slot == a2->slot, "same slot everywhere");
	TEST_ASSERT(a1->addr == 0x1008 && a1->len == 8, "addr %#llx len %d",
		    (unsigned long long)a1->addr, a1->len);
	TEST_ASSERT(a0->cookie == a1->cookie, "one watch, one cookie");
	lp_actions__exit(&acts);
	reuse__delete(ru);
	return TEST_OK;
}

/* Two LLC instances: CPUs 0-1 share one, CPUs 2-3 the other. */
static void two_socket_topo(struct lp_topology *t)
{
	memset(t, 0, sizeof(*t));
	t->ncpus = 4;
	t->ncaches = 2;
	t->caches[0].level = 3;
	strcpy(t->caches[0].type, "Unified");
	t->caches[0].size = 1 << 20;
	t->caches[0].ways = 16;
	t->caches[0].line_size = 64;
	lp_cpuset__set(&t->caches[0].cpus, 0);
	lp_cpuset__set(&t->caches[0].cpus, 1);
	t->caches[1] = t->caches[0];
	memset(&t->caches[1].cpus, 0, sizeof(t->caches[1].cpus));
	lp_cpuset__set(&t->caches[1].cpus, 2);
	lp_cpuset__set(&t->caches[1].cpus, 3);
}

LP_TEST(test_reuse_shared_arms_by_llc,
	"reuse: shared mode arms RW on threads sharing the sampler's LLC, W elsewhere; cross-thread reuse counts")
{
	struct lp_actions acts = { 0 };
	struct lp_topology *topo = calloc(1, sizeof(*topo));
	struct reuse *ru;
	const struct reuse_result *r;
	const struct lp_action *a;
	u64 cookie;
	int slot;

	two_socket_topo(topo);
	ru = new_ru(4, 1, REUSE_GRAN_ADDR, 0, topo);
	TEST_ASSERT(ru, "new");
	FEED(ev_start(10, 0, 0));
	FEED(ev_start(11, 1, 1));
	FEED(ev_start(12, 2, 2));
	/* T2 last ran on CPU 3 (other socket) per its sample, not its start */
	FEED(ev_sample(12, 3, LP_ACCESS_LOAD, 0x9000, 8, 50));
	FEED(ev_sample(10, 0, LP_ACCESS_STORE, 0x2000, 8, 100));
	a = arm_of(&acts, 10);
	TEST_ASSERT(a && a->mode == LP_WP_RW, "sampler RW");
	a = arm_of(&acts, 11);
	TEST_ASSERT(a && a->mode == LP_WP_RW, "same-LLC thread RW, got %d", a ? a->mode : -1);
	a = arm_of(&acts, 12);
	TEST_ASSERT(a && a->mode == LP_WP_W, "other-LLC thread W, got %d", a ? a->mode : -1);
	cookie = a->cookie;
	slot = a->slot;
	FEED(ev_trap(11, 1, slot, cookie, 400));
	r = reuse__result(ru);
	TEST_ASSERT(r && r->reuses == 1 && r->cross_thread == 1 && r->invalidations == 0,
		    "reuses %llu cross %llu inval %llu", (unsigned long long)r->reuses,
		    (unsigned long long)r->cross_thread, (unsigned long long)r->invalidations);
	TEST_ASSERT(r->threads[0].reuses == 1, "counted for the use thread T0");
	lp_actions__exit(&acts);
	reuse__delete(ru);
	free(topo);
	return TEST_OK;
}

LP_TEST(test_reuse_first_trap_decides_and_disarms_all,
	"reuse: the first trap decides (owner: reuse, other: invalidation), disarms the slot in every thread, later traps are stale")
{
	struct lp_actions acts = { 0 };
	struct reuse *ru = new_ru(4, 0, REUSE_GRAN_ADDR, 0, NULL);
	const struct reuse_result *r;
	u64 c1, c2;
	int s1, s2, i, ndis = 0;

	TEST_ASSERT(ru, "new");
	FEED(ev_start(10, 0, 0));
	FEED(ev_start(11, 1, 1));
	FEED(ev_sample(10, 0, LP_ACCESS_LOAD, 0x1000, 8, 1000));
	c1 = acts.v[0].cookie;
	s1 = acts.v[0].slot;
	FEED(ev_sample(11, 1, LP_ACCESS_LOAD, 0x3000, 8, 1000));
	c2 = acts.v[0].cookie;
	s2 = acts.v[0].slot;
	TEST_ASSERT(s1 != s2, "an inactive slot is taken before an active one");
	/* watch 1: its owner traps first -> reuse */
	FEED(ev_trap(10, 0, s1, c1, 3000));
	for (i = 0; i < acts.n; i++)
		ndis += acts.v[i].op == LP_ACT_DISARM && acts.v[i].slot == s1;
	TEST_ASSERT(ndis == 2 && acts.n == 2, "disarm in both threads, got %d of %d", ndis, acts.n);
	/* a second trap of the same watch (other thread, queued) is stale */
	FEED(ev_trap(11, 1, s1, c1, 3100));
	TEST_ASSERT(acts.n == 0, "stale trap makes no action");
	/* watch 2: another thread's store traps first -> invalidation */
	FEED(ev_trap(10, 0, s2, c2, 3200));
	r = reuse__result(ru);
	TEST_ASSERT(r->reuses == 1 && r->invalidations == 1, "reuses %llu invalidations %llu",
		    (unsigned long long)r->reuses, (unsigned long long)r->invalidations);
	TEST_ASSERT(r->threads[0].reuses == 1 && r->threads[1].invalidations == 1,
		    "counted for the use thread");
	TEST_ASSERT(r->stats.traps_stale == 1, "stale %llu", (unsigned long long)r->stats.traps_stale);
	TEST_ASSERT(r->npairs == 2 && r->pairs[0].reuses + r->pairs[1].reuses == 1,
		    "use->reuse pairs recorded");
	lp_actions__exit(&acts);
	reuse__delete(ru);
	return TEST_OK;
}

LP_TEST(test_reuse_time_to_accesses,
	"reuse: reuse time = thread CPU ns x access rate, t = accesses strictly between; wall fallback")
{
	struct lp_actions acts = { 0 };
	struct reuse_config cfg;
	const struct reuse_result *r;
	struct reuse *ru;

	reuse__config_init(&cfg);
	cfg.access_rate = 0.2;		/* 5 ns per access */
	ru = reuse__new(&cfg);
	TEST_ASSERT(ru, "new");
	FEED(ev_start(10, 0, 0));
	FEED(ev_sample(10, 0, LP_ACCESS_LOAD, 0x1000, 8, 1000));
	/* 5000 ns later: 1000 accesses elapsed, the reuse included: t = 999 */
	FEED(ev_trap(10, 0, acts.v[0].slot, acts.v[0].cookie, 6000));
	r = reuse__result(ru);
	TEST_ASSERT(r->rate_source == REUSE_RATE_USER && r->time_source == REUSE_TIME_THREAD_CPU,
		    "sources %d %d", r->rate_source, r->time_source);
	/* first sample, every slot free: P(observed) = 1, weight 1 */
	TEST_ASSERT(r->time.bin[reuse_hist__bin(999)] == 1.0 && reuse_hist__bin(999) == 10,
		    "bin 10 holds it: %g", r->time.bin[10]);
	TEST_ASSERT(reuse__ns_to_accesses(5000, 0.2) == 999 && reuse__ns_to_accesses(1, 0.2) == 0,
		    "conversion");
	reuse__delete(ru);

	/* no thread CPU time: CLOCK_MONOTONIC, and said so */
	ru = reuse__new(&cfg);
	FEED(ev_start(10, 0, 0));
	{
		struct lp_event s = ev_sample(10, 0, LP_ACCESS_LOAD, 0x1000, 8, 0);
		struct lp_event t;

		s.sample.time = 100;
		FEED(s);
		t = ev_trap(10, 0, acts.v[0].slot, acts.v[0].cookie, 0);
		t.trap.time = 100 + 50;	/* 10 accesses: t = 9 */
		FEED(t);
	}
	r = reuse__result(ru);
	TEST_ASSERT(r->time_source == REUSE_TIME_WALL, "wall fallback, got %d", r->time_source);
	TEST_ASSERT(r->time.bin[reuse_hist__bin(9)] == 1.0, "t = 9 from wall time");
	lp_actions__exit(&acts);
	reuse__delete(ru);
	return TEST_OK;
}

LP_TEST(test_reuse_temporal_vs_chunk,
	"reuse: a watch of exactly the sampled bytes gives temporal reuse; an 8-byte chunk around a smaller or unaligned access gives chunk")
{
	struct lp_actions acts = { 0 };
	struct reuse *ru = new_ru(1, 0, REUSE_GRAN_ADDR, 0, NULL);
	const struct reuse_result *r;

	FEED(ev_start(10, 0, 0));
	FEED(ev_sample(10, 0, LP_ACCESS_LOAD, 0x1004, 4, 100));
	TEST_ASSERT(acts.v[0].addr == 0x1004 && acts.v[0].len == 4, "aligned 4-byte access watched as is");
	FEED(ev_trap(10, 0, 0, acts.v[0].cookie, 200));
	/* 2 bytes at 0x1003 cross 0x1004: no aligned 2 or 4 holds them */
	FEED(ev_sample(10, 0, LP_ACCESS_LOAD, 0x1003, 2, 300));
	TEST_ASSERT(acts.v[0].addr == 0x1000 && acts.v[0].len == 8, "got %#llx/%d",
		    (unsigned long long)acts.v[0].addr, acts.v[0].len);
	FEED(ev_trap(10, 0, 0, acts.v[0].cookie, 400));
	r = reuse__result(ru);
	TEST_ASSERT(r->stats.temporal == 1 && r->stats.chunk == 1, "temporal %llu chunk %llu",
		    (unsigned long long)r->stats.temporal, (unsigned long long)r->stats.chunk);
	reuse__delete(ru);

	ru = new_ru(1, 0, REUSE_GRAN_LINE, 0, NULL);
	FEED(ev_start(10, 0, 0));
	FEED(ev_sample(10, 0, LP_ACCESS_STORE, 0x2044, 4, 100));
	TEST_ASSERT(acts.v[0].addr == 0x2040 && acts.v[0].len == 8, "line mode: the 8-byte chunk");
	FEED(ev_trap(10, 0, 0, acts.v[0].cookie, 200));
	r = reuse__result(ru);
	TEST_ASSERT(r->stats.chunk == 1 && r->stats.temporal == 0 && r->gran == REUSE_GRAN_LINE,
		    "chunk reuse at line granularity");
	lp_actions__exit(&acts);
	reuse__delete(ru);
	return TEST_OK;
}

LP_TEST(test_reuse_reservoir_uniform,
	"reuse: with one slot and no trap, each of N samples is the one watched with probability 1/N (reservoir)")
{
	enum { N = 8, RUNS = 8000 };
	int hits[N] = { 0 }, run, i, k;
	struct lp_actions acts = { 0 };

	for (run = 0; run < RUNS; run++) {
		struct reuse *ru = new_ru(1, 0, REUSE_GRAN_ADDR, 1000 + run, NULL);
		u64 watched = 0;

		FEED(ev_start(10, 0, 0));
		for (i = 0; i < N; i++) {
			FEED(ev_sample(10, 0, LP_ACCESS_LOAD, 0x1000 + 8 * i, 8, 100 + i));
			for (k = 0; k < acts.n; k++)
				if (acts.v[k].op == LP_ACT_ARM)
					watched = acts.v[k].addr;
		}
		hits[(watched - 0x1000) / 8]++;
		reuse__delete(ru);
	}
	/* binomial(8000, 1/8): mean 1000, sd 29.6; 5 sd */
	for (i = 0; i < N; i++)
		TEST_ASSERT(abs(hits[i] - RUNS / N) < 150, "sample %d watched %d times of %d",
			    i, hits[i], RUNS);
	lp_actions__exit(&acts);
	return TEST_OK;
}

LP_TEST(test_reuse_reset_on_trap_and_weight,
	"reuse: n resets to 1 on a trap (the next sample is always armed); a watch that survived a 1/2 draw weighs 2")
{
	struct lp_actions acts = { 0 };
	const struct reuse_result *r;
	u64 seed;
	int found = 0;

	/* find a seed where the 2nd sample does not replace the 1st (p 1/2) */
	for (seed = 1; seed < 64 && !found; seed++) {
		struct reuse *ru = new_ru(1, 0, REUSE_GRAN_ADDR, seed, NULL);
		u64 c;

		FEED(ev_start(10, 0, 0));
		FEED(ev_sample(10, 0, LP_ACCESS_LOAD, 0x1000, 8, 100));
		c = acts.v[0].cookie;
		FEED(ev_sample(10, 0, LP_ACCESS_LOAD, 0x2000, 8, 200));
		if (acts.n == 0) {
			found = 1;
			FEED(ev_trap(10, 0, 0, c, 300));
			r = reuse__result(ru);
			TEST_ASSERT(fabs(reuse_hist__total(&r->time, 0) - 2.0) < 1e-12,
				    "weight 1/(1 x 1/2) = 2, got %g", reuse_hist__total(&r->time, 0));
			TEST_ASSERT(r->stats.samples_dropped == 1, "dropped %llu",
				    (unsigned long long)r->stats.samples_dropped);
			/* after the trap n = 1: every seed arms the next sample */
			FEED(ev_sample(10, 0, LP_ACCESS_LOAD, 0x3000, 8, 400));
			TEST_ASSERT(acts.n == 1 && acts.v[0].addr == 0x3000, "armed after reset");
		}
		reuse__delete(ru);
	}
	TEST_ASSERT(found, "some seed keeps the first watch");
	lp_actions__exit(&acts);
	return TEST_OK;
}

LP_TEST(test_reuse_thread_exit_and_stale,
	"reuse: an owner's exit makes its watch cold and disarms it; traps from exited threads or with old cookies are stale")
{
	struct lp_actions acts = { 0 };
	struct reuse *ru = new_ru(4, 0, REUSE_GRAN_ADDR, 0, NULL);
	const struct reuse_result *r;
	u64 c;
	int s;

	FEED(ev_start(10, 0, 0));
	FEED(ev_start(11, 1, 1));
	FEED(ev_sample(11, 1, LP_ACCESS_LOAD, 0x1000, 8, 100));
	c = acts.v[0].cookie;
	s = acts.v[0].slot;
	FEED(ev_exit(11));
	TEST_ASSERT(acts.n == 1 && acts.v[0].op == LP_ACT_DISARM && acts.v[0].tid == 10,
		    "disarm the survivor's register only, got %d actions", acts.n);
	FEED(ev_trap(11, 1, s, c, 200));	/* exited */
	FEED(ev_trap(10, 0, s, c, 200));	/* slot inactive */
	FEED(ev_trap(10, 0, s, c + 256, 200));	/* never armed */
	r = reuse__result(ru);
	TEST_ASSERT(r->cold == 1 && r->reuses == 0 && r->invalidations == 0, "cold %llu",
		    (unsigned long long)r->cold);
	TEST_ASSERT(r->stats.traps_stale == 3, "stale %llu", (unsigned long long)r->stats.traps_stale);
	/* a thread that starts while a slot is active gets armed */
	FEED(ev_sample(10, 0, LP_ACCESS_STORE, 0x5000, 8, 300));
	FEED(ev_start(12, 2, 1));
	TEST_ASSERT(acts.n == 1 && acts.v[0].tid == 12 && acts.v[0].mode == LP_WP_W &&
		    acts.v[0].addr == 0x5000, "new thread armed W on the active watch");
	/* and the end of the stream makes the active watch cold */
	reuse__finish(ru);
	r = reuse__result(ru);
	TEST_ASSERT(r->cold == 2, "cold at finish, got %llu", (unsigned long long)r->cold);
	lp_actions__exit(&acts);
	reuse__delete(ru);
	return TEST_OK;
}

LP_TEST(test_reuse_stride_rate,
	"reuse: consecutive samples at one IP walking a dense array give the access rate")
{
	struct lp_actions acts = { 0 };
	struct reuse *ru = new_ru(4, 0, REUSE_GRAN_ADDR, 0, NULL);
	const struct reuse_result *r;
	int i;

	FEED(ev_start(10, 0, 0));
	/* every 1000 ns of CPU the load is 250 elements (2000 bytes) further */
	for (i = 0; i < 12; i++)
		FEED(ev_sample(10, 0, LP_ACCESS_LOAD, 0x100000 + 2000 * i, 8, 5000 + 1000 * i));
	r = reuse__result(ru);
	TEST_ASSERT(r->rate_source == REUSE_RATE_STRIDE, "source %d", r->rate_source);
	TEST_ASSERT(fabs(r->access_rate - 0.25) < 1e-12 && r->stats.rate_pairs == 11,
		    "rate %g from %llu pairs", r->access_rate, (unsigned long long)r->stats.rate_pairs);
	reuse__delete(ru);
	/* too few pairs: the default, said so */
	ru = new_ru(4, 0, REUSE_GRAN_ADDR, 0, NULL);
	FEED(ev_start(10, 0, 0));
	FEED(ev_sample(10, 0, LP_ACCESS_LOAD, 0x100000, 8, 5000));
	r = reuse__result(ru);
	TEST_ASSERT(r->rate_source == REUSE_RATE_DEFAULT && r->access_rate == 1.0, "default");
	lp_actions__exit(&acts);
	reuse__delete(ru);
	return TEST_OK;
}

/*
 * A held sample of an access already made (the instruction before the
 * interrupted IP), then a trap at the end of that instruction while the
 * thread's latest sample is still the use: the use reported again, once;
 * the watch stays and its reuse is timed from that trap. A sample of the
 * thread elsewhere in between makes the same trap a reuse.
 */
LP_TEST(test_reuse_use_reported_again,
	"reuse: a held watch's trap at its own instruction before the thread moved on is the use again (once), not a reuse")
{
	struct lp_actions acts = { 0 };
	const struct reuse_result *r;
	struct reuse_config cfg;
	struct reuse *ru;
	int moved;

	reuse__config_init(&cfg);
	cfg.access_rate = 1.0;
	for (moved = 0; moved < 2; moved++) {
		struct lp_event s = ev_sample(10, 0, LP_ACCESS_LOAD, 0x1000, 8, 100000);
		struct lp_event t1, t2;
		const struct lp_action *a;
		u64 slot, cookie;

		ru = reuse__new(&cfg);
		TEST_ASSERT(ru, "new");
		FEED(ev_start(10, 0, 0));
		s.sample.flags = LP_SAMPLE_HELD | LP_SAMPLE_PREV_INSN;
		FEED(s);
		a = arm_of(&acts, 10);
		TEST_ASSERT(a, "armed");
		slot = a->slot;
		cookie = a->cookie;
		if (moved) {	/* the thread seen at another access: it ran on */
			struct lp_event o = ev_sample(10, 0, LP_ACCESS_LOAD, 0x9000, 8, 150000);

			o.sample.ip += 0x40;
			FEED(o);
			/* reservoir: the second sample may take the watch's slot */
			a = arm_of(&acts, 10);
			TEST_ASSERT(!a || a->slot != slot, "the second sample kept away from slot %llu",
				    (unsigned long long)slot);
		}
		t1 = ev_trap(10, 0, (u8)slot, cookie, 200000);
		t1.trap.ip = s.sample.ip + 3;
		FEED(t1);
		if (!moved) {
			TEST_ASSERT(acts.n == 0, "the repeated use disarms nothing (%d actions)", acts.n);
			t2 = ev_trap(10, 0, (u8)slot, cookie, 260000);
			t2.trap.ip = s.sample.ip + 3;
			FEED(t2);
		}
		r = reuse__result(ru);
		TEST_ASSERT(r->reuses == 1 && r->stats.traps_again == (u64)!moved,
			    "moved %d: %llu reuses, %llu again", moved, (unsigned long long)r->reuses,
			    (unsigned long long)r->stats.traps_again);
		/* timed from the repeated use (60000) or from the sample (100000),
		 * less the held cost (none measured): 60000 or 100000 accesses */
		TEST_ASSERT(r->time.bin[reuse_hist__bin(moved ? 99999 : 59999)] > 0,
			    "moved %d: not in the bin of %d", moved, moved ? 99999 : 59999);
		reuse__delete(ru);
	}
	lp_actions__exit(&acts);
	return TEST_OK;
}

LP_TEST(test_reuse_pending_own_trap_and_cost,
	"reuse: a held sample's own-access trap is the use, not a reuse; their median cost is subtracted")
{
	static const u64 cost[3] = { 10000, 14000, 12000 };	/* median 12000 */
	struct lp_actions acts = { 0 };
	const struct reuse_result *r;
	struct reuse_config cfg;
	struct reuse *ru;
	int i;

	reuse__config_init(&cfg);
	cfg.access_rate = 1.0;
	ru = reuse__new(&cfg);
	TEST_ASSERT(ru, "new");
	FEED(ev_start(10, 0, 0));
	for (i = 0; i < 3; i++) {
		u64 t0 = 100000 * (u64)(i + 1);
		struct lp_event s = ev_sample(10, 0, LP_ACCESS_LOAD, 0x1000 + 64 * i, 8, t0);
		struct lp_event own, re;
		const struct lp_action *a;

		s.sample.flags = LP_SAMPLE_HELD | LP_SAMPLE_PENDING;
		FEED(s);
		a = arm_of(&acts, 10);
		TEST_ASSERT(a, "armed");
		own = ev_trap(10, 0, a->slot, a->cookie, t0 + cost[i]);
		own.trap.ip = s.sample.ip + 3;	/* right after the sampled load */
		re = ev_trap(10, 0, a->slot, a->cookie, t0 + cost[i] + 20000);
		FEED(own);
		TEST_ASSERT(acts.n == 0, "the own-access trap disarms nothing (%d actions)", acts.n);
		FEED(re);
	}
	r = reuse__result(ru);
	TEST_ASSERT(r->stats.traps_use == 3 && r->reuses == 3, "own traps %llu, reuses %llu",
		    (unsigned long long)r->stats.traps_use, (unsigned long long)r->reuses);
	TEST_ASSERT(r->trap_cost_samples == 3 && r->trap_cost_ns == 12000.0,
		    "cost %g from %llu", r->trap_cost_ns, (unsigned long long)r->trap_cost_samples);
	/* 20000 ns after the use, less 12000: 8000 accesses, t = 7999 */
	TEST_ASSERT(r->time.bin[reuse_hist__bin(7999)] == 3.0, "bin of 7999 holds %g",
		    r->time.bin[reuse_hist__bin(7999)]);
	reuse__delete(ru);

	/* not held (async): the thread ran on, the first trap is a reuse */
	ru = reuse__new(&cfg);
	FEED(ev_start(10, 0, 0));
	{
		struct lp_event s = ev_sample(10, 0, LP_ACCESS_LOAD, 0x1000, 8, 1000);
		struct lp_event t;

		s.sample.flags = LP_SAMPLE_PENDING;
		FEED(s);
		t = ev_trap(10, 0, acts.v[0].slot, acts.v[0].cookie, 3000);
		t.trap.ip = s.sample.ip + 3;
		FEED(t);
	}
	r = reuse__result(ru);
	TEST_ASSERT(r->stats.traps_use == 0 && r->reuses == 1 && r->trap_cost_ns == 0,
		    "async: %llu own, %llu reuses", (unsigned long long)r->stats.traps_use,
		    (unsigned long long)r->reuses);
	lp_actions__exit(&acts);
	reuse__delete(ru);
	return TEST_OK;
}

/*
 * Thread 10 walks one array at 0.25 accesses/ns, then (far away) another
 * at 1 access/ns. W1 (armed at the first sample) and W2 (first sample of
 * the second walk) each reuse after 10000 ns; every other watch traps 10
 * ns after its sample (slot 1), which keeps slot 0 for W1 and W2.
 */
static int local_rate_run(struct lp_test_ctx *ctx, int global, const struct reuse_result **out,
			  struct reuse **rup)
{
	struct lp_actions acts = { 0 };
	struct reuse_config cfg;
	struct reuse *ru;
	int ph, i;

	reuse__config_init(&cfg);
	cfg.global_rate = global;
	cfg.no_chain = 1;	/* the time path: chains would count these walks */
	ru = *rup = reuse__new(&cfg);
	TEST_ASSERT(ru, "new");
	FEED(ev_start(10, 0, 0));
	for (ph = 0; ph < 2; ph++) {
		u64 base = ph ? 0x100000 + (1ull << 28) : 0x100000, step = ph ? 8000 : 2000;
		u64 t0 = ph ? 20000 : 1000, wc = 0;
		u8 ws = 0;

		for (i = 0; i < 10; i++) {
			const struct lp_action *a;

			FEED(ev_sample(10, 0, LP_ACCESS_LOAD, base + step * i, 8, t0 + 1000 * i));
			a = arm_of(&acts, 10);
			TEST_ASSERT(a && a->slot == (i ? 1 : 0), "sample %d of walk %d in slot %d", i,
				    ph, a ? a->slot : -1);
			if (!i) {
				wc = a->cookie;
				ws = a->slot;
			} else {
				FEED(ev_trap(10, 0, a->slot, a->cookie, t0 + 1000 * i + 10));
			}
		}
		FEED(ev_trap(10, 0, ws, wc, t0 + 10000));
	}
	*out = reuse__result(ru);
	lp_actions__exit(&acts);
	return TEST_OK;
}

LP_TEST(test_reuse_local_rate,
	"reuse: a reuse whose interval holds stride pairs is timed at their rate, not the run's")
{
	const struct reuse_result *r;
	struct reuse *ru = NULL;
	int err;

	err = local_rate_run(ctx, 0, &r, &ru);
	if (err != TEST_OK) {
		reuse__delete(ru);
		return err;
	}
	/* W1: 10000 ns x 0.25 = 2500 accesses, t = 2499; W2: x 1 -> t = 9999 */
	TEST_ASSERT(r->local_rate_reuses == 2, "local reuses %llu",
		    (unsigned long long)r->local_rate_reuses);
	TEST_ASSERT(r->time.bin[reuse_hist__bin(2499)] == 1.0 &&
		    r->time.bin[reuse_hist__bin(9999)] == 1.0,
		    "bins %g %g", r->time.bin[reuse_hist__bin(2499)], r->time.bin[reuse_hist__bin(9999)]);
	/* the run's rate: median of the 9 + 9 pairs W1 and W2 used */
	TEST_ASSERT(r->rate_pairs_local == 18 && fabs(r->access_rate - 0.625) < 1e-12,
		    "run rate %g from %llu", r->access_rate, (unsigned long long)r->rate_pairs_local);
	reuse__delete(ru);

	/* --global-rate: the median of all 18 pairs for both */
	ru = NULL;
	err = local_rate_run(ctx, 1, &r, &ru);
	if (err != TEST_OK) {
		reuse__delete(ru);
		return err;
	}
	TEST_ASSERT(r->local_rate_reuses == 0 && fabs(r->access_rate - 0.625) < 1e-12,
		    "global %g, %llu local", r->access_rate, (unsigned long long)r->local_rate_reuses);
	TEST_ASSERT(r->time.bin[reuse_hist__bin(6249)] == 2.0, "both at 6250 accesses: %g",
		    r->time.bin[reuse_hist__bin(6249)]);
	reuse__delete(ru);
	return TEST_OK;
}

/* A fixed pseudo-random stream of samples and traps over 3 threads. */
static int run_stream(struct lp_test_ctx *ctx, u64 seed, struct lp_action *log,
		      int max, int *nlog)
{
	struct lp_actions acts = { 0 };
	struct reuse *ru = new_ru(4, 0, REUSE_GRAN_ADDR, seed, NULL);
	u64 x = 12345, cookies[4] = { 0 };
	int i, k;

	*nlog = 0;
	for (i = 0; i < 3; i++)
		FEED(ev_start(10 + i, i, i));
	for (i = 0; i < 400; i++) {
		u32 tid = 10 + (x >> 7) % 3;

		x = x * 6364136223846793005ull + 1442695040888963407ull;
		if ((x >> 33) % 3) {
			FEED(ev_sample(tid, 0, LP_ACCESS_LOAD, 0x1000 + ((x >> 20) % 64) * 8, 8, 100 * i));
		} else {
			int slot = (x >> 40) % 4;

			FEED(ev_trap(tid, 0, slot, cookies[slot], 100 * i));
		}
		for (k = 0; k < acts.n; k++) {
			if (acts.v[k].op == LP_ACT_ARM)
				cookies[acts.v[k].slot] = acts.v[k].cookie;
			if (*nlog < max)
				log[(*nlog)++] = acts.v[k];
		}
	}
	lp_actions__exit(&acts);
	reuse__delete(ru);
	return TEST_OK;
}

LP_TEST(test_reuse_replay_deterministic,
	"reuse: the same stream and seed give the same actions (replay); another seed other choices")
{
	static struct lp_action a[4096], b[4096], c[4096];
	int na, nb, nc;

	TEST_ASSERT(run_stream(ctx, 7, a, 4096, &na) == TEST_OK, "run a");
	TEST_ASSERT(run_stream(ctx, 7, b, 4096, &nb) == TEST_OK, "run b");
	TEST_ASSERT(run_stream(ctx, 8, c, 4096, &nc) == TEST_OK, "run c");
	TEST_ASSERT(na > 100 && na == nb && !memcmp(a, b, na * sizeof(*a)),
		    "identical actions (%d vs %d)", na, nb);
	TEST_ASSERT(na != nc || memcmp(a, c, na * sizeof(*a)), "seed changes the reservoir draws");
	return TEST_OK;
}

/*
 * One thread, one slot, rate 1 access per ns: each sample's watch is
 * free again after its trap, so every reuse is detected with weight 1.
 * @gaps: ns from sample to trap; @counted: a COUNTER event before each
 * sample and trap, advancing by the gap (the counter path); @survival:
 * cfg.survival.
 */
static const struct reuse_result *res_stream(struct reuse **rup, double resolution,
					     const u64 *gaps, int n, int counted, int survival)
{
	struct lp_actions acts = { 0 };
	struct reuse_config cfg;
	struct reuse *ru;
	u64 t = 1000, count = 1;
	int i;

	reuse__config_init(&cfg);
	cfg.nslots = 1;
	cfg.access_rate = 1.0;
	cfg.resolution_ns = resolution;
	cfg.survival = survival;
	*rup = ru = reuse__new(&cfg);
	if (!ru || feed(ru, ev_start(10, 0, 0), &acts))
		return NULL;
	for (i = 0; i < n; i++) {
		struct lp_event c = { .type = LP_EV_COUNTER };
		u64 cookie;
		u8 slot;

		c.counter.tid = 10;
		c.counter.value = count;
		if ((counted && feed(ru, c, &acts)) ||
		    feed(ru, ev_sample(10, 0, LP_ACCESS_LOAD, 0x1000 + 64 * i, 8, t), &acts) ||
		    !acts.n)
			return NULL;
		slot = acts.v[0].slot;
		cookie = acts.v[0].cookie;
		t += gaps[i];
		count += gaps[i];
		c.counter.value = count;
		if ((counted && feed(ru, c, &acts)) ||
		    feed(ru, ev_trap(10, 0, slot, cookie, t), &acts))
			return NULL;
		t += 100000;	/* far from the next sample */
		count += 100000;
	}
	lp_actions__exit(&acts);
	reuse__finish(ru);
	return reuse__result(ru);
}

LP_TEST(test_reuse_resolution_short_bin,
	"reuse: reuses timed within the stated resolution go to the short bin, not the histograms")
{
	/* R = 1000 ns at 1 access/ns: 500 and 999 are short, 1000 and 5000 are not */
	const u64 gaps[] = { 500, 5000, 999, 5000, 1000 };
	const struct reuse_result *r;
	struct reuse *ru;

	r = res_stream(&ru, 1000, gaps, 5, 0, 0);
	TEST_ASSERT(r, "stream");
	TEST_ASSERT(r->resolution.source == REUSE_RES_STATED && r->resolution.ns == 1000 &&
		    fabs(r->resolution.accesses - 1000) < 1e-9,
		    "source %d, R %g ns, N %g", r->resolution.source, r->resolution.ns,
		    r->resolution.accesses);
	TEST_ASSERT(r->resolution.short_detections == 2 && r->resolution.short_reuses == 2 &&
		    r->threads[0].short_reuses == 2, "short %" PRIu64 " (%g), thread %g",
		    r->resolution.short_detections, r->resolution.short_reuses,
		    r->threads[0].short_reuses);
	/* the rest, and only they, are in both histograms: t = 999, 4999, 4999 */
	TEST_ASSERT(reuse_hist__total(&r->time, 0) == 3 && reuse_hist__total(&r->stack, 0) == 3,
		    "time %g stack %g", reuse_hist__total(&r->time, 0), reuse_hist__total(&r->stack, 0));
	/* 998 and 999 share bin 10: only the unshort one is in it */
	TEST_ASSERT(r->time.bin[reuse_hist__bin(499)] == 0 && r->time.bin[reuse_hist__bin(999)] == 1 &&
		    r->time.bin[reuse_hist__bin(4999)] == 2, "time bins %g %g %g",
		    r->time.bin[reuse_hist__bin(499)], r->time.bin[reuse_hist__bin(999)],
		    r->time.bin[reuse_hist__bin(4999)]);
	TEST_ASSERT(reuse_hist__total(&r->threads[0].time, 0) == 3, "thread time %g",
		    reuse_hist__total(&r->threads[0].time, 0));
	reuse__delete(ru);

	/* no resolution: every reuse binned, and the result says it is unknown */
	r = res_stream(&ru, 0, gaps, 5, 0, 0);
	TEST_ASSERT(r, "stream");
	TEST_ASSERT(r->resolution.source == REUSE_RES_UNKNOWN && !r->resolution.short_detections &&
		    reuse_hist__total(&r->time, 0) == 5, "unknown: source %d, short %" PRIu64 ", time %g",
		    (int)r->resolution.source, r->resolution.short_detections,
		    reuse_hist__total(&r->time, 0));
	reuse__delete(ru);

	/* counted reuses are exact: a stated resolution takes none of them */
	r = res_stream(&ru, 1000, gaps, 5, 1, 0);
	TEST_ASSERT(r, "stream");
	TEST_ASSERT(r->time_source == REUSE_TIME_COUNTER && r->resolution.source == REUSE_RES_EXACT &&
		    r->resolution.ns == 0 && !r->resolution.short_detections,
		    "time source %d, resolution %d, short %" PRIu64, (int)r->time_source,
		    (int)r->resolution.source, r->resolution.short_detections);
	TEST_ASSERT(reuse_hist__total(&r->time, 0) == 5 && r->time.bin[reuse_hist__bin(499)] == 1,
		    "counted: every reuse binned, %g", reuse_hist__total(&r->time, 0));
	reuse__delete(ru);
	return TEST_OK;
}

/*
 * cfg.survival needs every detection's age in counted accesses: on the
 * counter path it applies (no watch replaced here: no censoring, every
 * reuse weighs 1 as by default), on timed reuses it does not, and the
 * result says it was not applied.
 */
LP_TEST(test_reuse_survival_needs_counters, "reuse: --survival applies to counted reuse times only, and says so")
{
	const u64 gaps[] = { 500, 5000, 999, 5000, 1000 };
	const struct reuse_result *r;
	struct reuse *ru;

	r = res_stream(&ru, 0, gaps, 5, 1, 1);
	TEST_ASSERT(r && r->survival && !r->survival_unapplied && !r->censored,
		    "counted: survival %d, unapplied %d", r ? r->survival : -1,
		    r ? r->survival_unapplied : -1);
	TEST_ASSERT(reuse_hist__total(&r->time, 0) == 5, "counted: weight %g, want 5 reuses of weight 1",
		    reuse_hist__total(&r->time, 0));
	reuse__delete(ru);
	r = res_stream(&ru, 0, gaps, 5, 0, 1);
	TEST_ASSERT(r && !r->survival && r->survival_unapplied, "timed: survival %d, unapplied %d",
		    r ? r->survival : -1, r ? r->survival_unapplied : -1);
	reuse__delete(ru);
	return TEST_OK;
}
