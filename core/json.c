// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

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

/*
 * Parsing is libjansson's (Debian's libjansson-dev, linked statically);
 * this turns its tree into struct json_value, whose lookups the readers
 * of lociprof's own JSON use.
 */

static int convert(json_t *j, struct json_value *v, int depth);

static int convert_children(json_t *j, struct json_value *v, int depth)
{
	size_t i, n = json_is_array(j) ? json_array_size(j) : json_object_size(j);
	const char *key;
	json_t *item;

	v->len = n;
	v->items = calloc(n ? n : 1, sizeof(*v->items));
	if (!v->items)
		return -ENOMEM;
	if (json_is_array(j)) {
		json_array_foreach(j, i, item)
			if (convert(item, &v->items[i], depth + 1))
				return -ENOMEM;
		return 0;
	}
	v->keys = calloc(n ? n : 1, sizeof(*v->keys));
	if (!v->keys)
		return -ENOMEM;
	i = 0;
	json_object_foreach(j, key, item) {
		v->keys[i] = strdup(key);
		if (!v->keys[i] || convert(item, &v->items[i], depth + 1))
			return -ENOMEM;
		i++;
	}
	return 0;
}

static int convert(json_t *j, struct json_value *v, int depth)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT:
		v->type = JV_OBJECT;
		return convert_children(j, v, depth);
	case JSON_ARRAY:
		v->type = JV_ARRAY;
		return convert_children(j, v, depth);
	case JSON_STRING:
		v->type = JV_STRING;
		v->len = json_string_length(j);
		v->str = malloc(v->len + 1);
		if (!v->str)
			return -ENOMEM;
		memcpy(v->str, json_string_value(j), v->len + 1);
		return 0;
	case JSON_INTEGER:
		v->type = JV_NUMBER;
		v->num = (double)json_integer_value(j);
		return 0;
	case JSON_REAL:
		v->type = JV_NUMBER;
		v->num = json_real_value(j);
		return 0;
	case JSON_TRUE:
	case JSON_FALSE:
		v->type = JV_BOOL;
		v->boolean = json_is_true(j);
		return 0;
	default:
		v->type = JV_NULL;
		return 0;
	}
}

/* Where the container JSON_MAX_DEPTH + 1 deep opens, or -1 if none does. */
static long too_deep(const char *s, size_t len)
{
	int depth = 0, in_str = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		if (in_str) {
			if (s[i] == '\\')
				i++;
			else if (s[i] == '"')
				in_str = 0;
		} else if (s[i] == '"') {
			in_str = 1;
		} else if (s[i] == '[' || s[i] == '{') {
			if (++depth > JSON_MAX_DEPTH)
				return (long)i;
		} else if (s[i] == ']' || s[i] == '}') {
			depth--;
		}
	}
	return -1;
}

static void free_value(struct json_value *v)
{
	size_t i;

	if (v->type == JV_ARRAY || v->type == JV_OBJECT) {
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
	size_t flags = JSON_DECODE_ANY | JSON_ALLOW_NUL | JSON_REJECT_DUPLICATES;
	struct json_value *v;
	json_error_t je;
	long deep;
	json_t *j;
	int ret;

	*out = NULL;
	if (err)
		memset(err, 0, sizeof(*err));
	deep = too_deep(text, len);
	if (deep >= 0) {
		if (err) {
			err->offset = (size_t)deep;
			snprintf(err->msg, sizeof(err->msg), "nesting deeper than %d levels",
				 JSON_MAX_DEPTH);
		}
		return -EINVAL;
	}
	j = json_loadb(text, len, flags, &je);
	if (!j && json_error_code(&je) == json_error_duplicate_key) {
		/* JSON allows it: the last one counts, as json__get says */
		j = json_loadb(text, len, flags & ~(size_t)JSON_REJECT_DUPLICATES, &je);
	}
	if (!j && json_error_code(&je) == json_error_numeric_overflow)	/* u64 beyond s64 */
		j = json_loadb(text, len, (flags & ~(size_t)JSON_REJECT_DUPLICATES) |
			       JSON_DECODE_INT_AS_REAL, &je);
	if (!j) {
		if (json_error_code(&je) == json_error_out_of_memory)
			return -ENOMEM;
		if (err) {
			err->offset = je.position > 0 ? (size_t)je.position : 0;
			snprintf(err->msg, sizeof(err->msg), "%.127s", je.text);
		}
		return -EINVAL;
	}
	v = calloc(1, sizeof(*v));
	ret = v ? convert(j, v, 0) : -ENOMEM;
	json_decref(j);
	if (ret) {
		json__free(v);
		return ret;
	}
	*out = v;
	return 0;
}

const struct json_value *json__get(const struct json_value *v, const char *key)
{
	size_t i;

	if (!v || v->type != JV_OBJECT)
		return NULL;
	for (i = v->len; i-- > 0;)
		if (!strcmp(v->keys[i], key))
			return &v->items[i];
	return NULL;
}

const struct json_value *json__at(const struct json_value *v, size_t i)
{
	if (!v || v->type != JV_ARRAY || i >= v->len)
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
		if (v->type == JV_ARRAY) {
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
		[JV_NULL] = "null", [JV_BOOL] = "boolean",
		[JV_NUMBER] = "number", [JV_STRING] = "string",
		[JV_ARRAY] = "array", [JV_OBJECT] = "object",
	};

	return (unsigned)t < ARRAY_SIZE(names) ? names[t] : "?";
}
