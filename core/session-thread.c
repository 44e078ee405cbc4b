// SPDX-License-Identifier: GPL-2.0
/*
 * The ptrace side of the session: starting or attaching to the program,
 * the thread and process table, every wait status (clone, exec, exit,
 * signal and held-sample stops) and letting go at the end.
 */
#include "core/session-internal.h"

/* ---- threads and processes ------------------------------------------- */

struct thread *sess_thread_find(struct lp_session *s, pid_t tid)
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

/* The thread's CPU time so far (first field of schedstat, ns). */
u64 sess_thread_cpu_ns(const struct thread *t)
{
	char path[64];
	unsigned long long ns = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", t->proc->pid, t->tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &ns) != 1)
		ns = 0;
	fclose(f);
	return ns;
}

/* The CPU time the thread used since lociprof set it up (-p: not before). */
static void read_cpu_time(struct thread *t)
{
	u64 ns = sess_thread_cpu_ns(t);

	if (ns)
		t->cpu_ns = ns > t->cpu_ns0 ? ns - t->cpu_ns0 : 0;
}

static void thread__gone(struct lp_session *s, struct thread *t, int status)
{
	if (t->state == TS_LIVE) {
		sess_close_events(s, t);
		sess_flush_pending(s);
		sess_emit_thread(s, t, LP_EV_THREAD_EXIT, status);
	}
	t->state = TS_EXITING;
}

void sess_thread_free(struct lp_session *s, struct thread *t)
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

/* The exec marker: what follows in @t's process is the new program's. */
/* Objects untracked is a note, not a failure: the profile stands without them. */
static void alloc_setup(struct lp_session *s, pid_t pid)
{
	int err = sess_alloc_setup(s, pid);

	if (err && s->opts.verbose)
		fprintf(stderr, "lociprof: heap objects not tracked: %s\n", strerror(-err));
	if (err)
		s->stats.last_alloc_error = err;
}

static void emit_exec(struct lp_session *s, struct thread *t)
{
	struct lp_event ev;
	char path[64];
	ssize_t n;

	memset(&ev, 0, sizeof(ev));
	ev.type = LP_EV_EXEC;
	ev.exec.time = sess_now_ns();
	ev.exec.pid = t->proc->pid;
	ev.exec.tid = t->tid;
	snprintf(path, sizeof(path), "/proc/%d/exe", t->proc->pid);
	n = readlink(path, ev.exec.filename, sizeof(ev.exec.filename) - 1);
	ev.exec.filename[n > 0 ? n : 0] = '\0';
	sess_dispatch(s, &ev);
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
				sess_thread_free(s, u);
			}
		}
	}
	if (t->state == TS_LIVE) {
		read_cpu_time(t);
		sess_close_events(s, t);
		sess_flush_pending(s);
		sess_emit_thread(s, t, LP_EV_THREAD_EXIT, 0);
	}
	if (s->opts.fac->flush)
		s->opts.fac->flush(&t->proc->dctx);
	if (s->exec_seen)	/* not lociprof's own exec of the program */
		emit_exec(s, t);
	t->state = TS_NEW;
	s->exec_seen = 1;
	symbols__read_proc_maps(t->proc->pid, sess_emit_mmap, s);
	alloc_setup(s, t->proc->pid);
	sess_thread_setup(s, t);
}

static int is_group_stop_sig(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* A new thread whose first stop beat its parent's clone event. */
static struct thread *thread__early(struct lp_session *s, pid_t tid)
{
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
	return thread__new(s, tid, tgid, 0);
}

/* @t cloned or forked: track the child, set it up if it already stopped. */
static void handle_clone(struct lp_session *s, struct thread *t, int event)
{
	unsigned long child = 0;
	struct thread *c;

	ptrace(PTRACE_GETEVENTMSG, t->tid, 0, &child);
	c = sess_thread_find(s, child);
	if (!c) {
		pid_t pid = event == PTRACE_EVENT_CLONE ? t->proc->pid : (pid_t)child;
		char path[64];

		/*
		 * Its first stop and its exit may both have been reaped
		 * before this event: then it is gone, do not track it.
		 */
		snprintf(path, sizeof(path), "/proc/%d/task/%lu", pid, child);
		if (access(path, F_OK) == 0)
			c = thread__new(s, child, pid, t->tid);
	} else {
		c->parent_tid = t->tid;
	}
	if (c && c->seen_stop && c->state == TS_NEW) {
		sess_thread_setup(s, c);
		resume(c->tid, 0);
	}
	sess_thread_tls(s, t);
	resume(t->tid, 0);
}

/*
 * The first thread was set up at its exec, before ld.so set its thread
 * pointer: stopped later (its first clone, or its exit), it has one, for
 * its %fs-relative samples and, in LP_EV_THREAD_TLS, the names of its TLS.
 */
void sess_thread_tls(struct lp_session *s, struct thread *t)
{
	if (t->fs_base)
		return;
	sess_read_segment_bases(t);
	if (t->fs_base)
		sess_emit_thread(s, t, LP_EV_THREAD_TLS, 0);
}

/* A PTRACE_EVENT stop of @t; 0 if @event is none (a signal-delivery stop). */
static int handle_event(struct lp_session *s, struct thread *t, int event, int sig)
{
	unsigned long st = 0;

	switch (event) {
	case PTRACE_EVENT_CLONE:
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		handle_clone(s, t, event);
		return 1;
	case PTRACE_EVENT_EXEC:
		handle_exec(s, t);
		resume(t->tid, 0);
		return 1;
	case PTRACE_EVENT_EXIT:
		sess_thread_tls(s, t);
		ptrace(PTRACE_GETEVENTMSG, t->tid, 0, &st);
		read_cpu_time(t);
		thread__gone(s, t, (int)st);
		resume(t->tid, 0);
		return 1;
	case PTRACE_EVENT_STOP:
		if (is_group_stop_sig(sig)) {
			ptrace(PTRACE_LISTEN, t->tid, 0, 0);
			return 1;
		}
		/*
		 * First stop of a new thread, or our PTRACE_INTERRUPT. The forked
		 * child before its exec runs our code: nothing to trace yet.
		 */
		if (t->state == TS_NEW && (t->parent_tid || s->exec_seen))
			sess_thread_setup(s, t);
		resume(t->tid, 0);
		return 1;
	default:
		return 0;
	}
}

/* A signal-delivery stop: our held sample, our SIGCONT, or the program's. */
static void handle_signal(struct lp_session *s, struct thread *t, int sig)
{
	siginfo_t si;

	if (sig == SIGTRAP && ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) == 0 &&
	    si.si_code == TRAP_PERF) {
		/* ours: the thread is held while its sample is handled */
		s->stats.sync_stops++;
		s->held_tid = t->tid;
		sess_drain_all(s);
		s->held_tid = 0;
		sess_account_held(s, t);
		resume(t->tid, 0);
		return;
	}
	if (t->state == TS_NEW && !t->parent_tid && !s->exec_seen && sig == SIGCONT) {
		resume(t->tid, sig);	/* ours, from start_command: not the program's */
		return;
	}
	s->stats.signals_forwarded++;
	resume(t->tid, sig);
}

void sess_handle_wait(struct lp_session *s, pid_t tid, int status)
{
	struct thread *t = sess_thread_find(s, tid);

	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		if (t) {
			thread__gone(s, t, status);
			sess_thread_free(s, t);
		}
		if (tid == s->pid)
			s->wait_status = status;
		return;
	}
	if (!WIFSTOPPED(status))
		return;
	if (!t && !(t = thread__early(s, tid))) {
		resume(tid, 0);
		return;
	}
	t->seen_stop = 1;
	if (!handle_event(s, t, (unsigned)status >> 16, WSTOPSIG(status)))
		handle_signal(s, t, WSTOPSIG(status));
}

/* Why ptrace said EPERM for @pid, from what this machine shows (no guess). */
static void ptrace_eperm_why(pid_t pid, char *buf, size_t len)
{
	char path[64], line[256];
	int tracer = 0, scope = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "TracerPid: %d", &tracer) == 1)
			break;
	if (f)
		fclose(f);
	f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
	if (f) {
		if (fscanf(f, "%d", &scope) != 1)
			scope = -1;
		fclose(f);
	}
	if (tracer > 0)
		snprintf(buf, len, " (process %d is already traced by %d: detach that debugger)",
			 pid, tracer);
	else if (pid == 1)
		snprintf(buf, len, " (the init process cannot be traced)");
	else if (scope >= 1)
		snprintf(buf, len, " (kernel.yama.ptrace_scope is %d%s)", scope,
			 scope == 3 ? ": no process may be traced until reboot" :
			 geteuid() ? ": run as root, or lower it" : "");
	else if (geteuid())
		snprintf(buf, len, " (it is not yours to trace: run as its owner or as root)");
	else
		snprintf(buf, len, " (refused although we are root: a security module?)");
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
		char why[160] = "";

		err = -errno;
		if (err == -EPERM)
			ptrace_eperm_why(pid, why, sizeof(why));
		sess_seterr(s, "cannot trace the program: ptrace: %s%s", strerror(-err), why);
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

		if (tid <= 0 || sess_thread_find(s, tid))
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
	alloc_setup(s, pid);
	do {
		err = attach_threads(s, pid, &added);
		if (err) {
			char why[160] = "";

			if (err == -EPERM)
				ptrace_eperm_why(pid, why, sizeof(why));
			sess_seterr(s, "cannot attach to %d: %s%s", pid, strerror(-err), why);
			return err;
		}
	} while (added && ++rounds < 100);
	symbols__read_proc_maps(pid, sess_emit_mmap, s);
	return 0;
}

void sess_check_exec_failure(struct lp_session *s)
{
	int err = 0;

	if (s->exec_errno_fd < 0)
		return;
	if (!s->exec_seen && read(s->exec_errno_fd, &err, sizeof(err)) == sizeof(err))
		sess_seterr(s, "cannot run the program: %s", strerror(err));
	close(s->exec_errno_fd);
	s->exec_errno_fd = -1;
}

/*
 * No tracee is left although some threads are still listed: their exits
 * were lost (should not happen; never loop forever on it).
 */
void sess_forget_untraced(struct lp_session *s)
{
	int i;

	for (i = 0; i < THREAD_HASH; i++) {
		while (s->threads[i]) {
			struct thread *t = s->threads[i];

			thread__gone(s, t, 0);
			sess_thread_free(s, t);
			s->stats.threads_lost++;
		}
	}
}

#define FINISH_GRACE_NS	2000000000ull	/* SIGTERM to SIGKILL of a forked program */

/* Stop watching: detach from every thread (-p), or kill the child. */
void sess_finish(struct lp_session *s)
{
	u64 deadline;
	int i, status, killed;
	pid_t tid;

	sess_drain_all(s);
	for (i = 0; i < THREAD_HASH; i++) {
		struct thread *t;

		for (t = s->threads[i]; t; t = t->hnext)
			if (t->state == TS_LIVE) {
				read_cpu_time(t);
				sess_close_events(s, t);
				sess_flush_pending(s);
				sess_emit_thread(s, t, LP_EV_THREAD_EXIT, -1);
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
	deadline = sess_now_ns() + FINISH_GRACE_NS;
	killed = s->attached;
	while (s->nlive > 0) {
		struct thread *t;

		tid = waitpid(-1, &status, __WALL | (killed ? 0 : WNOHANG));
		if (tid == 0) {
			if (sess_now_ns() < deadline) {
				usleep(1000);
				continue;
			}
			kill(s->pid, SIGKILL);
			killed = 1;
			continue;
		}
		if (tid < 0)
			break;
		t = sess_thread_find(s, tid);
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			if (t)
				sess_thread_free(s, t);
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
			sess_thread_free(s, t);
		}
	}
}
