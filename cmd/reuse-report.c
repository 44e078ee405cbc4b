// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/builtin.h"
#include "cmd/reuse-report.h"
#include "core/json.h"
#include "core/reuse-model.h"
#include "core/reuse-objects.h"
#include "core/svg.h"

#define MRC_MAX_LOG2	26	/* miss-ratio curve up to 2^26 lines (4 GiB) */

/* ---- wording shared by every output ---------------------------------- */

static const char *gran_unit(const struct reuse_result *res)
{
	return res->gran == REUSE_GRAN_LINE ? "distinct 64-byte cache lines"
					    : "distinct addresses (data elements)";
}

static const char *mode_desc(const struct reuse_result *res)
{
	return res->shared ? "shared (last-level cache shared by threads)"
			   : "private (each thread's own caches)";
}

/* How reuse times became accesses, in one sentence. */
static void time_desc(const struct reuse_report *r, char *buf, size_t len)
{
	const struct reuse_result *res = r->res;

	if (r->exact && r->sample_rate < 1) {
		snprintf(buf, len, "estimated (SHARDS): counted among the sampled lines' accesses, x 1/rate");
		return;
	}
	if (r->exact) {
		snprintf(buf, len, "exact: counted in the full access trace");
		return;
	}
	char cost[160] = "", local[160] = "", chain[200] = "";

	if (res->trap_cost_ns > 0)
		snprintf(cost, sizeof(cost), ", less %.1f us for each reuse timed from a held sample "
			 "(the stop and trap cost: median of %" PRIu64 " samples' own-access traps)",
			 res->trap_cost_ns / 1000, res->trap_cost_samples);
	if (res->chained_reuses)
		snprintf(chain, sizeof(chain), "; %" PRIu64 " reuses with samples of their thread in "
			 "between counted by address along them instead (dense forward steps; "
			 "other steps at the rate of the counted ones)", res->chained_reuses);
	if (res->local_rate_reuses)
		snprintf(local, sizeof(local), "the local one (stride pairs between use and reuse) for "
			 "%" PRIu64 " reuses, else ", res->local_rate_reuses);
	if (res->time_source == REUSE_TIME_COUNTER) {
		snprintf(buf, len, "loads+stores counted between use and reuse (%s; %" PRIu64
			 " reuses), no rate needed", res->shared ? "every thread on the cache"
			 : "the thread's own", res->counted_reuses);
		return;
	}
	snprintf(buf, len, "%s%s%s x access rate %s%.4g accesses/ns (%s)%s%s",
		 res->shared ? "CPU ns of the threads on the cache (wall time x threads sharing it)"
			     : "thread CPU ns elapsed between use and reuse",
		 res->time_source == REUSE_TIME_WALL ? " [fallback: CLOCK_MONOTONIC, thread CPU time unknown]" :
		 res->time_source == REUSE_TIME_MIXED ? " [partly CLOCK_MONOTONIC: thread CPU time missing]" : "",
		 cost, local, res->access_rate,
		 res->rate_source == REUSE_RATE_USER ? "given with --access-rate" :
		 res->rate_source == REUSE_RATE_STRIDE && res->rate_pairs_local ?
			"median of the stride pairs inside some reuse" :
		 res->rate_source == REUSE_RATE_STRIDE ? "estimated from the address strides of consecutive samples at one instruction" :
		 "DEFAULT: too few stride pairs to estimate, distances are in ns of CPU time; give --access-rate",
		 chain,
		 r->run.sync == 1 ? "; watchpoints armed while the sampled thread was held (--sync)" :
		 r->run.sync == 0 ? "; watchpoints armed without holding the thread (--async)" : "");
}

static double frac(double v, double total)
{
	return total > 0 ? v / total : 0;
}

/* Estimated invalidations / (reuses + invalidations), in weights. */
static double inval_frac(const struct reuse_result *res)
{
	return frac(res->stack.inval, reuse_hist__total(&res->stack, REUSE_HIST_INVAL));
}

static int last_bin(const struct reuse_hist *h)
{
	int k;

	for (k = REUSE_HIST_NBINS - 1; k >= 0; k--)
		if (h->bin[k] > 0)
			return k;
	return -1;
}

static int first_bin(const struct reuse_hist *h)
{
	int k;

	for (k = 0; k < REUSE_HIST_NBINS; k++)
		if (h->bin[k] > 0)
			return k;
	return REUSE_HIST_NBINS;
}

static void bin_label(int k, char *buf, size_t len)
{
	u64 lo = reuse_hist__bin_lo(k), hi = reuse_hist__bin_max(k);

	if (lo == hi)
		snprintf(buf, len, "%" PRIu64, lo);
	else
		snprintf(buf, len, "%" PRIu64 "-%" PRIu64, lo, hi);
}

static const char *line_note(const struct reuse_result *res)
{
	return res->gran == REUSE_GRAN_LINE ? "line distances as measured" :
	       "line distances approximated from address distances x mean access size / 64";
}

/* The run's resolution, one sentence (Documentation/reuse-estimator.md, "Resolution"). */
static void resolution_desc(const struct reuse_report *r, char *buf, size_t len)
{
	const struct reuse_resolution *rs = &r->res->resolution;

	if (r->exact)
		snprintf(buf, len, "exact (every access of the trace counted)");
	else if (rs->source == REUSE_RES_EXACT)
		snprintf(buf, len, "exact (reuse times counted by access counters)");
	else if (rs->source == REUSE_RES_UNKNOWN)
		snprintf(buf, len, "UNKNOWN: reuses were timed by a clock and no resolution was "
			 "measured or given (--resolution NS); no hit rate is printed");
	else
		snprintf(buf, len, "R = %.1f us of thread CPU time (%s), about %.0f accesses%s: a reuse "
			 "trapped within R of its sample is only known to be shorter, and is counted "
			 "apart", rs->ns / 1000,
			 rs->source == REUSE_RES_MEASURED ? "measured at the start: the sample, hold or "
			 "arm, and trap costs, as lociprof list --costs" : "given with --resolution",
			 rs->accesses, r->res->shared ? " (x the threads sharing the cache)" : "");
}

/* Why cache levels are not resolved, and what would measure them. */
static void unresolved_desc(const struct reuse_report *r, char *buf, size_t len)
{
	const struct reuse_resolution *rs = &r->res->resolution;

	if (rs->source == REUSE_RES_UNKNOWN)
		snprintf(buf, len, "the resolution of this run is unknown (give --resolution NS); "
			 "a PMU facility with access counters or --trace measures every level");
	else
		snprintf(buf, len, "a reuse within R = %.1f us of its use (%.0f of them here) is only "
			 "known to be at most %.0f lines apart, which such a cache may miss; a PMU "
			 "facility with access counters or --trace measures it", rs->ns / 1000,
			 rs->short_reuses, ceil(rs->accesses) > 1 ? ceil(rs->accesses) - 1 : 0);
}

/* The short row's label: "< R (~N acc.)". */
static void short_label(const struct reuse_result *res, char *buf, size_t len)
{
	snprintf(buf, len, "< %.1fus (~%.0f)", res->resolution.ns / 1000, res->resolution.accesses);
}

/*
 * A counting sampler (period in accesses or events, not ns) with a period
 * that a line's 8 elements divide samples every dense sweep at one position
 * of its lines (Documentation/reuse-estimator.md, "Line granularity").
 */
static int line_period_aliased(const struct reuse_report *r)
{
	return !r->exact && r->res->gran == REUSE_GRAN_LINE && r->run.period &&
	       r->run.period % (LP_CACHE_LINE / 8) == 0 &&
	       r->run.period_unit && strcmp(r->run.period_unit, "ns");
}

/* ---- terminal --------------------------------------------------------- */

static void print_row(const struct reuse_report *r, FILE *f, const char *indent,
		      const char *label, double fr, const struct reuse_hist_err *e,
		      const struct reuse_hist *h, double nshort, int k)
{
	int w = (int)(fr * 50 + 0.5), j;
	u32 n = e ? (k < 0 ? e->n_short : e->n[k]) : 0;

	fprintf(f, "%s%-22s %6.1f%%", indent, label, 100 * fr);
	if (e)	/* sampled: the standard error and the detections behind it */
		fprintf(f, " %5.1f %6u%s", 100 * reuse_hist_err__se(e, h, nshort, k), n,
			k >= 0 && e->capped[k] ? "*" : n && n < REUSE_FEW_DETECTIONS ? "?" : " ");
	fprintf(f, " %s", r->out.color ? "\033[36m" : "");
	for (j = 0; j < w; j++)
		fputc('#', f);
	fprintf(f, "%s\n", r->out.color ? "\033[0m" : "");
}

/* @h's bins and, first, the @nshort reuses shorter than the resolution. */
static void print_hist(const struct reuse_report *r, FILE *f, const struct reuse_hist *h,
		       const struct reuse_hist_err *e, double nshort, const char *indent)
{
	double tot = reuse_hist__total(h, 0) + nshort;
	double all = reuse_hist__total(h, REUSE_HIST_ALL) + nshort;
	int k, lo = first_bin(h), hi = last_bin(h);
	char label[48];

	if (all <= 0) {
		fprintf(f, "%s(nothing detected)\n", indent);
		return;
	}
	if (nshort > 0) {
		short_label(r->res, label, sizeof(label));
		print_row(r, f, indent, label, frac(nshort, tot), e, h, nshort, -1);
	}
	if (e)
		fprintf(f, "%s%-22s %7s %5s %6s\n", indent, "", "", "+-se%", "det");
	for (k = lo; k <= hi; k++) {
		bin_label(k, label, sizeof(label));
		print_row(r, f, indent, label, frac(h->bin[k], tot), e, h, nshort, k);
	}
	fprintf(f, "%s(fractions of %.0f reuses", indent, tot);
	if (nshort > 0)
		fprintf(f, ", %.0f of them shorter than the resolution: distance unknown below it", nshort);
	fprintf(f, "; beside them: %.0f invalidated, %.0f cold/no reuse seen)\n", h->inval, h->cold);
}

/*
 * What the sampled histogram rests on: the columns, and the reuses longer
 * than any detected that replaced watches say exist (counter path).
 */
static void sampling_note(const struct reuse_report *r, FILE *f)
{
	const struct reuse_result *res = r->res;

	fprintf(f, "  (+-se%%: standard error of the fraction from the detections' weights, the "
		"sampling's only: the time -> distance conversion adds its own; det: detections in "
		"the bin, '*' one weighs the cap of %.0f, '?' fewer than %d)\n",
		REUSE_MAX_WEIGHT, REUSE_FEW_DETECTIONS);
	if (res->replaced_beyond)
		fprintf(f, "  %" PRIu64 " watches were replaced after holding longer than the longest "
			"reuse detected (%.0f accesses; the oldest %.0f): their reuses, if they have "
			"one, are longer than any here and missing from the histogram (a longer period "
			"or more debug registers would see them)\n",
			res->replaced_beyond, res->longest_reuse, res->oldest_replaced);
}

static void site(const struct reuse_report *r, u64 ip, char *buf, size_t len)
{
	struct lp_srcloc loc = { 0 };

	if (r->run.syms && symbols__code(r->run.syms, r->run.pid, ip, &loc) == 0)
		snprintf(buf, len, "%s %s:%u", loc.function, loc.file ? loc.file : "??", loc.line);
	else
		symbols__code_unnamed(&loc, ip, buf, len);
}

/* Traps report the instruction after the access: step back into it. */
static u64 reuse_site_ip(u64 ip)
{
	return ip ? ip - 1 : ip;
}

/* A pair's reuse instruction: a trap's IP stepped back; a trace's as it is. */
static u64 pair_reuse_ip(const struct reuse_report *r, const struct reuse_pair *p)
{
	return r->exact ? p->reuse_ip : reuse_site_ip(p->reuse_ip);
}

/* The bounds of a pair's distance bin @k (the last one open above). */
static void pair_bin(int k, char *buf, size_t len)
{
	if (k == 0)
		snprintf(buf, len, "0");
	else if (k == REUSE_XPAIR_BINS - 1)
		snprintf(buf, len, ">= %" PRIu64, reuse_hist__bin_lo(k));
	else if (reuse_hist__bin_lo(k) == reuse_hist__bin_max(k))
		snprintf(buf, len, "%" PRIu64, reuse_hist__bin_lo(k));
	else
		snprintf(buf, len, "%" PRIu64 "-%" PRIu64, reuse_hist__bin_lo(k),
			 reuse_hist__bin_max(k));
}

/* An exact pair's distances: the median's bin, the share beyond each cache. */
static void pair_distance(const struct reuse_report *r, const struct reuse_xpair_dist *d,
			  u64 reuses, FILE *f)
{
	int k = reuse_xpair_dist__median_bin(d), j;
	char bin[64];

	if (k < 0 || !reuses)
		return;
	pair_bin(k, bin, sizeof(bin));
	fprintf(f, "     distance median %s %s%s", bin,
		r->res->gran == REUSE_GRAN_LINE ? "line" : "address", k == 1 ? "" :
		r->res->gran == REUSE_GRAN_LINE ? "s" : "es");
	for (j = 0; j < r->pair_nlimit && j < r->ncaches; j++)
		fprintf(f, "%s %s %.0f%%", j ? "," : "; beyond", r->caches[j].name,
			100.0 * (double)d->beyond[j] / (double)reuses);
	fputc('\n', f);
}

#define TEXT_TOP_OBJECTS 10

static const char *const object_kinds[] = {
	[REUSE_OBJ_HEAP] = "heap", [REUSE_OBJ_STATIC] = "static", [REUSE_OBJ_REGION] = "region",
};

/* The objects of the uses, or why not: NULL with *@why set. */
static struct reuse_object *objects(const struct reuse_report *r, int *n, const char **why)
{
	struct reuse_object *v = NULL;
	int err;

	*n = 0;
	*why = NULL;
	if (r->exact && !r->xobjs) {
		*why = r->sample_rate < 1 ? "--sample-rate keeps no count per line; the objects "
					    "need every access" :
					    "a trace has no allocation events or mappings";
		return NULL;
	}
	if (r->exact)
		err = reuse_xobjs__objects(r->xobjs, r->run.syms, r->run.pid, &v, n);
	else
		err = reuse__objects(r->res, r->run.syms, r->caches, r->ncaches, &v, n);
	if (err == -ENODATA)
		*why = r->exact ? "no access's address is in a known mapping" :
		       r->res->nuses ? "no use address is in a known mapping or allocation" : "no uses";
	else if (err)
		*why = strerror(-err);
	return v;
}

/* The caches the objects' beyond[] counts: exact ones only in lines. */
static int objects_ncaches(const struct reuse_report *r)
{
	int nc = r->exact ? r->xobj_ncaches : r->ncaches;

	return nc < REUSE_OBJECT_CACHES ? nc : REUSE_OBJECT_CACHES;
}

static void print_objects(const struct reuse_report *r, FILE *f)
{
	const char *why;
	double tot[REUSE_OBJECT_CACHES] = { 0 }, all = 0;
	int n, i, c, nc = objects_ncaches(r);
	struct reuse_object *v = objects(r, &n, &why);

	if (!v) {
		fprintf(f, "\nobjects: not available (%s)\n", why);
		return;
	}
	for (i = 0; i < n; i++) {
		all += v[i].uses;
		for (c = 0; c < nc; c++)
			tot[c] += v[i].beyond[c];
	}
	if (r->exact)
		fprintf(f, "\nData objects by misses in each cache (%% of all accesses' misses there, "
			"exact: a fully associative LRU cache of its size misses a reuse at a "
			"distance of at least its lines, a first access and one after an "
			"invalidation; a line shared by two objects counts for the one its first "
			"access touched; lackey reports no allocations, so heap blocks show as "
			"their mapping):\n  %3s %6s", "#", "acc%");
	else
		fprintf(f, "\nData objects by reuse beyond each cache (%% of all uses' misses there, "
			"SDCM as above; cold and invalidated uses miss):\n  %3s %6s", "#", "uses%");
	for (c = 0; c < nc; c++)
		fprintf(f, " %5s%%", r->caches[c].name);
	fprintf(f, "  %-6s %s\n", "kind", "object");
	for (i = 0; i < n && i < TEXT_TOP_OBJECTS; i++) {
		fprintf(f, "  %3d %6.1f", i + 1, 100 * frac(v[i].uses, all));
		for (c = 0; c < nc; c++)
			fprintf(f, " %6.1f", 100 * frac(v[i].beyond[c], tot[c]));
		fprintf(f, "  %-6s %s", object_kinds[v[i].kind], v[i].label);
		/* an anonymous mapping ([anon], [heap]...) is told apart by where it is */
		if (v[i].kind == REUSE_OBJ_REGION && v[i].label[0] == '[')
			fprintf(f, " %#llx, %llu KiB", (unsigned long long)v[i].start,
				(unsigned long long)(v[i].size + 1023) / 1024);
		fputc('\n', f);
	}
	if (!nc && r->exact && r->res->gran != REUSE_GRAN_LINE)
		fprintf(f, "  (ranked by accesses: at address granularity distances are not in "
			"lines; --granularity line counts misses)\n");
	else if (!nc)
		fprintf(f, "  (ranked by %s: no cache geometry, give --cache)\n",
			r->exact ? "accesses" : "uses");
	if (n > TEXT_TOP_OBJECTS)
		fprintf(f, "  ... %d more objects (--json lists them)\n", n - TEXT_TOP_OBJECTS);
	free(v);
}

void reuse_report__print(const void *view, FILE *f)
{
	const struct reuse_report *r = view;
	const struct reuse_result *res = r->res;
	const struct reuse_stats *st = &res->stats;
	double hit[REUSE_MAX_CACHES], hse[REUSE_MAX_CACHES], mrc[MRC_MAX_LOG2 + 1], decided;
	char desc[2048], a[400], b[400], o[400], sz[32];
	struct reuse_hist lh;
	int i, j, n, unres;

	time_desc(r, desc, sizeof(desc));
	fprintf(f, "# lociprof reuse: %s\n", r->run.command ? r->run.command : "");
	fprintf(f, "# mode %s; granularity %s: stack (LRU) distances in %s\n",
		mode_desc(res), res->gran == REUSE_GRAN_LINE ? "line" : "address", gran_unit(res));
	analysis__run_warning(&r->run, f);
	if (line_period_aliased(r))
		fprintf(f, "# WARNING: period %" PRIu64 " %s is a multiple of 8: a dense sweep of 8-byte "
			"elements is sampled at one position of each line, so its line reuses are measured "
			"from that position only; use a period prime to 8 (e.g. -c %" PRIu64 ")\n",
			r->run.period, r->run.period_unit, r->run.period + 1);
	if (r->exact && r->sample_rate < 1)
		fprintf(f, "# ESTIMATE (SHARDS, Waldspurger et al. 2015): the %s a hash samples at rate %.6g "
			"(1 in %.4g): %" PRIu64 " of ~%.0f, %" PRIu64 " of %" PRIu64 " accesses; distances "
			"and counts scaled by 1/rate\n", res->gran == REUSE_GRAN_LINE ? "lines" : "addresses",
			r->sample_rate, 1 / r->sample_rate, r->keys_sampled, r->keys_est, r->sampled,
			r->run.samples);
	if (r->exact && r->sample_rate < 1 && r->hot_on)
		fprintf(f, "# hot lines (Carra & Neglia 2020): %" PRIu64 " found hot and tracked exactly "
			"(weight 1) from access %" PRIu64 " to %" PRIu64 ", %" PRIu64 " of their accesses; "
			"the others sampled\n", r->hot_keys, r->hot_first, r->hot_last, r->hot_accesses);
	if (r->exact && r->sample_rate >= 1)
		fprintf(f, "# exact reuse distances of every access in the trace (no sampling)\n");
	if (r->exact && r->lackey)
		fprintf(f, "# valgrind lackey's trace: valgrind runs the threads one at a time, "
			"read as one thread in that serialized order\n");
	if (!r->exact)
		fprintf(f, "# sampler %s, period %" PRIu64 " %s; %" PRIu64 " samples, %" PRIu64
			" with a data address; %" PRIu64 " armed watchpoints (%" PRIu64 " replaced before a trap)\n",
			r->run.sampler, r->run.period,
			r->run.period_unit && !strcmp(r->run.period_unit, "ns") ? "ns of thread CPU time" : r->run.period_unit,
			r->run.samples, r->run.samples_addr, st->samples_used, st->replaced);
	fprintf(f, "# reuse time: %s\n", desc);
	resolution_desc(r, desc, sizeof(desc));
	fprintf(f, "# resolution: %s\n", desc);
	if (!r->exact && res->rate_source != REUSE_RATE_STRIDE && res->stride_rate > 0)
		fprintf(f, "# (the stride estimate would have been %.4g accesses/ns from %" PRIu64 " pairs)\n",
			res->stride_rate, st->rate_pairs);
	else if (!r->exact && res->rate_source == REUSE_RATE_STRIDE)
		fprintf(f, "# (%" PRIu64 " stride pairs; the estimate assumes dense array walks)\n",
			st->rate_pairs);
	if (!r->exact && res->survival)
		fprintf(f, "# weights: survival (--survival): %" PRIu64 " watches replaced before their "
			"reuse counted as censored, each a reuse later than its age (Kaplan-Meier)\n",
			res->censored);
	else if (!r->exact && res->survival_unapplied)
		fprintf(f, "# weights: --survival not applied (it needs every reuse time counted by "
			"access counters); 1/P(observed) instead\n");
	if (!r->exact && res->access_weighted)
		fprintf(f, "# %" PRIu64 " detections also weighted by the accesses a sample stood for "
			"near their use (time-based sampling: per access, not per CPU time)\n",
			res->access_weighted);
	if (!r->exact)
		fprintf(f, "# time -> stack distance: footprint conversion %s\n", res->window > 0 ?
			"by windows of consecutive reuses, piecewise across them (phases differ)" : "over the whole run");

	decided = (double)(res->reuses + res->invalidations);
	fprintf(f, "\nCounts:\n");
	fprintf(f, "  reuses          %10" PRIu64 "  %5.1f%%", res->reuses, 100 * frac(res->reuses, decided));
	if (!r->exact)
		fprintf(f, "  (temporal %" PRIu64 ", same 8-byte chunk %" PRIu64 ")", st->temporal, st->chunk);
	if (res->shared)
		fprintf(f, "  cross-thread %" PRIu64, res->cross_thread);
	fprintf(f, "\n  invalidations   %10" PRIu64 "  %5.1f%%\n", res->invalidations,
		100 * frac(res->invalidations, decided));
	fprintf(f, "  cold/no reuse   %10" PRIu64 "\n", res->cold);
	if (!r->exact)
		fprintf(f, "  estimated invalidation fraction %.3f (detections weighted by %s)\n",
			inval_frac(res), res->survival ? "survival weights" : "1/P(observed)");

	fprintf(f, "\nWhole program, stack reuse distance (%s):\n", gran_unit(res));
	print_hist(r, f, &res->stack, r->exact ? NULL : &res->stack_err,
		   res->resolution.short_reuses, "  ");
	if (!r->exact)
		sampling_note(r, f);
	for (i = 0; i < res->nthreads; i++) {
		const struct reuse_thread *t = &res->threads[i];

		if (reuse_hist__total(&t->stack, REUSE_HIST_ALL) + t->short_reuses <= 0)
			continue;
		fprintf(f, "\nThread T%d (tid %u): %" PRIu64 " reuses, %" PRIu64 " invalidations, %"
			PRIu64 " cold\n", i, t->tid, t->reuses, t->invalidations, t->cold);
		print_hist(r, f, &t->stack, r->exact ? NULL : &t->stack_err, t->short_reuses, "  ");
	}

	fprintf(f, "\nPredicted hit rates (SDCM, %s; %s):\n",
		r->cache_source ? r->cache_source : "no cache geometry", line_note(res));
	n = r->ncaches ? reuse_model__hit_rates(r->res, r->caches, r->ncaches, hit) : 0;
	if (r->ncaches)
		reuse_model__hit_se(r->res, r->caches, r->ncaches, hit, hse);
	for (i = 0, unres = 0; i < r->ncaches; i++) {
		svg__bytes_label((double)r->caches[i].size, sz, sizeof(sz));
		if (!reuse_model__resolved(res, &r->caches[i])) {
			fprintf(f, "  %-4s %6s %2u-way   not resolved\n", r->caches[i].name, sz,
				r->caches[i].ways);
			unres++;
		} else if (isnan(hit[i]))
			fprintf(f, "  %-4s %6s %2u-way   (no data)\n", r->caches[i].name, sz, r->caches[i].ways);
		else if (!r->exact)	/* sampled: and the sampling's standard error */
			fprintf(f, "  %-4s %6s %2u-way   hit %5.1f%% +-%.1f\n", r->caches[i].name, sz,
				r->caches[i].ways, 100 * hit[i], 100 * hse[i]);
		else
			fprintf(f, "  %-4s %6s %2u-way   hit %5.1f%%\n", r->caches[i].name, sz,
				r->caches[i].ways, 100 * hit[i]);
	}
	if (!r->ncaches)
		fprintf(f, "  (none: sysfs gave no cache geometry, as on some VMs; give it: "
			   "--cache L1=48K:12,L2=1M:16,...)\n");
	if (unres) {
		unresolved_desc(r, desc, sizeof(desc));
		fprintf(f, "  (not resolved: %s)\n", desc);
	}
	(void)n;
	reuse_model__line_hist(res, &lh);
	if (reuse_hist__total(&lh, REUSE_HIST_ALL) > 0 &&
	    sdcm__mrc(&lh, 0, MRC_MAX_LOG2, mrc) == 0) {
		u64 from = reuse_model__resolved_lines(res);

		fprintf(f, "\nMiss-ratio curve (fully associative LRU):");
		for (i = 6, j = 0; i <= MRC_MAX_LOG2; i += 2) {
			if (((u64)1 << i) < from)
				continue;
			svg__bytes_label((double)((u64)64 << i), sz, sizeof(sz));
			fprintf(f, "%s %s %.3f", j++ ? "," : "", sz, 1 - mrc[i]);
		}
		if (from == ~0ull)
			fprintf(f, " (not resolved: the resolution is unknown)");
		else if (from > (u64)1 << 6)
			fprintf(f, " (caches under %" PRIu64 " lines not resolved)", from);
		fputc('\n', f);
	}

	if (r->pairs_by > 0 && r->pairs_by <= r->ncaches)
		fprintf(f, "\nTop use -> reuse pairs, by reuses beyond %s:\n",
			r->caches[r->pairs_by - 1].name);
	else
		fprintf(f, "\nTop use -> reuse pairs:\n");
	if (!res->npairs && r->exact && r->sample_rate < 1)
		fprintf(f, "  (none: with --sample-rate the pairs are not kept)\n");
	else if (!res->npairs && r->exact && !r->lackey)
		fprintf(f, "  (none: this trace names no instructions; a lackey trace or --exact does)\n");
	else if (!res->npairs)
		fprintf(f, "  (none)\n");
	else if (r->exact && !r->run.syms)
		fprintf(f, "  (code not named: a trace file holds no mappings; --exact names it)\n");
	for (i = 0; i < res->npairs && i < r->out.top; i++) {
		const struct reuse_pair *p = &res->pairs[i];

		site(r, p->use_ip, a, sizeof(a));
		site(r, pair_reuse_ip(r, p), b, sizeof(b));
		analysis__object_label(&r->run, p->addr, o, sizeof(o));
		fprintf(f, "  #%d %" PRIu64 " reuses, %" PRIu64 " invalidations  (%s)\n", i + 1,
			p->reuses, p->invalidations, o);
		fprintf(f, "     use   %s\n     reuse %s\n", a, b);
		if (r->pair_dist)
			pair_distance(r, &r->pair_dist[i], p->reuses, f);
	}
	print_objects(r, f);
	if (!r->exact)
		fprintf(f, "\n# traps %" PRIu64 " (stale %" PRIu64 ", late %" PRIu64 ", the sampled access "
			"itself %" PRIu64 ", the use reported again %" PRIu64 "); samples without a free slot "
			"(reservoir kept the older watches) %" PRIu64 "\n", st->traps, st->traps_stale,
			st->traps_late, st->traps_use, st->traps_again, st->samples_dropped);
	if (r->predict)
		reuse_predict_report__print(r->predict, f);
}

/* ---- JSON ------------------------------------------------------------- */

/* Fractions of every reuse, the @nshort shorter than the resolution too. */
static void json_bins(struct json_writer *w, const char *key, const struct reuse_hist *h,
		      const struct reuse_hist_err *e, double nshort)
{
	double tot = reuse_hist__total(h, 0) + nshort;
	int k, hi = last_bin(h);

	json__arr_begin(w, key);
	for (k = first_bin(h); k <= hi; k++) {
		json__obj_begin(w, NULL);
		json__u64(w, "lo", reuse_hist__bin_lo(k));
		json__u64(w, "hi", reuse_hist__bin_max(k));
		json__double(w, "count", h->bin[k]);
		json__double(w, "fraction", frac(h->bin[k], tot));
		if (e) {
			json__u64(w, "detections", e->n[k]);
			json__u64(w, "capped", e->capped[k]);
			json__double(w, "stderr", reuse_hist_err__se(e, h, nshort, k));
		}
		json__obj_end(w);
	}
	json__arr_end(w);
}

static void json_reuse_time(struct json_writer *wp, const struct reuse_report *r)
{
	const struct reuse_result *res = r->res;
	char buf[2048];

	time_desc(r, buf, sizeof(buf));
	json__obj_begin(wp, "reuse_time");
	json__str(wp, "method", buf);
	json__str(wp, "time_source", r->exact ? "trace" : reuse_time_source_names[res->time_source]);
	json__str(wp, "rate_source", r->exact ? "trace" : reuse_rate_source_names[res->rate_source]);
	json__double(wp, "access_rate", res->access_rate);
	json__double(wp, "stride_rate", res->stride_rate);
	json__u64(wp, "stride_pairs", res->stats.rate_pairs);
	json__u64(wp, "local_rate_reuses", res->local_rate_reuses);
	json__u64(wp, "chained_reuses", res->chained_reuses);
	json__u64(wp, "access_weighted", res->access_weighted);
	json__str(wp, "weights", r->exact ? "none" : res->survival ? "survival" : "inverse-probability");
	json__u64(wp, "censored", res->censored);
	json__u64(wp, "footprint_window", res->window > 0 ? (u64)res->window : 0);
	json__double(wp, "trap_cost_ns", res->trap_cost_ns);
	json__u64(wp, "trap_cost_samples", res->trap_cost_samples);
	json__obj_end(wp);
}

static void json_resolution(struct json_writer *wp, const struct reuse_report *r)
{
	const struct reuse_resolution *rs = &r->res->resolution;
	u64 from = reuse_model__resolved_lines(r->res);
	char buf[1024];

	resolution_desc(r, buf, sizeof(buf));
	json__obj_begin(wp, "resolution");
	json__str(wp, "source", r->exact ? "trace" : reuse_res_source_names[rs->source]);
	json__str(wp, "method", buf);
	json__double(wp, "ns", rs->ns);
	json__double(wp, "accesses", rs->accesses);
	json__double(wp, "short_reuses", rs->short_reuses);
	json__u64(wp, "short_detections", rs->short_detections);
	json__double(wp, "short_fraction", frac(rs->short_reuses,
						 reuse_hist__total(&r->res->stack, 0) + rs->short_reuses));
	if (from == ~0ull)
		json__null(wp, "resolved_from_lines");
	else
		json__u64(wp, "resolved_from_lines", from);
	json__obj_end(wp);
}

static void json_threads(struct json_writer *wp, const struct reuse_report *r)
{
	const struct reuse_result *res = r->res;
	int i;

	json__arr_begin(wp, "per_thread");
	for (i = 0; i < res->nthreads; i++) {
		const struct reuse_thread *t = &res->threads[i];

		/*
		 * a thread number nothing ran as (the trace sampler numbers a
		 * trace's tids below 1024 as themselves: a lackey log's only
		 * thread is 1): left out, so that per_thread lines up with the
		 * exact engine's for `lociprof compare`
		 */
		if (!t->tid && !t->samples && !t->reuses && !t->invalidations && !t->cold &&
		    reuse_hist__total(&t->stack, REUSE_HIST_ALL) + t->short_reuses <= 0)
			continue;
		json__obj_begin(wp, NULL);
		json__u64(wp, "index", i);
		json__u64(wp, "tid", t->tid);
		json__u64(wp, "samples", t->samples);
		json__double(wp, "reuses", reuse_hist__total(&t->stack, 0) + t->short_reuses);
		json__double(wp, "invalidations", t->stack.inval);
		json__double(wp, "cold", t->stack.cold);
		json__obj_begin(wp, "detections");
		json__u64(wp, "reuses", t->reuses);
		json__u64(wp, "invalidations", t->invalidations);
		json__u64(wp, "cold", t->cold);
		json__obj_end(wp);
		json__u64(wp, "cross_thread", t->cross_thread);
		json__double(wp, "short_reuses", t->short_reuses);
		json_bins(wp, "bins", &t->stack, r->exact ? NULL : &t->stack_err, t->short_reuses);
		json_bins(wp, "time_bins", &t->time, r->exact ? NULL : &t->time_err, t->short_reuses);
		json__obj_end(wp);
	}
	json__arr_end(wp);
}

/*
 * The miss-ratio curve in lines: the exact engine's fine one (line
 * granularity), else the stack histogram's at powers of two; the number of
 * points, 0 without data.
 */
static int mrc_points(const struct reuse_report *r, struct reuse_mrc_point *pts, int max)
{
	double mrc[MRC_MAX_LOG2 + 1];
	struct reuse_hist lh;
	int i, k, n = 0;

	if (r->mrc) {
		/* up to twice the longest distance: the curve is flat beyond */
		for (k = REUSE_MRC_NBINS - 1; k > 0 && !r->mrc->bin[k]; k--)
			;
		n = reuse_mrc__curve(r->mrc, 2 * reuse_mrc__lo(k) + 1, pts, max);
		return n < 0 ? 0 : n;	/* a trace: exact */
	}
	reuse_model__line_hist(r->res, &lh);
	if (reuse_hist__total(&lh, REUSE_HIST_ALL) <= 0 || sdcm__mrc(&lh, 0, MRC_MAX_LOG2, mrc))
		return 0;
	for (i = 0; i <= MRC_MAX_LOG2 && n < max; i++)
		if (((u64)1 << i) >= reuse_model__resolved_lines(r->res))
			pts[n++] = (struct reuse_mrc_point){ .size = (u64)1 << i, .miss = 1 - mrc[i] };
	return n;
}

static void json_mrc(struct json_writer *wp, const struct reuse_report *r)
{
	struct reuse_mrc_point pts[REUSE_MRC_NBINS];
	int i, n = mrc_points(r, pts, REUSE_MRC_NBINS);

	json__str(wp, "mrc_source", r->mrc ? (r->sample_rate < 1 ? "SHARDS estimate" : "exact") :
		  "stack histogram at powers of two");
	json__arr_begin(wp, "mrc");
	for (i = 0; i < n; i++) {
		json__obj_begin(wp, NULL);
		json__u64(wp, "lines", pts[i].size);
		json__u64(wp, "bytes", pts[i].size * LP_CACHE_LINE);
		json__double(wp, "miss_ratio", pts[i].miss);
		json__obj_end(wp);
	}
	json__arr_end(wp);
}

static void json_hit_rates(struct json_writer *wp, const struct reuse_report *r)
{
	const struct reuse_result *res = r->res;
	double hit[REUSE_MAX_CACHES], hse[REUSE_MAX_CACHES], mrc[MRC_MAX_LOG2 + 1];
	u64 from = reuse_model__resolved_lines(res);
	struct reuse_hist lh;
	char why[1024];
	int i;

	json__str(wp, "cache_source", r->cache_source);
	json__str(wp, "hit_rate_note", line_note(res));
	json__arr_begin(wp, "hit_rates");
	if (r->ncaches) {
		reuse_model__hit_rates(r->res, r->caches, r->ncaches, hit);
		reuse_model__hit_se(r->res, r->caches, r->ncaches, hit, hse);
	}
	for (i = 0; i < r->ncaches; i++) {
		json__obj_begin(wp, NULL);
		json__str(wp, "name", r->caches[i].name);
		json__u64(wp, "level", r->caches[i].name[0] == 'L' ? strtoul(r->caches[i].name + 1, NULL, 10) : 0);
		json__u64(wp, "size", r->caches[i].size);
		json__u64(wp, "ways", r->caches[i].ways);
		if (reuse_model__resolved(res, &r->caches[i])) {
			json__bool(wp, "resolved", 1);
			json__double(wp, "hit", hit[i]);
			if (!r->exact && !isnan(hit[i]))
				json__double(wp, "hit_stderr", hse[i]);
		} else {
			json__bool(wp, "resolved", 0);
			json__null(wp, "hit");
			unresolved_desc(r, why, sizeof(why));
			json__str(wp, "reason", why);
		}
		json__obj_end(wp);
	}
	json__arr_end(wp);
	reuse_model__line_hist(res, &lh);
	json__arr_begin(wp, "miss_ratio_curve");
	if (reuse_hist__total(&lh, REUSE_HIST_ALL) > 0 && sdcm__mrc(&lh, 0, MRC_MAX_LOG2, mrc) == 0) {
		for (i = 0; i <= MRC_MAX_LOG2; i++) {
			if (((u64)1 << i) < from)
				continue;	/* not resolved */
			json__obj_begin(wp, NULL);
			json__u64(wp, "size", (u64)LP_CACHE_LINE << i);
			json__double(wp, "miss", 1 - mrc[i]);
			json__obj_end(wp);
		}
	}
	json__arr_end(wp);
}

static void json_pairs(struct json_writer *wp, const struct reuse_report *r)
{
	const struct reuse_result *res = r->res;
	char buf[2048], addr[32];
	int i;

	if (r->pairs_by > 0 && r->pairs_by <= r->ncaches)
		json__str(wp, "pairs_by", r->caches[r->pairs_by - 1].name);
	json__arr_begin(wp, "pairs");
	for (i = 0; i < res->npairs && i < r->out.top * 4; i++) {
		const struct reuse_pair *p = &res->pairs[i];
		struct lp_srcloc loc;

		json__obj_begin(wp, NULL);
		snprintf(addr, sizeof(addr), "%#" PRIx64, p->use_ip);
		json__str(wp, "use_ip", addr);
		snprintf(addr, sizeof(addr), "%#" PRIx64, pair_reuse_ip(r, p));
		json__str(wp, "reuse_ip", addr);
		site(r, p->use_ip, buf, sizeof(buf));
		json__str(wp, "use", buf);
		if (r->run.syms && symbols__code(r->run.syms, r->run.pid, p->use_ip, &loc) == 0) {
			json__str(wp, "use_file", loc.file);
			json__u64(wp, "use_line", loc.line);
		}
		site(r, pair_reuse_ip(r, p), buf, sizeof(buf));
		json__str(wp, "reuse", buf);
		if (r->run.syms && symbols__code(r->run.syms, r->run.pid, pair_reuse_ip(r, p), &loc) == 0) {
			json__str(wp, "reuse_file", loc.file);
			json__u64(wp, "reuse_line", loc.line);
		}
		analysis__object_label(&r->run, p->addr, buf, sizeof(buf));
		json__str(wp, "object", buf);
		json__u64(wp, "thread", p->thread);
		json__u64(wp, "reuses", p->reuses);
		json__u64(wp, "invalidations", p->invalidations);
		if (r->pair_dist && reuse_xpair_dist__median_bin(&r->pair_dist[i]) >= 0) {
			int k = reuse_xpair_dist__median_bin(&r->pair_dist[i]), j;

			json__u64(wp, "distance_median_lo", k ? reuse_hist__bin_lo(k) : 0);
			if (k < REUSE_XPAIR_BINS - 1)
				json__u64(wp, "distance_median_hi", k ? reuse_hist__bin_max(k) : 0);
			json__obj_begin(wp, "beyond");
			for (j = 0; j < r->pair_nlimit && j < r->ncaches; j++)
				json__u64(wp, r->caches[j].name, r->pair_dist[i].beyond[j]);
			json__obj_end(wp);
		}
		json__obj_end(wp);
	}
	json__arr_end(wp);
}

static void json_objects(struct json_writer *w, const struct reuse_report *r)
{
	int n, i, c, nc = objects_ncaches(r);
	const char *why;
	struct reuse_object *v = objects(r, &n, &why);

	if (!v) {
		json__null(w, "objects");
		json__str(w, "objects_unavailable", why);
		return;
	}
	/* what beyond{} counts: SDCM-weighted uses, or exact misses of accesses */
	json__str(w, "objects_beyond", r->exact ? "exact, fully associative LRU" : "SDCM");
	json__arr_begin(w, "objects");
	for (i = 0; i < n; i++) {
		const struct reuse_object *o = &v[i];

		json__obj_begin(w, NULL);
		analysis__json_object(&r->run, w, o->label, object_kinds[o->kind], o->start, o->size,
				      o->heap);
		json__u64(w, "detections", o->detections);
		json__double(w, "uses", o->uses);
		json__double(w, "cold", o->cold);
		json__double(w, "invalidations", o->inval);
		json__obj_begin(w, "beyond");	/* weight x P(miss) per cache */
		for (c = 0; c < nc; c++)
			json__double(w, r->caches[c].name, o->beyond[c]);
		json__obj_end(w);
		json__obj_end(w);
	}
	json__arr_end(w);
	free(v);
}

int reuse_report__json(const void *view, const char *path)
{
	const struct reuse_report *r = view;
	const struct reuse_result *res = r->res;
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
	struct json_writer w;
	int err;

	if (!f)
		return -errno;
	json__init(&w, f, JSON_PRETTY);
	json__obj_begin(&w, NULL);
	json__str(&w, "command", "reuse");
	json__str(&w, "mode", res->shared ? "shared" : "private");
	json__str(&w, "granularity", res->gran == REUSE_GRAN_LINE ? "line" : "address");
	json__str(&w, "metric", "stack");
	json__str(&w, "unit", gran_unit(res));
	json__str(&w, "sampler", r->run.sampler);
	if (r->exact && r->sample_rate < 1) {
		json__obj_begin(&w, "estimate");
		json__str(&w, "method", "SHARDS");
		json__double(&w, "sample_rate", r->sample_rate);
		json__u64(&w, "sampled_accesses", r->sampled);
		json__u64(&w, "sampled_keys", r->keys_sampled);
		json__double(&w, "keys_estimated", r->keys_est);
		json__u64(&w, "accesses", r->run.samples);
		if (r->hot_on) {
			json__u64(&w, "hot_keys", r->hot_keys);
			json__u64(&w, "hot_accesses", r->hot_accesses);
			json__u64(&w, "hot_first_access", r->hot_first);
			json__u64(&w, "hot_last_access", r->hot_last);
		}
		json__obj_end(&w);
	} else {
		json__null(&w, "estimate");
	}
	if (r->exact && r->lackey)
		json__str(&w, "trace_note", "valgrind lackey: threads serialized, read as one thread");
	json__u64(&w, "period", r->run.period);
	json__bool(&w, "period_aliases_lines", line_period_aliased(r));
	json__str(&w, "period_unit", r->run.period_unit);
	json__str(&w, "program", r->run.command);
	if (r->run.sync >= 0)
		json__str(&w, "arming", r->run.sync ? "sync" : "async");
	json_reuse_time(&w, r);
	json_resolution(&w, r);
	json_bins(&w, "bins", &res->stack, r->exact ? NULL : &res->stack_err,
		  res->resolution.short_reuses);
	json_bins(&w, "time_bins", &res->time, r->exact ? NULL : &res->time_err,
		  res->resolution.short_reuses);
	if (!r->exact && res->longest_reuse > 0) {
		json__obj_begin(&w, "unobserved");
		json__double(&w, "longest_reuse_accesses", res->longest_reuse);
		json__u64(&w, "replaced_beyond", res->replaced_beyond);
		json__double(&w, "oldest_replaced_accesses", res->oldest_replaced);
		json__obj_end(&w);
	}
	/*
	 * reuses (the short ones included), invalidations, cold: in the unit
	 * of the bins' counts (the estimate, detections weighted by
	 * 1 / P(observed); exact counts for a trace), so that they add up;
	 * the raw detections apart
	 */
	json__double(&w, "reuses", reuse_hist__total(&res->stack, 0) + res->resolution.short_reuses);
	json__double(&w, "invalidations", res->stack.inval);
	json__double(&w, "cold", res->stack.cold);
	json__obj_begin(&w, "detections");
	json__u64(&w, "reuses", res->reuses);
	json__u64(&w, "invalidations", res->invalidations);
	json__u64(&w, "cold", res->cold);
	json__obj_end(&w);
	json__u64(&w, "temporal", res->stats.temporal);
	json__u64(&w, "chunk", res->stats.chunk);
	json__u64(&w, "spatial", res->stats.spatial);
	json__u64(&w, "cross_thread", res->cross_thread);
	json__double(&w, "invalidation_fraction", inval_frac(res));
	json__u64(&w, "samples", r->run.samples);
	if (r->run.threads_unmonitored)
		json__u64(&w, "threads_unmonitored", r->run.threads_unmonitored);
	if (r->run.traps_dead)
		json__bool(&w, "watchpoints_fire", 0);
	json__u64(&w, "samples_with_address", r->run.samples_addr);
	json__u64(&w, "watches", res->stats.samples_used);
	json__u64(&w, "watches_replaced", res->stats.replaced);
	json__u64(&w, "traps", res->stats.traps);
	json__u64(&w, "traps_use_again", res->stats.traps_again);
	json__u64(&w, "cpu_ns", r->run.cpu_ns);
	json_threads(&w, r);
	json_hit_rates(&w, r);
	json_mrc(&w, r);
	json_pairs(&w, r);
	json_objects(&w, r);
	if (r->predict)
		reuse_predict_report__json(r->predict, &w);
	json__obj_end(&w);
	err = json__finish(&w);
	if (f != stdout && fclose(f) && !err)
		err = -errno;
	return err;
}

/* ---- SVG -------------------------------------------------------------- */

/*
 * Bars over the union of the bins of @hs, fractions of each one's reuses;
 * first, where some are, a bar of the reuses shorter than the resolution
 * (@nshort, one per histogram), labelled with it.
 */
static int svg_hists(const struct reuse_report *r, const char *path, const char *title,
		     const char *xt, const struct reuse_hist *const *hs, const double *nshort,
		     const char *const *names, int nh, const struct reuse_hist_err *e)
{
	struct svg_series ser[SVG_MAX_SERIES];
	char *labels[REUSE_HIST_NBINS + 1];
	double *y;
	int lo = REUSE_HIST_NBINS, hi = -1, k, i, n, err, sh = 0;
	struct svg_bars b;
	FILE *f;

	for (i = 0; i < nh; i++) {
		if (first_bin(hs[i]) < lo)
			lo = first_bin(hs[i]);
		if (last_bin(hs[i]) > hi)
			hi = last_bin(hs[i]);
		sh |= nshort[i] > 0;
	}
	if (hi < 0)
		lo = hi = 0;
	n = hi - lo + 1 + sh;
	y = calloc((size_t)(nh + 1) * n, sizeof(*y));	/* and the first one's errors */
	if (!y)
		return -ENOMEM;
	for (k = 0; k < n; k++) {
		char buf[48];

		if (sh && !k)
			short_label(r->res, buf, sizeof(buf));
		else
			bin_label(lo + k - sh, buf, sizeof(buf));
		labels[k] = strdup(buf);
	}
	for (i = 0; i < nh; i++) {
		double tot = reuse_hist__total(hs[i], 0) + nshort[i];

		for (k = 0; k < n; k++)
			y[i * n + k] = frac(sh && !k ? nshort[i] : hs[i]->bin[lo + k - sh], tot);
		ser[i].name = names[i];
		ser[i].y = y + i * n;
		ser[i].x = NULL;
		ser[i].n = n;
		ser[i].err = NULL;
	}
	if (e && nh == 1) {	/* a sampled histogram: its standard errors */
		for (k = 0; k < n; k++)
			y[nh * n + k] = reuse_hist_err__se(e, hs[0], nshort[0],
							   sh && !k ? REUSE_ERR_SHORT : lo + k - sh);
		ser[0].err = y + nh * n;
	}
	memset(&b, 0, sizeof(b));
	b.title = title;
	b.x_title = xt;
	b.y_title = "fraction of reuses";
	b.n = n;
	b.labels = (const char *const *)labels;
	b.nseries = nh;
	b.series = ser;
	f = fopen(path, "w");
	err = f ? svg__bars(f, &b) : -errno;
	if (f && fclose(f) && !err)
		err = -errno;
	for (k = 0; k < n; k++)
		free(labels[k]);
	free(y);
	return err;
}

int reuse_report__svg(const void *view, const char *dir)
{
	const struct reuse_report *r = view;
	const struct reuse_result *res = r->res;
	const struct reuse_hist *hs[SVG_MAX_SERIES];
	const char *names[SVG_MAX_SERIES];
	double nshort[SVG_MAX_SERIES];
	char path[4096], title[512], xt[160], nbuf[SVG_MAX_SERIES][24], rs[64];
	static struct reuse_mrc_point pts[REUSE_MRC_NBINS];
	static double x[REUSE_MRC_NBINS], y[REUSE_MRC_NBINS];
	struct svg_series s;
	struct svg_lines l;
	int err = analysis__make_dir(dir), i, n = 0;
	FILE *f;

	if (!err && r->predict)
		err = reuse_predict_report__svg(r->predict, dir);
	if (err)
		return err;
	if (r->exact || res->resolution.source == REUSE_RES_EXACT)
		snprintf(rs, sizeof(rs), "resolution exact");
	else if (res->resolution.source == REUSE_RES_UNKNOWN)
		snprintf(rs, sizeof(rs), "resolution UNKNOWN");
	else
		snprintf(rs, sizeof(rs), "resolution %.1f us, ~%.0f accesses",
			 res->resolution.ns / 1000, res->resolution.accesses);
	snprintf(xt, sizeof(xt), "stack reuse distance, %s (log2 bins)", gran_unit(res));
	snprintf(title, sizeof(title), "reuse distance (%s; %s): %s", res->shared ? "shared cache" : "private",
		 rs, r->run.command ? r->run.command : "");
	hs[0] = &res->stack;
	nshort[0] = res->resolution.short_reuses;
	names[0] = "all threads";
	snprintf(path, sizeof(path), "%s/reuse-histogram.svg", dir);
	err = svg_hists(r, path, title, xt, hs, nshort, names, 1, r->exact ? NULL : &res->stack_err);
	if (err)
		return err;
	for (i = 0; i < res->nthreads && n < SVG_MAX_SERIES; i++) {
		if (reuse_hist__total(&res->threads[i].stack, 0) <= 0)
			continue;
		snprintf(nbuf[n], sizeof(nbuf[n]), "T%d", i);
		names[n] = nbuf[n];
		nshort[n] = res->threads[i].short_reuses;
		hs[n++] = &res->threads[i].stack;
	}
	if (n) {
		snprintf(path, sizeof(path), "%s/reuse-threads.svg", dir);
		snprintf(title, sizeof(title), "reuse distance per thread (%s): %s", rs,
			 r->run.command ? r->run.command : "");
		err = svg_hists(r, path, title, xt, hs, nshort, names, n, NULL);
		if (err)
			return err;
	}
	hs[0] = &res->time;
	nshort[0] = res->resolution.short_reuses;
	names[0] = "all threads";
	snprintf(path, sizeof(path), "%s/reuse-time.svg", dir);
	snprintf(xt, sizeof(xt), "time reuse distance, accesses in between (log2 bins)");
	snprintf(title, sizeof(title), "time reuse distance (%s): %s", rs, r->run.command ? r->run.command : "");
	err = svg_hists(r, path, title, xt, hs, nshort, names, 1, r->exact ? NULL : &res->time_err);
	if (err)
		return err;
	n = mrc_points(r, pts, REUSE_MRC_NBINS);
	for (i = 0; i < n; i++) {
		x[i] = (double)(pts[i].size * LP_CACHE_LINE);
		y[i] = pts[i].miss;
	}
	memset(&s, 0, sizeof(s));
	s.name = "miss ratio";
	s.x = x;
	s.y = y;
	s.n = n;
	memset(&l, 0, sizeof(l));
	snprintf(title, sizeof(title), "miss-ratio curve, fully associative LRU%s (%s): %s",
		 r->exact && r->sample_rate < 1 ? " (SHARDS estimate)" : "", rs,
		 r->run.command ? r->run.command : "");
	l.title = title;
	l.x_title = "cache size (bytes)";
	l.y_title = "miss ratio";
	l.nseries = 1;
	l.series = &s;
	l.ymin = 0;
	l.ymax = 1;
	snprintf(path, sizeof(path), "%s/miss-ratio.svg", dir);
	if (!n)
		return 0;
	f = fopen(path, "w");
	err = f ? svg__lines(f, &l) : -errno;
	if (f && fclose(f) && !err)
		err = -errno;
	return err;
}
