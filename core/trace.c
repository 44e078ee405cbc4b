// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "core/trace.h"

#define RAW_CHUNK 65536

struct trace {
	FILE *f;
	int close_f;
	char *path;
	u64 lineno;
	int in_eof;
	/* raw bytes from the file */
	u8 *in;
	size_t in_len, in_pos, in_cap;
	/* zstd: decompressed bytes; NULL for plain text (read from in) */
	ZSTD_DStream *zs;
	size_t zret;		/* last ZSTD_decompressStream(): 0 at frame end */
	u8 *out;
	size_t out_cap;
	/* text filled but not yet cut into lines (points into in or out) */
	const u8 *pp;
	size_t pn;
	char line[TRACE_LINE_MAX + 1];
	enum trace_format fmt;
	int pending;		/* lackey M: the store after the load returned */
	struct trace_access pend;
	u64 ip;			/* lackey: the latest I line's address */
	u32 ip_size;		/* and its length */
};

static int set_err(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

/* Read more raw bytes; 0, or -EIO. Sets in_eof at end of file. */
static int trace__read_raw(struct trace *t, char *err, size_t errlen)
{
	size_t n;

	if (t->in_pos == t->in_len)
		t->in_pos = t->in_len = 0;
	n = fread(t->in + t->in_len, 1, t->in_cap - t->in_len, t->f);
	t->in_len += n;
	if (n == 0) {
		if (ferror(t->f))
			return set_err(err, errlen, -EIO, "%s: read error", t->path);
		t->in_eof = 1;
	}
	return 0;
}

/*
 * Make more text available at *p (len *n); *n == 0 at the end.
 * Plain text is served from the input buffer, zstd from the output one.
 */
static int trace__fill(struct trace *t, const u8 **p, size_t *n, char *err,
		       size_t errlen)
{
	int ret;

	if (!t->zs) {
		if (t->in_pos == t->in_len && !t->in_eof) {
			ret = trace__read_raw(t, err, errlen);
			if (ret)
				return ret;
		}
		*p = t->in + t->in_pos;
		*n = t->in_len - t->in_pos;
		t->in_pos = t->in_len;
		return 0;
	}
	for (;;) {
		ZSTD_inBuffer ib = { t->in, t->in_len, t->in_pos };
		ZSTD_outBuffer ob = { t->out, t->out_cap, 0 };

		if (t->in_pos == t->in_len && !t->in_eof) {
			ret = trace__read_raw(t, err, errlen);
			if (ret)
				return ret;
			continue;
		}
		if (t->in_pos == t->in_len && t->zret == 0) {
			*n = 0;		/* clean end of the last frame */
			return 0;
		}
		t->zret = ZSTD_decompressStream(t->zs, &ob, &ib);
		t->in_pos = ib.pos;
		if (ZSTD_isError(t->zret))
			return set_err(err, errlen, -EINVAL, "%s: corrupt zstd data: %s",
				       t->path, ZSTD_getErrorName(t->zret));
		if (ob.pos) {
			*p = t->out;
			*n = ob.pos;
			return 0;
		}
		if (t->in_pos == t->in_len && t->in_eof && t->zret != 0)
			return set_err(err, errlen, -EINVAL,
				       "%s: truncated zstd stream", t->path);
	}
}

int trace__open(struct trace **tp, const char *path, char *err, size_t errlen)
{
	struct trace *t = calloc(1, sizeof(*t));
	int ret = -ENOMEM;

	if (!t)
		return set_err(err, errlen, -ENOMEM, "out of memory");
	t->path = strdup(path);
	t->in_cap = RAW_CHUNK;
	t->in = malloc(t->in_cap);
	if (!t->path || !t->in)
		goto out_err;
	if (!strcmp(path, "-")) {
		t->f = stdin;
	} else {
		t->f = fopen(path, "rb");
		if (!t->f) {
			ret = -errno;
			set_err(err, errlen, ret, "cannot open '%s': %s", path,
				strerror(errno));
			goto out_free;
		}
		t->close_f = 1;
	}
	/* zstd is told apart by its frame magic, whatever the file name */
	while (t->in_len < 4 && !t->in_eof) {
		ret = trace__read_raw(t, err, errlen);
		if (ret)
			goto out_free;
	}
	if (t->in_len >= 4 && t->in[0] == 0x28 && t->in[1] == 0xb5 &&
	    t->in[2] == 0x2f && t->in[3] == 0xfd) {
		t->zs = ZSTD_createDStream();
		t->out_cap = ZSTD_DStreamOutSize();
		t->out = malloc(t->out_cap);
		if (!t->zs || !t->out)
			goto out_err;
		ZSTD_initDStream(t->zs);
		t->zret = 1;
	}
	*tp = t;
	return 0;

out_err:
	ret = set_err(err, errlen, -ENOMEM, "out of memory");
out_free:
	trace__close(t);
	return ret;
}

void trace__close(struct trace *t)
{
	if (!t)
		return;
	if (t->close_f)
		fclose(t->f);
	ZSTD_freeDStream(t->zs);
	free(t->out);
	free(t->in);
	free(t->path);
	free(t);
}

/*
 * Next line into t->line (no newline); 1 if one was read, 0 at the end.
 * A buffer is refilled only once its text is used up (t->pn == 0).
 */
static int trace__getline(struct trace *t, char *err, size_t errlen)
{
	size_t len = 0;
	int ret, any = 0;

	for (;;) {
		const u8 *nl;
		size_t take;

		if (!t->pn) {
			ret = trace__fill(t, &t->pp, &t->pn, err, errlen);
			if (ret)
				return ret;
			if (!t->pn)
				break;
		}
		any = 1;
		nl = memchr(t->pp, '\n', t->pn);
		take = nl ? (size_t)(nl - t->pp) : t->pn;
		if (memchr(t->pp, '\0', take))
			return set_err(err, errlen, -EINVAL,
				       "%s:%llu: NUL byte (not a text trace?)", t->path,
				       (unsigned long long)t->lineno + 1);
		if (len + take > TRACE_LINE_MAX - 1)
			return set_err(err, errlen, -EINVAL,
				       "%s:%llu: line longer than %d bytes", t->path,
				       (unsigned long long)t->lineno + 1,
				       TRACE_LINE_MAX - 1);
		memcpy(t->line + len, t->pp, take);
		len += take;
		t->pp += take;
		t->pn -= take;
		if (nl) {
			t->pp++;
			t->pn--;
			break;
		}
	}
	t->line[len] = '\0';
	if (!any)
		return 0;
	t->lineno++;
	return 1;
}

/* The format of a trace, from its first line that is not blank or '#'. */
static enum trace_format detect(const char *l)
{
	if ((l[0] == '=' && l[1] == '=') || (l[0] == 'I' && l[1] == ' ') ||
	    (l[0] == ' ' && l[1] && strchr("LSM", l[1]) && l[2] == ' '))
		return TRACE_FMT_LACKEY;
	return TRACE_FMT_NATIVE;
}

static void lackey_ip(const char *line, u64 *ip, u32 *size);

int trace__next(struct trace *t, struct trace_access *a, char *err,
		size_t errlen)
{
	char msg[192];
	int ret;

	if (t->pending) {
		t->pending = 0;
		*a = t->pend;
		return 1;
	}
	for (;;) {
		ret = trace__getline(t, err, errlen);
		if (ret <= 0)
			return ret;
		if (t->fmt == TRACE_FMT_UNKNOWN) {
			const char *p = t->line + strspn(t->line, " \t\r");

			if (!*p || *p == '#')
				continue;
			t->fmt = detect(t->line);
		}
		if (t->fmt == TRACE_FMT_LACKEY) {
			ret = trace__parse_lackey_line(t->line, a, msg, sizeof(msg));
			if (ret == 0) {
				lackey_ip(t->line, &t->ip, &t->ip_size);
			} else if (ret > 0) {
				a->ip = t->ip;
				a->ip_size = t->ip_size;
			}
		} else
			ret = trace__parse_line(t->line, a, msg, sizeof(msg));
		if (ret < 0)
			return set_err(err, errlen, ret, "%s:%llu: %s", t->path,
				       (unsigned long long)t->lineno, msg);
		if (ret == 2) {		/* modify: the load now, the store next */
			t->pend = *a;
			t->pend.op = TRACE_WRITE;
			t->pending = 1;
		}
		if (ret > 0)
			return 1;
	}
}

enum trace_format trace__format(const struct trace *t)
{
	return t->fmt;
}

/* ---- one line ---- */

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Next token of *s: its start, length in *n, *s moved past it. */
static const char *token(const char **s, int *n)
{
	const char *p = *s, *start;

	while (is_space(*p))
		p++;
	start = p;
	while (*p && !is_space(*p))
		p++;
	*n = p - start;
	*s = p;
	return *n ? start : NULL;
}

static int parse_num(const char *s, int n, int base, u64 *v)
{
	u64 x = 0;
	int i, dig;

	if (base == 16 && n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		n -= 2;
	}
	if (!n)
		return -1;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (c >= '0' && c <= '9')
			dig = c - '0';
		else if (base == 16 && c >= 'a' && c <= 'f')
			dig = c - 'a' + 10;
		else if (base == 16 && c >= 'A' && c <= 'F')
			dig = c - 'A' + 10;
		else
			return -1;
		/* overflow, without a division per digit */
		if (base == 16 ? x >> 60 != 0 :
		    x > UINT64_MAX / 10 || (x == UINT64_MAX / 10 && (u64)dig > UINT64_MAX % 10))
			return -1;
		x = x * base + dig;
	}
	*v = x;
	return 0;
}

int trace__parse_line(const char *line, struct trace_access *a, char *err,
		      size_t errlen)
{
	const char *s = line, *tok;
	int n;
	u64 v;

	tok = token(&s, &n);
	if (!tok || tok[0] == '#')
		return 0;
	memset(a, 0, sizeof(*a));
	if (parse_num(tok, n, 10, &v) || v > UINT32_MAX)
		return set_err(err, errlen, -EINVAL,
			       "bad thread id '%.*s' (expected a decimal number)", n, tok);
	a->tid = v;
	tok = token(&s, &n);
	if (!tok)
		return set_err(err, errlen, -EINVAL,
			       "missing op after thread id (expected R or W)");
	if (n == 1 && (tok[0] == 'R' || tok[0] == 'r'))
		a->op = TRACE_READ;
	else if (n == 1 && (tok[0] == 'W' || tok[0] == 'w'))
		a->op = TRACE_WRITE;
	else
		return set_err(err, errlen, -EINVAL, "bad op '%.*s' (expected R or W)",
			       n, tok);
	tok = token(&s, &n);
	if (!tok)
		return set_err(err, errlen, -EINVAL, "missing address after op");
	if (parse_num(tok, n, 16, &a->addr))
		return set_err(err, errlen, -EINVAL,
			       "bad address '%.*s' (expected hex, e.g. 0x7f3a12c0)", n, tok);
	tok = token(&s, &n);
	if (!tok)
		return 1;
	if (parse_num(tok, n, 10, &v) || !v || v > UINT32_MAX)
		return set_err(err, errlen, -EINVAL,
			       "bad size '%.*s' (expected a decimal number of bytes >= 1)",
			       n, tok);
	a->size = v;
	tok = token(&s, &n);
	if (!tok)
		return 1;
	if (parse_num(tok, n, 10, &a->time))
		return set_err(err, errlen, -EINVAL,
			       "bad time '%.*s' (expected a decimal number)", n, tok);
	a->has_time = 1;
	tok = token(&s, &n);
	if (tok)
		return set_err(err, errlen, -EINVAL,
			       "unexpected '%.*s' after the time (at most 5 fields)", n, tok);
	return 1;
}

/* An I line's address and length into *@ip, *@size; other lines leave them. */
static void lackey_ip(const char *line, u64 *ip, u32 *size)
{
	const char *s = line, *tok, *comma;
	int n;
	u64 v, len;

	tok = token(&s, &n);
	if (!tok || n != 1 || tok[0] != 'I')
		return;
	tok = token(&s, &n);
	comma = tok ? memchr(tok, ',', n) : NULL;
	if (!comma || parse_num(tok, comma - tok, 16, &v))
		return;
	*ip = v;
	*size = !parse_num(comma + 1, tok + n - comma - 1, 10, &len) && len < 64 ? (u32)len : 0;
}

/*
 * valgrind --tool=lackey --trace-mem=yes: "I  ADDR,SIZE" (an instruction
 * fetch: not a data access), " L ADDR,SIZE", " S ...", " M ..." (modify:
 * a load then a store), ADDR in hex; "==PID== ..." lines are valgrind's.
 */
int trace__parse_lackey_line(const char *line, struct trace_access *a, char *err,
			     size_t errlen)
{
	const char *s = line, *tok, *comma;
	int n, ret = 1;
	u64 v;

	if (line[0] == '=' && line[1] == '=')
		return 0;
	tok = token(&s, &n);
	if (!tok)
		return 0;
	if (n == 1 && tok[0] == 'I')
		return 0;
	memset(a, 0, sizeof(*a));
	a->tid = 1;		/* lackey names no thread: valgrind runs one at a time */
	if (n == 1 && tok[0] == 'L')
		a->op = TRACE_READ;
	else if (n == 1 && tok[0] == 'S')
		a->op = TRACE_WRITE;
	else if (n == 1 && tok[0] == 'M')
		ret = 2;	/* TRACE_READ, then the caller's store */
	else
		return set_err(err, errlen, -EINVAL,
			       "bad lackey line '%.40s' (expected I, L, S or M ADDR,SIZE)", line);
	tok = token(&s, &n);
	comma = tok ? memchr(tok, ',', n) : NULL;
	if (!comma || parse_num(tok, comma - tok, 16, &a->addr))
		return set_err(err, errlen, -EINVAL,
			       "bad lackey access '%.*s' (expected hex ADDR,SIZE)", tok ? n : 0,
			       tok ? tok : "");
	if (parse_num(comma + 1, tok + n - comma - 1, 10, &v) || !v || v > UINT32_MAX)
		return set_err(err, errlen, -EINVAL, "bad lackey size in '%.*s'", n, tok);
	a->size = v;
	if (token(&s, &n))
		return set_err(err, errlen, -EINVAL, "unexpected text after a lackey access");
	return ret;
}
