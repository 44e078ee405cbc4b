/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `reuse --trace F --predict-threads N,.. --predict-cache SIZE,..`: the
 * shared-cache predictions of core/reuse-predict.c for each thread count
 * and model, their hit rates, and the printers (text, JSON, SVG).
 */
#ifndef LP_REUSE_PREDICT_REPORT_H
#define LP_REUSE_PREDICT_REPORT_H
#include <stdio.h>

#include "core/json.h"
#include "core/reuse-predict.h"
#include "core/sdcm.h"

#define PREDICT_MAX		16	/* thread counts, and cache sizes */
#define PREDICT_MAX_CACHES	8
#define PREDICT_MAX_STREAM	(1ull << 24)	/* accesses kept for PPT: 128 MiB */

/* The options, as parsed. */
struct reuse_predict_spec {
	int nthreads[PREDICT_MAX];
	int nn;
	const char *sizes;		/* --predict-cache, parsed at run time */
	double quantum;			/* --predict-quantum, 0: measured */
};

struct reuse_predict_row {
	int nthreads;
	enum reuse_predict_model model;
	int err;			/* -E2BIG: PPT without the streams */
	struct reuse_hist crd;
	double s;			/* similarity to the measured CRD, NAN: other N */
	double hit[PREDICT_MAX_CACHES];	/* --cache levels: private ones by PRD */
	double size_hit[PREDICT_MAX];	/* --predict-cache sizes, shared */
};

struct reuse_predict_report {
	int measured_threads;
	double mean_size;
	struct reuse_hist measured;	/* the trace's own CRD */
	double measured_hit[PREDICT_MAX_CACHES], measured_size_hit[PREDICT_MAX];
	double quantum[PREDICT_MAX];	/* per measured thread (first PREDICT_MAX) */
	u64 shared_data;		/* largest |S_i| */
	double forced_quantum;		/* --predict-quantum, 0: measured */
	const struct sdcm_cache *caches;	/* --cache; the last one is shared */
	int ncaches;
	struct sdcm_cache sizes[PREDICT_MAX];
	int nsizes;
	int nrows;
	struct reuse_predict_row *rows;
};

/* Option parsers (0, or -EINVAL after lp_err). */
int reuse_predict_spec__threads(struct reuse_predict_spec *sp, const char *arg);

/* Predict every row. 0, -EINVAL (a bad --predict-cache, said), -ENOMEM. */
int reuse_predict_report__build(struct reuse_predict_report *pr, const struct reuse_predict *rp,
				const struct reuse_predict_spec *sp, const struct sdcm_cache *caches,
				int ncaches, double mean_size);
void reuse_predict_report__free(struct reuse_predict_report *pr);

void reuse_predict_report__print(const struct reuse_predict_report *pr, FILE *f);
void reuse_predict_report__json(const struct reuse_predict_report *pr, struct json_writer *w);
int reuse_predict_report__svg(const struct reuse_predict_report *pr, const char *dir);

#endif
