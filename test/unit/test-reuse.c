// SPDX-License-Identifier: GPL-2.0
/*
 * reuse (ReuseTracker) on hand-built event streams. Expected values come
 * from the definitions in core/reuse.h (Sasongko 2022, ch. 6, Algorithms 2-3),
 * computed here by hand.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/reuse-exact.h"
#include "core/reuse.h"
#include "core/tests.h"
#include "test/unit/events.h"

static struct lp_event ev_sample(u32 tid, u32 cpu, u8 kind, u64 addr, u8 size,
				 u64 thread_ns)
{
	struct lp_event ev = { .type = LP_EV_SAMPLE };

	ev.sample.tid = tid;
	ev.sample.cpu = cpu;
	ev.sample.kind = kind;
	ev.sample.addr = addr;
	ev.sample.size = size;
	ev.sample.thread_ns = thread_ns;
	ev.sample.time = thread_ns + 7;
	ev.sample.ip = 0x400000 + tid * 0x100;
	return ev;
}

static struct lp_event ev_trap(u32 tid, u32 cpu, u8 slot, u64 cookie,
			       u64 thread_ns)
{
	struct lp_event ev = { .type = LP_EV_TRAP };

	ev.trap.tid = tid;
	ev.trap.cpu = cpu;
	ev.trap.slot = slot;
	ev.trap.cookie = cookie;
	ev.trap.thread_ns = thread_ns;
	ev.trap.time = thread_ns + 7;
	ev.trap.ip = 0x500000 + tid;
	return ev;
}

static int feed(struct reuse *ru, struct lp_event ev, struct lp_actions *acts)
{
	lp_actions__reset(acts);
	return reuse__event(ru, &ev, acts);
}

#define FEED(ev) TEST_ASSERT(feed(ru, (ev), &acts) == 0, "event failed")

static struct reuse *new_ru(int nslots, int shared, enum reuse_gran gran,
			    u64 seed, const struct lp_topology *topo)
{
	struct reuse_config cfg;

	reuse__config_init(&cfg);
	cfg.nslots = nslots;
	cfg.shared = shared;
	cfg.gran = gran;
	cfg.topo = topo;
	if (seed)
		cfg.seed = seed;
	return reuse__new(&cfg);
}

/* The ARM action for @tid in @acts, or NULL. */
static const struct lp_action *arm_of(const struct lp_actions *acts, u32 tid)
{
	int i;

	for (i = 0; i < acts->n; i++)
		if (acts->v[i].op == LP_ACT_ARM && acts->v[i].tid == tid)
			return &acts->v[i];
	return NULL;
}

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
 * Thread 10 walks a 10000-element array of 8-byte elements cyclically. The
 * use (slot 0) is element 5000; samples follow at 6000, 7000, 8000, 9000,
 * 9990, then (the walk wrapped) 10, 1000, ..., 4000, each freeing its own
 * slot with a 10 ns trap; then element 5000 is reused. The thread's CPU
 * clock runs 50 us per sample gap but 2 ms across the wrap (a stall):
 * true accesses from use to reuse: 10000. Counted by address: 4990 up to
 * 9990, the wrap from the sampled extent [10, 9990] (0) plus half a median
 * step (500), 4990 from 10 back to 5000: 10480, in 10000's bin. Timed
 * (--no-chain) at the stride rate, 1000 per 50 us, it would be ~50000.
 */
static int chain_run(struct lp_test_ctx *ctx, int no_chain, const struct reuse_result **out,
		     struct reuse **rup)
{
	static const u64 elem[] = { 5000, 6000, 7000, 8000, 9000, 9990, 10, 1000, 2000, 3000, 4000 };
	struct lp_actions acts = { 0 };
	struct reuse_config cfg;
	const struct lp_action *a;
	u64 t = 1000, wc = 0, base = 0x100000;
	struct reuse *ru;
	size_t i;

	reuse__config_init(&cfg);
	cfg.no_chain = no_chain;
	ru = *rup = reuse__new(&cfg);
	TEST_ASSERT(ru, "new");
	FEED(ev_start(10, 0, 0));
	for (i = 0; i < sizeof(elem) / sizeof(elem[0]); i++) {
		if (i)
			t += elem[i] < elem[i - 1] ? 2000000 : 50000;
		FEED(ev_sample(10, 0, LP_ACCESS_LOAD, base + 8 * elem[i], 8, t));
		a = arm_of(&acts, 10);
		TEST_ASSERT(a && a->slot == (i ? 1 : 0), "sample %zu in slot %d", i, a ? a->slot : -1);
		if (!i)
			wc = a->cookie;
		else
			FEED(ev_trap(10, 0, a->slot, a->cookie, t + 10));
	}
	FEED(ev_trap(10, 0, 0, wc, t + 50000));
	*out = reuse__result(ru);
	lp_actions__exit(&acts);
	return TEST_OK;
}

LP_TEST(test_reuse_chain_counts_by_address,
	"reuse: a reuse with samples in between is counted along their addresses, not timed")
{
	const struct reuse_result *r;
	struct reuse *ru = NULL;
	int err, k = reuse_hist__bin(9999), j;
	double other = 0;

	err = chain_run(ctx, 0, &r, &ru);
	if (err != TEST_OK) {
		reuse__delete(ru);
		return err;
	}
	TEST_ASSERT(r && r->chained_reuses == 1, "chained %llu",
		    r ? (unsigned long long)r->chained_reuses : 0ull);
	for (j = reuse_hist__bin(2000); j < REUSE_HIST_NBINS; j++)
		if (j != k)
			other += r->time.bin[j];
	TEST_ASSERT(r->time.bin[k] > 0 && other == 0, "bin of 10000: %g, other long bins %g",
		    r->time.bin[k], other);
	TEST_ASSERT(r->access_weighted > 0, "access weights %llu",
		    (unsigned long long)r->access_weighted);
	reuse__delete(ru);

	/* --no-chain: the stall inflates the timed distance past that bin */
	ru = NULL;
	err = chain_run(ctx, 1, &r, &ru);
	if (err != TEST_OK) {
		reuse__delete(ru);
		return err;
	}
	TEST_ASSERT(r && r->chained_reuses == 0 && r->time.bin[k] == 0 &&
		    r->time.bin[reuse_hist__bin(49999)] > 0,
		    "timed: bin of 10000 %g, of 50000 %g", r ? r->time.bin[k] : -1,
		    r ? r->time.bin[reuse_hist__bin(49999)] : -1);
	reuse__delete(ru);
	return TEST_OK;
}

struct walk_pt {
	u64 elem, dt_us;	/* 8-byte element of the array, us since the last */
	int use;		/* the sample whose reuse is watched */
};

/*
 * One thread's samples @s of an array walk: every watch traps 10 ns after
 * its sample but the use's, which traps @back ns before sample @at (one
 * pass later). The test passes if that one reuse is counted along the
 * samples and lands in the time bin of @acc accesses, not that of @wrong.
 */
static int walk_reuse(struct lp_test_ctx *ctx, const struct walk_pt *s, size_t n,
		      size_t at, u64 back, u64 acc, u64 wrong)
{
	struct lp_actions acts = { 0 };
	struct reuse_config cfg;
	const struct reuse_result *r = NULL;
	const struct lp_action *a;
	u64 t = 1000, wc = 0, base = 0x100000, chained = 0;
	double good = 0, bad = 0;
	struct reuse *ru;
	int fed = 0;
	u8 ws = 0;
	size_t i = 0;

	reuse__config_init(&cfg);
	ru = reuse__new(&cfg);
	if (!ru || feed(ru, ev_start(10, 0, 0), &acts))
		goto out;
	for (i = 0; i < n; i++) {
		t += s[i].dt_us * 1000;
		if (i == at && feed(ru, ev_trap(10, 0, ws, wc, t - back), &acts))
			goto out;
		if (feed(ru, ev_sample(10, 0, LP_ACCESS_LOAD, base + 8 * s[i].elem, 8, t), &acts) ||
		    !(a = arm_of(&acts, 10)))
			goto out;
		if (s[i].use) {
			wc = a->cookie;
			ws = (u8)a->slot;
		} else if (feed(ru, ev_trap(10, 0, a->slot, a->cookie, t + 10), &acts)) {
			goto out;
		}
	}
	fed = 1;
	if ((r = reuse__result(ru))) {
		good = r->time.bin[reuse_hist__bin(acc)];
		bad = r->time.bin[reuse_hist__bin(wrong)];
		chained = r->chained_reuses;
	}
out:
	lp_actions__exit(&acts);
	if (ru)
		reuse__delete(ru);
	TEST_ASSERT(fed && r, "feeding the walk failed at sample %zu", i);
	TEST_ASSERT(chained == 1, "chained %llu", (unsigned long long)chained);
	TEST_ASSERT(good > 0 && bad == 0, "bin of %llu: %g, of %llu: %g",
		    (unsigned long long)acc + 1, good, (unsigned long long)wrong + 1, bad);
	return TEST_OK;
}

/*
 * A 10000-element array walked at 500 elements per 50 us. The use of
 * A[8000] follows a long gap (690 us: a held stop and traps), so the
 * array's lower part lies 6900 elements (over 4 median steps) below the
 * reuse's own samples; the walk still reaches it, as far as the loop goes
 * in that time. The reuse is one pass, 10000 accesses: 9750 counted.
 * Without the time hole the walk stops at the gap: 1850.
 */
LP_TEST(test_reuse_wrap_walk_spans_long_gaps,
	"reuse: a wrap's walk crosses a long gap in time as far as the loop goes in it")
{
	static const struct walk_pt s[] = {
		{ 100, 0, 0 }, { 600, 50, 0 }, { 1100, 50, 0 }, { 8000, 690, 1 },
		{ 8500, 50, 0 }, { 9000, 50, 0 }, { 9500, 50, 0 },
		{ 8100, 860, 0 }, { 8600, 50, 0 }, { 9100, 50, 0 }, { 9600, 50, 0 },
	};

	/* the reuse of A[8000]: 500 + 8000 elements after 9500, before 8100 */
	return walk_reuse(ctx, s, sizeof(s) / sizeof(s[0]), 7, 10000, 9749, 1849);
}

/*
 * Array B (3500 elements) lies just below array A (5000). Thread 10 walks
 * A in steps of 1000 elements: the use is A[2500], samples follow at
 * A[3500], A[4500], (wrap) A[500], A[1500], then A[2500] is reused; the
 * walk goes on to A[3500], A[4500] and into B (the next phase): B[500],
 * B[1500], B[2500], B[3400], (wrap) B[900], B[1900], B[2900]. B begins
 * 3500 elements below A, inside the 4-step hole, but the walk landed below
 * A by a backward step and never came back: another array. True accesses:
 * 5000 (counted 4000 forward, 500 for the wrap). With B taken as part of
 * A's array, the wrap would count 4000 more: 8500.
 */
LP_TEST(test_reuse_wrap_stops_at_next_array,
	"reuse: a wrap's array ends where the walk lands in a neighbouring array for good")
{
	static const struct walk_pt s[] = {
		{ 4000 + 2500, 0, 1 }, { 4000 + 3500, 50, 0 }, { 4000 + 4500, 50, 0 },
		{ 4000 + 500, 50, 0 }, { 4000 + 1500, 50, 0 }, { 4000 + 3500, 50, 0 },
		{ 4000 + 4500, 50, 0 }, { 500, 50, 0 }, { 1500, 50, 0 }, { 2500, 50, 0 },
		{ 3400, 50, 0 }, { 900, 50, 0 }, { 1900, 50, 0 }, { 2900, 50, 0 },
	};

	/* the reuse of A[2500], before the walk goes on */
	return walk_reuse(ctx, s, sizeof(s) / sizeof(s[0]), 5, 25000, 4999, 8499);
}

/*
 * ribench's layout: arrays C (elements 0-1999), B (2000-7999) and A
 * (8000-15999) lie next to one another, and one loop walks A once, B twice,
 * C three times, then A again, 1000 elements per 50 us. The use is A[10500]
 * and the reuse comes in A's next phase. True accesses: 5500 + 12000 +
 * 6000 + 2500 = 26000. Each wrap of B and C is counted around its own
 * array (its phase), and the reuse lands in 26000's bin. Had the wraps
 * taken every sample of the loop in the reuse's interval, the three arrays
 * (no hole between them) would make one, each wrap would count up to A's
 * top, and the reuse would land at 65536 or more (measured: it does
 * without ru_segments).
 */
LP_TEST(test_reuse_wrap_keeps_to_its_phase,
	"reuse: a wrap inside a long reuse is counted around its own array, not the adjacent ones")
{
	static const struct walk_pt s[] = {
		{ 8500, 0, 0 }, { 9500, 50, 0 }, { 10500, 50, 1 }, { 11500, 50, 0 },
		{ 12500, 50, 0 }, { 13500, 50, 0 }, { 14500, 50, 0 }, { 15500, 50, 0 },
		{ 2300, 50, 0 }, { 3300, 50, 0 }, { 4300, 50, 0 }, { 5300, 50, 0 },
		{ 6300, 50, 0 }, { 7300, 50, 0 }, { 2100, 50, 0 }, { 3100, 50, 0 },
		{ 4100, 50, 0 }, { 5100, 50, 0 }, { 6100, 50, 0 }, { 7100, 50, 0 },
		{ 300, 50, 0 }, { 1300, 50, 0 }, { 100, 50, 0 }, { 1100, 50, 0 },
		{ 200, 50, 0 }, { 1200, 50, 0 },
		{ 8400, 20, 0 }, { 9400, 50, 0 }, { 10400, 50, 0 }, { 11400, 50, 0 },
	};

	/* the reuse of A[10500], 25 us before the sample at A[10400] */
	return walk_reuse(ctx, s, sizeof(s) / sizeof(s[0]), 28, 25000, 25999, 65536);
}

/*
 * A simulated program with phases: thread 10 runs 6 outer iterations of
 * three phases, each walking its own array of 3000 8-byte elements (far
 * apart) 8 times, at one access per ns. A sample comes every 97 accesses;
 * the watches the analysis arms trap at the next access to their bytes.
 * Most reuses are one pass (distance 2999); a phase's last pass is reused
 * in the next outer iteration, 51000 accesses later, over 8999 distinct
 * addresses (all three arrays): 0.106 of the reuses. The footprint of the
 * uses around the use alone cannot see that: in a last pass every use is
 * such a reuse, fp(t) is near t, and they land at 16384 or more. Each
 * window's footprint over its own part of the interval counts the other
 * arrays once. The exact engine is the referee. A run has ~250 reuses and
 * few long ones, so the test takes the mean of 8 seeds. Measured: 0.059
 * of the reuses at 8999, S 0.931 (0.003 and S 0.878 with the footprint of
 * the use's window alone).
 */
#define SIM_N		3000
#define SIM_PERIOD	97
#define SIM_SEEDS	8

struct sim_wp {
	u64 addr, cookie;
	u8 len, mode, on;
};

static int sim_actions(const struct lp_actions *acts, struct sim_wp *wp)
{
	int k;

	for (k = 0; k < acts->n; k++) {
		const struct lp_action *a = &acts->v[k];

		if (a->tid != 10 || a->slot >= REUSE_MAX_SLOTS)
			return -1;
		if (a->op == LP_ACT_ARM)
			wp[a->slot] = (struct sim_wp){ a->addr, a->cookie, a->len, a->mode, 1 };
		else if (a->op == LP_ACT_DISARM)
			wp[a->slot].on = 0;
	}
	return 0;
}

/*
 * Runs the program through the analysis: S of its stack histogram against
 * the exact one (finite bins), and the fraction of its reuses in the bin
 * of the last passes' distance.
 */
static int sim_phases(u64 seed, double *s, double *last_pass)
{
	static const u64 base[3] = { 0x1000000, 0x3000000, 0x5000000 };
	struct reuse_exact_opts eo = { .mode = REUSE_EXACT_PER_THREAD };
	struct sim_wp wp[REUSE_MAX_SLOTS] = { { 0 } };
	struct lp_actions acts = { 0 };
	const struct reuse_result *r;
	struct reuse_exact *re = NULL;
	struct reuse *ru = new_ru(4, 0, REUSE_GRAN_ADDR, seed, NULL);
	u64 i = 0, o, p, pass, k;
	int err = -1, j;
	double tot;

	if (!ru || reuse_exact__new(&eo, &re) || feed(ru, ev_start(10, 0, 0), &acts))
		goto out;
	for (o = 0; o < 6; o++)
	for (p = 0; p < 3; p++)
	for (pass = 0; pass < 8; pass++)
	for (k = 0; k < SIM_N; k++) {
		u64 addr = base[p] + 8 * k;
		struct lp_event ev;

		i++;
		if (reuse_exact__access(re, 10, addr, 0, NULL))
			goto out;
		for (j = 0; j < REUSE_MAX_SLOTS; j++) {
			if (!wp[j].on || addr + 8 <= wp[j].addr || addr >= wp[j].addr + wp[j].len)
				continue;
			if (wp[j].mode != LP_WP_RW)
				goto out;	/* one thread: it only watches its own */
			ev = ev_trap(10, 0, (u8)j, wp[j].cookie, i);
			wp[j].on = 0;
			if (feed(ru, ev, &acts) || sim_actions(&acts, wp))
				goto out;
		}
		if (i % SIM_PERIOD)
			continue;
		ev = ev_sample(10, 0, LP_ACCESS_LOAD, addr, 8, i);
		ev.sample.ip = 0x401000 + 0x40 * p;	/* one loop per phase */
		if (feed(ru, ev, &acts) || sim_actions(&acts, wp))
			goto out;
	}
	if (!(r = reuse__result(ru)) || r->reuses < 100 ||
	    !((tot = reuse_hist__total(&r->stack, 0)) > 0))
		goto out;
	*last_pass = r->stack.bin[reuse_hist__bin(3 * SIM_N - 1)] / tot;
	err = reuse_hist__similarity(&r->stack, &reuse_exact__thread(re, 0)->stack, 0, s);
out:
	lp_actions__exit(&acts);
	reuse__delete(ru);
	reuse_exact__delete(re);
	return err;
}

LP_TEST(test_reuse_phase_end_distance,
	"reuse: a phase's last pass, reused a whole outer iteration later, lands at its distinct addresses")
{
	double s, b, ms = 0, mb = 0;
	u64 seed;

	/* few reuses per run (~250): their mean over seeds */
	for (seed = 1; seed <= SIM_SEEDS; seed++) {
		TEST_ASSERT(sim_phases(seed, &s, &b) == 0, "the simulated run failed (seed %llu)",
			    (unsigned long long)seed);
		ms += s / SIM_SEEDS;
		mb += b / SIM_SEEDS;
	}
	TEST_ASSERT(mb >= 0.04 && mb <= 0.16, "%.3f of the reuses at %d (truth 0.106)", mb, 3 * SIM_N - 1);
	TEST_ASSERT(ms >= 0.9, "S %.3f against the exact histogram", ms);
	return TEST_OK;
}
