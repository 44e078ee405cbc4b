/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Option tables: one row per option yields its getopt_long entry, its line
 * in the -h text and, for an analysis setting, its key=value in a data
 * file's header (Documentation/architecture.md, "Analysis descriptors").
 * A command hands a list of groups (table + the struct the values land in)
 * to lp_opts__parse; no command writes a getopt code by hand.
 */
#ifndef LP_CMD_OPTIONS_H
#define LP_CMD_OPTIONS_H
#include <stddef.h>
#include <stdio.h>

enum lp_opt_type {
	LP_OPT_FLAG,	/* int field = 1 */
	LP_OPT_CLEAR,	/* int field = 0 */
	LP_OPT_COUNT,	/* int field += 1 (-v -v) */
	LP_OPT_INT,	/* int field, in [min, max] */
	LP_OPT_U64,	/* unsigned long long field, in [min, max] (max 0: any) */
	LP_OPT_DOUBLE,	/* double field, in (min, max] */
	LP_OPT_STR,	/* const char * field: the argument itself */
	LP_OPT_ENUM,	/* int field: index of the argument in names[] */
	LP_OPT_CALL,	/* parse() and, for a recorded setting, format() */
};

/* lp_opt.flags */
#define LP_OPT_CFG	(1u << 0)	/* a setting recorded in the data file */
#define LP_OPT_RPT	(1u << 1)	/* report accepts it too (output, post-processing) */

struct lp_opt {
	const char *name;	/* long name, without the dashes */
	int key;		/* short letter, or 0 */
	const char *arg;	/* the argument's name in -h; NULL: takes none */
	const char *help;	/* -h text; '\n' continues on an indented line */
	enum lp_opt_type type;
	size_t off;		/* offset of the field in the group's struct */
	double min, max;
	const char *const *names;	/* LP_OPT_ENUM, NULL-terminated */
	/* LP_OPT_CALL: 0, or -EINVAL after lp_err said why */
	int (*parse)(void *obj, const char *arg);
	/* LP_OPT_CALL with LP_OPT_CFG: the value as an argument parse() takes */
	void (*format)(const void *obj, char *buf, size_t len);
	unsigned flags;
};

/* A table (ended by a row with a NULL name) and the struct its values fill. */
struct lp_optgroup {
	const struct lp_opt *opts;
	void *obj;
	const char *title;	/* -h heading before the group, or NULL */
	const char *owner;	/* for report: the analysis the group belongs to */
	int off;		/* report: the group does not apply (says why) */
};

/*
 * Parse argv (argv[0] is the command) with getopt_long, "+" so parsing
 * stops at the program. -h prints the usage and exits 0; a bad option or
 * value prints why and the usage to stderr and exits 129. Returns optind.
 */
int lp_opts__parse(int argc, char **argv, struct lp_optgroup *g, int ng,
		   const char *head, const char *tail);

/* The -h text: @head (synopsis and description), the groups' options, @tail. */
void lp_opts__usage(FILE *f, const struct lp_optgroup *g, int ng,
		    const char *head, const char *tail);
/* Print the usage (to stdout, exit 0; to stderr, exit 129). */
__attribute__((noreturn)) void lp_opts__usage_exit(const struct lp_optgroup *g, int ng,
						   const char *head, const char *tail,
						   int err);

/* Recorded settings (LP_OPT_CFG) of @g as "name=value name=value". */
int lp_opts__encode(const struct lp_optgroup *g, char *buf, size_t len);
/* Apply "name=value ..." from a data file; -EINVAL after lp_err on a bad one. */
int lp_opts__decode(const struct lp_optgroup *g, const char *text);

/* Set one option by its long name (an argument of NULL for a flag). */
int lp_opts__set(const struct lp_optgroup *g, const char *name, const char *arg);

#endif
