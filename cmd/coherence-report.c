// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/coherence-report.h"
#include "core/json.h"

#define ALL "all coherence misses"	/* what the matrices' percentages are of */
#define UNIT "coherence misses (cache-line transfers from the last writer), each counted once"

int coherence_report__init(struct coherence_report *r, const struct coherence_result *res,
			   const struct lp_output *out)
{
	struct comdetect_result *cd = &r->cd;
	size_t n = (size_t)res->nthreads, nn = n * n, i, j;
	int k, t;

	r->res = res;
	r->mat = calloc(4 * (nn ? nn : 1), sizeof(double));
	r->lines = calloc(res->nlines ? res->nlines : 1, sizeof(*r->lines));
	r->accesses = calloc(n ? n : 1, sizeof(u64));
	if (!r->mat || !r->lines || !r->accesses)
		return -ENOMEM;
	/* symmetrized as comdetect's: cell(i,j) = count(i -> j) + count(j -> i) */
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			r->mat[i * n + j] = (double)(res->miss_all[i * n + j] + res->miss_all[j * n + i]);
			r->mat[nn + i * n + j] = (double)(res->miss_true[i * n + j] +
							  res->miss_true[j * n + i]);
			r->mat[2 * nn + i * n + j] = (double)(res->miss_false[i * n + j] +
							      res->miss_false[j * n + i]);
			r->mat[3 * nn + i * n + j] = (double)res->inval[i * n + j];
		}
	for (i = 0; i < n; i++)
		r->accesses[i] = res->threads[i].accesses;
	for (k = 0; k < res->nlines; k++) {
		const struct coherence_line *l = &res->lines[k];
		struct comdetect_line *o = &r->lines[k];

		o->line = l->line;
		o->vol_true = (double)l->true_sharing;
		o->vol_false = (double)l->false_sharing;
		o->detections = l->misses;
		o->ntouches = l->ntouches;
		o->touches_dropped = l->touches_dropped;
		for (t = 0; t < l->ntouches; t++)
			o->touches[t] = (struct comdetect_touch){
				.thread = l->touches[t].thread, .off = l->touches[t].off,
				.len = l->touches[t].len, .src = COMDETECT_SRC_SAMPLE,
				.kind = l->touches[t].store ? LP_ACCESS_STORE : LP_ACCESS_LOAD,
				.count = l->touches[t].count };
	}
	memset(cd, 0, sizeof(*cd));
	cd->nthreads = res->nthreads;
	cd->tids = res->tids;
	cd->thread_samples = r->accesses;
	cd->all = r->mat;
	cd->true_sharing = r->mat + nn;
	cd->false_sharing = r->mat + 2 * nn;
	cd->total_all = (double)res->total.misses;
	cd->total_true = (double)res->total.true_sharing;
	cd->total_false = (double)res->total.false_sharing;
	cd->detections = res->total.misses;
	cd->nlines = res->nlines;
	cd->lines = r->lines;
	memset(&r->view, 0, sizeof(r->view));
	r->view.res = cd;
	r->view.out = *out;
	r->view.volume_unit = UNIT;
	r->view.run = (struct lp_run){ .sampler = "mesi", .period_unit = "accesses", .period = 1,
				       .command = r->trace, .samples = res->total.accesses,
				       .samples_addr = res->total.accesses, .sync = -1 };
	return 0;
}

void coherence_report__exit(struct coherence_report *r)
{
	free(r->mat);
	free(r->lines);
	free(r->accesses);
	r->mat = NULL;
	r->lines = NULL;
	r->accesses = NULL;
}

static double pct(u64 v, u64 total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

/* The references (indices into res->refs) by invalidations caused, desc. */
static const struct coherence_result *sort_res;

static int by_inval(const void *a, const void *b)
{
	const struct coherence_ref *x = &sort_res->refs[*(const int *)a];
	const struct coherence_ref *y = &sort_res->refs[*(const int *)b];

	if (x->invalidations != y->invalidations)
		return x->invalidations < y->invalidations ? 1 : -1;
	return *(const int *)a - *(const int *)b;
}

static void print_ref(FILE *f, const struct coherence_result *res, int rank,
		      const struct coherence_ref *p)
{
	fprintf(f, "  %3d  T%-4u %-5s %#-16" PRIx64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64
		" %12" PRIu64 "\n", rank, p->thread, p->store ? "store" : "load", p->addr,
		p->misses, p->true_sharing, p->false_sharing, p->invalidations);
	(void)res;
}

static void print_refs(const struct coherence_report *r, FILE *f)
{
	const struct coherence_result *res = r->res;
	int top = r->view.out.top, i, n = 0, *idx;
	static const char head[] = "  %3s  %-5s %-5s %-16s %10s %10s %10s %12s\n";

	fprintf(f, "\nTop references (thread, access, address) by coherence misses:\n");
	fprintf(f, head, "#", "thr", "op", "address", "misses", "true", "false", "invalidations");
	for (i = 0; i < res->nrefs && i < top && res->refs[i].misses; i++, n++)
		print_ref(f, res, i + 1, &res->refs[i]);
	if (!n)
		fprintf(f, "  (none)\n");
	idx = malloc((res->nrefs ? res->nrefs : 1) * sizeof(*idx));
	if (!idx)
		return;
	for (i = 0; i < res->nrefs; i++)
		idx[i] = i;
	sort_res = res;
	qsort(idx, res->nrefs, sizeof(*idx), by_inval);
	fprintf(f, "\nTop references by invalidations caused:\n");
	fprintf(f, head, "#", "thr", "op", "address", "misses", "true", "false", "invalidations");
	for (i = n = 0; i < res->nrefs && i < top && res->refs[idx[i]].invalidations; i++, n++)
		print_ref(f, res, i + 1, &res->refs[idx[i]]);
	if (!n)
		fprintf(f, "  (none)\n");
	free(idx);
}

void coherence_report__print(const struct coherence_report *r, FILE *f)
{
	const struct coherence_result *res = r->res;
	const struct coherence_counts *t = &res->total;
	size_t nn = (size_t)res->nthreads * res->nthreads;
	int i, k, nlines = res->nlines < r->view.out.top ? res->nlines : r->view.out.top;

	fprintf(f, "# lociprof coherence: %s\n", r->trace);
	fprintf(f, "# MESI simulation of every access: %" PRIu64 " accesses (%" PRIu64 " loads, %"
		PRIu64 " stores), %d threads\n", t->accesses, t->loads, t->stores, res->nthreads);
	fprintf(f, "# private caches: %s; %u-byte lines\n", r->cache, r->line_size);

	fprintf(f, "\nTotals (unit: %s):\n", UNIT);
	fprintf(f, "  %-6s %14" PRIu64 "  %5.1f%%\n", "all", t->misses, 100.0 * (t->misses > 0));
	fprintf(f, "  %-6s %14" PRIu64 "  %5.1f%%\n", "true", t->true_sharing,
		pct(t->true_sharing, t->misses));
	fprintf(f, "  %-6s %14" PRIu64 "  %5.1f%%\n", "false", t->false_sharing,
		pct(t->false_sharing, t->misses));
	fprintf(f, "  by loads %" PRIu64 ", by stores %" PRIu64 "; invalidations %" PRIu64
		" (%" PRIu64 " stores were upgrades of a shared copy)\n", t->load_misses,
		t->store_misses, t->invalidations, t->upgrades);
	fprintf(f, "  other misses: cold %" PRIu64 ", capacity %" PRIu64 "; hits %" PRIu64
		" (%.1f%% of accesses)\n", t->cold, t->capacity, t->hits, pct(t->hits, t->accesses));

	comdetect_report__matrix(&r->view, f, "Thread matrix, all", ALL, r->cd.all, res->nthreads,
				 "T", r->cd.total_all);
	if (t->true_sharing && t->false_sharing) {
		comdetect_report__matrix(&r->view, f, "Thread matrix, true sharing", ALL,
					 r->cd.true_sharing, res->nthreads, "T", r->cd.total_all);
		comdetect_report__matrix(&r->view, f, "Thread matrix, false sharing", ALL,
					 r->cd.false_sharing, res->nthreads, "T", r->cd.total_all);
	}
	fprintf(f, "\n(the thread matrices are symmetrized as comdetect's: a cell sums both\n"
		"directions, so all cells add up to twice the total)\n");
	comdetect_report__matrix(&r->view, f, "Invalidations, row: the storing thread, column: "
				 "the one invalidated", "all invalidations", r->mat + 3 * nn,
				 res->nthreads, "T", (double)t->invalidations);

	fprintf(f, "\nThreads:");
	for (i = 0; i < res->nthreads; i++)
		fprintf(f, " T%d=tid %u", i, res->tids[i]);
	fputc('\n', f);

	fprintf(f, "\nTop cache lines by coherence misses:\n");
	if (!nlines)
		fprintf(f, "  (none)\n");
	for (i = 0; i < nlines; i++) {
		const struct coherence_line *l = &res->lines[i];

		fprintf(f, "\n  #%d line %#" PRIx64 "\n", i + 1, l->line);
		fprintf(f, "     %.1f%% of all: true %.1f%%, false %.1f%%; %" PRIu64 " misses, %"
			PRIu64 " invalidations\n", pct(l->misses, t->misses),
			pct(l->true_sharing, t->misses), pct(l->false_sharing, t->misses), l->misses,
			l->invalidations);
		if (l->ntouches)
			fprintf(f, "     %-9s %-7s %-7s %s\n", "offset", "thread", "access",
				"misses");
		for (k = 0; k < l->ntouches; k++)
			fprintf(f, "     0x%02x-0x%02x T%-6u %-7s %" PRIu64 "\n", l->touches[k].off,
				l->touches[k].off + l->touches[k].len - 1, l->touches[k].thread,
				l->touches[k].store ? "store" : "load", l->touches[k].count);
		if (l->touches_dropped)
			fprintf(f, "     (%" PRIu64 " misses of other access patterns)\n",
				l->touches_dropped);
	}
	print_refs(r, f);
}

static void json_counts(struct json_writer *w, const char *key, const struct coherence_counts *c)
{
	json__obj_begin(w, key);
	json__u64(w, "accesses", c->accesses);
	json__u64(w, "loads", c->loads);
	json__u64(w, "stores", c->stores);
	json__u64(w, "hits", c->hits);
	json__u64(w, "upgrades", c->upgrades);
	json__u64(w, "cold", c->cold);
	json__u64(w, "capacity", c->capacity);
	json__u64(w, "coherence_misses", c->misses);
	json__u64(w, "load_misses", c->load_misses);
	json__u64(w, "store_misses", c->store_misses);
	json__u64(w, "true", c->true_sharing);
	json__u64(w, "false", c->false_sharing);
	json__u64(w, "invalidations", c->invalidations);
	json__u64(w, "writebacks", c->writebacks);
	json__obj_end(w);
}

static void json_directed(struct json_writer *w, const char *key, const u64 *m, int n)
{
	int i, j;

	json__arr_begin(w, key);
	for (i = 0; i < n; i++) {
		json__arr_begin(w, NULL);
		for (j = 0; j < n; j++)
			json__u64(w, NULL, m[i * n + j]);
		json__arr_end(w);
	}
	json__arr_end(w);
}

/* The simulator's own keys, after comdetect's. */
static void json_extra(struct json_writer *w, const void *arg)
{
	const struct coherence_report *r = arg;
	const struct coherence_result *res = r->res;
	char addr[32];
	int i;

	json__obj_begin(w, "coherence");
	json__str(w, "model", "MESI, private caches, directory; Marathe, Mueller, de Supinski 2005");
	json__str(w, "caches", r->cache);
	json__u64(w, "line_size", r->line_size);
	json_counts(w, "totals", &res->total);
	json__arr_begin(w, "threads");
	for (i = 0; i < res->nthreads; i++)
		json_counts(w, NULL, &res->threads[i]);
	json__arr_end(w);
	/* not symmetrized: [from][to], from = the last writer (misses), the storing thread (inv.) */
	json__obj_begin(w, "directed");
	json_directed(w, "all", res->miss_all, res->nthreads);
	json_directed(w, "true", res->miss_true, res->nthreads);
	json_directed(w, "false", res->miss_false, res->nthreads);
	json_directed(w, "invalidations", res->inval, res->nthreads);
	json__obj_end(w);
	json__arr_begin(w, "lines");
	for (i = 0; i < res->nlines && i < r->view.out.top * 4; i++) {
		json__obj_begin(w, NULL);
		snprintf(addr, sizeof(addr), "%#" PRIx64, res->lines[i].line);
		json__str(w, "address", addr);
		json__u64(w, "misses", res->lines[i].misses);
		json__u64(w, "true", res->lines[i].true_sharing);
		json__u64(w, "false", res->lines[i].false_sharing);
		json__u64(w, "invalidations", res->lines[i].invalidations);
		json__obj_end(w);
	}
	json__arr_end(w);
	json__arr_begin(w, "references");
	for (i = 0; i < res->nrefs; i++) {
		const struct coherence_ref *p = &res->refs[i];

		json__obj_begin(w, NULL);
		json__u64(w, "thread", p->thread);
		json__str(w, "access", p->store ? "store" : "load");
		snprintf(addr, sizeof(addr), "%#" PRIx64, p->addr);
		json__str(w, "address", addr);
		json__u64(w, "misses", p->misses);
		json__u64(w, "true", p->true_sharing);
		json__u64(w, "false", p->false_sharing);
		json__u64(w, "invalidations", p->invalidations);
		json__obj_end(w);
	}
	json__arr_end(w);
	json__obj_end(w);
}

int coherence_report__json(const struct coherence_report *r, const char *path)
{
	return comdetect_report__json_as(&r->view, "coherence", json_extra, r, path);
}
