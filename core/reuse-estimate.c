// SPDX-License-Identifier: GPL-2.0
/*
 * The reuse estimator: after the run, the tracker's detections become the
 * result: access rates, reuse times in accesses (chains along the samples,
 * wraps, local rates), weights, and the footprint conversion of reuse
 * times into stack distances by windows, piecewise across them
 * (Documentation/reuse-estimator.md).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/reuse-internal.h"

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* ---- results ---------------------------------------------------------- */

void ru_result_free(struct reuse *ru)
{
	free(ru->r_thr);
	free(ru->r_pairs);
	free(ru->r_uses);
	ru->r_thr = NULL;
	ru->r_pairs = NULL;
	ru->r_uses = NULL;
}

int reuse_pair__cmp(const void *pa, const void *pb)
{
	const struct reuse_pair *a = pa, *b = pb;
	u64 na = a->reuses + a->invalidations, nb = b->reuses + b->invalidations;

	if (na != nb)
		return na < nb ? 1 : -1;
	if (a->use_ip != b->use_ip)
		return a->use_ip < b->use_ip ? -1 : 1;
	return a->reuse_ip < b->reuse_ip ? -1 : a->reuse_ip > b->reuse_ip;
}

/* The median of @d (sorted in place), 0 if empty. */
static double ru_median(struct ru_dbl *d)
{
	if (!d->n)
		return 0;
	qsort(d->v, d->n, sizeof(*d->v), dbl_cmp);
	return d->n % 2 ? d->v[d->n / 2] : (d->v[d->n / 2 - 1] + d->v[d->n / 2]) / 2;
}

static double ru_rate(struct reuse *ru, struct reuse_result *r)
{
	r->stride_rate = 0;
	ru->st.rate_pairs = ru->rates.n;
	if (ru->rates.n >= REUSE_MIN_RATE_PAIRS)
		r->stride_rate = ru_median(&ru->rates);
	if (ru->cfg.access_rate > 0) {
		r->rate_source = REUSE_RATE_USER;
		return ru->cfg.access_rate;
	}
	if (r->stride_rate > 0) {
		r->rate_source = REUSE_RATE_STRIDE;
		return r->stride_rate;
	}
	r->rate_source = REUSE_RATE_DEFAULT;
	return 1.0;
}

static int ru_det_time_cmp(const void *pa, const void *pb)
{
	const struct ru_det *a = *(const struct ru_det *const *)pa;
	const struct ru_det *b = *(const struct ru_det *const *)pb;

	return a->use_time < b->use_time ? -1 : a->use_time > b->use_time;
}

static int ru_span_cmp(const void *pa, const void *pb)
{
	const struct ru_span *a = pa, *b = pb;

	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	return a->t1 < b->t1 ? -1 : a->t1 > b->t1;
}

/*
 * The local rate of a reuse timed in thread CPU ns [u, u + n]: the median
 * of the thread's forward stride pairs inside that interval (a pass over
 * the data reused, at the speed of that phase; see reuse.h), 0 if none.
 * Marks the pairs it used in @used.
 */
static double ru_local_rate(struct reuse *ru, u32 thread, u64 u, u64 n,
			    u8 *used, struct ru_dbl *tmp)
{
	size_t lo = 0, hi = ru->nspans, j;

	while (lo < hi) {	/* first span of @thread with t1 >= u */
		size_t m = (lo + hi) / 2;
		const struct ru_span *x = &ru->spans[m];

		if (x->thread < thread || (x->thread == thread && x->t1 < u))
			lo = m + 1;
		else
			hi = m;
	}
	tmp->n = 0;
	for (j = lo; j < ru->nspans && ru->spans[j].thread == thread &&
		     ru->spans[j].t1 <= u + n; j++) {
		if (ru->spans[j].t0 < u)
			continue;
		if (ru_dbl_push(tmp, ru->spans[j].rate))
			return 0;
		used[j] = 1;
	}
	return ru_median(tmp);
}

static int ru_pt_cmp(const void *pa, const void *pb)
{
	const struct ru_pt *a = pa, *b = pb;

	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	return a->ns < b->ns ? -1 : a->ns > b->ns;
}

/*
 * Two samples of a thread at one instruction and address: it did not move
 * in between (on this VM a held sample's stop and trap cost more thread
 * CPU time than a period, so samples pile up where the thread stands).
 * The step holds no accesses of the program, and its time is overhead.
 */
static int ru_stuck(const struct ru_pt *a, const struct ru_pt *b)
{
	return a->addr == b->addr && a->ip == b->ip;
}

/*
 * Accesses from sample @a to sample @b of one thread counted by address:
 * a forward step of a dense walk (same access size, IPs of one loop body,
 * whole elements) whose implied rate is within RU_CHAIN_SLACK of @rate,
 * the time-based one (both carry the same sampling overhead). 0: not
 * countable, time it.
 */
static double ru_chain_step(const struct ru_pt *a, const struct ru_pt *b,
			    double rate)
{
	u64 d, dip = a->ip > b->ip ? a->ip - b->ip : b->ip - a->ip;
	double n, ns;

	if (!a->size || a->size != b->size || b->addr <= a->addr ||
	    dip > RU_LOOP_BYTES || b->ns <= a->ns)
		return 0;
	d = b->addr - a->addr;
	if (d % a->size || d / a->size > RU_STRIDE_MAX)
		return 0;
	n = (double)(d / a->size);
	ns = (double)(b->ns - a->ns);
	if (rate > 0 && (n > ns * rate * RU_CHAIN_SLACK ||
			 n * RU_CHAIN_SLACK < ns * rate))
		return 0;
	return n;
}

/*
 * The accesses of reuse @x counted along its thread's samples between use
 * and reuse (the thread's points sorted by ru_pt_cmp): each step between
 * consecutive points is counted by address where it is a dense forward
 * walk (ru_chain_step), else timed at x->rate; @cost (the held stop and
 * trap) comes off the timed steps once. Address counts carry none of the
 * sampling overhead that inflates thread CPU time (on a VM without a PMU,
 * often more than the program's own time). Returns -1 when no sample lies
 * between use and reuse (time the whole reuse), else the accesses.
 */
/* Index of the first point of @thread at or after thread CPU ns @t. */
static size_t ru_pt_find(const struct reuse *ru, u32 thread, u64 t)
{
	size_t lo = 0, hi = ru->npts;

	while (lo < hi) {
		size_t m = (lo + hi) / 2;
		const struct ru_pt *p = &ru->pts[m];

		if (p->thread < thread || (p->thread == thread && p->ns < t))
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

static int u64_cmp(const void *pa, const void *pb)
{
	u64 a = *(const u64 *)pa, b = *(const u64 *)pb;

	return a < b ? -1 : a > b;
}

/*
 * A backward step @a -> @b of a loop (the walk wrapped around its array),
 * taken between thread CPU ns @t0 and @t1 of @thread: the accesses from @a
 * to the array's end and from its start to @b. The array is the run of the
 * loop's sample addresses around @a and @b with no hole over RU_WRAP_HOLE
 * median steps, taken from @a's and @b's phases only (ru_segments; a step
 * from one array into the next spans two): those of [@t0, @t1], then,
 * walking out in time up to RU_WRAP_SPAN samples each side (and not into
 * another phase), those that fall inside the run so far or
 * extend it by less than a hole; the first that does not ends the walk on
 * that side (another array, or another phase). So does a step into a
 * neighbouring array, which no hole separates: a walk wraps back to its
 * array's start, so a later sample that lands below the run by a backward
 * step, and after which the loop does not come back into the run, begins
 * another array (an earlier one above the run, mirrored). Plus half a
 * median step for the unsampled ends. 0: not a wrap of one array.
 */
#define RU_WRAP_HOLE	4
#define RU_WRAP_SPAN	64	/* points each side of the interval */
#define RU_WRAP_BACK	4	/* points that must not come back into the run */
#define RU_WRAP_TIME_HOLE 12	/* x the walked distance of a gap (ru_wrap_walk) */
static int ru_loop_pt(const struct ru_pt *p, const struct ru_pt *a)
{
	u64 d = p->ip > a->ip ? p->ip - a->ip : a->ip - p->ip;

	return p->thread == a->thread && p->size == a->size && d <= RU_LOOP_BYTES;
}

/*
 * Whether loop sample @p belongs to the phase of @a or of @b (a wrap's
 * step), so a wrap's array is built from those phases only: a reuse that
 * spans phases holds the samples of other arrays, often adjacent ones.
 * Unknown phases (0) take any.
 */
static int ru_wrap_seg(const struct ru_pt *p, const struct ru_pt *a,
		       const struct ru_pt *b)
{
	if (!a->seg && !b->seg)
		return 1;
	return p->seg == a->seg || p->seg == b->seg;
}

/*
 * Whether the loop left the run [@lo, @hi] at index @j for good: none of
 * its next RU_WRAP_BACK samples of @a's thread in direction @dir comes
 * back into it (the side it left by: below @lo later in time, above @hi
 * earlier).
 */
static int ru_wrap_left(const struct reuse *ru, const struct ru_pt *a,
			size_t j, int dir, u64 lo, u64 hi)
{
	size_t n = 0;

	for (j += dir; j < ru->npts && n < RU_WRAP_BACK; j += dir) {
		const struct ru_pt *p = &ru->pts[j];

		if (p->thread != a->thread)
			break;
		if (!ru_loop_pt(p, a))
			continue;
		if (dir > 0 ? p->addr >= lo : p->addr <= hi)
			return 0;
		n++;
	}
	return 1;
}

/*
 * Widen [@lo, @hi] by the loop's samples of @a's thread from index @j on
 * (@dir -1: the ones before @j, going back; 1: @j and after), up to
 * RU_WRAP_SPAN of them, stopping at the first outside it by more than the
 * hole or in another array (ru_wrap_left). The hole is @hole, or as far
 * as the loop walks at RU_WRAP_TIME_HOLE x the forward steps' median rate
 * in the thread CPU time since the walk's previous sample, if that is
 * more: held stops and traps make the gaps between samples uneven (at
 * -c 25000 on this VM, 44-232 us of thread CPU time from the 5th to the
 * 95th percentile, median 66 us), and one long gap outweighs 4 median
 * steps. @edge: the address of the loop's sample next
 * to @j in time on the interval's side, @edge_ns its thread CPU ns.
 */
static void ru_wrap_walk(const struct reuse *ru, const struct ru_pt *a,
			 const struct ru_pt *b, size_t j, int dir, u64 hole,
			 u64 edge, u64 edge_ns, u64 *lo, u64 *hi)
{
	size_t n = 0;

	for (j = dir < 0 ? j - 1 : j; j < ru->npts && n < RU_WRAP_SPAN; j += dir) {
		const struct ru_pt *p = &ru->pts[j];
		u64 h = hole, dt = p->ns > edge_ns ? p->ns - edge_ns : edge_ns - p->ns;
		double walked = RU_WRAP_TIME_HOLE * ru->step_rate * (double)dt;

		if (p->thread != a->thread)
			break;
		if (!ru_loop_pt(p, a))
			continue;
		if (!ru_wrap_seg(p, a, b))	/* another phase of the loop */
			break;
		if (walked * a->size > (double)h)
			h = (u64)(walked * a->size);
		if (p->addr + h < *lo || p->addr > *hi + h)
			break;
		if ((dir > 0 ? p->addr < edge && p->addr < *lo
			     : p->addr > edge && p->addr > *hi) &&
		    ru_wrap_left(ru, a, j, dir, *lo, *hi))
			break;
		*lo = p->addr < *lo ? p->addr : *lo;
		*hi = p->addr > *hi ? p->addr : *hi;
		edge = p->addr;
		edge_ns = p->ns;
		n++;
	}
}

static double ru_wrap(const struct reuse *ru, u64 t0, u64 t1,
		      const struct ru_pt *a, const struct ru_pt *b)
{
	u64 hole, lo, hi, *v, first = a->addr, last = b->addr;
	u64 first_ns = a->ns, last_ns = b->ns;
	u64 dip = a->ip > b->ip ? a->ip - b->ip : b->ip - a->ip;
	size_t i, k, j, nv = 0, ia = 0, ib = 0;
	double ret = 0;

	if (!ru->step_med || !a->size || a->size != b->size ||
	    b->addr >= a->addr || dip > RU_LOOP_BYTES)
		return 0;
	hole = (u64)(ru->step_med * RU_WRAP_HOLE) * a->size;
	i = ru_pt_find(ru, a->thread, t0);
	k = ru_pt_find(ru, a->thread, t1 + 1);
	v = malloc((k - i + 2) * sizeof(*v));
	if (!v)
		return 0;
	for (j = i; j < k; j++)
		if (ru_loop_pt(&ru->pts[j], a) && ru_wrap_seg(&ru->pts[j], a, b)) {
			if (!nv) {
				first = ru->pts[j].addr;
				first_ns = ru->pts[j].ns;
			}
			last = ru->pts[j].addr;
			last_ns = ru->pts[j].ns;
			v[nv++] = ru->pts[j].addr;
		}
	v[nv++] = a->addr;
	v[nv++] = b->addr;
	qsort(v, nv, sizeof(*v), u64_cmp);
	for (j = 0; j < nv; j++) {
		if (v[j] == b->addr && !ib)
			ib = j + 1;
		if (v[j] == a->addr)
			ia = j + 1;
	}
	for (j = ib; j < ia; j++)	/* b .. a: one array */
		if (v[j] - v[j - 1] > hole)
			goto out;
	for (lo = ib - 1; lo > 0 && v[lo] - v[lo - 1] <= hole; lo--)
		;
	for (hi = ia - 1; hi + 1 < nv && v[hi + 1] - v[hi] <= hole; hi++)
		;
	lo = v[lo];
	hi = v[hi];
	ru_wrap_walk(ru, a, b, i, -1, hole, first, first_ns, &lo, &hi); /* before */
	ru_wrap_walk(ru, a, b, k, 1, hole, last, last_ns, &lo, &hi);	/* after */
	ret = (double)((hi - a->addr) + (b->addr - lo)) / a->size +
	      ru->step_med / 2;
out:
	free(v);
	return ret;
}

static double ru_chain(const struct reuse *ru, const struct ru_det *x,
		       double cost)
{
	u64 u = x->use_ns, r = x->use_ns + (u64)x->ns;
	size_t j;
	struct ru_pt prev = { x->thread, x->size, u, x->addr, x->ip, 0 }, end;
	double acc = 0, acc_ns = 0, timed = 0, n;
	int inside = 0;

	j = ru_pt_find(ru, x->thread, u);	/* the use's own sample */
	if (j < ru->npts && ru->pts[j].ns == u && ru->pts[j].addr == x->addr &&
	    ru->pts[j].thread == x->thread)
		prev.seg = ru->pts[j].seg;
	end = prev;
	end.ns = r;
	for (j = ru_pt_find(ru, x->thread, u + 1); j <= ru->npts; j++) {
		const struct ru_pt *p = j < ru->npts ? &ru->pts[j] : &end;

		if (j < ru->npts && (p->thread != x->thread || p->ns >= r))
			p = &end;
		end.seg = prev.seg;	/* the reuse: in the phase it left */
		if (p != &end)
			inside = 1;
		n = ru_chain_step(&prev, p, ru->step_rate);
		if (n <= 0)
			n = ru_wrap(ru, u, r, &prev, p);
		if (n <= 0 && p != &end && ru_stuck(&prev, p)) {
			;	/* no accesses, overhead time */
		} else if (n > 0) {
			acc += n;
			acc_ns += (double)(p->ns - prev.ns);
		} else {
			timed += (double)(p->ns - prev.ns);
		}
		if (p == &end)
			break;
		prev = *p;
	}
	if (!inside)
		return -1;
	if (acc_ns > 0)		/* the chain's own rate, overhead included */
		return acc + timed * acc / acc_ns;
	timed = timed > cost ? timed - cost : 0;
	return timed * x->rate;
}

/*
 * The phases of each loop of a thread (sets every point's seg). A loop's
 * samples (ru_loop_pt) stay in one phase while they fall in its address
 * range or extend it (below by at most a hole, forward by a step of the
 * walk: ru_seg_fwd); one that leaves it, below or forward past a step,
 * begins a new phase if the loop's next RU_SEG_AHEAD samples (within
 * RU_SEG_SCAN of the thread's) stay outside the range on that side too: a
 * wrap comes back into its array, the next array does not. A sample that
 * is left behind by more (a stray access of the loop body) joins the phase
 * without widening it. So adjacent arrays walked one after another
 * (ribench's phases) become separate phases though no hole separates
 * them; only a forward step into an adjacent array (walked upwards) is
 * not told apart. The thread's RU_SEG_LOOPS latest loops are followed; a
 * sample of none begins one.
 */
#define RU_SEG_AHEAD	4
#define RU_SEG_SCAN	64
#define RU_SEG_LOOPS	8
struct ru_seg_loop {
	size_t last;		/* index of its latest sample */
	u64 lo, hi;		/* its phase's address range so far */
	u32 seg;
};

static int ru_seg_left(const struct reuse *ru, size_t j, u64 lo, u64 hi)
{
	const struct ru_pt *p = &ru->pts[j];
	int below = p->addr < lo, n = 0;
	size_t k;

	for (k = j + 1; k < ru->npts && k <= j + RU_SEG_SCAN && n < RU_SEG_AHEAD; k++) {
		const struct ru_pt *q = &ru->pts[k];

		if (q->thread != p->thread)
			break;
		if (!ru_loop_pt(q, p))
			continue;
		if (below ? q->addr >= lo : q->addr <= hi)
			return 0;
		n++;
	}
	return n > 0;
}

/*
 * Whether @p, past the phase's top @hi, is a forward step from @a of the
 * loop's walk: no farther than RU_WRAP_HOLE median steps, or than the loop
 * goes at RU_CHAIN_SLACK x the forward steps' rate in the time between
 * (held stops and traps make the time an upper bound only).
 */
static int ru_seg_fwd(const struct reuse *ru, const struct ru_pt *a,
		      const struct ru_pt *p, u64 hi)
{
	double n = (double)(p->addr - hi) / (p->size ? p->size : 1);
	double dt = p->ns > a->ns ? (double)(p->ns - a->ns) : 0;

	return n <= ru->step_med * RU_WRAP_HOLE ||
	       n <= dt * ru->step_rate * RU_CHAIN_SLACK;
}

static void ru_segments(struct reuse *ru)
{
	struct ru_seg_loop loop[RU_SEG_LOOPS], *l;
	size_t j, nl = 0, i;
	u32 seg = 0;
	int fwd;

	for (j = 0; j < ru->npts; j++) {
		struct ru_pt *p = &ru->pts[j];
		u64 hole = (u64)(ru->step_med * RU_WRAP_HOLE) * (p->size ? p->size : 1);

		if (j && p->thread != ru->pts[j - 1].thread)
			nl = 0;
		fwd = 0;
		for (l = NULL, i = 0; i < nl && !l; i++)
			if (ru_loop_pt(p, &ru->pts[loop[i].last]))
				l = &loop[i];
		if (!l && nl < RU_SEG_LOOPS) {
			l = &loop[nl++];
		} else if (!l) {	/* the loop seen least recently */
			for (l = &loop[0], i = 1; i < nl; i++)
				if (loop[i].last < l->last)
					l = &loop[i];
		} else if ((p->addr >= l->lo && p->addr <= l->hi) ||
			   (fwd = p->addr > l->hi &&
				  ru_seg_fwd(ru, &ru->pts[l->last], p, l->hi)) ||
			   !ru_seg_left(ru, j, l->lo, l->hi)) {
			if (fwd)
				l->hi = p->addr;
			else if (p->addr < l->lo && l->lo - p->addr <= hole)
				l->lo = p->addr;	/* farther: a stray access */
			l->last = j;
			p->seg = l->seg;
			continue;
		}
		l->lo = l->hi = p->addr;	/* a new phase */
		l->seg = ++seg;
		l->last = j;
		p->seg = l->seg;
	}
}

/*
 * Accesses each sample stands for. A time-based sampler (soft: thread CPU
 * time) takes more samples per access where the program runs slowly, so
 * phases are not sampled alike per access; the histograms are per access.
 * A sample stands for the mean step from one sample of its thread to the
 * next: counted by address (ru_chain_step forward, ru_wrap around an
 * array), 0 where the thread did not move (ru_stuck). Steps that cannot be
 * counted (another loop, a phase change) are left out. A detection's
 * weight is scaled by that mean over the RU_APS_SPAN points of its thread
 * around its use, over the run's mean step (so weights keep their scale).
 * The mean, not the median: steps are skewed (a walk's forward steps are
 * cut short by its wraps), and accesses per sample is a mean. No counted
 * step near it, or a counting facility: 1. Sets step_med and step_rate
 * (the forward steps' median size and rate) for the chains; returns the
 * number of detections scaled.
 */
#define RU_APS_SPAN	16
static u64 ru_access_weights(struct reuse *ru)
{
	double *step = malloc((ru->npts ? ru->npts : 1) * sizeof(*step));
	struct ru_dbl all = { 0 }, rates = { 0 };
	double sum = 0, run, near, n;
	size_t d, j, lo, cnt = 0, k;
	u64 nscaled = 0;

	if (!step)
		return 0;
	for (d = 0; d < ru->ndet; d++)
		ru->det[d].w = ru->det[d].w0;
	for (j = 0; j < ru->npts; j++) {
		const struct ru_pt *a = &ru->pts[j - !!j], *b = &ru->pts[j];

		step[j] = -1;
		if (!j || a->thread != b->thread)
			continue;
		step[j] = ru_chain_step(a, b, 0);
		if (step[j] > 0 && (ru_dbl_push(&all, step[j]) ||
				    ru_dbl_push(&rates, step[j] / (double)(b->ns - a->ns))))
			goto out;
	}
	if (all.n < REUSE_MIN_RATE_PAIRS)
		goto out;
	ru->step_med = ru_median(&all);
	ru->step_rate = ru_median(&rates);
	ru_segments(ru);
	for (j = 1; j < ru->npts; j++) {	/* as the chains count them */
		const struct ru_pt *a = &ru->pts[j - 1], *b = &ru->pts[j];

		if (a->thread != b->thread)
			continue;
		step[j] = ru_chain_step(a, b, ru->step_rate);
		if (step[j] > 0)
			continue;
		step[j] = ru_stuck(a, b) ? 0 : ru_wrap(ru, a->ns, b->ns, a, b);
		if (step[j] <= 0 && !ru_stuck(a, b))
			step[j] = -1;
	}
	for (j = 0; j < ru->npts; j++)
		if (step[j] >= 0) {
			sum += step[j];
			cnt++;
		}
	run = sum / (double)cnt;
	for (d = 0; d < ru->ndet; d++) {
		struct ru_det *x = &ru->det[d];

		if (!x->use_ns || x->wall)
			continue;
		lo = ru_pt_find(ru, x->thread, x->use_ns);
		near = n = 0;
		for (k = lo > RU_APS_SPAN / 2 ? lo - RU_APS_SPAN / 2 : 0;
		     k < ru->npts && k < lo + RU_APS_SPAN / 2; k++)
			if (ru->pts[k].thread == x->thread && step[k] >= 0) {
				near += step[k];
				n++;
			}
		if (n < 3 || near <= 0)
			continue;
		x->w *= near / n / run;
		nscaled++;
	}
out:
	free(all.v);
	free(rates.v);
	free(step);
	return nscaled;
}

/*
 * Accesses between use and reuse: elapsed ns, less the measured cost of a
 * held stop and a trap for reuses timed from a held sample, x the access
 * rate: the reuse's local one where its interval holds stride pairs, else
 * the run's (the median of the pairs some reuse used, or of all pairs).
 */
static int ru_accesses(struct reuse *ru, struct reuse_result *r)
{
	struct ru_dbl tmp = { 0 }, val = { 0 };
	double *rate = calloc(ru->ndet ? ru->ndet : 1, sizeof(*rate));
	u8 *used = calloc(ru->nspans ? ru->nspans : 1, 1);
	size_t d;
	int err = 0;

	if (!rate || !used) {
		err = -ENOMEM;
		goto out;
	}
	r->trap_cost_samples = ru->cal.n;
	r->trap_cost_ns = ru->cal.n >= REUSE_MIN_TRAP_COST ? ru_median(&ru->cal) : 0;
	if (r->rate_source == REUSE_RATE_STRIDE && !ru->cfg.global_rate) {
		qsort(ru->spans, ru->nspans, sizeof(*ru->spans), ru_span_cmp);
		for (d = 0; d < ru->ndet; d++) {
			const struct ru_det *x = &ru->det[d];

			if (x->kind == RU_REUSE && !x->wall && x->use_ns)
				rate[d] = ru_local_rate(ru, x->thread, x->use_ns,
							(u64)x->ns, used, &tmp);
		}
		for (d = 0; d < ru->nspans; d++)
			if (used[d] && (err = ru_dbl_push(&val, ru->spans[d].rate)))
				goto out;
		if (val.n >= REUSE_MIN_RATE_PAIRS) {
			r->access_rate = r->stride_rate = ru_median(&val);
			r->rate_pairs_local = val.n;
		}
	}
	if (!ru->cfg.no_chain)
		qsort(ru->pts, ru->npts, sizeof(*ru->pts), ru_pt_cmp);
	if (!ru->cfg.no_chain && !ru->cfg.unweighted &&
	    r->rate_source != REUSE_RATE_USER)
		r->access_weighted = ru_access_weights(ru);
	for (d = 0; d < ru->ndet; d++) {
		struct ru_det *x = &ru->det[d];
		double ns = x->ns, cost = 0, c = -1;

		if (x->counted) {	/* counters gave the accesses themselves */
			x->acc = x->ns;
			x->rate = 1;
			r->counted_reuses++;
			continue;
		}
		if (x->held && x->kind == RU_REUSE)
			cost = r->trap_cost_ns;
		ns = ns > cost ? ns - cost : 0;
		if (rate[d] > 0)
			r->local_rate_reuses++;
		x->rate = rate[d] > 0 ? rate[d] : r->access_rate;
		if (x->kind == RU_REUSE && !x->wall && x->use_ns &&
		    r->rate_source != REUSE_RATE_USER && !ru->cfg.no_chain)
			c = ru_chain(ru, x, cost);
		x->chained = c >= 0;
		r->chained_reuses += x->chained;
		x->acc = c >= 0 ? c : ns * x->rate;
	}
out:
	free(tmp.v);
	free(val.v);
	free(rate);
	free(used);
	return err;
}

/*
 * The run's resolution (reuse.h): a timed reuse whose trap came less than
 * R ns of its thread's CPU time after its sample (shared mode: R of wall
 * time, before the x k of the threads sharing the cache) is short. Its
 * measured time is the sum of its own and the sample, arm and trap costs,
 * so its own is less than R; where in [0, R) is noise. Counted reuses
 * are exact.
 */
static void ru_resolution(struct reuse *ru, struct reuse_result *r)
{
	struct reuse_resolution *res = &r->resolution;
	double R = ru->cfg.resolution_ns, kmax = 1;
	size_t d;
	int timed = 0;

	memset(res, 0, sizeof(*res));
	for (d = 0; d < ru->ndet; d++) {
		struct ru_det *x = &ru->det[d];
		double k = x->wall && x->shared_k > 1 ? x->shared_k : 1;

		x->is_short = 0;
		if (x->kind != RU_REUSE || x->counted)
			continue;
		timed = 1;
		kmax = k > kmax ? k : kmax;
		if (R > 0 && x->ns < R * k) {
			x->is_short = 1;
			res->short_reuses += x->w;
			res->short_detections++;
			ru->r_thr[x->thread].short_reuses += x->w;
		}
	}
	if (!timed)
		return;		/* exact: nothing was timed */
	if (!(R > 0)) {
		res->source = REUSE_RES_UNKNOWN;
		return;
	}
	res->source = ru->cfg.resolution_measured ? REUSE_RES_MEASURED : REUSE_RES_STATED;
	res->ns = R;
	res->accesses = R * r->access_rate * kmax;
}

/*
 * Survival weights (Documentation/reuse-estimator.md, "Censored watches").
 * With access counters every watch has an age: the accesses it was held.
 * A reuse (or invalidation) at age t was seen because no sample replaced
 * its watch before t; a watch replaced at age c says its reuse comes
 * later than c (right-censored); a cold one was held to the end. The
 * replacements are the reservoir's random draws, which do not depend on
 * when the watch's own reuse comes; but how often they come depends on
 * what holds the other slots, so on the phase of the program, and the
 * pooled estimate below assumes it does not (reuse-estimator.md says what
 * that costs on RIBench). The Kaplan-Meier estimate of the censoring
 * distribution,
 *
 *	G(t-) = prod over censoring ages c < t of (1 - d(c) / R(c)),
 *
 * d(c) the weight censored at c, R(c) the weight still held at c (events
 * after c, censored or cold at c or after), gives each event the inverse
 * probability of censoring weight 1 / G(t-) (cold: 1 / G(a), a its age),
 * times 1 / P(armed) (the sample got a slot). Unlike the realized
 * probability of one watch's own path (the Horvitz-Thompson weight
 * computed online), G pools every watch of the group, so survivors at one
 * age all weigh alike. Groups: each use thread (private caches), all
 * (shared). Only when every detection has an age (the counter path):
 * a clock cannot date a replacement in the owner's accesses.
 */
struct ru_obs {
	double age;
	double w;		/* 1 / P(armed) */
	u32 group;
	u8 type;		/* RU_OBS_*: the order at equal ages */
	size_t i;		/* index into det (events, cold) */
};
#define RU_OBS_EVENT	0	/* a reuse or invalidation at age: before a
				 * censoring at that age, which it outlived */
#define RU_OBS_CENSOR	1
#define RU_OBS_COLD	2	/* held to the end: after censorings at its age */

static int ru_obs_cmp(const void *pa, const void *pb)
{
	const struct ru_obs *a = pa, *b = pb;

	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	if (a->age != b->age)
		return a->age < b->age ? -1 : 1;
	return a->type < b->type ? -1 : a->type > b->type;
}

/*
 * The weight of being armed, by strata (survival weights only): a sample
 * no slot took is not seen, and each watch's 1 / P(armed) makes up for it.
 * In a stretch of RU_STRATUM consecutive watches of a group (by use time)
 * these weights are scaled to sum to the stretch's samples, armed and
 * dropped (a Hajek ratio within the stretch): a counting sampler's samples
 * are alike (every N-th access), so each stretch keeps its share of the
 * accesses. Not (armed + dropped) / armed alone: in a sweep the samples
 * right after a long one are dropped more often than the long ones (its
 * watch holds a slot), so the armed over-represent long reuses.
 */
#define RU_STRATUM	64
struct ru_arm {
	u32 group;
	u64 time;
	double *w;		/* NULL: a dropped sample */
};

static int ru_arm_cmp(const void *pa, const void *pb)
{
	const struct ru_arm *a = pa, *b = pb;

	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	return a->time < b->time ? -1 : a->time > b->time;
}

static int ru_strata(struct reuse *ru)
{
	size_t n = 0, d, j, a0, narm = 0, ndrop = 0;
	double sum = 0;
	struct ru_arm *v = malloc((ru->ndet + ru->ncens + ru->ndrops + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (d = 0; d < ru->ndet; d++)
		v[n++] = (struct ru_arm){ ru->cfg.shared ? 0 : ru->det[d].thread,
					  ru->det[d].use_time, &ru->det[d].wsel };
	for (d = 0; d < ru->ncens; d++)
		if (ru->cens[d].live)
			v[n++] = (struct ru_arm){ ru->cfg.shared ? 0 : ru->cens[d].thread,
						  ru->cens[d].use_time, &ru->cens[d].wsel };
	for (d = 0; d < ru->ndrops; d++)
		v[n++] = (struct ru_arm){ ru->cfg.shared ? 0 : ru->drops[d].thread,
					  ru->drops[d].time, NULL };
	qsort(v, n, sizeof(*v), ru_arm_cmp);
	for (j = a0 = 0; j <= n; j++) {
		/* a stratum ends at its group's end or before its K+1-th watch */
		if (j == n || (j > a0 && v[j].group != v[j - 1].group) ||
		    (v[j].w && narm == RU_STRATUM)) {
			for (d = a0; narm && sum > 0 && d < j; d++)
				if (v[d].w)
					*v[d].w *= (double)(narm + ndrop) / sum;
			a0 = j;
			narm = ndrop = 0;
			sum = 0;
		}
		if (j < n && v[j].w) {
			narm++;
			sum += *v[j].w;
		} else if (j < n) {
			ndrop++;
		}
	}
	free(v);
	return 0;
}

static int ru_survival(struct reuse *ru, struct reuse_result *r)
{
	struct ru_obs *o;
	size_t d, n = 0, j, g0;
	double R = 0, G = 1;

	ru->survival = 0;
	if (ru->cfg.unweighted || !ru->cfg.survival || !ru->ndet)
		return 0;
	for (d = 0; d < ru->ndet; d++)
		if (!ru->det[d].aged) {
			r->survival_unapplied = 1;
			return 0;
		}
	if (ru_strata(ru))
		return -ENOMEM;
	o = malloc((ru->ndet + ru->ncens) * sizeof(*o));
	if (!o)
		return -ENOMEM;
	for (d = 0; d < ru->ndet; d++) {
		const struct ru_det *x = &ru->det[d];

		o[n++] = (struct ru_obs){ x->age, x->wsel, ru->cfg.shared ? 0 : x->thread,
					  x->kind == RU_COLD ? RU_OBS_COLD : RU_OBS_EVENT, d };
	}
	for (d = 0; d < ru->ncens; d++)
		if (ru->cens[d].live)
			o[n++] = (struct ru_obs){ ru->cens[d].age, ru->cens[d].wsel,
						  ru->cfg.shared ? 0 : ru->cens[d].thread,
						  RU_OBS_CENSOR, d };
	qsort(o, n, sizeof(*o), ru_obs_cmp);
	for (j = g0 = 0; j < n; j++) {
		if (j == g0) {	/* a new group: g0 moves to its end */
			for (g0 = j, R = 0; g0 < n && o[g0].group == o[j].group; g0++)
				R += o[g0].w;
			G = 1;
		}
		if (o[j].type == RU_OBS_CENSOR) {
			G *= R > o[j].w ? 1 - o[j].w / R : 0;
			r->censored++;
		} else {
			struct ru_det *x = &ru->det[o[j].i];

			x->w = G * REUSE_MAX_WEIGHT > x->wsel ? x->wsel / G : REUSE_MAX_WEIGHT;
		}
		R -= o[j].w;
	}
	free(o);
	ru->survival = r->survival = 1;
	return 0;
}

static void ru_add_det_w(struct reuse_hist *h, const struct ru_det *x, double w)
{
	if (x->kind == RU_REUSE)
		reuse_hist__add(h, reuse__ns_to_accesses(x->acc, 1.0), w);
	else if (x->kind == RU_INVAL)
		reuse_hist__add_inval(h, w);
	else
		reuse_hist__add_cold(h, w);
}

static void ru_add_det(struct reuse_hist *h, const struct ru_det *x)
{
	ru_add_det_w(h, x, x->w);
}

/*
 * A window's reuse times for its footprint: per power-of-two bin the weight
 * and the weight x time, so a bin's mass is taken as spread evenly over the
 * widest interval around its mean that stays in the bin, not over the
 * whole bin: the same where the times fill the bin, exact where one time
 * does (a sweep's reuses 12,288 accesses apart, spread over 8,192-16,383,
 * came out ~1,100 lines away instead of 1,536, across the 1,024-line bin
 * edge of the stack histogram). Cold and uncounted invalidations are
 * infinite.
 */
struct ru_wfp {
	double m[REUSE_HIST_NBINS], mt[REUSE_HIST_NBINS];
	double inf, total;
	double lo[REUSE_HIST_NBINS], hi[REUSE_HIST_NBINS];	/* the interval */
	double below[REUSE_HIST_NBINS + 1];	/* sum of mt of the bins below */
	double above[REUSE_HIST_NBINS + 1];	/* weight of the bins from k, and inf */
};

static void ru_wfp_add(struct ru_wfp *f, int slot, double t, double w)
{
	if (slot >= REUSE_HIST_NBINS) {
		f->inf += w;
		return;
	}
	f->m[slot] += w;
	f->mt[slot] += w * t;
}

/* Ready for ru_wfp_dist: 0, or -ENODATA if it holds nothing. */
static int ru_wfp_init(struct ru_wfp *f)
{
	int k;

	f->total = f->inf;
	f->below[0] = 0;
	for (k = 0; k < REUSE_HIST_NBINS; k++) {
		double lo = (double)reuse_hist__bin_lo(k), hi = (double)reuse_hist__bin_max(k);
		double mu = f->m[k] > 0 ? f->mt[k] / f->m[k] : (lo + hi) / 2, h;

		mu = mu < lo ? lo : mu > hi ? hi : mu;
		h = mu - lo < hi - mu ? mu - lo : hi - mu;
		f->lo[k] = mu - h;
		f->hi[k] = mu + h;
		f->total += f->m[k];
		f->below[k + 1] = f->below[k] + f->m[k] * mu;
	}
	f->above[REUSE_HIST_NBINS] = f->inf;
	for (k = REUSE_HIST_NBINS; k-- > 0; )
		f->above[k] = f->above[k + 1] + f->m[k];
	return f->total > 0 ? 0 : -ENODATA;
}

/*
 * G(s) = sum_{j<s} P(T > j) = E[min(s, T)]: the distinct lines (or
 * addresses) among s accesses in a row that are not reused within them,
 * as reuse_fp__dist, with each bin's mass spread over its interval.
 */
static double ru_wfp_dist(const struct ru_wfp *f, double s)
{
	double a, c, e;
	int k;

	if (!(s > 0))
		return 0;
	k = s >= 1.8e19 ? REUSE_HIST_NBINS - 1 : reuse_hist__bin((u64)s);
	a = f->lo[k];
	c = f->hi[k];
	if (s <= a)
		e = s;
	else if (s >= c)
		e = (a + c) / 2;
	else
		e = ((s * s - a * a) / 2 + s * (c - s)) / (c - a);
	return (f->below[k] + f->m[k] * e + s * f->above[k + 1]) / f->total;
}

struct ru_blk {			/* a conversion window (ru_convert_run) */
	u64 start;		/* use time of its first detection */
	size_t a;		/* index of that detection */
	struct ru_wfp fp;	/* its reuse times, for its footprint */
	struct ru_wfp fpi;	/* the same with invalidations infinite */
	int ok;
};

/*
 * The distinct addresses of reuse @x, in window @c of @blk (nb windows):
 * its interval [u, e] (use times) crosses windows, and a window's reuse
 * times say how many of the accesses made in it are not reused before e.
 * An access at distance s before e is the last to its address in the
 * interval if its reuse time exceeds s: P = S(s) of the window it lies
 * in, so the window's part is the integral of S over its distances,
 * fp(e - lo) - fp(e - hi). One window is the footprint fp(e - u).
 */
/*
 * The distinct addresses of reuse @x, which lies in window @c of @blk (nb
 * windows, by use time). Its interval [u, e] crosses windows. An access
 * made s accesses before e is the last to its address in the interval if
 * its reuse time exceeds s, with probability S(s) = P(T > s) of the
 * window it lies in; the window's part is the sum of S over the distances
 * of its accesses, G(e - lo) - G(e - hi) (G = reuse_fp__dist, times scaled
 * to @acc accesses over [u, e]). Within one window this is the footprint
 * conversion, G(acc).
 */
static double ru_piecewise(const struct ru_blk *blk, size_t nb, size_t c,
			   const struct ru_det *x, double acc, int inf)
{
	u64 u = x->use_time, e = x->end_time;
	double d = 0, scale;
	size_t b;

	if (e <= u)
		return ru_wfp_dist(inf ? &blk[c].fpi : &blk[c].fp, acc);
	scale = acc / (double)(e - u);
	for (b = c; b < nb && blk[b].start < e; b++) {
		u64 lo = b == c ? u : blk[b].start;
		u64 hi = b + 1 < nb && blk[b + 1].start < e ? blk[b + 1].start : e;
		const struct ru_blk *k = blk[b].ok ? &blk[b] : &blk[c];
		const struct ru_wfp *f = inf ? &k->fpi : &k->fp;

		if (hi > lo)
			d += ru_wfp_dist(f, scale * (double)(e - lo)) -
			     ru_wfp_dist(f, scale * (double)(e - hi));
	}
	return d;
}

/*
 * Where detection @x goes in a window's time histogram: its bin, or
 * RU_SLOT_INVAL / RU_SLOT_COLD. An invalidated line leaves the owner's
 * cache when the store lands (Sasongko 2022, Definition 6.2.2; the exact
 * engine drops it from the stack): for the footprint it is an access
 * whose line stays only that long, when counters timed it.
 */
#define RU_SLOT_INVAL	REUSE_HIST_NBINS
#define RU_SLOT_COLD	(REUSE_HIST_NBINS + 1)
#define RU_NSLOTS	(REUSE_HIST_NBINS + 2)
static int ru_slot_of(const struct ru_det *x)
{
	if (x->kind == RU_REUSE || (x->kind == RU_INVAL && x->counted && x->acc > 0))
		return reuse_hist__bin(reuse__ns_to_accesses(x->acc, 1.0));
	return x->kind == RU_INVAL ? RU_SLOT_INVAL : RU_SLOT_COLD;
}

/* Its time (accesses strictly between) for a finite slot. */
static double ru_time_of(const struct ru_det *x)
{
	return (double)reuse__ns_to_accesses(x->acc, 1.0);
}

/*
 * The group's law of reuse times beyond an age (survival weights): its
 * events by age, survival-weighted (ru_survival), with prefix sums and the
 * end of each run of one slot, so that a censored watch of age c is
 * imputed as the law of T given T > c in O(slots).
 */
struct ru_law {
	size_t n;
	double *age, *pre;	/* pre[k]: weight of events 0..k-1 */
	double *pret;		/* pret[k]: their weight x time (finite slots) */
	int *slot;
	size_t *run_end;
};

static int ru_law_age_cmp(const void *pa, const void *pb)
{
	const struct ru_det *a = *(const struct ru_det *const *)pa;
	const struct ru_det *b = *(const struct ru_det *const *)pb;
	double x = a->kind == RU_COLD ? INFINITY : a->age;
	double y = b->kind == RU_COLD ? INFINITY : b->age;
	int sa = ru_slot_of(a), sb = ru_slot_of(b);

	if (x != y)
		return x < y ? -1 : 1;
	return sa < sb ? -1 : sa > sb;
}

static void ru_law_free(struct ru_law *l)
{
	free(l->age);
	free(l->pre);
	free(l->pret);
	free(l->slot);
	free(l->run_end);
}

static int ru_law_init(struct ru_law *l, struct ru_det **v, size_t nv)
{
	struct ru_det **e = malloc((nv ? nv : 1) * sizeof(*e));
	size_t k;

	memset(l, 0, sizeof(*l));
	l->age = malloc((nv + 1) * sizeof(*l->age));
	l->pre = malloc((nv + 1) * sizeof(*l->pre));
	l->pret = malloc((nv + 1) * sizeof(*l->pret));
	l->slot = malloc((nv + 1) * sizeof(*l->slot));
	l->run_end = malloc((nv + 1) * sizeof(*l->run_end));
	if (!e || !l->age || !l->pre || !l->pret || !l->slot || !l->run_end) {
		free(e);
		ru_law_free(l);
		return -ENOMEM;
	}
	memcpy(e, v, nv * sizeof(*e));
	qsort(e, nv, sizeof(*e), ru_law_age_cmp);
	l->n = nv;
	l->pre[0] = l->pret[0] = 0;
	for (k = 0; k < nv; k++) {
		l->age[k] = e[k]->kind == RU_COLD ? INFINITY : e[k]->age;
		l->slot[k] = ru_slot_of(e[k]);
		l->pre[k + 1] = l->pre[k] + e[k]->w;
		l->pret[k + 1] = l->pret[k] + (l->slot[k] < REUSE_HIST_NBINS ?
					       e[k]->w * ru_time_of(e[k]) : 0);
	}
	for (k = nv; k-- > 0; )
		l->run_end[k] = k + 1 < nv && l->slot[k + 1] == l->slot[k] ? l->run_end[k + 1] : k + 1;
	free(e);
	return 0;
}

/* Add weight @w of a watch censored at age @c to @f as the law beyond @c. */
static void ru_law_impute(const struct ru_law *l, struct ru_wfp *f, double c, double w)
{
	size_t lo = 0, hi = l->n, k;
	double beyond;

	while (lo < hi) {	/* the first event later than c */
		size_t m = (lo + hi) / 2;

		if (l->age[m] > c)
			hi = m;
		else
			lo = m + 1;
	}
	beyond = l->pre[l->n] - l->pre[lo];
	if (!(beyond > 0)) {	/* later than anything seen: no reuse in the run */
		ru_wfp_add(f, RU_SLOT_COLD, 0, w);
		return;
	}
	for (k = lo; k < l->n; k = l->run_end[k]) {
		size_t e = l->run_end[k];
		double m = l->pre[e] - l->pre[k];

		/* weight w m / beyond at the run's mean time */
		ru_wfp_add(f, l->slot[k], m > 0 ? (l->pret[e] - l->pret[k]) / m : 0,
			   w * m / beyond);
	}
}

/*
 * Invalidations inside a reuse's interval (counter path). The footprint
 * takes an invalidated use as an access whose line leaves the owner's
 * cache after its counted age, averaged over the window: stationary. In
 * RIBench's order (and any program whose invalidations come in bursts)
 * the lines stored inside a reuse's interval are invalidated only after
 * it, and the average says a fraction left: long-decreasing-case3 came out
 * at S 0.613 on a time histogram at 0.849 (Documentation/reuse-estimator.md).
 * Every counted invalidation d used at count c inside the interval (U, E)
 * says when its line left, at c + age; when the interval holds detections
 * and none of its invalidations left before E, the conversion takes them
 * as staying. Offline in O(n log n): queries by E, invalidations by the
 * count they left at, into a Fenwick tree over the use-count order.
 */
struct ru_loc {
	u64 c;			/* use count */
	double ev;		/* the count its line left at (INFINITY: not an
				 * invalidation), or a replaced watch's end */
	u8 cens;		/* a replaced watch */
};

static int ru_loc_c_cmp(const void *pa, const void *pb)
{
	const struct ru_loc *a = pa, *b = pb;

	return a->c < b->c ? -1 : a->c > b->c;
}

static int ru_loc_ev_cmp(const void *pa, const void *pb)
{
	double a = (*(const struct ru_loc *const *)pa)->ev;
	double b = (*(const struct ru_loc *const *)pb)->ev;

	return a < b ? -1 : a > b;
}

/* The first index of @l (sorted by c) with c > @x. */
static size_t ru_loc_upper(const struct ru_loc *l, size_t n, u64 x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t m = (lo + hi) / 2;

		if (l[m].c > x)
			hi = m;
		else
			lo = m + 1;
	}
	return lo;
}

struct ru_q {
	size_t j;		/* index in v */
	u64 u, e;
};

static int ru_q_cmp(const void *pa, const void *pb)
{
	const struct ru_q *a = pa, *b = pb;

	return a->e < b->e ? -1 : a->e > b->e;
}

/*
 * For each counted reuse v[j]: @gone[j] the number of invalidations
 * used strictly inside its interval that left before its end, @nin[j] how
 * many aged detections were used inside it (0: no local evidence).
 */
static int ru_local(const struct reuse *ru, struct ru_det **v, size_t nv, long thread,
		    size_t *gone, size_t *nin)
{
	size_t m = nv + ru->ncens, n = 0, nq = 0, i, j, k;
	struct ru_loc *l = malloc((m ? m : 1) * sizeof(*l));
	struct ru_loc **byev = malloc((m ? m : 1) * sizeof(*byev));
	struct ru_q *q = malloc((nv ? nv : 1) * sizeof(*q));
	size_t *fg = calloc(m + 1, sizeof(*fg)), *fc = calloc(m + 1, sizeof(*fc));
	int err = -ENOMEM;

	if (!l || !byev || !q || !fg || !fc)
		goto out;
	for (j = 0; j < nv; j++) {
		const struct ru_det *x = v[j];

		nin[j] = gone[j] = 0;
		if (!x->aged)
			continue;
		l[n].c = x->use_count;
		l[n].cens = 0;
		l[n++].ev = x->kind == RU_INVAL && x->counted ?
			    (double)x->use_count + x->age : INFINITY;
		if (x->kind == RU_REUSE && x->counted && x->age > 1)
			q[nq++] = (struct ru_q){ j, x->use_count, x->use_count + (u64)x->age };
	}
	for (j = 0; j < ru->ncens; j++) {	/* replaced at use + age */
		const struct ru_cens *x = &ru->cens[j];

		if (!x->live || (thread >= 0 && x->thread != (u32)thread))
			continue;
		l[n].c = x->use_count;
		l[n].cens = 1;
		l[n++].ev = (double)x->use_count + x->age;
	}
	qsort(l, n, sizeof(*l), ru_loc_c_cmp);
	for (i = 0; i < n; i++)
		byev[i] = &l[i];
	qsort(byev, n, sizeof(*byev), ru_loc_ev_cmp);
	qsort(q, nq, sizeof(*q), ru_q_cmp);
	for (i = k = 0; i < nq; i++) {
		size_t a = ru_loc_upper(l, n, q[i].u), b = ru_loc_upper(l, n, q[i].e - 1);
		size_t in = 0, blind = 0;

		/* left before e (invalidations), or replaced before e (blind) */
		for (; k < n && byev[k]->ev < (double)q[i].e; k++) {
			size_t *f = byev[k]->cens ? fc : fg;

			for (j = (size_t)(byev[k] - l) + 1; j <= n; j += j & -j)
				f[j]++;
		}
		if (b <= a)
			continue;
		for (j = b; j; j -= j & -j) {
			in += fg[j];
			blind += fc[j];
		}
		for (j = a; j; j -= j & -j) {
			in -= fg[j];
			blind -= fc[j];
		}
		gone[q[i].j] = in;
		nin[q[i].j] = b - a - blind;
	}
	err = 0;
out:
	free(l);
	free(byev);
	free(q);
	free(fg);
	free(fc);
	return err;
}

/*
 * Footprint conversion (see reuse.h) of the detections @v into @stack:
 * windows of cfg.window detections by use time, each with the footprint
 * of its reuse times; a reuse takes each window's footprint over the part
 * of its interval that lies in the window (ru_piecewise). With survival
 * weights (ru_survival) a window's reuse times are its own detections at
 * 1 / P(armed) and its censored watches (those of thread @thread, or all
 * if negative) imputed by the group's law beyond their age: a window
 * where no long watch survived still holds the long reuses its censored
 * watches say it had.
 */
static int ru_capped(const struct ru_det *x)
{
	double cap = REUSE_MAX_WEIGHT * (1 - 1e-9);

	return x->w0 >= cap || x->w >= cap;
}

static int ru_convert_run(struct reuse *ru, struct ru_det **v, size_t nv, long thread,
			  struct reuse_hist *stack, struct reuse_hist_err *eh)
{
	size_t k = ru->cfg.window > 0 ? (size_t)ru->cfg.window : nv, a, b, j, nb = 0, c;
	struct ru_blk *blk = malloc((nv / (k ? k : 1) + 1) * sizeof(*blk));
	struct ru_law law = { 0 };
	size_t *gone = NULL, *nin = NULL;
	int err = 0;

	reuse_hist__init(stack, REUSE_STACK, ru->cfg.gran);
	if (!blk)
		return -ENOMEM;
	if (ru->survival && (err = ru_law_init(&law, v, nv))) {
		free(blk);
		return err;
	}
	qsort(v, nv, sizeof(*v), ru_det_time_cmp);
	for (a = 0; a < nv; a = b, nb++) {
		b = a + k < nv ? a + k : nv;
		if (nv - b < k / 2)	/* a short tail joins the last window */
			b = nv;
		blk[nb].start = v[a]->use_time;
		blk[nb].a = a;
		memset(&blk[nb].fp, 0, sizeof(blk[nb].fp));
		memset(&blk[nb].fpi, 0, sizeof(blk[nb].fpi));
		for (j = a; j < b; j++) {
			int sl = ru_slot_of(v[j]);

			ru_wfp_add(&blk[nb].fp, sl, ru_time_of(v[j]),
				   ru->survival ? v[j]->wsel : v[j]->w);
			ru_wfp_add(&blk[nb].fpi, v[j]->kind == RU_INVAL ? RU_SLOT_INVAL : sl,
				   ru_time_of(v[j]), ru->survival ? v[j]->wsel : v[j]->w);
		}
	}
	for (j = 0; ru->survival && nb && j < ru->ncens; j++) {
		const struct ru_cens *x = &ru->cens[j];
		size_t lo = 0, hi = nb;

		if (!x->live || (thread >= 0 && x->thread != (u32)thread))
			continue;
		while (hi - lo > 1) {	/* the last window starting at or before its use */
			size_t m = (lo + hi) / 2;

			if (blk[m].start <= x->use_time)
				lo = m;
			else
				hi = m;
		}
		ru_law_impute(&law, &blk[lo].fp, x->age, x->wsel);
	}
	for (c = 0; c < nb; c++) {
		blk[c].ok = !ru_wfp_init(&blk[c].fp);
		ru_wfp_init(&blk[c].fpi);
	}
	if (!ru->survival) {
		gone = malloc((nv ? nv : 1) * sizeof(*gone));
		nin = malloc((nv ? nv : 1) * sizeof(*nin));
		if (!gone || !nin || ru_local(ru, v, nv, thread, gone, nin)) {
			err = -ENOMEM;
			goto out;
		}
	}

	for (c = 0; c < nb; c++) {
		for (j = blk[c].a; j < (c + 1 < nb ? blk[c + 1].a : nv); j++) {
			const struct ru_det *x = v[j];
			double d;

			if (x->kind != RU_REUSE && eh)
				reuse_hist_err__add(eh, x->kind == RU_INVAL ? REUSE_ERR_INVAL :
						    REUSE_ERR_COLD, x->w, ru_capped(x));
			if (x->kind == RU_INVAL) {
				reuse_hist__add_inval(stack, x->w);
			} else if (x->kind != RU_REUSE) {
				reuse_hist__add_cold(stack, x->w);
			} else if (blk[c].ok && x->is_short) {	/* short: in the windows only */
				if (eh)
					reuse_hist_err__add(eh, REUSE_ERR_SHORT, x->w, ru_capped(x));
			} else if (blk[c].ok) {
				double t = (double)reuse__ns_to_accesses(x->acc, 1.0);
				u64 dd;

				/* none of its invalidated uses left before its end: they stay */
				d = ru_piecewise(blk, nb, c, x, t, nin && nin[j] && !gone[j]);
				dd = d > 0 ? (u64)(d + 0.5) : 0;
				reuse_hist__add(stack, dd, x->w);
				if (eh)
					reuse_hist_err__add(eh, reuse_hist__bin(dd), x->w, ru_capped(x));
				v[j]->stack = d > 0 ? d : 0;
			}
		}
	}
out:
	ru_law_free(&law);
	free(blk);
	free(gone);
	free(nin);
	return err;
}

static int ru_convert(struct reuse *ru, struct reuse_result *r, u32 n)
{
	struct ru_det **v = malloc((ru->ndet ? ru->ndet : 1) * sizeof(*v));
	size_t d, nv;
	int err = 0;
	u32 i;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		for (d = nv = 0; d < ru->ndet; d++)
			if (ru->det[d].thread == i)
				v[nv++] = &ru->det[d];
		if ((err = ru_convert_run(ru, v, nv, i, &ru->r_thr[i].stack,
					  &ru->r_thr[i].stack_err)))
			break;
		if (!ru->cfg.shared)	/* private caches: the sum of the threads' */
			reuse_hist_err__merge(&r->stack_err, &ru->r_thr[i].stack_err);
	}
	if (!err && ru->cfg.shared) {	/* one cache: one stream of every thread */
		for (d = 0; d < ru->ndet; d++)
			v[d] = &ru->det[d];
		err = ru_convert_run(ru, v, ru->ndet, -1, &r->stack, &r->stack_err);
	} else if (!err) {		/* private caches: the sum of the threads' */
		reuse_hist__init(&r->stack, REUSE_STACK, ru->cfg.gran);
		for (i = 0; i < n; i++)
			reuse_hist__merge(&r->stack, &ru->r_thr[i].stack);
	}
	free(v);
	return err;
}

/* Every detection as a use with its outcome, for views by data object. */
static int ru_uses(struct reuse *ru, struct reuse_result *r)
{
	size_t d;

	ru->r_uses = malloc((ru->ndet ? ru->ndet : 1) * sizeof(*ru->r_uses));
	if (!ru->r_uses)
		return -ENOMEM;
	for (d = 0; d < ru->ndet; d++) {
		const struct ru_det *x = &ru->det[d];
		struct reuse_use *u = &ru->r_uses[d];

		u->addr = x->addr;
		u->thread = x->thread;
		u->pid = x->thread < ru->nthr ? ru->thr[x->thread].pid : 0;
		u->kind = x->kind == RU_REUSE ? REUSE_USE_REUSE : x->kind == RU_INVAL ?
			  REUSE_USE_INVAL : REUSE_USE_COLD;
		u->stack = x->kind == RU_REUSE ? x->stack : 0;
		u->w = x->w;
	}
	r->uses = ru->r_uses;
	r->nuses = ru->ndet;
	return 0;
}

/*
 * Replaced watches that had been held longer than the longest reuse
 * detected (counter path): their reuses, if any, are later than anything
 * the histograms hold, and how many of the sampled uses are like them is
 * not observed (Documentation/reuse-estimator.md, "Sampling error").
 */
static void ru_beyond(struct reuse *ru, struct reuse_result *r)
{
	size_t j;

	for (j = 0; j < ru->ncens && r->longest_reuse > 0; j++) {
		const struct ru_cens *x = &ru->cens[j];

		if (!x->live)
			continue;
		if (x->age > r->oldest_replaced)
			r->oldest_replaced = x->age;
		if (x->age > r->longest_reuse)
			r->replaced_beyond++;
	}
}

const struct reuse_result *reuse__result(struct reuse *ru)
{
	struct reuse_result *r = &ru->res;
	u32 n = ru->nthr, i;
	int nwall = 0, ncpu = 0, ncnt = 0, k;
	size_t d;

	ru_result_free(ru);
	memset(r, 0, sizeof(*r));
	ru->r_thr = calloc(n ? n : 1, sizeof(*ru->r_thr));
	ru->r_pairs = calloc(ru->npairs ? ru->npairs : 1, sizeof(*ru->r_pairs));
	if (!ru->r_thr || !ru->r_pairs) {
		ru_result_free(ru);
		return NULL;
	}
	r->shared = ru->cfg.shared;
	r->gran = ru->cfg.gran;
	r->access_rate = ru_rate(ru, r);
	r->window = ru->cfg.window;
	if (ru_accesses(ru, r) || ru_survival(ru, r)) {
		ru_result_free(ru);
		return NULL;
	}
	reuse_hist__init(&r->time, REUSE_TIME, ru->cfg.gran);
	for (i = 0; i < n; i++) {
		struct reuse_thread *t = &ru->r_thr[i];
		const struct ru_thread *s = &ru->thr[i];

		t->tid = s->started ? s->tid : 0;
		t->samples = s->samples;
		t->reuses = s->reuses;
		t->invalidations = s->invalidations;
		t->cold = s->cold;
		t->cross_thread = s->cross;
		reuse_hist__init(&t->time, REUSE_TIME, ru->cfg.gran);
		reuse_hist__init(&t->stack, REUSE_STACK, ru->cfg.gran);
		r->reuses += s->reuses;
		r->invalidations += s->invalidations;
		r->cold += s->cold;
		r->cross_thread += s->cross;
	}
	ru_resolution(ru, r);
	for (d = 0; d < ru->ndet; d++) {
		const struct ru_det *x = &ru->det[d];
		struct reuse_hist *h = &ru->r_thr[x->thread].time;

		if (!x->is_short)
			ru_add_det(h, x);
		if (x->kind == RU_REUSE) {
			int k = x->is_short ? REUSE_ERR_SHORT :
				reuse_hist__bin(reuse__ns_to_accesses(x->acc, 1.0));

			reuse_hist_err__add(&r->time_err, k, x->w, ru_capped(x));
			reuse_hist_err__add(&ru->r_thr[x->thread].time_err, k, x->w, ru_capped(x));
		}
		if (x->kind == RU_REUSE && x->counted && !x->is_short && ru_time_of(x) > r->longest_reuse)
			r->longest_reuse = ru_time_of(x);
		if (x->kind == RU_REUSE && x->counted)
			ncnt++;
		else if (x->kind == RU_REUSE && x->wall)
			nwall++;
		else if (x->kind == RU_REUSE)
			ncpu++;
	}
	if (ncnt && !nwall && !ncpu) {	/* no rate was needed */
		r->time_source = REUSE_TIME_COUNTER;
		r->rate_source = REUSE_RATE_COUNTER;
		r->access_rate = 1;
	} else {
		r->time_source = !nwall && !ncpu ? REUSE_TIME_NONE :
				 ncnt ? REUSE_TIME_MIXED :
				 !nwall ? REUSE_TIME_THREAD_CPU :
				 !ncpu ? REUSE_TIME_WALL : REUSE_TIME_MIXED;
	}
	for (i = 0; i < n; i++)
		reuse_hist__merge(&r->time, &ru->r_thr[i].time);
	ru_beyond(ru, r);
	if (ru_convert(ru, r, n)) {
		ru_result_free(ru);
		return NULL;
	}
	r->nthreads = n;
	r->threads = ru->r_thr;
	r->mean_access_size = ru->st.samples_used + ru->st.samples_dropped ?
		ru->size_sum / (double)(ru->st.samples_used + ru->st.samples_dropped) : 0;
	for (k = 0; k < (int)ru->pairs_cap; k++)
		if (ru->pairs[k].used)
			ru->r_pairs[r->npairs++] = ru->pairs[k].p;
	qsort(ru->r_pairs, r->npairs, sizeof(*ru->r_pairs), reuse_pair__cmp);
	r->pairs = ru->r_pairs;
	if (ru_uses(ru, r)) {
		ru_result_free(ru);
		return NULL;
	}
	r->stats = ru->st;
	return r;
}

