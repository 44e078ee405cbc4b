// SPDX-License-Identifier: GPL-2.0
/*
 * Stream-Regions: thread i loads from its own static array region<i> and,
 * with probability --shared-fraction per access, from shared_region. Each
 * array is 8 MiB (twice this machine's 4 MiB L2), page aligned, a whole
 * number of pages, and a separate symbol, so a profiler can map every
 * sampled address (or every cpu-clock sample's load) to exactly one array
 * by address or by symbol name.
 *
 * A pass visits every cache line of an array once, in the order
 * line = (line + 4099) mod nlines (an odd step: a full cycle that defeats
 * the stream prefetcher), so the loads miss L2 and cost the same in both
 * kinds of array; samples then split between arrays like the accesses do.
 */
#include "microbench/mb.h"

#define MAX_REGIONS	16
#define REGION_BYTES	(8UL << 20)
#define REGION_LONGS	(REGION_BYTES / sizeof(long))
#define LINE_LONGS	(MB_LINE / sizeof(long))
#define STEP_LONGS	(4099 * LINE_LONGS)

#define REGION(n) static long region##n[REGION_LONGS] __attribute__((aligned(4096)))
REGION(0); REGION(1); REGION(2); REGION(3); REGION(4); REGION(5); REGION(6); REGION(7);
REGION(8); REGION(9); REGION(10); REGION(11); REGION(12); REGION(13); REGION(14); REGION(15);
static long shared_region[REGION_LONGS] __attribute__((aligned(4096)));

static long *const regions[MAX_REGIONS] = {
	region0, region1, region2, region3, region4, region5, region6, region7,
	region8, region9, region10, region11, region12, region13, region14, region15,
};

static struct mb_counts counts[MAX_REGIONS];
static volatile long sink[MAX_REGIONS * (MB_PAD / sizeof(long))];

static double shared_fraction = 0.25;
static struct mb_common opt;

static const struct mb_opt opts[] = {
	{ "shared-fraction", MB_OPT_DOUBLE, &shared_fraction, 0, 1, "F",
	  "probability that an access goes to shared_region (default 0.25)" },
	{ NULL },
};

static const struct mb_info info = {
	.name = "stream-regions",
	.summary = "Thread i loads from its own 8 MiB static array 'region<i>' and, with\n"
		   "probability F per access, from the 8 MiB static array 'shared_region'.\n"
		   "Arrays are page aligned and never share a page. --threads is capped at 16\n"
		   "(region0..region15). --expect prints this process's addresses; under ASLR use\n"
		   "--print-layout to get the addresses of the run being profiled.",
	.def_threads = 2, .max_threads = MAX_REGIONS,
	.def_iters = 400, .iters_help = "passes; one pass = one access per line of an array",
	.has_layout = 1, .opts = opts,
};

static void worker(int idx, void *arg)
{
	const volatile long *own = regions[idx], *sh = shared_region;
	uint64_t thr = mb_threshold(shared_fraction), r;
	size_t i = 0, j = (size_t)idx * 1024 * LINE_LONGS, k;
	long long nshared = 0, total = 0;
	struct mb_rng rng;
	long pass, sum = 0;

	(void)arg;
	/* Untouched bss pages all map the one zero page: give them real ones. */
	for (k = 0; k < REGION_LONGS; k++)
		regions[idx][k] = (long)k;
	mb_rng_seed(&rng, opt.seed, idx);
	for (pass = 0; pass < opt.iters; pass++) {
		for (k = 0; k < REGION_LONGS / LINE_LONGS; k++) {
			r = mb_rng_next(&rng);
			if (MB_CHOOSE(r, thr)) {
				sum += mb_load(&sh[j]);	/* shared_region load */
				j = (j + STEP_LONGS) & (REGION_LONGS - 1);
				nshared++;
			} else {
				sum += mb_load(&own[i]);	/* region<idx> load */
				i = (i + STEP_LONGS) & (REGION_LONGS - 1);
			}
		}
		total += k;
	}
	sink[idx * (MB_PAD / sizeof(long))] = sum;
	counts[idx] = (struct mb_counts){ .private_ = total - nshared, .shared = nshared,
		.loads = total, .cpu = sched_getcpu() };
}

/* Same JSON for --expect (stdout) and --print-layout (stderr). */
static void layout(FILE *f)
{
	char sym[32];
	struct mb_json j;
	int i;

	mb_json_init(&j, f);
	mb_json_obj(&j, NULL);
	mb_json_str(&j, "benchmark", info.name);
	mb_json_int(&j, "pid", getpid());
	mb_json_int(&j, "threads", opt.threads);
	mb_json_double(&j, "shared_fraction", shared_fraction);
	mb_json_int(&j, "region_bytes", (long long)REGION_BYTES);
	mb_json_arr(&j, "arrays");
	for (i = 0; i < opt.threads; i++) {
		snprintf(sym, sizeof(sym), "region%d", i);
		mb_json_obj(&j, NULL);
		mb_json_int(&j, "thread", i);
		mb_json_str(&j, "symbol", sym);
		mb_json_addr(&j, "start", regions[i]);
		mb_json_addr(&j, "end", regions[i] + REGION_LONGS);
		mb_json_double(&j, "fraction", 1 - shared_fraction);
		mb_json_obj_end(&j);
	}
	mb_json_arr_end(&j);
	mb_json_obj(&j, "shared");
	mb_json_str(&j, "symbol", "shared_region");
	mb_json_addr(&j, "start", shared_region);
	mb_json_addr(&j, "end", shared_region + REGION_LONGS);
	mb_json_double(&j, "fraction", shared_fraction);
	mb_json_obj_end(&j);
	mb_json_obj_end(&j);
}

int main(int argc, char **argv)
{
	size_t i;
	int err;

	mb_parse(&opt, &info, argc, argv);
	if (opt.expect) {
		layout(stdout);
		return 0;
	}
	if (opt.print_layout)
		layout(stderr);
	for (i = 0; i < REGION_LONGS; i++)
		shared_region[i] = (long)i;
	err = mb_run(opt.threads, opt.pin, worker, NULL);
	if (err) {
		fprintf(stderr, "%s: error: cannot run threads: %s\n", info.name, strerror(-err));
		return 1;
	}
	if (opt.verbose)
		mb_print_counts(info.name, &opt, counts);
	return 0;
}
