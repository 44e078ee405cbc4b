// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/builtin.h"

const char *lp_cmd_name = "lociprof";

void usage_exit(const char *usage, int err)
{
	fputs(usage, err ? stderr : stdout);
	exit(err ? 129 : 0);
}

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "%s: %s", lp_cmd_name, prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void lp_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
}

void lp_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void lp_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
	exit(128);
}

unsigned long long parse_ull_opt(const char *opt, const char *val)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(val, &end, 0);
	if (errno || end == val || *end || *val == '-') {
		lp_err("option '%s' expects a non-negative integer, not '%s'", opt, val);
		exit(129);
	}
	return v;
}
