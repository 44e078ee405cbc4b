// SPDX-License-Identifier: GPL-2.0
/*
 * comdetect on hand-built event streams. Expected values come from the
 * definitions in core/comdetect.h (Sasongko 2022, ch. 5), computed here by hand.
 */
#include <stdlib.h>
#include <string.h>

#include "core/comdetect.h"
#include "core/tests.h"
#include "test/unit/events.h"

#define P0 1000	/* sampling periods: distinct so a wrong one shows */
#define P1 700

static struct lp_event ev_sample(u32 tid, u32 cpu, u8 kind, u64 addr, u8 size,
				 u64 period)
{
	struct lp_event ev = { .type = LP_EV_SAMPLE };

	ev.sample.tid = tid;
	ev.sample.cpu = cpu;
	ev.sample.kind = kind;
	ev.sample.addr = addr;
	ev.sample.size = size;
	ev.sample.period = period;
	ev.sample.ip = 0x400000 + (addr & 0xfff) + tid * 0x10000;
	return ev;
}

static struct lp_event ev_trap(u32 tid, u32 cpu, u8 slot, u64 cookie,
			       u64 addr)
{
	struct lp_event ev = { .type = LP_EV_TRAP };

	ev.trap.tid = tid;
	ev.trap.cpu = cpu;
	ev.trap.slot = slot;
	ev.trap.cookie = cookie;
	ev.trap.addr = addr;
	ev.trap.mode = LP_WP_RW;
	ev.trap.len = 8;
	ev.trap.ip = 0x500000 + tid;
	return ev;
}

/* Feeds one event; actions of this event only are left in @acts. */
static int feed(struct comdetect *cd, struct lp_event ev,
		struct lp_actions *acts)
{
	lp_actions__reset(acts);
	return comdetect__analysis(cd)->event(comdetect__analysis(cd), &ev, acts);
}

#define FEED(ev) TEST_ASSERT(feed(cd, (ev), &acts) == 0, "event failed")

static struct comdetect *new_cd(int board, int nslots, int max_dr)
{
	struct comdetect_config cfg;

	comdetect__config_init(&cfg);
	cfg.lanes = 1;	/* exact: no random lane */
	cfg.count_apart = 1;	/* hand-made times: no rate */
	if (board)
		cfg.board_size = board;
	if (nslots)
		cfg.nslots = nslots;
	if (max_dr)
		cfg.max_dr = max_dr;
	return comdetect__new(&cfg);
}

static double cell(const double *m, int n, int i, int j)
{
	return m[i * n + j];
}

static int count_op(const struct lp_actions *acts, u8 op)
{
	int i, n = 0;

	for (i = 0; i < acts->n; i++)
		n += acts->v[i].op == op;
	return n;
}

LP_TEST(test_comdetect_true_sharing_same_word,
	"comdetect: two stores to one word are one true-sharing hit of the looker's period")
{
	struct comdetect *cd = new_cd(0, 0, 0);
	struct lp_actions acts = { 0 };
	const struct comdetect_result *r;

	TEST_ASSERT(cd, "new");
	FEED(ev_start(10, 0, 0));
	FEED(ev_start(11, 1, 1));
	FEED(ev_sample(10, 0, LP_ACCESS_STORE, 0x1000, 8, P0));
	FEED(ev_sample(11, 1, LP_ACCESS_STORE, 0x1000, 8, P1));
	/* the same published entry must not be counted twice */
	FEED(ev_sample(11, 1, LP_ACCESS_STORE, 0x1000, 8, P1));
	comdetect__finish(cd);
	r = comdetect__result(cd);
	TEST_ASSERT(r, "result");
	TEST_ASSERT(r->nthreads == 2, "n=%d", r->nthreads);
	TEST_ASSERT(r->tids[0] == 10 && r->tids[1] == 11, "tids %u %u",
		    r->tids[0], r->tids[1]);
	TEST_ASSERT(r->detections == 1 && r->stats.hits == 1, "det=%llu",
		    (unsigned long long)r->detections);
	TEST_ASSERT(cell(r->true_sharing, 2, 0, 1) == P1, "true01=%g",
		    cell(r->true_sharing, 2, 0, 1));
	TEST_ASSERT(cell(r->false_sharing, 2, 0, 1) == 0, "false01=%g",
		    cell(r->false_sharing, 2, 0, 1));
	TEST_ASSERT(r->total_true == P1 && r->total_false == 0 &&
		    r->total_all == P1, "totals %g %g", r->total_true,
		    r->total_false);
	/* the same communication as a pair, both directions summed */
	TEST_ASSERT(r->npairs == 1 && r->pairs[0].a == 0 && r->pairs[0].b == 1 &&
		    r->pairs[0].vt == P1 && r->pairs[0].vf == 0, "pairs %d: %u-%u %g %g",
		    r->npairs, r->npairs ? r->pairs[0].a : 0, r->npairs ? r->pairs[0].b : 0,
		    r->npairs ? r->pairs[0].vt : 0, r->npairs ? r->pairs[0].vf : 0);
	lp_actions__exit(&acts);
	comdetect__delete(cd);
	return TEST_OK;
}

LP_TEST(test_comdetect_period_override,
	"comdetect: a configured period replaces the samples' in hits and traps")
{
	struct comdetect_config cfg;
	struct lp_actions acts = { 0 };
	const struct comdetect_result *r;
	struct lp_analysis *an;
	struct comdetect *cd;
	struct lp_action a;

	comdetect__config_init(&cfg);
	cfg.lanes = 1;	/* exact: no random lane */
	cfg.count_apart = 1;	/* hand-made times: no rate */
	cfg.period = 5;
	cd = comdetect__new(&cfg);
	TEST_ASSERT(cd, "new");
	FEED(ev_start(10, 0, 0));
	FEED(ev_start(11, 1, 1));
	FEED(ev_start(12, 2, 1));
	FEED(ev_sample(10, 0, LP_ACCESS_STORE, 0x1000, 8, P0));
	FEED(ev_sample(11, 1, LP_ACCESS_STORE, 0x1000, 8, P1));	/* hit: 5 */
	FEED(ev_sample(12, 1, LP_ACCESS_LOAD, 0x8000, 8, P1));	/* arms */
	TEST_ASSERT(acts.n == 4, "armed %d", acts.n);
	a = acts.v[0];
	FEED(ev_trap(12, 1, a.slot, a.cookie, a.addr));	/* 5 * 64/32 */
	an = comdetect__analysis(cd);
	TEST_ASSERT(!strcmp(an->name, "comdetect") && an->finish(an) == 0,
		    "analysis wrapper");
	r = comdetect__result(cd);
	TEST_ASSERT(cell(r->all, 3, 0, 1) == 5, "hit %g", cell(r->all, 3, 0, 1));
	/* 11's store replaced 10's entry: the trap is 11's store reaching 12 */
	TEST_ASSERT(cell(r->all, 3, 1, 2) == 10, "trap %g",
		    cell(r->all, 3, 1, 2));
	lp_actions__exit(&acts);
	comdetect__delete(cd);
	return TEST_OK;
}

LP_TEST(test_comdetect_false_sharing_pair,
	"comdetect: stores to different words of a line are false sharing; the line keeps both touches")
{
	struct comdetect *cd = new_cd(0, 0, 0);
	struct lp_actions acts = { 0 };
	const struct comdetect_result *r;
	const struct comdetect_line *l;
	int i, seen0 = 0, seen1 = 0;

	TEST_ASSERT(cd, "new");
	FEED(ev_start(10, 0, 0));
	FEED(ev_start(11, 1, 1));
	FEED(ev_sample(10, 0, LP_ACCESS_STORE, 0x2000, 8, P0));
	FEED(ev_sample(11, 1, LP_ACCESS_STORE, 0x2008, 8, P1));
	/* a 4-byte store inside a published 8-byte one is true sharing */
	FEED(ev_sample(10, 0, LP_ACCESS_STORE, 0x3000, 8, P0));
	FEED(ev_sample(11, 1, LP_ACCESS_ATOMIC, 0x3004, 4, P1));
	comdetect__finish(cd);
	r = comdetect__result(cd);
	TEST_ASSERT(r, "result");
	TEST_ASSERT(cell(r->false_sharing, 2, 0, 1) == P1, "false01=%g",
		    cell(r->false_sharing, 2, 0, 1));
	TEST_ASSERT(cell(r->true_sharing, 2, 1, 0) == P1, "true10=%g",
		    cell(r->true_sharing, 2, 1, 0));
	TEST_ASSERT(r->nlines == 2, "nlines=%d", r->nlines);
	for (l = NULL, i = 0; i < r->nlines; i++)
		if (r->lines[i].line == 0x2000)
			l = &r->lines[i];
	TEST_ASSERT(l, "line 0x2000 missing");
	TEST_ASSERT(l->vol_false == P1 && l->vol_true == 0, "vol %g %g",
		    l->vol_false, l->vol_true);
	for (i = 0; i < l->ntouches; i++) {
		const struct comdetect_touch *t = &l->touches[i];

		if (t->thread == 0 && t->off == 0 && t->len == 8 &&
		    t->kind == LP_ACCESS_STORE && t->count == 1)
			seen0++;
		if (t->thread == 1 && t->off == 8 && t->len == 8 &&
		    t->kind == LP_ACCESS_STORE && t->count == 1)
			seen1++;
	}
	TEST_ASSERT(l->ntouches == 2 && seen0 == 1 && seen1 == 1,
		    "touches n=%d %d %d", l->ntouches, seen0, seen1);
	TEST_ASSERT(l->nips == 2, "nips=%d", l->nips);
	for (i = 0; i < 2; i++)
		TEST_ASSERT(l->ips[i].ip == 0x400000 + (l->line & 0xfff) +
			    (l->ips[i].thread ? 8 : 0) +
			    (10 + l->ips[i].thread) * 0x10000,
			    "ip %llx", (unsigned long long)l->ips[i].ip);
	lp_actions__exit(&acts);
	comdetect__delete(cd);
	return TEST_OK;
}

LP_TEST(test_comdetect_line_points_reservoir,
	"comdetect: a tracked line keeps a uniform reservoir of its sampled accesses with time, thread, offset")
{
	struct comdetect *cd = new_cd(0, 0, 0);
	struct lp_actions acts = { 0 };
	const struct comdetect_result *r;
	const struct comdetect_line *l;
	u64 tmax = 0, tmin = ~0ull;
	struct lp_event ev;
	int i, bad = 0;

	TEST_ASSERT(cd, "new");
	FEED(ev_start(10, 0, 0));
	FEED(ev_start(11, 1, 1));
	for (i = 0; i < 300; i++) {	/* the threads alternate, each on its own word */
		ev = ev_sample(10 + (i & 1), i & 1, LP_ACCESS_ATOMIC, 0x2000 + 8 * (i & 1), 8, P0);
		ev.sample.time = 1000 + i;
		FEED(ev);
	}
	comdetect__finish(cd);
	r = comdetect__result(cd);
	TEST_ASSERT(r && r->nlines == 1, "lines");
	l = &r->lines[0];
	/* the line exists from the second sample on: 299 offered, the first publisher's is not */
	TEST_ASSERT(l->points_seen == 299 && l->npoints == COMDETECT_LINE_POINTS,
		    "seen %llu kept %d", (unsigned long long)l->points_seen, l->npoints);
	for (i = 0; i < l->npoints; i++) {
		const struct comdetect_point *p = &l->points[i];

		bad += p->off != 8 * p->thread || p->len != 8 || p->kind != LP_ACCESS_ATOMIC ||
		       p->time < 1001 || p->time >= 1300 || (p->time - 1000) % 2 != p->thread;
		tmin = p->time < tmin ? p->time : tmin;
		tmax = p->time > tmax ? p->time : tmax;
	}
	TEST_ASSERT(!bad, "%d points do not match their sample", bad);
	/* replaced along the way: not only the first 64 accesses */
	TEST_ASSERT(tmax >= 1000 + 200 && tmin < 1000 + 100, "times %llu-%llu",
		    (unsigned long long)tmin, (unsigned long long)tmax);
	lp_actions__exit(&acts);
	comdetect__delete(cd);
	return TEST_OK;
}

LP_TEST(test_comdetect_loads_only_no_communication,
	"comdetect: two loads of a line are no communication; a load after a store is one")
{
	struct comdetect *cd = new_cd(0, 0, 0);
	struct lp_actions acts = { 0 };
	const struct comdetect_result *r;

	TEST_ASSERT(cd, "new");
	FEED(ev_start(10, 0, 0));
	FEED(ev_start(11, 1, 1));
	FEED(ev_sample(10, 0, LP_ACCESS_LOAD, 0x4000, 8, P0));
	FEED(ev_sample(11, 1, LP_ACCESS_LOAD, 0x4000, 8, P1));
	r = comdetect__result(cd);
	TEST_ASSERT(r && r->detections == 0 && r->total_all == 0,
		    "det=%llu", (unsigned long long)r->detections);
	TEST_ASSERT(r->stats.publishes == 0, "loads published");
	/* read-after-write is detected by the reader's lookup */
	FEED(ev_sample(10, 0, LP_ACCESS_STORE, 0x5000, 8, P0));
	FEED(ev_sample(11, 1, LP_ACCESS_LOAD, 0x5000, 8, P1));
	r = comdetect__result(cd);
	TEST_ASSERT(r->detections == 1 && r->total_true == P1, "det=%llu",
		    (unsigned long long)r->detections);
	lp_actions__exit(&acts);
	comdetect__delete(cd);
	return TEST_OK;
}

/* A miss arms D registers of the sampler on a published line; a trap counts. */
static int arm_and_trap(struct lp_test_ctx *ctx, int max_dr)
{
	struct comdetect *cd = new_cd(0, 4, max_dr);
	struct lp_actions acts = { 0 };
	const struct comdetect_result *r;
	const u64 line = 0x7000, pub = 0x7010;
	int i, j, D = max_dr < 4 ? max_dr : 4;
	struct lp_action arm[8];
	double expect;
	int narm = 0, tr;

	TEST_ASSERT(cd, "new");
	FEED(ev_start(10, 0, 0));
	FEED(ev_start(11, 1, 1));
	FEED(ev_sample(10, 0, LP_ACCESS_STORE, pub, 4, P0));
	TEST_ASSERT(acts.n == 0, "publisher armed on its own line");
	FEED(ev_sample(11, 1, LP_ACCESS_LOAD, 0x9000, 8, P1));
	for (i = 0; i < acts.n; i++) {
		const struct lp_action *a = &acts.v[i];

		TEST_ASSERT(a->op == LP_ACT_ARM, "op %d", a->op);
		TEST_ASSERT(a->tid == 11, "armed on tid %u, not the sampler",
			    a->tid);
		TEST_ASSERT(a->addr % 8 == 0 && a->len == 8, "addr %llx len %d",
			    (unsigned long long)a->addr, a->len);
		TEST_ASSERT(a->addr >= line && a->addr + 8 <= line + 64,
			    "addr %llx off the line", (unsigned long long)a->addr);
		TEST_ASSERT(a->mode == LP_WP_RW, "mode %d", a->mode);
		TEST_ASSERT(a->slot < 4, "slot %d", a->slot);
		for (j = 0; j < narm; j++)
			TEST_ASSERT(arm[j].addr != a->addr &&
				    arm[j].slot != a->slot &&
				    arm[j].cookie != a->cookie, "duplicate chunk/slot");
		arm[narm++] = *a;
	}
	TEST_ASSERT(narm == D, "armed %d, want %d", narm, D);

	/* trap on the first watched chunk, by the thread that armed it */
	FEED(ev_trap(11, 1, arm[0].slot, arm[0].cookie, arm[0].addr));
	TEST_ASSERT(count_op(&acts, LP_ACT_DISARM) == D,
		    "disarmed %d after trap", count_op(&acts, LP_ACT_DISARM));
	for (i = 0; i < acts.n; i++)
		TEST_ASSERT(acts.v[i].tid == 11, "disarm tid %u", acts.v[i].tid);
	/* the same watchpoint cannot count twice */
	FEED(ev_trap(11, 1, arm[0].slot, arm[0].cookie, arm[0].addr));

	r = comdetect__result(cd);
	TEST_ASSERT(r, "result");
	expect = (double)P1 * 64 / (D * 8);	/* period x L / (D x M) */
	tr = arm[0].addr <= pub && pub < arm[0].addr + 8;
	TEST_ASSERT(r->stats.trap_hits == 1 && r->stats.traps_stale == 1,
		    "trap_hits=%llu stale=%llu",
		    (unsigned long long)r->stats.trap_hits,
		    (unsigned long long)r->stats.traps_stale);
	TEST_ASSERT(cell(r->all, 2, 0, 1) == expect &&
		    cell(r->all, 2, 1, 0) == expect, "vol %g want %g",
		    cell(r->all, 2, 0, 1), expect);
	TEST_ASSERT(cell(tr ? r->true_sharing : r->false_sharing, 2, 0, 1) ==
		    expect, "true/false split wrong (chunk %llx)",
		    (unsigned long long)arm[0].addr);
	lp_actions__exit(&acts);
	comdetect__delete(cd);
	return TEST_OK;
}

LP_TEST(test_comdetect_miss_arms_then_trap_scales,
	"comdetect: a miss arms 4 chunks on the sampler; a trap adds period*L/(D*M)")
{
	return arm_and_trap(ctx, 4);
}

LP_TEST(test_comdetect_trap_scale_follows_armed_count,
	"comdetect: with D capped at 3 (and 1) the trap volume scales by 64/(D*8)")
{
	int ret = arm_and_trap(ctx, 3);

	return ret == TEST_OK ? arm_and_trap(ctx, 1) : ret;
}

LP_TEST(test_comdetect_trap_true_sharing_on_published_chunk,
	"comdetect: a trap on the chunk holding the published bytes is true sharing, elsewhere false")
{
	struct comdetect_config cfg;
	int seed, got_true = 0, got_false = 0;

	comdetect__config_init(&cfg);
	cfg.lanes = 1;	/* exact: no random lane */
	cfg.count_apart = 1;	/* hand-made times: no rate */
	for (seed = 1; seed <= 16 && !(got_true && got_false); seed++) {
		struct lp_actions acts = { 0 };
		const struct comdetect_result *r;
		struct lp_action a;
		struct comdetect *cd;
		int i, found;

		cfg.seed = seed;
		cd = comdetect__new(&cfg);
		TEST_ASSERT(cd, "new");
		FEED(ev_start(10, 0, 0));
		FEED(ev_start(11, 1, 1));
		FEED(ev_sample(10, 0, LP_ACCESS_STORE, 0x7018, 8, P0));
		FEED(ev_sample(11, 1, LP_ACCESS_LOAD, 0x9000, 8, P1));
		for (i = 0; i < acts.n && acts.v[i].addr != 0x7018; i++)
			;
		found = i < acts.n;
		a = acts.v[found ? i : 0];
		FEED(ev_trap(11, 1, a.slot, a.cookie, a.addr));
		r = comdetect__result(cd);
		if (found) {
			TEST_ASSERT(r->total_true == 2.0 * P1 &&
				    r->total_false == 0, "true %g false %g",
				    r->total_true, r->total_false);
			got_true = 1;
		} else {
			TEST_ASSERT(r->total_false == 2.0 * P1 &&
				    r->total_true == 0, "true %g false %g",
				    r->total_true, r->total_false);
			got_false = 1;
		}
		lp_actions__exit(&acts);
		comdetect__delete(cd);
	}
	TEST_ASSERT(got_true && got_false, "seeds never covered both cases");
	return TEST_OK;
}

/*
 * Publisher 10 stores 0x1000, then @later elsewhere; 11 samples 0x1000
 * @looks times (after a sample elsewhere if @looker_sampled_between):
 * how many hits?
 */
static int hits_after(struct lp_test_ctx *ctx, const u8 *later, int n,
		      int looker_sampled_between, int looks)
{
	struct comdetect *cd = new_cd(0, 0, 0);
	struct lp_actions acts = { 0 };
	const struct comdetect_result *r;
	int i, hit;

	TEST_ASSERT(cd, "new");
	FEED(ev_start(10, 0, 0));
	FEED(ev_start(11, 1, 1));
	FEED(ev_sample(10, 0, LP_ACCESS_STORE, 0x1000, 8, P0));
	if (looker_sampled_between)
		FEED(ev_sample(11, 1, LP_ACCESS_LOAD, 0x9000, 8, P1));
	for (i = 0; i < n; i++)
		FEED(ev_sample(10, 0, later[i], 0x20000 + i * 64, 8, P0));
	for (i = 0; i < looks; i++)
		FEED(ev_sample(11, 1, LP_ACCESS_LOAD, 0x1000, 8, P1));
	r = comdetect__result(cd);
	TEST_ASSERT(r, "result");
	hit = (int)r->stats.hits;
	lp_actions__exit(&acts);
	comdetect__delete(cd);
	return hit;
}

LP_TEST(test_comdetect_entry_counts_once_per_looker,
	"comdetect: a line's latest store counts once for each other thread that samples the line after it, whatever else either did")
{
	static const u8 st2[] = { LP_ACCESS_STORE, LP_ACCESS_STORE };
	static const u8 ld3[] = { LP_ACCESS_LOAD, LP_ACCESS_LOAD, LP_ACCESS_LOAD };
	int h;

	h = hits_after(ctx, NULL, 0, 0, 1);
	TEST_ASSERT(h == 1, "fresh entry missed (%d)", h);
	/* the publisher's stores elsewhere do not retire its store to this line */
	h = hits_after(ctx, st2, 2, 0, 1);
	TEST_ASSERT(h == 1, "entry gone after the publisher stored elsewhere (%d)", h);
	h = hits_after(ctx, ld3, 3, 0, 1);
	TEST_ASSERT(h == 1, "loads elsewhere retired the entry (%d)", h);
	/* nor do the looker's samples elsewhere */
	h = hits_after(ctx, NULL, 0, 1, 1);
	TEST_ASSERT(h == 1, "a sample elsewhere hid the entry (%d)", h);
	/* the looker's later samples of the line find its copy valid: once */
	h = hits_after(ctx, NULL, 0, 0, 3);
	TEST_ASSERT(h == 1, "one store counted %d times by one reader", h);
	return TEST_OK;
}

LP_TEST(test_comdetect_latest_store_wins,
	"comdetect: every sampled store replaces its line's entry; the others count it again")
{
	struct comdetect *cd = new_cd(0, 0, 0);
	struct lp_actions acts = { 0 };
	const struct comdetect_result *r;

	TEST_ASSERT(cd, "new");
	FEED(ev_start(10, 0, 0));
	FEED(ev_start(11, 1, 1));
	FEED(ev_start(12, 2, 0));
	FEED(ev_sample(10, 0, LP_ACCESS_STORE, 0x1000, 8, P0));
	FEED(ev_sample(11, 1, LP_ACCESS_STORE, 0x1008, 8, P1));	/* hit 0-1, replaces */
	FEED(ev_sample(10, 0, LP_ACCESS_STORE, 0x1000, 8, P0));	/* hit 1-0, replaces */
	FEED(ev_sample(12, 0, LP_ACCESS_LOAD, 0x1010, 8, P0));	/* hit 0-2 */
	FEED(ev_sample(12, 0, LP_ACCESS_LOAD, 0x1010, 8, P0));	/* its copy is valid */
	r = comdetect__result(cd);
	TEST_ASSERT(r && r->stats.hits == 3, "hits %llu", r ? (unsigned long long)r->stats.hits : 0ull);
	TEST_ASSERT(cell(r->all, 3, 0, 1) == P1 + P0, "pair 0-1 %g", cell(r->all, 3, 0, 1));
	TEST_ASSERT(cell(r->all, 3, 0, 2) == P0 && cell(r->all, 3, 1, 2) == 0,
		    "the reader counted the latest store's thread: 0-2 %g, 1-2 %g",
		    cell(r->all, 3, 0, 2), cell(r->all, 3, 1, 2));
	lp_actions__exit(&acts);
	comdetect__delete(cd);
	return TEST_OK;
}

LP_TEST(test_comdetect_matrices_symmetric,
	"comdetect: matrices are M + M^T, diagonal zero, totals = sum over i<j")
{
	struct comdetect *cd = new_cd(0, 0, 0);
	struct lp_actions acts = { 0 };
	const struct comdetect_result *r;
	double sum = 0;
	int i, j, n;

	TEST_ASSERT(cd, "new");
	FEED(ev_start(10, 0, 0));
	FEED(ev_start(11, 1, 1));
	FEED(ev_start(12, 2, 0));
	FEED(ev_sample(10, 0, LP_ACCESS_STORE, 0xa000, 8, 100));
	FEED(ev_sample(11, 1, LP_ACCESS_STORE, 0xa000, 8, 300)); /* raw[0][1] */
	FEED(ev_sample(11, 1, LP_ACCESS_STORE, 0xb000, 8, 300));
	FEED(ev_sample(10, 0, LP_ACCESS_STORE, 0xb000, 8, 50));  /* raw[1][0] */
	FEED(ev_sample(10, 0, LP_ACCESS_STORE, 0xc000, 8, 100));
	FEED(ev_sample(12, 0, LP_ACCESS_STORE, 0xc008, 8, 20));  /* raw[0][2] */
	comdetect__finish(cd);
	r = comdetect__result(cd);
	TEST_ASSERT(r && r->nthreads == 3, "n");
	n = r->nthreads;
	TEST_ASSERT(cell(r->all, n, 0, 1) == 350 && cell(r->all, n, 1, 0) == 350,
		    "all01=%g all10=%g", cell(r->all, n, 0, 1),
		    cell(r->all, n, 1, 0));
	TEST_ASSERT(cell(r->false_sharing, n, 0, 2) == 20 &&
		    cell(r->false_sharing, n, 2, 0) == 20, "f02=%g",
		    cell(r->false_sharing, n, 0, 2));
	TEST_ASSERT(cell(r->all, n, 1, 2) == 0, "all12=%g", cell(r->all, n, 1, 2));
	for (i = 0; i < n; i++) {
		TEST_ASSERT(cell(r->all, n, i, i) == 0, "diag %d", i);
		for (j = 0; j < n; j++) {
			TEST_ASSERT(cell(r->all, n, i, j) == cell(r->all, n, j, i) &&
				    cell(r->true_sharing, n, i, j) ==
				    cell(r->true_sharing, n, j, i) &&
				    cell(r->false_sharing, n, i, j) ==
				    cell(r->false_sharing, n, j, i),
				    "asymmetric at %d,%d", i, j);
			if (i < j)
				sum += cell(r->all, n, i, j);
		}
	}
	TEST_ASSERT(r->total_all == 370 && sum == r->total_all,
		    "total %g sum %g", r->total_all, sum);
	TEST_ASSERT(r->total_true == 350 && r->total_false == 20, "split");
	TEST_ASSERT(r->detections == 3, "det=%llu",
		    (unsigned long long)r->detections);
	lp_actions__exit(&acts);
	comdetect__delete(cd);
	return TEST_OK;
}

LP_TEST(test_comdetect_core_matrix_from_sample_cpu,
	"comdetect: core matrix indexed by the samples' CPUs; same-CPU pairs stay off it")
{
	struct comdetect *cd = new_cd(0, 0, 0);
	struct lp_actions acts = { 0 };
	const struct comdetect_result *r;
	int c;

	TEST_ASSERT(cd, "new");
	FEED(ev_start(10, 0, 0));
	FEED(ev_start(11, 1, 0));
	FEED(ev_sample(10, 3, LP_ACCESS_STORE, 0x1000, 8, P0));
	FEED(ev_sample(11, 1, LP_ACCESS_STORE, 0x1000, 8, P1));
	FEED(ev_sample(10, 2, LP_ACCESS_STORE, 0x2000, 8, P0));
	FEED(ev_sample(11, 2, LP_ACCESS_STORE, 0x2000, 8, 77));
	r = comdetect__result(cd);
	TEST_ASSERT(r && r->ncpus == 4, "ncpus=%d", r->ncpus);
	c = r->ncpus;
	TEST_ASSERT(cell(r->core_all, c, 1, 3) == P1 &&
		    cell(r->core_all, c, 3, 1) == P1 &&
		    cell(r->core_true, c, 3, 1) == P1, "core13=%g",
		    cell(r->core_all, c, 1, 3));
	TEST_ASSERT(cell(r->core_all, c, 2, 2) == 0 && r->same_cpu_volume == 77,
		    "same cpu %g", r->same_cpu_volume);
	TEST_ASSERT(r->total_all == P1 + 77, "thread total %g", r->total_all);
	FEED(ev_start(12, 2, 7));	/* a thread start's CPU sizes it too */
	r = comdetect__result(cd);
	TEST_ASSERT(r->ncpus == 8, "ncpus=%d", r->ncpus);
	lp_actions__exit(&acts);
	comdetect__delete(cd);
	return TEST_OK;
}

LP_TEST(test_comdetect_thread_exit_forgets_slots,
	"comdetect: a trap for a watchpoint of an exited thread is ignored")
{
	struct comdetect *cd = new_cd(0, 0, 0);
	struct lp_actions acts = { 0 };
	const struct comdetect_result *r;
	struct lp_action a;

	TEST_ASSERT(cd, "new");
	FEED(ev_start(10, 0, 0));
	FEED(ev_start(11, 1, 1));
	FEED(ev_sample(10, 0, LP_ACCESS_STORE, 0x1000, 8, P0));
	FEED(ev_sample(11, 1, LP_ACCESS_LOAD, 0x9000, 8, P1));
	TEST_ASSERT(acts.n == 4, "armed %d", acts.n);
	a = acts.v[0];
	FEED(ev_exit(11));
	TEST_ASSERT(acts.n == 0, "actions for a dead thread");
	FEED(ev_trap(11, 1, a.slot, a.cookie, a.addr));
	FEED(ev_trap(99, 1, 0, 1, 0x1000));		/* unknown thread */
	FEED(ev_trap(10, 0, 200, a.cookie, a.addr));	/* no such slot */
	r = comdetect__result(cd);
	TEST_ASSERT(r->detections == 0 && r->total_all == 0, "counted %g",
		    r->total_all);
	TEST_ASSERT(r->stats.traps == 3 && r->stats.traps_stale == 3,
		    "traps %llu stale %llu", (unsigned long long)r->stats.traps,
		    (unsigned long long)r->stats.traps_stale);
	lp_actions__exit(&acts);
	comdetect__delete(cd);
	return TEST_OK;
}

LP_TEST(test_comdetect_board_capacity,
	"comdetect: a full board drops fresh publishes and evicts its oldest expired entry")
{
	struct lp_actions acts = { 0 };
	const struct comdetect_result *r;
	struct comdetect *cd;
	int board, u;

	/* three publishers; a 2-entry board cannot keep the third line */
	for (board = 2; board <= 127; board += 125) {
		cd = new_cd(board, 0, 0);
		TEST_ASSERT(cd, "new");
		for (u = 0; u < 4; u++)
			FEED(ev_start(10 + u, u, u));
		FEED(ev_sample(10, 0, LP_ACCESS_STORE, 0x1000, 8, P0));
		FEED(ev_sample(11, 1, LP_ACCESS_STORE, 0x2000, 8, P0));
		FEED(ev_sample(12, 2, LP_ACCESS_STORE, 0x3000, 8, P0));
		FEED(ev_sample(13, 3, LP_ACCESS_STORE, 0x3000, 8, P1));
		r = comdetect__result(cd);
		if (board == 2)
			TEST_ASSERT(r->detections == 0 &&
				    r->stats.board_drops == 2, "b=2 det %llu drops %llu",
				    (unsigned long long)r->detections,
				    (unsigned long long)r->stats.board_drops);
		else
			TEST_ASSERT(r->detections == 1 &&
				    r->stats.board_drops == 0, "b=127 det %llu",
				    (unsigned long long)r->detections);
		comdetect__delete(cd);
	}

	/* one publisher: its oldest line expires and makes room */
	cd = new_cd(2, 0, 0);
	TEST_ASSERT(cd, "new");
	FEED(ev_start(10, 0, 0));
	FEED(ev_start(11, 1, 1));
	FEED(ev_start(12, 2, 2));
	FEED(ev_sample(10, 0, LP_ACCESS_STORE, 0x1000, 8, P0));
	FEED(ev_sample(10, 0, LP_ACCESS_STORE, 0x2000, 8, P0));
	FEED(ev_sample(10, 0, LP_ACCESS_STORE, 0x3000, 8, P0));
	FEED(ev_sample(11, 1, LP_ACCESS_LOAD, 0x3000, 8, P1));
	FEED(ev_sample(12, 2, LP_ACCESS_LOAD, 0x2000, 8, P1));
	FEED(ev_sample(12, 2, LP_ACCESS_LOAD, 0x1000, 8, P1));
	r = comdetect__result(cd);
	TEST_ASSERT(r->stats.board_evictions == 1, "evictions %llu",
		    (unsigned long long)r->stats.board_evictions);
	TEST_ASSERT(r->stats.hits == 2, "hits %llu (0x3000 and 0x2000 expected)",
		    (unsigned long long)r->stats.hits);
	TEST_ASSERT(r->nlines == 2 && r->lines[0].line != 0x1000 &&
		    r->lines[1].line != 0x1000, "evicted line matched");
	lp_actions__exit(&acts);
	comdetect__delete(cd);
	return TEST_OK;
}

LP_TEST(test_comdetect_ignores_addressless_samples,
	"comdetect: samples without address or kind are counted and ignored")
{
	struct comdetect *cd = new_cd(0, 0, 0);
	struct lp_actions acts = { 0 };
	const struct comdetect_result *r;
	struct lp_event ev;

	TEST_ASSERT(cd, "new");
	FEED(ev_start(10, 0, 0));
	FEED(ev_start(11, 1, 1));
	ev = ev_sample(10, 0, LP_ACCESS_STORE, 0x1000, 8, P0);
	ev.sample.noaddr = LP_NOADDR_DECODE_FAILED;
	FEED(ev);
	ev = ev_sample(10, 0, LP_ACCESS_NONE, 0x1000, 8, P0);
	FEED(ev);
	FEED(ev_sample(77, 0, LP_ACCESS_STORE, 0x1000, 8, P0)); /* no start */
	FEED(ev_sample(11, 1, LP_ACCESS_STORE, 0x1000, 8, P1));
	r = comdetect__result(cd);
	TEST_ASSERT(r->stats.samples == 4 && r->stats.samples_noaddr == 2 &&
		    r->stats.samples_unknown == 1 && r->stats.samples_used == 1,
		    "stats %llu %llu %llu", (unsigned long long)r->stats.samples,
		    (unsigned long long)r->stats.samples_noaddr,
		    (unsigned long long)r->stats.samples_unknown);
	TEST_ASSERT(r->detections == 0 && r->stats.publishes == 1, "published");
	lp_actions__exit(&acts);
	comdetect__delete(cd);
	return TEST_OK;
}

LP_TEST(test_comdetect_top_lines_bounded,
	"comdetect: per-line records are bounded and top lines come by volume")
{
	struct comdetect_config cfg;
	struct lp_actions acts = { 0 };
	const struct comdetect_line *top;
	struct comdetect *cd;
	int n;

	comdetect__config_init(&cfg);
	cfg.lanes = 1;	/* exact: no random lane */
	cfg.count_apart = 1;	/* hand-made times: no rate */
	cfg.max_lines = 2;
	cd = comdetect__new(&cfg);
	TEST_ASSERT(cd, "new");
	FEED(ev_start(10, 0, 0));
	FEED(ev_start(11, 1, 1));
	/* line volumes: 0x1000 = 300, 0x2000 = 500, 0x3000 = 100 */
	FEED(ev_sample(10, 0, LP_ACCESS_STORE, 0x1000, 8, 1));
	FEED(ev_sample(11, 1, LP_ACCESS_STORE, 0x1000, 8, 300));
	FEED(ev_sample(10, 0, LP_ACCESS_STORE, 0x2000, 8, 1));
	FEED(ev_sample(11, 1, LP_ACCESS_STORE, 0x2000, 8, 500));
	FEED(ev_sample(10, 0, LP_ACCESS_STORE, 0x3000, 8, 1));
	FEED(ev_sample(11, 1, LP_ACCESS_STORE, 0x3000, 8, 100));
	n = comdetect__result(cd)->nlines;
	top = comdetect__result(cd)->lines;
	TEST_ASSERT(n == 2, "n=%d", n);
	TEST_ASSERT(top[0].line == 0x2000 && top[0].vol_true == 500 &&
		    top[1].line == 0x3000, "order %llx %llx",
		    (unsigned long long)top[0].line,
		    (unsigned long long)top[1].line);
	TEST_ASSERT(comdetect__result(cd)->stats.line_evictions == 1, "evict");
	lp_actions__exit(&acts);
	comdetect__delete(cd);
	return TEST_OK;
}

LP_TEST(test_comdetect_seeded_reproducible,
	"comdetect: the same seed arms the same chunks; config errors are rejected")
{
	struct comdetect_config cfg;
	u64 first[2][4];
	int run, i;

	comdetect__config_init(&cfg);
	cfg.lanes = 1;	/* exact: no random lane */
	cfg.count_apart = 1;	/* hand-made times: no rate */
	for (run = 0; run < 2; run++) {
		struct lp_actions acts = { 0 };
		struct comdetect *cd;

		cfg.seed = 42;
		cd = comdetect__new(&cfg);
		TEST_ASSERT(cd, "new");
		FEED(ev_start(10, 0, 0));
		FEED(ev_start(11, 1, 1));
		FEED(ev_sample(10, 0, LP_ACCESS_STORE, 0x1000, 8, P0));
		FEED(ev_sample(11, 1, LP_ACCESS_LOAD, 0x9000, 8, P1));
		TEST_ASSERT(acts.n == 4, "armed %d", acts.n);
		for (i = 0; i < 4; i++)
			first[run][i] = acts.v[i].addr;
		lp_actions__exit(&acts);
		comdetect__delete(cd);
	}
	TEST_ASSERT(!memcmp(first[0], first[1], sizeof(first[0])), "differs");
	cfg.nslots = COMDETECT_MAX_SLOTS + 1;
	TEST_ASSERT(!comdetect__new(&cfg), "accepted nslots");
	cfg.nslots = 4;
	cfg.line_size = 48;
	TEST_ASSERT(!comdetect__new(&cfg), "accepted line 48");
	return TEST_OK;
}

/*
 * Property: threads {0,1} only touch lines A, threads {2,3} only lines B.
 * The hardware is simulated: armed watchpoints trap on any access by their
 * thread to their chunk, one access in three is sampled.
 */
LP_TEST(test_comdetect_property_disjoint_pairs,
	"comdetect: random stream where pairs (0,1),(2,3) share disjoint lines never links 0 and 2")
{
	struct comdetect_config cfg;
	struct lp_actions acts = { 0 };
	const struct comdetect_result *r;
	struct { u64 addr, cookie; int armed; } wp[4][4];
	u64 x = 12345;
	struct comdetect *cd;
	int step, t, i, j, n;

	comdetect__config_init(&cfg);
	cfg.lanes = 1;	/* exact: no random lane */
	cfg.count_apart = 1;	/* hand-made times: no rate */
	cfg.seed = 7;
	cd = comdetect__new(&cfg);
	TEST_ASSERT(cd, "new");
	memset(wp, 0, sizeof(wp));
	for (t = 0; t < 4; t++)
		FEED(ev_start(200 + t, t, t % 2));
	for (step = 0; step < 40000; step++) {
		u64 addr;
		u8 kind;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		t = x % 4;
		addr = (t < 2 ? 0x10000 : 0x20000) + ((x >> 8) % 4) * 64 +
		       ((x >> 16) % 8) * 8;
		kind = (x >> 24) % 2 ? LP_ACCESS_STORE : LP_ACCESS_LOAD;
		for (i = 0; i < 4; i++) {
			if (!wp[t][i].armed || wp[t][i].addr != addr)
				continue;
			FEED(ev_trap(200 + t, t % 2, i, wp[t][i].cookie, addr));
			goto apply;
		}
		if ((x >> 32) % 3)
			continue;
		FEED(ev_sample(200 + t, t % 2, kind, addr, 8, 100));
apply:
		for (i = 0; i < acts.n; i++) {
			const struct lp_action *a = &acts.v[i];
			int o = a->tid - 200;

			TEST_ASSERT(o == t, "action on tid %u while %d ran",
				    a->tid, 200 + t);
			TEST_ASSERT(a->slot < 4, "slot");
			wp[o][a->slot].armed = a->op == LP_ACT_ARM;
			wp[o][a->slot].addr = a->addr;
			wp[o][a->slot].cookie = a->cookie;
		}
	}
	comdetect__finish(cd);
	r = comdetect__result(cd);
	TEST_ASSERT(r && r->nthreads == 4, "n");
	n = 4;
	for (i = 0; i < 2; i++)
		for (j = 2; j < 4; j++)
			TEST_ASSERT(cell(r->all, n, i, j) == 0 &&
				    cell(r->all, n, j, i) == 0,
				    "communication %d<->%d = %g", i, j,
				    cell(r->all, n, i, j));
	TEST_ASSERT(cell(r->all, n, 0, 1) > 0 && cell(r->all, n, 2, 3) > 0,
		    "vacuous: %g %g", cell(r->all, n, 0, 1), cell(r->all, n, 2, 3));
	TEST_ASSERT(r->stats.hits > 0 && r->stats.trap_hits > 0,
		    "hits %llu traps %llu", (unsigned long long)r->stats.hits,
		    (unsigned long long)r->stats.trap_hits);
	for (i = 0; i < r->nlines; i++)
		for (j = 0; j < r->lines[i].ntouches; j++)
			TEST_ASSERT((r->lines[i].line < 0x20000) ==
				    (r->lines[i].touches[j].thread < 2),
				    "thread %u on line %llx",
				    r->lines[i].touches[j].thread,
				    (unsigned long long)r->lines[i].line);
	TEST_LOG("hits %llu trap_hits %llu total %g",
		 (unsigned long long)r->stats.hits,
		 (unsigned long long)r->stats.trap_hits, r->total_all);
	lp_actions__exit(&acts);
	comdetect__delete(cd);
	return TEST_OK;
}

/*
 * Asynchronous path: the registers were moved on (here: disarmed, no recent
 * line left) before the trap was read. The trap still counts once, against
 * the watch it happened under; a second copy and an unknown cookie do not.
 */
LP_TEST(test_comdetect_late_trap_of_previous_watch,
	"comdetect: a trap read after the watch was replaced counts once for the old watch")
{
	struct comdetect *cd = new_cd(0, 4, 4);
	struct lp_actions acts = { 0 };
	const struct comdetect_result *r;
	struct lp_action first;
	double expect = (double)P1 * 64 / (4 * 8);

	TEST_ASSERT(cd, "new");
	FEED(ev_start(10, 0, 0));
	FEED(ev_start(11, 1, 1));
	FEED(ev_sample(10, 0, LP_ACCESS_STORE, 0x7010, 4, P0));
	FEED(ev_sample(11, 1, LP_ACCESS_LOAD, 0x9000, 8, P1));
	TEST_ASSERT(count_op(&acts, LP_ACT_ARM) == 4, "armed %d", count_op(&acts, LP_ACT_ARM));
	first = acts.v[0];
	/* two more samples age the watch; the only entry is no longer recent */
	FEED(ev_sample(11, 1, LP_ACCESS_LOAD, 0x9000, 8, P1));
	FEED(ev_sample(11, 1, LP_ACCESS_LOAD, 0x9000, 8, P1));
	TEST_ASSERT(count_op(&acts, LP_ACT_DISARM) == 4, "disarmed %d",
		    count_op(&acts, LP_ACT_DISARM));

	FEED(ev_trap(11, 1, first.slot, first.cookie, first.addr));
	TEST_ASSERT(acts.n == 0, "a late trap moved registers (%d actions)", acts.n);
	FEED(ev_trap(11, 1, first.slot, first.cookie, first.addr));
	FEED(ev_trap(11, 1, first.slot, first.cookie + (1 << 8), first.addr));
	r = comdetect__result(cd);
	TEST_ASSERT(r, "result");
	TEST_ASSERT(r->stats.trap_hits == 1 && r->stats.traps_late == 1 &&
		    r->stats.traps_stale == 2, "hits %llu late %llu stale %llu",
		    (unsigned long long)r->stats.trap_hits,
		    (unsigned long long)r->stats.traps_late,
		    (unsigned long long)r->stats.traps_stale);
	TEST_ASSERT(cell(r->all, 2, 0, 1) == expect, "vol %g want %g",
		    cell(r->all, 2, 0, 1), expect);
	lp_actions__exit(&acts);
	comdetect__delete(cd);
	return TEST_OK;
}

/* A sample of @tid at time @t (the run-together rule reads sample times). */
static struct lp_event ev_sample_at(u32 tid, u8 kind, u64 addr, u64 t)
{
	struct lp_event ev = ev_sample(tid, tid & 1, kind, addr, 8, P0);

	ev.sample.time = t;
	return ev;
}

LP_TEST(test_comdetect_apart_not_counted,
	"comdetect: a lookup counts only while both threads run at their usual rate; a time slice apart it does not")
{
	struct comdetect_config cfg;
	struct lp_actions acts = { 0 };
	const struct comdetect_result *r;
	struct comdetect *cd;
	u64 t;
	int apart;

	for (apart = 0; apart <= 1; apart++) {
		comdetect__config_init(&cfg);
		cfg.lanes = 1;
		cfg.count_apart = apart;
		cd = comdetect__new(&cfg);
		TEST_ASSERT(cd, "new");
		FEED(ev_start(10, 0, 0));
		FEED(ev_start(11, 1, 1));
		/* together: 10 and 11 store one word in turn, 100 apart each */
		for (t = 0; t < 1000; t += 100) {
			FEED(ev_sample_at(10, LP_ACCESS_STORE, 0x1000, t));
			FEED(ev_sample_at(11, LP_ACCESS_STORE, 0x1000, t + 50));
		}
		r = comdetect__result(cd);
		/* each sample but the first two of each thread (no rate yet) */
		TEST_ASSERT(r->stats.hits == (apart ? 19 : 16) && r->stats.hits_apart == 3,
			    "together: hits %llu, apart %llu", (unsigned long long)r->stats.hits,
			    (unsigned long long)r->stats.hits_apart);
		/* 11 is descheduled after its store at 950; 10 runs alone on
		 * another line, then looks 11's store up 2050 after 11's last
		 * sample (its usual interval: 100) */
		for (t = 1000; t < 3000; t += 100)
			FEED(ev_sample_at(10, LP_ACCESS_LOAD, 0x2000, t));
		FEED(ev_sample_at(10, LP_ACCESS_STORE, 0x1000, 3000));
		/* 11 comes back: 10's store is fresh, but 11's own interval is 2100 */
		FEED(ev_sample_at(11, LP_ACCESS_STORE, 0x1000, 3050));
		r = comdetect__result(cd);
		TEST_ASSERT(r->stats.hits_apart == 5 && r->stats.hits == (apart ? 21 : 16),
			    "count_apart %d: hits %llu, apart %llu", apart,
			    (unsigned long long)r->stats.hits,
			    (unsigned long long)r->stats.hits_apart);
		lp_actions__exit(&acts);
		comdetect__delete(cd);
	}
	return TEST_OK;
}

LP_TEST(test_comdetect_resumed_counts_half,
	"comdetect: a store published before the looker resumed counts half a period; one since, a whole one")
{
	struct comdetect_config cfg;
	struct lp_actions acts = { 0 };
	const struct comdetect_result *r;
	struct comdetect *cd;
	double before;
	u64 t;

	comdetect__config_init(&cfg);
	cfg.lanes = 1;
	cd = comdetect__new(&cfg);
	TEST_ASSERT(cd, "new");
	FEED(ev_start(10, 0, 0));
	FEED(ev_start(11, 1, 1));
	for (t = 0; t < 1000; t += 100) {	/* together, 100 apart each */
		FEED(ev_sample_at(10, LP_ACCESS_STORE, 0x1000, t));
		FEED(ev_sample_at(11, LP_ACCESS_STORE, 0x1000, t + 50));
	}
	/* 10 is off 1000-3000; 11 runs on, stores 0x1000 at 2950 */
	for (t = 1050; t < 2950; t += 100)
		FEED(ev_sample_at(11, LP_ACCESS_STORE, 0x2000, t));
	FEED(ev_sample_at(11, LP_ACCESS_STORE, 0x1000, 2950));
	r = comdetect__result(cd);
	before = r->total_all;
	TEST_ASSERT(r->stats.hits_resumed == 0, "resumed %llu before",
		    (unsigned long long)r->stats.hits_resumed);
	/* 10 resumes at 3000 on another line, then finds 11's 2950 store */
	FEED(ev_sample_at(10, LP_ACCESS_STORE, 0x3000, 3000));
	FEED(ev_sample_at(11, LP_ACCESS_STORE, 0x2000, 3050));
	FEED(ev_sample_at(10, LP_ACCESS_STORE, 0x1000, 3100));
	r = comdetect__result(cd);
	TEST_ASSERT(r->stats.hits_resumed == 1 && r->total_all == before + P0 / 2.0,
		    "resumed %llu, volume %g -> %g", (unsigned long long)r->stats.hits_resumed,
		    before, r->total_all);
	/* 11's store at 3150 is from 10's current turn: a whole period */
	FEED(ev_sample_at(11, LP_ACCESS_STORE, 0x1000, 3150));
	FEED(ev_sample_at(10, LP_ACCESS_STORE, 0x1000, 3200));
	r = comdetect__result(cd);
	TEST_ASSERT(r->stats.hits_resumed == 1 && r->total_all == before + 2.5 * P0,
		    "resumed %llu, volume %g -> %g", (unsigned long long)r->stats.hits_resumed,
		    before, r->total_all);
	lp_actions__exit(&acts);
	comdetect__delete(cd);
	return TEST_OK;
}

LP_TEST(test_comdetect_lanes_split_lookups,
	"comdetect: with L lanes a sample sees only stores published in its own lane")
{
	struct comdetect_config cfg;
	struct lp_actions acts = { 0 };
	const struct comdetect_result *r;
	struct comdetect *cd;
	u64 hits[2], t;
	int k, lanes;

	for (k = 0; k < 2; k++) {
		lanes = k ? 4 : 1;
		comdetect__config_init(&cfg);
		cfg.lanes = lanes;
		cfg.count_apart = 1;
		cd = comdetect__new(&cfg);
		TEST_ASSERT(cd, "new");
		FEED(ev_start(10, 0, 0));
		FEED(ev_start(11, 1, 1));
		for (t = 0; t < 4000; t++)	/* strict turns on one word */
			FEED(ev_sample_at(10 + (t & 1), LP_ACCESS_STORE, 0x1000, t));
		r = comdetect__result(cd);
		hits[k] = r->stats.hits;
		lp_actions__exit(&acts);
		comdetect__delete(cd);
	}
	/* 1 lane: every sample but the first finds the other's store. 4
	 * lanes: the sample finds a store of the other thread iff the latest
	 * store in its lane is the other's: 1/2 in the long run (p = 3/4 of
	 * staying in a lane.. by hand: P(latest in my lane is the other's) =
	 * sum over k odd of (1/4)(3/4)^(k-1) = (1/4)/(1 - 9/16) = 4/7) */
	TEST_ASSERT(hits[0] == 3999, "1 lane: %llu hits", (unsigned long long)hits[0]);
	TEST_ASSERT(hits[1] > 4000 * 4 / 7 - 150 && hits[1] < 4000 * 4 / 7 + 150,
		    "4 lanes: %llu hits, 2286 +- 150 expected", (unsigned long long)hits[1]);
	return TEST_OK;
}
