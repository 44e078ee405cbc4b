// SPDX-License-Identifier: GPL-2.0
/*
 * The tracing engine. One ptrace tracer (this thread) follows every thread
 * of the target; each thread gets the facility's sampling events and, on
 * demand, watchpoints, all opened remotely with perf_event_open(pid=tid) and
 * all writing into one ring per thread (PERF_EVENT_IOC_SET_OUTPUT). Nothing
 * runs inside the target.
 *
 * New threads are set up at their first ptrace stop, before they execute an
 * instruction of their own. With opts.sync the sampling event carries
 * sigtrap=1: the sampled thread stops (TRAP_PERF) and stays stopped until the
 * analyses have seen its sample and their actions (watchpoints) are in place.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/hw_breakpoint.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/perf-util.h"
#include "core/ring.h"
#include "core/session.h"
#include "core/symbols.h"

#ifndef TRAP_PERF
#define TRAP_PERF 6	/* asm-generic/siginfo.h; glibc 2.36 lacks it */
#endif

#define THREAD_HASH 1024
#define DEFAULT_RING_PAGES 64
#define DRAIN_INTERVAL_MS 20

enum thread_state {
	TS_NEW,			/* known from a clone event, first stop not seen */
	TS_LIVE,		/* events set up (or setup failed), running */
	TS_EXITING,		/* PTRACE_EVENT_EXIT seen, events closed */
};

/*
 * What a slot watched and when (CLOCK_MONOTONIC ns, the clock of every
 * event we open): traps still queued in the ring after a move or disarm are
 * attributed to the generation that was armed when they happened.
 */
struct wgen {
	u64 addr, cookie;
	u64 start, end;
};

struct wslot {
	int fd;
	u64 id;
	int armed;
	struct wgen gen[2];	/* current, previous */
	struct perf_event_attr attr;
};

struct proc {
	pid_t pid;
	int nthreads;
	struct lp_decode_ctx dctx;
	struct proc *next;
};

struct thread {
	pid_t tid;
	enum thread_state state;
	int seen_stop;		/* its first stop arrived */
	u32 index;
	u32 parent_tid;
	struct proc *proc;
	int fds[LP_MAX_FACILITY_ATTRS];
	u64 ids[LP_MAX_FACILITY_ATTRS];
	int nfds;
	struct lp_ring ring;
	int has_ring;
	struct wslot slots[LP_MAX_SLOTS];
	u64 fs_base, gs_base;
	u64 lost, throttled;
	u64 cpu_ns;		/* CPU time used, read when it exits */
	u64 sample_ns;		/* raw CPU time read in its latest sample */
	u64 held_ns;		/* CPU time its held (--sync) stops cost so far */
	u32 last_cpu;
	struct thread *hnext;
};

struct sink {
	lp_event_sink fn;
	void *arg;
	struct lp_analysis *an;
};

struct lp_session {
	struct lp_session_opts opts;
	struct perf_event_attr attrs[LP_MAX_FACILITY_ATTRS];
	int nattrs;
	struct lp_attr_layout lay;	/* roles and groups of attrs */
	int leader_ns;		/* attrs[0] counts thread CPU ns (read in samples) */
	pid_t held_tid;		/* the thread held in a sync stop right now */

	struct sink *sinks;
	int nsinks;

	struct thread *threads[THREAD_HASH];
	int nlive;
	u32 next_index;
	struct proc *procs;

	pid_t pid;		/* the program's first process */
	int wait_status;	/* of pid, -1 while it runs */
	int attached;		/* -p: detach at the end */
	int exec_seen;
	int epfd, sigfd;
	sigset_t old_mask;
	volatile sig_atomic_t stop;
	int exec_errno_fd;	/* read end: the child's execvp errno */

	struct lp_event *pending;	/* events of one drain, sorted by time */
	int npending, cappending;
	struct lp_actions acts;

	struct lp_session_stats stats;
	char err[512];
};

static void seterr(struct lp_session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void seterr(struct lp_session *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
}

int session__count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;	/* the directory stream's own descriptor */
}

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* ---- threads and processes ------------------------------------------- */

static struct thread *thread__find(struct lp_session *s, pid_t tid)
{
	struct thread *t;

	for (t = s->threads[tid % THREAD_HASH]; t; t = t->hnext)
		if (t->tid == tid)
			return t;
	return NULL;
}

static long read_mem(void *arg, u32 pid, u64 addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)addr, len };
	ssize_t n;

	(void)arg;
	n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	return n < 0 ? -errno : n;
}

static struct proc *proc__get(struct lp_session *s, pid_t pid)
{
	struct proc *p;

	for (p = s->procs; p; p = p->next)
		if (p->pid == pid)
			return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->dctx.pid = pid;
	p->dctx.read_mem = read_mem;
	p->next = s->procs;
	s->procs = p;
	return p;
}

static void proc__put(struct lp_session *s, struct proc *p)
{
	struct proc **pp;

	if (--p->nthreads > 0)
		return;
	for (pp = &s->procs; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	}
	if (s->opts.fac->flush)
		s->opts.fac->flush(&p->dctx);
	free(p);
}

static struct thread *thread__new(struct lp_session *s, pid_t tid, pid_t pid,
				  pid_t parent)
{
	struct thread *t = calloc(1, sizeof(*t));
	int i;

	if (!t)
		return NULL;
	t->tid = tid;
	t->parent_tid = parent;
	t->state = TS_NEW;
	t->last_cpu = ~0u;
	t->proc = proc__get(s, pid);
	if (!t->proc) {
		free(t);
		return NULL;
	}
	t->proc->nthreads++;
	/* creation order: clone events of one parent arrive in order */
	t->index = s->next_index++;
	for (i = 0; i < LP_MAX_FACILITY_ATTRS; i++)
		t->fds[i] = -1;
	for (i = 0; i < LP_MAX_SLOTS; i++)
		t->slots[i].fd = -1;
	t->hnext = s->threads[tid % THREAD_HASH];
	s->threads[tid % THREAD_HASH] = t;
	s->nlive++;
	s->stats.threads++;
	if ((u64)s->nlive > s->stats.max_live_threads)
		s->stats.max_live_threads = s->nlive;
	return t;
}

static void thread__unhash(struct lp_session *s, struct thread *t)
{
	struct thread **pp;

	for (pp = &s->threads[t->tid % THREAD_HASH]; *pp; pp = &(*pp)->hnext) {
		if (*pp == t) {
			*pp = t->hnext;
			break;
		}
	}
}

/* ---- event dispatch ---------------------------------------------------- */

static int execute_actions(struct lp_session *s);

static void dispatch(struct lp_session *s, const struct lp_event *ev)
{
	int i;

	s->stats.events++;
	for (i = 0; i < s->nsinks; i++) {
		struct sink *k = &s->sinks[i];

		if (k->an)
			k->an->event(k->an, ev, &s->acts);
		else
			k->fn(k->arg, ev, &s->acts);
	}
	if (s->acts.n && ev->type != LP_EV_ACTION)
		execute_actions(s);
}

static int pending__push(struct lp_session *s, const struct lp_event *ev)
{
	if (s->npending == s->cappending) {
		int cap = s->cappending ? s->cappending * 2 : 256;
		struct lp_event *v = realloc(s->pending, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->pending = v;
		s->cappending = cap;
	}
	s->pending[s->npending] = *ev;
	s->pending[s->npending].pad = s->npending;	/* keeps ties in order */
	s->npending++;
	return 0;
}

static u64 event_time(const struct lp_event *ev)
{
	switch (ev->type) {
	case LP_EV_SAMPLE: return ev->sample.time;
	case LP_EV_TRAP: return ev->trap.time;
	case LP_EV_MMAP: return ev->mmap.time;
	case LP_EV_LOST: return ev->lost.time;
	case LP_EV_COUNTER: return ev->counter.time;
	default: return 0;
	}
}

static int cmp_event_time(const void *a, const void *b)
{
	const struct lp_event *ea = a, *eb = b;
	u64 ta = event_time(ea), tb = event_time(eb);

	if (ta != tb)
		return ta < tb ? -1 : 1;
	return ea->pad < eb->pad ? -1 : ea->pad > eb->pad;
}

static void flush_pending(struct lp_session *s)
{
	int i;

	if (!s->npending)
		return;
	/* rings are read one after another: merge them by time */
	qsort(s->pending, s->npending, sizeof(*s->pending), cmp_event_time);
	for (i = 0; i < s->npending; i++) {
		s->pending[i].pad = 0;
		dispatch(s, &s->pending[i]);
	}
	s->npending = 0;
}

/* ---- watchpoints -------------------------------------------------------- */

/*
 * A member added to (or changed in) a running group is only scheduled
 * with the group's next schedule-in, which a busy thread may not have for
 * a long time: measured here, 1 move in 7 never fired. Disabling and
 * enabling the leader reschedules the group now.
 */
static void group_kick(struct lp_session *s, struct thread *t)
{
	if (t->tid == s->held_tid)	/* stopped: scheduled in when resumed */
		return;
	ioctl(t->fds[0], PERF_EVENT_IOC_DISABLE, 0);
	ioctl(t->fds[0], PERF_EVENT_IOC_ENABLE, 0);
}

static int wslot__open(struct lp_session *s, struct thread *t, struct wslot *w,
		       const struct lp_action *a)
{
	struct perf_event_attr *at = &w->attr;
	int fd;

	memset(at, 0, sizeof(*at));
	at->size = sizeof(*at);
	at->type = PERF_TYPE_BREAKPOINT;
	at->bp_type = a->mode;
	at->bp_addr = a->addr;
	at->bp_len = a->len;
	at->sample_period = 1;
	at->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			  PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			  PERF_SAMPLE_ADDR;
	at->wakeup_events = 1;
	at->exclude_kernel = 1;
	at->exclude_hv = 1;
	at->use_clockid = 1;
	at->clockid = CLOCK_MONOTONIC;
	if (s->leader_ns) {
		/* in the sampling event's group: a trap reads the thread's CPU time */
		at->sample_type |= PERF_SAMPLE_READ;
		at->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	}
	fd = perf__open(at, t->tid, -1, at->read_format ? t->fds[0] : -1,
			PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && s->leader_ns) {	/* a kernel that refuses the group */
		at->sample_type &= ~(u64)PERF_SAMPLE_READ;
		at->read_format = 0;
		fd = perf__open(at, t->tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	}
	if (fd < 0)
		return fd;
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, t->fds[0]) < 0 ||
	    ioctl(fd, PERF_EVENT_IOC_ID, &w->id) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	w->fd = fd;
	if (at->read_format)	/* grouped */
		group_kick(s, t);
	return 0;
}

static int wslot__arm(struct lp_session *s, struct thread *t, struct wslot *w,
		      const struct lp_action *a)
{
	struct perf_event_attr at;

	if (w->fd < 0)
		return wslot__open(s, t, w, a);
	/* move: a copy of the original attr with only the bp fields changed */
	at = w->attr;
	at.bp_type = a->mode;
	at.bp_addr = a->addr;
	at.bp_len = a->len;
	at.disabled = 0;
	if (ioctl(w->fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &at) < 0) {
		/* kernel without modify (< 4.17): reopen */
		close(w->fd);
		w->fd = -1;
		return wslot__open(s, t, w, a);
	}
	w->attr = at;
	s->stats.arm_moves++;
	if (w->attr.read_format)	/* grouped */
		group_kick(s, t);
	return 0;
}


static int execute_action(struct lp_session *s, struct lp_action *a)
{
	u64 t0;
	struct thread *t = thread__find(s, a->tid);
	struct wslot *w;
	int err = 0;

	if (!t || t->state != TS_LIVE || !t->has_ring)
		return -ESRCH;
	if (a->slot >= s->opts.nslots)
		return -EINVAL;
	w = &t->slots[a->slot];
	switch (a->op) {
	case LP_ACT_ARM:
		if ((a->len != 1 && a->len != 2 && a->len != 4 && a->len != 8) ||
		    (a->addr & (a->len - 1)) ||
		    (a->mode != LP_WP_W && a->mode != LP_WP_RW))
			return -EINVAL;
		t0 = now_ns();
		err = wslot__arm(s, t, w, a);
		a->time = now_ns();
		if (!err) {
			if (w->armed)
				w->gen[0].end = a->time;
			w->gen[1] = w->gen[0];
			w->gen[0] = (struct wgen){ a->addr, a->cookie, t0, ~0ull };
			w->armed = 1;
			s->stats.arms++;
		}
		break;
	case LP_ACT_DISARM:
		if (w->fd >= 0 && w->armed)
			ioctl(w->fd, PERF_EVENT_IOC_DISABLE, 0);
		a->time = now_ns();
		if (w->armed)
			w->gen[0].end = a->time;
		w->armed = 0;
		s->stats.disarms++;
		break;
	default:
		return -EINVAL;
	}
	return err;
}

static int execute_actions(struct lp_session *s)
{
	struct lp_actions mine = s->acts;
	struct lp_event ev;
	int i, err;

	/* echoes go to the consumers (the recorder); they push nothing */
	s->acts = (struct lp_actions){ 0 };
	for (i = 0; i < mine.n; i++) {
		mine.v[i].time = 0;
		err = execute_action(s, &mine.v[i]);
		if (err == -ESRCH) {	/* the thread exited meanwhile */
			s->stats.arm_gone++;
		} else if (err) {
			s->stats.arm_errors++;
			s->stats.last_arm_error = err;
		}
		memset(&ev, 0, sizeof(ev));
		ev.type = LP_EV_ACTION;
		ev.action = mine.v[i];
		dispatch(s, &ev);
	}
	lp_actions__reset(&mine);
	lp_actions__exit(&s->acts);
	s->acts = mine;
	return 0;
}

/* ---- rings ------------------------------------------------------------ */

/*
 * The sample_id_all trailer of a non-sample record: TID, TIME, ID,
 * STREAM_ID, CPU, IDENTIFIER, those present in @sample_type, at the end.
 */
static void parse_sample_id(const struct perf_event_header *h, u64 sample_type,
			    u32 *tid, u64 *time)
{
	static const u64 order[] = { PERF_SAMPLE_TID, PERF_SAMPLE_TIME,
				     PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID,
				     PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER };
	const unsigned char *p;
	size_t n = 0, i;

	for (i = 0; i < ARRAY_SIZE(order); i++)
		n += !!(sample_type & order[i]);
	if (h->size < sizeof(*h) + n * 8)
		return;
	p = (const unsigned char *)h + h->size - n * 8;
	for (i = 0; i < ARRAY_SIZE(order); i++) {
		if (!(sample_type & order[i]))
			continue;
		if (order[i] == PERF_SAMPLE_TID)
			memcpy(tid, p + 4, 4);
		else if (order[i] == PERF_SAMPLE_TIME)
			memcpy(time, p, 8);
		p += 8;
	}
}

/* PERF_RECORD_MMAP2 */
static int parse_mmap2(const struct perf_event_header *h, struct lp_mmap *m)
{
	const unsigned char *p = (const void *)(h + 1);
	size_t len = h->size - sizeof(*h), flen;
	/* pid, tid, addr, len, pgoff, maj/min/ino/gen (24), prot, flags */
	const size_t fixed = 4 + 4 + 8 + 8 + 8 + 24 + 4 + 4;

	if (len < fixed + 1)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	memcpy(&m->pid, p, 4);
	memcpy(&m->start, p + 8, 8);
	memcpy(&m->len, p + 16, 8);
	memcpy(&m->pgoff, p + 24, 8);
	memcpy(&m->prot, p + 56, 4);
	flen = strnlen((const char *)p + fixed, len - fixed);
	if (flen >= sizeof(m->filename))
		flen = sizeof(m->filename) - 1;
	memcpy(m->filename, p + fixed, flen);
	return 0;
}

/*
 * Loads+stores so far (the facility's counting groups, summed: a hybrid
 * has one per core type), read when the sample or trap is handled: exact
 * while the thread is held (--sync), later by the drain delay otherwise.
 */
static void push_counters(struct lp_session *s, struct thread *t, u64 time)
{
	struct lp_event ev;
	u64 buf[3 + LP_MAX_FACILITY_ATTRS], n;
	int i, found = 0;

	if (!s->opts.sampling.counters)
		return;
	memset(&ev, 0, sizeof(ev));
	ev.type = LP_EV_COUNTER;
	ev.counter.time = time;
	ev.counter.pid = t->proc->pid;
	ev.counter.tid = t->tid;
	for (i = 0; i < t->nfds; i++) {
		const struct perf_event_attr *a = &s->attrs[i];
		u64 rf = a->read_format, *p = buf, nr = 1, j;
		ssize_t len;

		if (s->lay.role[i] != LP_ATTR_COUNT ||
		    (s->lay.leader[i] >= 0 && s->lay.leader[i] != i))
			continue;
		len = read(t->fds[i], buf, sizeof(buf));
		if (len < 8)
			continue;
		n = len / 8;
		if (rf & PERF_FORMAT_GROUP)
			nr = *p++;
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			ev.counter.enabled_ns += *p++;
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			ev.counter.running_ns += *p++;
		for (j = 0; j < nr && (u64)(p - buf) < n; j++) {
			ev.counter.value += *p++;
			if (rf & PERF_FORMAT_ID)
				p++;
			if (rf & PERF_FORMAT_LOST)
				p++;
		}
		found = 1;
	}
	if (found)
		pending__push(s, &ev);
}

static void handle_sample(struct lp_session *s, struct thread *t,
			  const struct perf_event_header *h)
{
	const struct lp_facility_ops *fac = s->opts.fac;
	struct lp_perf_sample raw;
	struct lp_event ev;
	u64 sample_type;
	int i, k = 0;

	/* IDENTIFIER is first in every event we open: find whose record */
	if (h->size < sizeof(*h) + 8)
		return;
	memset(&ev, 0, sizeof(ev));
	{
		u64 id;

		memcpy(&id, h + 1, 8);
		for (i = 0; i < s->opts.nslots; i++) {
			struct wslot *w = &t->slots[i];

			if (w->fd < 0 || w->id != id)
				continue;
			const struct wgen *g = NULL;
			int k;

			if (perf_sample__parse_read(h, h->size, w->attr.sample_type,
						    w->attr.read_format, 0, &raw))
				return;
			for (k = 0; k < 2 && !g; k++)
				if (w->gen[k].addr == raw.addr && raw.time >= w->gen[k].start &&
				    raw.time <= w->gen[k].end)
					g = &w->gen[k];
			if (!g) {	/* a generation older than we keep */
				s->stats.stale_traps++;
				return;
			}
			ev.type = LP_EV_TRAP;
			ev.trap.time = raw.time;
			ev.trap.ip = raw.ip;
			ev.trap.addr = raw.addr;
			ev.trap.cookie = g->cookie;
			ev.trap.pid = raw.pid;
			ev.trap.tid = raw.tid;
			ev.trap.cpu = raw.cpu;
			ev.trap.slot = i;
			ev.trap.mode = w->attr.bp_type;
			ev.trap.len = w->attr.bp_len;
			if (raw.read_nr)	/* the group leader: thread CPU ns */
				ev.trap.thread_ns = raw.read_value[0] - t->held_ns;
			s->stats.traps++;
			pending__push(s, &ev);
			push_counters(s, t, ev.trap.time);
			return;
		}
		for (k = 0; k < t->nfds; k++)
			if (t->ids[k] == id)
				break;
		if (k == t->nfds || s->lay.role[k] != LP_ATTR_SAMPLE)
			return;	/* an aux leader's or an unknown record */
	}
	sample_type = s->attrs[k].sample_type;
	if (perf_sample__parse_read(h, h->size, sample_type, s->attrs[k].read_format,
				    s->attrs[k].sample_regs_user, &raw))
		return;
	s->stats.samples++;
	t->proc->dctx.attr = &s->attrs[k];
	t->proc->dctx.tid = t->tid;
	t->proc->dctx.fs_base = t->fs_base;
	t->proc->dctx.gs_base = t->gs_base;
	ev.type = LP_EV_SAMPLE;
	/*
	 * A timer sample lands after the instruction the time went into: with
	 * LP_PREV_PREFER that instruction's access wins when it can be
	 * recomputed, with LP_PREV_FALLBACK only when IP's own has none.
	 */
	if (s->opts.prev_insn == LP_PREV_PREFER && fac->decode_prev &&
	    fac->decode_prev(&t->proc->dctx, &raw, &ev.sample) == 0 &&
	    ev.sample.noaddr == LP_NOADDR_NONE) {
		s->stats.samples_prev++;
	} else {
		fac->decode(&t->proc->dctx, &raw, &ev.sample);
		if (ev.sample.noaddr != LP_NOADDR_NONE &&
		    s->opts.prev_insn == LP_PREV_FALLBACK && fac->decode_prev) {
			struct lp_sample prev;

			if (fac->decode_prev(&t->proc->dctx, &raw, &prev) == 0 &&
			    prev.noaddr == LP_NOADDR_NONE) {
				ev.sample = prev;
				s->stats.samples_prev++;
			}
		}
	}
	if (s->opts.sync)	/* every sampling event stops its thread */
		ev.sample.flags |= LP_SAMPLE_HELD;
	if (s->leader_ns && raw.read_nr) {
		t->sample_ns = raw.read_value[0];
		ev.sample.thread_ns = raw.read_value[0] - t->held_ns;
	}
	if (ev.sample.noaddr < LP_NOADDR__MAX)
		s->stats.noaddr[ev.sample.noaddr]++;
	if (ev.sample.noaddr == LP_NOADDR_NONE)
		s->stats.samples_addr++;
	t->last_cpu = raw.cpu;
	pending__push(s, &ev);
	push_counters(s, t, ev.sample.time);
}

static void drain_thread(struct lp_session *s, struct thread *t)
{
	const struct perf_event_header *h;
	struct lp_event ev;
	int ret;

	if (!t->has_ring || ring__read_init(&t->ring))
		return;
	while ((ret = ring__read_event(&t->ring, &h)) > 0) {
		switch (h->type) {
		case PERF_RECORD_SAMPLE:
			handle_sample(s, t, h);
			break;
		case PERF_RECORD_MMAP2:
			memset(&ev, 0, sizeof(ev));
			ev.type = LP_EV_MMAP;
			if (parse_mmap2(h, &ev.mmap) == 0) {
				u32 tid = 0;

				parse_sample_id(h, s->attrs[0].sample_type, &tid,
						&ev.mmap.time);
				/* code may have changed under cached decodes */
				if ((ev.mmap.prot & PROT_EXEC) && s->opts.fac->flush)
					s->opts.fac->flush(&t->proc->dctx);
				pending__push(s, &ev);
			}
			break;
		case PERF_RECORD_LOST: {
			struct lp_perf_lost l;

			if (perf_lost__parse(h, h->size, &l) == 0) {
				t->lost += l.lost;
				s->stats.lost += l.lost;
			}
			break;
		}
		case PERF_RECORD_THROTTLE:
			t->throttled++;
			s->stats.throttled++;
			break;
		default:
			break;
		}
	}
	if (ret < 0)
		ring__discard(&t->ring);
	ring__read_done(&t->ring);
}

static void drain_all(struct lp_session *s)
{
	int i;
	struct thread *t;

	for (i = 0; i < THREAD_HASH; i++)
		for (t = s->threads[i]; t; t = t->hnext)
			drain_thread(s, t);
	flush_pending(s);
}

/* ---- per-thread setup and teardown ------------------------------------- */

static void emit_thread(struct lp_session *s, struct thread *t, u32 type,
			int status)
{
	struct lp_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = type;
	ev.thread.pid = t->proc->pid;
	ev.thread.tid = t->tid;
	ev.thread.parent_tid = t->parent_tid;
	ev.thread.cpu = t->last_cpu;
	ev.thread.index = t->index;
	ev.thread.status = status;
	ev.thread.fs_base = t->fs_base;
	ev.thread.cpu_ns = t->cpu_ns;
	if (type == LP_EV_THREAD_EXIT)
		s->stats.cpu_ns += t->cpu_ns;
	dispatch(s, &ev);
}

static void close_events(struct lp_session *s, struct thread *t)
{
	int i;

	if (t->has_ring) {
		drain_thread(s, t);
		epoll_ctl(s->epfd, EPOLL_CTL_DEL, t->fds[0], NULL);
	}
	for (i = 0; i < LP_MAX_SLOTS; i++) {
		if (t->slots[i].fd >= 0)
			close(t->slots[i].fd);
		t->slots[i].fd = -1;
		t->slots[i].armed = 0;
	}
	if (t->has_ring)
		ring__munmap(&t->ring);
	t->has_ring = 0;
	for (i = 0; i < t->nfds; i++)
		if (t->fds[i] >= 0)
			close(t->fds[i]);
	t->nfds = 0;
	if (t->lost || t->throttled) {
		struct lp_event ev;

		memset(&ev, 0, sizeof(ev));
		ev.type = LP_EV_LOST;
		ev.lost.pid = t->proc->pid;
		ev.lost.tid = t->tid;
		ev.lost.lost = t->lost;
		ev.lost.throttled = t->throttled;
		pending__push(s, &ev);
		t->lost = t->throttled = 0;
	}
}

static int open_events(struct lp_session *s, struct thread *t)
{
	int i, fd, err;

	for (i = 0; i < s->nattrs; i++) {
		int leader = s->lay.leader[i];

		/* the layout puts a leader before its members */
		fd = perf__open(&s->attrs[i], t->tid, -1,
				leader >= 0 && leader != i ? t->fds[leader] : -1,
				PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			err = fd;
			goto out_close;
		}
		t->fds[t->nfds++] = fd;
		if (ioctl(fd, PERF_EVENT_IOC_ID, &t->ids[i]) < 0) {
			err = -errno;
			goto out_close;
		}
		if (i > 0 && s->lay.role[i] != LP_ATTR_COUNT &&
		    ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, t->fds[0]) < 0) {
			err = -errno;
			goto out_close;
		}
	}
	err = ring__mmap(&t->ring, t->fds[0], s->opts.ring_pages);
	if (err)
		goto out_close;
	t->has_ring = 1;
	{
		struct epoll_event ee = { .events = EPOLLIN, .data.u32 = t->tid };

		epoll_ctl(s->epfd, EPOLL_CTL_ADD, t->fds[0], &ee);
	}
	return 0;
out_close:
	for (i = 0; i < t->nfds; i++)
		close(t->fds[i]);
	t->nfds = 0;
	return err;
}

static void read_segment_bases(struct thread *t)
{
	errno = 0;
	t->fs_base = ptrace(PTRACE_PEEKUSER, t->tid,
			    offsetof(struct user_regs_struct, fs_base), 0);
	if (errno)
		t->fs_base = 0;
	errno = 0;
	t->gs_base = ptrace(PTRACE_PEEKUSER, t->tid,
			    offsetof(struct user_regs_struct, gs_base), 0);
	if (errno)
		t->gs_base = 0;
}

static int emit_mmap_cb(void *arg, const struct lp_mmap *m)
{
	struct lp_session *s = arg;
	struct lp_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = LP_EV_MMAP;
	ev.mmap = *m;
	ev.mmap.time = now_ns();	/* read now, from /proc/PID/maps */
	dispatch(s, &ev);
	return 0;
}

/* The thread is in a ptrace stop and has not run code we should miss. */
static void thread__setup(struct lp_session *s, struct thread *t)
{
	int err;

	if (t->state != TS_NEW)
		return;
	t->state = TS_LIVE;
	read_segment_bases(t);
	emit_thread(s, t, LP_EV_THREAD_START, 0);
	err = open_events(s, t);
	if (err) {
		char buf[256];

		perf__strerror(-err, &s->attrs[0], s->opts.fac->name, buf, sizeof(buf));
		if (!s->err[0] || s->opts.verbose)
			seterr(s, "thread %d: %s", t->tid, buf);
		if (s->opts.verbose)
			fprintf(stderr, "lociprof: %s\n", s->err);
	}
}

/* The thread's CPU time so far (first field of schedstat, ns). */
static void read_cpu_time(struct thread *t)
{
	char path[64];
	unsigned long long ns;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", t->proc->pid, t->tid);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fscanf(f, "%llu", &ns) == 1)
		t->cpu_ns = ns;
	fclose(f);
}

static void thread__gone(struct lp_session *s, struct thread *t, int status)
{
	if (t->state == TS_LIVE) {
		close_events(s, t);
		flush_pending(s);
		emit_thread(s, t, LP_EV_THREAD_EXIT, status);
	}
	t->state = TS_EXITING;
}

static void thread__free(struct lp_session *s, struct thread *t)
{
	thread__unhash(s, t);
	s->nlive--;
	proc__put(s, t->proc);
	free(t);
}

/* ---- ptrace -------------------------------------------------------------- */

#define PTRACE_OPTS (PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | \
		     PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL)

static long ptrace_opts(const struct lp_session *s)
{
	long o = PTRACE_OPTS;

	if (s->opts.follow_fork)
		o |= PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK;
	if (s->attached)
		o &= ~PTRACE_O_EXITKILL;
	return o;
}

static void resume(pid_t tid, int sig)
{
	ptrace(PTRACE_CONT, tid, 0, (long)sig);
}

static void handle_exec(struct lp_session *s, struct thread *t)
{
	int i;

	/* every other thread of the process is gone; so are its mappings */
	for (i = 0; i < THREAD_HASH; i++) {
		struct thread *n, *u;

		for (u = s->threads[i]; u; u = n) {
			n = u->hnext;
			if (u != t && u->proc == t->proc) {
				thread__gone(s, u, 0);
				thread__free(s, u);
			}
		}
	}
	if (t->state == TS_LIVE) {
		read_cpu_time(t);
		close_events(s, t);
		flush_pending(s);
		emit_thread(s, t, LP_EV_THREAD_EXIT, 0);
	}
	if (s->opts.fac->flush)
		s->opts.fac->flush(&t->proc->dctx);
	t->state = TS_NEW;
	s->exec_seen = 1;
	symbols__read_proc_maps(t->proc->pid, emit_mmap_cb, s);
	thread__setup(s, t);
}

/*
 * The CPU time a held stop cost the thread (signal delivery, ptrace stop)
 * is not the program's: later samples and traps leave it out, so reuse
 * times measure the program alone.
 */
static void account_held(struct lp_session *s, struct thread *t)
{
	u64 buf[2 + 2 * LP_MAX_SLOTS + 2];
	ssize_t n;

	if (!s->leader_ns || !t->has_ring || !t->sample_ns)
		return;
	n = read(t->fds[0], buf, sizeof(buf));	/* GROUP|ID: nr, value, id, ... */
	if (n >= 16 && buf[1] > t->sample_ns)
		t->held_ns += buf[1] - t->sample_ns;
	t->sample_ns = 0;
}

static int is_group_stop_sig(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

static void handle_wait(struct lp_session *s, pid_t tid, int status)
{
	struct thread *t = thread__find(s, tid);
	int sig, event;

	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		if (t) {
			thread__gone(s, t, status);
			thread__free(s, t);
		}
		if (tid == s->pid)
			s->wait_status = status;
		return;
	}
	if (!WIFSTOPPED(status))
		return;
	sig = WSTOPSIG(status);
	event = (unsigned)status >> 16;

	if (!t) {
		/* a new thread whose first stop beat its parent's clone event */
		pid_t tgid = tid;
		char path[64], line[256];
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/status", tid);
		f = fopen(path, "re");
		if (f) {
			while (fgets(line, sizeof(line), f))
				if (sscanf(line, "Tgid: %d", &tgid) == 1)
					break;
			fclose(f);
		}
		t = thread__new(s, tid, tgid, 0);
		if (!t) {
			resume(tid, 0);
			return;
		}
	}
	t->seen_stop = 1;

	switch (event) {
	case PTRACE_EVENT_CLONE:
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK: {
		unsigned long child = 0;
		struct thread *c;

		ptrace(PTRACE_GETEVENTMSG, tid, 0, &child);
		c = thread__find(s, child);
		if (!c) {
			char path[64];

			/*
			 * Its first stop and its exit may both have been reaped
			 * before this event: then it is gone, do not track it.
			 */
			snprintf(path, sizeof(path), "/proc/%d/task/%lu",
				 event == PTRACE_EVENT_CLONE ? t->proc->pid : (pid_t)child, child);
			if (access(path, F_OK) == 0)
				c = thread__new(s, child,
						event == PTRACE_EVENT_CLONE ? t->proc->pid :
						(pid_t)child, tid);
		} else {
			c->parent_tid = tid;
		}
		if (c && c->seen_stop && c->state == TS_NEW) {
			thread__setup(s, c);
			resume(c->tid, 0);
		}
		resume(tid, 0);
		return;
	}
	case PTRACE_EVENT_EXEC:
		handle_exec(s, t);
		resume(tid, 0);
		return;
	case PTRACE_EVENT_EXIT: {
		unsigned long st = 0;

		ptrace(PTRACE_GETEVENTMSG, tid, 0, &st);
		read_cpu_time(t);
		thread__gone(s, t, (int)st);
		resume(tid, 0);
		return;
	}
	case PTRACE_EVENT_STOP:
		if (is_group_stop_sig(sig)) {
			ptrace(PTRACE_LISTEN, tid, 0, 0);
			return;
		}
		/*
		 * First stop of a new thread, or our PTRACE_INTERRUPT. The forked
		 * child before its exec runs our code: nothing to trace yet.
		 */
		if (t->state == TS_NEW && (t->parent_tid || s->exec_seen))
			thread__setup(s, t);
		resume(tid, 0);
		return;
	default:
		break;
	}

	/* signal-delivery stop */
	if (sig == SIGTRAP) {
		siginfo_t si;

		if (ptrace(PTRACE_GETSIGINFO, tid, 0, &si) == 0 &&
		    si.si_code == TRAP_PERF) {
			/* ours: the thread is held while its sample is handled */
			s->stats.sync_stops++;
			s->held_tid = tid;
			drain_all(s);
			s->held_tid = 0;
			account_held(s, t);
			resume(tid, 0);
			return;
		}
	}
	if (t->state == TS_NEW && !t->parent_tid && !s->exec_seen && sig == SIGCONT) {
		resume(tid, sig);	/* ours, from start_command: not the program's */
		return;
	}
	s->stats.signals_forwarded++;
	resume(tid, sig);
}

/* ---- public ------------------------------------------------------------- */

int session__new(struct lp_session **out, const struct lp_session_opts *opts)
{
	struct lp_session *s;
	struct rlimit rl;
	sigset_t mask;
	int err, i;

	if (!opts->fac || !opts->fac->setup || !opts->fac->decode)
		return -EOPNOTSUPP;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->opts = *opts;
	if (s->opts.nslots <= 0 || s->opts.nslots > LP_MAX_SLOTS)
		s->opts.nslots = LP_MAX_SLOTS;
	if (s->opts.ring_pages <= 0)
		s->opts.ring_pages = DEFAULT_RING_PAGES;
	s->wait_status = -1;
	s->epfd = s->sigfd = s->exec_errno_fd = -1;
	s->opts.sampling.sigtrap = s->opts.sync;
	if (s->opts.fac->setup_layout) {
		err = s->opts.fac->setup_layout(NULL, &s->opts.sampling, s->attrs, &s->lay,
						s->err, sizeof(s->err));
		s->nattrs = s->lay.nattrs;
	} else {
		err = s->opts.fac->setup(&s->opts.sampling, s->attrs, &s->nattrs);
		for (i = 0; i < LP_MAX_FACILITY_ATTRS; i++) {
			s->lay.role[i] = LP_ATTR_SAMPLE;
			s->lay.leader[i] = -1;
		}
		s->lay.nattrs = s->nattrs;
	}
	if (err)
		goto out_free;
	if (s->nattrs < 1 || s->nattrs > LP_MAX_FACILITY_ATTRS) {
		err = -EINVAL;
		goto out_free;
	}
	for (i = 0; i < s->nattrs; i++) {
		/* one clock for samples, traps and action stamps */
		s->attrs[i].use_clockid = 1;
		s->attrs[i].clockid = CLOCK_MONOTONIC;
		/* we own enabling: events start at setup, in a stopped thread */
		s->attrs[i].disabled = 0;
		s->attrs[i].enable_on_exec = 0;
		s->attrs[i].inherit = 0;
		if (s->lay.role[i] == LP_ATTR_COUNT)
			continue;	/* read(2), never sampled */
		s->attrs[i].sample_type |= PERF_SAMPLE_IDENTIFIER;
		if (s->opts.sync && s->lay.role[i] == LP_ATTR_SAMPLE) {
			/* every sampling event holds its thread; not an aux leader */
			s->attrs[i].sigtrap = 1;
			s->attrs[i].remove_on_exec = 1;
		}
	}
	/*
	 * A facility whose sampling event counts thread CPU time (soft:
	 * cpu-clock) reads it into every sample and, as group leader of the
	 * watchpoints, into every trap: reuse times need it.
	 */
	if (s->opts.fac->period_unit && !strcmp(s->opts.fac->period_unit, "ns") &&
	    s->lay.role[0] == LP_ATTR_SAMPLE && s->lay.leader[0] < 0) {
		s->leader_ns = 1;
		s->attrs[0].sample_type |= PERF_SAMPLE_READ;
		s->attrs[0].read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	}
	s->attrs[0].mmap = 1;
	s->attrs[0].mmap2 = 1;
	s->attrs[0].mmap_data = 1;
	s->attrs[0].sample_id_all = 1;

	/* a thread costs a few descriptors: take all we may */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epfd < 0) {
		err = -errno;
		goto out_free;
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, &s->old_mask);
	s->sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (s->sigfd < 0) {
		err = -errno;
		goto out_free;
	}
	{
		struct epoll_event ee = { .events = EPOLLIN, .data.u32 = 0 };

		epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->sigfd, &ee);
	}
	*out = s;
	return 0;
out_free:
	session__delete(s);
	return err;
}

void session__delete(struct lp_session *s)
{
	int i;

	if (!s)
		return;
	for (i = 0; i < THREAD_HASH; i++) {
		while (s->threads[i]) {
			struct thread *t = s->threads[i];

			if (t->state == TS_LIVE)
				close_events(s, t);
			thread__free(s, t);
		}
	}
	if (s->epfd >= 0)
		close(s->epfd);
	if (s->sigfd >= 0) {
		close(s->sigfd);
		sigprocmask(SIG_SETMASK, &s->old_mask, NULL);
	}
	if (s->exec_errno_fd >= 0)
		close(s->exec_errno_fd);
	lp_actions__exit(&s->acts);
	free(s->pending);
	free(s->sinks);
	free(s);
}

int session__add_sink(struct lp_session *s, lp_event_sink fn, void *arg)
{
	struct sink *v = realloc(s->sinks, (s->nsinks + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	s->sinks = v;
	v[s->nsinks++] = (struct sink){ fn, arg, NULL };
	return 0;
}

int session__add_analysis(struct lp_session *s, struct lp_analysis *an)
{
	struct sink *v = realloc(s->sinks, (s->nsinks + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	s->sinks = v;
	v[s->nsinks++] = (struct sink){ NULL, NULL, an };
	return 0;
}

int session__start_command(struct lp_session *s, char *const argv[])
{
	int pfd[2], status, err;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(pfd[0]);
		close(pfd[1]);
		return err;
	}
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &s->old_mask, NULL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		close(pfd[0]);
		/* stop so the parent can seize us before exec */
		kill(getpid(), SIGSTOP);
		execvp(argv[0], argv);
		err = errno;
		if (write(pfd[1], &err, sizeof(err)) < 0)
			_exit(126);
		_exit(127);
	}
	close(pfd[1]);
	s->exec_errno_fd = pfd[0];
	if (waitpid(pid, &status, WSTOPPED) < 0 || !WIFSTOPPED(status)) {
		err = -ECHILD;
		goto out_kill;
	}
	if (ptrace(PTRACE_SEIZE, pid, 0, ptrace_opts(s)) < 0) {
		err = -errno;
		seterr(s, "cannot trace the program: ptrace: %s%s", strerror(errno),
		       errno == EPERM ? " (is another debugger attached, or "
		       "/proc/sys/kernel/yama/ptrace_scope > 1?)" : "");
		goto out_kill;
	}
	s->pid = pid;
	if (!thread__new(s, pid, pid, 0)) {
		err = -ENOMEM;
		goto out_kill;
	}
	kill(pid, SIGCONT);
	return 0;
out_kill:
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return err;
}

static int attach_threads(struct lp_session *s, pid_t pid, int *added)
{
	char path[64];
	struct dirent *de;
	DIR *d;

	*added = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		pid_t tid = atoi(de->d_name);
		struct thread *t;

		if (tid <= 0 || thread__find(s, tid))
			continue;
		if (ptrace(PTRACE_SEIZE, tid, 0, ptrace_opts(s)) < 0) {
			int err = errno;

			if (err == ESRCH)	/* exited meanwhile */
				continue;
			closedir(d);
			return -err;
		}
		t = thread__new(s, tid, pid, 0);
		if (!t) {
			closedir(d);
			return -ENOMEM;
		}
		t->parent_tid = tid == pid ? 0 : (u32)pid;
		ptrace(PTRACE_INTERRUPT, tid, 0, 0);
		(*added)++;
	}
	closedir(d);
	return 0;
}

int session__attach(struct lp_session *s, pid_t pid)
{
	int added, err, rounds = 0;

	s->attached = 1;
	s->pid = pid;
	s->exec_seen = 1;	/* it runs its program already */
	do {
		err = attach_threads(s, pid, &added);
		if (err) {
			seterr(s, "cannot attach to %d: %s%s", pid, strerror(-err),
			       err == -EPERM ? " (run as root, or check "
			       "/proc/sys/kernel/yama/ptrace_scope)" : "");
			return err;
		}
	} while (added && ++rounds < 100);
	symbols__read_proc_maps(pid, emit_mmap_cb, s);
	return 0;
}

static void check_exec_failure(struct lp_session *s)
{
	int err = 0;

	if (s->exec_errno_fd < 0)
		return;
	if (!s->exec_seen && read(s->exec_errno_fd, &err, sizeof(err)) == sizeof(err))
		seterr(s, "cannot run the program: %s", strerror(err));
	close(s->exec_errno_fd);
	s->exec_errno_fd = -1;
}

/*
 * No tracee is left although some threads are still listed: their exits
 * were lost (should not happen; never loop forever on it).
 */
static void forget_untraced(struct lp_session *s)
{
	int i;

	for (i = 0; i < THREAD_HASH; i++) {
		while (s->threads[i]) {
			struct thread *t = s->threads[i];

			thread__gone(s, t, 0);
			thread__free(s, t);
			s->stats.threads_lost++;
		}
	}
}

#define FINISH_GRACE_NS	2000000000ull	/* SIGTERM to SIGKILL of a forked program */

/* Stop watching: detach from every thread (-p), or kill the child. */
static void finish(struct lp_session *s)
{
	u64 deadline;
	int i, status, killed;
	pid_t tid;

	drain_all(s);
	for (i = 0; i < THREAD_HASH; i++) {
		struct thread *t;

		for (t = s->threads[i]; t; t = t->hnext)
			if (t->state == TS_LIVE) {
				read_cpu_time(t);
				close_events(s, t);
				flush_pending(s);
				emit_thread(s, t, LP_EV_THREAD_EXIT, -1);
				t->state = TS_EXITING;
			}
	}
	if (!s->nlive)
		return;
	if (!s->attached) {
		/* like perf record: a forked workload does not outlive us */
		kill(s->pid, SIGTERM);
	}
	for (i = 0; i < THREAD_HASH; i++) {
		struct thread *t;

		for (t = s->threads[i]; t; t = t->hnext)
			ptrace(PTRACE_INTERRUPT, t->tid, 0, 0);
	}
	/*
	 * Collect the stops and detach, passing pending signals on. A forked
	 * program still there FINISH_GRACE_NS after SIGTERM gets SIGKILL: seen
	 * here, 1 Ctrl-C in 40 on 'exiter sleep' left it alive in nanosleep
	 * (its SIGTERM lost) and this wait blocked for ever.
	 */
	deadline = now_ns() + FINISH_GRACE_NS;
	killed = s->attached;
	while (s->nlive > 0) {
		struct thread *t;

		tid = waitpid(-1, &status, __WALL | (killed ? 0 : WNOHANG));
		if (tid == 0) {
			if (now_ns() < deadline) {
				usleep(1000);
				continue;
			}
			kill(s->pid, SIGKILL);
			killed = 1;
			continue;
		}
		if (tid < 0)
			break;
		t = thread__find(s, tid);
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			if (t)
				thread__free(s, t);
			if (tid == s->pid)
				s->wait_status = status;
			continue;
		}
		if (!WIFSTOPPED(status))
			continue;
		if (!t) {	/* a thread we never set up (born as we stopped):
				   left stopped, it would keep its process from
				   dying and this wait from ending */
			if (s->attached)
				ptrace(PTRACE_DETACH, tid, 0, 0);
			else
				resume(tid, 0);
			continue;
		}
		if (!s->attached) {
			resume(tid, (status >> 16) ? 0 : WSTOPSIG(status) == SIGTRAP ? 0 : WSTOPSIG(status));
			continue;
		}
		{
			int sig = 0;

			if ((status >> 16) == 0 && WSTOPSIG(status) != SIGTRAP)
				sig = WSTOPSIG(status);
			ptrace(PTRACE_DETACH, tid, 0, (long)sig);
			thread__free(s, t);
		}
	}
}

int session__run(struct lp_session *s)
{
	struct epoll_event evs[64];
	int status, n;
	pid_t tid;

	/* our own descriptors while tracing, less the exec-status pipe */
	s->stats.fds_at_start = session__count_fds() - (s->exec_errno_fd >= 0);
	while (!s->stop && s->nlive > 0) {
		n = epoll_wait(s->epfd, evs, ARRAY_SIZE(evs), DRAIN_INTERVAL_MS);
		if (n < 0 && errno != EINTR)
			break;
		if (n > 0) {
			struct signalfd_siginfo si;

			while (read(s->sigfd, &si, sizeof(si)) == sizeof(si))
				;
		}
		tid = 0;
		while (!s->stop && (tid = waitpid(-1, &status, __WALL | WNOHANG)) > 0)
			handle_wait(s, tid, status);
		if (tid < 0 && errno == ECHILD && !s->attached)
			forget_untraced(s);
		drain_all(s);
	}
	check_exec_failure(s);
	finish(s);
	drain_all(s);
	flush_pending(s);
	for (n = 0; n < s->nsinks; n++)
		if (s->sinks[n].an && s->sinks[n].an->finish)
			s->sinks[n].an->finish(s->sinks[n].an);
	s->stats.fds_at_end = session__count_fds();
	return s->err[0] && !s->exec_seen ? -ENOEXEC : 0;
}

void session__stop(struct lp_session *s)
{
	s->stop = 1;
}

int session__wait_status(const struct lp_session *s)
{
	return s->wait_status;
}

int session__exit_code(const struct lp_session *s)
{
	if (s->wait_status < 0)
		return 0;
	if (WIFEXITED(s->wait_status))
		return WEXITSTATUS(s->wait_status);
	if (WIFSIGNALED(s->wait_status))
		return 128 + WTERMSIG(s->wait_status);
	return 0;
}

const struct lp_session_stats *session__stats(const struct lp_session *s)
{
	return &s->stats;
}

pid_t session__pid(const struct lp_session *s)
{
	return s->pid;
}

const char *session__error(const struct lp_session *s)
{
	return s->err;
}

const struct lp_facility_ops *session__facility(const struct lp_session *s)
{
	return s->opts.fac;
}

u64 session__period(const struct lp_session *s)
{
	return s->attrs[0].freq ? 0 : s->attrs[0].sample_period;
}

int session__is_sync(const struct lp_session *s)
{
	return s->opts.sync;
}
