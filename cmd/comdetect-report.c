// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/builtin.h"
#include "cmd/comdetect-report.h"
#include "core/comdetect-objects.h"
#include "core/json.h"
#include "core/svg.h"

static int soft_units(const struct comdetect_report *r)
{
	return r->run.period_unit && !strcmp(r->run.period_unit, "ns");
}

/* What one unit of volume is, for every output. */
static const char *volume_unit(const struct comdetect_report *r)
{
	if (r->volume_unit)
		return r->volume_unit;
	return soft_units(r) ? "ns of sampled thread CPU time (detections x period)"
			     : "memory accesses (detections x period): estimated cache-line transfers";
}

static double pct(double v, double total)
{
	return total > 0 ? 100.0 * v / total : 0.0;
}

/* Background colour of a heat-map cell: white to dark blue, 256-colour ANSI. */
static int heat_color(double frac)
{
	static const int ramp[] = { 231, 195, 159, 123, 87, 51, 45, 39, 33, 27, 21, 19, 17 };
	int i = (int)(frac * (ARRAY_SIZE(ramp) - 1) + 0.5);

	if (frac <= 0)
		return -1;
	if (i < 1)
		i = 1;
	if (i >= (int)ARRAY_SIZE(ramp))
		i = ARRAY_SIZE(ramp) - 1;
	return ramp[i];
}

#define ALL "all communication"	/* what the matrices' percentages are of */
#define TEXT_TOP_OBJECTS	10

/*
 * A line's object: the one at its start, or when that is only a region
 * (a heap block starts after the line does) the heap block its first
 * offset group hits, so heap lines show their allocation site.
 */
static void line_label(const struct comdetect_report *r, const struct comdetect_line *l,
		       char *buf, size_t len)
{
	struct lp_dataobj d;
	int k;

	analysis__object_label(&r->run, l->line, buf, len);
	if (!r->run.syms || (symbols__data(r->run.syms, r->run.pid, l->line, &d) == 0 && d.name))
		return;
	for (k = 0; k < l->ntouches; k++)
		if (symbols__data(r->run.syms, r->run.pid, l->line + l->touches[k].off, &d) == 0 &&
		    d.heap) {
			snprintf(buf, len, "%s", d.label);
			return;
		}
}

static const char *const object_kinds[] = {
	[COMDETECT_OBJ_HEAP] = "heap", [COMDETECT_OBJ_STATIC] = "static",
	[COMDETECT_OBJ_REGION] = "region",
};

static void frame_name(const struct comdetect_report *r, u32 pid, u64 ret_addr, char *buf,
		       size_t len)
{
	analysis__frame_name(&r->run, pid, ret_addr, buf, len);
}

/* "10/85/5": the object's sampled loads, stores and atomics in percent */
static void mix_str(const struct comdetect_object *o, char *buf, size_t len)
{
	u64 n = o->loads + o->stores + o->atomics;

	if (!n)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.0f/%.0f/%.0f", 100.0 * o->loads / n, 100.0 * o->stores / n,
			 100.0 * o->atomics / n);
}

static void print_objects(const struct comdetect_report *r, FILE *f, double total)
{
	struct comdetect_object *v = NULL;
	int n = 0, i, k;

	if (!r->run.syms || comdetect__objects(r->res, r->run.syms, r->run.pid, &v, &n))
		return;
	fprintf(f, "\nData objects by communication (the top lines' volume split over the objects\n"
		"their offsets hit):\n");
	if (!n)
		fprintf(f, "  (none)\n");
	else
		fprintf(f, "  %3s %6s %6s %6s  %-6s %-5s %-13s %-11s %s\n", "#", "all%", "true%",
			"false%", "kind", "lines", "offsets", "ld/st/rmw%", "object (threads)");
	for (i = 0; i < n && i < TEXT_TOP_OBJECTS; i++) {
		const struct comdetect_object *o = &v[i];
		char offs[32], mix[32];

		snprintf(offs, sizeof(offs), "%#x-%#x", o->off_lo, o->off_hi);
		mix_str(o, mix, sizeof(mix));
		fprintf(f, "  %3d %6.1f %6.1f %6.1f  %-6s %-5u %-13s %-11s %s (", i + 1,
			pct(o->vol_true + o->vol_false, total), pct(o->vol_true, total),
			pct(o->vol_false, total), object_kinds[o->kind], o->nlines, offs, mix, o->label);
		for (k = 0; k < 64; k++)
			if (o->threads & 1ull << k)
				fprintf(f, "%sT%d", o->threads & ((1ull << k) - 1) ? "," : "", k);
		fprintf(f, ")\n");
		for (k = 0; o->heap && k < o->heap->nframes && k < 4; k++) {
			char fr[300];

			frame_name(r, o->heap->pid, o->heap->frames[k], fr, sizeof(fr));
			fprintf(f, "  %27s <- %s\n", "", fr);
		}
	}
	if (n > TEXT_TOP_OBJECTS)
		fprintf(f, "  ... %d more objects (--json lists them)\n", n - TEXT_TOP_OBJECTS);
	comdetect__objects_free(v, n);
}

static void json_objects(const struct comdetect_report *r, struct json_writer *w)
{
	struct comdetect_object *v = NULL;
	int n = 0, i, k;

	json__arr_begin(w, "objects");
	if (r->run.syms && comdetect__objects(r->res, r->run.syms, r->run.pid, &v, &n) == 0) {
		for (i = 0; i < n; i++) {
			const struct comdetect_object *o = &v[i];

			json__obj_begin(w, NULL);
			analysis__json_object(&r->run, w, o->label, object_kinds[o->kind], o->start, o->size,
					      o->heap);
			json__double(w, "true", o->vol_true);
			json__double(w, "false", o->vol_false);
			json__u64(w, "lines", o->nlines);
			json__arr_begin(w, "threads");
			for (k = 0; k < 64; k++)
				if (o->threads & 1ull << k)
					json__u64(w, NULL, k);
			json__arr_end(w);
			json__u64(w, "offset_min", o->off_lo);
			json__u64(w, "offset_max", o->off_hi);
			json__obj_begin(w, "accesses");	/* sampled, on its communicating lines */
			json__u64(w, "loads", o->loads);
			json__u64(w, "stores", o->stores);
			json__u64(w, "atomics", o->atomics);
			json__obj_end(w);
			/* its access-over-time picture (--svg): points kept of those seen */
			json__obj_begin(w, "timeline");
			json__u64(w, "points", o->npoints);
			json__u64(w, "offered", o->points_seen);
			json__u64(w, "samples", o->line_points_seen);
			json__obj_end(w);
			json__obj_end(w);
		}
		comdetect__objects_free(v, n);
	}
	json__arr_end(w);
}

#define TEXT_FULL_MATRIX	16	/* up to this many threads: the whole matrix */
#define TEXT_MAX_MATRIX		32	/* else the ones that communicate, up to this */
#define TEXT_TOP_PAIRS		20	/* else the pairs that communicate most */

/* Rows of @m (n x n) with any communication, into @idx; how many. */
static int active_rows(const double *m, int n, int *idx)
{
	int i, j, k = 0;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (m[(size_t)i * n + j] > 0) {
				idx[k++] = i;
				break;
			}
	return k;
}

static void print_cells(const struct comdetect_report *r, FILE *f, const double *m, int n,
			const int *idx, int k, const char *label, double total)
{
	double max = 0;
	int a, b;

	for (a = 0; a < k; a++)
		for (b = 0; b < k; b++)
			if (m[(size_t)idx[a] * n + idx[b]] > max)
				max = m[(size_t)idx[a] * n + idx[b]];
	fprintf(f, "%6s", "");
	for (b = 0; b < k; b++)
		fprintf(f, " %5s%-2d", label, idx[b]);
	fputc('\n', f);
	for (a = 0; a < k; a++) {
		fprintf(f, "  %s%-2d ", label, idx[a]);
		for (b = 0; b < k; b++) {
			double v = m[(size_t)idx[a] * n + idx[b]];
			int c = r->out.color ? heat_color(max > 0 ? v / max : 0) : -1;

			if (c >= 0)
				fprintf(f, "\033[48;5;%dm\033[38;5;%dm", c, c >= 33 && c != 45 && c != 51 ? 231 : 16);
			if (v > 0)
				fprintf(f, " %6.1f", pct(v, total));
			else
				fprintf(f, " %6s", ".");
			if (c >= 0)
				fprintf(f, "\033[0m");
		}
		fputc('\n', f);
	}
}

/* The pairs (i < j) that communicate most, as a list: for many threads. */
static void print_top_pairs(FILE *f, const double *m, int n, const char *label, double total)
{
	int top_i[TEXT_TOP_PAIRS], top_j[TEXT_TOP_PAIRS], i, j, k, nt = 0;
	double top_v[TEXT_TOP_PAIRS];

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			double v = m[(size_t)i * n + j];

			if (v <= 0 || (nt == TEXT_TOP_PAIRS && v <= top_v[nt - 1]))
				continue;
			k = nt < TEXT_TOP_PAIRS ? nt++ : nt - 1;
			for (; k > 0 && top_v[k - 1] < v; k--) {
				top_v[k] = top_v[k - 1];
				top_i[k] = top_i[k - 1];
				top_j[k] = top_j[k - 1];
			}
			top_v[k] = v;
			top_i[k] = i;
			top_j[k] = j;
		}
	for (k = 0; k < nt; k++)
		fprintf(f, "  %s%d-%s%d %6.1f\n", label, top_i[k], label, top_j[k], pct(top_v[k], total));
}

/* Past COMDETECT_DENSE_MAX threads: the pairs, largest first. */
static void print_pairs(FILE *f, const struct comdetect_result *res, int unused, double total)
{
	int k;

	(void)unused;
	fprintf(f, "\nThread pairs by communication (%d threads, %d pairs communicate; "
		"--json has them all):\n", res->nthreads, res->npairs);
	if (!res->npairs || total <= 0)
		fprintf(f, "  (none detected)\n");
	for (k = 0; k < res->npairs && k < TEXT_TOP_PAIRS; k++)
		fprintf(f, "  T%u-T%u %6.1f  (true %.1f, false %.1f)\n", res->pairs[k].a,
			res->pairs[k].b, pct(res->pairs[k].vt + res->pairs[k].vf, total),
			pct(res->pairs[k].vt, total), pct(res->pairs[k].vf, total));
}

/*
 * Small runs: the whole matrix. Many threads: the rows and columns of those
 * that communicate, or past TEXT_MAX_MATRIX of them the top pairs, so the
 * text grows with what was detected, not with every thread that ever lived.
 */
void comdetect_report__matrix(const struct comdetect_report *r, FILE *f, const char *title,
			      const char *of, const double *m, int n, const char *label, double total)
{
	int *idx, k, i;

	fprintf(f, "\n%s (%% of %s):\n", title, of);
	if (n <= 0 || total <= 0) {
		fprintf(f, "  (none detected)\n");
		return;
	}
	idx = malloc((size_t)n * sizeof(*idx));
	if (!idx) {
		fprintf(f, "  (out of memory)\n");
		return;
	}
	if (n <= TEXT_FULL_MATRIX) {
		for (i = 0; i < n; i++)
			idx[i] = i;
		print_cells(r, f, m, n, idx, n, label, total);
	} else if ((k = active_rows(m, n, idx)) <= TEXT_MAX_MATRIX) {
		fprintf(f, "  (%d of %d communicate; the others' rows and columns are empty)\n", k, n);
		print_cells(r, f, m, n, idx, k, label, total);
	} else {
		fprintf(f, "  (%d of %d communicate: the top %d pairs; --csv, --svg and --json have "
			"the matrix)\n", k, n, TEXT_TOP_PAIRS);
		print_top_pairs(f, m, n, label, total);
	}
	free(idx);
}

static const char *kind_name(int kind)
{
	switch (kind) {
	case LP_ACCESS_LOAD: return "load";
	case LP_ACCESS_STORE: return "store";
	case LP_ACCESS_ATOMIC: return "atomic";
	default: return "rw";
	}
}

/* Traps report the instruction after the access: step back into it. */
static u64 site_ip(const struct comdetect_ip *ip)
{
	return ip->src == COMDETECT_SRC_TRAP && ip->ip ? ip->ip - 1 : ip->ip;
}

struct site {
	const char *function, *file;	/* function NULL: no symbol, see @unnamed */
	char unnamed[96];		/* "sort+0x1a2b" (symbols__code_unnamed) */
	u32 line;
	u64 count;
	u64 threads;		/* bit i: thread index i made it (i < 64) */
};

/* "T0,T1" of a site's threads */
static void site_threads(const struct site *s, char *buf, size_t len)
{
	size_t n = 0;
	int k;

	buf[0] = '\0';
	for (k = 0; k < 64 && n < len; k++)
		if (s->threads & 1ull << k)
			n += snprintf(buf + n, len - n, "%sT%d", n ? "," : "", k);
}

static int collect_sites(const struct comdetect_report *r, const struct comdetect_line *l,
			 struct site *out, int max)
{
	int i, j, n = 0;

	for (i = 0; i < l->nips; i++) {
		struct lp_srcloc loc = { 0 };
		const char *fn = NULL, *file = NULL;
		char unnamed[96] = "";
		u32 line = 0;

		if (r->run.syms && symbols__code(r->run.syms, r->run.pid, site_ip(&l->ips[i]), &loc) == 0) {
			fn = loc.function;
			file = loc.file;
			line = loc.line;
		} else {
			/* each instruction apart: what addr2line or objdump takes */
			symbols__code_unnamed(&loc, site_ip(&l->ips[i]), unnamed, sizeof(unnamed));
		}
		for (j = 0; j < n; j++)
			if (out[j].line == line && !strcmp(out[j].unnamed, unnamed) &&
			    ((!out[j].function && !fn) ||
			     (out[j].function && fn && !strcmp(out[j].function, fn))) &&
			    ((!out[j].file && !file) || (out[j].file && file && !strcmp(out[j].file, file))))
				break;
		if (j == n) {
			if (n == max)
				continue;
			out[n] = (struct site){ .function = fn, .file = file, .line = line };
			snprintf(out[n++].unnamed, sizeof(out[0].unnamed), "%s", unnamed);
		}
		out[j].count += l->ips[i].count;
		if (l->ips[i].thread < 64)
			out[j].threads |= 1ull << l->ips[i].thread;
	}
	for (i = 1; i < n; i++)	/* by count, descending */
		for (j = i; j > 0 && out[j].count > out[j - 1].count; j--) {
			struct site t = out[j];

			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	return n;
}

void comdetect_report__print(const void *view, FILE *f)
{
	const struct comdetect_report *r = view;
	const struct comdetect_result *res = r->res;
	const struct comdetect_stats *st = &res->stats;
	double total = res->total_all;
	int i, k, nlines = res->nlines < r->out.top ? res->nlines : r->out.top;

	fprintf(f, "# lociprof comdetect: %s\n", r->run.command ? r->run.command : "");
	analysis__run_warning(&r->run, f);
	fprintf(f, "# sampler %s, period %" PRIu64 " %s; %d threads; %" PRIu64
		" samples, %" PRIu64 " with a data address\n", r->run.sampler, r->run.period,
		soft_units(r) ? "ns of thread CPU time" : r->run.period_unit, res->nthreads,
		r->run.samples, r->run.samples_addr);
	fprintf(f, "# %" PRIu64 " communications detected: %" PRIu64 " by bulletin-board lookup, "
		"%" PRIu64 " by watchpoint traps (%" PRIu64 " traps)\n", res->detections,
		st->hits, st->trap_hits, st->traps);

	fprintf(f, "\nTotals (volume unit: %s):\n", volume_unit(r));
	fprintf(f, "  %-6s %14.0f  %5.1f%%\n", "all", res->total_all, 100.0 * (total > 0));
	fprintf(f, "  %-6s %14.0f  %5.1f%%\n", "true", res->total_true, pct(res->total_true, total));
	fprintf(f, "  %-6s %14.0f  %5.1f%%\n", "false", res->total_false, pct(res->total_false, total));
	if (soft_units(r)) {
		double cpu_s = r->run.cpu_ns / 1e9;

		if (cpu_s > 0 && r->run.samples)
			fprintf(f, "  rate: %.1f detections per second of thread CPU time (%.2f s of\n"
				"  CPU time measured; one sample per %.0f us of it, %.0f us asked)\n",
				res->detections / cpu_s, cpu_s, r->run.cpu_ns / 1e3 / r->run.samples,
				r->run.period / 1e3);
		fprintf(f, "  The soft sampler's period is time, not accesses: volumes rank threads,\n"
			"  lines and sharing kinds; cache-line transfers need a PMU (pebs/ibs).\n");
	} else {
		fprintf(f, "  estimated cache-line transfers: %.0f (%.0f bytes at 64 B per line)\n",
			total, total * 64);
	}

	if (!res->all) {	/* more threads than a dense matrix holds */
		print_pairs(f, res, 0, total);
	} else {
		comdetect_report__matrix(r, f, "Thread matrix, all", ALL, res->all, res->nthreads, "T", total);
		if (res->total_false > 0 && res->total_true > 0) {
			comdetect_report__matrix(r, f, "Thread matrix, true sharing", ALL, res->true_sharing,
				     res->nthreads, "T", total);
			comdetect_report__matrix(r, f, "Thread matrix, false sharing", ALL, res->false_sharing,
				     res->nthreads, "T", total);
		}
	}
	comdetect_report__matrix(r, f, "Core matrix (sample CPUs), all", ALL, res->core_all, res->ncpus, "C",
		     res->total_all - res->same_cpu_volume);
	if (res->same_cpu_volume > 0)
		fprintf(f, "  (%.1f%% between threads that ran on one CPU: not in the core matrix)\n",
			pct(res->same_cpu_volume, total));

	fprintf(f, "\nThreads:");
	for (i = 0; i < res->nthreads && i < TEXT_MAX_MATRIX * 2; i++)
		fprintf(f, " T%d=tid %u", i, res->tids[i]);
	if (res->nthreads > TEXT_MAX_MATRIX * 2)
		fprintf(f, " ... (%d threads: --json lists them)", res->nthreads);
	fputc('\n', f);

	fprintf(f, "\nTop cache lines by communication:\n");
	if (!nlines)
		fprintf(f, "  (none)\n");
	for (i = 0; i < nlines; i++) {
		const struct comdetect_line *l = &res->lines[i];
		struct site sites[8];
		char obj[400];
		int ns;

		line_label(r, l, obj, sizeof(obj));
		fprintf(f, "\n  #%d line %#" PRIx64 "  %s\n", i + 1, l->line, obj);
		fprintf(f, "     %.1f%% of all: true %.1f%%, false %.1f%%, %" PRIu64 " detections\n",
			pct(l->vol_true + l->vol_false, total), pct(l->vol_true, total),
			pct(l->vol_false, total), l->detections);
		fprintf(f, "     %-9s %-7s %-7s %-7s %-9s %s\n", "offset", "thread", "access", "seen",
			"count", "object");
		for (k = 0; k < l->ntouches; k++) {
			const struct comdetect_touch *t = &l->touches[k];
			char to[400];

			/* the variable each offset hits, as script names it */
			analysis__object_label(&r->run, l->line + t->off, to, sizeof(to));
			fprintf(f, "     0x%02x-0x%02x T%-6u %-7s %-7s %-9" PRIu64 " %s\n", t->off,
				t->off + t->len - 1, t->thread, kind_name(t->kind),
				t->src == COMDETECT_SRC_TRAP ? "trap" : "sample", t->count, to);
		}
		ns = collect_sites(r, l, sites, ARRAY_SIZE(sites));
		for (k = 0; k < ns; k++) {
			char th[200];

			site_threads(&sites[k], th, sizeof(th));
			if (!sites[k].function)
				fprintf(f, "     %s (no symbols) (%" PRIu64 "%s%s)\n", sites[k].unnamed,
					sites[k].count, th[0] ? " by " : "", th);
			else
				fprintf(f, "     %s %s:%u (%" PRIu64 "%s%s)\n", sites[k].function,
					sites[k].file ? sites[k].file : "??", sites[k].line,
					sites[k].count, th[0] ? " by " : "", th);
		}
	}
	print_objects(r, f, total);
	fprintf(f, "\n# samples used %" PRIu64 " (%" PRIu64 " loads, %" PRIu64 " stores); "
		"watchpoints armed %" PRIu64 " times; traps ignored (repeats of a counted watch, or a watch\n# no longer kept) %" PRIu64 "; lookups not counted (the two threads did not run together)\n# %" PRIu64 "; hits at half a period (the looking thread resumed since the store) %" PRIu64 "\n",
		st->samples_used, st->loads, st->stores, st->armings, st->traps_stale, st->hits_apart,
		st->hits_resumed);
}

#define JSON_DENSE_MAX	64	/* beyond this many threads, matrices go sparse */

/*
 * A matrix as rows of numbers, or for more than JSON_DENSE_MAX threads as
 * {"n": N, "cells": [[i, j, v], ...]} of its nonzero cells: the file grows
 * with what was detected, not with every thread that ever lived.
 */
static void json_matrix(struct json_writer *w, const char *key, const double *m, int n)
{
	int i, j;

	if (n > JSON_DENSE_MAX) {
		json__obj_begin(w, key);
		json__u64(w, "n", n);
		json__arr_begin(w, "cells");
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++) {
				if (m[(size_t)i * n + j] == 0)
					continue;
				json__arr_begin(w, NULL);
				json__u64(w, NULL, i);
				json__u64(w, NULL, j);
				json__double(w, NULL, m[(size_t)i * n + j]);
				json__arr_end(w);
			}
		json__arr_end(w);
		json__obj_end(w);
		return;
	}
	json__arr_begin(w, key);
	for (i = 0; i < n; i++) {
		json__arr_begin(w, NULL);
		for (j = 0; j < n; j++)
			json__double(w, NULL, m[i * n + j]);
		json__arr_end(w);
	}
	json__arr_end(w);
}

/* The sparse form of a matrix the result holds only as pairs (@kinds: 1 true, 2 false, 3 both). */
static void json_pair_cells(struct json_writer *w, const char *key,
			    const struct comdetect_result *res, int kinds)
{
	int k, d;

	json__obj_begin(w, key);
	json__u64(w, "n", res->nthreads);
	json__arr_begin(w, "cells");
	for (k = 0; k < res->npairs; k++) {
		const struct comdetect_pair_vol *p = &res->pairs[k];
		double v = (kinds & 1 ? p->vt : 0) + (kinds & 2 ? p->vf : 0);

		for (d = 0; v != 0 && d < 2; d++) {	/* both halves, as the dense form */
			json__arr_begin(w, NULL);
			json__u64(w, NULL, d ? p->b : p->a);
			json__u64(w, NULL, d ? p->a : p->b);
			json__double(w, NULL, v);
			json__arr_end(w);
		}
	}
	json__arr_end(w);
	json__obj_end(w);
}

int comdetect_report__json(const void *view, const char *path)
{
	return comdetect_report__json_as(view, "comdetect", NULL, NULL, path);
}

int comdetect_report__json_as(const struct comdetect_report *r, const char *command,
			      void (*extra)(struct json_writer *w, const void *arg),
			      const void *arg, const char *path)
{
	const struct comdetect_result *res = r->res;
	struct json_writer w;
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
	char obj[400], addr[32];
	int i, k, err;

	if (!f)
		return -errno;
	json__init(&w, f, JSON_PRETTY);
	json__obj_begin(&w, NULL);
	json__str(&w, "command", command);
	json__str(&w, "sampler", r->run.sampler);
	json__u64(&w, "period", r->run.period);
	json__str(&w, "period_unit", r->run.period_unit);
	json__str(&w, "volume_unit", volume_unit(r));
	json__str(&w, "program", r->run.command);
	json__arr_begin(&w, "threads");
	for (i = 0; i < res->nthreads; i++) {
		json__obj_begin(&w, NULL);
		json__u64(&w, "index", i);
		json__u64(&w, "tid", res->tids[i]);
		json__u64(&w, "samples", res->thread_samples[i]);
		json__obj_end(&w);
	}
	json__arr_end(&w);
	json__obj_begin(&w, "matrix");
	if (res->all) {
		json_matrix(&w, "all", res->all, res->nthreads);
		json_matrix(&w, "true", res->true_sharing, res->nthreads);
		json_matrix(&w, "false", res->false_sharing, res->nthreads);
	} else {
		json_pair_cells(&w, "all", res, 3);
		json_pair_cells(&w, "true", res, 1);
		json_pair_cells(&w, "false", res, 2);
	}
	json__obj_end(&w);
	json__obj_begin(&w, "core_matrix");
	json_matrix(&w, "all", res->core_all, res->ncpus);
	json_matrix(&w, "true", res->core_true, res->ncpus);
	json_matrix(&w, "false", res->core_false, res->ncpus);
	json__obj_end(&w);
	json__obj_begin(&w, "totals");
	json__double(&w, "all", res->total_all);
	json__double(&w, "true", res->total_true);
	json__double(&w, "false", res->total_false);
	json__u64(&w, "detections", res->detections);
	json__u64(&w, "hits", res->stats.hits);
	json__u64(&w, "trap_hits", res->stats.trap_hits);
	json__u64(&w, "hits_apart", res->stats.hits_apart);
	json__u64(&w, "hits_resumed", res->stats.hits_resumed);
	json__obj_end(&w);
	json__double(&w, "false_fraction", res->total_all > 0 ? res->total_false / res->total_all : 0);
	json__u64(&w, "samples", r->run.samples);
	if (r->run.threads_unmonitored)
		json__u64(&w, "threads_unmonitored", r->run.threads_unmonitored);
	if (r->run.traps_dead)
		json__bool(&w, "watchpoints_fire", 0);
	json__u64(&w, "samples_with_address", r->run.samples_addr);
	json__u64(&w, "cpu_ns", r->run.cpu_ns);
	json__arr_begin(&w, "lines");
	for (i = 0; i < res->nlines && i < r->out.top * 4; i++) {
		const struct comdetect_line *l = &res->lines[i];
		struct site sites[16];
		int ns;

		json__obj_begin(&w, NULL);
		snprintf(addr, sizeof(addr), "%#" PRIx64, l->line);
		json__str(&w, "address", addr);
		line_label(r, l, obj, sizeof(obj));
		json__str(&w, "object", obj);
		json__double(&w, "true", l->vol_true);
		json__double(&w, "false", l->vol_false);
		json__u64(&w, "detections", l->detections);
		json__arr_begin(&w, "offsets");
		for (k = 0; k < l->ntouches; k++) {
			const struct comdetect_touch *t = &l->touches[k];

			json__obj_begin(&w, NULL);
			json__u64(&w, "thread", t->thread);
			json__u64(&w, "offset", t->off);
			json__u64(&w, "length", t->len);
			json__str(&w, "access", kind_name(t->kind));
			json__str(&w, "source", t->src == COMDETECT_SRC_TRAP ? "trap" : "sample");
			json__u64(&w, "count", t->count);
			analysis__object_label(&r->run, l->line + t->off, obj, sizeof(obj));
			json__str(&w, "object", obj);
			json__obj_end(&w);
		}
		json__arr_end(&w);
		ns = collect_sites(r, l, sites, ARRAY_SIZE(sites));
		json__arr_begin(&w, "sites");
		for (k = 0; k < ns; k++) {
			json__obj_begin(&w, NULL);
			json__str(&w, "function", sites[k].function);
			if (!sites[k].function)
				json__str(&w, "code", sites[k].unnamed);
			json__str(&w, "file", sites[k].file);
			json__u64(&w, "line", sites[k].line);
			json__u64(&w, "count", sites[k].count);
			json__arr_begin(&w, "threads");
			for (int b = 0; b < 64; b++)
				if (sites[k].threads & 1ull << b)
					json__u64(&w, NULL, b);
			json__arr_end(&w);
			json__obj_end(&w);
		}
		json__arr_end(&w);
		json__obj_end(&w);
	}
	json__arr_end(&w);
	json_objects(r, &w);
	if (extra)
		extra(&w, arg);
	json__obj_end(&w);
	err = json__finish(&w);
	if (f != stdout && fclose(f) && !err)
		err = -errno;
	return err;
}

static int write_csv(const char *dir, const char *name, const double *m, int n)
{
	char path[4096];
	FILE *f;
	int i, j;

	snprintf(path, sizeof(path), "%s/%s.csv", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			fprintf(f, "%.17g%c", m[i * n + j], j == n - 1 ? '\n' : ',');
	return fclose(f) ? -errno : 0;
}

int comdetect_report__csv(const void *view, const char *dir)
{
	const struct comdetect_report *r = view;
	const struct comdetect_result *res = r->res;
	int err;

	if (!res->all) {	/* a dense matrix of every thread that lived: no */
		lp_err("--csv: %d threads are too many for thread matrices (at most %d); "
		       "--json has the pairs", res->nthreads, COMDETECT_DENSE_MAX);
		return -EFBIG;
	}
	err = analysis__make_dir(dir);

	if (!err)
		err = write_csv(dir, "thread-all", res->all, res->nthreads);
	if (!err)
		err = write_csv(dir, "thread-true", res->true_sharing, res->nthreads);
	if (!err)
		err = write_csv(dir, "thread-false", res->false_sharing, res->nthreads);
	if (!err)
		err = write_csv(dir, "core-all", res->core_all, res->ncpus);
	if (!err)
		err = write_csv(dir, "core-true", res->core_true, res->ncpus);
	if (!err)
		err = write_csv(dir, "core-false", res->core_false, res->ncpus);
	return err;
}

static int write_svg(const struct comdetect_report *r, const char *dir, const char *name,
		     const char *what, const double *m, int n, const char *axis, const char *pfx)
{
	char path[4096], title[512], unit[160];
	struct svg_heatmap h;
	char **labels;
	double *pm, total = 0;
	FILE *f;
	int i, err;

	if (n <= 0)
		return 0;
	labels = calloc(n, sizeof(*labels));
	pm = calloc((size_t)n * n, sizeof(*pm));
	if (!labels || !pm) {
		free(labels);
		free(pm);
		return -ENOMEM;
	}
	for (i = 0; i < n * n; i++)
		total += m[i];
	for (i = 0; i < n * n; i++)	/* the pair's share of everything of this kind */
		pm[i] = total > 0 ? 200.0 * m[i] / total : 0;	/* symmetric: pairs twice */
	for (i = 0; i < n; i++)
		if (asprintf(&labels[i], "%s%d", pfx, i) < 0)
			labels[i] = NULL;
	snprintf(title, sizeof(title), "%s communication: %s", what, r->run.command ? r->run.command : "");
	snprintf(unit, sizeof(unit), "%% of %s volume (%s)", what,
		 soft_units(r) ? "sampler soft" : r->run.sampler);
	memset(&h, 0, sizeof(h));
	h.title = title;
	h.rows = h.cols = n;
	h.v = pm;
	h.row_labels = (const char *const *)labels;
	h.col_labels = (const char *const *)labels;
	h.y_title = axis;
	h.x_title = axis;
	h.unit = unit;
	snprintf(path, sizeof(path), "%s/%s.svg", dir, name);
	f = fopen(path, "w");
	err = f ? svg__heatmap(f, &h) : -errno;
	if (f && fclose(f) && !err)
		err = -errno;
	for (i = 0; i < n; i++)
		free(labels[i]);
	free(labels);
	free(pm);
	return err;
}

#define SVG_OBJECTS 4	/* access-over-time pictures: the top objects */

static const int kind_shape[] = {
	[LP_ACCESS_LOAD] = SVG_SHAPE_LOAD, [LP_ACCESS_STORE] = SVG_SHAPE_STORE,
	[LP_ACCESS_ATOMIC] = SVG_SHAPE_ATOMIC,
};

/* One object's sampled accesses: offset within it over time, by thread. */
static int write_object_svg(const struct comdetect_report *r, const char *dir, int rank,
			    const struct comdetect_object *o, u64 t0)
{
	char path[4096], title[512], yt[64];
	char **names = calloc(r->res->nthreads ? r->res->nthreads : 1, sizeof(*names));
	struct svg_point *p = calloc(o->npoints ? o->npoints : 1, sizeof(*p));
	struct svg_scatter sc;
	u32 i;
	int err = 0;
	FILE *f;

	if (!names || !p) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < (u32)r->res->nthreads; i++)
		if (asprintf(&names[i], "T%u", i) < 0)
			names[i] = NULL;
	for (i = 0; i < o->npoints; i++) {
		const struct comdetect_object_point *q = &o->points[i];

		p[i].x = (q->time - t0) / 1e9;
		p[i].y = (double)q->off;
		p[i].series = q->thread;
		p[i].shape = q->kind < ARRAY_SIZE(kind_shape) ? kind_shape[q->kind] : SVG_SHAPE_LOAD;
	}
	snprintf(title, sizeof(title), "#%d %s: %u of %" PRIu64 " sampled accesses", rank,
		 o->label, o->npoints, o->line_points_seen);
	snprintf(yt, sizeof(yt), "offset in the object (%" PRIu64 " B)", o->size);
	memset(&sc, 0, sizeof(sc));
	sc.title = title;
	sc.x_title = "time since the first access shown (s)";
	sc.y_title = yt;
	sc.nseries = r->res->nthreads;
	sc.series_names = (const char *const *)names;
	sc.n = o->npoints;
	sc.p = p;
	sc.ymin = 0;
	sc.ymax = o->size > 1 ? (double)o->size - 1 : 1;
	snprintf(path, sizeof(path), "%s/object-%d.svg", dir, rank);
	f = fopen(path, "w");
	err = f ? svg__scatter(f, &sc) : -errno;
	if (f && fclose(f) && !err)
		err = -errno;
out:
	for (i = 0; names && i < (u32)r->res->nthreads; i++)
		free(names[i]);
	free(names);
	free(p);
	return err;
}

/* object-N.svg for the top SVG_OBJECTS objects with points, one time origin. */
static int write_objects_svg(const struct comdetect_report *r, const char *dir)
{
	struct comdetect_object *v = NULL;
	int n = 0, i, err = 0;
	u64 t0 = ~0ull;
	u32 k;

	if (!r->run.syms || comdetect__objects(r->res, r->run.syms, r->run.pid, &v, &n))
		return 0;
	for (i = 0; i < n && i < SVG_OBJECTS; i++)
		for (k = 0; k < v[i].npoints; k++)
			if (v[i].points[k].time < t0)
				t0 = v[i].points[k].time;
	for (i = 0; i < n && i < SVG_OBJECTS && !err; i++)
		if (v[i].npoints)
			err = write_object_svg(r, dir, i + 1, &v[i], t0);
	comdetect__objects_free(v, n);
	return err;
}

int comdetect_report__svg(const void *view, const char *dir)
{
	const struct comdetect_report *r = view;
	const struct comdetect_result *res = r->res;
	int err;

	if (!res->all) {	/* a dense matrix of every thread that lived: no */
		lp_err("--svg: %d threads are too many for thread matrices (at most %d); "
		       "--json has the pairs", res->nthreads, COMDETECT_DENSE_MAX);
		return -EFBIG;
	}
	err = analysis__make_dir(dir);

	if (!err)
		err = write_svg(r, dir, "thread-all", "all", res->all, res->nthreads, "thread", "T");
	if (!err)
		err = write_svg(r, dir, "thread-true", "true-sharing", res->true_sharing,
				res->nthreads, "thread", "T");
	if (!err)
		err = write_svg(r, dir, "thread-false", "false-sharing", res->false_sharing,
				res->nthreads, "thread", "T");
	if (!err)
		err = write_svg(r, dir, "core-all", "all (by core)", res->core_all, res->ncpus,
				"core", "C");
	if (!err)
		err = write_objects_svg(r, dir);
	return err;
}
