// SPDX-License-Identifier: GPL-2.0
/*
 * Similarity of matrices and histograms, and reading them out of
 * comdetect / reuse JSON. Pure: no I/O, no exit.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/compare.h"

const char *const compare_matrix_names[COMPARE_NMAT] = { "all", "true", "false" };

static int fail(char *msg, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (msg && len) {
		va_start(ap, fmt);
		vsnprintf(msg, len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

double compare__sum(const double *a, size_t n)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += a[i];
	return s;
}

static int valid_weight(double x)
{
	return isfinite(x) && x >= 0;
}

/* S from the two sums and the L1 distance of the normalized inputs. */
static double similarity(double suma, double sumb, double l1)
{
	if (suma == 0 && sumb == 0)
		return 1;
	if (suma == 0 || sumb == 0)
		return 0;
	l1 = 1 - l1 / 2;
	/* rounding can take it a hair outside [0, 1] */
	return l1 < 0 ? 0 : l1 > 1 ? 1 : l1;
}

int compare__matrix_union(const double *a, int na, const double *b, int nb,
			  double *s)
{
	int n = na > nb ? na : nb, i, j;
	double suma, sumb, l1 = 0;

	if (na < 0 || nb < 0 || (na && !a) || (nb && !b) || !s)
		return -EINVAL;
	for (i = 0; i < na * na; i++)
		if (!valid_weight(a[i]))
			return -EINVAL;
	for (i = 0; i < nb * nb; i++)
		if (!valid_weight(b[i]))
			return -EINVAL;
	suma = compare__sum(a, (size_t)na * na);
	sumb = compare__sum(b, (size_t)nb * nb);
	for (i = 0; i < n; i++) {
		for (j = 0; j < n; j++) {
			double x = i < na && j < na && suma > 0 ? a[i * na + j] / suma : 0;
			double y = i < nb && j < nb && sumb > 0 ? b[i * nb + j] / sumb : 0;

			l1 += fabs(x - y);
		}
	}
	*s = similarity(suma, sumb, l1);
	return 0;
}

double compare__hist_sum(const struct compare_hist *h)
{
	double s = 0;
	int i;

	for (i = 0; i < h->nbins; i++)
		s += h->bins[i].w;
	return s;
}

static int same_bin(const struct compare_bin *x, const struct compare_bin *y)
{
	if (x->kind != y->kind)
		return 0;
	return x->kind != COMPARE_BIN_FINITE || (x->lo == y->lo && x->hi == y->hi);
}

/* Weight of the bins of @h matching @b (duplicates add up). */
static double bin_weight(const struct compare_hist *h, const struct compare_bin *b)
{
	double w = 0;
	int i;

	for (i = 0; i < h->nbins; i++)
		if (same_bin(&h->bins[i], b))
			w += h->bins[i].w;
	return w;
}

/* Is @b the first bin of @h (indexes < @upto) with its key? */
static int first_of_key(const struct compare_hist *h, int upto, const struct compare_bin *b)
{
	int i;

	for (i = 0; i < upto; i++)
		if (same_bin(&h->bins[i], b))
			return 0;
	return 1;
}

int compare__hist(const struct compare_hist *a, const struct compare_hist *b,
		  double *s)
{
	double suma, sumb, l1 = 0;
	int i;

	if (!a || !b || !s || a->nbins < 0 || b->nbins < 0)
		return -EINVAL;
	for (i = 0; i < a->nbins; i++)
		if (!valid_weight(a->bins[i].w))
			return -EINVAL;
	for (i = 0; i < b->nbins; i++)
		if (!valid_weight(b->bins[i].w))
			return -EINVAL;
	suma = compare__hist_sum(a);
	sumb = compare__hist_sum(b);
	if (suma == 0 || sumb == 0) {
		*s = similarity(suma, sumb, 0);
		return 0;
	}
	/* each key of the union once: keys of a, then keys of b not in a */
	for (i = 0; i < a->nbins; i++) {
		const struct compare_bin *k = &a->bins[i];

		if (first_of_key(a, i, k))
			l1 += fabs(bin_weight(a, k) / suma - bin_weight(b, k) / sumb);
	}
	for (i = 0; i < b->nbins; i++) {
		const struct compare_bin *k = &b->bins[i];

		if (first_of_key(b, i, k) && first_of_key(a, a->nbins, k))
			l1 += bin_weight(b, k) / sumb;
	}
	*s = similarity(suma, sumb, l1);
	return 0;
}

/* ------------------------------------------------------------ JSON reading */

/* "@a.@b" into @dst (truncated if long: it is only for messages) */
static __attribute__((noinline)) void key_join(char *dst, size_t n, const char *a,
						const char *b)
{
	snprintf(dst, n, "%s%s%s", a, *a ? "." : "", b);
}


static const char *type_name(const struct json_value *v)
{
	return json__type_name(v->type);
}

static int read_number(const struct json_value *v, const char *key, double *out,
		       char *msg, size_t len)
{
	if (!v)
		return fail(msg, len, "key '%s': missing", key);
	if (v->type != JV_NUMBER)
		return fail(msg, len, "key '%s': expected a number, found %s", key, type_name(v));
	if (!isfinite(v->num) || v->num < 0)
		return fail(msg, len, "key '%s': expected a non-negative number, found %g",
			    key, v->num);
	*out = v->num;
	return 0;
}

/* A number or string member copied as text ("" if absent). */
static int read_label(const struct json_value *root, const char *key, char *buf,
		      size_t bufl, char *msg, size_t len)
{
	const struct json_value *v = json__get(root, key);

	buf[0] = '\0';
	if (!v || v->type == JV_NULL)
		return 0;
	if (v->type == JV_STRING)
		snprintf(buf, bufl, "%s", v->str);
	else if (v->type == JV_NUMBER)
		snprintf(buf, bufl, "%.17g", v->num);
	else
		return fail(msg, len, "key '%s': expected a string or number, found %s",
			    key, type_name(v));
	return 0;
}

#define COMPARE_MAX_N 8192	/* threads of a matrix compare holds (512 MiB) */

/* {"n": N, "cells": [[i, j, v], ...]}: the sparse form of a large matrix. */
static int read_sparse(const struct json_value *v, const char *key, struct compare_matrix *m,
		       char *msg, size_t len)
{
	const struct json_value *nv = json__get(v, "n"), *cells = json__get(v, "cells");
	size_t c, n;

	if (!nv || nv->type != JV_NUMBER || !(nv->num >= 0) || nv->num != (double)(size_t)nv->num)
		return fail(msg, len, "key '%s.n': expected the number of threads", key);
	if (!cells || cells->type != JV_ARRAY)
		return fail(msg, len, "key '%s.cells': expected an array of [i, j, value]", key);
	n = (size_t)nv->num;
	if (n > COMPARE_MAX_N)
		return fail(msg, len, "key '%s': %zu threads is more than compare holds (%d)", key,
			    n, COMPARE_MAX_N);
	if (!n)
		return 0;
	m->cell = calloc(n * n, sizeof(*m->cell));
	if (!m->cell)
		return -ENOMEM;
	m->n = (int)n;
	for (c = 0; c < cells->len; c++) {
		const struct json_value *e = json__at(cells, c);
		double i, j, x;

		if (e->type != JV_ARRAY || e->len != 3 || e->items[0].type != JV_NUMBER ||
		    e->items[1].type != JV_NUMBER || e->items[2].type != JV_NUMBER) {
			free(m->cell);
			m->cell = NULL;
			m->n = 0;
			return fail(msg, len, "key '%s.cells.%zu': expected [i, j, value]", key, c);
		}
		i = e->items[0].num;
		j = e->items[1].num;
		x = e->items[2].num;
		if (!(i >= 0 && i < n && j >= 0 && j < n) || i != (size_t)i || j != (size_t)j ||
		    !isfinite(x) || x < 0) {
			free(m->cell);
			m->cell = NULL;
			m->n = 0;
			return fail(msg, len, "key '%s.cells.%zu': cell out of range or not a volume",
				    key, c);
		}
		m->cell[(size_t)i * n + (size_t)j] = x;
	}
	return 0;
}

static int read_matrix(const struct json_value *root, const char *key,
		       struct compare_matrix *m, char *msg, size_t len)
{
	const struct json_value *v = json__path(root, key), *row;
	char k[128], idx[48];
	size_t i, j, n;
	int ret;

	m->n = 0;
	m->cell = NULL;
	if (!v)
		return fail(msg, len, "key '%s': missing", key);
	if (v->type == JV_OBJECT)
		return read_sparse(v, key, m, msg, len);
	if (v->type != JV_ARRAY)
		return fail(msg, len, "key '%s': expected an array of rows, found %s",
			    key, type_name(v));
	n = v->len;
	if (n > 4096)
		return fail(msg, len, "key '%s': %zu rows is too many", key, n);
	if (!n)
		return 0;
	m->cell = calloc(n * n, sizeof(*m->cell));
	if (!m->cell)
		return -ENOMEM;
	m->n = (int)n;
	for (i = 0; i < n; i++) {
		row = json__at(v, i);
		if (row->type != JV_ARRAY) {
			ret = fail(msg, len, "key '%s.%zu': expected an array of %zu numbers, found %s",
				   key, i, n, type_name(row));
			goto out_free;
		}
		if (row->len != n) {
			ret = fail(msg, len, "key '%s.%zu': expected %zu numbers (a square matrix), found %zu",
				   key, i, n, row->len);
			goto out_free;
		}
		for (j = 0; j < n; j++) {
			snprintf(idx, sizeof(idx), "%zu.%zu", i, j);
			key_join(k, sizeof(k), key, idx);
			ret = read_number(json__at(row, j), k, &m->cell[i * n + j], msg, len);
			if (ret)
				goto out_free;
		}
	}
	return 0;
out_free:
	free(m->cell);
	m->cell = NULL;
	m->n = 0;
	return ret;
}

int compare__kind(const struct json_value *root, char *msg, size_t len)
{
	const struct json_value *c;

	if (!root || root->type != JV_OBJECT)
		return fail(msg, len, "expected a JSON object at the top, found %s",
			    root ? type_name(root) : "nothing");
	c = json__get(root, "command");
	if (!c)
		return 0;
	if (c->type != JV_STRING)
		return fail(msg, len, "key 'command': expected a string, found %s", type_name(c));
	if (!strcmp(c->str, "comdetect") || !strcmp(c->str, "coherence"))
		return COMPARE_COMDETECT;	/* coherence writes comdetect's schema */
	if (!strcmp(c->str, "reuse"))
		return COMPARE_REUSE;
	return fail(msg, len, "key 'command': '%s' results cannot be compared (only comdetect, coherence and reuse)",
		    c->str);
}

void compare__comdetect_free(struct compare_comdetect *c)
{
	int i;

	for (i = 0; i < COMPARE_NMAT; i++) {
		free(c->m[i].cell);
		free(c->core[i].cell);
		c->m[i].cell = c->core[i].cell = NULL;
		c->m[i].n = c->core[i].n = 0;
	}
	free(c->line_addr);
	free(c->line_vol);
	c->line_addr = NULL;
	c->line_vol = NULL;
	c->nlines = 0;
}

/* lines[]: {address: "0x...", true, false}; absent: no lines, not an error */
static int read_lines(const struct json_value *root, struct compare_comdetect *c,
		      char *msg, size_t len)
{
	const struct json_value *v = json__get(root, "lines");
	size_t i, n;

	if (!v || v->type == JV_NULL)
		return 0;
	if (v->type != JV_ARRAY)
		return fail(msg, len, "key 'lines': expected an array, found %s", type_name(v));
	n = v->len;
	c->line_addr = calloc(n ? n : 1, sizeof(*c->line_addr));
	c->line_vol = calloc(n ? n : 1, sizeof(*c->line_vol));
	if (!c->line_addr || !c->line_vol)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct json_value *l = json__at(v, i), *a = json__get(l, "address");
		double t = 0, f = 0;
		char *end;
		int ret;

		if (!a || a->type != JV_STRING)
			return fail(msg, len, "key 'lines[%zu].address': expected a hex string", i);
		c->line_addr[i] = strtoull(a->str, &end, 16);
		if (end == a->str || *end)
			return fail(msg, len, "key 'lines[%zu].address': '%.40s' is not hex", i, a->str);
		if ((ret = read_number(json__get(l, "true"), "lines[].true", &t, msg, len)) ||
		    (ret = read_number(json__get(l, "false"), "lines[].false", &f, msg, len)))
			return ret;
		c->line_vol[i] = t + f;
	}
	c->nlines = (int)n;
	return 0;
}

int compare__read_comdetect(const struct json_value *root,
			    struct compare_comdetect *c, char *msg, size_t len)
{
	const struct json_value *v;
	char key[64];
	int i, ret;

	memset(c, 0, sizeof(*c));
	if (!root || root->type != JV_OBJECT)
		return fail(msg, len, "expected a JSON object at the top, found %s",
			    root ? type_name(root) : "nothing");
	for (i = 0; i < COMPARE_NMAT; i++) {
		snprintf(key, sizeof(key), "matrix.%s", compare_matrix_names[i]);
		ret = read_matrix(root, key, &c->m[i], msg, len);
		if (ret)
			goto out_free;
	}
	v = json__get(root, "core_matrix");
	if (v && v->type != JV_NULL) {
		c->has_core = 1;
		for (i = 0; i < COMPARE_NMAT; i++) {
			snprintf(key, sizeof(key), "core_matrix.%s", compare_matrix_names[i]);
			ret = read_matrix(root, key, &c->core[i], msg, len);
			if (ret)
				goto out_free;
		}
	}
	for (i = 0; i < COMPARE_NMAT; i++) {
		snprintf(key, sizeof(key), "totals.%s", compare_matrix_names[i]);
		ret = read_number(json__path(root, key), key, &c->totals[i], msg, len);
		if (ret)
			goto out_free;
	}
	v = json__get(root, "false_fraction");
	if (v && v->type != JV_NULL) {
		ret = read_number(v, "false_fraction", &c->false_fraction, msg, len);
		if (ret)
			goto out_free;
		if (c->false_fraction > 1) {
			ret = fail(msg, len, "key 'false_fraction': %g is not in [0, 1]",
				   c->false_fraction);
			goto out_free;
		}
		c->false_fraction_from_key = 1;
	} else {
		c->false_fraction = c->totals[COMPARE_ALL] > 0 ?
			c->totals[COMPARE_FALSE] / c->totals[COMPARE_ALL] : NAN;
	}
	v = json__get(root, "benchmark");
	if (v && v->type == JV_STRING)
		snprintf(c->benchmark, sizeof(c->benchmark), "%s", v->str);
	ret = read_lines(root, c, msg, len);
	if (ret)
		goto out_free;
	return 0;
out_free:
	compare__comdetect_free(c);
	return ret;
}

/* lo/hi of a bin: a number, or a name for the infinite bins */
static int read_bin(const struct json_value *o, const char *key,
		    struct compare_bin *b, int want_count, char *msg, size_t len)
{
	const struct json_value *lo, *hi, *w;
	char k[128];
	int ret;

	if (o->type != JV_OBJECT)
		return fail(msg, len, "key '%s': expected an object {lo, hi, fraction}, found %s",
			    key, type_name(o));
	lo = json__get(o, "lo");
	hi = json__get(o, "hi");
	key_join(k, sizeof(k), key, "lo");
	if (!lo)
		return fail(msg, len, "key '%s': missing", k);
	if (lo->type == JV_STRING) {
		if (!strcmp(lo->str, "cold") || !strcmp(lo->str, "inf"))
			b->kind = COMPARE_BIN_COLD;
		else if (!strcmp(lo->str, "inval"))
			b->kind = COMPARE_BIN_INVAL;
		else
			return fail(msg, len, "key '%s': expected a number, \"cold\", \"inf\" or \"inval\", found \"%s\"",
				    k, lo->str);
		b->lo = b->hi = INFINITY;
	} else {
		b->kind = COMPARE_BIN_FINITE;
		ret = read_number(lo, k, &b->lo, msg, len);
		if (ret)
			return ret;
		key_join(k, sizeof(k), key, "hi");
		if (hi && hi->type == JV_STRING && !strcmp(hi->str, "inf")) {
			b->hi = INFINITY;
		} else {
			ret = read_number(hi, k, &b->hi, msg, len);
			if (ret)
				return ret;
		}
		if (b->hi < b->lo)
			return fail(msg, len, "key '%s': hi %g is below lo %g", key, b->hi, b->lo);
	}
	/* a sampled result's standard error of its fraction (optional) */
	if (json__get(o, "stderr") && json__get(o, "fraction")) {
		key_join(k, sizeof(k), key, "stderr");
		ret = read_number(json__get(o, "stderr"), k, &b->se, msg, len);
		key_join(k, sizeof(k), key, "fraction");
		if (!ret)
			ret = read_number(json__get(o, "fraction"), k, &b->frac, msg, len);
		if (ret)
			return ret;
		b->has_se = 1;
	}
	w = want_count ? json__get(o, "count") : json__get(o, "fraction");
	key_join(k, sizeof(k), key, want_count ? "count" : "fraction");
	if (!w && !want_count) {
		/* a histogram of counts compares the same after normalizing */
		w = json__get(o, "count");
		if (w)
			key_join(k, sizeof(k), key, "count");
	}
	return read_number(w, k, &b->w, msg, len);
}

/* @o.bins (plus a top-level "cold" number if bins has no cold bin) */
static int read_hist(const struct json_value *o, const char *key,
		     struct compare_hist *h, char *msg, size_t len)
{
	const struct json_value *bins, *cold;
	char k[128];
	size_t i;
	int ret, has_cold = 0, want_count = 0;

	h->nbins = 0;
	h->bins = NULL;
	key_join(k, sizeof(k), key, "bins");
	bins = json__get(o, "bins");
	if (!bins)
		return fail(msg, len, "key '%s': missing", k);
	if (bins->type != JV_ARRAY)
		return fail(msg, len, "key '%s': expected an array of bins, found %s",
			    k, type_name(bins));
	h->bins = calloc(bins->len + 1, sizeof(*h->bins));
	if (!h->bins)
		return -ENOMEM;
	/*
	 * A top-level "cold" is a count: it joins the bins only if they give
	 * counts too (a fraction and a count do not add up).
	 */
	cold = json__get(o, "cold");
	if (cold && cold->type == JV_NUMBER) {
		for (i = 0; i < bins->len; i++) {
			const struct json_value *b = json__at(bins, i);

			if (b && b->type == JV_OBJECT && !json__get(b, "count"))
				break;
		}
		want_count = i == bins->len;
	}
	for (i = 0; i < bins->len; i++) {
		char kb[128], idx[24];

		snprintf(idx, sizeof(idx), "%zu", i);
		key_join(kb, sizeof(kb), k, idx);
		ret = read_bin(json__at(bins, i), kb, &h->bins[i], want_count, msg, len);
		if (ret)
			goto out_free;
		has_cold |= h->bins[i].kind == COMPARE_BIN_COLD;
		h->nbins++;
	}
	if (cold && !has_cold && want_count) {
		key_join(k, sizeof(k), key, "cold");
		ret = read_number(cold, k, &h->bins[h->nbins].w, msg, len);
		if (ret)
			goto out_free;
		h->bins[h->nbins].kind = COMPARE_BIN_COLD;
		h->bins[h->nbins].lo = h->bins[h->nbins].hi = INFINITY;
		h->nbins++;
	}
	return 0;
out_free:
	free(h->bins);
	h->bins = NULL;
	h->nbins = 0;
	return ret;
}

void compare__reuse_free(struct compare_reuse *r)
{
	int i;

	free(r->all.bins);
	for (i = 0; i < r->nthreads; i++)
		free(r->per_thread[i].bins);
	free(r->per_thread);
	memset(r, 0, sizeof(*r));
}

int compare__read_reuse(const struct json_value *root, struct compare_reuse *r,
			char *msg, size_t len)
{
	const struct json_value *pt, *inv, *reu;
	char key[64];
	size_t i;
	int ret;

	memset(r, 0, sizeof(*r));
	if (!root || root->type != JV_OBJECT)
		return fail(msg, len, "expected a JSON object at the top, found %s",
			    root ? type_name(root) : "nothing");
	ret = read_label(root, "granularity", r->granularity, sizeof(r->granularity), msg, len);
	if (!ret)
		ret = read_label(root, "metric", r->metric, sizeof(r->metric), msg, len);
	if (!ret)
		ret = read_hist(root, "", &r->all, msg, len);
	if (ret)
		return ret;
	pt = json__get(root, "per_thread");
	if (pt && pt->type != JV_NULL) {
		if (pt->type != JV_ARRAY) {
			ret = fail(msg, len, "key 'per_thread': expected an array, found %s",
				   type_name(pt));
			goto out_free;
		}
		r->per_thread = calloc(pt->len ? pt->len : 1, sizeof(*r->per_thread));
		if (!r->per_thread) {
			ret = -ENOMEM;
			goto out_free;
		}
		for (i = 0; i < pt->len; i++) {
			const struct json_value *t = json__at(pt, i);

			snprintf(key, sizeof(key), "per_thread.%zu", i);
			if (t->type != JV_OBJECT) {
				ret = fail(msg, len, "key '%s': expected an object with bins, found %s",
					   key, type_name(t));
				goto out_free;
			}
			ret = read_hist(t, key, &r->per_thread[i], msg, len);
			if (ret)
				goto out_free;
			r->nthreads++;
		}
	}
	inv = json__get(root, "invalidations");
	reu = json__get(root, "reuses");
	if (inv && reu) {
		ret = read_number(inv, "invalidations", &r->invalidations, msg, len);
		if (!ret)
			ret = read_number(reu, "reuses", &r->reuses, msg, len);
		if (ret)
			goto out_free;
		r->has_inval = 1;
	}
	return 0;
out_free:
	compare__reuse_free(r);
	return ret;
}

/* ------------------------------------------------------------- comparing */

/* The indices of @c's COMPARE_TOP_LINES largest lines into @top; how many. */
static int top_lines(const struct compare_comdetect *c, int *top)
{
	int i, j, k, n = 0;

	for (i = 0; i < c->nlines; i++) {
		if (c->line_vol[i] <= 0)
			continue;
		for (k = n; k > 0 && c->line_vol[top[k - 1]] < c->line_vol[i]; k--)
			;
		if (k >= COMPARE_TOP_LINES)
			continue;
		for (j = n < COMPARE_TOP_LINES ? n : COMPARE_TOP_LINES - 1; j > k; j--)
			top[j] = top[j - 1];
		top[k] = i;
		if (n < COMPARE_TOP_LINES)
			n++;
	}
	return n;
}

static double exp_volume(const struct compare_comdetect *exp, u64 addr)
{
	int i;

	for (i = 0; i < exp->nlines; i++)
		if (exp->line_addr[i] == addr)
			return exp->line_vol[i];
	return 0;
}

static void lines_coverage(const struct compare_comdetect *exp,
			   const struct compare_comdetect *meas,
			   struct compare_comdetect_result *r)
{
	int te[COMPARE_TOP_LINES], tm[COMPARE_TOP_LINES], ne, nm, i;
	double v1 = 0, v2 = 0;

	ne = top_lines(exp, te);
	nm = top_lines(meas, tm);
	for (i = 0; i < ne; i++)
		v1 += exp->line_vol[te[i]];
	for (i = 0; i < nm; i++) {
		double v = exp_volume(exp, meas->line_addr[tm[i]]);

		v2 += v;
		r->false_pos += v <= 0;
	}
	r->has_lines = 1;
	r->top_meas = nm;
	r->coverage = v1 > 0 ? v2 / v1 : NAN;
}

int compare__comdetect(const struct compare_comdetect *exp,
		       const struct compare_comdetect *meas,
		       struct compare_comdetect_result *r)
{
	int i, ret;

	memset(r, 0, sizeof(*r));
	r->n_exp = exp->m[COMPARE_ALL].n;
	r->n_meas = meas->m[COMPARE_ALL].n;
	for (i = 0; i < COMPARE_NMAT; i++) {
		const struct compare_matrix *a = &exp->m[i], *b = &meas->m[i];

		ret = compare__matrix_union(a->cell, a->n, b->cell, b->n, &r->s[i]);
		if (ret)
			return ret;
		r->empty_exp[i] = compare__sum(a->cell, (size_t)a->n * a->n) == 0;
		r->empty_meas[i] = compare__sum(b->cell, (size_t)b->n * b->n) == 0;
	}
	r->has_core = exp->has_core && meas->has_core;
	if (r->has_core) {
		r->ncore_exp = exp->core[COMPARE_ALL].n;
		r->ncore_meas = meas->core[COMPARE_ALL].n;
		for (i = 0; i < COMPARE_NMAT; i++) {
			const struct compare_matrix *a = &exp->core[i], *b = &meas->core[i];

			ret = compare__matrix_union(a->cell, a->n, b->cell, b->n,
						    &r->core_s[i]);
			if (ret)
				return ret;
		}
	}
	r->ff_exp = exp->false_fraction;
	r->ff_meas = meas->false_fraction;
	r->ff_err = fabs(r->ff_exp - r->ff_meas);	/* NaN if either is */
	if (exp->nlines && meas->nlines)
		lines_coverage(exp, meas, r);
	return 0;
}

static double inval_fraction(const struct compare_reuse *r)
{
	double t = r->reuses + r->invalidations;

	return t > 0 ? r->invalidations / t : NAN;
}

void compare__reuse_result_free(struct compare_reuse_result *r)
{
	free(r->thread_s);
	r->thread_s = NULL;
	free(r->diff);
	r->diff = NULL;
	r->ndiff = 0;
}

/*
 * Bin @k's normalized weight in @h (of sum @sum) and its standard error,
 * scaled from the fraction's: the normalization may count more than the
 * reuses (cold), a constant factor for every bin of one histogram.
 */
static double bin_se(const struct compare_hist *h, const struct compare_bin *k, double sum)
{
	int i;

	for (i = 0; i < h->nbins; i++) {
		const struct compare_bin *b = &h->bins[i];

		if (same_bin(b, k) && b->has_se && b->frac > 0 && sum > 0)
			return b->se * (b->w / sum) / b->frac;
	}
	return 0;
}

static int hist_has_se(const struct compare_hist *h)
{
	int i;

	for (i = 0; i < h->nbins; i++)
		if (h->bins[i].has_se)
			return 1;
	return 0;
}

static int diff_cmp(const void *pa, const void *pb)
{
	const struct compare_diff *a = pa, *b = pb;

	return a->z > b->z ? -1 : a->z < b->z;
}

/* Each finite bin of the union once: is it within COMPARE_Z standard errors? */
static int reuse_diffs(const struct compare_hist *a, const struct compare_hist *b,
		       struct compare_reuse_result *r)
{
	double suma = compare__hist_sum(a), sumb = compare__hist_sum(b);
	int i, n = a->nbins + b->nbins;

	r->has_se = hist_has_se(a) || hist_has_se(b);
	if (!r->has_se || !(suma > 0) || !(sumb > 0))
		return 0;
	r->diff = calloc(n ? n : 1, sizeof(*r->diff));
	if (!r->diff)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct compare_bin *k = i < a->nbins ? &a->bins[i] : &b->bins[i - a->nbins];
		double x, y, sa, sb, se, z;

		if (k->kind != COMPARE_BIN_FINITE ||
		    (i < a->nbins ? !first_of_key(a, i, k) :
		     !first_of_key(b, i - a->nbins, k) || !first_of_key(a, a->nbins, k)))
			continue;
		x = bin_weight(a, k) / suma;
		y = bin_weight(b, k) / sumb;
		sa = bin_se(a, k, suma);
		sb = bin_se(b, k, sumb);
		se = sqrt(sa * sa + sb * sb);
		z = se > 0 ? fabs(x - y) / se : fabs(x - y) > 1e-9 ? INFINITY : 0;
		if (z <= COMPARE_Z) {
			r->nwithin++;
			continue;
		}
		r->diff[r->ndiff++] = (struct compare_diff){ k->lo, k->hi, x, y, se, z };
	}
	qsort(r->diff, r->ndiff, sizeof(*r->diff), diff_cmp);
	return 0;
}

int compare__reuse(const struct compare_reuse *exp,
		   const struct compare_reuse *meas,
		   struct compare_reuse_result *r, char *msg, size_t len)
{
	int i, ret;

	memset(r, 0, sizeof(*r));
	if (exp->granularity[0] && meas->granularity[0] &&
	    strcmp(exp->granularity, meas->granularity))
		return fail(msg, len, "granularity differs ('%s' vs '%s'): the bins count different things",
			    exp->granularity, meas->granularity);
	if (exp->metric[0] && meas->metric[0] && strcmp(exp->metric, meas->metric))
		return fail(msg, len, "metric differs ('%s' vs '%s'): the bins count different things",
			    exp->metric, meas->metric);
	ret = compare__hist(&exp->all, &meas->all, &r->s);
	if (ret)
		return fail(msg, len, "bins: invalid weight");
	r->empty_exp = compare__hist_sum(&exp->all) == 0;
	r->empty_meas = compare__hist_sum(&meas->all) == 0;
	if (reuse_diffs(&exp->all, &meas->all, r))
		return -ENOMEM;
	r->nthreads_exp = exp->nthreads;
	r->nthreads_meas = meas->nthreads;
	r->nthreads = exp->nthreads < meas->nthreads ? exp->nthreads : meas->nthreads;
	if (r->nthreads) {
		r->thread_s = calloc(r->nthreads, sizeof(*r->thread_s));
		if (!r->thread_s) {
			compare__reuse_result_free(r);
			return -ENOMEM;
		}
	}
	for (i = 0; i < r->nthreads; i++) {
		ret = compare__hist(&exp->per_thread[i], &meas->per_thread[i], &r->thread_s[i]);
		if (ret) {
			compare__reuse_result_free(r);
			return fail(msg, len, "per_thread.%d: invalid weight", i);
		}
	}
	r->has_inval = exp->has_inval && meas->has_inval;
	if (r->has_inval) {
		r->inval_exp = inval_fraction(exp);
		r->inval_meas = inval_fraction(meas);
		r->inval_err = fabs(r->inval_exp - r->inval_meas);
	}
	return 0;
}

void compare__text_pos(const char *text, size_t len, size_t offset,
		       int *line, int *col)
{
	size_t i;

	*line = 1;
	*col = 1;
	for (i = 0; i < offset && i < len; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}
