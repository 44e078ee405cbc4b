// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/sdcm.h"

/* P(Binomial(d, p) <= a_max - 1) for real d > a_max - 1, 0 < p < 1. */
static double binom_cdf_below(double d, u64 a_max, double p)
{
	double lt = d * log1p(-p), r = log(p) - log1p(-p);
	double m = lt, s = 1;	/* running log-sum-exp: sum = e^m * s */
	u64 a;

	for (a = 0; a + 1 < a_max; a++) {
		lt += log((d - a) / (a + 1)) + r;
		if (lt > m) {
			s = s * exp(m - lt) + 1;
			m = lt;
		} else {
			s += exp(lt - m);
		}
	}
	lt = m + log(s);
	return lt >= 0 ? 1 : exp(lt);
}

/* P(hit | D) for real D >= 0; 1 <= ways < blocks. */
static double hit_prob(double d, u64 ways, u64 blocks)
{
	if (d <= (double)ways - 1)
		return 1;
	return binom_cdf_below(d, ways, (double)ways / (double)blocks);
}

int sdcm__hit_prob(u64 d, u64 ways, u64 blocks, double *p)
{
	if (!ways || ways > blocks)
		return -EINVAL;
	if (ways == blocks)
		*p = d < ways ? 1 : 0;
	else
		*p = hit_prob((double)d, ways, blocks);
	return 0;
}

static double simpson(double a, double b, int panels, u64 ways, u64 blocks)
{
	double h = (b - a) / panels, sum = hit_prob(a, ways, blocks) +
					   hit_prob(b, ways, blocks);
	int i;

	for (i = 1; i < panels; i++)
		sum += (i & 1 ? 4 : 2) * hit_prob(a + i * h, ways, blocks);
	return sum * h / 3;
}

static double deriv(double d, u64 ways, u64 blocks)
{
	return (hit_prob(d + 1, ways, blocks) - hit_prob(d - 1, ways, blocks)) / 2;
}

/* Bins up to this many integers are summed exactly; wider ones integrated. */
#define EXACT_SUM_MAX 65536

int sdcm__bin_hit_prob(int k, u64 ways, u64 blocks, double *p)
{
	u64 lo, max, n, d;
	double prev, cur, sum;
	int panels;

	if (!ways || ways > blocks || k < 0 || k >= REUSE_HIST_NBINS)
		return -EINVAL;
	lo = reuse_hist__bin_lo(k);
	max = reuse_hist__bin_max(k);
	n = max - lo + 1;
	if (ways == blocks) {	/* fully associative: hit iff D < ways */
		u64 hits = ways <= lo ? 0 : ways - 1 >= max ? n : ways - lo;

		*p = (double)hits / (double)n;
		return 0;
	}
	if (n <= EXACT_SUM_MAX) {
		for (sum = 0, d = lo; d <= max; d++)
			sum += hit_prob((double)d, ways, blocks);
		*p = sum / (double)n;
		return 0;
	}
	/* P(hit | D) falls monotonically: settle the flat cases first */
	if (hit_prob((double)max, ways, blocks) >= 1) {
		*p = 1;
		return 0;
	}
	if (hit_prob((double)lo, ways, blocks) <= 0) {
		*p = 0;
		return 0;
	}
	/*
	 * Euler-Maclaurin: sum_{D=lo}^{max} f(D) = integral_lo^max f
	 * + (f(lo) + f(max)) / 2 + (f'(max) - f'(lo)) / 12 + ...
	 */
	prev = simpson(lo, max, 64, ways, blocks);
	for (panels = 128; panels <= 1 << 16; panels *= 2) {
		cur = simpson(lo, max, panels, ways, blocks);
		if (fabs(cur - prev) <= 1e-12 * (double)n)
			break;
		prev = cur;
	}
	cur += (hit_prob(lo, ways, blocks) + hit_prob(max, ways, blocks)) / 2;
	cur += (deriv(max, ways, blocks) - deriv(lo, ways, blocks)) / 12;
	*p = cur / (double)n;
	if (*p > 1)
		*p = 1;
	if (*p < 0)
		*p = 0;
	return 0;
}

static int hit_rate(const struct reuse_hist *h, u64 ways, u64 blocks,
		    double *hit)
{
	double total = reuse_hist__total(h, REUSE_HIST_ALL), sum = 0, p;
	int k, err;

	if (!(total > 0))
		return -ENODATA;
	for (k = 0; k < REUSE_HIST_NBINS; k++) {
		if (!(h->bin[k] > 0))
			continue;
		err = sdcm__bin_hit_prob(k, ways, blocks, &p);
		if (err)
			return err;
		sum += h->bin[k] * p;
	}
	*hit = sum / total;
	return 0;
}

int sdcm__hit_rate(const struct sdcm_cache *c, const struct reuse_hist *stack,
		   double *hit)
{
	if (stack->metric != REUSE_STACK || stack->gran != REUSE_GRAN_LINE ||
	    c->line != LP_CACHE_LINE || !c->ways)
		return -EINVAL;
	return hit_rate(stack, c->ways, c->size / c->line, hit);
}

int sdcm__mrc(const struct reuse_hist *stack, u32 ways, int max_log2,
	      double *hit)
{
	int k, err;

	if (stack->metric != REUSE_STACK || max_log2 < 0 || max_log2 > 62)
		return -EINVAL;
	for (k = 0; k <= max_log2; k++) {
		u64 blocks = (u64)1 << k;

		err = hit_rate(stack, !ways || ways > blocks ? blocks : ways,
			       blocks, &hit[k]);
		if (err)
			return err;
	}
	return 0;
}

/* ---- "L1=48K:12,L2=2M:16" ---- */

static int parse_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* Decimal digits of [s, e) into *v; 0 or -1 (none, junk or overflow). */
static int parse_u64(const char *s, const char *e, u64 *v)
{
	u64 x = 0;

	if (s == e)
		return -1;
	for (; s < e; s++) {
		if (*s < '0' || *s > '9' || x > (UINT64_MAX - 9) / 10)
			return -1;
		x = x * 10 + (*s - '0');
	}
	*v = x;
	return 0;
}

static int parse_size(const char *s, const char *e, u64 *v)
{
	u64 mult = 1;

	if (e > s && (e[-1] == 'B' || e[-1] == 'b'))
		e--;
	if (e > s) {
		switch (e[-1]) {
		case 'K': case 'k': mult = (u64)1 << 10; e--; break;
		case 'M': case 'm': mult = (u64)1 << 20; e--; break;
		case 'G': case 'g': mult = (u64)1 << 30; e--; break;
		}
	}
	if (parse_u64(s, e, v) || *v > UINT64_MAX / mult)
		return -1;
	*v *= mult;
	return 0;
}

static int parse_one(const char *s, const char *e, struct sdcm_cache *c,
		     char *err, size_t errlen)
{
	const char *eq = memchr(s, '=', e - s), *c1, *c2, *p;
	int len = e - s;
	u64 ways, line = LP_CACHE_LINE, blocks;

	if (!eq || eq == s)
		return parse_error(err, errlen,
				   "cache '%.*s': expected NAME=SIZE:WAYS[:LINE], e.g. L2=2M:16",
				   len, s);
	if (eq - s >= SDCM_NAME_MAX)
		return parse_error(err, errlen, "cache '%.*s': name longer than %d characters",
				   len, s, SDCM_NAME_MAX - 1);
	for (p = s; p < eq; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		      (*p >= '0' && *p <= '9') || *p == '_'))
			return parse_error(err, errlen,
					   "cache '%.*s': bad character '%c' in name",
					   len, s, *p);
	c1 = memchr(eq + 1, ':', e - eq - 1);
	if (!c1)
		return parse_error(err, errlen,
				   "cache '%.*s': missing ':WAYS' after the size", len, s);
	c2 = memchr(c1 + 1, ':', e - c1 - 1);
	if (parse_size(eq + 1, c1, &c->size) || !c->size)
		return parse_error(err, errlen,
				   "cache '%.*s': bad size '%.*s' (a number with optional K, M or G)",
				   len, s, (int)(c1 - eq - 1), eq + 1);
	if (parse_u64(c1 + 1, c2 ? c2 : e, &ways) || !ways || ways > UINT32_MAX)
		return parse_error(err, errlen,
				   "cache '%.*s': bad associativity '%.*s' (ways, a number >= 1)",
				   len, s, (int)((c2 ? c2 : e) - c1 - 1), c1 + 1);
	if (c2 && (parse_u64(c2 + 1, e, &line) || !line || line > UINT32_MAX ||
		   (line & (line - 1))))
		return parse_error(err, errlen,
				   "cache '%.*s': bad line size '%.*s' (a power of two)",
				   len, s, (int)(e - c2 - 1), c2 + 1);
	if (c->size % line)
		return parse_error(err, errlen,
				   "cache '%.*s': size %llu is not a multiple of the %llu-byte line",
				   len, s, (unsigned long long)c->size,
				   (unsigned long long)line);
	blocks = c->size / line;
	if (ways > blocks || blocks % ways)
		return parse_error(err, errlen,
				   "cache '%.*s': %llu lines do not make whole sets of %llu ways",
				   len, s, (unsigned long long)blocks,
				   (unsigned long long)ways);
	memcpy(c->name, s, eq - s);
	c->name[eq - s] = '\0';
	c->ways = ways;
	c->line = line;
	return 0;
}

int sdcm__parse(const char *spec, struct sdcm_cache *out, int max, int *n,
		char *err, size_t errlen)
{
	const char *s = spec, *e;
	int cnt = 0, ret;

	if (!spec || !*spec)
		return parse_error(err, errlen,
				   "empty cache description (expected e.g. L1=48K:12,L2=2M:16)");
	for (;;) {
		e = strchr(s, ',');
		if (!e)
			e = s + strlen(s);
		if (cnt == max)
			return parse_error(err, errlen, "too many caches (at most %d)", max);
		if (e == s)
			return parse_error(err, errlen, "empty entry in '%s'", spec);
		ret = parse_one(s, e, &out[cnt], err, errlen);
		if (ret)
			return ret;
		cnt++;
		if (!*e)
			break;
		s = e + 1;
	}
	*n = cnt;
	return 0;
}
