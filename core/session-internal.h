/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to core/session*.c: the session, its threads and processes, and
 * what the three files call of one another. session.c runs the loop and
 * dispatches events (live or replayed); session-thread.c is the ptrace
 * side and the thread table; session-events.c the perf events, rings and
 * watchpoints of each thread (Documentation/architecture.md, "Session").
 */
#ifndef LP_SESSION_INTERNAL_H
#define LP_SESSION_INTERNAL_H
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

#include "core/datafile.h"
#include "core/perf-record.h"
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

#define LP_ALLOC_PROBES 32	/* entry and return probes of the allocator */
#define LP_ALLOC_NEST 8		/* allocator calls pending per thread (realloc -> malloc) */

/* The allocator probes every thread gets (session-alloc.c). */
struct allocprobes {
	char path[4096];	/* the file probed (attrs' config1 points here) */
	char cxxpath[4096];	/* libstdc++ when the program calls operator new, else "" */
	int n;
	struct perf_event_attr attrs[LP_ALLOC_PROBES];
	u8 fn[LP_ALLOC_PROBES];	/* enum lp_alloc_fn */
	u8 ret[LP_ALLOC_PROBES];
	u64 nallocs;		/* LP_EV_ALLOC emitted */
	int stopped;		/* objects_max reached: probes closed */
	/* the cost budget (--objects-budget): probe hits x their measured cost */
	u64 hits;		/* allocator probe records read: one trap each */
	u64 hit_ns;		/* one hit's cost: calib_ns, then from the hits (burst()) */
	u64 calib_ns;		/* measured at setup; 0: not measured */
	u64 dense_ns, dense_runs;	/* burst(): the dense runs' ns per hit, summed */
	u64 sparse_runs;
	u64 t0;			/* CLOCK_MONOTONIC ns at setup */
	int paused;		/* over budget: probes off until it allows more */
	u64 paused_at;
	struct lp_unwinder *unwinder;	/* DWARF call paths (--objects-stack) */
	int text_paused;	/* ...by writing the original bytes back (session-alloc.c) */
	u8 orig[LP_ALLOC_PROBES];	/* the byte the kernel's int3 replaced */
	int grave_fd;		/* read end: EOF once the buried probes are released */
};

/* An allocator call entered, its return not seen yet. */
struct apend {
	u64 size, old;		/* old: realloc's block, posix_memalign's memptr */
	u8 fn;
	u8 skip;		/* not an object (a file mapping): pair, emit nothing */
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
	u64 cpu_ns;		/* CPU time used since set up, read when it exits */
	u64 cpu_ns0;		/* its CPU time when set up (-p: before the attach) */
	u64 sample_ns;		/* raw CPU time read in its latest sample */
	u64 held_ns;		/* CPU time its held (--sync) stops cost so far */
	u32 last_cpu;
	int afds[LP_ALLOC_PROBES];	/* allocator probes, into the ring */
	u64 aids[LP_ALLOC_PROBES];
	u8 aprobe[LP_ALLOC_PROBES];	/* index in allocprobes */
	int nafds;
	struct apend apend[LP_ALLOC_NEST];
	int napend;
	u64 aburst_t0;		/* time of the first hit of its current run of hits */
	u32 aburst_n;		/* hits in that run */
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
	u64 min_addr;		/* vm.mmap_min_addr: no data address below it */
	int ring_pages;		/* data pages of new rings: halved when the budget runs low */
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
	struct lp_datafile *replay;	/* replaying this file: nothing runs */
	struct lp_tracesim *trace;	/* a trace-driven run (session-trace.c) */
	struct allocprobes *alloc;	/* NULL: objects not tracked */
	int *grave;			/* allocator probe fds to release (session-alloc.c) */
	int ngrave, capgrave;
	char err[512];
};

/* session.c */
void sess_seterr(struct lp_session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
u64 sess_now_ns(void);
void sess_dispatch(struct lp_session *s, const struct lp_event *ev);
int sess_pending_push(struct lp_session *s, const struct lp_event *ev);
void sess_flush_pending(struct lp_session *s);

/* session-trace.c: the trace-driven facility */
struct lp_tracesim;
int sess_trace_run(struct lp_session *s);
void sess_trace_execute(struct lp_session *s);
void sess_trace_delete(struct lp_tracesim *tm);

/* session-thread.c: ptrace and the thread table */
struct thread *sess_thread_find(struct lp_session *s, pid_t tid);
void sess_thread_free(struct lp_session *s, struct thread *t);
/* The thread's CPU time so far (schedstat), 0 if unknown. */
u64 sess_thread_cpu_ns(const struct thread *t);
void sess_handle_wait(struct lp_session *s, pid_t tid, int status);
void sess_check_exec_failure(struct lp_session *s);
void sess_forget_untraced(struct lp_session *s);
void sess_finish(struct lp_session *s);

/* session-alloc.c: allocator uprobes */
int sess_alloc_setup(struct lp_session *s, pid_t pid);
void sess_alloc_free(struct lp_session *s);
void sess_alloc_open(struct lp_session *s, struct thread *t);
int sess_alloc_big_ring(const struct lp_session *s, const struct thread *t);
void sess_alloc_close(struct lp_session *s, struct thread *t);
void sess_alloc_bury(struct lp_session *s);
int sess_alloc_sample(struct lp_session *s, struct thread *t, u64 id,
		      const struct perf_event_header *h);
/* Between drains: reopen paused probes when the budget allows. */
void sess_alloc_tick(struct lp_session *s);
/* How long the session may sleep between drains (shorter while probes trap). */
int sess_alloc_drain_ms(const struct lp_session *s);
/* At the end of the run: the time paused so far into the stats. */
void sess_alloc_finish(struct lp_session *s);

/* session-events.c: perf events, rings, watchpoints */
int sess_execute_actions(struct lp_session *s);
void sess_drain_all(struct lp_session *s);
void sess_emit_thread(struct lp_session *s, struct thread *t, u32 type, int status);
void sess_close_events(struct lp_session *s, struct thread *t);
void sess_thread_setup(struct lp_session *s, struct thread *t);
int sess_emit_mmap(void *arg, const struct lp_mmap *m);
void sess_account_held(struct lp_session *s, struct thread *t);
/* fs_base and gs_base of stopped thread @t, 0 where unreadable */
void sess_read_segment_bases(struct thread *t);
void sess_thread_tls(struct lp_session *s, struct thread *t);

#endif
