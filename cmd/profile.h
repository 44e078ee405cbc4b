/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Options and wiring every profiling command shares (record, comdetect,
 * reuse): which facility, the period, attach or run, sync or async, and the
 * run of a session with Ctrl-C handling.
 */
#ifndef LP_CMD_PROFILE_H
#define LP_CMD_PROFILE_H
#include <sys/types.h>

#include "core/session.h"

struct profile_opts {
	const char *sampler;	/* auto|pebs|ibs|soft */
	unsigned long long period;
	unsigned long long freq;
	pid_t pid;		/* -p */
	const char *output;	/* -o */
	int sync;		/* -1: command's default */
	int prev_insn;
	int ring_pages;
	int nslots;
	int no_watchpoints;	/* they never fire here: arm none */
	int objects;		/* --objects: track heap allocations */
	u64 objects_max;	/* --objects-max */
	int objects_budget;	/* --objects-budget */
	u32 objects_stack;	/* --objects-stack */
	int objects_all_threads;	/* --objects-all-threads */
	int follow_fork;
	int ldlat;
	int verbose;
	int quiet;
	int lost_ok;		/* threads that could not be monitored do not fail the run */
};

/* Options every profiling command takes (record, comdetect, reuse), less -o. */
struct lp_opt;
extern const struct lp_opt profile_options[];

void profile_opts__init(struct profile_opts *po);

/*
 * Pick the facility (probing), fill session options, create the session and
 * start or attach the program (argv after the options). Dies with advice
 * on failure; returns the session.
 */
/* --sampler trace=FILE: FILE, else NULL */
const char *profile__trace_path(const struct profile_opts *po);
struct lp_session *profile__start(const struct profile_opts *po, int argc,
				  char **argv, int default_sync);

/* Run with SIGINT/SIGTERM stopping the session cleanly. */
int profile__run(struct lp_session *s);

/* Print the sampling summary (fractions with an address and why not). */
void profile__print_stats(const struct lp_session *s, const struct profile_opts *po);

/* The target's exit as lociprof's exit code, with a note for a signal. */
int profile__exit_code(const struct lp_session *s, const struct profile_opts *po);
/*
 * The exit code for a program's wait status @st (-1: none), 128 + N if
 * signal N killed it, saying so on stderr unless @quiet: "stopped the
 * program" if lociprof did, on @stopped (SIGINT or SIGTERM; 0: it did not).
 */
int profile__status_code(int st, int stopped, int quiet);



/* A sink feeding mappings to a struct lp_symbols (@arg), for reports. */
int profile__symbols_sink(void *arg, const struct lp_event *ev, struct lp_actions *acts);
/* The program's command line as one string (malloc'd), for titles. */
char *profile__join_args(int argc, char **argv);

/* Saving the event stream (-o, record): a sink that writes a data file. */
struct lp_datafile;
struct recorder {
	struct lp_datafile *file;
	const char *path;
	int err;		/* first write error */
	u64 flushed_ns;		/* last periodic flush */
};

/* Create @path with a header describing this machine and session. Dies on error. */
/* @analysis and @config (its recorded settings) are "" for a plain record;
 * @flags (LP_DATA_SAMPLING_*) are added to what the session says. */
void recorder__open(struct recorder *r, const char *path, struct lp_session *s,
		    int argc, char **argv, const char *analysis, const char *config,
		    u64 flags);
int recorder__sink(void *arg, const struct lp_event *ev, struct lp_actions *acts);
/* Close; prints a summary line unless quiet. Returns 0 or -errno. */
int recorder__close(struct recorder *r, int quiet);
#endif
