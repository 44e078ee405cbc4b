// SPDX-License-Identifier: GPL-2.0
/*
 * The reuse estimator on hand-built and simulated runs: reuse times counted
 * along the samples (chains), wraps of array walks, phases, and the
 * conversion of long reuses into distances (Documentation/reuse-estimator.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/reuse-exact.h"
#include "core/reuse.h"
#include "core/tests.h"
#include "test/unit/reuse-helpers.h"

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

/*
 * RIBench's invalidation pattern, small, on the trace facility: two threads
 * take turns (round-robin by j-iteration, as ribench --trace); each stores
 * S elements of one shared array, then loads its own P-element array. A
 * private element's reuse, a j-iteration later, has P - 1 + S distinct
 * addresses between: the rest of its array and the S shared elements the
 * thread stored in the interval, which the other thread invalidates only
 * after it. The window's footprint averages the invalidated uses' ages
 * over every access and took a fraction of those S as gone (mean ~258 of
 * 439 here); the interval's own invalidations say none left in it.
 */
LP_TEST(test_reuse_invalidation_inside_interval, "reuse: lines invalidated only after a reuse's interval count in its distance")
{
	enum { P = 40, S = 400, J = 60 };
	size_t cap = (size_t)J * 2 * (P + S) * 32, len = 0, k;
	char *text = malloc(cap), err[256];
	const struct reuse_result *r;
	struct reuse *ru;
	double sum = 0, wsum = 0;
	int i, t, e, ret;

	TEST_ASSERT(text, "malloc");
	for (i = 0; i < J; i++)
		for (t = 0; t < 2; t++) {
			for (e = 0; e < S; e++)
				len += snprintf(text + len, cap - len, "%d W 0x%x 8\n", t, 0x100000 + 8 * e);
			for (e = 0; e < P; e++)
				len += snprintf(text + len, cap - len, "%d R 0x%x 8\n", t,
						0x200000 + 0x100000 * t + 8 * e);
		}
	ret = trace_reuse_default(text, 7, &ru, err, sizeof(err));
	TEST_ASSERT(ret == 0, "run: %s: %.150s", strerror(-ret), err);
	r = reuse__result(ru);
	TEST_ASSERT(r && r->invalidations > 0, "no invalidation seen");
	for (k = 0; k < r->nuses; k++)
		if (r->uses[k].kind == REUSE_USE_REUSE && r->uses[k].addr >= 0x200000) {
			sum += r->uses[k].w * r->uses[k].stack;
			wsum += r->uses[k].w;
		}
	TEST_ASSERT(wsum > 0, "no private reuse");
	TEST_ASSERT(fabs(sum / wsum - (P - 1 + S)) < 0.05 * (P - 1 + S),
		    "private reuses at mean distance %.1f, exactly %d", sum / wsum, P - 1 + S);
	reuse__delete(ru);
	return TEST_OK;
}
