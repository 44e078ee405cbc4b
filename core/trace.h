/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory access traces: what `ribench --trace FILE` writes and
 * `lociprof reuse --trace FILE` reads. Text, one access per line, in the
 * order the accesses happened (see lociprof-trace(5)):
 *
 *	# comment
 *	TID OP ADDRESS [SIZE [TIME]]
 *	1234 R 0x7f3a12c0 8
 *	1235 W 7f3a12c8 4 1700000123
 *
 * A file compressed with zstd is recognized by its magic number and
 * decompressed as it streams. "-" reads standard input. Valgrind lackey's
 * --trace-mem=yes output is recognized by its first line that is not
 * blank or a '#' comment (" L 0402c1e8,8", "I  04011a70,3", "==123== ...")
 * and read as one thread's (tid 1) loads and stores; a modify (M) is a
 * load then a store; an instruction fetch (I) is no access, its address is
 * the ip of the accesses after it.
 *
 *   struct trace *t;
 *   struct trace_access a;
 *   char err[256];
 *   if (trace__open(&t, path, err, sizeof(err)) < 0) ...
 *   while ((ret = trace__next(t, &a, err, sizeof(err))) > 0) ...
 *   trace__close(t);		// ret < 0: err says file:line: what
 */
#ifndef LP_TRACE_H
#define LP_TRACE_H
#include <stddef.h>
#include "core/types.h"

#define TRACE_LINE_MAX 4096	/* longest accepted line, newline included */

enum trace_op {
	TRACE_READ = 0,
	TRACE_WRITE = 1,
};

struct trace_access {
	u32 tid;
	enum trace_op op;
	u64 addr;
	u32 size;		/* bytes; 0 if not given */
	int has_time;
	u64 time;		/* as written; lociprof uses the line order */
	u64 ip;			/* lackey: the instruction's address (its I line); 0: not known */
	u32 ip_size;		/* lackey: its length in bytes; 0: not known */
};

enum trace_format {
	TRACE_FMT_UNKNOWN = 0,	/* no access line read yet */
	TRACE_FMT_NATIVE = 1,	/* lociprof-trace(5) */
	TRACE_FMT_LACKEY = 2,	/* valgrind --tool=lackey --trace-mem=yes */
};

struct trace;

/* 0, or -errno with the reason in @err. */
int trace__open(struct trace **tp, const char *path, char *err, size_t errlen);

/* 1: an access in @a; 0: end of trace; -EINVAL (malformed, err says
 * "PATH:LINE: what"), -EIO or another -errno. */
int trace__next(struct trace *t, struct trace_access *a, char *err,
		size_t errlen);

void trace__close(struct trace *t);

/* What the trace was detected as so far. */
enum trace_format trace__format(const struct trace *t);

/*
 * One line of text without its newline: 1 and @a filled for an access, 0
 * for a blank or comment line, -EINVAL with the reason in @err.
 */
int trace__parse_line(const char *line, struct trace_access *a, char *err,
		      size_t errlen);

/*
 * One lackey line: 1 and @a filled (tid 1) for a load or store, 2 for a
 * modify (@a is its load; the store to the same bytes follows), 0 for an
 * instruction fetch, a valgrind "==" line or a blank one, -EINVAL with the
 * reason in @err.
 */
int trace__parse_lackey_line(const char *line, struct trace_access *a, char *err,
			     size_t errlen);
#endif
