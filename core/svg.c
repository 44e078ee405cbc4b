// SPDX-License-Identifier: GPL-2.0
/*
 * SVG figures: heatmap, bar chart, log-x line plot. Plain fprintf; text
 * widths are estimated (7 px per character at 12 px), which is close
 * enough for labels of a few characters.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/svg.h"

#define FONT		"Helvetica, Arial, sans-serif"
#define CHAR_W		7.0	/* average glyph width at 12 px */
#define TITLE_Y		24
#define AXIS_COLOR	"#333333"
#define GRID_COLOR	"#e5e5e5"

/* Okabe-Ito: distinguishable with colour blindness and in greyscale order */
static const char *const series_color[SVG_MAX_SERIES] = {
	"#0072B2", "#E69F00", "#009E73", "#CC79A7",
	"#56B4E9", "#D55E00", "#000000", "#F0E442",
};
static const char *const series_dash[SVG_MAX_SERIES] = {
	"", "6 3", "2 3", "8 3 2 3", "", "6 3", "2 3", "8 3 2 3",
};

/*
 * ColorBrewer BuPu (9 classes) starting at pure white: every channel is
 * non-increasing from stop to stop, so luminance falls monotonically.
 */
static const unsigned char scale[][3] = {
	{ 0xff, 0xff, 0xff }, { 0xe0, 0xec, 0xf4 }, { 0xbf, 0xd3, 0xe6 },
	{ 0x9e, 0xbc, 0xda }, { 0x8c, 0x96, 0xc6 }, { 0x8c, 0x6b, 0xb1 },
	{ 0x88, 0x41, 0x9d }, { 0x81, 0x0f, 0x7c }, { 0x4d, 0x00, 0x4b },
};
#define NSTOPS ((int)(sizeof(scale) / sizeof(scale[0])))

void svg__color(double t, char buf[8])
{
	double x, fr;
	int i, c, rgb[3];

	if (!(t > 0))		/* also NaN */
		t = 0;
	if (t > 1)
		t = 1;
	x = t * (NSTOPS - 1);
	i = (int)x;
	if (i >= NSTOPS - 1)
		i = NSTOPS - 2;
	fr = x - i;
	for (c = 0; c < 3; c++)
		rgb[c] = (int)lround(scale[i][c] + (scale[i + 1][c] - scale[i][c]) * fr);
	snprintf(buf, 8, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}

/* WCAG relative luminance of "#rrggbb", to pick black or white text */
static double luminance(const char *hex)
{
	unsigned int r, g, b;
	double ch[3];
	int i;

	if (sscanf(hex, "#%02x%02x%02x", &r, &g, &b) != 3)
		return 1;
	ch[0] = r / 255.0;
	ch[1] = g / 255.0;
	ch[2] = b / 255.0;
	for (i = 0; i < 3; i++)
		ch[i] = ch[i] <= 0.04045 ? ch[i] / 12.92 : pow((ch[i] + 0.055) / 1.055, 2.4);
	return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2];
}

/* Text content or attribute value, escaped; bytes XML 1.0 forbids -> '?' */
static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			fputc(c < 0x20 && c != '\t' && c != '\n' && c != '\r' ? '?' : c, f);
		}
	}
}

static double text_w(const char *s)
{
	return s ? strlen(s) * CHAR_W : 0;
}

static void begin(FILE *f, double w, double h, const char *title)
{
	errno = 0;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
		"width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"font-family=\"%s\" font-size=\"12\">\n", w, h, w, h, FONT);
	if (title) {
		fputs("<title>", f);
		esc(f, title);
		fputs("</title>\n", f);
	}
	/* background as a path: <rect> is kept for data marks */
	fprintf(f, "<path d=\"M0 0H%.0fV%.0fH0Z\" fill=\"#ffffff\"/>\n", w, h);
	if (title) {
		fprintf(f, "<text class=\"title\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" "
			"font-size=\"14\" font-weight=\"bold\">", w / 2, TITLE_Y);
		esc(f, title);
		fputs("</text>\n", f);
	}
}

static int end(FILE *f)
{
	fputs("</svg>\n", f);
	if (fflush(f) || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}

static void text(FILE *f, const char *cls, double x, double y, const char *anchor,
		 double rotate, const char *s)
{
	fprintf(f, "<text class=\"%s\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"%s\"", cls, x, y,
		anchor);
	if (rotate)
		fprintf(f, " transform=\"rotate(%.0f %.2f %.2f)\"", rotate, x, y);
	fputc('>', f);
	esc(f, s);
	fputs("</text>\n", f);
}

/* A value for a cell or tick, short: 0.33, 0.042, 12, 4.5k, 60M */
static void fmt_val(double v, double absmax, char *buf, size_t len)
{
	double a = fabs(v);

	if (isnan(v))
		snprintf(buf, len, "-");
	else if (v == 0)
		snprintf(buf, len, "0");
	else if (absmax >= 1e9 || a >= 1e9)
		snprintf(buf, len, "%.3gG", v / 1e9);
	else if (absmax >= 1e6 || a >= 1e6)
		snprintf(buf, len, "%.3gM", v / 1e6);
	else if (absmax >= 1e4 || a >= 1e4)
		snprintf(buf, len, "%.3gk", v / 1e3);
	else if (absmax >= 10)
		snprintf(buf, len, "%.0f", v);
	else if (absmax >= 0.1)
		snprintf(buf, len, "%.2f", v);
	else
		snprintf(buf, len, "%.2g", v);
}

/* Tick label for multiples of @step: enough decimals to tell them apart */
static void fmt_tick(double v, double step, char *buf, size_t len)
{
	int dec = 0;

	if (fabs(v) < step * 1e-9)
		v = 0;
	if (step >= 1e4) {
		fmt_val(v, step, buf, len);
		return;
	}
	while (dec < 10 && fabs(step * pow(10, dec) - round(step * pow(10, dec))) > 1e-9)
		dec++;
	snprintf(buf, len, "%.*f", dec, v);
}

/* Round step (1, 2, 2.5, 5 x 10^k) for about @nticks intervals over @range */
static double nice_step(double range, int nticks)
{
	double raw = range / nticks, mag = pow(10, floor(log10(raw))), r = raw / mag;

	if (r <= 1)
		return mag;
	if (r <= 2)
		return 2 * mag;
	if (r <= 2.5)
		return 2.5 * mag;
	if (r <= 5)
		return 5 * mag;
	return 10 * mag;
}

/* --------------------------------------------------------------- heatmap */

/* Row or column @i's label: the caller's, else its index. */
static const char *hm_label(const char *const *labels, int i, char *buf, size_t len)
{
	if (labels && labels[i])
		return labels[i];
	snprintf(buf, len, "%d", i);
	return buf;
}

/* The heat map's geometry and colour range, computed once. */
struct hm_layout {
	double lo, hi, absmax;		/* colour range */
	double cell, left, top, pw, ph;	/* cells and plot area */
	double cbx, tw;			/* colour bar x, widest tick label */
	int values;			/* small map: numbers in the cells */
	int step_r, step_c;		/* label every step-th row/column */
};

static void hm_range(const struct svg_heatmap *h, struct hm_layout *l)
{
	double lo = NAN, hi = NAN;
	int i;

	for (i = 0; i < h->rows * h->cols; i++) {
		if (isnan(h->v[i]))
			continue;
		if (isnan(lo) || h->v[i] < lo)
			lo = h->v[i];
		if (isnan(hi) || h->v[i] > hi)
			hi = h->v[i];
	}
	if (isnan(lo))
		lo = hi = 0;
	if (lo > 0)
		lo = 0;
	if (h->vmin != 0 || h->vmax != 0) {
		lo = h->vmin;
		hi = h->vmax;
	}
	if (!(hi > lo))
		hi = lo + 1;
	l->lo = lo;
	l->hi = hi;
	l->absmax = fmax(fabs(lo), fabs(hi));
}

/* Cell size, label widths and steps, margins; returns the picture's size. */
static void hm_layout(const struct svg_heatmap *h, struct hm_layout *l, double *w, double *ht)
{
	double lw = 0, cw = 0;
	int i, k, nmax = h->rows > h->cols ? h->rows : h->cols;
	char buf[32];

	l->values = h->rows <= 16 && h->cols <= 16;
	l->cell = l->values ? fmin(48, 448.0 / nmax) : fmax(2, 512.0 / nmax);
	hm_range(h, l);
	for (i = 0; i < h->rows; i++)
		lw = fmax(lw, text_w(hm_label(h->row_labels, i, buf, sizeof(buf))));
	l->tw = 0;
	for (k = 0; k < 3; k++) {
		fmt_val(l->lo + (l->hi - l->lo) * k / 2, l->absmax, buf, sizeof(buf));
		l->tw = fmax(l->tw, text_w(buf));
	}
	/* a label every step-th row/column (a power of two), none overlapping */
	for (l->step_r = 1; l->step_r * l->cell < 14; l->step_r *= 2)
		;
	for (i = 0; i < h->cols; i++)
		cw = fmax(cw, text_w(hm_label(h->col_labels, i, buf, sizeof(buf))));
	for (l->step_c = 1; l->step_c * l->cell < cw + 12; l->step_c *= 2)
		;
	l->pw = h->cols * l->cell;
	l->ph = h->rows * l->cell;
	l->left = 16 + 14 + lw + 8;	/* y title, gap, row labels, gap */
	l->top = TITLE_Y + 22;
	l->cbx = l->left + l->pw + 20;
	*w = l->cbx + 14 + 6 + l->tw + (h->unit ? 24 : 0) + 12;
	*w = fmax(*w, text_w(h->title) * 14 / 12 + 24);
	*ht = l->top + l->ph + 16 + (h->x_title ? 20 : 0) + 12;
}

static void hm_cells(FILE *f, const struct svg_heatmap *h, const struct hm_layout *l)
{
	char buf[32], col[8];
	int i, j;

	/* thin white gaps between cells, only where cells are big enough */
	fprintf(f, "<g class=\"cells\"%s>\n",
		l->values ? " stroke=\"#ffffff\" stroke-width=\"0.5\"" : " shape-rendering=\"crispEdges\"");
	for (i = 0; i < h->rows; i++) {
		for (j = 0; j < h->cols; j++) {
			double v = h->v[i * h->cols + j];

			if (isnan(v))
				snprintf(col, sizeof(col), "#d9d9d9");
			else
				svg__color((v - l->lo) / (l->hi - l->lo), col);
			fprintf(f, "<rect class=\"cell\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
				"height=\"%.2f\" fill=\"%s\"", l->left + j * l->cell, l->top + i * l->cell,
				l->cell, l->cell, col);
			if (!isnan(v)) {
				fmt_val(v, l->absmax, buf, sizeof(buf));
				fputs("><title>", f);
				esc(f, buf);
				fputs("</title></rect>\n", f);
			} else {
				fputs("/>\n", f);
			}
		}
	}
	fputs("</g>\n", f);
}

/* The numbers in the cells of a small map, dark or light against the cell. */
static void hm_values(FILE *f, const struct svg_heatmap *h, const struct hm_layout *l)
{
	char buf[32], col[8];
	int i, j;

	fprintf(f, "<g class=\"values\" font-size=\"%d\" text-anchor=\"middle\">\n",
		l->cell >= 40 ? 11 : 9);
	for (i = 0; i < h->rows; i++) {
		for (j = 0; j < h->cols; j++) {
			double v = h->v[i * h->cols + j];

			if (isnan(v))
				continue;
			svg__color((v - l->lo) / (l->hi - l->lo), col);
			fmt_val(v, l->absmax, buf, sizeof(buf));
			fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" fill=\"%s\">",
				l->left + (j + 0.5) * l->cell, l->top + (i + 0.5) * l->cell + 4,
				luminance(col) < 0.35 ? "#ffffff" : "#222222");
			esc(f, buf);
			fputs("</text>\n", f);
		}
	}
	fputs("</g>\n", f);
}

/* Frame, row labels on the left, column labels below, axis titles. */
static void hm_labels(FILE *f, const struct svg_heatmap *h, const struct hm_layout *l)
{
	char buf[32];
	int i;

	fprintf(f, "<path class=\"frame\" d=\"M%.2f %.2fH%.2fV%.2fH%.2fZ\" fill=\"none\" "
		"stroke=\"%s\" stroke-width=\"1\"/>\n", l->left, l->top, l->left + l->pw,
		l->top + l->ph, l->left, AXIS_COLOR);
	for (i = 0; i < h->rows; i += l->step_r)
		text(f, "rowlabel", l->left - 6, l->top + (i + 0.5) * l->cell + 4, "end", 0,
		     hm_label(h->row_labels, i, buf, sizeof(buf)));
	for (i = 0; i < h->cols; i += l->step_c)
		text(f, "collabel", l->left + (i + 0.5) * l->cell, l->top + l->ph + 15, "middle", 0,
		     hm_label(h->col_labels, i, buf, sizeof(buf)));
	if (h->x_title)
		text(f, "xtitle", l->left + l->pw / 2, l->top + l->ph + 34, "middle", 0, h->x_title);
	if (h->y_title)
		text(f, "ytitle", 18, l->top + l->ph / 2, "middle", -90, h->y_title);
}

/* The colour bar: the same stops as a gradient, top = max, three ticks. */
static void hm_colorbar(FILE *f, const struct svg_heatmap *h, const struct hm_layout *l)
{
	double cbx = l->cbx, top = l->top, ph = l->ph;
	char buf[32];
	int k;

	fputs("<defs><linearGradient id=\"scale\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">\n", f);
	for (k = 0; k < NSTOPS; k++)
		fprintf(f, "<stop offset=\"%.4f\" stop-color=\"#%02x%02x%02x\"/>\n",
			(double)k / (NSTOPS - 1), scale[k][0], scale[k][1], scale[k][2]);
	fputs("</linearGradient></defs>\n", f);
	fprintf(f, "<path class=\"colorbar\" d=\"M%.2f %.2fH%.2fV%.2fH%.2fZ\" "
		"fill=\"url(#scale)\" stroke=\"%s\" stroke-width=\"0.5\"/>\n",
		cbx, top, cbx + 14, top + ph, cbx, AXIS_COLOR);
	for (k = 0; k < 3; k++) {
		double y = top + ph - ph * k / 2;

		fmt_val(l->lo + (l->hi - l->lo) * k / 2, l->absmax, buf, sizeof(buf));
		fprintf(f, "<path d=\"M%.2f %.2fh4\" stroke=\"%s\"/>\n", cbx + 14, y, AXIS_COLOR);
		text(f, "cbtick", cbx + 20, y + 4, "start", 0, buf);
	}
	if (h->unit)
		text(f, "unit", cbx + 14 + 6 + l->tw + 14, top + ph / 2, "middle", -90, h->unit);
}

int svg__heatmap(FILE *f, const struct svg_heatmap *h)
{
	struct hm_layout l;
	double w, ht;

	if (!f || !h || h->rows <= 0 || h->cols <= 0 || !h->v)
		return -EINVAL;
	hm_layout(h, &l, &w, &ht);
	begin(f, w, ht, h->title);
	hm_cells(f, h, &l);
	if (l.values)
		hm_values(f, h, &l);
	hm_labels(f, h, &l);
	hm_colorbar(f, h, &l);
	return end(f);
}

/* ------------------------------------------------------------- axes, legend */

struct yaxis {
	double lo, hi, step;
	double top, bottom;		/* pixels */
};

static double ypix(const struct yaxis *a, double v)
{
	return a->bottom - (v - a->lo) / (a->hi - a->lo) * (a->bottom - a->top);
}

/* Ticks, labels and light grid lines of a linear y axis */
static void draw_yaxis(FILE *f, const struct yaxis *a, double left, double right,
		       const char *title, double *label_w)
{
	char buf[32];
	double v, w = 0;
	int i, n = (int)lround((a->hi - a->lo) / a->step);

	for (i = 0; i <= n; i++) {
		v = a->lo + i * a->step;
		fmt_tick(v, a->step, buf, sizeof(buf));
		w = fmax(w, text_w(buf));
	}
	for (i = 0; i <= n; i++) {
		double y;

		v = a->lo + i * a->step;
		y = ypix(a, v);
		fmt_tick(v, a->step, buf, sizeof(buf));
		if (i > 0)
			fprintf(f, "<path class=\"grid\" d=\"M%.2f %.2fH%.2f\" stroke=\"%s\"/>\n",
				left, y, right, GRID_COLOR);
		fprintf(f, "<path d=\"M%.2f %.2fh-4\" stroke=\"%s\"/>\n", left, y, AXIS_COLOR);
		text(f, "ytick", left - 7, y + 4, "end", 0, buf);
	}
	fprintf(f, "<path class=\"axis\" d=\"M%.2f %.2fV%.2f\" stroke=\"%s\"/>\n", left, a->top,
		a->bottom, AXIS_COLOR);
	if (title)
		text(f, "ytitle", left - 7 - w - 12, (a->top + a->bottom) / 2, "middle", -90, title);
	if (label_w)
		*label_w = w;
}

/* Width the y tick labels of @a will take */
static double ytick_w(const struct yaxis *a)
{
	char buf[32];
	double w = 0;
	int i, n = (int)lround((a->hi - a->lo) / a->step);

	for (i = 0; i <= n; i++) {
		fmt_tick(a->lo + i * a->step, a->step, buf, sizeof(buf));
		w = fmax(w, text_w(buf));
	}
	return w;
}

static void set_yrange(struct yaxis *a, double lo, double hi)
{
	if (!(hi > lo))
		hi = lo + 1;
	a->step = nice_step(hi - lo, 5);
	a->lo = floor(lo / a->step + 1e-9) * a->step;
	a->hi = ceil(hi / a->step - 1e-9) * a->step;
	if (a->hi <= a->lo)
		a->hi = a->lo + a->step;
}

static double legend_w(const struct svg_series *s, int n)
{
	double w = 0;
	int i;

	for (i = 0; i < n; i++)
		w = fmax(w, text_w(s[i].name));
	return w + 30;
}

/* Legend box at (x, y) top-left; @line: a line sample, else a swatch */
static void draw_legend(FILE *f, const struct svg_series *s, int n, double x, double y,
			int line)
{
	int i;

	fprintf(f, "<g class=\"legend\">\n");
	for (i = 0; i < n; i++) {
		double yy = y + i * 18;

		if (line)
			fprintf(f, "<path d=\"M%.2f %.2fh20\" stroke=\"%s\" stroke-width=\"2\"%s%s%s/>\n",
				x, yy + 8, series_color[i], *series_dash[i] ? " stroke-dasharray=\"" : "",
				series_dash[i], *series_dash[i] ? "\"" : "");
		else
			fprintf(f, "<rect class=\"swatch\" x=\"%.2f\" y=\"%.2f\" width=\"12\" "
				"height=\"12\" fill=\"%s\"/>\n", x + 4, yy + 2, series_color[i]);
		text(f, "legend", x + 26, yy + 12, "start", 0, s[i].name ? s[i].name : "");
	}
	fputs("</g>\n", f);
}

/* ------------------------------------------------------------------- bars */

int svg__bars(FILE *f, const struct svg_bars *b)
{
	struct yaxis ya;
	double ymax = 0, pw, gw, bw, left, top = TITLE_Y + 22, ph = 260, lw = 0, w, ht;
	double xlab_h, legw = 0;
	int i, s, rot;

	if (!f || !b || b->n <= 0 || b->nseries < 1 || b->nseries > SVG_MAX_SERIES ||
	    !b->series)
		return -EINVAL;
	for (s = 0; s < b->nseries; s++) {
		if (!b->series[s].y)
			return -EINVAL;
		for (i = 0; i < b->n; i++) {
			double v = b->series[s].y[i];
			double e = b->series[s].err ? b->series[s].err[i] : 0;

			if (!isfinite(v) || v < 0 || !isfinite(e) || e < 0)
				return -EINVAL;
			ymax = fmax(ymax, v + e);
		}
	}
	for (i = 0; i < b->n; i++)
		lw = fmax(lw, text_w(b->labels ? b->labels[i] : "00"));
	pw = fmin(fmax(b->n * (b->nseries * 12.0 + 10), 360), 760);
	gw = pw / b->n;
	bw = gw * 0.8 / b->nseries;
	rot = lw + 4 > gw;		/* labels overlap: slant them */
	xlab_h = rot ? lw * 0.71 + 14 : 16;

	ya.top = top;
	ya.bottom = top + ph;
	set_yrange(&ya, 0, ymax);
	left = 16 + 12 + ytick_w(&ya) + 10;
	if (b->nseries > 1)
		legw = legend_w(b->series, b->nseries);
	w = left + pw + 16;
	w = fmax(w, text_w(b->title) * 14 / 12 + 24);
	ht = top + ph + xlab_h + (b->x_title ? 22 : 0) + 10;

	begin(f, w, ht, b->title);
	draw_yaxis(f, &ya, left, left + pw, b->y_title, NULL);
	fputs("<g class=\"bars\">\n", f);
	for (i = 0; i < b->n; i++) {
		for (s = 0; s < b->nseries; s++) {
			double v = b->series[s].y[i], y = ypix(&ya, v);

			fprintf(f, "<rect class=\"bar\" x=\"%.3f\" y=\"%.3f\" width=\"%.3f\" "
				"height=\"%.3f\" fill=\"%s\"><title>", left + i * gw + gw * 0.1 + s * bw,
				y, bw, ya.bottom - y, series_color[s]);
			if (b->series[s].name) {
				esc(f, b->series[s].name);
				fputs(": ", f);
			}
			if (b->series[s].err && b->series[s].err[i] > 0)
				fprintf(f, "%g +- %g</title></rect>\n", v, b->series[s].err[i]);
			else
				fprintf(f, "%g</title></rect>\n", v);
		}
	}
	fputs("</g>\n", f);
	for (i = 0; i < b->n; i++) {	/* error bars over the bars */
		for (s = 0; s < b->nseries; s++) {
			double e = b->series[s].err ? b->series[s].err[i] : 0, v = b->series[s].y[i];
			double x = left + i * gw + gw * 0.1 + s * bw + bw / 2, y0, y1, c;

			if (!(e > 0))
				continue;
			y0 = ypix(&ya, v - e > 0 ? v - e : 0);
			y1 = ypix(&ya, v + e);
			c = fmin(bw / 3, 4);
			fprintf(f, "<path class=\"err\" d=\"M%.2f %.2fV%.2fM%.2f %.2fH%.2fM%.2f %.2fH%.2f\" "
				"stroke=\"%s\" fill=\"none\"/>\n", x, y0, y1, x - c, y0, x + c, x - c, y1,
				x + c, AXIS_COLOR);
		}
	}
	fprintf(f, "<path class=\"axis\" d=\"M%.2f %.2fH%.2f\" stroke=\"%s\"/>\n", left, ya.bottom,
		left + pw, AXIS_COLOR);
	for (i = 0; i < b->n; i++) {
		char buf[24];
		const char *lab = b->labels ? b->labels[i] : NULL;
		double x = left + (i + 0.5) * gw;

		if (!lab) {
			snprintf(buf, sizeof(buf), "%d", i);
			lab = buf;
		}
		if (rot)
			text(f, "xtick", x + 4, ya.bottom + 12, "end", -45, lab);
		else
			text(f, "xtick", x, ya.bottom + 15, "middle", 0, lab);
	}
	if (b->x_title)
		text(f, "xtitle", left + pw / 2, ya.bottom + xlab_h + 18, "middle", 0, b->x_title);
	if (b->nseries > 1)
		draw_legend(f, b->series, b->nseries, left + pw - legw - 4, top + 4, 0);
	return end(f);
}

/* ------------------------------------------------------------------ lines */

void svg__bytes_label(double v, char *buf, size_t len)
{
	static const char suffix[] = "KMGTPE";
	int k = -1;

	while (fabs(v) >= 1024 && k < 5) {
		v /= 1024;
		k++;
	}
	if (k < 0)
		snprintf(buf, len, "%g", v);
	else
		snprintf(buf, len, "%.3g%c", v, suffix[k]);
}

static int point_ok(const struct svg_series *s, int i)
{
	return s->x[i] > 0 && isfinite(s->x[i]) && isfinite(s->y[i]);
}

/* A log2 x axis: whole powers of two, a tick every step-th, ends on ticks. */
struct xaxis {
	int lo2, hi2, step;
	double left, pw;
};

static double xpix(const struct xaxis *xa, double x)
{
	return xa->left + (log2(x) - xa->lo2) / (double)(xa->hi2 - xa->lo2) * xa->pw;
}

/* The data's bounds over every valid point; 0, or -EINVAL for a bad series. */
static int lines_bounds(const struct svg_lines *l, double *xmin, double *xmax,
			double *ymin, double *ymax)
{
	int s, i, npts = 0;

	*xmin = *ymin = INFINITY;
	*xmax = *ymax = -INFINITY;
	for (s = 0; s < l->nseries; s++) {
		const struct svg_series *se = &l->series[s];

		if (se->n < 0 || (se->n && (!se->x || !se->y)))
			return -EINVAL;
		for (i = 0; i < se->n; i++) {
			if (!point_ok(se, i))
				continue;
			*xmin = fmin(*xmin, se->x[i]);
			*xmax = fmax(*xmax, se->x[i]);
			*ymin = fmin(*ymin, se->y[i]);
			*ymax = fmax(*ymax, se->y[i]);
			npts++;
		}
	}
	if (!npts) {
		*xmin = 1;
		*xmax = 2;
		*ymin = 0;
		*ymax = 1;
	}
	return 0;
}

static void xaxis_range(struct xaxis *xa, double xmin, double xmax)
{
	int step;

	xa->lo2 = (int)floor(log2(xmin) + 1e-9);
	xa->hi2 = (int)ceil(log2(xmax) - 1e-9);
	/* at most 12 ticks: every 2^1, 2^2, 2^4 (4K 64K 1M) or 2^10 (1K 1M 1G) */
	for (step = 1; (xa->hi2 - xa->lo2) / step > 12; )
		step = step == 4 ? 10 : step * 2;
	xa->step = step;
	xa->lo2 = (int)floor((double)xa->lo2 / step) * step;
	xa->hi2 = (int)ceil((double)xa->hi2 / step) * step;
	if (xa->hi2 <= xa->lo2)
		xa->hi2 = xa->lo2 + step;
}

static void draw_xaxis(FILE *f, const struct xaxis *xa, const struct yaxis *ya, const char *title)
{
	double left = xa->left, pw = xa->pw;
	int e, step = xa->step;

	fprintf(f, "<path class=\"axis\" d=\"M%.2f %.2fH%.2f\" stroke=\"%s\"/>\n", left, ya->bottom,
		left + pw, AXIS_COLOR);
	for (e = xa->lo2; e <= xa->hi2; e++) {
		double x = left + (double)(e - xa->lo2) / (xa->hi2 - xa->lo2) * pw;
		char buf[24];

		if ((e % step + step) % step) {		/* minor tick */
			fprintf(f, "<path d=\"M%.2f %.2fv3\" stroke=\"%s\"/>\n", x, ya->bottom,
				AXIS_COLOR);
			continue;
		}
		if (e > xa->lo2)
			fprintf(f, "<path class=\"grid\" d=\"M%.2f %.2fV%.2f\" stroke=\"%s\"/>\n", x,
				ya->top, ya->bottom, GRID_COLOR);
		fprintf(f, "<path d=\"M%.2f %.2fv5\" stroke=\"%s\"/>\n", x, ya->bottom, AXIS_COLOR);
		svg__bytes_label(ldexp(1, e), buf, sizeof(buf));
		text(f, "xtick", x, ya->bottom + 17, "middle", 0, buf);
	}
	if (title)
		text(f, "xtitle", left + pw / 2, ya->bottom + 38, "middle", 0, title);
}

/* One series: a line broken where points are missing, and its markers. */
static void draw_series(FILE *f, const struct svg_series *se, int s, const struct xaxis *xa,
			const struct yaxis *ya)
{
	int i, pen = 0;

	fprintf(f, "<path class=\"series\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\" "
		"stroke-linejoin=\"round\"%s%s%s d=\"", series_color[s],
		*series_dash[s] ? " stroke-dasharray=\"" : "", series_dash[s],
		*series_dash[s] ? "\"" : "");
	for (i = 0; i < se->n; i++) {
		if (!point_ok(se, i)) {
			pen = 0;
			continue;
		}
		fprintf(f, "%s%.3f %.3f", pen ? " L" : (i ? " M" : "M"), xpix(xa, se->x[i]),
			ypix(ya, se->y[i]));
		pen = 1;
	}
	fputs("\"/>\n", f);
	fprintf(f, "<g class=\"markers\" fill=\"%s\">\n", series_color[s]);
	for (i = 0; i < se->n; i++)
		if (point_ok(se, i))
			fprintf(f, "<circle cx=\"%.3f\" cy=\"%.3f\" r=\"2.5\"/>\n",
				xpix(xa, se->x[i]), ypix(ya, se->y[i]));
	fputs("</g>\n", f);
}

int svg__lines(FILE *f, const struct svg_lines *l)
{
	struct yaxis ya;
	struct xaxis xa;
	double xmin, xmax, ymin, ymax;
	double top = TITLE_Y + 22, ph = 300, w, ht, legw;
	int s;

	if (!f || !l || l->nseries < 1 || l->nseries > SVG_MAX_SERIES || !l->series)
		return -EINVAL;
	if (lines_bounds(l, &xmin, &xmax, &ymin, &ymax))
		return -EINVAL;
	xaxis_range(&xa, xmin, xmax);
	ya.top = top;
	ya.bottom = top + ph;
	if (l->ymin != 0 || l->ymax != 0) {
		ya.lo = l->ymin;
		ya.hi = l->ymax > l->ymin ? l->ymax : l->ymin + 1;
		ya.step = nice_step(ya.hi - ya.lo, 5);
	} else {
		set_yrange(&ya, fmin(0, ymin), ymax);
	}
	xa.pw = 480;
	xa.left = 16 + 12 + ytick_w(&ya) + 10;
	legw = legend_w(l->series, l->nseries);
	w = xa.left + xa.pw + 16 + legw;
	w = fmax(w, text_w(l->title) * 14 / 12 + 24);
	ht = top + ph + 16 + (l->x_title ? 22 : 0) + 12;

	begin(f, w, ht, l->title);
	draw_yaxis(f, &ya, xa.left, xa.left + xa.pw, l->y_title, NULL);
	draw_xaxis(f, &xa, &ya, l->x_title);
	for (s = 0; s < l->nseries; s++)
		draw_series(f, &l->series[s], s, &xa, &ya);
	draw_legend(f, l->series, l->nseries, xa.left + xa.pw + 12, top + 4, 1);
	return end(f);
}

/* ---------------------------------------------------------------- scatter */

static void draw_point(FILE *f, const char *cls, const struct svg_point *p, double x, double y)
{
	const char *c = series_color[(p->series % SVG_MAX_SERIES + SVG_MAX_SERIES) %
				     SVG_MAX_SERIES];

	switch (p->shape) {
	case SVG_SHAPE_STORE:
		fprintf(f, "<rect class=\"%s store\" data-s=\"%d\" data-x=\"%.9g\" data-y=\"%.9g\" x=\"%.2f\" "
			"y=\"%.2f\" width=\"5\" height=\"5\" fill=\"%s\"/>\n", cls, p->series, p->x, p->y, x - 2.5,
			y - 2.5, c);
		break;
	case SVG_SHAPE_ATOMIC:
		fprintf(f, "<path class=\"%s atomic\" data-s=\"%d\" data-x=\"%.9g\" data-y=\"%.9g\" "
			"d=\"M%.2f %.2fl3 5h-6z\" fill=\"%s\"/>\n", cls, p->series, p->x, p->y, x, y - 3, c);
		break;
	default:
		fprintf(f, "<circle class=\"%s load\" data-s=\"%d\" data-x=\"%.9g\" data-y=\"%.9g\" cx=\"%.2f\" "
			"cy=\"%.2f\" r=\"2.5\" fill=\"none\" stroke=\"%s\"/>\n", cls, p->series, p->x, p->y, x, y, c);
		break;
	}
}

int svg__scatter(FILE *f, const struct svg_scatter *sc)
{
	static const char *const shape_names[SVG_SHAPE__MAX] = { "load", "store", "atomic (RMW)" };
	double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
	double top = TITLE_Y + 22, ph = 300, pw = 480, left, w, ht, legw = 0, bottom;
	struct yaxis ya, xa;	/* x: a linear axis too, turned on its side */
	int i, nleg;

	if (!f || !sc || sc->n < 0 || (sc->n && !sc->p) || sc->nseries < 0 ||
	    (sc->nseries && !sc->series_names))
		return -EINVAL;
	for (i = 0; i < sc->n; i++) {
		if (!isfinite(sc->p[i].x) || !isfinite(sc->p[i].y))
			return -EINVAL;
		xmin = fmin(xmin, sc->p[i].x);
		xmax = fmax(xmax, sc->p[i].x);
		ymin = fmin(ymin, sc->p[i].y);
		ymax = fmax(ymax, sc->p[i].y);
	}
	if (!sc->n)
		xmin = xmax = ymin = ymax = 0;
	ya.top = top;
	ya.bottom = bottom = top + ph;
	if (sc->ymin != 0 || sc->ymax != 0)
		set_yrange(&ya, sc->ymin, sc->ymax);
	else
		set_yrange(&ya, fmin(0, ymin), ymax);
	set_yrange(&xa, fmin(0, xmin), xmax);
	nleg = sc->nseries < SVG_MAX_SERIES ? sc->nseries : SVG_MAX_SERIES;
	for (i = 0; i < nleg; i++)
		legw = fmax(legw, text_w(sc->series_names[i]));
	for (i = 0; i < SVG_SHAPE__MAX; i++)
		legw = fmax(legw, text_w(shape_names[i]));
	left = 16 + 12 + ytick_w(&ya) + 10;
	w = left + pw + 16 + legw + 30;
	w = fmax(w, text_w(sc->title) * 14 / 12 + 24);
	ht = top + ph + 16 + (sc->x_title ? 22 : 0) + 12;

	begin(f, w, ht, sc->title);
	draw_yaxis(f, &ya, left, left + pw, sc->y_title, NULL);
	/* the x axis: ticks below, grid up */
	fprintf(f, "<path class=\"axis\" d=\"M%.2f %.2fH%.2f\" stroke=\"%s\"/>\n", left, bottom,
		left + pw, AXIS_COLOR);
	for (i = 0; i <= (int)lround((xa.hi - xa.lo) / xa.step); i++) {
		double v = xa.lo + i * xa.step, x = left + (v - xa.lo) / (xa.hi - xa.lo) * pw;
		char buf[32];

		if (i > 0)
			fprintf(f, "<path class=\"grid\" d=\"M%.2f %.2fV%.2f\" stroke=\"%s\"/>\n", x,
				top, bottom, GRID_COLOR);
		fprintf(f, "<path d=\"M%.2f %.2fv5\" stroke=\"%s\"/>\n", x, bottom, AXIS_COLOR);
		fmt_tick(v, xa.step, buf, sizeof(buf));
		text(f, "xtick", x, bottom + 17, "middle", 0, buf);
	}
	if (sc->x_title)
		text(f, "xtitle", left + pw / 2, bottom + 38, "middle", 0, sc->x_title);
	fprintf(f, "<g class=\"points\">\n");
	for (i = 0; i < sc->n; i++)
		draw_point(f, "pt", &sc->p[i], left + (sc->p[i].x - xa.lo) / (xa.hi - xa.lo) * pw,
			   ypix(&ya, sc->p[i].y));
	fputs("</g>\n<g class=\"legend\">\n", f);
	for (i = 0; i < nleg + SVG_SHAPE__MAX; i++) {
		double yy = top + 4 + i * 18 + (i >= nleg ? 8 : 0), x = left + pw + 16;

		if (i < nleg)
			fprintf(f, "<rect class=\"swatch\" x=\"%.2f\" y=\"%.2f\" width=\"12\" "
				"height=\"12\" fill=\"%s\"/>\n", x, yy + 2, series_color[i]);
		else	/* the shape in black (colour 6) */
			draw_point(f, "key", &(struct svg_point){ 0, 0, 6, i - nleg }, x + 6, yy + 8);
		text(f, "legend", x + 22, yy + 12, "start", 0,
		     i < nleg ? sc->series_names[i] : shape_names[i - nleg]);
	}
	fputs("</g>\n", f);
	return end(f);
}
