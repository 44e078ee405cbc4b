// SPDX-License-Identifier: GPL-2.0
/*
 * The trace-driven facility (core/session-trace.c): a trace written here is
 * played through the session, and what a PEBS/IBS machine would deliver is
 * checked access by access: samples every N-th access of a thread, counter
 * readings equal to the thread's accesses so far, watchpoints that trap on
 * exactly the next access that touches them (W: stores only), after it.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/reuse-model.h"
#include "core/reuse.h"
#include "core/session.h"
#include "core/tests.h"
#include "test/unit/reuse-helpers.h"

struct tt_state {
	int nsamples, ntraps, nstarts, nexits, ncounters;
	u64 sample_count[64];	/* counter of the sampled thread at each sample */
	u64 sample_time[64];
	u32 sample_tid[64];
	u64 trap_time[8], trap_count[8];
	u32 trap_tid[8];
	u8 trap_mode[8];
	u64 count[8];		/* latest counter by tid (tids < 8) */
	int armed;
};

static int tt_sink(void *arg, const struct lp_event *ev, struct lp_actions *acts)
{
	struct tt_state *st = arg;
	struct lp_action a;

	switch (ev->type) {
	case LP_EV_THREAD_START:
		st->nstarts++;
		break;
	case LP_EV_THREAD_EXIT:
		st->nexits++;
		break;
	case LP_EV_COUNTER:
		st->ncounters++;
		if (ev->counter.tid < 8)
			st->count[ev->counter.tid] = ev->counter.value;
		break;
	case LP_EV_SAMPLE:
		if (st->nsamples < 64) {
			st->sample_count[st->nsamples] = st->count[ev->sample.tid & 7];
			st->sample_time[st->nsamples] = ev->sample.time;
			st->sample_tid[st->nsamples] = ev->sample.tid;
		}
		st->nsamples++;
		/* the first sample of thread 1 (at 0x1000) arms RW on 1, W on 2 */
		if (st->armed || ev->sample.tid != 1)
			break;
		st->armed = 1;
		memset(&a, 0, sizeof(a));
		a.op = LP_ACT_ARM;
		a.len = 8;
		a.addr = ev->sample.addr;
		a.mode = LP_WP_RW;
		a.tid = 1;
		a.cookie = 11;
		lp_actions__push(acts, &a);
		a.mode = LP_WP_W;
		a.tid = 2;
		a.cookie = 22;
		lp_actions__push(acts, &a);
		break;
	case LP_EV_TRAP:
		if (st->ntraps < 8) {
			st->trap_time[st->ntraps] = ev->trap.time;
			st->trap_tid[st->ntraps] = ev->trap.tid;
			st->trap_mode[st->ntraps] = ev->trap.mode;
			st->trap_count[st->ntraps] = st->count[ev->trap.tid & 7];
		}
		st->ntraps++;
		break;
	default:
		break;
	}
	return 0;
}

static int tt_play(const char *text, u64 period, struct tt_state *st, char *path)
{
	struct lp_session_opts o;
	struct lp_session *s;
	char err[256];
	FILE *f;
	int fd, ret;

	fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	memset(&o, 0, sizeof(o));
	o.sampling.period = period;
	o.nslots = 4;
	memset(st, 0, sizeof(*st));
	ret = session__new_trace(&s, &o, path, err, sizeof(err));
	if (ret)
		return ret;
	session__add_sink(s, tt_sink, st);
	ret = session__run(s);
	session__delete(s);
	unlink(path);
	return ret;
}

LP_TEST(test_trace_facility_watchpoints_exact, "trace facility: watchpoints trap on the exact next access, W on stores only")
{
	/* access #: 1..8; thread 1 samples 0x1000 first (period 1) */
	static const char text[] =
		"# lociprof-trace 1\n"
		"2 R 0x3000 8\n"		/* 1: thread 2 exists (a thread arms once it does) */
		"1 R 0x1000 8\n"		/* 2: sampled, arms */
		"2 R 0x1000 8\n"		/* 3: load by 2: W watch, no trap */
		"1 R 0x1008 8\n"		/* 4: next door: no trap */
		"1 W 0x2000 8\n"		/* 5 */
		"1 R 0x1004 4\n"		/* 6: overlaps: trap (RW), thread 1's 4th access */
		"2 W 0x1002 2\n"		/* 7: store by 2: trap (W), 2's 3rd access */
		"1 R 0x0ff8 8\n";		/* 8: just below: no trap */
	char path[] = "/tmp/lp-trace-XXXXXX";
	struct tt_state st;
	int ret = tt_play(text, 1, &st, path);

	TEST_ASSERT(ret == 0, "play: %s", strerror(-ret));
	TEST_ASSERT(st.nstarts == 2 && st.nexits == 2, "starts %d exits %d", st.nstarts, st.nexits);
	TEST_ASSERT(st.nsamples == 8, "period 1 samples every access: %d", st.nsamples);
	TEST_ASSERT(st.ntraps == 2, "traps %d (times %llu %llu)", st.ntraps,
		    (unsigned long long)st.trap_time[0], (unsigned long long)st.trap_time[1]);
	TEST_ASSERT(st.trap_tid[0] == 1 && st.trap_time[0] == 6 && st.trap_mode[0] == LP_WP_RW &&
		    st.trap_count[0] == 4, "first trap: tid %u at access %llu mode %u count %llu",
		    st.trap_tid[0], (unsigned long long)st.trap_time[0], st.trap_mode[0],
		    (unsigned long long)st.trap_count[0]);
	TEST_ASSERT(st.trap_tid[1] == 2 && st.trap_time[1] == 7 && st.trap_mode[1] == LP_WP_W &&
		    st.trap_count[1] == 3, "second trap: tid %u at access %llu mode %u count %llu",
		    st.trap_tid[1], (unsigned long long)st.trap_time[1], st.trap_mode[1],
		    (unsigned long long)st.trap_count[1]);
	return TEST_OK;
}

LP_TEST(test_trace_facility_period_counters, "trace facility: every N-th access of a thread is sampled, counters read exact")
{
	char *text = malloc(64 * 1024), path[] = "/tmp/lp-trace-XXXXXX";
	struct tt_state st;
	size_t n = 0;
	int i, ret;

	TEST_ASSERT(text, "malloc");
	/* two threads interleaved 2:1 over 300 accesses */
	for (i = 0; i < 300; i++)
		n += snprintf(text + n, 64 * 1024 - n, "%d R 0x%x 8\n", i % 3 ? 3 : 4,
			      0x10000 + 8 * i);
	ret = tt_play(text, 7, &st, path);
	free(text);
	TEST_ASSERT(ret == 0, "play: %s", strerror(-ret));
	/* thread 3 made 200 accesses, thread 4 100: 28 or 29 and 14 or 15 samples */
	TEST_ASSERT(st.nsamples >= 42 && st.nsamples <= 44, "samples %d", st.nsamples);
	for (i = 0; i < st.nsamples && i < 64; i++) {
		int j;

		TEST_ASSERT(st.sample_count[i] >= 1 && st.sample_count[i] <= 200,
			    "sample %d: count %llu", i, (unsigned long long)st.sample_count[i]);
		for (j = i + 1; j < st.nsamples && j < 64; j++)
			if (st.sample_tid[j] == st.sample_tid[i]) {
				TEST_ASSERT(st.sample_count[j] - st.sample_count[i] == 7,
					    "tid %u: samples at its accesses %llu and %llu",
					    st.sample_tid[i], (unsigned long long)st.sample_count[i],
					    (unsigned long long)st.sample_count[j]);
				break;
			}
	}
	return TEST_OK;
}

/*
 * The reuse analysis on the counter path: one thread sweeping 50 addresses
 * 20 times reuses each at exactly 49 accesses in between, whatever sample
 * arms the watch, so every reuse lands in the time bin of 49.
 */
LP_TEST(test_trace_facility_reuse_counted, "trace facility: reuse times come from the counters, exactly")
{
	char *text = malloc(64 * 1024), err[256];
	const struct reuse_result *r;
	struct reuse *ru;
	size_t n = 0;
	int i, ret, k = reuse_hist__bin(49);

	TEST_ASSERT(text, "malloc");
	for (i = 0; i < 1000; i++)
		n += snprintf(text + n, 64 * 1024 - n, "5 %c 0x%x 8\n", i % 4 ? 'R' : 'W',
			      0x8000 + 8 * (i % 50));
	ret = trace_reuse_default(text, 13, &ru, err, sizeof(err));
	TEST_ASSERT(ret == 0, "run: %s: %.150s", strerror(-ret), err);
	r = reuse__result(ru);
	TEST_ASSERT(r && r->reuses > 10, "reuses %llu", r ? (unsigned long long)r->reuses : 0ull);
	TEST_ASSERT(r->time_source == REUSE_TIME_COUNTER && r->rate_source == REUSE_RATE_COUNTER,
		    "time source %d rate source %d", r->time_source, r->rate_source);
	TEST_ASSERT(r->counted_reuses == r->reuses, "%llu of %llu counted",
		    (unsigned long long)r->counted_reuses, (unsigned long long)r->reuses);
	TEST_ASSERT(r->time.bin[k] > 0 && r->time.bin[k] == reuse_hist__total(&r->time, 0),
		    "time bin of 49 holds %g of %g", r->time.bin[k], reuse_hist__total(&r->time, 0));
	reuse__delete(ru);
	return TEST_OK;
}

/*
 * Line granularity on the counter path: @nacc accesses of one thread, the
 * i-th of 8 bytes at 0x10000 + @stride * (i % @n), played with period
 * @period through the reuse analysis; the result is copied to @out.
 */
static int tt_reuse_line_cfg(int nacc, int stride, int n, u64 period, int survival, u64 seed,
			     struct reuse_result *out, struct reuse_hist *time,
			     struct reuse_hist *stack)
{
	size_t cap = (size_t)nacc * 32, len = 0;
	char *text = malloc(cap), path[] = "/tmp/lp-trace-XXXXXX", err[256];
	struct lp_session_opts o;
	struct lp_session *s = NULL;
	const struct reuse_result *r;
	struct reuse_config cfg;
	struct reuse *ru;
	int i, fd, ret = -ENOMEM;
	FILE *f;

	if (!text)
		return -ENOMEM;
	for (i = 0; i < nacc; i++)
		len += snprintf(text + len, cap - len, "5 R 0x%x 8\n", 0x10000 + stride * (i % n));
	fd = mkstemp(path);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		free(text);
		return -errno;
	}
	fputs(text, f);
	fclose(f);
	free(text);
	reuse__config_init(&cfg);
	cfg.gran = REUSE_GRAN_LINE;
	cfg.survival = survival;
	if (seed)
		cfg.seed = seed;
	ru = reuse__new(&cfg);
	memset(&o, 0, sizeof(o));
	o.sampling.period = period;
	o.nslots = cfg.nslots;
	if (ru)
		ret = session__new_trace(&s, &o, path, err, sizeof(err));
	if (!ret) {
		session__add_analysis(s, reuse__analysis(ru));
		ret = session__run(s);
	}
	r = !ret ? reuse__result(ru) : NULL;
	if (r) {
		*out = *r;
		*time = r->time;
		*stack = r->stack;
	}
	unlink(path);
	session__delete(s);
	reuse__delete(ru);
	return ret ? ret : r ? 0 : -ENOMEM;
}

static int tt_reuse_line(int nacc, int stride, int n, u64 period, struct reuse_result *out,
			 struct reuse_hist *time, struct reuse_hist *stack)
{
	return tt_reuse_line_cfg(nacc, stride, n, period, 0, 0, out, time, stack);
}

/*
 * A stride-64 sweep of 50 lines, 20 times: each line is reused after the
 * other 49, so at line granularity every reuse is at time 49 and at stack
 * distance 49 lines (issue 22: "N lines give distance N-1 in lines").
 */
LP_TEST(test_reuse_line_stride64_sweep, "reuse --granularity line: a stride-64 sweep of N lines reuses at N-1 lines")
{
	struct reuse_result r;
	struct reuse_hist t, st;
	int k = reuse_hist__bin(49);
	int ret = tt_reuse_line(1000, 64, 50, 13, &r, &t, &st);

	TEST_ASSERT(ret == 0, "run: %s", strerror(-ret));
	TEST_ASSERT(r.reuses > 10 && r.time_source == REUSE_TIME_COUNTER, "reuses %llu, time source %d",
		    (unsigned long long)r.reuses, r.time_source);
	TEST_ASSERT(t.bin[k] > 0 && t.bin[k] == reuse_hist__total(&t, 0),
		    "time bin of 49 holds %g of %g", t.bin[k], reuse_hist__total(&t, 0));
	TEST_ASSERT(st.bin[k] > 0 && st.bin[k] == reuse_hist__total(&st, 0),
		    "stack bin of 49 lines holds %g of %g", st.bin[k], reuse_hist__total(&st, 0));
	TEST_ASSERT(r.stats.spatial == 0, "%llu spatial reuses in a sweep that touches one chunk a line",
		    (unsigned long long)r.stats.spatial);
	return TEST_OK;
}

/*
 * A dense 8-byte sweep of 16 lines (128 elements), repeated: 7 of a line's
 * 8 accesses reuse it at once (spatial, distance 0); the 8th reuses it one
 * pass later, after the other 15 lines. A period prime to 8 samples every
 * position of a line alike.
 */
LP_TEST(test_reuse_line_dense_sweep, "reuse --granularity line: a dense 8-byte sweep reuses 7/8 at distance 0")
{
	struct reuse_result r;
	struct reuse_hist t, st;
	double tot, f0, f15;
	int ret = tt_reuse_line(40000, 8, 128, 13, &r, &t, &st);

	TEST_ASSERT(ret == 0, "run: %s", strerror(-ret));
	tot = reuse_hist__total(&st, 0);
	TEST_ASSERT(r.reuses > 100 && tot > 0, "reuses %llu", (unsigned long long)r.reuses);
	f0 = st.bin[0] / tot;
	TEST_ASSERT(f0 > 0.875 - 0.04 && f0 < 0.875 + 0.04, "distance 0: %.3f of the reuses, want 7/8", f0);
	/* the footprint conversion estimates 15 from the reuse times: 8..31 */
	f15 = (st.bin[reuse_hist__bin(15)] + st.bin[reuse_hist__bin(16)]) / tot;
	TEST_ASSERT(f15 > 0.75 * (1 - f0) && f0 + f15 + st.bin[reuse_hist__bin(4)] / tot > 0.99,
		    "the rest near 15 lines: %.3f in 8..31 of %.3f", f15, 1 - f0);
	TEST_ASSERT(t.bin[reuse_hist__bin(120)] / tot > 0.125 - 0.04,
		    "time of a line's reuse a pass later (120 accesses): %.3f",
		    t.bin[reuse_hist__bin(120)] / tot);
	TEST_ASSERT(r.stats.spatial > r.stats.chunk, "spatial %llu, chunk %llu",
		    (unsigned long long)r.stats.spatial, (unsigned long long)r.stats.chunk);
	return TEST_OK;
}

/*
 * Hit rates from a line histogram use its distances as they are (no mean
 * access size): a dense 8-byte sweep of 128 lines, repeated, hits 7 of 8
 * times in an 8-line cache (the line just touched) and every time in a
 * 1024-line one (the reuses a pass later are at 127 lines; the footprint
 * estimate spreads them up to 511).
 */
LP_TEST(test_reuse_line_hit_rates, "reuse --granularity line: hit rates of a dense sweep, small and large cache")
{
	struct sdcm_cache c[2] = {
		{ .name = "S", .size = 8 * 64, .ways = 8, .line = 64 },
		{ .name = "L", .size = 1024 * 64, .ways = 1024, .line = 64 },
	};
	struct reuse_result r;
	struct reuse_hist t, st;
	double hit[2];
	int ret = tt_reuse_line(60000, 8, 1024, 13, &r, &t, &st);

	TEST_ASSERT(ret == 0, "run: %s", strerror(-ret));
	r.stack = st;
	TEST_ASSERT(reuse_model__hit_rates(&r, c, 2, hit) == 2, "hit rates");
	TEST_ASSERT(fabs(hit[0] - 0.875) < 0.04, "8 lines: %.3f, want 7/8", hit[0]);
	TEST_ASSERT(hit[1] > 0.97, "1024 lines: %.3f, want all", hit[1]);
	return TEST_OK;
}

/*
 * A dense sweep of 128 lines walked backward: the line's next access is
 * the chunk before the sampled one. Consecutive samples 13 accesses and
 * exactly 13 elements apart show a dense backward walk, and the second
 * register watches that chunk (wrapping to the line's last), so 7/8 are
 * again at 0 (but the first sample after each wrap of the sweep).
 */
LP_TEST(test_reuse_line_backward_sweep, "reuse --granularity line: a dense backward sweep reuses 7/8 at distance 0")
{
	struct reuse_result r;
	struct reuse_hist t, st;
	double tot, f0;
	int ret = tt_reuse_line(60000, -8, 1024, 13, &r, &t, &st);

	TEST_ASSERT(ret == 0, "run: %s", strerror(-ret));
	tot = reuse_hist__total(&st, 0);
	TEST_ASSERT(r.reuses > 100 && tot > 0, "reuses %llu", (unsigned long long)r.reuses);
	f0 = st.bin[0] / tot;
	TEST_ASSERT(f0 > 0.875 - 0.05 && f0 < 0.875 + 0.05, "distance 0: %.3f of the reuses, want 7/8", f0);
	TEST_ASSERT(t.bin[reuse_hist__bin(1016)] / tot > 0.125 - 0.05,
		    "a line's reuse a pass later (1016 accesses): %.3f", t.bin[reuse_hist__bin(1016)] / tot);
	return TEST_OK;
}

/*
 * Censored watches (Documentation/reuse-estimator.md): a dense 8-byte sweep
 * of 1536 lines (test/data/kernels/sweep.c's 96 KiB), 16 passes, sampled
 * every 101st access. 7 of 8 accesses reuse their line at once; the 8th a
 * pass later, 1535 lines away, which is ~120 samples, and with 2 line
 * watches nearly every such watch is replaced before its reuse comes.
 * The survival weights count each replaced watch as a reuse later than its
 * age, so the footprint windows hold their share of long reuses: over
 * seeds 1-8, every run puts the long eighth within a factor of 2 of 1535
 * lines (512-4095), and on average most of it in 1535's bin (1024-2047).
 * The Horvitz-Thompson weights (the default, cfg.survival 0), on the same samples,
 * leave the windows that no long watch outlived without long reuses and
 * put the pass-later reuses too close: less of them in 1024-2047.
 */
LP_TEST(test_reuse_survival_long_sweep, "reuse: replaced watches as censored reuses: a 96 KiB sweep's pass-later reuses at 1535 lines")
{
	int k = reuse_hist__bin(1535), seed, nseeds = 8;
	double fs = 0, fh = 0;

	for (seed = 1; seed <= nseeds; seed++) {
		struct reuse_result r, h;
		struct reuse_hist t, st, ht, hst;
		double tot, near;
		int ret = tt_reuse_line_cfg(16 * 12288, 8, 12288, 101, 1, (u64)seed, &r, &t, &st);

		TEST_ASSERT(ret == 0, "run: %s", strerror(-ret));
		TEST_ASSERT(r.survival && r.censored > 100 && r.censored == r.stats.replaced,
			    "survival %d, %llu censored of %llu replaced", r.survival,
			    (unsigned long long)r.censored, (unsigned long long)r.stats.replaced);
		tot = reuse_hist__total(&st, 0);
		near = (st.bin[k - 1] + st.bin[k] + st.bin[k + 1]) / tot;
		TEST_ASSERT(fabs(near - 0.125) < 0.05, "seed %d: %.3f of the reuses at 512-4095 lines, want 1/8",
			    seed, near);
		fs += st.bin[k] / tot / nseeds;
		ret = tt_reuse_line_cfg(16 * 12288, 8, 12288, 101, 0, (u64)seed, &h, &ht, &hst);
		TEST_ASSERT(ret == 0 && !h.survival && !h.censored, "Horvitz-Thompson run: %d", ret);
		fh += hst.bin[k] / reuse_hist__total(&hst, 0) / nseeds;
	}
	TEST_ASSERT(fs > 0.125 - 0.03, "survival: mean %.3f of the reuses at 1024-2047 lines, want 1/8", fs);
	TEST_ASSERT(fh < fs - 0.03, "Horvitz-Thompson: mean %.3f at 1024-2047 lines, survival %.3f", fh, fs);
	return TEST_OK;
}
