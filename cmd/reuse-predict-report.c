// SPDX-License-Identifier: GPL-2.0
/*
 * Shared-cache predictions beside a trace's measured result: one row per
 * requested thread count and model (core/reuse-predict.c computes them),
 * printed as text, JSON and an SVG curve of hit rate vs thread count.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "cmd/reuse-predict-report.h"
#include "core/svg.h"

#define DEFAULT_WAYS	16	/* --predict-cache without ways nor --cache */

int reuse_predict_spec__threads(struct reuse_predict_spec *sp, const char *arg)
{
	const char *p = arg;

	sp->nn = 0;
	while (*p) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p || v < 1 || v > 4096 || (*end && *end != ',') || sp->nn == PREDICT_MAX) {
			lp_err("--predict-threads expects up to %d thread counts 1-4096 separated by commas, not '%s'",
			       PREDICT_MAX, arg);
			return -EINVAL;
		}
		sp->nthreads[sp->nn++] = (int)v;
		p = *end ? end + 1 : end;
	}
	if (!sp->nn) {
		lp_err("--predict-threads expects thread counts, not '%s'", arg);
		return -EINVAL;
	}
	return 0;
}

/* "8M,32M:16" into caches named by their size; ways default to the LLC's. */
static int parse_sizes(struct reuse_predict_report *pr, const char *arg, u32 ways)
{
	char spec[1024], err[256];
	const char *p = arg;
	size_t len = 0;
	int i = 0;

	while (*p) {
		size_t n = strcspn(p, ",");

		len += snprintf(spec + len, len < sizeof(spec) ? sizeof(spec) - len : 0,
				"%sP%d=%.*s", i ? "," : "", i, (int)n, p);
		if (!memchr(p, ':', n))
			len += snprintf(spec + len, len < sizeof(spec) ? sizeof(spec) - len : 0,
					":%u", ways);
		p += n + (p[n] == ',');
		i++;
	}
	if (len >= sizeof(spec) ||
	    sdcm__parse(spec, pr->sizes, PREDICT_MAX, &pr->nsizes, err, sizeof(err))) {
		lp_err("--predict-cache '%s': %s (expected SIZE[:WAYS],..)", arg,
		       len >= sizeof(spec) ? "too long" : err);
		return -EINVAL;
	}
	for (i = 0; i < pr->nsizes; i++)
		svg__bytes_label((double)pr->sizes[i].size, pr->sizes[i].name, SDCM_NAME_MAX);
	return 0;
}

/* The hit rates of one histogram: private levels by @prd, the last and the sizes by @crd. */
static void hit_rates(const struct reuse_predict_report *pr, const struct reuse_hist *prd,
		      const struct reuse_hist *crd, double *hit, double *size_hit)
{
	int i;

	for (i = 0; i < pr->ncaches; i++)
		reuse_predict__hit_rates(i == pr->ncaches - 1 ? crd : prd, pr->mean_size,
					 &pr->caches[i], 1, &hit[i]);
	reuse_predict__hit_rates(crd, pr->mean_size, pr->sizes, pr->nsizes, size_hit);
}

int reuse_predict_report__build(struct reuse_predict_report *pr, const struct reuse_predict *rp,
				const struct reuse_predict_spec *sp, const struct sdcm_cache *caches,
				int ncaches, double mean_size)
{
	struct reuse_predict_opts o = { .quantum = sp->quantum };
	struct reuse_hist prd;
	int i, m, err;

	memset(pr, 0, sizeof(*pr));
	pr->measured_threads = reuse_predict__nr_threads(rp);
	pr->mean_size = mean_size;
	pr->forced_quantum = sp->quantum;
	pr->caches = caches;
	pr->ncaches = ncaches < PREDICT_MAX_CACHES ? ncaches : PREDICT_MAX_CACHES;
	if (sp->sizes && parse_sizes(pr, sp->sizes, ncaches ? caches[ncaches - 1].ways : DEFAULT_WAYS))
		return -EINVAL;
	for (i = 0; i < pr->measured_threads; i++) {
		const struct reuse_predict_thread *t = reuse_predict__thread(rp, i);

		if (i < PREDICT_MAX)
			pr->quantum[i] = reuse_predict__quantum(rp, i, &o);
		if (t->shared > pr->shared_data)
			pr->shared_data = t->shared;
	}
	err = reuse_predict__measured(rp, &pr->measured);
	if (!err)
		err = reuse_predict__prd(rp, pr->measured_threads, &prd);
	if (err)
		return err;
	hit_rates(pr, &prd, &pr->measured, pr->measured_hit, pr->measured_size_hit);
	pr->rows = calloc((size_t)sp->nn * REUSE_PREDICT_NMODELS, sizeof(*pr->rows));
	if (!pr->rows)
		return -ENOMEM;
	for (i = 0; i < sp->nn; i++)
		for (m = 0; m < REUSE_PREDICT_NMODELS; m++) {
			struct reuse_predict_row *row = &pr->rows[pr->nrows++];

			o.nthreads = row->nthreads = sp->nthreads[i];
			row->model = m;
			row->s = NAN;
			row->err = reuse_predict__crd(rp, m, &o, &row->crd);
			if (row->err == -E2BIG)
				continue;
			if (row->err)
				return row->err;
			if (row->nthreads == pr->measured_threads &&
			    reuse_hist__similarity(&pr->measured, &row->crd, REUSE_HIST_COLD, &row->s))
				row->s = NAN;
			err = reuse_predict__prd(rp, row->nthreads, &prd);
			if (err)
				return err;
			hit_rates(pr, &prd, &row->crd, row->hit, row->size_hit);
		}
	return 0;
}

void reuse_predict_report__free(struct reuse_predict_report *pr)
{
	free(pr->rows);
	pr->rows = NULL;
	pr->nrows = 0;
}

/* ---- text ------------------------------------------------------------- */

static void print_rate(FILE *f, double hit)
{
	if (isnan(hit))
		fprintf(f, "  %6s ", "-");
	else
		fprintf(f, "  %5.1f%% ", 100 * hit);
}

static void print_rates(FILE *f, const struct reuse_predict_report *pr, const double *hit,
			const double *size_hit)
{
	int i;

	for (i = 0; i < pr->ncaches; i++)
		print_rate(f, hit[i]);
	for (i = 0; i < pr->nsizes; i++)
		print_rate(f, size_hit[i]);
	fputc('\n', f);
}

static void print_row(FILE *f, const struct reuse_predict_report *pr, const char *who,
		      const char *model, const struct reuse_hist *h, double s,
		      const double *hit, const double *size_hit)
{
	char sbuf[16] = "     -";

	if (!isnan(s))
		snprintf(sbuf, sizeof(sbuf), "%6.3f", s);
	fprintf(f, "  %-9s %-8s %12.0f %10.0f %10.0f %s", who, model, reuse_hist__total(h, 0),
		reuse_predict__quantile(h, 0.5), reuse_predict__quantile(h, 0.9), sbuf);
	print_rates(f, pr, hit, size_hit);
}

void reuse_predict_report__print(const struct reuse_predict_report *pr, FILE *f)
{
	char who[32];
	int i;

	fprintf(f, "\nShared cache predicted from each thread's own profile (--predict-threads):\n");
	fprintf(f, "  assumptions: threads beyond the %d measured behave like them (thread x as\n"
		"  measured thread x mod %d); private data is per thread; ", pr->measured_threads,
		pr->measured_threads);
	if (pr->shared_data)
		fprintf(f, "the %llu data two threads\n  or more touch are one shared pool.\n",
			(unsigned long long)pr->shared_data);
	else
		fprintf(f, "no data is shared.\n");
	if (pr->forced_quantum > 0)
		fprintf(f, "  interleaving: turns of %g accesses (--predict-quantum).\n",
			pr->forced_quantum);
	else if (pr->measured_threads == 1)
		fprintf(f, "  interleaving: turns of 1 access (one thread shows none).\n");
	else
		fprintf(f, "  interleaving: as measured in the trace (turns of %.0f accesses on average).\n",
			pr->quantum[0]);
	fprintf(f, "  jiang: Jiang et al. 2010, co-runners' footprints over that interleaving, Part\n"
		"  II for shared data; ppt: PPT-Multicore, the threads' streams replicated and\n"
		"  interleaved round-robin in those turns, measured exactly. Private levels use\n"
		"  the threads' own (PRD) histograms, the last --cache level and --predict-cache\n"
		"  sizes the shared (CRD) one.\n");
	fprintf(f, "  %-9s %-8s %12s %10s %10s %6s", "threads", "model", "reuses", "median", "p90", "S");
	for (i = 0; i < pr->ncaches; i++)
		fprintf(f, "  %6s%s", pr->caches[i].name, i == pr->ncaches - 1 ? "*" : " ");
	for (i = 0; i < pr->nsizes; i++)
		fprintf(f, "  %6s*", pr->sizes[i].name);
	fputc('\n', f);
	snprintf(who, sizeof(who), "%d", pr->measured_threads);
	print_row(f, pr, who, "measured", &pr->measured, NAN, pr->measured_hit, pr->measured_size_hit);
	for (i = 0; i < pr->nrows; i++) {
		const struct reuse_predict_row *r = &pr->rows[i];

		snprintf(who, sizeof(who), "%d", r->nthreads);
		if (r->err) {
			fprintf(f, "  %-9s %-8s (not computed: the trace is longer than the streams kept)\n",
				who, reuse_predict_model_names[r->model]);
			continue;
		}
		print_row(f, pr, who, reuse_predict_model_names[r->model], &r->crd, r->s, r->hit,
			  r->size_hit);
	}
	fprintf(f, "  (median, p90: concurrent reuse distance; S: similarity to the measured\n"
		"  histogram, at the measured thread count; *: shared, SDCM hit rates)\n");
}

/* ---- JSON ------------------------------------------------------------- */

static void json_rates(struct json_writer *w, const struct reuse_predict_report *pr,
		       const double *hit, const double *size_hit)
{
	int i;

	json__arr_begin(w, "hit_rates");
	for (i = 0; i < pr->ncaches; i++) {
		json__obj_begin(w, NULL);
		json__str(w, "name", pr->caches[i].name);
		json__u64(w, "size", pr->caches[i].size);
		json__str(w, "profile", i == pr->ncaches - 1 ? "shared" : "private");
		json__double(w, "hit", hit[i]);
		json__obj_end(w);
	}
	for (i = 0; i < pr->nsizes; i++) {
		json__obj_begin(w, NULL);
		json__str(w, "name", pr->sizes[i].name);
		json__u64(w, "size", pr->sizes[i].size);
		json__u64(w, "ways", pr->sizes[i].ways);
		json__str(w, "profile", "shared");
		json__double(w, "hit", size_hit[i]);
		json__obj_end(w);
	}
	json__arr_end(w);
}

static void json_hist(struct json_writer *w, const struct reuse_hist *h)
{
	int k;

	json__double(w, "reuses", reuse_hist__total(h, 0));
	json__double(w, "cold", h->cold);
	json__double(w, "median", reuse_predict__quantile(h, 0.5));
	json__double(w, "p90", reuse_predict__quantile(h, 0.9));
	json__arr_begin(w, "bins");
	for (k = 0; k < REUSE_HIST_NBINS; k++) {
		if (!(h->bin[k] > 0))
			continue;
		json__obj_begin(w, NULL);
		json__u64(w, "lo", reuse_hist__bin_lo(k));
		json__u64(w, "hi", reuse_hist__bin_max(k));
		json__double(w, "count", h->bin[k]);
		json__obj_end(w);
	}
	json__arr_end(w);
}

void reuse_predict_report__json(const struct reuse_predict_report *pr, struct json_writer *w)
{
	int i;

	json__obj_begin(w, "predict_measured");
	json__u64(w, "threads", pr->measured_threads);
	json__u64(w, "shared_data", pr->shared_data);
	json__double(w, "quantum", pr->quantum[0]);
	json_hist(w, &pr->measured);
	json_rates(w, pr, pr->measured_hit, pr->measured_size_hit);
	json__obj_end(w);
	json__arr_begin(w, "predict");
	for (i = 0; i < pr->nrows; i++) {
		const struct reuse_predict_row *r = &pr->rows[i];

		json__obj_begin(w, NULL);
		json__u64(w, "threads", r->nthreads);
		json__str(w, "model", reuse_predict_model_names[r->model]);
		json__str(w, "assumes", r->model == REUSE_PREDICT_JIANG ?
			  "homogeneous threads; co-runner footprints over the measured interleaving; "
			  "shared data one pool touched at random (Part II)" :
			  "homogeneous threads; streams replicated, private data offset per copy; "
			  "round-robin turns of the measured mean run");
		if (r->err) {
			json__str(w, "error", "trace longer than the streams kept");
			json__obj_end(w);
			continue;
		}
		if (!isnan(r->s))
			json__double(w, "similarity", r->s);
		json_hist(w, &r->crd);
		json_rates(w, pr, r->hit, r->size_hit);
		json__obj_end(w);
	}
	json__arr_end(w);
}

/* ---- SVG -------------------------------------------------------------- */

/* Shared-cache hit rate vs thread count, one line per model and shared cache. */
int reuse_predict_report__svg(const struct reuse_predict_report *pr, const char *dir)
{
	struct svg_series ser[SVG_MAX_SERIES];
	char names[SVG_MAX_SERIES][48], path[4096];
	double x[SVG_MAX_SERIES][PREDICT_MAX], y[SVG_MAX_SERIES][PREDICT_MAX];
	int ncache = pr->nsizes + (pr->ncaches > 0), ns = 0, m, c, i, err;
	struct svg_lines l;
	FILE *f;

	for (m = 0; m < REUSE_PREDICT_NMODELS; m++)
		for (c = 0; c < ncache && ns < SVG_MAX_SERIES; c++, ns++) {
			int last = pr->ncaches > 0 && c == 0;
			const char *name = last ? pr->caches[pr->ncaches - 1].name :
					   pr->sizes[c - (pr->ncaches > 0)].name;

			snprintf(names[ns], sizeof(names[ns]), "%s %s", reuse_predict_model_names[m], name);
			ser[ns].name = names[ns];
			ser[ns].x = x[ns];
			ser[ns].y = y[ns];
			ser[ns].n = 0;
			ser[ns].err = NULL;
			for (i = 0; i < pr->nrows; i++) {
				const struct reuse_predict_row *r = &pr->rows[i];

				if (r->model != (enum reuse_predict_model)m || r->err)
					continue;
				x[ns][ser[ns].n] = r->nthreads;
				y[ns][ser[ns].n++] = last ? r->hit[pr->ncaches - 1] :
						     r->size_hit[c - (pr->ncaches > 0)];
			}
		}
	if (!ns)
		return 0;
	memset(&l, 0, sizeof(l));
	l.title = "predicted shared-cache hit rate vs threads (SDCM)";
	l.x_title = "threads";
	l.y_title = "hit rate";
	l.nseries = ns;
	l.series = ser;
	l.ymin = 0;
	l.ymax = 1;
	snprintf(path, sizeof(path), "%s/reuse-predict.svg", dir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	err = svg__lines(f, &l);
	if (fclose(f) && !err)
		err = -errno;
	return err;
}
