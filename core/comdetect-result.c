// SPDX-License-Identifier: GPL-2.0
/*
 * comdetect's result: the sparse pair volumes symmetrized into thread and
 * core matrices (true, false, all), the lines ranked by volume.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/comdetect-internal.h"

/* ---- results ---------------------------------------------------------- */

void cd_result_free(struct comdetect *cd)
{
	free(cd->r_tids);
	free(cd->r_samples);
	free(cd->r_mat);
	free(cd->r_core);
	free(cd->r_lines);
	free(cd->r_pairs);
	cd->r_pairs = NULL;
	cd->r_tids = NULL;
	cd->r_samples = NULL;
	cd->r_mat = cd->r_core = NULL;
	cd->r_lines = NULL;
}

/* sym[a][b] = sym[b][a] = raw[a][b] + raw[b][a] (Sasongko 2022: sum of both) */
static void cd_symmetrize(const struct cd_pairs *p, u32 n, double *all,
			  double *tr, double *fs, double *tot_t, double *tot_f)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		const struct cd_pair *q = &p->v[i];
		u32 a = q->a, b = q->b;

		if (a >= n || b >= n)
			continue;
		tr[(size_t)a * n + b] += q->vt;
		tr[(size_t)b * n + a] += q->vt;
		fs[(size_t)a * n + b] += q->vf;
		fs[(size_t)b * n + a] += q->vf;
		*tot_t += q->vt;
		*tot_f += q->vf;
	}
	for (i = 0; i < (size_t)n * n; i++)
		all[i] = tr[i] + fs[i];
}

static int cd_pairvol_cmp(const void *pa, const void *pb)
{
	const struct comdetect_pair_vol *a = pa, *b = pb;
	double va = a->vt + a->vf, vb = b->vt + b->vf;

	if (va != vb)
		return va < vb ? 1 : -1;
	return a->a != b->a ? (a->a < b->a ? -1 : 1) : (a->b < b->b ? -1 : a->b > b->b);
}

/* The pairs, both directions summed, largest first; *n of them. NULL: -ENOMEM. */
static struct comdetect_pair_vol *cd_pair_vols(const struct cd_pairs *p, int *n)
{
	struct comdetect_pair_vol *v = calloc(p->n ? p->n : 1, sizeof(*v));
	struct lp_map at = { 0 };
	size_t i;
	int k = 0;

	if (!v)
		return NULL;
	for (i = 0; i < p->n; i++) {
		const struct cd_pair *q = &p->v[i];
		u32 a = q->a < q->b ? q->a : q->b, b = q->a < q->b ? q->b : q->a;
		u64 *slot = lp_map__slot(&at, (u64)a << 32 | b);

		if (!slot) {
			free(v);
			lp_map__exit(&at);
			return NULL;
		}
		if (!*slot) {
			v[k] = (struct comdetect_pair_vol){ a, b, 0, 0 };
			*slot = ++k;
		}
		v[*slot - 1].vt += q->vt;
		v[*slot - 1].vf += q->vf;
	}
	lp_map__exit(&at);
	qsort(v, k, sizeof(*v), cd_pairvol_cmp);
	*n = k;
	return v;
}

static int cd_line_cmp(const void *pa, const void *pb)
{
	const struct comdetect_line *a = pa, *b = pb;
	double va = a->vol_true + a->vol_false, vb = b->vol_true + b->vol_false;

	if (va != vb)
		return va < vb ? 1 : -1;
	return a->line < b->line ? -1 : a->line > b->line;
}

const struct comdetect_result *comdetect__result(struct comdetect *cd)
{
	struct comdetect_result *r = &cd->res;
	u32 n = cd->nthr, c = cd->ncpus, i;
	size_t nn = (size_t)n * n, cc = (size_t)c * c;
	double ct = 0, cf = 0;
	int k;

	cd_result_free(cd);
	memset(r, 0, sizeof(*r));
	cd->r_tids = calloc(n ? n : 1, sizeof(u32));
	cd->r_samples = calloc(n ? n : 1, sizeof(u64));
	/* a dense matrix per kind only where it fits: the pairs always do */
	cd->r_mat = n <= COMDETECT_DENSE_MAX ? calloc(nn ? 3 * nn : 1, sizeof(double)) : NULL;
	cd->r_pairs = cd_pair_vols(&cd->tpairs, &r->npairs);
	cd->r_core = calloc(cc ? 3 * cc : 1, sizeof(double));
	cd->r_lines = calloc(cd->cfg.max_lines, sizeof(struct comdetect_line));
	if (!cd->r_tids || !cd->r_samples || (n <= COMDETECT_DENSE_MAX && !cd->r_mat) ||
	    !cd->r_pairs || !cd->r_core || !cd->r_lines) {
		cd_result_free(cd);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		cd->r_tids[i] = cd->thr[i].started ? cd->thr[i].tid : 0;
		cd->r_samples[i] = cd->thr[i].nsamples;
	}
	r->nthreads = n;
	r->tids = cd->r_tids;
	r->thread_samples = cd->r_samples;
	r->pairs = cd->r_pairs;
	if (cd->r_mat) {
		r->all = cd->r_mat;
		r->true_sharing = cd->r_mat + nn;
		r->false_sharing = cd->r_mat + 2 * nn;
		cd_symmetrize(&cd->tpairs, n, cd->r_mat, cd->r_mat + nn,
			      cd->r_mat + 2 * nn, &r->total_true, &r->total_false);
	} else {
		for (k = 0; k < (int)cd->tpairs.n; k++) {	/* totals in the same order */
			r->total_true += cd->tpairs.v[k].vt;
			r->total_false += cd->tpairs.v[k].vf;
		}
	}
	r->total_all = r->total_true + r->total_false;

	r->ncpus = c;
	r->core_all = cd->r_core;
	r->core_true = cd->r_core + cc;
	r->core_false = cd->r_core + 2 * cc;
	cd_symmetrize(&cd->cpairs, c, cd->r_core, cd->r_core + cc,
		      cd->r_core + 2 * cc, &ct, &cf);
	r->same_cpu_volume = cd->same_cpu_volume;

	for (k = 0; k < cd->cfg.max_lines; k++)
		if (cd->lines[k].used)
			cd->r_lines[r->nlines++] = cd->lines[k].l;
	qsort(cd->r_lines, r->nlines, sizeof(*cd->r_lines), cd_line_cmp);
	r->lines = cd->r_lines;

	r->stats = cd->st;
	r->detections = cd->st.hits + cd->st.trap_hits;
	return r;
}

