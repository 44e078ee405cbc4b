// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"

/* ---------------------------------------------------------------- writer */

void json__init(struct json_writer *w, FILE *f, int flags)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	w->flags = flags;
}

static void set_error(struct json_writer *w, int err)
{
	if (!w->error)
		w->error = err;
}

static void indent(struct json_writer *w)
{
	int i;

	if (!(w->flags & JSON_PRETTY))
		return;
	fputc('\n', w->f);
	for (i = 0; i < w->depth; i++)
		fputs("  ", w->f);
}

static void put_string(FILE *f, const char *s, size_t len);

/* Separator, indent and key before a value; 0 if the value may be written. */
static int value_prefix(struct json_writer *w, const char *key)
{
	if (w->depth == 0) {
		if (key || w->done) {
			set_error(w, -EINVAL);
			return -EINVAL;
		}
		return 0;
	}
	if ((w->kind[w->depth - 1] == '{') != (key != NULL)) {
		/* object members need a key, array items must not have one */
		set_error(w, -EINVAL);
		return -EINVAL;
	}
	if (w->count[w->depth - 1]++)
		fputc(',', w->f);
	indent(w);
	if (key) {
		put_string(w->f, key, strlen(key));
		fputs((w->flags & JSON_PRETTY) ? ": " : ":", w->f);
	}
	return 0;
}

static void value_done(struct json_writer *w)
{
	if (w->depth == 0)
		w->done = 1;
}

static void begin(struct json_writer *w, const char *key, char kind)
{
	if (value_prefix(w, key))
		return;
	if (w->depth >= JSON_MAX_DEPTH) {
		set_error(w, -E2BIG);
		return;
	}
	fputc(kind, w->f);
	w->kind[w->depth] = kind;
	w->count[w->depth] = 0;
	w->depth++;
}

static void end(struct json_writer *w, char kind)
{
	int empty;

	if (w->depth == 0 || w->kind[w->depth - 1] != kind) {
		set_error(w, -EINVAL);
		return;
	}
	empty = w->count[w->depth - 1] == 0;
	w->depth--;
	if (!empty)
		indent(w);
	fputc(kind == '{' ? '}' : ']', w->f);
	value_done(w);
}

void json__obj_begin(struct json_writer *w, const char *key)
{
	begin(w, key, '{');
}

void json__obj_end(struct json_writer *w)
{
	end(w, '{');
}

void json__arr_begin(struct json_writer *w, const char *key)
{
	begin(w, key, '[');
}

void json__arr_end(struct json_writer *w)
{
	end(w, '[');
}

/* Length of the valid UTF-8 sequence at @s (at most @len bytes), 0 if none. */
static size_t utf8_seq(const unsigned char *s, size_t len)
{
	size_t n, i;
	u32 cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n > len)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong, surrogate or beyond U+10FFFF */
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

static void put_string(FILE *f, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, n;

	fputc('"', f);
	while (i < len) {
		unsigned char c = s[i];

		switch (c) {
		case '"': fputs("\\\"", f); i++; continue;
		case '\\': fputs("\\\\", f); i++; continue;
		case '\n': fputs("\\n", f); i++; continue;
		case '\r': fputs("\\r", f); i++; continue;
		case '\t': fputs("\\t", f); i++; continue;
		case '\b': fputs("\\b", f); i++; continue;
		case '\f': fputs("\\f", f); i++; continue;
		}
		if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
			i++;
			continue;
		}
		n = utf8_seq(s + i, len - i);
		if (!n) {
			/* not UTF-8: keep the byte, read as Latin-1 */
			fprintf(f, "\\u%04x", c);
			i++;
			continue;
		}
		fwrite(s + i, 1, n, f);
		i += n;
	}
	fputc('"', f);
}

void json__strn(struct json_writer *w, const char *key, const char *s, size_t len)
{
	if (value_prefix(w, key))
		return;
	if (s)
		put_string(w->f, s, len);
	else
		fputs("null", w->f);
	value_done(w);
}

void json__str(struct json_writer *w, const char *key, const char *s)
{
	json__strn(w, key, s, s ? strlen(s) : 0);
}

void json__u64(struct json_writer *w, const char *key, u64 v)
{
	if (value_prefix(w, key))
		return;
	fprintf(w->f, "%" PRIu64, v);
	value_done(w);
}

void json__s64(struct json_writer *w, const char *key, s64 v)
{
	if (value_prefix(w, key))
		return;
	fprintf(w->f, "%" PRId64, v);
	value_done(w);
}

void json__double(struct json_writer *w, const char *key, double v)
{
	char buf[40];
	int prec;

	if (value_prefix(w, key))
		return;
	if (!isfinite(v)) {
		fputs("null", w->f);
	} else {
		/* shortest of %.15g..%.17g that reads back exactly */
		for (prec = 15; prec <= 17; prec++) {
			snprintf(buf, sizeof(buf), "%.*g", prec, v);
			if (strtod(buf, NULL) == v)
				break;
		}
		fputs(buf, w->f);
	}
	value_done(w);
}

void json__bool(struct json_writer *w, const char *key, int v)
{
	if (value_prefix(w, key))
		return;
	fputs(v ? "true" : "false", w->f);
	value_done(w);
}

void json__null(struct json_writer *w, const char *key)
{
	if (value_prefix(w, key))
		return;
	fputs("null", w->f);
	value_done(w);
}

int json__finish(struct json_writer *w)
{
	if (!w->error && (w->depth || !w->done))
		set_error(w, -EINVAL);
	fputc('\n', w->f);
	if (fflush(w->f) || ferror(w->f))
		set_error(w, -EIO);
	return w->error;
}

/* ---------------------------------------------------------------- reader */

struct parser {
	const char *s;
	size_t len, pos;
	int depth;
	struct json_error *err;
	int ret;		/* -EINVAL or -ENOMEM once failed */
};

__attribute__((format(printf, 2, 3)))
static int fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	if (p->ret)
		return p->ret;
	p->ret = -EINVAL;
	if (p->err) {
		p->err->offset = p->pos;
		va_start(ap, fmt);
		vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
		va_end(ap);
	}
	return p->ret;
}

static int nomem(struct parser *p)
{
	if (!p->ret) {
		p->ret = -ENOMEM;
		if (p->err) {
			p->err->offset = p->pos;
			snprintf(p->err->msg, sizeof(p->err->msg), "out of memory");
		}
	}
	return p->ret;
}

static void skip_ws(struct parser *p)
{
	while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
				   p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
		p->pos++;
}

static const char *describe(struct parser *p)
{
	static __thread char buf[16];
	unsigned char c;

	if (p->pos >= p->len)
		return "end of input";
	c = p->s[p->pos];
	if (c >= 0x20 && c < 0x7f)
		snprintf(buf, sizeof(buf), "'%c'", c);
	else
		snprintf(buf, sizeof(buf), "byte 0x%02x", c);
	return buf;
}

static int parse_value(struct parser *p, struct json_value *v);

static int hex4(struct parser *p, u32 *out)
{
	u32 v = 0;
	int i;

	if (p->len - p->pos < 4)
		return fail(p, "truncated \\u escape");
	for (i = 0; i < 4; i++) {
		char c = p->s[p->pos + i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return fail(p, "bad hex digit in \\u escape");
	}
	p->pos += 4;
	*out = v;
	return 0;
}

static size_t put_utf8(char *d, u32 cp)
{
	if (cp < 0x80) {
		d[0] = cp;
		return 1;
	}
	if (cp < 0x800) {
		d[0] = 0xc0 | (cp >> 6);
		d[1] = 0x80 | (cp & 0x3f);
		return 2;
	}
	if (cp < 0x10000) {
		d[0] = 0xe0 | (cp >> 12);
		d[1] = 0x80 | ((cp >> 6) & 0x3f);
		d[2] = 0x80 | (cp & 0x3f);
		return 3;
	}
	d[0] = 0xf0 | (cp >> 18);
	d[1] = 0x80 | ((cp >> 12) & 0x3f);
	d[2] = 0x80 | ((cp >> 6) & 0x3f);
	d[3] = 0x80 | (cp & 0x3f);
	return 4;
}

/* At the opening quote. The decoded text is never longer than the source. */
static int parse_string(struct parser *p, char **out, size_t *outlen)
{
	size_t start = ++p->pos, n = 0, seq, end = start;
	char *d;

	/* size the buffer by the source span up to the closing quote */
	while (end < p->len && p->s[end] != '"')
		end += p->s[end] == '\\' ? 2 : 1;
	if (end > p->len)
		end = p->len;
	d = malloc(end - start + 1);
	if (!d)
		return nomem(p);
	for (;;) {
		unsigned char c;

		if (p->pos >= p->len) {
			free(d);
			return fail(p, "unterminated string (opened at offset %zu)",
				    start - 1);
		}
		c = p->s[p->pos];
		if (c == '"') {
			p->pos++;
			break;
		}
		if (c < 0x20) {
			free(d);
			return fail(p, "control character 0x%02x in string", c);
		}
		if (c != '\\') {
			seq = utf8_seq((const unsigned char *)p->s + p->pos,
				       p->len - p->pos);
			if (!seq) {
				free(d);
				return fail(p, "invalid UTF-8 in string");
			}
			memcpy(d + n, p->s + p->pos, seq);
			n += seq;
			p->pos += seq;
			continue;
		}
		if (++p->pos >= p->len) {
			free(d);
			return fail(p, "unterminated string (opened at offset %zu)",
				    start - 1);
		}
		c = p->s[p->pos++];
		switch (c) {
		case '"': d[n++] = '"'; break;
		case '\\': d[n++] = '\\'; break;
		case '/': d[n++] = '/'; break;
		case 'b': d[n++] = '\b'; break;
		case 'f': d[n++] = '\f'; break;
		case 'n': d[n++] = '\n'; break;
		case 'r': d[n++] = '\r'; break;
		case 't': d[n++] = '\t'; break;
		case 'u': {
			u32 cp, lo;

			if (hex4(p, &cp))
				goto out_free;
			if (cp >= 0xdc00 && cp <= 0xdfff) {
				fail(p, "unpaired low surrogate \\u%04x", cp);
				goto out_free;
			}
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (p->len - p->pos < 2 || p->s[p->pos] != '\\' ||
				    p->s[p->pos + 1] != 'u') {
					fail(p, "high surrogate \\u%04x without low surrogate", cp);
					goto out_free;
				}
				p->pos += 2;
				if (hex4(p, &lo))
					goto out_free;
				if (lo < 0xdc00 || lo > 0xdfff) {
					fail(p, "high surrogate \\u%04x without low surrogate", cp);
					goto out_free;
				}
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			}
			/* a \uXXXX escape (6 bytes) never decodes to more than 4 */
			n += put_utf8(d + n, cp);
			break;
		}
		default:
			p->pos -= 2;
			fail(p, "bad escape '\\%c'", c >= 0x20 && c < 0x7f ? c : '?');
			goto out_free;
		}
	}
	d[n] = '\0';
	*out = d;
	*outlen = n;
	return 0;
out_free:
	free(d);
	return p->ret;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int parse_number(struct parser *p, struct json_value *v)
{
	size_t start = p->pos;
	int integer = 1, neg = 0;
	char buf[400], *end;

	if (p->s[p->pos] == '-') {
		neg = 1;
		p->pos++;
	}
	if (p->pos >= p->len || !is_digit(p->s[p->pos]))
		return fail(p, "expected a digit");
	if (p->s[p->pos] == '0') {
		p->pos++;
		if (p->pos < p->len && is_digit(p->s[p->pos]))
			return fail(p, "leading zero in number");
	} else {
		while (p->pos < p->len && is_digit(p->s[p->pos]))
			p->pos++;
	}
	if (p->pos < p->len && p->s[p->pos] == '.') {
		integer = 0;
		p->pos++;
		if (p->pos >= p->len || !is_digit(p->s[p->pos]))
			return fail(p, "expected a digit after '.'");
		while (p->pos < p->len && is_digit(p->s[p->pos]))
			p->pos++;
	}
	if (p->pos < p->len && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
		integer = 0;
		p->pos++;
		if (p->pos < p->len && (p->s[p->pos] == '+' || p->s[p->pos] == '-'))
			p->pos++;
		if (p->pos >= p->len || !is_digit(p->s[p->pos]))
			return fail(p, "expected a digit in exponent");
		while (p->pos < p->len && is_digit(p->s[p->pos]))
			p->pos++;
	}
	if (p->pos - start >= sizeof(buf)) {
		p->pos = start;
		return fail(p, "number too long");
	}
	memcpy(buf, p->s + start, p->pos - start);
	buf[p->pos - start] = '\0';
	v->type = JSON_NUMBER;
	v->num = strtod(buf, NULL);
	if (integer) {
		errno = 0;
		if (neg) {
			v->s = strtoll(buf, &end, 10);
			v->is_s64 = !errno;
		} else {
			v->u = strtoull(buf, &end, 10);
			v->is_u64 = !errno;
			if (v->is_u64 && v->u <= INT64_MAX) {
				v->s = v->u;
				v->is_s64 = 1;
			}
		}
	}
	return 0;
}

static int literal(struct parser *p, const char *word)
{
	size_t n = strlen(word);

	if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n))
		return fail(p, "unexpected %s", describe(p));
	p->pos += n;
	return 0;
}

static int grow(struct parser *p, struct json_value *v, size_t *cap, int keys)
{
	size_t ncap = *cap ? *cap * 2 : 4;
	struct json_value *items;
	char **k;

	if (v->len < *cap)
		return 0;
	items = realloc(v->items, ncap * sizeof(*items));
	if (!items)
		return nomem(p);
	v->items = items;
	if (keys) {
		k = realloc(v->keys, ncap * sizeof(*k));
		if (!k)
			return nomem(p);
		v->keys = k;
	}
	*cap = ncap;
	return 0;
}

static int parse_container(struct parser *p, struct json_value *v, int obj)
{
	char close = obj ? '}' : ']';
	size_t cap = 0;

	if (++p->depth > JSON_MAX_DEPTH)
		return fail(p, "nesting deeper than %d", JSON_MAX_DEPTH);
	v->type = obj ? JSON_OBJECT : JSON_ARRAY;
	p->pos++;
	skip_ws(p);
	if (p->pos < p->len && p->s[p->pos] == close) {
		p->pos++;
		p->depth--;
		return 0;
	}
	for (;;) {
		char *key = NULL;
		size_t klen;

		skip_ws(p);
		if (obj) {
			if (p->pos >= p->len || p->s[p->pos] != '"')
				return fail(p, "expected a member name, got %s",
					    describe(p));
			if (parse_string(p, &key, &klen))
				return p->ret;
			skip_ws(p);
			if (p->pos >= p->len || p->s[p->pos] != ':') {
				free(key);
				return fail(p, "expected ':' after member name, got %s",
					    describe(p));
			}
			p->pos++;
		}
		if (grow(p, v, &cap, obj)) {
			free(key);
			return p->ret;
		}
		memset(&v->items[v->len], 0, sizeof(v->items[0]));
		if (obj)
			v->keys[v->len] = key;
		/* counted before parsing so a partial item is freed too */
		v->len++;
		if (parse_value(p, &v->items[v->len - 1]))
			return p->ret;
		skip_ws(p);
		if (p->pos < p->len && p->s[p->pos] == ',') {
			p->pos++;
			continue;
		}
		if (p->pos < p->len && p->s[p->pos] == close) {
			p->pos++;
			break;
		}
		return fail(p, "expected ',' or '%c', got %s", close, describe(p));
	}
	p->depth--;
	return 0;
}

static int parse_value(struct parser *p, struct json_value *v)
{
	skip_ws(p);
	if (p->pos >= p->len)
		return fail(p, "unexpected end of input, expected a value");
	switch (p->s[p->pos]) {
	case '{':
		return parse_container(p, v, 1);
	case '[':
		return parse_container(p, v, 0);
	case '"':
		v->type = JSON_STRING;
		return parse_string(p, &v->str, &v->len);
	case 't':
		v->type = JSON_BOOL;
		v->boolean = 1;
		return literal(p, "true");
	case 'f':
		v->type = JSON_BOOL;
		return literal(p, "false");
	case 'n':
		v->type = JSON_NULL;
		return literal(p, "null");
	default:
		if (p->s[p->pos] == '-' || is_digit(p->s[p->pos]))
			return parse_number(p, v);
		return fail(p, "unexpected %s, expected a value", describe(p));
	}
}

static void free_value(struct json_value *v)
{
	size_t i;

	if (v->type == JSON_ARRAY || v->type == JSON_OBJECT) {
		for (i = 0; i < v->len; i++) {
			free_value(&v->items[i]);
			if (v->keys)
				free(v->keys[i]);
		}
		free(v->items);
		free(v->keys);
	}
	free(v->str);
}

void json__free(struct json_value *v)
{
	if (!v)
		return;
	free_value(v);
	free(v);
}

int json__parse(const char *text, size_t len, struct json_value **out,
		struct json_error *err)
{
	struct parser p = { .s = text, .len = len, .err = err };
	struct json_value *v;

	*out = NULL;
	if (err)
		memset(err, 0, sizeof(*err));
	v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (!parse_value(&p, v)) {
		skip_ws(&p);
		if (p.pos < p.len)
			fail(&p, "trailing %s after the value", describe(&p));
	}
	if (p.ret) {
		json__free(v);
		return p.ret;
	}
	*out = v;
	return 0;
}

const struct json_value *json__get(const struct json_value *v, const char *key)
{
	size_t i;

	if (!v || v->type != JSON_OBJECT)
		return NULL;
	for (i = v->len; i-- > 0;)
		if (!strcmp(v->keys[i], key))
			return &v->items[i];
	return NULL;
}

const struct json_value *json__at(const struct json_value *v, size_t i)
{
	if (!v || v->type != JSON_ARRAY || i >= v->len)
		return NULL;
	return &v->items[i];
}

const struct json_value *json__path(const struct json_value *v, const char *path)
{
	char part[256];

	while (v && *path) {
		size_t n = strcspn(path, ".");

		if (n >= sizeof(part))
			return NULL;
		memcpy(part, path, n);
		part[n] = '\0';
		path += n + (path[n] == '.');
		if (v->type == JSON_ARRAY) {
			char *end;
			unsigned long i = strtoul(part, &end, 10);

			if (!n || *end)
				return NULL;
			v = json__at(v, i);
		} else {
			v = json__get(v, part);
		}
	}
	return v;
}

const char *json__type_name(enum json_type t)
{
	static const char *const names[] = {
		[JSON_NULL] = "null", [JSON_BOOL] = "boolean",
		[JSON_NUMBER] = "number", [JSON_STRING] = "string",
		[JSON_ARRAY] = "array", [JSON_OBJECT] = "object",
	};

	return (unsigned)t < ARRAY_SIZE(names) ? names[t] : "?";
}
