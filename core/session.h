/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracing engine (Documentation/architecture.md; watchpoints: Documentation/facilities.md): runs or attaches to a program under
 * ptrace, follows its threads, opens the facility's sampling events and the
 * watchpoints on each thread remotely, reads the rings, decodes samples into
 * typed events, hands them to the consumers and executes their actions.
 */
#ifndef LP_SESSION_H
#define LP_SESSION_H
#include <sys/types.h>
#include "core/analysis.h"
#include "core/facility.h"

#define LP_MAX_SLOTS 4

/* Whose access a timer sample reports (facilities with decode_prev). */
enum lp_prev_insn {
	LP_PREV_OFF = 0,	/* the instruction at IP only */
	LP_PREV_FALLBACK,	/* IP's, else the previous instruction's */
	LP_PREV_PREFER,		/* the previous instruction's, else IP's */
};

struct lp_session_opts {
	const struct lp_facility_ops *fac;
	struct lp_sampling_opts sampling;
	int sync;		/* hold a sampled thread until its actions ran */
	int follow_fork;	/* trace forked children too */
	int nslots;		/* watchpoint slots per thread (<= debug registers) */
	/*
	 * Watchpoints never fire on this machine (probe__debug_registers()):
	 * arm and disarm actions are acknowledged and not carried out, so no
	 * breakpoint is opened and no thread is interrupted to move one.
	 */
	int no_watchpoints;
	int ring_pages;		/* data pages per thread ring (power of 2) */
	int prev_insn;		/* enum lp_prev_insn */
	int objects;		/* track heap allocations (allocator uprobes) */
	u64 objects_max;	/* ...the first this many per run, then stop (0: all) */
	int objects_all_threads;	/* ...in every thread, not only each process's first */
	u32 objects_budget;
	u32 objects_stack;	/* ...copying this much user stack for DWARF call paths (0: off) */	/* ...while the probes cost at most this % of the run (0: always) */
	int verbose;
};

struct lp_session_stats {
	u64 samples;			/* sample records read */
	u64 samples_addr;		/* ...that gave a data address */
	u64 samples_prev;		/* ...recovered from the previous insn */
	u64 noaddr[LP_NOADDR__MAX];	/* ...and why the rest did not */
	u64 traps;
	u64 stale_traps;		/* traps of a watch generation no longer kept */
	u64 arms, arm_moves, disarms, arm_errors;
	u64 arm_gone;			/* actions for threads that had exited */
	u64 sync_stops;			/* synchronous (held) samples */
	u64 lost;			/* records the kernel dropped */
	u64 throttled;
	u64 threads;			/* threads seen */
	u64 threads_lost;		/* listed but no longer traced (lost exit) */
	u64 threads_unmonitored;	/* traced, but their events could not be opened */
	int ring_pages;			/* data pages of the last rings mapped */
	u64 max_live_threads;
	u64 events;			/* events dispatched */
	u64 cpu_ns;			/* CPU time of the threads that exited */
	u64 signals_forwarded;
	int fds_at_start, fds_at_end;	/* lociprof's own descriptors */
	int last_arm_error;		/* -errno of the last failed arm */
	u64 allocs, frees;		/* LP_EV_ALLOC / LP_EV_FREE events */
	u64 alloc_unpaired;		/* allocator entries or returns without their pair */
	u64 alloc_open_errors;		/* allocator probes a thread could not open */
	int last_alloc_error;		/* -errno of the last one */
	int alloc_probes;		/* allocator probes per thread, 0: not tracked */
	u64 alloc_stopped_at;		/* time tracking stopped at objects_max, 0: never */
	u64 alloc_dwarf;		/* allocations whose path is a DWARF unwind */
	u64 alloc_hits;			/* allocator probe hits (records read) */
	u64 alloc_hit_ns;		/* the cost of one the budget used, 0: none */
	u64 alloc_calib_ns;		/* that cost measured at setup, 0: not measured */
	u64 alloc_dense_runs;		/* runs of hits that timed one (session-alloc.c) */
	u64 alloc_sparse_runs;		/* runs that were the program's work */
	u64 alloc_windows;		/* times the probes were opened (budget) */
	u64 alloc_paused_ns;		/* time they were closed by the budget */
};

/* Called for every event, in time order per drain; may push actions. */
typedef int (*lp_event_sink)(void *arg, const struct lp_event *ev,
			     struct lp_actions *acts);

struct lp_session;

int session__new(struct lp_session **out, const struct lp_session_opts *opts);
void session__delete(struct lp_session *s);

/* Consumers get every event in the order added. */
int session__add_sink(struct lp_session *s, lp_event_sink fn, void *arg);
int session__add_analysis(struct lp_session *s, struct lp_analysis *an);

/*
 * Fork and exec @argv under ptrace; the program is stopped at its exec and
 * starts running at session__run. Returns 0 or -errno (exec failure included:
 * -ENOENT for a missing program, with the errno of execvp).
 */
int session__start_command(struct lp_session *s, char *const argv[]);
/* Attach to every thread of a running process. */
int session__attach(struct lp_session *s, pid_t pid);

/*
 * A session that replays a data file (@f, opened with header @h) instead
 * of running a program: nothing is run or opened; the header names the
 * facility and period. -EPROTONOSUPPORT for a facility this build lacks.
 */
struct lp_datafile;
struct lp_data_header;
int session__new_replay(struct lp_session **out, struct lp_datafile *f,
			const struct lp_data_header *h);
/*
 * Feed every event of the file, in recorded order, to the sinks and
 * analyses, as the live run fed them; the actions they push are dropped
 * (executed live: their traps are in the file). Fills the same statistics
 * as the live run (those counted from events). 0, or the datafile error at
 * the first damaged event (the events before it were dispatched).
 */
int session__replay(struct lp_session *s);

/*
 * A session driven by a lociprof-trace file (@path) instead of a program:
 * the trace-driven facility samples every opts->sampling.period-th access
 * of each thread with exact access counters and simulated watchpoints
 * (Documentation/facilities.md, "Trace-driven"). session__run plays it.
 * 0, or -errno with the reason in @err.
 */
int session__new_trace(struct lp_session **out, const struct lp_session_opts *opts,
		       const char *path, char *err, size_t errlen);

/* Profile until the program exits or session__stop is called. */
int session__run(struct lp_session *s);

/* Async-signal-safe: ask session__run to stop (Ctrl-C). */
void session__stop(struct lp_session *s);

/*
 * The program's wait status (valid once it exited); -1 if it still runs
 * (attach mode: detached).
 */
int session__wait_status(const struct lp_session *s);
/* The shell-style exit code for lociprof: status, or 128+signal. */
int session__exit_code(const struct lp_session *s);

const struct lp_session_stats *session__stats(const struct lp_session *s);
pid_t session__pid(const struct lp_session *s);
/* A one-line description of the last failure, for the command to print. */
const char *session__error(const struct lp_session *s);

/* Count this process's open descriptors (for leak checks). */
int session__count_fds(void);



/* What was opened: the facility and its effective period (unit: fac->period_unit). */
const struct lp_facility_ops *session__facility(const struct lp_session *s);
u64 session__period(const struct lp_session *s);
int session__is_sync(const struct lp_session *s);
#endif
