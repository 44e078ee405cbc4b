// SPDX-License-Identifier: GPL-2.0
/*
 * Speed of the exact reuse-distance engine fed from memory (no parsing):
 * N uniformly random accesses over M distinct lines, one thread, in each
 * mode and granularity. Prints accesses per second of CPU time measured in
 * this run, the best of -r runs (other processes only ever slow one down).
 *
 *   test/bench/reuse-engine [-n ACCESSES] [-m LINES] [-r RUNS] [-1 1]
 *	-1 1: also time one reuse_exact__access() call per access
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/hash.h"
#include "core/reuse-exact.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Accesses per second of one engine over @v, one access at a time or batched. */
static double run_exact(enum reuse_exact_mode mode, enum reuse_gran gran,
			const struct reuse_exact_acc *v, u64 n, int batch)
{
	struct reuse_exact_opts o = { .mode = mode, .gran = gran };
	struct reuse_exact *re;
	double t0, t1;
	u64 i;

	if (reuse_exact__new(&o, &re))
		return -1;
	t0 = now_s();
	for (i = 0; i < n; i += batch) {
		if (batch == 1 ? reuse_exact__access(re, v[i].tid, v[i].addr, v[i].is_store, NULL) :
		    reuse_exact__access_batch(re, v + i, n - i < (u64)batch ? n - i : (u64)batch))
			break;
	}
	t1 = now_s();
	reuse_exact__delete(re);
	return i >= n ? n / (t1 - t0) : -1;
}

int main(int argc, char **argv)
{
	u64 lines[2] = { 100000, 1000000 }, n = 20000000, seed = 1, i;
	static const char *const modes[] = { "private", "shared" };
	static const char *const grans[] = { "address", "line" };
	struct reuse_exact_acc *v;
	int k, mode, gran, runs = 3, single = 0;

	for (k = 1; k + 1 < argc; k += 2) {
		if (!strcmp(argv[k], "-n"))
			n = strtoull(argv[k + 1], NULL, 10);
		else if (!strcmp(argv[k], "-r"))
			runs = atoi(argv[k + 1]);
		else if (!strcmp(argv[k], "-1"))
			single = atoi(argv[k + 1]);
		else if (!strcmp(argv[k], "-m"))
			lines[0] = lines[1] = strtoull(argv[k + 1], NULL, 10);
	}
	v = calloc(n, sizeof(*v));
	if (!v)
		return 1;
	for (k = 0; k < 2; k++) {
		if (k && lines[1] == lines[0])
			break;
		for (i = 0; i < n; i++)
			v[i] = (struct reuse_exact_acc){ .tid = 1,
				.addr = 0x10000000 + 64 * (lp_splitmix64(&seed) % lines[k]) };
		for (mode = 0; mode < 2; mode++)
			for (gran = 0; gran < 2; gran++) {
				double r1 = 0, rb = 0, x;
				int run;

				/* best of @runs: other processes only ever slow a run down */
				for (run = 0; run < runs; run++) {
					x = single ? run_exact(mode, gran, v, n, 1) : 0;
					r1 = x > r1 ? x : r1;
					x = run_exact(mode, gran, v, n, 4096);
					rb = x > rb ? x : rb;
				}

				printf("exact %-7s %-7s M=%-8llu N=%llu: %6.2f M accesses/s",
				       modes[mode], grans[gran], (unsigned long long)lines[k],
				       (unsigned long long)n, rb / 1e6);
				if (single)
					printf(" (one call per access: %.2f M/s)", r1 / 1e6);
				putchar('\n');
				fflush(stdout);
			}
	}
	free(v);
	return 0;
}
