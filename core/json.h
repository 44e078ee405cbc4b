/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small streaming JSON writer (to a FILE*, tracks nesting and commas,
 * escapes strings) and a reader: libjansson parses, the tree it gives is
 * looked up by key, index or dotted path; errors carry the byte offset.
 *
 *   struct json_writer w;
 *   json__init(&w, stdout, JSON_PRETTY);
 *   json__obj_begin(&w, NULL);
 *   json__u64(&w, "count", 4);
 *   json__arr_begin(&w, "names");
 *   json__str(&w, NULL, "a\"b");
 *   json__arr_end(&w);
 *   json__obj_end(&w);
 *   json__finish(&w);
 *
 * Inside an object every value needs a key; inside an array (or at the top)
 * the key must be NULL. A misuse does not crash: it sets w->error, and
 * json__finish() reports it.
 */
#ifndef LP_JSON_H
#define LP_JSON_H
#include <stdio.h>
#include "core/types.h"

#define JSON_MAX_DEPTH 64	/* nesting limit of both writer and reader */

/* json__init() flags */
#define JSON_PRETTY	(1 << 0)	/* newlines and two-space indent */

struct json_writer {
	FILE *f;
	int flags;
	int depth;			/* open containers */
	int error;			/* first error, -errno; 0 if none */
	int done;			/* a complete top-level value was written */
	char kind[JSON_MAX_DEPTH];	/* '{' or '[' per open container */
	int count[JSON_MAX_DEPTH];	/* values written in it so far */
};

void json__init(struct json_writer *w, FILE *f, int flags);
void json__obj_begin(struct json_writer *w, const char *key);
void json__obj_end(struct json_writer *w);
void json__arr_begin(struct json_writer *w, const char *key);
void json__arr_end(struct json_writer *w);
/* @s NULL writes null. Bytes that are not valid UTF-8 are written as \u00XX. */
void json__str(struct json_writer *w, const char *key, const char *s);
void json__strn(struct json_writer *w, const char *key, const char *s, size_t len);
void json__u64(struct json_writer *w, const char *key, u64 v);
void json__s64(struct json_writer *w, const char *key, s64 v);
/* Shortest text that reads back as the same double; NaN/inf write null. */
void json__double(struct json_writer *w, const char *key, double v);
void json__bool(struct json_writer *w, const char *key, int v);
void json__null(struct json_writer *w, const char *key);
/*
 * End the document (newline, flush). 0, -EINVAL if containers are still
 * open, nothing was written or the API was misused, -EIO on a write error.
 */
int json__finish(struct json_writer *w);

/* Reader */
enum json_type {
	JV_NULL,
	JV_BOOL,
	JV_NUMBER,
	JV_STRING,
	JV_ARRAY,
	JV_OBJECT,
};

struct json_value {
	enum json_type type;
	int boolean;
	double num;		/* JV_NUMBER */
	char *str;		/* JV_STRING, NUL-terminated (may hold \0) */
	size_t len;		/* string length, or number of items/members */
	struct json_value *items;	/* array items or object member values */
	char **keys;		/* object member names, parallel to items */
};

struct json_error {
	size_t offset;		/* byte offset in the input */
	char msg[128];
};

/*
 * Parse @len bytes of @text as one JSON value (surrounding whitespace
 * allowed). 0 and *out set (free with json__free), or -EINVAL with @err
 * filled (may be NULL), or -ENOMEM.
 */
int json__parse(const char *text, size_t len, struct json_value **out,
		struct json_error *err);
void json__free(struct json_value *v);

/* Member @key of object @v (the last one if repeated), or NULL. */
const struct json_value *json__get(const struct json_value *v, const char *key);
/* Item @i of array @v, or NULL. */
const struct json_value *json__at(const struct json_value *v, size_t i);
/* Dotted path of keys and array indexes: "caches.0.size". NULL if absent. */
const struct json_value *json__path(const struct json_value *v, const char *path);
const char *json__type_name(enum json_type t);

#endif
