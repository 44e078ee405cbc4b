// SPDX-License-Identifier: GPL-2.0
/*
 * The session engine end to end on a real program: watchpoints armed by a
 * consumer's actions fire, move and disarm; thread events arrive in order.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch/x86-soft/soft.h"
#include "core/facility.h"
#include "core/probe.h"
#include "core/session.h"
#include "core/tests.h"

#define WPTARGET "test/helpers/wptarget"

struct wp_state {
	const char *addr_file;
	u64 first, second;
	int phase;		/* 0 nothing armed, 1 first, 2 second, 3 disarmed */
	u32 tid;		/* worker thread (index 1) */
	int traps_first, traps_second;
	int starts, exits;
	u32 max_index;
	u64 move_time, disarm_time;	/* when the session executed them */
	int misattributed;		/* trap address not its cookie's */
	int outside;			/* trap outside its cookie's window */
	u64 first_trap_time[3], last_trap_time[3];
	u64 last_cpu_ns;		/* worker's thread CPU time, last seen */
	int cpu_ns_missing, cpu_ns_backwards, cpu_ns_seen;
};

/* Samples and traps carry the worker's CPU time; it never runs backwards. */
static void check_cpu_ns(struct wp_state *st, u32 tid, u64 ns)
{
	if (tid != st->tid)
		return;
	if (!ns) {
		st->cpu_ns_missing++;
		return;
	}
	if (ns < st->last_cpu_ns)
		st->cpu_ns_backwards++;
	st->last_cpu_ns = ns;
	st->cpu_ns_seen++;
}

static int wp_sink(void *arg, const struct lp_event *ev, struct lp_actions *acts)
{
	struct wp_state *st = arg;
	struct lp_action a;

	memset(&a, 0, sizeof(a));
	a.len = 8;
	a.mode = LP_WP_W;
	switch (ev->type) {
	case LP_EV_THREAD_START:
		st->starts++;
		if (ev->thread.index > st->max_index)
			st->max_index = ev->thread.index;
		if (ev->thread.index == 1)
			st->tid = ev->thread.tid;
		break;
	case LP_EV_THREAD_EXIT:
		st->exits++;
		break;
	case LP_EV_SAMPLE:
		check_cpu_ns(st, ev->sample.tid, ev->sample.thread_ns);
		if (st->phase == 0 && st->tid && ev->sample.tid == st->tid) {
			FILE *f = fopen(st->addr_file, "r");
			unsigned long long x, y;

			if (f && fscanf(f, "%llx %llx", &x, &y) == 2) {
				st->first = x;
				st->second = y;
				a.op = LP_ACT_ARM;
				a.tid = st->tid;
				a.addr = x;
				a.cookie = 1;
				lp_actions__push(acts, &a);
				st->phase = 1;
			}
			if (f)
				fclose(f);
		}
		break;
	case LP_EV_ACTION:
		if (ev->action.op == LP_ACT_ARM && ev->action.cookie == 2)
			st->move_time = ev->action.time;
		if (ev->action.op == LP_ACT_DISARM)
			st->disarm_time = ev->action.time;
		break;
	case LP_EV_TRAP: {
		u64 c = ev->trap.cookie;

		check_cpu_ns(st, ev->trap.tid, ev->trap.thread_ns);
		if ((c == 1 && ev->trap.addr != st->first) ||
		    (c == 2 && ev->trap.addr != st->second) || c < 1 || c > 2) {
			st->misattributed++;
			break;
		}
		if (!st->first_trap_time[c])
			st->first_trap_time[c] = ev->trap.time;
		st->last_trap_time[c] = ev->trap.time;
		if (st->phase == 1 && ev->trap.addr == st->first && ev->trap.cookie == 1) {
			if (++st->traps_first == 3) {
				a.op = LP_ACT_ARM;	/* move the same slot */
				a.tid = st->tid;
				a.addr = st->second;
				a.cookie = 2;
				lp_actions__push(acts, &a);
				st->phase = 2;
			}
		} else if (st->phase == 2 && ev->trap.addr == st->second &&
			   ev->trap.cookie == 2) {
			if (++st->traps_second == 3) {
				a.op = LP_ACT_DISARM;
				a.tid = st->tid;
				lp_actions__push(acts, &a);
				st->phase = 3;
			}
		}
		break;
	}
	default:
		break;
	}
	return 0;
}

static int run_wp(struct lp_test_ctx *ctx, int sync)
{
	struct lp_session_opts o;
	struct lp_session *s;
	struct wp_state st;
	char file[] = "/tmp/lp-wptarget-XXXXXX";
	char *argv[] = { (char *)WPTARGET, file, NULL };
	struct lp_debugreg_probe bp;
	int fd, err;

	if (access(WPTARGET, X_OK))
		TEST_SKIP("%s not built (make check builds it)", WPTARGET);
	probe__debug_registers(&bp);
	if (!bp.fires)
		TEST_SKIP("%.200s", bp.count ? bp.fire_reason : bp.reason);
	fd = mkstemp(file);
	TEST_ASSERT(fd >= 0, "mkstemp");
	close(fd);
	unlink(file);
	memset(&st, 0, sizeof(st));
	st.addr_file = file;
	memset(&o, 0, sizeof(o));
	o.fac = &lp_facility_soft;
	o.sync = sync;
	o.sampling.period = 1000000;	/* 1 ms */
	err = session__new(&s, &o);
	if (err == -EOPNOTSUPP)
		TEST_SKIP("soft facility cannot sample here");
	TEST_ASSERT(err == 0, "session__new: %s", strerror(-err));
	session__add_sink(s, wp_sink, &st);
	err = session__start_command(s, argv);
	TEST_ASSERT(err == 0, "start: %s", strerror(-err));
	err = session__run(s);
	unlink(file);
	TEST_ASSERT(err == 0, "run: %s (%s)", strerror(-err), session__error(s));
	TEST_LOG("session: traps %llu stale %llu arm errors %llu (last %d)",
		 (unsigned long long)session__stats(s)->traps,
		 (unsigned long long)session__stats(s)->stale_traps,
		 (unsigned long long)session__stats(s)->arm_errors,
		 session__stats(s)->last_arm_error);
	TEST_LOG("traps first %d second %d, misattributed %d, arms %llu moves %llu",
		 st.traps_first, st.traps_second, st.misattributed,
		 (unsigned long long)session__stats(s)->arms,
		 (unsigned long long)session__stats(s)->arm_moves);
	TEST_ASSERT(session__exit_code(s) == 0, "exit %d", session__exit_code(s));
	TEST_ASSERT(st.starts == 2 && st.exits == 2, "starts %d exits %d", st.starts, st.exits);
	TEST_ASSERT(st.max_index == 1, "max index %u", st.max_index);
	TEST_ASSERT(st.phase == 3, "phase %d: first %d second %d", st.phase,
		    st.traps_first, st.traps_second);
	TEST_ASSERT(st.misattributed == 0, "%d traps with the wrong address for their cookie",
		    st.misattributed);
	/* traps queued before a move still belong to the old address... */
	TEST_ASSERT(st.last_trap_time[1] <= st.move_time, "first trapped %llu ns after the move",
		    (unsigned long long)(st.last_trap_time[1] - st.move_time));
	TEST_ASSERT(st.first_trap_time[2] >= st.move_time, "second trapped before the move");
	/* ...and the target keeps storing after the disarm: no trap may follow it */
	TEST_ASSERT(st.disarm_time && st.last_trap_time[2] <= st.disarm_time,
		    "second trapped %lld ns after the disarm",
		    (long long)(st.last_trap_time[2] - st.disarm_time));
	TEST_ASSERT(st.cpu_ns_seen > 6 && !st.cpu_ns_missing && !st.cpu_ns_backwards,
		    "thread CPU time: %d seen, %d missing, %d backwards", st.cpu_ns_seen,
		    st.cpu_ns_missing, st.cpu_ns_backwards);
	TEST_ASSERT(session__stats(s)->arm_moves == 1, "moves %llu",
		    (unsigned long long)session__stats(s)->arm_moves);
	TEST_ASSERT(session__stats(s)->fds_at_end == session__stats(s)->fds_at_start,
		    "descriptors %d -> %d", session__stats(s)->fds_at_start,
		    session__stats(s)->fds_at_end);
	session__delete(s);
	return TEST_OK;
}

LP_TEST(test_session_watchpoint_arm_move_disarm,
	"session: watchpoint arms, moves, disarms on a live thread (async)")
{
	return run_wp(ctx, 0);
}

LP_TEST(test_session_watchpoint_sync,
	"session: watchpoints with held (sigtrap) samples")
{
	return run_wp(ctx, 1);
}

/* ---- replay ------------------------------------------------------------ */

#include "core/datafile.h"

struct replay_seen {
	int n, finished, pushed;
	u32 types[64];
	u64 samples, samples_addr, samples_prev, traps, cpu_ns;
};

static int replay_sink(void *arg, const struct lp_event *ev, struct lp_actions *acts)
{
	struct replay_seen *r = arg;

	(void)acts;
	if (r->n < 64)
		r->types[r->n] = ev->type;
	r->n++;
	return 0;
}

/* An analysis that asks for a watchpoint at every sample: replay must not. */
static int replay_an_event(struct lp_analysis *an, const struct lp_event *ev, struct lp_actions *out)
{
	struct replay_seen *r = an->priv;
	struct lp_action a = { .op = LP_ACT_ARM, .tid = 11, .addr = 0x1000, .len = 8, .mode = LP_WP_RW };

	if (ev->type == LP_EV_SAMPLE) {
		lp_actions__push(out, &a);
		r->pushed++;
	}
	return 0;
}

static int replay_an_finish(struct lp_analysis *an)
{
	((struct replay_seen *)an->priv)->finished++;
	return 0;
}

/* A recording: two threads, samples with and without an address, a trap. */
static int replay_write(const char *path, struct replay_seen *want)
{
	struct lp_data_header *h = calloc(1, sizeof(*h));
	struct lp_datafile *f;
	struct lp_event ev;
	int i, err;

	if (!h)
		return -ENOMEM;
	strcpy(h->facility, "soft");
	strcpy(h->period_unit, "ns");
	h->period = 123456;
	h->sampling_flags = LP_DATA_SAMPLING_SIGTRAP;
	err = datafile__create_flags(&f, path, h, 0);	/* raw: a cut keeps a prefix */
	free(h);
	if (err)
		return err;
	memset(want, 0, sizeof(*want));
	for (i = 0; i < 2; i++) {
		memset(&ev, 0, sizeof(ev));
		ev.type = LP_EV_THREAD_START;
		ev.thread.pid = 10;
		ev.thread.tid = 10 + i;
		ev.thread.index = i;
		datafile__write(f, &ev);
		want->types[want->n++] = ev.type;
	}
	for (i = 0; i < 9; i++) {
		memset(&ev, 0, sizeof(ev));
		ev.type = LP_EV_SAMPLE;
		ev.sample.time = 100 + i;
		ev.sample.pid = 10;
		ev.sample.tid = 10 + i % 2;
		ev.sample.addr = 0x1000 + 8 * i;
		ev.sample.noaddr = i % 3 == 2 ? LP_NOADDR_NO_REGS : LP_NOADDR_NONE;
		ev.sample.flags = i % 2 ? LP_SAMPLE_PREV_INSN : 0;
		datafile__write(f, &ev);
		want->types[want->n++] = ev.type;
		want->samples++;
		want->samples_addr += ev.sample.noaddr == LP_NOADDR_NONE;
		want->samples_prev += ev.sample.noaddr == LP_NOADDR_NONE && (i % 2);
	}
	memset(&ev, 0, sizeof(ev));
	ev.type = LP_EV_TRAP;
	ev.trap.time = 200;
	ev.trap.tid = 11;
	ev.trap.addr = 0x1000;
	datafile__write(f, &ev);
	want->types[want->n++] = ev.type;
	want->traps = 1;
	for (i = 0; i < 2; i++) {
		memset(&ev, 0, sizeof(ev));
		ev.type = LP_EV_THREAD_EXIT;
		ev.thread.pid = 10;
		ev.thread.tid = 11 - i;
		ev.thread.cpu_ns = 1000000 * (i + 1);
		datafile__write(f, &ev);
		want->types[want->n++] = ev.type;
		want->cpu_ns += ev.thread.cpu_ns;
	}
	return datafile__close(f);
}

LP_TEST(test_session_replay_feeds_and_counts, "session: replay feeds every event in order, counts as live, drops actions")
{
	struct lp_data_header *h = calloc(1, sizeof(*h));
	char path[] = "/tmp/lp-replay-XXXXXX";
	struct replay_seen want, got = { 0 };
	struct lp_analysis an = { "probe", &got, replay_an_event, replay_an_finish };
	const struct lp_session_stats *st;
	struct lp_datafile *f;
	struct lp_session *s;
	int fd = mkstemp(path), i;

	TEST_ASSERT(h && fd >= 0, "tmp");
	close(fd);
	TEST_ASSERT(replay_write(path, &want) == 0, "write");
	TEST_ASSERT(datafile__open(&f, path, h) == 0, "open");
	TEST_ASSERT(session__new_replay(&s, f, h) == 0, "new replay");
	session__add_sink(s, replay_sink, &got);
	session__add_analysis(s, &an);
	TEST_ASSERT(session__replay(s) == 0, "replay");
	TEST_ASSERT(got.n == want.n, "%d events seen, %d written", got.n, want.n);
	for (i = 0; i < want.n; i++)
		TEST_ASSERT(got.types[i] == want.types[i], "event %d: type %u, want %u", i,
			    got.types[i], want.types[i]);
	st = session__stats(s);
	TEST_ASSERT(st->samples == want.samples && st->samples_addr == want.samples_addr &&
		    st->samples_prev == want.samples_prev && st->traps == want.traps &&
		    st->cpu_ns == want.cpu_ns && st->threads == 2,
		    "samples %llu addr %llu prev %llu",
		    (unsigned long long)st->samples, (unsigned long long)st->samples_addr,
		    (unsigned long long)st->samples_prev);
	TEST_ASSERT(st->noaddr[LP_NOADDR_NO_REGS] == want.samples - want.samples_addr, "noaddr");
	TEST_ASSERT(session__pid(s) == 10 && session__period(s) == 123456 && session__is_sync(s) &&
		    !strcmp(session__facility(s)->name, "soft"), "pid, period, sync, facility");
	TEST_ASSERT(got.pushed == (int)want.samples && !st->arms && !st->arm_gone && !st->arm_errors,
		    "actions executed on replay");
	TEST_ASSERT(got.finished == 1, "finish called %d times", got.finished);
	session__delete(s);
	datafile__close(f);

	/* cut short: the intact events are dispatched, then the error */
	{
		FILE *fp = fopen(path, "r+");
		long len;

		TEST_ASSERT(fp && fseek(fp, 0, SEEK_END) == 0, "reopen");
		len = ftell(fp);
		fclose(fp);
		TEST_ASSERT(truncate(path, len - 40) == 0, "truncate");
	}
	memset(&got, 0, sizeof(got));
	TEST_ASSERT(datafile__open(&f, path, h) == 0, "open cut");
	TEST_ASSERT(session__new_replay(&s, f, h) == 0, "new replay cut");
	session__add_sink(s, replay_sink, &got);
	TEST_ASSERT(session__replay(s) < 0, "a cut file replays without an error");
	TEST_ASSERT(got.n > 0 && (u64)got.n == datafile__nr_events(f), "%d dispatched, %llu read",
		    got.n, (unsigned long long)datafile__nr_events(f));
	session__delete(s);
	datafile__close(f);

	strcpy(h->facility, "nosuch");
	TEST_ASSERT(session__new_replay(&s, NULL, h) == -EPROTONOSUPPORT, "unknown facility accepted");
	unlink(path);
	free(h);
	return TEST_OK;
}
