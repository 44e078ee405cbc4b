/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Figures for reports and papers as standalone SVG 1.1, no dependencies:
 * a heatmap (communication matrices), a bar chart (reuse histograms,
 * expected vs measured) and a line plot with a log2 x axis (miss-ratio or
 * hit-rate curves over cache size).
 *
 * Text is escaped (& < > " '); control characters XML cannot hold become
 * '?'. Sizes are fixed in pixels (12 px sans-serif), so figures made by the
 * same code line up. Every function returns 0, -EINVAL for a bad
 * description, or -errno of a failed write (checked after a flush).
 */
#ifndef LP_SVG_H
#define LP_SVG_H
#include <stdio.h>

#define SVG_MAX_SERIES	8

struct svg_heatmap {
	const char *title;
	int rows, cols;
	const double *v;			/* rows * cols, row-major */
	const char *const *row_labels;		/* NULL: 0, 1, ... */
	const char *const *col_labels;		/* NULL: 0, 1, ... */
	const char *x_title, *y_title;		/* e.g. "thread", "thread" */
	const char *unit;			/* colour bar label, may be NULL */
	/* colour scale range; both 0: min(0, smallest) .. largest value */
	double vmin, vmax;
};

/*
 * One <rect> per cell (and no other <rect>), white for the smallest value
 * and dark purple for the largest, a colour bar with min/mid/max ticks,
 * and each cell's value printed when rows and cols are <= 16. NaN cells
 * are drawn light grey with no value.
 */
int svg__heatmap(FILE *f, const struct svg_heatmap *h);

/* Sequential colour of t in [0, 1] (clamped), as "#rrggbb" into @buf[8]. */
void svg__color(double t, char buf[8]);

struct svg_series {
	const char *name;			/* legend entry; may be NULL */
	const double *y;			/* bars: n values; lines: n values */
	const double *x;			/* lines only: n values (> 0) */
	int n;					/* lines only */
	const double *err;			/* bars only, may be NULL: n half-widths
						 * (>= 0) of an error bar on each */
};

struct svg_bars {
	const char *title, *x_title, *y_title;
	int n;					/* categories */
	const char *const *labels;		/* n labels: "0", "1", "2-3", .., "cold" */
	int nseries;				/* 1 .. SVG_MAX_SERIES, side by side */
	const struct svg_series *series;	/* each with n values >= 0 in y */
};

/*
 * Bars from a zero baseline, height proportional to the value; y axis from
 * 0 to a round number with 4-8 ticks; a legend when nseries > 1. A series
 * with err gets an error bar (one <path class="err">) of value +- err on
 * each bar whose err is above 0, clipped at 0.
 */
int svg__bars(FILE *f, const struct svg_bars *b);

struct svg_lines {
	const char *title, *x_title, *y_title;
	int nseries;				/* 1 .. SVG_MAX_SERIES */
	const struct svg_series *series;	/* x, y, n each */
	double ymin, ymax;			/* both 0: from the data */
};

/*
 * Line plot with a logarithmic x axis: x positions are linear in log2(x),
 * ticks at powers of two labelled with binary suffixes (4K, 64K, 1M).
 * Points with x <= 0 or a NaN are skipped (the line breaks there).
 */
int svg__lines(FILE *f, const struct svg_lines *l);

enum svg_shape { SVG_SHAPE_LOAD, SVG_SHAPE_STORE, SVG_SHAPE_ATOMIC, SVG_SHAPE__MAX };

struct svg_point {
	double x, y;
	int series;				/* its colour: series % SVG_MAX_SERIES */
	int shape;				/* enum svg_shape */
};

struct svg_scatter {
	const char *title, *x_title, *y_title;
	int nseries;				/* legend entries (at most SVG_MAX_SERIES shown) */
	const char *const *series_names;
	int n;
	const struct svg_point *p;
	double ymin, ymax;			/* both 0: from the data */
};

/*
 * Points on linear axes (x from the smallest x), one element per point
 * with class "pt load|store|atomic" and its series, x and y in data-s,
 * data-x and data-y:
 * loads hollow circles, stores filled squares, atomics filled triangles,
 * coloured by series; a legend of both.
 */
int svg__scatter(FILE *f, const struct svg_scatter *sc);

/* "4K", "64K", "1M", "1.5G": @v bytes with a binary suffix, into @buf. */
void svg__bytes_label(double v, char *buf, size_t len);

#endif
