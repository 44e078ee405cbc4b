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
 * decompressed as it streams. "-" reads standard input.
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
};

struct trace;

/* 0, or -errno with the reason in @err. */
int trace__open(struct trace **tp, const char *path, char *err, size_t errlen);

/* 1: an access in @a; 0: end of trace; -EINVAL (malformed, err says
 * "PATH:LINE: what"), -EIO or another -errno. */
int trace__next(struct trace *t, struct trace_access *a, char *err,
		size_t errlen);

void trace__close(struct trace *t);

/*
 * One line of text without its newline: 1 and @a filled for an access, 0
 * for a blank or comment line, -EINVAL with the reason in @err.
 */
int trace__parse_line(const char *line, struct trace_access *a, char *err,
		      size_t errlen);
#endif
