// SPDX-License-Identifier: GPL-2.0
/*
 * The trace-driven facility (Documentation/facilities.md, "Trace-driven"):
 * a session whose events come from a lociprof-trace file, delivered as a
 * PEBS or IBS machine would deliver them, so that the counter path of the
 * analyses (reuse time in accesses, exact watchpoints) runs and is checked
 * on a machine without a PMU.
 *
 * - Every thread of the trace is a thread of the session (THREAD_START at
 *   its first access, THREAD_EXIT at the end of the trace).
 * - A thread's every N-th load or store (N the period, in accesses of that
 *   thread, the first one at a random point of the first N) is a SAMPLE
 *   with its exact data address, size and kind, as PEBS's
 *   MEM_INST_RETIRED.ALL_LOADS/ALL_STORES with period N give it.
 * - Each sample and each trap is preceded by one COUNTER event per live
 *   thread: its loads+stores so far, the sampled or trapping access
 *   included, as a counting group read at that moment would say.
 * - Each thread has LP_MAX_SLOTS debug registers; an armed one traps on
 *   the thread's exact next access that touches its bytes (W: stores only,
 *   RW: loads and stores), after the access, as x86 does.
 * - Actions are executed at once, between two accesses: the machine is
 *   stopped while the analyses think, which a live run cannot do; what a
 *   live run loses to that delay is not simulated.
 *
 * Time (lp_sample.time) is the index of the access in the trace. A thread
 * whose tid is below TM_DIRECT_TIDS is thread number tid (a microbenchmark's
 * --trace numbers its threads 0, 1, ..: its --expect and `lociprof
 * coherence` use that order too); others are numbered from TM_DIRECT_TIDS
 * on, in order of appearance.
 */
#include "core/grow.h"
#include "core/session-internal.h"
#include "core/hash.h"
#include "core/trace.h"

#define TM_DEFAULT_PERIOD	1000	/* accesses per sample, per thread */
#define TM_DIRECT_TIDS		1024	/* tids below: thread number = tid */

struct tm_reg {
	u8 armed, mode, len;
	u64 addr, cookie;
};

struct tm_thread {
	u32 tid, index;
	u64 count;		/* its loads+stores so far */
	u64 left;		/* accesses until its next sample */
	struct tm_reg reg[LP_MAX_SLOTS];
};

struct lp_tracesim {
	struct trace *t;
	struct tm_thread *thr;
	u32 n;
	size_t cap;
	struct lp_map tids;	/* tid -> index into thr */
	u32 nfar;		/* threads with tids of TM_DIRECT_TIDS and above */
	u64 period, now, rng;
};

static int tm_probe(struct lp_probe *res)
{
	res->usable = 0;
	snprintf(res->reason, sizeof(res->reason), "replays a lociprof-trace file as a "
		 "PEBS/IBS machine would sample it (every N-th access, exact access "
		 "counters and watchpoints): --sampler trace=FILE");
	return 0;
}

const struct lp_facility_ops lp_facility_trace = {
	.name = "trace",
	.desc = "trace-driven: a lociprof-trace file sampled as PEBS/IBS would sample it",
	.probe = tm_probe,
	.default_period = TM_DEFAULT_PERIOD,
	.period_unit = "accesses",
	.auto_order = 1000,	/* never picked by --sampler auto */
};
LP_FACILITY(lp_facility_trace);

int session__new_trace(struct lp_session **out, const struct lp_session_opts *opts,
		       const char *path, char *err, size_t errlen)
{
	struct lp_tracesim *tm;
	struct lp_session *s;
	int ret;

	if (opts->sampling.freq) {
		snprintf(err, errlen, "the trace-driven sampler takes a period in accesses "
			 "(-c N), not a frequency");
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	tm = calloc(1, sizeof(*tm));
	if (!s || !tm) {
		free(s);
		free(tm);
		return -ENOMEM;
	}
	ret = trace__open(&tm->t, path, err, errlen);
	if (ret) {
		free(s);
		free(tm);
		return ret;
	}
	tm->period = opts->sampling.period ? opts->sampling.period : TM_DEFAULT_PERIOD;
	tm->rng = 0x7ace5eed;
	s->opts = *opts;
	s->opts.fac = &lp_facility_trace;
	if (s->opts.nslots > LP_MAX_SLOTS)
		s->opts.nslots = LP_MAX_SLOTS;
	s->attrs[0].sample_period = tm->period;
	s->wait_status = -1;
	s->epfd = s->sigfd = s->exec_errno_fd = -1;
	s->trace = tm;
	*out = s;
	return 0;
}

void sess_trace_delete(struct lp_tracesim *tm)
{
	if (!tm)
		return;
	trace__close(tm->t);
	lp_map__exit(&tm->tids);
	free(tm->thr);
	free(tm);
}

/* Arm, move and disarm the simulated debug registers; echo each action. */
void sess_trace_execute(struct lp_session *s)
{
	struct lp_tracesim *tm = s->trace;
	struct lp_actions mine = s->acts;
	struct lp_event ev;
	int i;

	s->acts = (struct lp_actions){ 0 };
	for (i = 0; i < mine.n; i++) {
		struct lp_action *a = &mine.v[i];
		u64 k;

		a->time = tm->now;
		if (a->slot >= s->opts.nslots || !lp_map__get(&tm->tids, a->tid, &k)) {
			s->stats.arm_gone++;
			continue;
		}
		if (a->op == LP_ACT_ARM) {
			tm->thr[k].reg[a->slot] = (struct tm_reg){ 1, a->mode, a->len ? a->len : 1,
								   a->addr, a->cookie };
			s->stats.arms++;
		} else {
			tm->thr[k].reg[a->slot].armed = 0;
			s->stats.disarms++;
		}
		memset(&ev, 0, sizeof(ev));
		ev.type = LP_EV_ACTION;
		ev.action = *a;
		sess_dispatch(s, &ev);
	}
	lp_actions__reset(&mine);
	lp_actions__exit(&s->acts);
	s->acts = mine;
}

static u64 tm_rand(struct lp_tracesim *tm)
{
	return lp_splitmix64(&tm->rng);
}

static struct tm_thread *tm_thread(struct lp_session *s, u32 tid)
{
	struct lp_tracesim *tm = s->trace;
	struct lp_event ev;
	struct tm_thread *t;
	u64 k;

	if (lp_map__get(&tm->tids, tid, &k))
		return &tm->thr[k];
	if (lp_grow((void **)&tm->thr, tm->n, &tm->cap, sizeof(*tm->thr), 16))
		return NULL;
	if (lp_map__put(&tm->tids, tid, tm->n))
		return NULL;
	t = &tm->thr[tm->n];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->index = tid < TM_DIRECT_TIDS ? tid : TM_DIRECT_TIDS + tm->nfar++;
	tm->n++;
	t->left = 1 + tm_rand(tm) % tm->period;	/* a random phase, then every N-th */
	s->stats.threads++;
	memset(&ev, 0, sizeof(ev));
	ev.type = LP_EV_THREAD_START;
	ev.thread.time = tm->now;
	ev.thread.pid = tm->thr[0].tid;
	ev.thread.tid = tid;
	ev.thread.parent_tid = tm->n > 1 ? tm->thr[0].tid : 0;
	ev.thread.cpu = 0;	/* one machine, one cache: the trace has no CPUs */
	ev.thread.index = t->index;
	sess_dispatch(s, &ev);
	return t;
}

/* What a counting group of loads+stores of every live thread reads now. */
static void tm_counters(struct lp_session *s)
{
	struct lp_tracesim *tm = s->trace;
	struct lp_event ev;
	u32 i;

	memset(&ev, 0, sizeof(ev));
	ev.type = LP_EV_COUNTER;
	ev.counter.time = tm->now;
	ev.counter.pid = tm->thr[0].tid;
	for (i = 0; i < tm->n; i++) {
		ev.counter.tid = tm->thr[i].tid;
		ev.counter.value = tm->thr[i].count;
		sess_dispatch(s, &ev);
	}
}

static void tm_access(struct lp_session *s, const struct trace_access *a)
{
	struct lp_tracesim *tm = s->trace;
	u64 size = a->size ? a->size : 8;
	struct lp_event ev;
	struct tm_thread *t;
	int i, counted = 0;

	tm->now++;
	t = tm_thread(s, a->tid);
	if (!t)
		return;
	t->count++;
	/* traps on this access, after it, as x86 reports them */
	for (i = 0; i < s->opts.nslots; i++) {
		struct tm_reg *r = &t->reg[i];

		if (!r->armed || (r->mode == LP_WP_W && a->op != TRACE_WRITE) ||
		    a->addr >= r->addr + r->len || r->addr >= a->addr + size)
			continue;
		if (!counted++)
			tm_counters(s);
		memset(&ev, 0, sizeof(ev));
		ev.type = LP_EV_TRAP;
		/* a trap reports the instruction after the access, as x86 does */
		ev.trap = (struct lp_trap){ .time = tm->now, .addr = r->addr,
					    .ip = a->ip && a->ip_size ? a->ip + a->ip_size : 0,
					    .cookie = r->cookie, .pid = tm->thr[0].tid,
					    .tid = t->tid, .slot = (u8)i, .mode = r->mode,
					    .len = r->len };
		sess_dispatch(s, &ev);
		t = tm_thread(s, a->tid);	/* actions do not move threads, but be safe */
	}
	if (--t->left)
		return;
	t->left = tm->period;
	if (!counted)
		tm_counters(s);
	memset(&ev, 0, sizeof(ev));
	ev.type = LP_EV_SAMPLE;
	ev.sample = (struct lp_sample){ .time = tm->now, .addr = a->addr, .ip = a->ip,
					.period = tm->period, .pid = tm->thr[0].tid,
					.tid = t->tid, .size = (u8)(size > 255 ? 255 : size),
					.kind = a->op == TRACE_WRITE ? LP_ACCESS_STORE :
								       LP_ACCESS_LOAD };
	sess_dispatch(s, &ev);
}

int sess_trace_run(struct lp_session *s)
{
	struct lp_tracesim *tm = s->trace;
	struct trace_access a;
	struct lp_event ev;
	int ret = 0;
	u32 i;

	while (!s->stop && (ret = trace__next(tm->t, &a, s->err, sizeof(s->err))) > 0)
		tm_access(s, &a);
	if (s->stop)
		ret = 0;
	for (i = 0; i < tm->n; i++) {
		memset(&ev, 0, sizeof(ev));
		ev.type = LP_EV_THREAD_EXIT;
		ev.thread.time = tm->now;
		ev.thread.pid = tm->thr[0].tid;
		ev.thread.tid = tm->thr[i].tid;
		ev.thread.index = tm->thr[i].index;
		ev.thread.cpu = 0;
		sess_dispatch(s, &ev);
	}
	/* a trace that cannot be read to its end is input that cannot be read:
	 * exit 1 (lociprof(1)); what was read before is reported */
	s->wait_status = ret < 0 ? 1 << 8 : 0;
	return ret < 0 ? ret : 0;
}
