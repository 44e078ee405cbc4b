// SPDX-License-Identifier: GPL-2.0
/*
 * lociprof compare: how close a result is to another (a measurement to a
 * microbenchmark's --expect, or one run to another): matrix similarity for
 * comdetect, histogram similarity for reuse. The math is core/compare.c.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "core/compare.h"
#include "core/json.h"

const char compare_usage[] =
	"usage: lociprof compare [--json FILE] <expected.json> <measured.json>\n"
	"\n"
	"Compare two results: the communication matrices of two comdetect results\n"
	"(or a microbenchmark's --expect output), or the histograms of two reuse\n"
	"results. Similarity S = 1 - sum|a - b| / 2 over inputs normalized to sum 1:\n"
	"1 for the same shape, 0 for disjoint ones.\n"
	"\n"
	"    --json FILE       also write the comparison as JSON to FILE ('-': stdout,\n"
	"                      instead of the table)\n"
	"    -h, --help        show this help\n";

struct input {
	const char *path;
	char *text;
	size_t len;
	struct json_value *root;
	int kind;
};

static void input_free(struct input *in)
{
	json__free(in->root);
	free(in->text);
}

static int read_file(const char *path, char **text, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL, *p;
	size_t cap = 0, n = 0, r;
	int ret = 0;

	if (!f)
		return -errno;
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			p = realloc(buf, cap + 1);
			if (!p) {
				ret = -ENOMEM;
				break;
			}
			buf = p;
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0) {
			if (ferror(f))
				ret = -EIO;
			break;
		}
	}
	fclose(f);
	if (ret) {
		free(buf);
		return ret;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

/* Read and parse @in->path; an error message names the file. 0 or -1. */
static int input_load(struct input *in)
{
	struct json_error err;
	char msg[COMPARE_MSG_LEN];
	int ret, line, col;

	ret = read_file(in->path, &in->text, &in->len);
	if (ret) {
		lp_err("cannot read '%s': %s", in->path, strerror(-ret));
		return -1;
	}
	ret = json__parse(in->text, in->len, &in->root, &err);
	if (ret == -ENOMEM) {
		lp_err("'%s': out of memory", in->path);
		return -1;
	}
	if (ret) {
		compare__text_pos(in->text, in->len, err.offset, &line, &col);
		lp_err("'%s': line %d col %d (byte offset %zu): %s", in->path, line, col,
		      err.offset, err.msg);
		return -1;
	}
	in->kind = compare__kind(in->root, msg, sizeof(msg));
	if (in->kind < 0) {
		lp_err("'%s': %s", in->path, msg);
		return -1;
	}
	return 0;
}

static void print_frac(const char *name, double v)
{
	if (isnan(v))
		printf("  %-12s     -  (no transfers)\n", name);
	else
		printf("  %-12s %6.3f\n", name, v);
}

static const char *empty_note(int ee, int em)
{
	if (ee && em)
		return "  (both empty)";
	if (ee)
		return "  (expected empty)";
	if (em)
		return "  (measured empty)";
	return "";
}

static void json_num(struct json_writer *w, const char *key, double v)
{
	if (isnan(v))
		json__null(w, key);
	else
		json__double(w, key, v);
}

static void print_comdetect(const struct input *e, const struct input *m,
			    const struct compare_comdetect *ce,
			    const struct compare_comdetect *cm,
			    const struct compare_comdetect_result *r)
{
	int i;

	printf("expected  %s (%s%s%dx%d)\n", e->path, ce->benchmark,
	       ce->benchmark[0] ? ", " : "", r->n_exp, r->n_exp);
	printf("measured  %s (%s%s%dx%d)\n", m->path, cm->benchmark,
	       cm->benchmark[0] ? ", " : "", r->n_meas, r->n_meas);
	if (r->n_exp != r->n_meas) {
		int n = r->n_exp > r->n_meas ? r->n_exp : r->n_meas;

		printf("note: the matrices differ in size (%dx%d vs %dx%d): compared over the "
		       "%dx%d union, missing cells count as 0\n",
		       r->n_exp, r->n_exp, r->n_meas, r->n_meas, n, n);
	}
	printf("\nsimilarity S = 1 - sum|a - b| / 2 (matrices normalized to sum 1)\n");
	for (i = 0; i < COMPARE_NMAT; i++)
		printf("  %-12s %6.3f%s\n", compare_matrix_names[i], r->s[i],
		       empty_note(r->empty_exp[i], r->empty_meas[i]));
	if (r->has_core) {
		if (r->ncore_exp != r->ncore_meas)
			printf("  (core matrices %dx%d vs %dx%d: compared over the union)\n",
			       r->ncore_exp, r->ncore_exp, r->ncore_meas, r->ncore_meas);
		for (i = 0; i < COMPARE_NMAT; i++) {
			char name[32];

			snprintf(name, sizeof(name), "core %s", compare_matrix_names[i]);
			printf("  %-12s %6.3f\n", name, r->core_s[i]);
		}
	} else if (ce->has_core != cm->has_core) {
		printf("  (core matrix only in the %s result: not compared)\n",
		       ce->has_core ? "expected" : "measured");
	}
	printf("\nfalse-sharing fraction\n");
	print_frac("expected", r->ff_exp);
	print_frac("measured", r->ff_meas);
	print_frac("error", r->ff_err);
	if (r->has_lines) {
		printf("\ntop %d cache lines (Marathe et al. 2005: the expected volume of the measured\n"
		       "top lines over that of the expected top; false positives have none)\n",
		       COMPARE_TOP_LINES);
		print_frac("coverage", r->coverage);
		printf("  %-12s %d of %d\n", "false pos.", r->false_pos, r->top_meas);
	}
}

static void json_comdetect(struct json_writer *w, const struct compare_comdetect_result *r)
{
	int i;

	json__str(w, "kind", "comdetect");
	json__obj_begin(w, "similarity");
	for (i = 0; i < COMPARE_NMAT; i++)
		json__double(w, compare_matrix_names[i], r->s[i]);
	if (r->has_core) {
		json__obj_begin(w, "core");
		for (i = 0; i < COMPARE_NMAT; i++)
			json__double(w, compare_matrix_names[i], r->core_s[i]);
		json__obj_end(w);
	}
	json__obj_end(w);
	json__obj_begin(w, "empty");
	json__arr_begin(w, "expected");
	for (i = 0; i < COMPARE_NMAT; i++)
		if (r->empty_exp[i])
			json__str(w, NULL, compare_matrix_names[i]);
	json__arr_end(w);
	json__arr_begin(w, "measured");
	for (i = 0; i < COMPARE_NMAT; i++)
		if (r->empty_meas[i])
			json__str(w, NULL, compare_matrix_names[i]);
	json__arr_end(w);
	json__obj_end(w);
	json__obj_begin(w, "size");
	json__s64(w, "expected", r->n_exp);
	json__s64(w, "measured", r->n_meas);
	json__obj_end(w);
	json__obj_begin(w, "false_fraction");
	json_num(w, "expected", r->ff_exp);
	json_num(w, "measured", r->ff_meas);
	json_num(w, "error", r->ff_err);
	json__obj_end(w);
	if (r->has_lines) {
		json__obj_begin(w, "top_lines");
		json__s64(w, "n", COMPARE_TOP_LINES);
		json_num(w, "coverage", r->coverage);
		json__s64(w, "false_positives", r->false_pos);
		json__s64(w, "measured", r->top_meas);
		json__obj_end(w);
	}
}

static void print_reuse(const struct input *e, const struct input *m,
			const struct compare_reuse *re, const struct compare_reuse *rm,
			const struct compare_reuse_result *r)
{
	int i;

	printf("expected  %s (%d bins)\n", e->path, re->all.nbins);
	printf("measured  %s (%d bins)\n", m->path, rm->all.nbins);
	if (re->granularity[0] || rm->granularity[0])
		printf("granularity %s\n", re->granularity[0] ? re->granularity : rm->granularity);
	printf("\nsimilarity S = 1 - sum|a - b| / 2 (histograms normalized to sum 1,\n"
	       "bins matched by [lo, hi], a bin missing from one counts as 0)\n");
	printf("  %-12s %6.3f%s\n", "all", r->s, empty_note(r->empty_exp, r->empty_meas));
	if (r->nthreads_exp != r->nthreads_meas && r->nthreads_exp && r->nthreads_meas)
		printf("  (per-thread histograms: %d vs %d, the first %d compared)\n",
		       r->nthreads_exp, r->nthreads_meas, r->nthreads);
	for (i = 0; i < r->nthreads; i++) {
		char name[32];

		snprintf(name, sizeof(name), "thread %d", i);
		printf("  %-12s %6.3f\n", name, r->thread_s[i]);
	}
	if (r->has_se) {
		printf("\nbins beyond %.0f standard errors of the sampling the results carry (stderr:"
		       " the error of a sampled histogram's fractions, not of its time -> distance"
		       " conversion)\n", COMPARE_Z);
		if (r->ndiff)
			printf("  %-24s %8s %8s %8s %6s\n", "bin", "expected", "measured", "se", "z");
		for (i = 0; i < r->ndiff; i++) {
			const struct compare_diff *d = &r->diff[i];
			char bin[48];

			snprintf(bin, sizeof(bin), "%.0f-%.0f", d->lo, d->hi);
			if (isinf(d->z))
				printf("  %-24s %8.3f %8.3f %8s %6s  (no error known: no detection)\n",
				       bin, d->exp, d->meas, "-", "-");
			else
				printf("  %-24s %8.3f %8.3f %8.3f %6.1f\n", bin, d->exp, d->meas,
				       d->se, d->z);
		}
		printf("  (%d bins beyond, %d within)\n", r->ndiff, r->nwithin);
	}
	if (r->has_inval) {
		printf("\ninvalidation fraction (invalidations / (reuses + invalidations))\n");
		print_frac("expected", r->inval_exp);
		print_frac("measured", r->inval_meas);
		print_frac("error", r->inval_err);
	}
}

static void json_reuse(struct json_writer *w, const struct compare_reuse *re,
		       const struct compare_reuse_result *r)
{
	int i;

	json__str(w, "kind", "reuse");
	if (re->granularity[0])
		json__str(w, "granularity", re->granularity);
	json__obj_begin(w, "similarity");
	json__double(w, "all", r->s);
	json__obj_end(w);
	json__arr_begin(w, "per_thread");
	for (i = 0; i < r->nthreads; i++)
		json__double(w, NULL, r->thread_s[i]);
	json__arr_end(w);
	if (r->has_se) {
		json__obj_begin(w, "sampling_error");
		json__double(w, "z", COMPARE_Z);
		json__u64(w, "within", (u64)r->nwithin);
		json__arr_begin(w, "beyond");
		for (i = 0; i < r->ndiff; i++) {
			json__obj_begin(w, NULL);
			json__double(w, "lo", r->diff[i].lo);
			json__double(w, "hi", r->diff[i].hi);
			json__double(w, "expected", r->diff[i].exp);
			json__double(w, "measured", r->diff[i].meas);
			if (isinf(r->diff[i].z)) {
				json__null(w, "stderr");
				json__null(w, "z");
			} else {
				json__double(w, "stderr", r->diff[i].se);
				json__double(w, "z", r->diff[i].z);
			}
			json__obj_end(w);
		}
		json__arr_end(w);
		json__obj_end(w);
	}
	if (r->has_inval) {
		json__obj_begin(w, "invalidation_fraction");
		json_num(w, "expected", r->inval_exp);
		json_num(w, "measured", r->inval_meas);
		json_num(w, "error", r->inval_err);
		json__obj_end(w);
	}
}

int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct input in[2] = { { 0 }, { 0 } };
	const char *json_path = NULL;
	char msg[COMPARE_MSG_LEN];
	struct compare_comdetect cd[2];
	struct compare_comdetect_result cr;
	struct compare_reuse ru[2];
	struct compare_reuse_result rr = { 0 };
	struct json_writer w;
	FILE *jf = NULL;
	int c, i, kind, ret = 1, loaded = 0;

	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json_path = optarg; break;
		case 'h': usage_exit(compare_usage, 0);
		default: usage_exit(compare_usage, 1);
		}
	}
	if (argc - optind != 2) {
		lp_err(argc - optind < 2 ? "two result files are needed" :
		      "too many arguments: two result files are needed");
		usage_exit(compare_usage, 1);
	}
	in[0].path = argv[optind];
	in[1].path = argv[optind + 1];
	for (i = 0; i < 2; i++)
		if (input_load(&in[i]))
			goto out;
	kind = in[0].kind ? in[0].kind : in[1].kind;
	if (!kind) {
		lp_err("neither '%s' nor '%s' has a \"command\" key (comdetect or reuse)",
		      in[0].path, in[1].path);
		goto out;
	}
	if (in[0].kind && in[1].kind && in[0].kind != in[1].kind) {
		lp_err("'%s' is a %s result but '%s' a %s result", in[0].path,
		      in[0].kind == COMPARE_COMDETECT ? "comdetect" : "reuse", in[1].path,
		      in[1].kind == COMPARE_COMDETECT ? "comdetect" : "reuse");
		goto out;
	}
	for (i = 0; i < 2; i++) {
		int r = kind == COMPARE_COMDETECT ?
			compare__read_comdetect(in[i].root, &cd[i], msg, sizeof(msg)) :
			compare__read_reuse(in[i].root, &ru[i], msg, sizeof(msg));

		if (r) {
			lp_err("'%s': %s", in[i].path, r == -ENOMEM ? "out of memory" : msg);
			goto out_free;
		}
		loaded++;
	}
	if (kind == COMPARE_COMDETECT) {
		if (compare__comdetect(&cd[0], &cd[1], &cr)) {
			lp_err("invalid matrix values");
			goto out_free;
		}
	} else {
		int r = compare__reuse(&ru[0], &ru[1], &rr, msg, sizeof(msg));

		if (r) {
			lp_err("'%s' vs '%s': %s", in[0].path, in[1].path,
			      r == -ENOMEM ? "out of memory" : msg);
			goto out_free;
		}
	}
	if (!json_path || strcmp(json_path, "-")) {
		if (kind == COMPARE_COMDETECT)
			print_comdetect(&in[0], &in[1], &cd[0], &cd[1], &cr);
		else
			print_reuse(&in[0], &in[1], &ru[0], &ru[1], &rr);
	}
	ret = 0;
	if (json_path) {
		jf = strcmp(json_path, "-") ? fopen(json_path, "w") : stdout;
		if (!jf) {
			lp_err("cannot open '%s': %s", json_path, strerror(errno));
			ret = 1;
			goto out_free;
		}
		json__init(&w, jf, JSON_PRETTY);
		json__obj_begin(&w, NULL);
		json__str(&w, "command", "compare");
		json__str(&w, "expected", in[0].path);
		json__str(&w, "measured", in[1].path);
		if (kind == COMPARE_COMDETECT)
			json_comdetect(&w, &cr);
		else
			json_reuse(&w, &ru[0], &rr);
		json__obj_end(&w);
		c = json__finish(&w);
		if (jf != stdout && fclose(jf))
			c = -EIO;
		if (c) {
			lp_err("cannot write '%s'", json_path);
			ret = 1;
		}
	}
out_free:
	for (i = 0; i < loaded; i++) {
		if (kind == COMPARE_COMDETECT)
			compare__comdetect_free(&cd[i]);
		else
			compare__reuse_free(&ru[i]);
	}
	compare__reuse_result_free(&rr);
out:
	input_free(&in[0]);
	input_free(&in[1]);
	return ret;
}
