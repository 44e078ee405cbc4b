/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Analysis descriptors: everything a command needs to run one analysis
 * live, save it, replay it with `report` and print it. `comdetect`,
 * `reuse` and `report` are shells over this table; adding an analysis is
 * one new cmd/an-NAME.c with its descriptor plus one row in lp_analyses[]
 * (Documentation/architecture.md, "Analysis descriptors").
 */
#ifndef LP_CMD_ANALYSES_H
#define LP_CMD_ANALYSES_H
#include <stdio.h>

#include "cmd/options.h"
#include "core/analysis.h"
#include "core/topology.h"
#include "core/types.h"

struct lp_symbols;

/*
 * What every report says about the run. Filled in one place
 * (analysis__run_info) from the session, live or replayed.
 */
struct lp_run {
	struct lp_symbols *syms;
	u32 pid;
	const char *sampler;		/* facility name, "exact" for a trace */
	const char *period_unit;	/* "ns", "events" or "" */
	u64 period;
	const char *command;		/* the profiled command line, for titles */
	u64 samples, samples_addr;
	u64 cpu_ns;			/* CPU time of the profiled threads */
	int sync;			/* 1 held, 0 not held, -1 n/a */
	u64 threads_unmonitored;	/* live: their events could not be opened */
	int traps_dead;			/* live: watchpoints open here but never fire */
	const struct lp_topology *topo;	/* the recording machine's, or NULL */
};

/* Output options every analysis takes, live and in report. */
struct lp_output {
	int top;			/* -1 until given: the analysis's default */
	int color;
	const char *json, *csv, *svg;	/* NULL: not asked for */
	const char *report;		/* the text report to this file, not stdout */
	int report_stderr;		/* ... or to stderr */
	int quiet;			/* no terminal report */
};

struct lp_analysis_desc {
	const char *name;		/* command, and the data file's analysis */
	const char *summary;		/* one line for `lociprof --help` */
	const char *head;		/* -h: synopsis line(s) and description */
	const char *top_help;		/* --top's help ("cache lines to show") */
	const char *svg_help;		/* --svg's help (what the pictures show) */
	int default_top;
	int default_sync;		/* hold a sampled thread by default */
	/*
	 * 1: every result comes from watchpoint traps (reuse), so a machine
	 * whose watchpoints never fire cannot run it live; 0: traps add to
	 * what samples find (comdetect), the report says they are missing.
	 */
	int needs_traps;
	/* settings and options: a table over a struct of opts_size bytes */
	const struct lp_opt *opts;
	size_t opts_size;
	void (*opts_init)(void *opts);
	/* extra -h lines after the options (may be NULL) */
	const char *tail;
	/* watchpoint slots per thread the analysis uses */
	int (*nslots)(const void *opts);
	/*
	 * Optional: a run without a program (reuse --trace). Returns an exit
	 * code, or -1 when the options ask for a live run.
	 */
	int (*run_alone)(void *opts, const struct lp_output *out, int argc, char **argv);
	/*
	 * Optional, live runs of a real facility only (not --sampler
	 * trace=), before the program starts: measure on this machine what
	 * the settings leave to measure (reuse: its resolution), so it is
	 * recorded with them. @sync: samples will hold their thread.
	 */
	void (*measure)(void *opts, int sync, int quiet);
	/* Optional: settings recorded before data-file 1.2 ("reuse,shared"). */
	int (*legacy)(void *opts, const char *suffix);
	/* Lifetime: the core analysis for @run; NULL and errno on failure. */
	struct lp_analysis *(*new)(void *opts, const struct lp_run *run);
	/* After the stream ended: build the result. 0 or -errno. */
	int (*result)(void *opts, const struct lp_run *run);
	/* What the printers print: the result with @run and @out. */
	const void *(*view)(void *opts, const struct lp_run *run, const struct lp_output *out);
	void (*delete)(void *opts);
	/* Printers of a view (NULL: the analysis has no such output, nor its option). */
	void (*print)(const void *view, FILE *f);
	int (*json)(const void *view, const char *path);
	int (*csv)(const void *view, const char *dir);
	int (*svg)(const void *view, const char *dir);
};

extern const struct lp_analysis_desc *const lp_analyses[];
const struct lp_analysis_desc *analysis__find(const char *name);

/* The analysis as a command: `lociprof comdetect ...`. Returns the exit code. */
int analysis__cmd(const struct lp_analysis_desc *d, int argc, char **argv);
/* Its -h text (lociprof help NAME). */
void analysis__usage(const struct lp_analysis_desc *d, FILE *f);

/* The output options (--top, --json, [--csv], [--svg], --stdio, --report) in @buf (>= 7 rows). */
const struct lp_opt *analysis__output_opts(const char *top_help, int csv, const char *svg_help,
					   struct lp_opt *buf);
void analysis__output_init(struct lp_output *out);
/* Print and write what @out asks for; an exit code (0 or 128). */
int analysis__output(const struct lp_analysis_desc *d, void *opts, const struct lp_run *run,
		     const struct lp_output *out);

/* The report header of a run (live or replayed session), in one place. */
struct lp_session;
void analysis__run_info(struct lp_run *run, struct lp_session *s, const char *command);

/* The report line a run that lost threads starts with (nothing otherwise). */
void analysis__run_warning(const struct lp_run *run, FILE *f);

/* The data object at @addr in the run's process, as every report names it. */
void analysis__object_label(const struct lp_run *run, u64 addr, char *buf, size_t len);
struct lp_object;
struct lp_srcloc;
struct json_writer;
/*
 * "objects.c:69": heap block @b's allocation site ("sort+0x1a2b" in a
 * program without symbols: loc->function NULL then); 0, or -ENOENT.
 */
int analysis__heap_site(const struct lp_run *run, const struct lp_object *b, char *buf,
			size_t len, struct lp_srcloc *loc);
/*
 * One call-path frame (a return address): "func file:line", or without a
 * symbol the call instruction as symbols__code_unnamed() names it.
 */
void analysis__frame_name(const struct lp_run *run, u32 pid, u64 ret_addr, char *buf,
			  size_t len);
/*
 * JSON members of a data object: "object" (@label), "kind", "address", "size",
 * and of heap block @b (may be NULL) "site", "function" (when known), "callpath".
 */
void analysis__json_object(const struct lp_run *run, struct json_writer *w, const char *label,
			   const char *kind, u64 start, u64 size, const struct lp_object *b);
/* Create @dir for --csv/--svg files if it is not there. 0 or -errno. */
int analysis__make_dir(const char *dir);

/* The analysis settings as recorded in a data file, and back. */
int analysis__encode(const struct lp_analysis_desc *d, void *opts, char *buf, size_t len);
int analysis__decode(const struct lp_analysis_desc *d, void *opts, const char *text);

#endif
