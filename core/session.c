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
#include "core/session-internal.h"

void sess_seterr(struct lp_session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void sess_seterr(struct lp_session *s, const char *fmt, ...)
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

u64 sess_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * The statistics a report prints, counted from the events themselves: a
 * live run and the replay of its recording fill them alike.
 */
static void count_event(struct lp_session *s, const struct lp_event *ev)
{
	switch (ev->type) {
	case LP_EV_SAMPLE:
		s->stats.samples++;
		if (ev->sample.noaddr < LP_NOADDR__MAX)
			s->stats.noaddr[ev->sample.noaddr]++;
		if (ev->sample.noaddr == LP_NOADDR_NONE) {
			s->stats.samples_addr++;
			s->stats.samples_prev += !!(ev->sample.flags & LP_SAMPLE_PREV_INSN);
		}
		break;
	case LP_EV_TRAP:
		s->stats.traps++;
		break;
	case LP_EV_ALLOC:
		s->stats.allocs++;
		break;
	case LP_EV_FREE:
		s->stats.frees++;
		break;
	case LP_EV_THREAD_START:
		if (!s->pid)	/* replay: the program's first process */
			s->pid = ev->thread.pid;
		if (s->replay)	/* live: counted as ptrace meets them */
			s->stats.threads++;
		break;
	case LP_EV_THREAD_EXIT:
		s->stats.cpu_ns += ev->thread.cpu_ns;
		break;
	default:
		break;
	}
}

void sess_dispatch(struct lp_session *s, const struct lp_event *ev)
{
	int i;

	s->stats.events++;
	count_event(s, ev);
	for (i = 0; i < s->nsinks; i++) {
		struct sink *k = &s->sinks[i];

		if (k->an)
			k->an->event(k->an, ev, &s->acts);
		else
			k->fn(k->arg, ev, &s->acts);
	}
	if (!s->acts.n)
		return;
	if (s->replay)		/* executed live: their traps are in the file */
		lp_actions__reset(&s->acts);
	else if (s->trace && ev->type != LP_EV_ACTION)
		sess_trace_execute(s);
	else if (ev->type != LP_EV_ACTION)
		sess_execute_actions(s);
}

int sess_pending_push(struct lp_session *s, const struct lp_event *ev)
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
	case LP_EV_ALLOC:
	case LP_EV_FREE: return ev->alloc.time;
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

void sess_flush_pending(struct lp_session *s)
{
	int i;

	if (!s->npending)
		return;
	/* rings are read one after another: merge them by time */
	qsort(s->pending, s->npending, sizeof(*s->pending), cmp_event_time);
	for (i = 0; i < s->npending; i++) {
		s->pending[i].pad = 0;
		sess_dispatch(s, &s->pending[i]);
	}
	s->npending = 0;
}

/* ---- public ------------------------------------------------------------- */

/* First integer of @path, or @dflt. */
static long long read_ll(const char *path, long long dflt)
{
	long long v = dflt;
	FILE *f = fopen(path, "re");

	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = dflt;
		fclose(f);
	}
	return v;
}

/* CAP_IPC_LOCK in our effective set: perf rings then lock memory freely. */
static int can_lock_memory(void)
{
	char line[256];
	unsigned long long eff = 0;
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	if (f)
		fclose(f);
	return !!(eff & (1ull << 14));	/* CAP_IPC_LOCK */
}

/*
 * The default ring size: DEFAULT_RING_PAGES, or for a user without
 * CAP_IPC_LOCK the largest that lets RING_BUDGET_THREADS threads share the
 * locked-memory budget of perf rings (kernel.perf_event_mlock_kb per online
 * CPU, then RLIMIT_MEMLOCK); open_events halves it further if it runs out.
 */
#define RING_BUDGET_THREADS 64

static int budget_ring_pages(void)
{
	long page = sysconf(_SC_PAGESIZE), cpus = sysconf(_SC_NPROCESSORS_ONLN);
	long long budget, per;
	struct rlimit rl;
	int pages = DEFAULT_RING_PAGES;

	if (can_lock_memory() || read_ll("/proc/sys/kernel/perf_event_paranoid", 2) < 0 ||
	    page <= 0 || cpus <= 0)
		return pages;
	budget = read_ll("/proc/sys/kernel/perf_event_mlock_kb", 516) * 1024 / page * cpus;
	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		budget += (long long)(rl.rlim_cur / (rlim_t)page);
	per = budget / RING_BUDGET_THREADS;	/* pages per thread, metadata page included */
	while (pages > 1 && pages + 1 > per)
		pages /= 2;
	return pages;
}

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
		s->opts.ring_pages = budget_ring_pages();
	s->ring_pages = s->opts.ring_pages;
	s->stats.ring_pages = s->ring_pages;
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
	s->min_addr = (u64)read_ll("/proc/sys/vm/mmap_min_addr", 4096);
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
				sess_close_events(s, t);
			sess_thread_free(s, t);
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
	sess_trace_delete(s->trace);
	lp_actions__exit(&s->acts);
	sess_alloc_bury(s);
	free(s->grave);
	sess_alloc_free(s);
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

int session__new_replay(struct lp_session **out, struct lp_datafile *f,
			const struct lp_data_header *h)
{
	const struct lp_facility_ops *fac = lp_facility__find(h->facility);
	struct lp_session *s;

	if (!fac)
		return -EPROTONOSUPPORT;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->replay = f;
	s->opts.fac = fac;
	s->opts.sync = !!(h->sampling_flags & LP_DATA_SAMPLING_SIGTRAP);
	s->attrs[0].sample_period = h->period;
	s->wait_status = -1;
	s->epfd = s->sigfd = s->exec_errno_fd = -1;
	*out = s;
	return 0;
}

/* The consumers' end of stream: live and replayed runs alike. */
static void finish_analyses(struct lp_session *s)
{
	int n;

	for (n = 0; n < s->nsinks; n++)
		if (s->sinks[n].an && s->sinks[n].an->finish)
			s->sinks[n].an->finish(s->sinks[n].an);
}

int session__replay(struct lp_session *s)
{
	struct lp_event ev;
	int ret;

	if (!s->replay)
		return -EINVAL;
	while ((ret = datafile__read(s->replay, &ev)) > 0)
		sess_dispatch(s, &ev);
	finish_analyses(s);
	return ret < 0 ? ret : 0;
}

int session__run(struct lp_session *s)
{
	struct epoll_event evs[64];
	int status, n;
	pid_t tid;

	if (s->trace) {
		int err = sess_trace_run(s);

		finish_analyses(s);
		return err;
	}
	/* our own descriptors while tracing, less the exec-status pipe */
	s->stats.fds_at_start = session__count_fds() - (s->exec_errno_fd >= 0);
	while (!s->stop && s->nlive > 0) {
		n = epoll_wait(s->epfd, evs, ARRAY_SIZE(evs), sess_alloc_drain_ms(s));
		if (n < 0 && errno != EINTR)
			break;
		if (n > 0) {
			struct signalfd_siginfo si;

			while (read(s->sigfd, &si, sizeof(si)) == sizeof(si))
				;
		}
		tid = 0;
		while (!s->stop && (tid = waitpid(-1, &status, __WALL | WNOHANG)) > 0)
			sess_handle_wait(s, tid, status);
		if (tid < 0 && errno == ECHILD && !s->attached)
			sess_forget_untraced(s);
		sess_drain_all(s);
		sess_alloc_tick(s);
	}
	sess_check_exec_failure(s);
	sess_alloc_finish(s);
	sess_finish(s);
	sess_drain_all(s);
	sess_flush_pending(s);
	finish_analyses(s);
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
