// SPDX-License-Identifier: GPL-2.0
/* Option tables -> getopt_long, -h text and recorded settings (options.h). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "cmd/options.h"

#define OPT_CODE_BASE	0x1000	/* getopt code of a long-only option: base + index */
#define OPT_MAX		256
#define HELP_COL	26

static void *field(const struct lp_optgroup *g, const struct lp_opt *o)
{
	return (char *)g->obj + o->off;
}

static int set_value(const struct lp_optgroup *g, const struct lp_opt *o, const char *arg)
{
	void *p = field(g, o);
	char *end;
	int i;

	switch (o->type) {
	case LP_OPT_FLAG: *(int *)p = 1; return 0;
	case LP_OPT_CLEAR: *(int *)p = 0; return 0;
	case LP_OPT_COUNT: (*(int *)p)++; return 0;
	case LP_OPT_STR: *(const char **)p = arg; return 0;
	case LP_OPT_CALL: return o->parse(g->obj, arg);
	case LP_OPT_INT:
	case LP_OPT_U64: {
		unsigned long long v;

		errno = 0;
		v = strtoull(arg, &end, 0);
		if (errno || end == arg || *end || *arg == '-' ||
		    (double)v < o->min || (o->max > 0 && (double)v > o->max) ||
		    (o->type == LP_OPT_INT && v > INT32_MAX)) {
			if (o->max > 0)
				lp_err("--%s expects %.0f..%.0f, not '%s'", o->name, o->min, o->max, arg);
			else if (o->min > 0)
				lp_err("--%s expects an integer of at least %.0f, not '%s'", o->name,
				       o->min, arg);
			else
				lp_err("--%s expects a non-negative integer, not '%s'", o->name, arg);
			return -EINVAL;
		}
		if (o->type == LP_OPT_INT)
			*(int *)p = (int)v;
		else
			*(unsigned long long *)p = v;
		return 0;
	}
	case LP_OPT_DOUBLE: {
		double v = strtod(arg, &end);

		if (end == arg || *end || !(v > o->min) || (o->max > 0 && v > o->max)) {
			lp_err("--%s expects a number in (%g, %g], not '%s'", o->name, o->min, o->max, arg);
			return -EINVAL;
		}
		*(double *)p = v;
		return 0;
	}
	case LP_OPT_ENUM:
		for (i = 0; o->names[i]; i++)
			if (!strcmp(arg, o->names[i])) {
				*(int *)p = i;
				return 0;
			}
		{
			char list[160] = "";

			for (i = 0; o->names[i]; i++)
				snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
					 i ? " or " : "", o->names[i]);
			lp_err("--%s expects %s, not '%s'", o->name, list, arg);
		}
		return -EINVAL;
	}
	return -EINVAL;
}

/* The value of a recorded setting, as an argument set_value() takes back. */
static void format_value(const struct lp_optgroup *g, const struct lp_opt *o, char *buf, size_t len)
{
	const void *p = field(g, o);

	switch (o->type) {
	case LP_OPT_FLAG:
	case LP_OPT_CLEAR:
	case LP_OPT_COUNT:
	case LP_OPT_INT: snprintf(buf, len, "%d", *(const int *)p); break;
	case LP_OPT_U64: snprintf(buf, len, "%llu", *(const unsigned long long *)p); break;
	case LP_OPT_DOUBLE: snprintf(buf, len, "%.17g", *(const double *)p); break;
	case LP_OPT_STR: snprintf(buf, len, "%s", *(const char *const *)p ? *(const char *const *)p : ""); break;
	case LP_OPT_ENUM: snprintf(buf, len, "%s", o->names[*(const int *)p]); break;
	case LP_OPT_CALL: o->format(g->obj, buf, len); break;
	}
}

static void print_opt(FILE *f, const struct lp_opt *o)
{
	char left[96];
	const char *h = o->help;
	int n;

	n = snprintf(left, sizeof(left), "    %c%c%s--%s%s%s", o->key ? '-' : ' ',
		     o->key ? o->key : ' ', o->key ? ", " : "  ", o->name,
		     o->arg ? " " : "", o->arg ? o->arg : "");
	fputs(left, f);
	if (n >= HELP_COL - 1)
		fputs("  ", f);
	else
		fprintf(f, "%*s", HELP_COL - n, "");
	while (*h) {
		size_t l = strcspn(h, "\n");

		fprintf(f, "%.*s\n", (int)l, h);
		h += l;
		if (*h == '\n' && *++h)
			fprintf(f, "%*s", HELP_COL, "");
	}
	if (!*o->help)
		fputc('\n', f);
}

void lp_opts__usage(FILE *f, const struct lp_optgroup *g, int ng,
		    const char *head, const char *tail)
{
	const struct lp_opt *o;
	int i;

	fputs(head, f);
	for (i = 0; i < ng; i++) {
		if (g[i].title)
			fprintf(f, "\n%s\n", g[i].title);
		for (o = g[i].opts; o->name; o++)
			print_opt(f, o);
	}
	fputs("    -h, --help            show this help\n", f);
	if (tail)
		fputs(tail, f);
}

void lp_opts__usage_exit(const struct lp_optgroup *g, int ng, const char *head,
			 const char *tail, int err)
{
	lp_opts__usage(err ? stderr : stdout, g, ng, head, tail);
	exit(err ? 129 : 0);
}

int lp_opts__parse(int argc, char **argv, struct lp_optgroup *g, int ng,
		   const char *head, const char *tail)
{
	struct option lopts[OPT_MAX + 2];
	const struct lp_opt *row[OPT_MAX];
	int grp[OPT_MAX];
	char shorts[2 * OPT_MAX + 4] = "+";
	size_t sl = 1;
	int i, n = 0, c, k;
	const struct lp_opt *o;

	for (i = 0; i < ng; i++)
		for (o = g[i].opts; o->name && n < OPT_MAX; o++, n++) {
			row[n] = o;
			grp[n] = i;
			lopts[n] = (struct option){ o->name, o->arg ? required_argument : no_argument,
						    NULL, o->key ? o->key : OPT_CODE_BASE + n };
			if (o->key) {
				shorts[sl++] = (char)o->key;
				if (o->arg)
					shorts[sl++] = ':';
			}
		}
	lopts[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	lopts[n] = (struct option){ NULL, 0, NULL, 0 };
	shorts[sl++] = 'h';
	shorts[sl] = '\0';
	optind = 1;
	while ((c = getopt_long(argc, argv, shorts, lopts, NULL)) != -1) {
		if (c == 'h')
			lp_opts__usage_exit(g, ng, head, tail, 0);
		if (c == '?' || c == ':')
			lp_opts__usage_exit(g, ng, head, tail, 1);
		for (k = 0; k < n - 1; k++)
			if (c == (row[k]->key ? row[k]->key : OPT_CODE_BASE + k))
				break;
		if (k == n - 1)
			lp_opts__usage_exit(g, ng, head, tail, 1);
		if (g[grp[k]].off) {
			lp_err("--%s applies to %s recordings only", row[k]->name, g[grp[k]].owner);
			exit(129);
		}
		if (set_value(&g[grp[k]], row[k], optarg))
			lp_opts__usage_exit(g, ng, head, tail, 1);
	}
	return optind;
}

int lp_opts__encode(const struct lp_optgroup *g, char *buf, size_t len)
{
	const struct lp_opt *o;
	size_t used = 0;
	char val[256];
	int n;

	if (len)
		buf[0] = '\0';
	for (o = g->opts; o->name; o++) {
		if (!(o->flags & LP_OPT_CFG))
			continue;
		format_value(g, o, val, sizeof(val));
		if (strpbrk(val, " \t\n="))
			return -EINVAL;	/* values are plain words */
		n = snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "", o->name, val);
		if (n < 0 || (size_t)n >= len - used)
			return -E2BIG;
		used += n;
	}
	return 0;
}

int lp_opts__set(const struct lp_optgroup *g, const char *name, const char *arg)
{
	const struct lp_opt *o;

	for (o = g->opts; o->name; o++)
		if (!strcmp(o->name, name))
			return set_value(g, o, arg);
	return -ENOENT;
}

/* Flags are recorded as their int value: 0 leaves a FLAG unset, 1 a CLEAR. */
static int decode_one(const struct lp_optgroup *g, const char *name, const char *val)
{
	const struct lp_opt *o;

	for (o = g->opts; o->name; o++) {
		if (strcmp(o->name, name) || !(o->flags & LP_OPT_CFG))
			continue;
		if (o->type == LP_OPT_FLAG || o->type == LP_OPT_CLEAR || o->type == LP_OPT_COUNT) {
			char *end;
			long v = strtol(val, &end, 10);

			if (end == val || *end || v < 0)
				break;
			*(int *)field(g, o) = (int)v;
			return 0;
		}
		return set_value(g, o, val);
	}
	lp_err("recorded setting '%s=%s' is not one of this lociprof's", name, val);
	return -EINVAL;
}

int lp_opts__decode(const struct lp_optgroup *g, const char *text)
{
	char name[64], val[256];
	const char *p = text;
	int err;

	while (*p) {
		size_t n = strcspn(p, " "), k;
		const char *eq = memchr(p, '=', n);

		if (!eq || (size_t)(eq - p) >= sizeof(name) || n - (eq - p) > sizeof(val)) {
			lp_err("recorded settings are damaged near '%.*s'", (int)n, p);
			return -EINVAL;
		}
		k = eq - p;
		memcpy(name, p, k);
		name[k] = '\0';
		memcpy(val, eq + 1, n - k - 1);
		val[n - k - 1] = '\0';
		err = decode_one(g, name, val);
		if (err)
			return err;
		p += n;
		while (*p == ' ')
			p++;
	}
	return 0;
}
