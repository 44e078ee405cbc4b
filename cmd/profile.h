/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Options and wiring every profiling command shares (record, comdetect,
 * reuse): which facility, the period, attach or run, sync or async, and the
 * run of a session with Ctrl-C handling.
 */
#ifndef LP_CMD_PROFILE_H
#define LP_CMD_PROFILE_H
#include <getopt.h>
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
	int follow_fork;
	int ldlat;
	int counters;		/* the analysis wants loads+stores counts */
	int verbose;
	int quiet;
};

/* Long options every profiling command accepts; the codes are >= 0x200. */
#define PROFILE_LONG_OPTS                                                 \
	{ "pid", required_argument, NULL, 'p' },                           \
	{ "output", required_argument, NULL, 'o' },                        \
	{ "count", required_argument, NULL, 'c' },                         \
	{ "freq", required_argument, NULL, 'F' },                          \
	{ "sampler", required_argument, NULL, 0x200 },                     \
	{ "sync", no_argument, NULL, 0x201 },                              \
	{ "async", no_argument, NULL, 0x202 },                             \
	{ "prev-insn", required_argument, NULL, 0x203 },                   \
	{ "mmap-pages", required_argument, NULL, 'm' },                    \
	{ "follow-fork", no_argument, NULL, 0x205 },                       \
	{ "ldlat", required_argument, NULL, 0x206 },                       \
	{ "verbose", no_argument, NULL, 'v' },                             \
	{ "quiet", no_argument, NULL, 'q' }
#define PROFILE_SHORT_OPTS "p:o:c:F:m:vq"

/* The option lines of the usage text, shared so -h and man cannot drift. */
#define PROFILE_USAGE_OPTS                                                        \
	"    -p, --pid PID         attach to every thread of a running process\n"    \
	"    -c, --count PERIOD    sampling period (soft: ns of thread CPU time)\n"  \
	"    -F, --freq HZ         sample at this frequency instead of a period\n"   \
	"        --sampler NAME    auto|pebs|ibs|soft (auto: pebs, then ibs, then soft)\n" \
	"        --sync            hold a sampled thread until its watchpoints are armed\n" \
	"        --async           arm watchpoints without holding the thread\n"     \
	"        --prev-insn MODE  soft: whose access a sample reports: prefer (the\n" \
	"                          instruction before the sampled one, where the time\n" \
	"                          went, if its address can be recomputed; default),\n" \
	"                          fallback (only if the sampled one has none), off\n" \
	"    -m, --mmap-pages N    ring buffer data pages per thread (power of 2)\n" \
	"        --follow-fork     trace forked child processes too\n"               \
	"        --ldlat CYCLES    pebs: sample loads slower than CYCLES, with the\n" \
	"                          full data source (load-latency event)\n"        \
	"    -v, --verbose         more detail, including per-reason sample counts\n" \
	"    -q, --quiet           print only errors\n"

void profile_opts__init(struct profile_opts *po);
/* Handle one getopt code; 1 if it was a profile option, 0 if not. Dies on a bad value. */
int profile_opts__parse(struct profile_opts *po, int c, const char *arg,
			const char *usage);

/*
 * Pick the facility (probing), fill session options, create the session and
 * start or attach the program (argv after the options). Dies with advice
 * on failure; returns the session.
 */
struct lp_session *profile__start(const struct profile_opts *po, int argc,
				  char **argv, int default_sync,
				  const char *usage);

/* Run with SIGINT/SIGTERM stopping the session cleanly. */
int profile__run(struct lp_session *s);

/* Print the sampling summary (fractions with an address and why not). */
void profile__print_stats(const struct lp_session *s, const struct profile_opts *po);

/* The target's exit as lociprof's exit code, with a note for a signal. */
int profile__exit_code(const struct lp_session *s, const struct profile_opts *po);



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
};

/* Create @path with a header describing this machine and session. Dies on error. */
void recorder__open(struct recorder *r, const char *path, struct lp_session *s,
		    int argc, char **argv, const char *analysis);
int recorder__sink(void *arg, const struct lp_event *ev, struct lp_actions *acts);
/* Close; prints a summary line unless quiet. Returns 0 or -errno. */
int recorder__close(struct recorder *r, int quiet);
#endif
