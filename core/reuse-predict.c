// SPDX-License-Identifier: GPL-2.0
/*
 * Shared-cache prediction from standalone per-thread profiles: the CRD
 * models of Jiang et al. 2010 and PPT-Multicore (core/reuse-predict.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "core/reuse-exact.h"
#include "core/reuse-model.h"
#include "core/reuse-predict.h"

const char *const reuse_predict_model_names[REUSE_PREDICT_NMODELS] = {
	[REUSE_PREDICT_JIANG] = "jiang",
	[REUSE_PREDICT_PPT] = "ppt",
};

/* sharing map: bits 0-31 first thread + 1, 32-62 last thread + 1, 63 multi */
#define MULTI		(1ull << 63)
#define FIRST(v)	((v) & 0xffffffffull)
#define LAST(v)		(((v) >> 32) & 0x7fffffffull)
#define COPY_SHIFT	48		/* PPT: private data of copy c xor c << 48 */
#define BIN_POINTS	16		/* evaluations per time bin (Jiang) */

struct stream {
	u64 *key;
	u64 n, cap;
};

struct reuse_predict {
	enum reuse_gran gran;
	u64 max_stream, nstream;
	int keep;			/* streams kept (PPT possible) */
	int finished;
	struct reuse_exact *alone;	/* per thread, loads only: standalone */
	struct reuse_exact *shared;	/* the trace as interleaved: measured CRD */
	struct lp_map tids;		/* tid -> index + 1 */
	struct lp_map owner;		/* key -> (index + 1) | MULTI */
	int n, cap, last;
	struct reuse_predict_thread *t;
	struct stream *s;
};

int reuse_predict__new(enum reuse_gran gran, u64 max_stream, struct reuse_predict **rpp)
{
	struct reuse_exact_opts eo = { .mode = REUSE_EXACT_PER_THREAD, .gran = REUSE_GRAN_ADDR };
	struct reuse_predict *rp;
	int err;

	*rpp = NULL;
	if (gran != REUSE_GRAN_ADDR && gran != REUSE_GRAN_LINE)
		return -EINVAL;
	rp = calloc(1, sizeof(*rp));
	if (!rp)
		return -ENOMEM;
	rp->gran = gran;
	rp->max_stream = max_stream;
	rp->keep = 1;
	rp->last = -1;
	/* keys are already lines at line granularity: the engine sees keys */
	err = reuse_exact__new(&eo, &rp->alone);
	if (!err) {
		eo.mode = REUSE_EXACT_SHARED;
		err = reuse_exact__new(&eo, &rp->shared);
	}
	if (err) {
		reuse_predict__delete(rp);
		return err;
	}
	*rpp = rp;
	return 0;
}

static void drop_streams(struct reuse_predict *rp)
{
	int i;

	for (i = 0; rp->s && i < rp->n; i++) {
		free(rp->s[i].key);
		rp->s[i].key = NULL;
		rp->s[i].n = rp->s[i].cap = 0;
	}
	rp->keep = 0;
}

void reuse_predict__delete(struct reuse_predict *rp)
{
	if (!rp)
		return;
	drop_streams(rp);
	free(rp->s);
	free(rp->t);
	lp_map__exit(&rp->tids);
	lp_map__exit(&rp->owner);
	reuse_exact__delete(rp->alone);
	reuse_exact__delete(rp->shared);
	free(rp);
}

static int thread_index(struct reuse_predict *rp, u32 tid)
{
	u64 *v = lp_map__slot(&rp->tids, tid);

	if (!v)
		return -ENOMEM;
	if (*v)
		return (int)(*v - 1);
	if (rp->n == rp->cap) {
		int cap = rp->cap ? 2 * rp->cap : 16;
		void *t = realloc(rp->t, cap * sizeof(*rp->t));
		void *s;

		if (!t)
			return -ENOMEM;
		rp->t = t;
		s = realloc(rp->s, cap * sizeof(*rp->s));
		if (!s)
			return -ENOMEM;
		rp->s = s;
		rp->cap = cap;
	}
	memset(&rp->t[rp->n], 0, sizeof(rp->t[rp->n]));
	reuse_hist__init(&rp->t[rp->n].time_shared, REUSE_TIME, rp->gran);
	memset(&rp->s[rp->n], 0, sizeof(rp->s[rp->n]));
	rp->t[rp->n].tid = tid;
	*v = (u64)++rp->n;
	return rp->n - 1;
}

static int stream_push(struct reuse_predict *rp, int i, u64 key)
{
	struct stream *s = &rp->s[i];

	if (!rp->keep)
		return 0;
	if (rp->nstream >= rp->max_stream) {
		drop_streams(rp);
		return 0;
	}
	if (s->n == s->cap) {
		u64 cap = s->cap ? 2 * s->cap : 4096;
		u64 *k = realloc(s->key, cap * sizeof(*k));

		if (!k)
			return -ENOMEM;
		s->key = k;
		s->cap = cap;
	}
	s->key[s->n++] = key;
	rp->nstream++;
	return 0;
}

/* A thread's first access to @key: is it someone else's data too? */
static int note_owner(struct reuse_predict *rp, int i, u64 key)
{
	u64 *v = lp_map__slot(&rp->owner, key);

	if (!v)
		return -ENOMEM;
	if (!*v) {
		*v = (u64)i + 1;
		return 0;
	}
	rp->t[i].shared++;
	if (!(*v & MULTI)) {
		rp->t[FIRST(*v) - 1].shared++;
		*v |= MULTI;
	}
	return 0;
}

/* Who accessed @key last before thread @i now (0: nobody, else index + 1). */
static int swap_last(struct reuse_predict *rp, int i, u64 key, u64 *last)
{
	u64 *v = lp_map__slot(&rp->owner, key);

	if (!v)
		return -ENOMEM;
	*last = LAST(*v);
	*v = (*v & ~(0x7fffffffull << 32)) | ((u64)(i + 1) << 32);
	return 0;
}

int reuse_predict__ratio_bin(double r)
{
	int m;

	if (!(r > 0))
		return 0;
	m = 65 + (int)floor(4 * log2(r));
	return m < 1 ? 1 : m >= REUSE_PREDICT_RATIO_BINS ? REUSE_PREDICT_RATIO_BINS - 1 : m;
}

int reuse_predict__access(struct reuse_predict *rp, u32 tid, u64 addr)
{
	u64 key = rp->gran == REUSE_GRAN_LINE ? addr >> 6 : addr;
	struct reuse_exact_res res, sres;
	int i, err;
	u64 last = 0;

	if (rp->finished)
		return -EINVAL;
	i = thread_index(rp, tid);
	if (i < 0)
		return i;
	rp->t[i].accesses++;
	if (i != rp->last)
		rp->t[i].runs++;
	rp->last = i;
	/* loads only: no invalidation, each thread's stream on its own */
	err = reuse_exact__access(rp->alone, tid, key, 0, &res);
	if (!err && res.kind == REUSE_EXACT_COLD)
		err = note_owner(rp, i, key);
	/* shared from the reuse on: the first touches are counted at finish */
	if (!err && res.kind == REUSE_EXACT_REUSE) {
		u64 v = 0;

		rp->t[i].tsum[reuse_hist__bin(res.time)] += (double)res.time;
		rp->t[i].tsq[reuse_hist__bin(res.time)] += (double)res.time * (double)res.time;
		rp->t[i].ssum[reuse_hist__bin(res.dist)] += (double)res.dist;
		rp->t[i].ssq[reuse_hist__bin(res.dist)] += (double)res.dist * (double)res.dist;
		if (lp_map__get(&rp->owner, key, &v) && (v & MULTI)) {
			err = reuse_hist__add(&rp->t[i].time_shared, res.time, 1);
			rp->t[i].tsum_sh[reuse_hist__bin(res.time)] += (double)res.time;
			rp->t[i].tsq_sh[reuse_hist__bin(res.time)] +=
				(double)res.time * (double)res.time;
		}
	}
	if (!err)
		err = reuse_exact__access(rp->shared, tid, key, 0, &sres);
	if (!err)
		err = swap_last(rp, i, key, &last);
	/* same previous access in both streams: the others' share is the gap */
	if (!err && res.kind == REUSE_EXACT_REUSE && sres.kind == REUSE_EXACT_REUSE &&
	    last == (u64)i + 1 && sres.time >= res.time) {
		double r = (double)(sres.time - res.time) / ((double)res.time + 1);
		int k = reuse_hist__bin(res.time), m = reuse_predict__ratio_bin(r);

		rp->t[i].inter_n[k][m] += 1;
		rp->t[i].inter_sum[k][m] += r;
	}
	if (!err)
		err = stream_push(rp, i, key);
	return err;
}

int reuse_predict__finish(struct reuse_predict *rp)
{
	int i, j;

	if (!rp->n)
		return -ENODATA;
	for (i = 0; i < reuse_exact__nr_threads(rp->alone); i++) {
		const struct reuse_exact_thread *e = reuse_exact__thread(rp->alone, i);

		for (j = 0; j < rp->n && rp->t[j].tid != e->tid; j++)
			;
		if (j == rp->n)
			return -EINVAL;
		rp->t[j].time = e->time;
		rp->t[j].stack = e->stack;
		rp->t[j].time.gran = rp->t[j].stack.gran = rp->gran;
		rp->t[j].distinct = e->cold;
		rp->t[j].time_shared.cold = (double)rp->t[j].shared;
	}
	rp->finished = 1;
	return 0;
}

int reuse_predict__nr_threads(const struct reuse_predict *rp)
{
	return rp->n;
}

const struct reuse_predict_thread *reuse_predict__thread(const struct reuse_predict *rp, int i)
{
	return i >= 0 && i < rp->n ? &rp->t[i] : NULL;
}

static double mean_accesses(const struct reuse_predict *rp)
{
	double sum = 0;
	int i;

	for (i = 0; i < rp->n; i++)
		sum += (double)rp->t[i].accesses;
	return sum / rp->n;
}

double reuse_predict__quantum(const struct reuse_predict *rp, int i,
			      const struct reuse_predict_opts *o)
{
	const struct reuse_predict_thread *t = &rp->t[i];
	double q;

	/* a forced quantum keeps the measured relative rates */
	if (o->quantum > 0 || rp->n == 1)
		q = (o->quantum > 0 ? o->quantum : 1) * (double)t->accesses / mean_accesses(rp);
	else
		q = t->runs ? (double)t->accesses / (double)t->runs : 1;
	return q < 1 ? 1 : q;
}

/* ---- Jiang et al. 2010 ------------------------------------------------ */

/* Add @w at distance @d, split between the integers around it. */
static void add_at(struct reuse_hist *h, double d, double w)
{
	double f;
	u64 lo;

	if (!(d > 0))
		d = 0;
	if (d > 1e18)
		d = 1e18;
	lo = (u64)floor(d);
	f = d - (double)lo;
	reuse_hist__add(h, lo, w * (1 - f));
	if (f > 0)
		reuse_hist__add(h, lo + 1, w * f);
}

/* Add @w spread evenly over the distances 0..@d (Jiang's broken intervals). */
static void add_uniform(struct reuse_hist *h, double d, double w)
{
	u64 top = d > 1e18 ? (u64)1e18 : (u64)floor(d > 0 ? d : 0);
	int k;

	for (k = 0; k < REUSE_HIST_NBINS && reuse_hist__bin_lo(k) <= top; k++) {
		u64 hi = reuse_hist__bin_max(k) < top ? reuse_hist__bin_max(k) : top;

		h->bin[k] += w * (double)(hi - reuse_hist__bin_lo(k) + 1) / ((double)top + 1);
	}
}

/* fp(w): expected distinct data among @w consecutive accesses. */
static double footprint(const struct reuse_fp *fp, double w)
{
	return w >= 1 ? 1 + reuse_fp__dist(fp, w - 1) : (w > 0 ? w : 0);
}

struct jiang {
	const struct reuse_predict *rp;
	const struct reuse_predict_opts *o;
	struct reuse_fp *fp;		/* [T] */
	struct reuse_fp *fps;		/* [T] footprint of the shared data alone */
	double *fsh;			/* [T] fraction of accesses to shared data */
	double *q;			/* [T] quanta */
	double *copies;			/* [T] replicas of each measured thread */
	double *wj;			/* [T] co-runner window per unit of "base" */
	double pool;			/* |S|: shared data (one pool for all) */
	int measured;			/* windows from the measured interleaving */
};

/*
 * Add @w over the distances 0..@d where the interval broke: after the last
 * of the co-runners' touches of the datum, Poisson with @touches expected
 * over the interval, so the rest is truncated exponential (Jiang et al.
 * spread it evenly, the limit of one touch: @touches -> 0).
 */
static void add_broken(struct reuse_hist *h, double d, double touches, double w)
{
	u64 top = d > 1e18 ? (u64)1e18 : (u64)floor(d > 0 ? d : 0);
	double norm = -expm1(-touches);
	int k;

	if (touches < 1e-6) {
		add_uniform(h, d, w);
		return;
	}
	for (k = 0; k < REUSE_HIST_NBINS && reuse_hist__bin_lo(k) <= top; k++) {
		u64 hi = reuse_hist__bin_max(k) < top ? reuse_hist__bin_max(k) : top;
		double xa = (double)reuse_hist__bin_lo(k) / ((double)top + 1);
		double xb = ((double)hi + 1) / ((double)top + 1);

		h->bin[k] += w * (exp(-touches * xa) - exp(-touches * xb)) / norm;
	}
}

/*
 * The CRD of a reuse of measured thread @i with own stack distance @d
 * when each co-runner j made @base x wj[j] accesses meanwhile; *@pbreak
 * gets the probability that a co-runner touched the reused datum itself
 * (Part II, effect 1), *@touches how many times they did on average.
 */
static double crd_of(const struct jiang *J, int i, double t, double d, double base,
		     double psh, double *pbreak, double *touches)
{
	double priv, miss_sh = 1, own_sh;
	int j;

	*pbreak = 0;
	*touches = 0;
	if (J->o->no_sharing || J->pool <= 0) {
		priv = d;
		for (j = 0; j < J->rp->n; j++) {
			double m = J->copies[j] - (j == i);

			if (m > 0)
				priv += m * fmin(footprint(&J->fp[j], base * J->wj[j]),
						 (double)J->rp->t[j].distinct);
		}
		return priv;
	}
	/*
	 * Private data add up. Shared data is one pool of |S| that each
	 * thread's window touches a random part of (Jiang's footnote 2), as
	 * much as the footprint of its shared accesses says: the union counts
	 * once what several threads touched (Part II, effect 2).
	 */
	own_sh = J->fsh[i] > 0 ? fmin(fmin(d, (double)J->rp->t[i].shared),
				      J->fsh[i] * reuse_fp__dist(&J->fps[i], t)) : 0;
	priv = d - own_sh;
	miss_sh = 1 - fmin(1, own_sh / J->pool);
	for (j = 0; j < J->rp->n; j++) {
		double m = J->copies[j] - (j == i), n, sh = 0, w = base * J->wj[j];
		double others;

		if (m <= 0)
			continue;
		n = fmin(footprint(&J->fp[j], w), (double)J->rp->t[j].distinct);
		if (J->fsh[j] > 0)
			sh = fmin(fmin(n, (double)J->rp->t[j].shared),
				  J->fsh[j] * footprint(&J->fps[j], w));
		priv += m * (n - sh);
		others = pow(1 - fmin(1, sh / J->pool), m);
		miss_sh *= others;
		/* effect 1: a co-runner touched the reused datum itself */
		*pbreak = 1 - (1 - *pbreak) * others;
		*touches += m * J->fsh[j] * w / J->pool;
	}
	*pbreak *= psh;
	return priv + J->pool * (1 - miss_sh);
}

/*
 * Where bin @k's mass of @h lies, as [*a, *b]: the whole bin, or, when
 * the distances' sum and sum of squares are known (@sum, @sq; NULL: not),
 * the even spread of their mean and variance within it. A power-of-two
 * bin is wide: a thread's 263-line reuses spread over 256-511 would read
 * as up to twice that.
 */
static void bin_span(const struct reuse_hist *h, const double *sum, const double *sq, int k,
		     double *a, double *b)
{
	double mu, sd;

	*a = (double)reuse_hist__bin_lo(k);
	*b = (double)reuse_hist__bin_max(k);
	if (!sum || !sq || !(h->bin[k] > 0) || *b <= *a)
		return;
	mu = fmin(*b, fmax(*a, sum[k] / h->bin[k]));
	sd = sqrt(fmax(0, sq[k] / h->bin[k] - mu * mu));
	*a = fmax(*a, mu - sqrt(3) * sd);
	*b = fmin(*b, mu + sqrt(3) * sd);
	if (*b - mu < mu - *a)	/* clipped: keep the mean */
		*a = mu - (*b - mu);
	else
		*b = mu + (mu - *a);
}

/* Fraction of the finite mass of @h below the middle of integer @x. */
static double cdf_at(const struct reuse_hist *h, const double *sum, const double *sq,
		     double tot, double x)
{
	int k = reuse_hist__bin((u64)x), j;
	double below = 0, a, b;

	for (j = 0; j < k; j++)
		below += h->bin[j];
	bin_span(h, sum, sq, k, &a, &b);
	return (below + h->bin[k] * fmin(1, fmax(0, (x - a + 0.5) / (b - a + 1)))) / tot;
}

/* The distance at fraction @u of @h's finite mass (even within a bin's span). */
static double quantile(const struct reuse_hist *h, const double *sum, const double *sq,
		       double tot, double u)
{
	double acc = 0, want = u * tot, a, b;
	int k;

	for (k = 0; k < REUSE_HIST_NBINS; k++) {
		if (h->bin[k] > 0 && acc + h->bin[k] >= want) {
			bin_span(h, sum, sq, k, &a, &b);
			return a + (want - acc) / h->bin[k] * (b - a + 1) - 0.5;
		}
		acc += h->bin[k];
	}
	return 0;
}

double reuse_predict__quantile(const struct reuse_hist *h, double u)
{
	double tot = reuse_hist__total(h, 0);

	return tot > 0 ? quantile(h, NULL, NULL, tot, u) : NAN;
}

/* Own distinct data in between: the footprint of t, or the stack distance of t's rank. */
static double own_dist(const struct jiang *J, int i, double t)
{
	const struct reuse_predict_thread *ti = &J->rp->t[i];
	double tt = reuse_hist__total(&ti->time, 0), ts = reuse_hist__total(&ti->stack, 0);

	/*
	 * The footprint counts a thread's last accesses (no reuse seen) as
	 * never reused, so past the trace's data it keeps growing: cap it.
	 */
	if (J->o->footprint_own || !(tt > 0) || !(ts > 0))
		return fmin(reuse_fp__dist(&J->fp[i], t), (double)(ti->distinct ? ti->distinct - 1 : 0));
	return quantile(&ti->stack, ti->ssum, ti->ssq, ts,
			cdf_at(&ti->time, ti->tsum, ti->tsq, tt, t));
}

static void add_crd(const struct jiang *J, int i, double t, double d, double base,
		    double psh, double w, struct reuse_hist *out)
{
	double pb, touches, crd = crd_of(J, i, t, d, base, psh, &pb, &touches);

	add_at(out, crd, w * (1 - pb));
	if (pb > 0)
		add_broken(out, crd, touches, w * pb);
}

/* Thread @i's reuse at time distance @t (in time bin @k), weight @w, into @out. */
static void jiang_reuse(const struct jiang *J, int i, int k, double t, double psh, double w,
			struct reuse_hist *out)
{
	const struct reuse_predict_thread *ti = &J->rp->t[i];
	double d = own_dist(J, i, t), c, cl, f, rown = 0;
	int m;
	if (J->measured) {
		for (m = 0; m < REUSE_PREDICT_RATIO_BINS; m++)
			rown += ti->inter_n[k][m];
	}
	if (rown > 0) {
		/* the co-runners' accesses per own access, as measured at this reuse time */
		for (m = 0; m < REUSE_PREDICT_RATIO_BINS; m++)
			if (ti->inter_n[k][m] > 0)
				add_crd(J, i, t, d, (t + 1) * ti->inter_sum[k][m] / ti->inter_n[k][m],
					psh, w * ti->inter_n[k][m] / rown, out);
		return;
	}
	/* turns of q accesses: floor(c) or one more crossed, in proportion */
	c = (t + 1) / J->q[i];
	cl = floor(c);
	f = c - cl;
	if (f < 1)
		add_crd(J, i, t, d, cl, psh, w * (1 - f), out);
	if (f > 0)
		add_crd(J, i, t, d, cl + 1, psh, w * f, out);
}

/*
 * @mass reuses of thread @i in time bin @k whose times sum to @tsum (and
 * squares to @tsq; 0: unknown), the datum shared with probability @psh:
 * points even over the bin, or, where the trace says, over the interval
 * of the same mean and variance within it.
 */
static void jiang_bin(const struct jiang *J, int i, int k, double mass, double tsum,
		      double tsq, double psh, struct reuse_hist *out)
{
	u64 lo = reuse_hist__bin_lo(k), n = reuse_hist__bin_max(k) - lo + 1;
	double m = mass * J->copies[i], a = (double)lo, b = a + (double)(n - 1), mu, sd;
	int p, np = n < BIN_POINTS ? (int)n : BIN_POINTS;

	if (!(m > 0))
		return;
	if (n > 1 && tsum > 0) {
		mu = fmin(b, fmax(a, tsum / mass));
		sd = sqrt(fmax(0, tsq / mass - mu * mu));
		a = fmax(a, mu - sqrt(3) * sd);
		b = fmin(b, mu + sqrt(3) * sd);
		if (b - mu < mu - a)	/* clipped: keep the mean */
			a = mu - (b - mu);
		else
			b = mu + (mu - a);
		np = b - a < 1 ? 1 : np;
	}
	for (p = 0; p < np; p++)
		jiang_reuse(J, i, k, np == 1 ? (a + b) / 2 : a + (b - a) * p / (np - 1), psh,
			    m / np, out);
}

/* Co-runner windows per unit: measured gaps split by rate, or turns of q_j. */
static void set_windows(struct jiang *J, int i, int measured)
{
	double others = 0;
	int j;

	for (j = 0; j < J->rp->n; j++)
		if (j != i)
			others += (double)J->rp->t[j].accesses;
	for (j = 0; j < J->rp->n; j++)
		J->wj[j] = measured && others > 0 ? (double)J->rp->t[j].accesses / others : J->q[j];
}

static int predict_jiang(const struct reuse_predict *rp, const struct reuse_predict_opts *o,
			 struct reuse_hist *out)
{
	int T = rp->n, N = o->nthreads, i, k, err = 0;
	struct jiang J = { .rp = rp, .o = o };

	J.fp = calloc(T, sizeof(*J.fp));
	J.q = calloc(T, sizeof(*J.q));
	J.copies = calloc(T, sizeof(*J.copies));
	J.wj = calloc(T, sizeof(*J.wj));
	J.fps = calloc(T, sizeof(*J.fps));
	J.fsh = calloc(T, sizeof(*J.fsh));
	if (!J.fp || !J.q || !J.copies || !J.wj || !J.fps || !J.fsh) {
		err = -ENOMEM;
		goto out;
	}
	J.measured = T > 1 && !(o->quantum > 0);
	if (N == 1 && T == 1) {
		/* one thread alone: its CRD is its standalone distance */
		*out = rp->t[0].stack;
		goto out;
	}
	for (i = 0; i < T; i++) {
		J.copies[i] = (double)(N / T + (i < N % T));
		J.q[i] = reuse_predict__quantum(rp, i, o);
		if ((double)rp->t[i].shared > J.pool)
			J.pool = (double)rp->t[i].shared;
		if (reuse_hist__total(&rp->t[i].time, REUSE_HIST_ALL) > 0) {
			err = reuse_fp__init(&J.fp[i], &rp->t[i].time);
			if (err)
				goto out;
		}
		if (reuse_hist__total(&rp->t[i].time_shared, REUSE_HIST_ALL) > 0) {
			J.fsh[i] = reuse_hist__total(&rp->t[i].time_shared, REUSE_HIST_ALL) /
				   reuse_hist__total(&rp->t[i].time, REUSE_HIST_ALL);
			err = reuse_fp__init(&J.fps[i], &rp->t[i].time_shared);
			if (err)
				goto out;
		}
	}
	for (i = 0; i < T; i++) {
		const struct reuse_predict_thread *ti = &rp->t[i];
		double cold = ti->time.cold, moved = 0, all = J.pool;

		if (!(J.copies[i] > 0) || !ti->accesses)
			continue;
		set_windows(&J, i, J.measured);
		for (k = 0; k < REUSE_HIST_NBINS; k++) {
			double sh = fmin(ti->time_shared.bin[k], ti->time.bin[k]);

			/* the reuses of private data, then of shared data (psh 1) */
			jiang_bin(&J, i, k, ti->time.bin[k] - sh, ti->tsum[k] - ti->tsum_sh[k],
				  ti->tsq[k] - ti->tsq_sh[k], 0, out);
			jiang_bin(&J, i, k, sh, ti->tsum_sh[k], ti->tsq_sh[k], 1, out);
		}
		/*
		 * Shared data is cold once for all N threads: the others' first
		 * touches become reuses, of a distance the model does not know
		 * (taken as even up to everything the threads touch).
		 */
		if (!o->no_sharing && N > 1 && ti->shared) {
			int j;

			moved = (double)ti->shared * (N - 1) / N;
			for (j = 0; j < T; j++)
				all += J.copies[j] * (double)(rp->t[j].distinct - rp->t[j].shared);
			add_uniform(out, all, moved * J.copies[i]);
		}
		out->cold += (cold - moved) * J.copies[i];
	}
out:
	free(J.fp);
	free(J.q);
	free(J.copies);
	free(J.wj);
	free(J.fps);
	free(J.fsh);
	return err;
}

/* ---- PPT-Multicore: replicate, interleave, measure -------------------- */

static int predict_ppt(const struct reuse_predict *rp, const struct reuse_predict_opts *o,
		       struct reuse_hist *out)
{
	struct reuse_exact_opts eo = { .mode = REUSE_EXACT_SHARED, .gran = REUSE_GRAN_ADDR };
	struct reuse_exact_thread sum;
	struct reuse_exact *re = NULL;
	int T = rp->n, N = o->nthreads, x, err, left = N;
	u64 *pos = calloc(N, sizeof(*pos));
	double *credit = calloc(N, sizeof(*credit)), *q = calloc(T, sizeof(*q));

	if (!pos || !credit || !q) {
		err = -ENOMEM;
		goto out;
	}
	for (x = 0; x < T; x++)
		q[x] = reuse_predict__quantum(rp, x, o);
	err = reuse_exact__new(&eo, &re);
	/* round-robin turns of q accesses (fractions carried over) */
	while (!err && left > 0) {
		left = 0;
		for (x = 0; x < N && !err; x++) {
			int k = x % T;
			u64 c = (u64)(x / T);
			const struct stream *s = &rp->s[k];

			if (pos[x] >= s->n)
				continue;
			credit[x] += q[k];
			while (credit[x] >= 1 && pos[x] < s->n && !err) {
				u64 key = s->key[pos[x]++], v = 0;

				if (c && !(lp_map__get(&rp->owner, key, &v) && (v & MULTI)))
					key ^= c << COPY_SHIFT;
				err = reuse_exact__access(re, (u32)x, key, 0, NULL);
				credit[x] -= 1;
			}
			left += pos[x] < s->n;
		}
	}
	if (!err) {
		reuse_exact__sum(re, &sum);
		*out = sum.stack;
		out->gran = rp->gran;
	}
out:
	reuse_exact__delete(re);
	free(pos);
	free(credit);
	free(q);
	return err;
}

int reuse_predict__crd(const struct reuse_predict *rp, enum reuse_predict_model model,
		       const struct reuse_predict_opts *o, struct reuse_hist *out)
{
	reuse_hist__init(out, REUSE_STACK, rp->gran);
	if (!rp->finished || o->nthreads < 1 || o->nthreads > (1 << 15) ||
	    !(o->quantum >= 0))
		return -EINVAL;
	switch (model) {
	case REUSE_PREDICT_JIANG:
		return predict_jiang(rp, o, out);
	case REUSE_PREDICT_PPT:
		return rp->keep ? predict_ppt(rp, o, out) : -E2BIG;
	default:
		return -EINVAL;
	}
}

int reuse_predict__measured(const struct reuse_predict *rp, struct reuse_hist *out)
{
	struct reuse_exact_thread sum;

	reuse_hist__init(out, REUSE_STACK, rp->gran);
	if (!rp->finished)
		return -EINVAL;
	reuse_exact__sum(rp->shared, &sum);
	*out = sum.stack;
	out->gran = rp->gran;
	return 0;
}

int reuse_predict__prd(const struct reuse_predict *rp, int nthreads, struct reuse_hist *out)
{
	int i, err = 0;

	reuse_hist__init(out, REUSE_STACK, rp->gran);
	if (!rp->finished || nthreads < 1)
		return -EINVAL;
	for (i = 0; i < nthreads && !err; i++)
		err = reuse_hist__merge(out, &rp->t[i % rp->n].stack);
	return err;
}

int reuse_predict__hit_rates(const struct reuse_hist *h, double mean_size,
			     const struct sdcm_cache *caches, int n, double *hit)
{
	struct reuse_result res;

	memset(&res, 0, sizeof(res));
	res.gran = h->gran;
	res.stack = *h;
	res.mean_access_size = mean_size;
	return reuse_model__hit_rates(&res, caches, n, hit);
}
