// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/tests.h"

/* Run @fn against a writer on a memory stream; returns the text (free it). */
static char *written(void (*fn)(struct json_writer *w), int flags, int *ret)
{
	struct json_writer w;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	*ret = -ENOMEM;
	if (!f)
		return NULL;
	json__init(&w, f, flags);
	fn(&w);
	*ret = json__finish(&w);
	fclose(f);
	return buf;
}

static void write_doc(struct json_writer *w)
{
	json__obj_begin(w, NULL);
	json__str(w, "name", "L1 \"Data\"");
	json__u64(w, "size", 18446744073709551615ULL);
	json__s64(w, "paranoid", -1);
	json__double(w, "ratio", 0.1);
	json__double(w, "nan", NAN);
	json__bool(w, "yes", 1);
	json__null(w, "nothing");
	json__arr_begin(w, "cpus");
	json__u64(w, NULL, 0);
	json__obj_begin(w, NULL);
	json__obj_end(w);
	json__arr_begin(w, NULL);
	json__arr_end(w);
	json__str(w, NULL, NULL);
	json__arr_end(w);
	json__obj_end(w);
}

LP_TEST(test_json_writer_compact_text, "json: writer commas, nesting, numbers, exact text")
{
	int ret;
	char *s = written(write_doc, 0, &ret);

	TEST_ASSERT(s, "no output");
	TEST_ASSERT(ret == 0, "finish=%d", ret);
	TEST_ASSERT(!strcmp(s, "{\"name\":\"L1 \\\"Data\\\"\",\"size\":18446744073709551615,"
			    "\"paranoid\":-1,\"ratio\":0.1,\"nan\":null,\"yes\":true,"
			    "\"nothing\":null,\"cpus\":[0,{},[],null]}\n"),
		    "got %s", s);
	free(s);
	return TEST_OK;
}

LP_TEST(test_json_round_trip, "json: pretty writer output parses back to same values")
{
	struct json_value *v;
	struct json_error err;
	const struct json_value *x;
	int ret;
	char *s = written(write_doc, JSON_PRETTY, &ret);

	TEST_ASSERT(s && ret == 0, "ret=%d", ret);
	TEST_ASSERT(strchr(s, '\n') < s + strlen(s) - 1, "pretty output has no newlines");
	ret = json__parse(s, strlen(s), &v, &err);
	TEST_ASSERT(ret == 0, "parse: %s at %zu in %s", err.msg, err.offset, s);
	TEST_ASSERT(v->type == JV_OBJECT && v->len == 8, "type %d len %zu", v->type, v->len);
	x = json__get(v, "name");
	TEST_ASSERT(x && x->type == JV_STRING && !strcmp(x->str, "L1 \"Data\""), "name");
	x = json__get(v, "size");
	TEST_ASSERT(x && x->type == JV_NUMBER && x->num == 18446744073709551615.0, "size");
	x = json__get(v, "paranoid");
	TEST_ASSERT(x && x->type == JV_NUMBER && x->num == -1, "paranoid");
	x = json__get(v, "ratio");
	TEST_ASSERT(x && x->num == 0.1, "ratio %g", x ? x->num : -1);
	TEST_ASSERT(json__get(v, "nan")->type == JV_NULL, "nan");
	TEST_ASSERT(json__get(v, "yes")->boolean == 1, "yes");
	x = json__path(v, "cpus.1");
	TEST_ASSERT(x && x->type == JV_OBJECT && x->len == 0, "cpus.1");
	TEST_ASSERT(json__path(v, "cpus.3")->type == JV_NULL, "cpus.3");
	TEST_ASSERT(!json__path(v, "cpus.4"), "cpus.4 exists");
	TEST_ASSERT(!json__get(v, "missing"), "missing exists");
	json__free(v);
	free(s);
	return TEST_OK;
}

static void write_escapes(struct json_writer *w)
{
	json__arr_begin(w, NULL);
	json__str(w, NULL, "q\" b\\ n\n t\t c\x01 d\x7f e\xc3\xa9 bad\xff");
	json__strn(w, NULL, "a\0b", 3);
	json__arr_end(w);
}

LP_TEST(test_json_string_escaping, "json: writer escapes quotes, controls, bad UTF-8")
{
	int ret;
	char *s = written(write_escapes, 0, &ret);
	struct json_value *v;
	const struct json_value *x;

	TEST_ASSERT(s && ret == 0, "ret=%d", ret);
	/* RFC 8259 section 7; 0xff is not UTF-8 and is kept as U+00FF */
	TEST_ASSERT(!strcmp(s, "[\"q\\\" b\\\\ n\\n t\\t c\\u0001 d\\u007f e\xc3\xa9 bad\\u00ff\","
			    "\"a\\u0000b\"]\n"), "got %s", s);
	TEST_ASSERT(json__parse(s, strlen(s), &v, NULL) == 0, "parse");
	x = json__at(v, 0);
	TEST_ASSERT(!strcmp(x->str, "q\" b\\ n\n t\t c\x01 d\x7f e\xc3\xa9 bad\xc3\xbf"),
		    "decoded %s", x->str);
	x = json__at(v, 1);
	TEST_ASSERT(x->len == 3 && !memcmp(x->str, "a\0b", 3), "len %zu", x->len);
	json__free(v);
	free(s);
	return TEST_OK;
}

LP_TEST(test_json_reader_unicode_escapes, "json: reader decodes \\u escapes and surrogate pairs")
{
	/* U+00E9 = c3 a9, U+20AC = e2 82 ac, U+1F600 = f0 9f 98 80 */
	const char *in = "\"\\u00e9\\u20AC\\ud83d\\ude00\\/\"";
	struct json_value *v;

	TEST_ASSERT(json__parse(in, strlen(in), &v, NULL) == 0, "parse");
	TEST_ASSERT(v->len == 10 && !strcmp(v->str, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80/"),
		    "len %zu", v->len);
	json__free(v);
	return TEST_OK;
}

LP_TEST(test_json_reader_numbers, "json: reader number grammar, integers beyond 64 bits signed")
{
	static const struct { const char *in; double num; } good[] = {
		{ "0", 0 }, { "-0.5e3", -500 }, { "1E2", 100 },
		{ "123456789012345678", 123456789012345678.0 },
		{ "-9223372036854775808", -9223372036854775808.0 },
		{ "18446744073709551615", 18446744073709551615.0 },	/* u64 max, as written */
	};
	static const char *const bad[] = { "01", "1.", "-", ".5", "1e", "+1", "0x10", "1.e5" };
	struct json_value *v;
	struct json_error err;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		TEST_ASSERT(json__parse(good[i].in, strlen(good[i].in), &v, &err) == 0,
			    "%s: %s", good[i].in, err.msg);
		TEST_ASSERT(v->type == JV_NUMBER && v->num == good[i].num, "%s: %g", good[i].in, v->num);
		json__free(v);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		TEST_ASSERT(json__parse(bad[i], strlen(bad[i]), &v, &err) == -EINVAL,
			    "%s accepted", bad[i]);
		TEST_ASSERT(!v, "out set on error");
	}
	return TEST_OK;
}

/*
 * The error says where: at or just after the fault (the parser reads the
 * whole offending token first), so compare can name its line and column.
 */
LP_TEST(test_json_reader_errors_have_offsets, "json: truncated, garbage, bad tokens give offsets")
{
	static const struct { const char *in; size_t fault; const char *msg; } bad[] = {
		{ "{\"a\": [1, 2", 11, "']' expected" },
		{ "{\"a\": [1, 2]", 12, "'}' expected" },
		{ "{} x", 3, "end of file expected" },
		{ "[1 2]", 3, "']' expected" },
		{ "{\"a\" 1}", 5, "':' expected" },
		{ "{1: 2}", 1, "string or '}' expected" },
		{ "[1,]", 3, "unexpected token" },
		{ "\"abc", 4, "premature end of input" },
		{ "\"a\x01\"", 2, "control character" },
		{ "\"\\x\"", 1, "invalid escape" },
		{ "\"\\ud800\"", 7, "invalid Unicode" },
		{ "\"\xc3(\"", 1, "unable to decode byte" },
		{ "tru", 0, "invalid token" },
		{ "", 0, "end of file" },
		{ "   ", 3, "end of file" },
	};
	struct json_value *v;
	struct json_error err;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		size_t len = strlen(bad[i].in);
		int ret = json__parse(bad[i].in, len, &v, &err);

		TEST_ASSERT(ret == -EINVAL, "'%s' gave %d", bad[i].in, ret);
		TEST_ASSERT(err.offset >= bad[i].fault && err.offset <= bad[i].fault + 3 &&
			    err.offset <= len, "'%s': offset %zu, fault at %zu (%.60s)",
			    bad[i].in, err.offset, bad[i].fault, err.msg);
		TEST_ASSERT(strstr(err.msg, bad[i].msg), "'%s': message '%s' lacks '%s'",
			    bad[i].in, err.msg, bad[i].msg);
	}
	return TEST_OK;
}

LP_TEST(test_json_nesting_limit, "json: reader and writer refuse nesting beyond the limit")
{
	char in[2 * (JSON_MAX_DEPTH + 1) + 1];
	struct json_value *v;
	struct json_error err;
	struct json_writer w;
	FILE *f;
	int i;

	/* exactly the limit parses */
	memset(in, '[', JSON_MAX_DEPTH);
	memset(in + JSON_MAX_DEPTH, ']', JSON_MAX_DEPTH);
	TEST_ASSERT(json__parse(in, 2 * JSON_MAX_DEPTH, &v, &err) == 0, "%s", err.msg);
	json__free(v);
	/* one more does not, and says so at the offending bracket */
	memset(in, '[', JSON_MAX_DEPTH + 1);
	memset(in + JSON_MAX_DEPTH + 1, ']', JSON_MAX_DEPTH + 1);
	TEST_ASSERT(json__parse(in, 2 * (JSON_MAX_DEPTH + 1), &v, &err) == -EINVAL, "accepted");
	TEST_ASSERT(err.offset == JSON_MAX_DEPTH && strstr(err.msg, "nesting"),
		    "offset %zu: %s", err.offset, err.msg);

	f = fopen("/dev/null", "w");
	json__init(&w, f, 0);
	for (i = 0; i <= JSON_MAX_DEPTH; i++)
		json__arr_begin(&w, NULL);
	TEST_ASSERT(json__finish(&w) == -E2BIG, "writer error %d", w.error);
	fclose(f);
	return TEST_OK;
}

static void misuse_key_in_array(struct json_writer *w)
{
	json__arr_begin(w, NULL);
	json__u64(w, "k", 1);
	json__arr_end(w);
}

static void misuse_no_key_in_object(struct json_writer *w)
{
	json__obj_begin(w, NULL);
	json__u64(w, NULL, 1);
	json__obj_end(w);
}

static void misuse_unbalanced(struct json_writer *w)
{
	json__obj_begin(w, NULL);
	json__arr_end(w);
}

static void misuse_unclosed(struct json_writer *w)
{
	json__arr_begin(w, NULL);
}

static void misuse_two_documents(struct json_writer *w)
{
	json__u64(w, NULL, 1);
	json__u64(w, NULL, 2);
}

LP_TEST(test_json_writer_misuse, "json: writer reports keys/closes that do not match")
{
	void (*const cases[])(struct json_writer *) = {
		misuse_key_in_array, misuse_no_key_in_object, misuse_unbalanced,
		misuse_unclosed, misuse_two_documents,
	};
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		free(written(cases[i], 0, &ret));
		TEST_ASSERT(ret == -EINVAL, "case %zu: %d", i, ret);
	}
	return TEST_OK;
}

LP_TEST(test_json_double_shortest, "json: doubles print shortest exact form")
{
	static const struct { double v; const char *text; } cases[] = {
		{ 0.1, "0.1" }, { 1.0 / 3, "0.3333333333333333" }, { 1e300, "1e+300" },
		{ -2.5, "-2.5" }, { 3, "3" },
	};
	struct json_writer w;
	char buf[64];
	size_t i;
	FILE *f;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(buf, 0, sizeof(buf));
		f = fmemopen(buf, sizeof(buf), "w");
		json__init(&w, f, 0);
		json__double(&w, NULL, cases[i].v);
		TEST_ASSERT(json__finish(&w) == 0, "finish");
		fclose(f);
		buf[strcspn(buf, "\n")] = '\0';
		TEST_ASSERT(!strcmp(buf, cases[i].text), "%s, want %s", buf, cases[i].text);
	}
	return TEST_OK;
}
