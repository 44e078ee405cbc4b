// SPDX-License-Identifier: GPL-2.0
/*
 * pesbench output: text tables (one per experiment plus the qualitative
 * table), the side-by-side comparison of several results (machines), and
 * the SVG figures (Sasongko 2022, Figures 4.1-4.9) through core/svg.h.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pesbench/pesbench.h"
#include "core/svg.h"

static void num(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (fabs(v) >= 1e6 || (v != 0 && fabs(v) < 1e-3))
		snprintf(buf, len, "%.3g", v);
	else if (v == floor(v))
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.2f", v);
}

static void machine_line(FILE *f, const struct pesbench_result *r)
{
	const struct pesbench_machine *m = &r->m;

	fprintf(f, "%s family %u model %u (%s)%s%s, %d cpus, kernel %s, host %s, %s\n",
		m->vendor, m->family, m->model, m->cpu, m->hypervisor[0] ? ", hypervisor " : "",
		m->hypervisor, m->ncpus, m->kernel, m->host, m->date);
	if (r->example[0])
		fprintf(f, "example: %s\n", r->example);
}

void pesbench__print(FILE *f, const struct pesbench_result *res)
{
	char e[32], o[32], s[32], x[32];
	int i, j;

	fprintf(f, "pebs-ibs-compare: ");
	machine_line(f, res);
	fprintf(f, "%s, %d run%s per measurement\n\n", res->quick ? "quick" : "full",
		res->runs, res->runs == 1 ? "" : "s");
	fprintf(f, "Facilities (Sasongko 2022, Table 4.1; probed on this machine)\n");
	for (i = 0; i < res->nfac; i++) {
		const struct pesbench_facility *p = &res->fac[i];

		fprintf(f, "  %-6s %-11s %s\n", p->name, p->usable ? "usable" : "UNAVAILABLE",
			p->reason);
		fprintf(f, "         counters:        %s\n", p->counters);
		fprintf(f, "         event types:     %s\n", p->events);
		fprintf(f, "         sampled data:    %s\n", p->data);
		fprintf(f, "         execution modes: %s\n", p->modes);
	}
	for (i = 0; i < res->ntables; i++) {
		const struct pesbench_table *t = &res->tables[i];

		fprintf(f, "\n== %d. %s: %s\n", i + 1, t->id, t->title);
		if (t->note[0])
			fprintf(f, "%s\n", t->note);
		fprintf(f, "%-6s %-20s %-22s %-34s %12s %12s %10s %9s\n", "fac", "bench",
			"config", "metric", "expected", "observed", "stderr", "error");
		for (j = 0; j < t->n; j++) {
			const struct pesbench_row *r = &t->rows[j];

			num(e, sizeof(e), r->expected);
			num(o, sizeof(o), r->observed);
			num(s, sizeof(s), r->stderr_);
			if (isnan(r->error_pct))
				snprintf(x, sizeof(x), "-");
			else
				snprintf(x, sizeof(x), "%+.1f%%", r->error_pct);
			fprintf(f, "%-6s %-20s %-22s %-34s %12s %12s %10s %9s\n", r->facility,
				r->bench, r->config, r->metric, e, o, s, x);
		}
	}
}

/* ------------------------------------------------------ merge */

struct col {
	int res;
	char fac[16];
};

/* The (result, facility) pairs that have rows in table @id. */
static int columns(const struct pesbench_result *res, int n, const char *id,
		   struct col *cols, int max)
{
	int k, i, j, c, nc = 0;

	for (k = 0; k < n; k++) {
		for (i = 0; i < res[k].ntables; i++) {
			const struct pesbench_table *t = &res[k].tables[i];

			if (strcmp(t->id, id))
				continue;
			for (j = 0; j < t->n; j++) {
				for (c = 0; c < nc; c++)
					if (cols[c].res == k && !strcmp(cols[c].fac, t->rows[j].facility))
						break;
				if (c == nc && nc < max) {
					cols[nc].res = k;
					snprintf(cols[nc].fac, sizeof(cols[nc].fac), "%s",
						 t->rows[j].facility);
					nc++;
				}
			}
		}
	}
	return nc;
}

static const struct pesbench_table *table_of(const struct pesbench_result *r, const char *id)
{
	int i;

	for (i = 0; i < r->ntables; i++)
		if (!strcmp(r->tables[i].id, id))
			return &r->tables[i];
	return NULL;
}

/* Row keys (bench, config, metric) of table @id over all results, first seen first. */
struct key {
	const char *bench, *config, *metric;
};

static int keys_of(const struct pesbench_result *res, int n, const char *id,
		   struct key **out)
{
	struct key *k = NULL;
	int nk = 0, cap = 0, r, j, i;

	for (r = 0; r < n; r++) {
		const struct pesbench_table *t = table_of(&res[r], id);

		for (j = 0; t && j < t->n; j++) {
			const struct pesbench_row *w = &t->rows[j];

			for (i = 0; i < nk; i++)
				if (!strcmp(k[i].bench, w->bench) && !strcmp(k[i].config, w->config) &&
				    !strcmp(k[i].metric, w->metric))
					break;
			if (i < nk)
				continue;
			if (nk == cap) {
				struct key *p = realloc(k, (cap = cap ? 2 * cap : 32) * sizeof(*k));

				if (!p) {
					free(k);
					return -ENOMEM;
				}
				k = p;
			}
			k[nk++] = (struct key){ w->bench, w->config, w->metric };
		}
	}
	*out = k;
	return nk;
}

/* Table ids in order of first appearance. */
static int ids_of(const struct pesbench_result *res, int n, const char **ids, int max)
{
	int r, i, j, nid = 0;

	for (r = 0; r < n; r++)
		for (i = 0; i < res[r].ntables; i++) {
			for (j = 0; j < nid; j++)
				if (!strcmp(ids[j], res[r].tables[i].id))
					break;
			if (j == nid && nid < max)
				ids[nid++] = res[r].tables[i].id;
		}
	return nid;
}

void pesbench__print_merge(FILE *f, const struct pesbench_result *res, int n)
{
	const char *ids[32];
	struct col cols[SVG_MAX_SERIES];
	struct key *keys;
	char o[32], cell[48];
	int nid, i, r, c, nc, nk;

	fprintf(f, "pebs-ibs-compare: %d results side by side\n", n);
	for (r = 0; r < n; r++) {
		fprintf(f, "  [%c] ", 'A' + r);
		machine_line(f, &res[r]);
	}
	fprintf(f, "\nFacilities\n");
	for (r = 0; r < n; r++)
		for (i = 0; i < res[r].nfac; i++)
			fprintf(f, "  [%c] %-6s %-11s %s\n", 'A' + r, res[r].fac[i].name,
				res[r].fac[i].usable ? "usable" : "UNAVAILABLE",
				res[r].fac[i].reason);
	nid = ids_of(res, n, ids, 32);
	for (i = 0; i < nid; i++) {
		const struct pesbench_table *t0 = NULL;

		for (r = 0; r < n && !t0; r++)
			t0 = table_of(&res[r], ids[i]);
		fprintf(f, "\n== %s: %s\n", ids[i], t0->title);
		nc = columns(res, n, ids[i], cols, SVG_MAX_SERIES);
		nk = keys_of(res, n, ids[i], &keys);
		if (nk < 0)
			return;
		fprintf(f, "%-20s %-22s %-34s", "bench", "config", "metric");
		for (c = 0; c < nc; c++) {
			snprintf(cell, sizeof(cell), "[%c] %s", 'A' + cols[c].res, cols[c].fac);
			fprintf(f, " %22s", cell);
		}
		fprintf(f, "\n");
		for (r = 0; r < nk; r++) {
			fprintf(f, "%-20s %-22s %-34s", keys[r].bench, keys[r].config, keys[r].metric);
			for (c = 0; c < nc; c++) {
				const struct pesbench_table *t = table_of(&res[cols[c].res], ids[i]);
				const struct pesbench_row *w = t ? pesbench__find_row(t, cols[c].fac,
					keys[r].bench, keys[r].config, keys[r].metric) : NULL;

				if (!w) {
					snprintf(cell, sizeof(cell), "n/a");
				} else {
					num(o, sizeof(o), w->observed);
					if (isnan(w->error_pct))
						snprintf(cell, sizeof(cell), "%s", o);
					else
						snprintf(cell, sizeof(cell), "%s (%+.1f%%)", o, w->error_pct);
				}
				fprintf(f, " %22s", cell);
			}
			fprintf(f, "\n");
		}
		free(keys);
	}
}

/* ------------------------------------------------------ SVG */

/* Tables whose figures put the metrics (instructions, events) on the x axis. */
static int metric_axis(const char *id)
{
	return !strcmp(id, "bias") || !strcmp(id, "multi");
}

static void slug(char *dst, size_t len, const char *a, const char *b)
{
	size_t i = 0;
	const char *s;
	char prev = '-';

	for (s = a; *s && i + 1 < len; s++) {
		char ch = *s;

		if (s == b)
			break;
		if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9'))
			dst[i++] = prev = ch;
		else if (ch >= 'A' && ch <= 'Z')
			dst[i++] = prev = ch - 'A' + 'a';
		else if (prev != '-')
			dst[i++] = prev = '-';
	}
	while (i && dst[i - 1] == '-')
		i--;
	dst[i] = 0;
}

/*
 * One figure: categories (x) and the (result, facility) series. @group is
 * the metric (or the config, for metric_axis tables) the figure holds.
 */
static int figure(const char *dir, const char *id, const char *title,
		  const struct pesbench_result *res, int n, const char *group,
		  const struct key *keys, int nk, const struct col *cols, int nc)
{
	const char *labels[64];
	char lbuf[64][64], name[SVG_MAX_SERIES][48], path[4096], sl[64], ttl[256];
	double val[SVG_MAX_SERIES][64], expv[64];
	struct svg_series ser[SVG_MAX_SERIES];
	const struct key *ck[64];
	int ncat = 0, i, c, ratio = 1, nser = 0, err;
	FILE *f;

	for (i = 0; i < nk && ncat < 64; i++) {
		if (strcmp(metric_axis(id) ? keys[i].config : keys[i].metric, group))
			continue;
		ck[ncat] = &keys[i];
		if (metric_axis(id))
			snprintf(lbuf[ncat], sizeof(lbuf[ncat]), "%s", keys[i].metric);
		else
			snprintf(lbuf[ncat], sizeof(lbuf[ncat]), "%s%s%s", keys[i].bench,
				 strcmp(id, "accuracy") ? " " : "",
				 strcmp(id, "accuracy") ? keys[i].config : "");
		labels[ncat] = lbuf[ncat];
		expv[ncat] = NAN;
		ncat++;
	}
	if (!ncat)
		return 0;
	for (c = 0; c < nc; c++)
		for (i = 0; i < ncat; i++) {
			const struct pesbench_table *t = table_of(&res[cols[c].res], id);
			const struct pesbench_row *w = t ? pesbench__find_row(t, cols[c].fac,
				ck[i]->bench, ck[i]->config, ck[i]->metric) : NULL;

			if (w && isnan(expv[i]))
				expv[i] = w->expected;
			if (w && !(w->expected > 0))
				ratio = 0;
		}
	for (c = 0; c < nc && nser < SVG_MAX_SERIES; c++, nser++) {
		if (n > 1)
			snprintf(name[nser], sizeof(name[nser]), "[%c] %s", 'A' + cols[c].res,
				 cols[c].fac);
		else
			snprintf(name[nser], sizeof(name[nser]), "%s", cols[c].fac);
		for (i = 0; i < ncat; i++) {
			const struct pesbench_table *t = table_of(&res[cols[c].res], id);
			const struct pesbench_row *w = t ? pesbench__find_row(t, cols[c].fac,
				ck[i]->bench, ck[i]->config, ck[i]->metric) : NULL;
			double v = w ? w->observed : 0;

			if (ratio && w)
				v = 100.0 * w->observed / w->expected;
			val[nser][i] = isnan(v) || v < 0 ? 0 : v;
		}
		ser[nser] = (struct svg_series){ name[nser], val[nser], NULL, 0 };
	}
	if (!ratio && nser < SVG_MAX_SERIES) {
		snprintf(name[nser], sizeof(name[nser]), "expected");
		for (i = 0; i < ncat; i++)
			val[nser][i] = isnan(expv[i]) || expv[i] < 0 ? 0 : expv[i];
		ser[nser] = (struct svg_series){ name[nser], val[nser], NULL, 0 };
		nser++;
	}
	if (!nser)
		return 0;
	slug(sl, sizeof(sl), group, NULL);
	snprintf(path, sizeof(path), "%s/%s-%s.svg", dir, id, sl);
	snprintf(ttl, sizeof(ttl), "%s: %s", title, group);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	{
		struct svg_bars b = {
			.title = ttl,
			.x_title = metric_axis(id) ? "instruction / event" : "benchmark, configuration",
			.y_title = ratio ? "% of expected (100 = exact; overhead: % of native)" : group,
			.n = ncat, .labels = labels, .nseries = nser, .series = ser,
		};

		err = svg__bars(f, &b);
	}
	if (fclose(f) && !err)
		err = -errno;
	return err ? err : 1;
}

int pesbench__svg(const char *dir, const struct pesbench_result *res, int n)
{
	const char *ids[32], *groups[64];
	struct col cols[SVG_MAX_SERIES];
	struct key *keys;
	int nid, i, j, g, ng, nk, nc, err, files = 0;

	if (mkdir(dir, 0777) && errno != EEXIST)
		return -errno;
	nid = ids_of(res, n, ids, 32);
	for (i = 0; i < nid; i++) {
		const struct pesbench_table *t0 = NULL;

		for (j = 0; j < n && !t0; j++)
			t0 = table_of(&res[j], ids[i]);
		if (!strcmp(ids[i], "mode"))
			continue;	/* counts of nothing: the text table says it */
		nc = columns(res, n, ids[i], cols, SVG_MAX_SERIES);
		nk = keys_of(res, n, ids[i], &keys);
		if (nk < 0)
			return nk;
		ng = 0;
		for (j = 0; j < nk; j++) {
			const char *gname = metric_axis(ids[i]) ? keys[j].config : keys[j].metric;

			for (g = 0; g < ng; g++)
				if (!strcmp(groups[g], gname))
					break;
			if (g == ng && ng < 64)
				groups[ng++] = gname;
		}
		for (g = 0; g < ng; g++) {
			err = figure(dir, ids[i], t0->title, res, n, groups[g], keys, nk, cols, nc);
			if (err < 0) {
				free(keys);
				return err;
			}
			files += err;
		}
		free(keys);
	}
	return files;
}
