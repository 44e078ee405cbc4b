/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Comparing two results (an expectation and a measurement, or two runs):
 * the similarity of communication matrices and of reuse histograms, and
 * reading both out of lociprof's JSON (comdetect and reuse output, and the
 * microbenchmarks' --expect, which is comdetect JSON).
 *
 * Similarity (Sasongko 2022, 6.5.1, used there for histograms and here for
 * matrices too): normalize each to sum 1, then
 *
 *	S = 1 - 1/2 * sum_i |a_i - b_i|
 *
 * S is 1 for identical shapes and 0 for disjoint ones. A zero (empty)
 * input stays zero: two empty inputs are identical (S = 1), an empty one
 * against a non-empty one has nothing in common (S = 0).
 *
 * Readers fill a message naming the offending key ("matrix.all.2.1:
 * expected a number, found string") and return -EINVAL on a missing key or
 * a wrong type.
 */
#ifndef LP_COMPARE_H
#define LP_COMPARE_H
#include <stddef.h>
#include "core/json.h"

#define COMPARE_MSG_LEN 256

enum compare_kind {
	COMPARE_COMDETECT = 1,
	COMPARE_REUSE = 2,
};

/* Sum of @n values (0 for n = 0). */
double compare__sum(const double *a, size_t n);

/*
 * Similarity of an @na x @na and an @nb x @nb matrix (row-major), compared
 * over the max(na, nb) square union: cells missing from the smaller one are
 * 0. -EINVAL if a size is negative or a cell negative, NaN or infinite.
 */
int compare__matrix_union(const double *a, int na, const double *b, int nb,
			  double *s);

/* One histogram bin: [lo, hi] of a finite distance, or a named one. */
enum compare_bin_kind {
	COMPARE_BIN_FINITE = 0,
	COMPARE_BIN_COLD = 1,	/* "cold" or "inf": first access, infinite */
	COMPARE_BIN_INVAL = 2,	/* "inval": found invalidated */
};

struct compare_bin {
	enum compare_bin_kind kind;
	double lo, hi;		/* COMPARE_BIN_FINITE only; hi may be inf */
	double w;		/* fraction or count */
	double frac, se;	/* a sampled result's "fraction" and "stderr" */
	int has_se;		/* both given */
};

struct compare_hist {
	int nbins;
	struct compare_bin *bins;
};

/*
 * Histogram similarity over the union of the bins of @a and @b, bins
 * matched by (kind, lo, hi) (a bin present in only one counts as 0 in the
 * other). -EINVAL on a negative, NaN or infinite weight.
 */
int compare__hist(const struct compare_hist *a, const struct compare_hist *b,
		  double *s);
double compare__hist_sum(const struct compare_hist *h);

/* A square matrix read from JSON. */
struct compare_matrix {
	int n;
	double *cell;		/* n * n, row-major; NULL if n == 0 */
};

enum { COMPARE_ALL, COMPARE_TRUE, COMPARE_FALSE, COMPARE_NMAT };
extern const char *const compare_matrix_names[COMPARE_NMAT];	/* all true false */

struct compare_comdetect {
	struct compare_matrix m[COMPARE_NMAT];		/* matrix.all/true/false */
	int has_core;
	struct compare_matrix core[COMPARE_NMAT];	/* core_matrix.* */
	double totals[COMPARE_NMAT];			/* totals.all/true/false */
	/* false_fraction key, else totals.false / totals.all; NaN if 0/0 */
	double false_fraction;
	int false_fraction_from_key;
	char benchmark[64];				/* "" if absent */
	/* lines[]: each line's address and volume (true + false), as listed */
	int nlines;
	u64 *line_addr;
	double *line_vol;
};

/* Marathe et al. 2005 (4.1): quality of a lossy top-N against the full one */
#define COMPARE_TOP_LINES 10

struct compare_reuse {
	struct compare_hist all;			/* bins */
	int nthreads;					/* per_thread, 0 if absent */
	struct compare_hist *per_thread;
	char granularity[64];				/* "" if absent */
	char metric[64];				/* "" if absent */
	int has_inval;					/* reuses and invalidations */
	double reuses, invalidations;
};

/*
 * Which kind of result @root is, from its "command" key: COMPARE_COMDETECT,
 * COMPARE_REUSE, 0 if there is no "command" key, or -EINVAL (with @msg) if
 * it is not a string or names another command.
 */
int compare__kind(const struct json_value *root, char *msg, size_t len);

int compare__read_comdetect(const struct json_value *root,
			    struct compare_comdetect *c, char *msg, size_t len);
void compare__comdetect_free(struct compare_comdetect *c);

int compare__read_reuse(const struct json_value *root, struct compare_reuse *r,
			char *msg, size_t len);
void compare__reuse_free(struct compare_reuse *r);

struct compare_comdetect_result {
	double s[COMPARE_NMAT];
	int n_exp, n_meas;				/* matrix.all sizes */
	int has_core;					/* both have core_matrix */
	double core_s[COMPARE_NMAT];
	int ncore_exp, ncore_meas;
	int empty_exp[COMPARE_NMAT], empty_meas[COMPARE_NMAT];
	double ff_exp, ff_meas, ff_err;			/* NaN if undefined */
	/*
	 * Both list lines: V1 = the expected volume of the expected top
	 * COMPARE_TOP_LINES lines, V2 = the expected volume of the measured
	 * top ones; coverage = V2 / V1. False positives: measured top lines
	 * with no expected volume (absent from the expected list counts 0).
	 */
	int has_lines;
	int top_meas;					/* lines in the measured top */
	double coverage;
	int false_pos;
};

int compare__comdetect(const struct compare_comdetect *exp,
		       const struct compare_comdetect *meas,
		       struct compare_comdetect_result *r);

/* A bin whose two fractions differ by more than 2 standard errors. */
struct compare_diff {
	double lo, hi;
	double exp, meas;				/* normalized as S normalizes */
	double se;					/* of the difference; 0: none known */
	double z;					/* |exp - meas| / se (INFINITY: se 0) */
};

#define COMPARE_Z 2.0

struct compare_reuse_result {
	double s;					/* bins */
	/*
	 * With a standard error in either input (a sampled reuse result):
	 * the finite bins beyond COMPARE_Z of them, largest z first, and how
	 * many were within.
	 */
	int has_se;
	int ndiff, nwithin;
	struct compare_diff *diff;
	int empty_exp, empty_meas;
	int nthreads;					/* compared: min of both */
	int nthreads_exp, nthreads_meas;
	double *thread_s;				/* nthreads entries */
	int has_inval;					/* both have it */
	double inval_exp, inval_meas, inval_err;	/* NaN if 0/0 */
};

/*
 * Compare two reuse results. -EINVAL with @msg if their granularities
 * (or metrics) are both given and differ: the bins would mean different
 * things.
 */
int compare__reuse(const struct compare_reuse *exp,
		   const struct compare_reuse *meas,
		   struct compare_reuse_result *r, char *msg, size_t len);
void compare__reuse_result_free(struct compare_reuse_result *r);

/* 1-based line and column of byte @offset in @text (for error messages). */
void compare__text_pos(const char *text, size_t len, size_t offset,
		       int *line, int *col);
#endif
