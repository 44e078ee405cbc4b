// SPDX-License-Identifier: GPL-2.0
/*
 * Each traced thread's perf events: the facility's sampling events and the
 * watchpoint slots, opened remotely (perf_event_open(pid=tid)), all writing
 * into one ring per thread; draining the rings into typed events; executing
 * the analyses' watchpoint actions.
 */
#include "core/session-internal.h"

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
	struct thread *t = sess_thread_find(s, a->tid);
	struct wslot *w;
	int err = 0;

	if (!t || t->state != TS_LIVE || !t->has_ring)
		return -ESRCH;
	if (a->slot >= s->opts.nslots)
		return -EINVAL;
	if (s->opts.no_watchpoints)	/* nothing would ever trap: arm nothing */
		return a->op == LP_ACT_ARM || a->op == LP_ACT_DISARM ? 0 : -EINVAL;
	w = &t->slots[a->slot];
	switch (a->op) {
	case LP_ACT_ARM:
		if ((a->len != 1 && a->len != 2 && a->len != 4 && a->len != 8) ||
		    (a->addr & (a->len - 1)) ||
		    (a->mode != LP_WP_W && a->mode != LP_WP_RW))
			return -EINVAL;
		t0 = sess_now_ns();
		err = wslot__arm(s, t, w, a);
		a->time = sess_now_ns();
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
		a->time = sess_now_ns();
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

int sess_execute_actions(struct lp_session *s)
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
		sess_dispatch(s, &ev);
	}
	lp_actions__reset(&mine);
	lp_actions__exit(&s->acts);
	s->acts = mine;
	return 0;
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
			sess_pending_push(s, &ev);
			return;
		}
		if (sess_alloc_sample(s, t, id, h))
			return;
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
	/*
	 * A previous instruction whose address lies below vm.mmap_min_addr did
	 * not run with these registers (IP is a jump target): IP's own counts.
	 */
	if (!(s->opts.prev_insn == LP_PREV_PREFER && fac->decode_prev &&
	      fac->decode_prev(&t->proc->dctx, &raw, &ev.sample) == 0 &&
	      !lp_sample_below_min(&ev.sample, s->min_addr) &&
	      ev.sample.noaddr == LP_NOADDR_NONE)) {
		fac->decode(&t->proc->dctx, &raw, &ev.sample);
		if (ev.sample.noaddr != LP_NOADDR_NONE &&
		    s->opts.prev_insn == LP_PREV_FALLBACK && fac->decode_prev) {
			struct lp_sample prev;

			if (fac->decode_prev(&t->proc->dctx, &raw, &prev) == 0 &&
			    !lp_sample_below_min(&prev, s->min_addr) &&
			    prev.noaddr == LP_NOADDR_NONE)
				ev.sample = prev;
		}
		lp_sample_below_min(&ev.sample, s->min_addr);
	}
	if (s->opts.sync)	/* every sampling event stops its thread */
		ev.sample.flags |= LP_SAMPLE_HELD;
	if (s->leader_ns && raw.read_nr) {
		t->sample_ns = raw.read_value[0];
		ev.sample.thread_ns = raw.read_value[0] - t->held_ns;
	}
	t->last_cpu = raw.cpu;
	sess_pending_push(s, &ev);
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
			if (perf_mmap2__parse(h, h->size, s->attrs[0].sample_type, &ev.mmap) == 0) {
				/* code may have changed under cached decodes */
				if ((ev.mmap.prot & PROT_EXEC) && s->opts.fac->flush)
					s->opts.fac->flush(&t->proc->dctx);
				sess_pending_push(s, &ev);
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
		case PERF_RECORD_THROTTLE: {
			struct lp_perf_throttle th;

			if (perf_throttle__parse(h, h->size, &th) == 0) {
				t->throttled++;
				s->stats.throttled++;
			}
			break;
		}
		default:
			break;
		}
	}
	if (ret < 0)
		ring__discard(&t->ring);
	ring__read_done(&t->ring);
}

void sess_drain_all(struct lp_session *s)
{
	int i;
	struct thread *t;

	for (i = 0; i < THREAD_HASH; i++)
		for (t = s->threads[i]; t; t = t->hnext)
			drain_thread(s, t);
	sess_flush_pending(s);
}

/* ---- per-thread setup and teardown ------------------------------------- */

void sess_emit_thread(struct lp_session *s, struct thread *t, u32 type,
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
	sess_dispatch(s, &ev);
}

void sess_close_events(struct lp_session *s, struct thread *t)
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
	sess_alloc_close(s, t);
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
		sess_pending_push(s, &ev);
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
	/*
	 * EPERM here is the locked-memory budget of perf rings
	 * (kernel.perf_event_mlock_kb per CPU, then RLIMIT_MEMLOCK): smaller
	 * rings keep later threads monitored, drained as often.
	 */
	/*
	 * A thread with allocator probes copying 8 KiB stacks fills a 64-page
	 * ring in 30 allocations: 4 times the pages, then as many as allowed.
	 */
	if (sess_alloc_big_ring(s, t)) {
		err = ring__mmap(&t->ring, t->fds[0], s->ring_pages * 4);
		if (!err)
			goto mapped;
	}
	for (;;) {
		err = ring__mmap(&t->ring, t->fds[0], s->ring_pages);
		if (err != -EPERM || s->ring_pages == 1)
			break;
		s->ring_pages /= 2;
		s->stats.ring_pages = s->ring_pages;
	}
	if (err == -EPERM) {
		err = -ENOBUFS;	/* not a permission: the budget is spent */
		goto out_close;
	}
	if (err)
		goto out_close;
mapped:
	t->has_ring = 1;
	sess_alloc_open(s, t);
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

void sess_read_segment_bases(struct thread *t)
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

int sess_emit_mmap(void *arg, const struct lp_mmap *m)
{
	struct lp_session *s = arg;
	struct lp_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = LP_EV_MMAP;
	ev.mmap = *m;
	ev.mmap.time = sess_now_ns();	/* read now, from /proc/PID/maps */
	sess_dispatch(s, &ev);
	return 0;
}

/* The thread is in a ptrace stop and has not run code we should miss. */
/* What to raise when even a one-page ring does not fit. */
static void ring_budget_msg(char *buf, size_t len)
{
	unsigned long long kb = 0;
	struct rlimit rl;
	FILE *f = fopen("/proc/sys/kernel/perf_event_mlock_kb", "re");

	if (f) {
		if (fscanf(f, "%llu", &kb) != 1)
			kb = 0;
		fclose(f);
	}
	getrlimit(RLIMIT_MEMLOCK, &rl);
	snprintf(buf, len, "no locked memory left for its perf ring buffer "
		 "(kernel.perf_event_mlock_kb is %llu KiB per CPU, then ulimit -l %llu KiB): "
		 "raise kernel.perf_event_mlock_kb (as root) or ulimit -l",
		 kb, rl.rlim_cur == RLIM_INFINITY ? 0ull : (unsigned long long)rl.rlim_cur / 1024);
}

void sess_thread_setup(struct lp_session *s, struct thread *t)
{
	int err;

	if (t->state != TS_NEW)
		return;
	t->state = TS_LIVE;
	t->cpu_ns0 = sess_thread_cpu_ns(t);	/* count from here: -p attaches late */
	sess_read_segment_bases(t);
	sess_emit_thread(s, t, LP_EV_THREAD_START, 0);
	err = open_events(s, t);
	if (err) {
		char buf[256];

		s->stats.threads_unmonitored++;
		if (err == -ENOBUFS)
			ring_budget_msg(buf, sizeof(buf));
		else
			perf__strerror(-err, &s->attrs[0], s->opts.fac->name, buf, sizeof(buf));
		if (!s->err[0] || s->opts.verbose)
			sess_seterr(s, "thread %d: %s", t->tid, buf);
		if (s->opts.verbose)
			fprintf(stderr, "lociprof: %s\n", s->err);
	}
}

/*
 * The CPU time a held stop cost the thread (signal delivery, ptrace stop)
 * is not the program's: later samples and traps leave it out, so reuse
 * times measure the program alone.
 */
void sess_account_held(struct lp_session *s, struct thread *t)
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
