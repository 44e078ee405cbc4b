// SPDX-License-Identifier: GPL-2.0
/*
 * svg: figures are well-formed XML (checked by a small parser here), carry
 * their text escaped, and put marks where the data says: one rect per
 * heatmap cell, darker for larger values, bar heights proportional to the
 * values, log-x positions evenly spaced per factor of ten.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/svg.h"
#include "core/tests.h"

/* ------------------------------------------------------- well-formedness */

static int name_char(int c, int first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
	       (!first && ((c >= '0' && c <= '9') || c == '-' || c == '.'));
}

/* An entity at @p ("&...;"): length, or 0 if not one XML predefines. */
static size_t entity(const char *p)
{
	static const char *const names[] = { "&amp;", "&lt;", "&gt;", "&quot;", "&apos;" };
	size_t i;

	for (i = 0; i < 5; i++)
		if (!strncmp(p, names[i], strlen(names[i])))
			return strlen(names[i]);
	if (p[1] == '#') {
		const char *q = p + 2;

		if (*q == 'x')
			q++;
		while ((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f') || (*q >= 'A' && *q <= 'F'))
			q++;
		if (*q == ';' && q > p + 2)
			return q - p + 1;
	}
	return 0;
}

/*
 * Well-formed XML subset: optional declaration, comments, one root element,
 * nested tags balanced, attributes quoted, '<' never and '&' only as an
 * entity in text and attribute values. 1 if fine, else 0 and @why.
 */
static int xml_ok(const char *s, char *why, size_t len)
{
	const char *stack[256];
	size_t stlen[256];
	const char *p = s;
	int depth = 0, roots = 0;

	if (!strncmp(p, "<?xml", 5)) {
		p = strstr(p, "?>");
		if (!p)
			return snprintf(why, len, "unterminated declaration"), 0;
		p += 2;
	}
	while (*p) {
		if (*p == '<') {
			const char *n;

			if (!strncmp(p, "<!--", 4)) {
				p = strstr(p + 4, "-->");
				if (!p)
					return snprintf(why, len, "unterminated comment"), 0;
				p += 3;
				continue;
			}
			if (p[1] == '/') {
				n = p + 2;
				while (name_char(*n, n == p + 2))
					n++;
				if (!depth || (size_t)(n - p - 2) != stlen[depth - 1] ||
				    strncmp(p + 2, stack[depth - 1], stlen[depth - 1]))
					return snprintf(why, len, "unbalanced close at byte %zu: %.20s",
							(size_t)(p - s), p), 0;
				depth--;
				while (*n == ' ' || *n == '\n')
					n++;
				if (*n != '>')
					return snprintf(why, len, "bad close tag at byte %zu", (size_t)(p - s)), 0;
				p = n + 1;
				continue;
			}
			n = ++p;
			if (!name_char(*p, 1))
				return snprintf(why, len, "bad tag name at byte %zu", (size_t)(p - s)), 0;
			while (name_char(*p, 0))
				p++;
			if (!depth && roots++)
				return snprintf(why, len, "second root element at byte %zu", (size_t)(n - s)), 0;
			for (;;) {
				char q;

				while (*p == ' ' || *p == '\n' || *p == '\t')
					p++;
				if (*p == '>' || (p[0] == '/' && p[1] == '>'))
					break;
				if (!name_char(*p, 1))
					return snprintf(why, len, "bad attribute at byte %zu", (size_t)(p - s)), 0;
				while (name_char(*p, 0))
					p++;
				if (*p++ != '=' || (*p != '"' && *p != '\''))
					return snprintf(why, len, "unquoted attribute at byte %zu", (size_t)(p - s)), 0;
				q = *p++;
				while (*p && *p != q) {
					if (*p == '<')
						return snprintf(why, len, "'<' in attribute at byte %zu", (size_t)(p - s)), 0;
					if (*p == '&' && !entity(p))
						return snprintf(why, len, "bad entity at byte %zu", (size_t)(p - s)), 0;
					p++;
				}
				if (!*p++)
					return snprintf(why, len, "unterminated attribute"), 0;
			}
			if (*p == '/') {
				p += 2;
			} else {
				if (depth == 256)
					return snprintf(why, len, "too deep"), 0;
				stack[depth] = n;
				stlen[depth++] = strcspn(n, " \n\t/>");
				p++;
			}
			continue;
		}
		if (*p == '&') {
			size_t e = entity(p);

			if (!e)
				return snprintf(why, len, "bad entity at byte %zu: %.10s", (size_t)(p - s), p), 0;
			p += e;
			continue;
		}
		if (!depth && *p != ' ' && *p != '\n' && *p != '\t' && *p != '\r')
			return snprintf(why, len, "text outside the root at byte %zu", (size_t)(p - s)), 0;
		p++;
	}
	if (depth || roots != 1)
		return snprintf(why, len, "%d unclosed elements, %d roots", depth, roots), 0;
	return 1;
}

LP_TEST(test_svg_xml_checker_rejects, "svg: the test's XML checker catches broken documents")
{
	static const char *const bad[] = {
		"<svg><g></svg>", "<svg>a & b</svg>", "<svg><text>a<b</text></svg>",
		"<svg x=1></svg>", "<svg></svg><svg></svg>", "<svg t=\"<\"></svg>", "<svg>",
	};
	char why[128];
	size_t i;

	TEST_ASSERT(xml_ok("<?xml version=\"1.0\"?>\n<svg a=\"&amp;\"><g/><t>x &lt; y</t></svg>\n",
			   why, sizeof(why)), "good rejected: %.90s", why);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		TEST_ASSERT(!xml_ok(bad[i], why, sizeof(why)), "accepted '%s'", bad[i]);
	return TEST_OK;
}

/* ----------------------------------------------------------------- helpers */

typedef int (*draw_fn)(FILE *f, const void *arg);

static char *render(draw_fn fn, const void *arg, int *ret)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f) {
		*ret = -ENOMEM;
		return NULL;
	}
	*ret = fn(f, arg);
	fclose(f);
	return buf;
}

static int draw_heatmap(FILE *f, const void *arg) { return svg__heatmap(f, arg); }
static int draw_bars(FILE *f, const void *arg) { return svg__bars(f, arg); }
static int draw_lines(FILE *f, const void *arg) { return svg__lines(f, arg); }
static int draw_scatter(FILE *f, const void *arg) { return svg__scatter(f, arg); }

/* @fn's drawing of @arg, if it returned 0 and is well-formed XML; else NULL and why */
static char *drawn(draw_fn fn, const void *arg, char *why, size_t len)
{
	int ret;
	char *s = render(fn, arg, &ret);

	if (!s || ret) {
		snprintf(why, len, "draw returned %d", ret);
		free(s);
		return NULL;
	}
	if (!xml_ok(s, why, len)) {
		free(s);
		return NULL;
	}
	return s;
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (; (s = strstr(s, what)); s += strlen(what))
		n++;
	return n;
}

/* Value of attribute @attr in the tag starting at @tag ("" if absent). */
static double attr_num(const char *tag, const char *attr)
{
	char key[32];
	const char *end = strchr(tag, '>'), *p;

	snprintf(key, sizeof(key), " %s=\"", attr);
	p = strstr(tag, key);
	if (!p || (end && p > end))
		return NAN;
	return strtod(p + strlen(key), NULL);
}

static void attr_str(const char *tag, const char *attr, char *out, size_t len)
{
	char key[32];
	const char *p;
	size_t n;

	snprintf(key, sizeof(key), " %s=\"", attr);
	out[0] = '\0';
	p = strstr(tag, key);
	if (!p)
		return;
	p += strlen(key);
	n = strcspn(p, "\"");
	snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), p);
}

/* Luminance of "#rrggbb", computed independently of svg.c (Rec. 709 weights) */
static double lum(const char *hex)
{
	unsigned int r, g, b;
	double c[3];
	int i;

	if (sscanf(hex, "#%2x%2x%2x", &r, &g, &b) != 3)
		return NAN;
	c[0] = r / 255.0, c[1] = g / 255.0, c[2] = b / 255.0;
	for (i = 0; i < 3; i++)
		c[i] = c[i] <= 0.04045 ? c[i] / 12.92 : pow((c[i] + 0.055) / 1.055, 2.4);
	return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
}

/* ----------------------------------------------------------------- heatmap */

LP_TEST(test_svg_heatmap_cells_and_text, "svg: heatmap is XML, one rect per cell, escaped labels")
{
	/* 3 x 4, all values distinct */
	double v[12] = { 0, 5, 1, 9, 2, 7, 3, 11, 4, 6, 8, 10 };
	const char *rows[3] = { "a&b", "<T1>", "x\"y" };
	const char *cols[4] = { "c0", "c1", "c2", "c>3" };
	struct svg_heatmap h = { "Sharing <all> & more", 3, 4, v, rows, cols, "thread",
				 "thread", "transfers", 0, 0 };
	char why[128];
	char *s = drawn(draw_heatmap, &h, why, sizeof(why));

	TEST_ASSERT(s, "%.90s", why);
	TEST_ASSERT(count(s, "<rect") == 12, "%d rects", count(s, "<rect"));
	TEST_ASSERT(count(s, "<rect class=\"cell\"") == 12, "cells");
	TEST_ASSERT(strstr(s, ">Sharing &lt;all&gt; &amp; more</text>"), "title");
	TEST_ASSERT(strstr(s, ">a&amp;b</text>") && strstr(s, ">&lt;T1&gt;</text>") &&
		    strstr(s, ">x&quot;y</text>") && strstr(s, ">c&gt;3</text>"), "labels");
	TEST_ASSERT(count(s, ">thread</text>") == 2 && strstr(s, ">transfers</text>"), "titles");
	/* values printed (n <= 16): 11 is the largest */
	TEST_ASSERT(strstr(s, ">11</text>") && strstr(s, ">5</text>"), "values");
	free(s);
	return TEST_OK;
}

LP_TEST(test_svg_heatmap_darker_for_larger, "svg: heatmap fill is darker for a larger value")
{
	double v[16];
	struct svg_heatmap h = { "m", 4, 4, v, NULL, NULL, "thread", "thread", NULL, 0, 0 };
	double l[16];
	const char *p;
	char why[128], fill[16];
	int i, j;
	char *s;

	for (i = 0; i < 16; i++)
		v[i] = (i * 7) % 16;	/* a permutation of 0..15 */
	s = drawn(draw_heatmap, &h, why, sizeof(why));
	TEST_ASSERT(s, "%.90s", why);
	p = s;
	for (i = 0; i < 16; i++) {
		p = strstr(p, "<rect class=\"cell\"");
		TEST_ASSERT(p, "cell %d missing", i);
		attr_str(p, "fill", fill, sizeof(fill));
		l[i] = lum(fill);
		TEST_ASSERT(!isnan(l[i]), "cell %d fill '%s'", i, fill);
		p++;
	}
	for (i = 0; i < 16; i++)
		for (j = 0; j < 16; j++)
			if (v[i] < v[j])
				TEST_ASSERT(l[i] > l[j], "v %g lum %g vs v %g lum %g", v[i], l[i], v[j], l[j]);
	/* the smallest value is white */
	for (i = 0; i < 16 && v[i] != 0; i++)
		;
	TEST_ASSERT(l[i] > 0.99, "min cell luminance %g", l[i]);
	free(s);
	return TEST_OK;
}

LP_TEST(test_svg_color_scale_monotone, "svg: colour scale luminance falls from white to dark")
{
	char c[8];
	double prev, cur;
	int i;

	svg__color(0, c);
	TEST_ASSERT(!strcmp(c, "#ffffff"), "t=0 is %s", c);
	prev = lum(c);
	for (i = 1; i <= 200; i++) {
		svg__color(i / 200.0, c);
		cur = lum(c);
		TEST_ASSERT(cur < prev, "t=%g lum %g not below %g", i / 200.0, cur, prev);
		prev = cur;
	}
	TEST_ASSERT(prev < 0.05, "t=1 luminance %g is not dark", prev);
	return TEST_OK;
}

LP_TEST(test_svg_heatmap_large_no_values, "svg: a 20x20 heatmap has 400 cells and no printed values")
{
	double v[400];
	struct svg_heatmap h = { "big", 20, 20, v, NULL, NULL, "thread", "thread", NULL, 0, 0 };
	char why[128];
	int i;
	char *s;

	for (i = 0; i < 400; i++)
		v[i] = i + 0.5;
	s = drawn(draw_heatmap, &h, why, sizeof(why));
	TEST_ASSERT(s, "%.90s", why);
	TEST_ASSERT(count(s, "<rect") == 400, "%d rects", count(s, "<rect"));
	TEST_ASSERT(!strstr(s, "class=\"values\""), "values printed for n > 16");
	free(s);
	return TEST_OK;
}

/* -------------------------------------------------------------------- bars */

LP_TEST(test_svg_bars_heights_proportional, "svg: bar heights proportional to values, legend")
{
	const char *labels[5] = { "0", "1", "2-3", "4-7", "cold" };
	double e[5] = { 0.1, 0.4, 0.25, 0, 0.25 }, m[5] = { 0.2, 0.3, 0.3, 0.05, 0.15 };
	struct svg_series ser[2] = { { "expected", e, NULL, 0 }, { "measured & <b>", m, NULL, 0 } };
	struct svg_bars b = { "Reuse histogram", "reuse distance", "fraction", 5, labels, 2, ser };
	double k = NAN, base = NAN;
	const char *p;
	char why[128];
	int i;
	char *s = drawn(draw_bars, &b, why, sizeof(why));

	TEST_ASSERT(s, "%.90s", why);
	TEST_ASSERT(count(s, "<rect class=\"bar\"") == 10, "bars %d", count(s, "<rect class=\"bar\""));
	TEST_ASSERT(strstr(s, ">measured &amp; &lt;b&gt;</text>") && strstr(s, ">expected</text>"),
		    "legend");
	TEST_ASSERT(strstr(s, ">2-3</text>") && strstr(s, ">cold</text>"), "labels");
	/* category-major: e0 m0 e1 m1 ...; height / value is one constant */
	p = s;
	for (i = 0; i < 10; i++) {
		double v = i % 2 ? m[i / 2] : e[i / 2], h, y;

		p = strstr(p, "<rect class=\"bar\"");
		TEST_ASSERT(p, "bar %d", i);
		h = attr_num(p, "height");
		y = attr_num(p, "y");
		if (isnan(base))
			base = y + h;
		TEST_ASSERT(fabs(y + h - base) < 0.01, "bar %d bottom %g vs %g", i, y + h, base);
		if (v > 0) {
			if (isnan(k))
				k = h / v;
			TEST_ASSERT(fabs(h / v - k) < 0.01, "bar %d: h %g v %g, k %g", i, h, v, k);
		} else {
			TEST_ASSERT(fabs(h) < 0.01, "zero bar %d has height %g", i, h);
		}
		p++;
	}
	TEST_ASSERT(k > 100, "tallest bar only %g px", k * 0.4);
	free(s);
	return TEST_OK;
}

LP_TEST(test_svg_bars_error_bars, "svg: error bars span value +- err on the bar's scale, clipped at 0")
{
	const char *labels[3] = { "0", "1", "2-3" };
	double v[3] = { 0.5, 0.05, 0.2 }, err[3] = { 0.1, 0.1, 0 }, bad[3] = { 0, -1, 0 };
	struct svg_series ser = { "all", v, NULL, 0, err };
	struct svg_bars b = { "t", "x", "y", 3, labels, 1, &ser };
	double k, base, y0, y1;
	const char *p, *q;
	char why[128];
	int ret;
	char *s = drawn(draw_bars, &b, why, sizeof(why));

	TEST_ASSERT(s, "%.90s", why);
	/* one error bar per bar with err > 0 */
	TEST_ASSERT(count(s, "class=\"err\"") == 2, "error bars %d", count(s, "class=\"err\""));
	TEST_ASSERT(strstr(s, "0.5 +- 0.1</title>"), "tooltip");
	p = strstr(s, "<rect class=\"bar\"");
	k = attr_num(p, "height") / v[0];
	base = attr_num(p, "y") + attr_num(p, "height");
	/* the first: from 0.4 to 0.6 on the bars' scale */
	q = strstr(s, "class=\"err\" d=\"M");
	TEST_ASSERT(q && sscanf(q, "class=\"err\" d=\"M%*f %lfV%lf", &y0, &y1) == 2, "err path");
	TEST_ASSERT(fabs(base - y0 - 0.4 * k) < 0.02 && fabs(base - y1 - 0.6 * k) < 0.02,
		    "0.5 +- 0.1: %g..%g px above the base, want %g..%g", base - y0, base - y1,
		    0.4 * k, 0.6 * k);
	/* the second, 0.05 +- 0.1, starts at the baseline */
	q = strstr(q + 1, "class=\"err\" d=\"M");
	TEST_ASSERT(q && sscanf(q, "class=\"err\" d=\"M%*f %lfV%lf", &y0, &y1) == 2 &&
		    fabs(y0 - base) < 0.02 && fabs(base - y1 - 0.15 * k) < 0.02, "clipped at 0");
	free(s);
	ser.err = bad;	/* a negative error is refused */
	s = render(draw_bars, &b, &ret);
	TEST_ASSERT(ret == -EINVAL, "negative err: ret %d", ret);
	free(s);
	return TEST_OK;
}

/* ------------------------------------------------------------------- lines */

/* x coordinates of the points of the first class="series" path */
static int path_xs(const char *s, double *x, int max)
{
	const char *p = strstr(s, "class=\"series\"");
	char *e;
	int n = 0;

	if (!p || !(p = strstr(p, " d=\"")))
		return 0;
	p += 4;
	while (*p && *p != '"' && n < max) {
		while (*p == ' ' || *p == 'M' || *p == 'L')
			p++;
		x[n++] = strtod(p, &e);
		p = e;
		strtod(p, &e);	/* y */
		p = e;
	}
	return n;
}

LP_TEST(test_svg_lines_log_x, "svg: log x axis, evenly spaced per decade, byte tick labels")
{
	double x[4] = { 1e3, 1e4, 1e5, 1e6 }, y[4] = { 0.1, 0.5, 0.9, 1 };
	double x2[2] = { 4096, 4194304 }, y2[2] = { 0, 1 };
	struct svg_series ser[2] = { { "private & L2", y, x, 4 },
				     { "shared", y2, x2, 2 } };
	struct svg_lines l = { "Hit rate", "cache size", "hit rate", 2, ser, 0, 1 };
	double px[8], d;
	char why[128];
	int n;
	char *s = drawn(draw_lines, &l, why, sizeof(why));

	TEST_ASSERT(s, "%.90s", why);
	TEST_ASSERT(strstr(s, ">private &amp; L2</text>") && strstr(s, ">shared</text>"), "legend");
	/* 1e3 .. 4M: powers of two from 512 to 4M, each labelled */
	TEST_ASSERT(strstr(s, ">4K</text>") && strstr(s, ">64K</text>") && strstr(s, ">1M</text>"),
		    "tick labels");
	n = path_xs(s, px, 8);
	TEST_ASSERT(n == 4, "%d points", n);
	d = px[1] - px[0];
	TEST_ASSERT(d > 10, "decade is %g px", d);
	TEST_ASSERT(fabs(px[2] - px[1] - d) < 0.01 && fabs(px[3] - px[2] - d) < 0.01,
		    "decades %g %g %g", d, px[2] - px[1], px[3] - px[2]);
	free(s);
	return TEST_OK;
}

LP_TEST(test_svg_lines_ticks_even, "svg: power-of-two x ticks are evenly spaced and increasing")
{
	double x[3] = { 1024, 32768, 1 << 20 }, y[3] = { 0.2, 0.4, 0.8 };
	struct svg_series ser = { "a", y, x, 3 };
	struct svg_lines l = { "t", NULL, NULL, 1, &ser, 0, 0 };
	double tx[32], d;
	const char *p;
	int n = 0, i, ret;
	char *s = render(draw_lines, &l, &ret);

	TEST_ASSERT(s && ret == 0, "ret %d", ret);
	for (p = s; (p = strstr(p, "<text class=\"xtick\"")) && n < 32; p++)
		tx[n++] = attr_num(p, "x");
	TEST_ASSERT(n >= 3, "%d ticks", n);
	d = tx[1] - tx[0];
	TEST_ASSERT(d > 0, "not increasing");
	for (i = 2; i < n; i++)
		TEST_ASSERT(fabs(tx[i] - tx[i - 1] - d) < 0.02, "tick %d spacing %g vs %g", i,
			    tx[i] - tx[i - 1], d);
	/* x = 1K and 1M are ticks: the point at 32K lies halfway between */
	n = path_xs(s, tx, 3);
	TEST_ASSERT(n == 3 && fabs((tx[0] + tx[2]) / 2 - tx[1]) < 0.01, "midpoint %g %g %g",
		    tx[0], tx[1], tx[2]);
	free(s);
	return TEST_OK;
}

LP_TEST(test_svg_bytes_label, "svg: byte labels with binary suffixes")
{
	static const struct { double v; const char *s; } cases[] = {
		{ 512, "512" }, { 4096, "4K" }, { 65536, "64K" }, { 1048576, "1M" },
		{ 1.5 * 1073741824.0, "1.5G" }, { 1099511627776.0, "1T" },
	};
	char buf[16];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		svg__bytes_label(cases[i].v, buf, sizeof(buf));
		TEST_ASSERT(!strcmp(buf, cases[i].s), "%g -> '%s', want '%s'", cases[i].v, buf,
			    cases[i].s);
	}
	return TEST_OK;
}

LP_TEST(test_svg_errors, "svg: bad descriptions give -EINVAL, a full disk -ENOSPC")
{
	double v[1] = { 1 }, neg[1] = { -1 };
	struct svg_heatmap h = { "x", 1, 1, v, NULL, NULL, NULL, NULL, NULL, 0, 0 };
	struct svg_series ser = { "a", neg, NULL, 0 };
	struct svg_bars b = { "b", NULL, NULL, 1, NULL, 1, &ser };
	FILE *f;
	int ret;

	f = fopen("/dev/null", "w");
	TEST_ASSERT(f, "/dev/null");
	TEST_ASSERT(svg__bars(f, &b) == -EINVAL, "negative bar accepted");
	b.nseries = SVG_MAX_SERIES + 1;
	TEST_ASSERT(svg__bars(f, &b) == -EINVAL, "too many series accepted");
	h.rows = 0;
	TEST_ASSERT(svg__heatmap(f, &h) == -EINVAL, "0 rows accepted");
	fclose(f);
	h.rows = 1;
	f = fopen("/dev/full", "w");
	if (!f)
		TEST_SKIP("no /dev/full");
	ret = svg__heatmap(f, &h);
	fclose(f);
	TEST_ASSERT(ret == -ENOSPC, "ret %d", ret);
	return TEST_OK;
}

/* ----------------------------------------------------------------- scatter */

LP_TEST(test_svg_scatter_points_shapes_positions, "svg: scatter is XML, one element per point by kind, placed by value, higher y higher up")
{
	static const struct svg_point p[] = {
		{ 0.5, 0, 0, SVG_SHAPE_LOAD }, { 1.0, 8, 1, SVG_SHAPE_STORE },
		{ 2.0, 15, 1, SVG_SHAPE_ATOMIC }, { 1.5, 4, 0, SVG_SHAPE_ATOMIC },
	};
	static const char *const names[] = { "T0", "T<1>" };
	struct svg_scatter sc = { "obj & co", "time (s)", "offset", 2, names, 4, p, 0, 15 };
	double cy_lo, cy_hi, x1, x2;
	const char *a, *b;
	char why[128];
	char *s = drawn(draw_scatter, &sc, why, sizeof(why));

	TEST_ASSERT(s, "%.90s", why);
	TEST_ASSERT(count(s, "class=\"pt ") == 4, "%d points", count(s, "class=\"pt "));
	TEST_ASSERT(count(s, "class=\"pt load\"") == 1 && count(s, "class=\"pt store\"") == 1 &&
		    count(s, "class=\"pt atomic\"") == 2, "shapes");
	TEST_ASSERT(strstr(s, ">obj &amp; co</text>") && strstr(s, ">T&lt;1&gt;</text>") &&
		    strstr(s, ">atomic (RMW)</text>"), "title and legend");
	/* the load at offset 0 sits below the store at offset 8 (SVG y grows down) */
	a = strstr(s, "<circle class=\"pt load\"");
	b = strstr(s, "<rect class=\"pt store\"");
	TEST_ASSERT(a && b, "elements");
	cy_lo = attr_num(a, "cy");
	cy_hi = attr_num(b, "y") + 2.5;
	x1 = attr_num(a, "cx");
	x2 = attr_num(b, "x") + 2.5;
	TEST_ASSERT(cy_lo > cy_hi && x2 > x1, "load at (%g, %g), store at (%g, %g)", x1, cy_lo, x2,
		    cy_hi);
	TEST_ASSERT(attr_num(b, "data-s") == 1 && attr_num(b, "data-y") == 8 &&
		    attr_num(b, "data-x") == 1.0, "data attributes");
	free(s);
	sc.n = -1;
	TEST_ASSERT(svg__scatter(stdout, &sc) == -EINVAL, "negative count");
	return TEST_OK;
}
