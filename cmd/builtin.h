/* SPDX-License-Identifier: GPL-2.0 */
#ifndef LP_BUILTIN_H
#define LP_BUILTIN_H
#include <stdio.h>

/*
 * Every command's usage text: the first line is the synopsis, the same text
 * as the man page's SYNOPSIS (test/e2e/usage.sh checks it), then options.
 */
struct lp_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;		/* a fixed text, or */
	void (*usage_fn)(FILE *f);	/* one generated from an option table */
	const char *summary;
};

extern const struct lp_cmd lp_commands[];
extern const char lp_version_string[];

/* Print @usage to stdout and exit 0 (err == 0), or to stderr and exit 129. */
__attribute__((noreturn)) void usage_exit(const char *usage, int err);

/* git-style messages: "lociprof <cmd>: error: ..." */
extern const char *lp_cmd_name;
void lp_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
__attribute__((noreturn)) void lp_die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* Parse a non-negative integer option value; dies with a clear message. */
unsigned long long parse_ull_opt(const char *opt, const char *val);

int cmd_list(int argc, char **argv);
int cmd_test(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_pesbench(int argc, char **argv);
int cmd_script(int argc, char **argv);
int cmd_coherence(int argc, char **argv);

void record_usage(FILE *f);
void report_usage(FILE *f);
extern const char list_usage[];
extern const char test_usage[];
extern const char compare_usage[];
extern const char pebs_ibs_compare_usage[];
extern const char pesbench_usage[];
extern const char script_usage[];
extern const char coherence_usage[];

#endif
