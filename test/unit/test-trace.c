// SPDX-License-Identifier: GPL-2.0
/* Trace files: line syntax, errors with line numbers, zstd streaming. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "core/tests.h"
#include "core/trace.h"
#include "core/reuse-exact.h"

LP_TEST(test_trace_parse_good, "trace: parse TID OP ADDRESS [SIZE [TIME]] lines")
{
	struct trace_access a;
	char err[256];

	TEST_ASSERT(trace__parse_line("1234 R 0x7f3a12c0 8", &a, err, sizeof(err)) == 1,
		    "%.60s", err);
	TEST_ASSERT(a.tid == 1234 && a.op == TRACE_READ && a.addr == 0x7f3a12c0 &&
		    a.size == 8 && !a.has_time, "fields %u %d %llx %u", a.tid, a.op,
		    (unsigned long long)a.addr, a.size);
	TEST_ASSERT(trace__parse_line("  7\tw 7F 4 99\r", &a, err, sizeof(err)) == 1, "%.60s", err);
	TEST_ASSERT(a.tid == 7 && a.op == TRACE_WRITE && a.addr == 0x7f && a.size == 4 &&
		    a.has_time && a.time == 99, "tabs, lowercase op, no 0x, CR");
	TEST_ASSERT(trace__parse_line("5 W 0xFFFFFFFFFFFFFFFF", &a, err, sizeof(err)) == 1 &&
		    a.addr == UINT64_MAX && a.size == 0, "max address, no size");
	TEST_ASSERT(trace__parse_line("4294967295 R 0", &a, err, sizeof(err)) == 1 &&
		    a.tid == UINT32_MAX && a.addr == 0, "max tid");
	TEST_ASSERT(trace__parse_line("1 R 0 1 18446744073709551615", &a, err, sizeof(err)) == 1 &&
		    a.time == UINT64_MAX, "max time");
	TEST_ASSERT(trace__parse_line("# tid op addr", &a, err, sizeof(err)) == 0, "comment");
	TEST_ASSERT(trace__parse_line("   # indented", &a, err, sizeof(err)) == 0, "comment");
	TEST_ASSERT(trace__parse_line("", &a, err, sizeof(err)) == 0, "empty");
	TEST_ASSERT(trace__parse_line(" \t\r", &a, err, sizeof(err)) == 0, "blank");
	return TEST_OK;
}

LP_TEST(test_trace_parse_bad, "trace: malformed lines give -EINVAL and name the bad field")
{
	static const struct {
		const char *line, *msg;
	} bad[] = {
		{ "x R 0x10", "bad thread id 'x'" },
		{ "-1 R 0x10", "bad thread id '-1'" },
		{ "4294967296 R 0x10", "bad thread id '4294967296'" },
		{ "1", "missing op" },
		{ "1 X 0x10", "bad op 'X'" },
		{ "1 RW 0x10", "bad op 'RW'" },
		{ "1 R", "missing address" },
		{ "1 R 0xzz", "bad address '0xzz'" },
		{ "1 R 0x10000000000000000", "bad address '0x10000000000000000'" },
		{ "1 R 0x10 8 18446744073709551616", "bad time '18446744073709551616'" },
		{ "1 R 0x", "bad address '0x'" },
		{ "1 R 0x10000000000000000", "bad address" },
		{ "1 R 0x10 0", "bad size '0'" },
		{ "1 R 0x10 8b", "bad size '8b'" },
		{ "1 R 0x10 8 12x", "bad time '12x'" },
		{ "1 R 0x10 8 1 extra", "unexpected 'extra'" },
	};
	struct trace_access a;
	char err[256];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		err[0] = 0;
		TEST_ASSERT(trace__parse_line(bad[i].line, &a, err, sizeof(err)) == -EINVAL,
			    "'%.60s' accepted", bad[i].line);
		TEST_ASSERT(strstr(err, bad[i].msg), "'%.60s': '%.60s' lacks '%.60s'", bad[i].line,
			    err, bad[i].msg);
	}
	return TEST_OK;
}

static char *write_tmp(const void *data, size_t len)
{
	char *path = strdup("/tmp/lp-trace-test-XXXXXX");
	int fd = path ? mkstemp(path) : -1;

	if (fd < 0 || write(fd, data, len) != (ssize_t)len) {
		if (fd >= 0)
			close(fd);
		free(path);
		return NULL;
	}
	close(fd);
	return path;
}

LP_TEST(test_trace_read_file, "trace: a file reads access by access, skipping comments")
{
	static const char text[] = "# lociprof trace\n1 R 0x1000 8\n\n2 W 0x1008 8 5\n"
				   "  # note\n1 R 0x2000";	/* no final newline */
	char *path = write_tmp(text, strlen(text)), err[256];
	struct trace_access a[4];
	struct trace *t;
	int n = 0, ret;

	TEST_ASSERT(path, "tmp file");
	TEST_ASSERT(!trace__open(&t, path, err, sizeof(err)), "%.60s", err);
	while (n < 4 && (ret = trace__next(t, &a[n], err, sizeof(err))) > 0)
		n++;
	TEST_ASSERT(ret == 0, "ret=%d %.60s", ret, err);
	TEST_ASSERT(n == 3, "n=%d", n);
	TEST_ASSERT(a[0].addr == 0x1000 && a[1].tid == 2 && a[1].op == TRACE_WRITE &&
		    a[1].time == 5 && a[2].addr == 0x2000, "fields");
	TEST_ASSERT(trace__next(t, &a[0], err, sizeof(err)) == 0, "stays at end");
	trace__close(t);
	unlink(path);
	free(path);
	return TEST_OK;
}

LP_TEST(test_trace_error_line_number, "trace: a bad line fails with PATH:LINE: reason")
{
	static const char text[] = "1 R 0x1000\n# c\n1 R 0x1008\n1 Q 0x1010\n1 R 0x1018\n";
	char *path = write_tmp(text, strlen(text)), err[512], want[300];
	struct trace_access a;
	struct trace *t;
	int ret;

	TEST_ASSERT(path, "tmp file");
	TEST_ASSERT(!trace__open(&t, path, err, sizeof(err)), "%.60s", err);
	TEST_ASSERT(trace__next(t, &a, err, sizeof(err)) == 1, "first");
	TEST_ASSERT(trace__next(t, &a, err, sizeof(err)) == 1, "second");
	ret = trace__next(t, &a, err, sizeof(err));
	snprintf(want, sizeof(want), "%s:4: bad op 'Q'", path);
	TEST_ASSERT(ret == -EINVAL, "ret=%d", ret);
	TEST_ASSERT(strstr(err, want) == err, "'%.60s' vs '%.60s'", err, want);
	trace__close(t);
	unlink(path);
	free(path);

	TEST_ASSERT(trace__open(&t, "/nonexistent/trace", err, sizeof(err)) == -ENOENT,
		    "missing file");
	TEST_ASSERT(strstr(err, "cannot open '/nonexistent/trace'"), "'%.60s'", err);
	return TEST_OK;
}

LP_TEST(test_trace_long_and_nul_lines, "trace: overlong lines and NUL bytes are errors, not crashes")
{
	char *buf = malloc(10000), *path, err[256];
	struct trace_access a;
	struct trace *t;

	TEST_ASSERT(buf, "malloc");
	memset(buf, ' ', 10000);
	memcpy(buf, "1 R 0x10\n1 R 0x20", 17);
	buf[9999] = '\n';
	path = write_tmp(buf, 10000);
	TEST_ASSERT(path, "tmp");
	TEST_ASSERT(!trace__open(&t, path, err, sizeof(err)), "%.60s", err);
	TEST_ASSERT(trace__next(t, &a, err, sizeof(err)) == 1, "first");
	TEST_ASSERT(trace__next(t, &a, err, sizeof(err)) == -EINVAL, "long line");
	TEST_ASSERT(strstr(err, ":2: line longer than"), "'%.60s'", err);
	trace__close(t);
	unlink(path);
	free(path);

	path = write_tmp("1 R 0x10\0junk\n", 14);
	TEST_ASSERT(path, "tmp");
	TEST_ASSERT(!trace__open(&t, path, err, sizeof(err)), "%.60s", err);
	TEST_ASSERT(trace__next(t, &a, err, sizeof(err)) == -EINVAL, "NUL");
	TEST_ASSERT(strstr(err, ":1: NUL byte"), "'%.60s'", err);
	trace__close(t);
	unlink(path);
	free(path);
	free(buf);
	return TEST_OK;
}

/* 200k lines of text (several MB: many 64K buffer refills). */
static char *make_text(size_t *len)
{
	size_t cap = 200000 * 40, n = 0;
	char *s = malloc(cap);
	int i;

	if (!s)
		return NULL;
	n += sprintf(s, "# generated\n");
	for (i = 0; i < 200000; i++)
		n += sprintf(s + n, "%d %c 0x%x %d\n", i % 7, i % 3 ? 'R' : 'W',
			     0x10000 + i * 8, 1 + i % 16);
	*len = n;
	return s;
}

static int read_all(const char *path, int *count, char *err, size_t errlen)
{
	struct trace_access a;
	struct trace *t;
	int ret, i = 0;

	ret = trace__open(&t, path, err, errlen);
	if (ret)
		return ret;
	while ((ret = trace__next(t, &a, err, errlen)) > 0) {
		if (a.tid != (u32)(i % 7) || a.addr != 0x10000 + (u64)i * 8 ||
		    a.size != (u32)(1 + i % 16) ||
		    a.op != (i % 3 ? TRACE_READ : TRACE_WRITE)) {
			snprintf(err, errlen, "access %d differs", i);
			ret = -EBADMSG;
			break;
		}
		i++;
	}
	trace__close(t);
	*count = i;
	return ret;
}

LP_TEST_TIMEOUT(test_trace_zstd, "trace: zstd traces are recognized by magic and streamed", 60)
{
	size_t len, clen;
	char *text = make_text(&len), *path, err[256];
	void *z;
	int n, ret;

	TEST_ASSERT(text, "malloc");
	/* plain first: same content, crosses buffer boundaries */
	path = write_tmp(text, len);
	TEST_ASSERT(path, "tmp");
	ret = read_all(path, &n, err, sizeof(err));
	TEST_ASSERT(ret == 0 && n == 200000, "plain: ret=%d n=%d %.60s", ret, n, err);
	unlink(path);
	free(path);

	z = malloc(ZSTD_compressBound(len));
	TEST_ASSERT(z, "malloc");
	clen = ZSTD_compress(z, ZSTD_compressBound(len), text, len, 3);
	TEST_ASSERT(!ZSTD_isError(clen), "compress");
	path = write_tmp(z, clen);	/* no .zst suffix: the magic decides */
	TEST_ASSERT(path, "tmp");
	ret = read_all(path, &n, err, sizeof(err));
	TEST_ASSERT(ret == 0 && n == 200000, "zstd: ret=%d n=%d %.60s", ret, n, err);
	unlink(path);
	free(path);

	/* cut in half: an error, after the accesses that did arrive */
	path = write_tmp(z, clen / 2);
	TEST_ASSERT(path, "tmp");
	ret = read_all(path, &n, err, sizeof(err));
	TEST_ASSERT(ret == -EINVAL && n > 0 && n < 200000, "truncated: ret=%d n=%d", ret, n);
	TEST_ASSERT(strstr(err, "truncated zstd stream") || strstr(err, "corrupt zstd"),
		    "'%.60s'", err);
	unlink(path);
	free(path);
	free(z);
	free(text);
	return TEST_OK;
}

LP_TEST(test_trace_man_example, "trace: the lociprof-trace(5) example gives distance 0 then an invalidation miss")
{
	static const char text[] = "# lociprof-trace 1\n"
				   "11 R 0x7f0000001000 8\n"
				   "11 R 0x7f0000002000 8\n"
				   "12 W 0x7f0000002000 8\n"
				   "11 R 0x7f0000001000 8\n"
				   "11 R 0x7f0000002000 8\n";
	struct reuse_exact_opts o = { REUSE_EXACT_PER_THREAD, REUSE_GRAN_LINE, 0 };
	struct reuse_exact_res res[5];
	char *path = write_tmp(text, strlen(text)), err[256];
	struct reuse_exact *re;
	struct trace_access a;
	struct trace *t;
	int n = 0, ret;

	TEST_ASSERT(path && !reuse_exact__new(&o, &re), "setup");
	TEST_ASSERT(!trace__open(&t, path, err, sizeof(err)), "%.60s", err);
	while ((ret = trace__next(t, &a, err, sizeof(err))) > 0) {
		TEST_ASSERT(n < 5, "more than 5 accesses");
		TEST_ASSERT(!reuse_exact__access(re, a.tid, a.addr, a.op == TRACE_WRITE,
						 &res[n]), "access");
		n++;
	}
	TEST_ASSERT(n == 5 && ret == 0, "n=%d ret=%d", n, ret);
	TEST_ASSERT(res[3].kind == REUSE_EXACT_REUSE && res[3].dist == 0, "a: %d/%llu",
		    res[3].kind, (unsigned long long)res[3].dist);
	TEST_ASSERT(res[4].kind == REUSE_EXACT_INVAL, "b: %d", res[4].kind);
	trace__close(t);
	reuse_exact__delete(re);
	unlink(path);
	free(path);
	return TEST_OK;
}

LP_TEST(test_trace_lackey_lines, "trace: lackey lines: L and S are accesses, M a load then a store, I and == skipped")
{
	struct trace_access a;
	char err[256];

	TEST_ASSERT(trace__parse_lackey_line(" L 0402c1e8,8", &a, err, sizeof(err)) == 1, "%.60s", err);
	TEST_ASSERT(a.tid == 1 && a.op == TRACE_READ && a.addr == 0x402c1e8 && a.size == 8,
		    "load %u %d %llx %u", a.tid, a.op, (unsigned long long)a.addr, a.size);
	TEST_ASSERT(trace__parse_lackey_line(" S 1fff000628,4", &a, err, sizeof(err)) == 1 &&
		    a.op == TRACE_WRITE && a.addr == 0x1fff000628 && a.size == 4, "store");
	TEST_ASSERT(trace__parse_lackey_line(" M 0061a0c8,16", &a, err, sizeof(err)) == 2 &&
		    a.op == TRACE_READ && a.addr == 0x61a0c8 && a.size == 16, "modify");
	TEST_ASSERT(trace__parse_lackey_line("I  0401ab70,3", &a, err, sizeof(err)) == 0, "fetch");
	TEST_ASSERT(trace__parse_lackey_line("==13824== Lackey, an example Valgrind tool", &a, err,
					     sizeof(err)) == 0, "valgrind line");
	TEST_ASSERT(trace__parse_lackey_line("", &a, err, sizeof(err)) == 0, "blank");
	TEST_ASSERT(trace__parse_lackey_line(" X 0401ab70,3", &a, err, sizeof(err)) == -EINVAL &&
		    strstr(err, "lackey"), "bad kind: '%.60s'", err);
	TEST_ASSERT(trace__parse_lackey_line(" L 0401ab70", &a, err, sizeof(err)) == -EINVAL,
		    "no size");
	TEST_ASSERT(trace__parse_lackey_line(" L 04zz,8", &a, err, sizeof(err)) == -EINVAL,
		    "bad hex");
	TEST_ASSERT(trace__parse_lackey_line(" L 0401ab70,0", &a, err, sizeof(err)) == -EINVAL,
		    "size 0");
	return TEST_OK;
}

LP_TEST(test_trace_lackey_file_detected, "trace: a lackey log is detected by content, M expands to load + store, each access has its I line's ip")
{
	static const char text[] = "==7== Lackey, an example Valgrind tool\n==7== \n"
				   "I  0401ab70,3\n S 1fff000628,8\nI  0401ab73,5\n"
				   " L 00601040,4\n M 00601044,4\n L 00601040,4\n==7== Counted 1 call\n";
	/* each access carries the address of the I line before it, the M's store too */
	static const struct { enum trace_op op; u64 addr, ip; } want[] = {
		{ TRACE_WRITE, 0x1fff000628, 0x401ab70 }, { TRACE_READ, 0x601040, 0x401ab73 },
		{ TRACE_READ, 0x601044, 0x401ab73 }, { TRACE_WRITE, 0x601044, 0x401ab73 },
		{ TRACE_READ, 0x601040, 0x401ab73 },
	};
	char *path = write_tmp(text, strlen(text)), err[256];
	struct trace_access a;
	struct trace *t;
	int n = 0, ret;

	TEST_ASSERT(path, "tmp file");
	TEST_ASSERT(!trace__open(&t, path, err, sizeof(err)), "%.60s", err);
	TEST_ASSERT(trace__format(t) == TRACE_FMT_UNKNOWN, "decided before reading");
	while ((ret = trace__next(t, &a, err, sizeof(err))) > 0) {
		TEST_ASSERT(n < 5, "more than 5 accesses");
		TEST_ASSERT(a.op == want[n].op && a.addr == want[n].addr && a.tid == 1 &&
			    a.ip == want[n].ip && a.ip_size == (n ? 5 : 3),
			    "access %d: op %d addr %llx ip %llx+%u", n, a.op,
			    (unsigned long long)a.addr, (unsigned long long)a.ip, a.ip_size);
		n++;
	}
	TEST_ASSERT(ret == 0 && n == 5, "ret=%d n=%d %.60s", ret, n, err);
	TEST_ASSERT(trace__format(t) == TRACE_FMT_LACKEY, "format %d", trace__format(t));
	trace__close(t);
	unlink(path);
	free(path);
	return TEST_OK;
}
