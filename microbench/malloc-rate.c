// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation rate (issue 21, the cost of tracking heap objects): each
 * thread makes --iters malloc/free pairs of --size bytes (touching the
 * first word) and the program prints the pairs per second it reached to
 * stderr. --expect prints how many allocations it makes. Nothing is shared:
 * comdetect finds no communication here; what is measured is the time.
 */
#include <time.h>

#include "microbench/mb.h"

static long size = 64;
static struct mb_common opt;
static struct mb_counts counts[MB_MAX_THREADS];

static const struct mb_opt opts[] = {
	{ "size", MB_OPT_LONG, &size, 1, 1 << 30, "BYTES", "bytes per allocation (default 64)" },
	{ NULL },
};

static const struct mb_info info = {
	.name = "malloc-rate",
	.summary = "Each thread makes --iters malloc/free pairs of --size bytes and the program\n"
		   "prints the pairs per second to stderr: the cost of allocation tracking.",
	.def_threads = 1, .max_threads = MB_MAX_THREADS,
	.def_iters = 1000000, .iters_help = "malloc/free pairs per thread",
	.opts = opts,
};

static void worker(int idx, void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < opt.iters; i++) {
		long *volatile p = malloc(size);

		if (!p)
			exit(1);
		p[0] = i;
		free(p);
	}
	counts[idx] = (struct mb_counts){ .private_ = opt.iters, .stores = opt.iters,
		.cpu = sched_getcpu() };
}

static void expect(void)
{
	struct mb_json j;

	mb_json_init(&j, stdout);
	mb_json_obj(&j, NULL);
	mb_json_str(&j, "benchmark", info.name);
	mb_json_int(&j, "allocations", (long long)opt.iters * opt.threads);
	mb_json_int(&j, "frees", (long long)opt.iters * opt.threads);
	mb_json_int(&j, "size", size);
	mb_json_obj_end(&j);
}

int main(int argc, char **argv)
{
	struct timespec a, b;
	double s;
	int ret;

	mb_parse(&opt, &info, argc, argv);
	clock_gettime(CLOCK_MONOTONIC, &a);
	ret = mb_finish_main(&info, &opt, expect, NULL, worker, NULL, counts);
	clock_gettime(CLOCK_MONOTONIC, &b);
	s = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	if (!opt.expect && !ret)
		fprintf(stderr, "malloc-rate: %ld pairs in %.3f s: %.0f pairs/s\n",
			opt.iters * opt.threads, s, opt.iters * opt.threads / s);
	return ret;
}
