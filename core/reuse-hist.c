// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <string.h>

#include "core/reuse-hist.h"

void reuse_hist__init(struct reuse_hist *h, enum reuse_metric metric,
		      enum reuse_gran gran)
{
	memset(h, 0, sizeof(*h));
	h->metric = metric;
	h->gran = gran;
}

int reuse_hist__bin(u64 d)
{
	return d ? 64 - __builtin_clzll(d) : 0;
}

u64 reuse_hist__bin_lo(int k)
{
	return k <= 0 ? 0 : (u64)1 << (k - 1);
}

u64 reuse_hist__bin_max(int k)
{
	if (k <= 0)
		return 0;
	if (k >= 64)
		return UINT64_MAX;
	return ((u64)1 << k) - 1;
}

static int weight_ok(double w)
{
	return isfinite(w) && w >= 0;
}

int reuse_hist__add(struct reuse_hist *h, u64 d, double w)
{
	if (!weight_ok(w))
		return -EINVAL;
	h->bin[reuse_hist__bin(d)] += w;
	return 0;
}

int reuse_hist__add_cold(struct reuse_hist *h, double w)
{
	if (!weight_ok(w))
		return -EINVAL;
	h->cold += w;
	return 0;
}

int reuse_hist__add_inval(struct reuse_hist *h, double w)
{
	if (!weight_ok(w))
		return -EINVAL;
	h->inval += w;
	return 0;
}

double reuse_hist__total(const struct reuse_hist *h, int flags)
{
	double sum = 0;
	int k;

	for (k = 0; k < REUSE_HIST_NBINS; k++)
		sum += h->bin[k];
	if (flags & REUSE_HIST_COLD)
		sum += h->cold;
	if (flags & REUSE_HIST_INVAL)
		sum += h->inval;
	return sum;
}

int reuse_hist__merge(struct reuse_hist *dst, const struct reuse_hist *src)
{
	int k;

	if (dst->metric != src->metric || dst->gran != src->gran)
		return -EINVAL;
	for (k = 0; k < REUSE_HIST_NBINS; k++)
		dst->bin[k] += src->bin[k];
	dst->cold += src->cold;
	dst->inval += src->inval;
	return 0;
}

int reuse_hist__normalize(struct reuse_hist *h, int flags)
{
	double total = reuse_hist__total(h, flags);
	int k;

	if (!(total > 0))
		return -ENODATA;
	for (k = 0; k < REUSE_HIST_NBINS; k++)
		h->bin[k] /= total;
	h->cold /= total;
	h->inval /= total;
	return 0;
}

void reuse_hist_err__add(struct reuse_hist_err *e, int k, double w, int capped)
{
	double a = w * w;	/* Documentation/reuse-estimator.md, "Sampling error" */

	if (k == REUSE_ERR_INVAL || k == REUSE_ERR_COLD) {
		*(k == REUSE_ERR_INVAL ? &e->a_inval : &e->a_cold) += a;
		return;
	}
	if (k < 0) {
		e->n_short++;
		e->a_short += a;
		return;
	}
	if (k >= REUSE_HIST_NBINS)
		return;
	e->n[k]++;
	e->capped[k] += capped != 0;
	e->a[k] += a;
}

void reuse_hist_err__merge(struct reuse_hist_err *dst, const struct reuse_hist_err *src)
{
	int k;

	for (k = 0; k < REUSE_HIST_NBINS; k++) {
		dst->n[k] += src->n[k];
		dst->capped[k] += src->capped[k];
		dst->a[k] += src->a[k];
	}
	dst->n_short += src->n_short;
	dst->a_short += src->a_short;
	dst->a_inval += src->a_inval;
	dst->a_cold += src->a_cold;
}

double reuse_hist_err__se(const struct reuse_hist_err *e, const struct reuse_hist *h,
			  double nshort, int k)
{
	double W = reuse_hist__total(h, 0) + nshort, A = e->a_short, ak, f;
	int j;

	if (!(W > 0) || k >= REUSE_HIST_NBINS)
		return 0;
	for (j = 0; j < REUSE_HIST_NBINS; j++)
		A += e->a[j];
	ak = k < 0 ? e->a_short : e->a[k];
	f = (k < 0 ? nshort : h->bin[k]) / W;
	return sqrt(ak * (1 - f) * (1 - f) + (A - ak) * f * f) / W;
}

int reuse_hist__similarity(const struct reuse_hist *a,
			   const struct reuse_hist *b, int flags, double *s)
{
	struct reuse_hist na = *a, nb = *b;
	double diff = 0;
	int k, err;

	if (a->metric != b->metric || a->gran != b->gran)
		return -EINVAL;
	err = reuse_hist__normalize(&na, flags);
	if (!err)
		err = reuse_hist__normalize(&nb, flags);
	if (err)
		return err;
	for (k = 0; k < REUSE_HIST_NBINS; k++)
		diff += fabs(na.bin[k] - nb.bin[k]);
	if (flags & REUSE_HIST_COLD)
		diff += fabs(na.cold - nb.cold);
	if (flags & REUSE_HIST_INVAL)
		diff += fabs(na.inval - nb.inval);
	*s = 1 - diff / 2;
	if (*s < 0)	/* rounding */
		*s = 0;
	return 0;
}

/*
 * The survival function of the time distance T, S(j) = P(T > j), with the
 * mass of each bin spread evenly over its n integers: for j in bin k,
 * S(j) = (above_k + m_k (hi - j) / n) / M, hi = the bin's largest value and
 * above_k the mass of all later bins plus cold and inval. G(t) = sum_{j<t}
 * S(j) then has a closed form per bin; gcum[k] = G(lo_k).
 */
int reuse_fp__init(struct reuse_fp *sv, const struct reuse_hist *h)
{
	double above = h->cold + h->inval, g = 0;
	int k;

	if (h->metric != REUSE_TIME)
		return -EINVAL;
	sv->total = reuse_hist__total(h, REUSE_HIST_ALL);
	if (!(sv->total > 0))
		return -ENODATA;
	sv->m = h->bin;
	for (k = REUSE_HIST_NBINS - 1; k >= 0; k--) {
		sv->above[k] = above;
		above += h->bin[k];
	}
	for (k = 0; k < REUSE_HIST_NBINS; k++) {
		/* bin 64 has 2^63 values: exact in a double */
		sv->n[k] = (double)(reuse_hist__bin_max(k) - reuse_hist__bin_lo(k)) + 1;
		sv->gcum[k] = g;
		g += (sv->n[k] * sv->above[k] + sv->m[k] * (sv->n[k] - 1) / 2) /
		     sv->total;
	}
	return 0;
}

/* G(t) = sum_{j=0}^{t-1} P(T > j) at integer t. */
static double survival__g(const struct reuse_fp *sv, u64 t)
{
	int k = reuse_hist__bin(t);
	double c = (double)(t - reuse_hist__bin_lo(k)), n = sv->n[k];

	/* sum_{j=lo}^{lo+c-1} (hi - j) = c (n - 1) - c (c - 1) / 2 */
	return sv->gcum[k] +
	       (c * sv->above[k] + sv->m[k] / n * (c * (n - 1) - c * (c - 1) / 2)) /
	       sv->total;
}

double reuse_fp__dist(const struct reuse_fp *sv, double t)
{
	double g, f, tl;

	if (!(t > 0))
		return 0;
	if (t > 1e19)	/* keep t + 1 within u64 */
		t = 1e19;
	tl = floor(t);
	g = survival__g(sv, (u64)tl);
	f = t - tl;
	if (f > 0)	/* linear in between: the next term is S(tl) */
		g += f * (survival__g(sv, (u64)tl + 1) - g);
	return g;
}

int reuse_hist__footprint(const struct reuse_hist *h, double w, double *fp)
{
	struct reuse_fp sv;
	int err;

	if (!(w >= 0))
		return -EINVAL;
	err = reuse_fp__init(&sv, h);
	if (err)
		return err;
	/* fp(w) = 1 + G(w - 1) for w >= 1; linear from fp(0) = 0 to fp(1) = 1 */
	*fp = w >= 1 ? 1 + reuse_fp__dist(&sv, w - 1) : w;
	return 0;
}

/* Does time distance t map to a stack distance >= b? d(t) = round(G(t)). */
static int maps_at_least(const struct reuse_fp *sv, u64 t, u64 b)
{
	return floor(survival__g(sv, t) + 0.5) >= (double)b;
}

/* How many t in [lo, lo + n) map to a stack distance < b (G is monotone). */
static u64 count_below(const struct reuse_fp *sv, u64 lo, u64 n, u64 b)
{
	u64 l = 0, r = n;

	while (l < r) {
		u64 mid = l + (r - l) / 2;

		if (maps_at_least(sv, lo + mid, b))
			r = mid;
		else
			l = mid + 1;
	}
	return l;
}

static u64 stack_of(const struct reuse_fp *sv, u64 t)
{
	double d = floor(survival__g(sv, t) + 0.5);

	return d >= 18446744073709551615.0 ? UINT64_MAX : (u64)d;
}

int reuse_hist__time_to_stack(const struct reuse_hist *time,
			      struct reuse_hist *stack)
{
	struct reuse_fp sv;
	int k, j, err;

	err = reuse_fp__init(&sv, time);
	if (err)
		return err;
	reuse_hist__init(stack, REUSE_STACK, time->gran);
	stack->cold = time->cold;
	stack->inval = time->inval;
	for (k = 0; k < REUSE_HIST_NBINS; k++) {
		u64 lo = reuse_hist__bin_lo(k), max = reuse_hist__bin_max(k);
		u64 n = max - lo + 1;	/* never 0: bin 64 holds 2^63 */
		int jlo, jhi;

		if (!(time->bin[k] > 0))
			continue;
		jlo = reuse_hist__bin(stack_of(&sv, lo));
		jhi = reuse_hist__bin(stack_of(&sv, max));
		if (jlo == jhi) {
			stack->bin[jlo] += time->bin[k];
			continue;
		}
		for (j = jlo; j <= jhi; j++) {
			u64 below_lo = j == jlo ? 0 :
				count_below(&sv, lo, n, reuse_hist__bin_lo(j));
			u64 below_hi = j == jhi ? n :
				count_below(&sv, lo, n, reuse_hist__bin_lo(j + 1));

			stack->bin[j] += time->bin[k] *
					 ((double)(below_hi - below_lo) / (double)n);
		}
	}
	return 0;
}
