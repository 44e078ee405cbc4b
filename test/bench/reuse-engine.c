// SPDX-License-Identifier: GPL-2.0
/*
 * The reuse-distance engines fed from memory (no parsing), for make bench.
 *
 * Speed: N uniformly random accesses over M distinct lines, one thread,
 * the exact engine in each mode and granularity and SHARDS at each rate;
 * accesses per second of CPU time measured in this run, the best of -r
 * runs (other processes only ever slow one down).
 *
 * Accuracy: the SHARDS miss-ratio curve (rates 0.01 and 0.1, or -R)
 * against the exact one on five
 * trace shapes (uniform random, cyclic sweep, a RIBench trace given with
 * -t, Zipf, a mix of the three generated ones), as the mean absolute error
 * over the log-spaced cache sizes from 1/R lines (a scaled distance is a
 * multiple of 1/R: smaller caches are not resolved) to the footprint;
 * the error over every size from 1 line is printed beside it.
 *
 *   test/bench/reuse-engine [-n N] [-m M] [-r RUNS] [-R RATE] [-t RIBENCH_TRACE] [-1 1] [-A 0]
 *	-1 1: also time one reuse_exact__access() call per access
 *	-A 0: speed only; -S 0: accuracy only
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/hash.h"
#include "core/reuse-exact.h"
#include "core/trace.h"

#define BATCH 4096

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Run one engine over @v, one access at a time (@batch 1) or batched;
 * accesses per CPU second, < 0 on failure. @sum (may be NULL) gets the
 * totals.
 */
static double run(enum reuse_exact_mode mode, enum reuse_gran gran, double rate,
		  const struct reuse_exact_acc *v, u64 n, int batch,
		  struct reuse_exact_thread *sum)
{
	struct reuse_exact_opts o = { .mode = mode, .gran = gran, .sample_rate = rate };
	struct reuse_exact *re;
	double t0, t1;
	u64 i;

	if (reuse_exact__new(&o, &re))
		return -1;
	t0 = cpu_s();
	for (i = 0; i < n; i += batch) {
		if (batch == 1 ? reuse_exact__access(re, v[i].tid, v[i].addr, v[i].is_store, NULL) :
		    reuse_exact__access_batch(re, v + i, n - i < (u64)batch ? n - i : (u64)batch))
			break;
	}
	reuse_exact__finish(re);
	t1 = cpu_s();
	if (sum)
		reuse_exact__sum(re, sum);
	reuse_exact__delete(re);
	return i >= n ? n / (t1 - t0) : -1;
}

static double best(int runs, enum reuse_exact_mode mode, enum reuse_gran gran,
		   double rate, const struct reuse_exact_acc *v, u64 n, int batch)
{
	double b = 0, x;
	int i;

	for (i = 0; i < runs; i++) {
		x = run(mode, gran, rate, v, n, batch, NULL);
		b = x > b ? x : b;
	}
	return b;
}

static u64 rnd(u64 *seed, u64 m)
{
	return lp_splitmix64(seed) % m;
}

/* Line @i of a data set, scattered so neighbours share no page pattern. */
static u64 line_addr(u64 i)
{
	return 0x10000000 + 64 * i;
}

static void gen_random(struct reuse_exact_acc *v, u64 n, u64 m, u64 *seed)
{
	u64 i;

	for (i = 0; i < n; i++)
		v[i] = (struct reuse_exact_acc){ .tid = 1, .addr = line_addr(rnd(seed, m)) };
}

static void gen_sweep(struct reuse_exact_acc *v, u64 n, u64 m)
{
	u64 i;

	for (i = 0; i < n; i++)
		v[i] = (struct reuse_exact_acc){ .tid = 1, .addr = line_addr(i % m) };
}

/* Zipf(@alpha) ranks over @m lines by inverse CDF; ranks hashed to lines. */
static int gen_zipf(struct reuse_exact_acc *v, u64 n, u64 m, double alpha, u64 *seed)
{
	double *cdf = malloc(m * sizeof(*cdf)), sum = 0;
	u64 i;

	if (!cdf)
		return -ENOMEM;
	for (i = 0; i < m; i++)
		cdf[i] = sum += pow((double)(i + 1), -alpha);
	for (i = 0; i < n; i++) {
		double u = (lp_splitmix64(seed) >> 11) * 0x1p-53 * sum;
		u64 lo = 0, hi = m - 1;

		while (lo < hi) {
			u64 mid = (lo + hi) / 2;

			if (cdf[mid] < u)
				lo = mid + 1;
			else
				hi = mid;
		}
		v[i] = (struct reuse_exact_acc){ .tid = 1,
			.addr = line_addr(m + (lp_hash64(lo) & 0xffffffffff)) };
	}
	free(cdf);
	return 0;
}

/* Read a lociprof-trace file into memory. */
static int load_trace(const char *path, struct reuse_exact_acc **vp, u64 *np)
{
	struct reuse_exact_acc *v = NULL;
	struct trace_access a;
	u64 n = 0, cap = 0;
	struct trace *t;
	char err[256];
	int ret;

	if (trace__open(&t, path, err, sizeof(err)) < 0) {
		fprintf(stderr, "reuse-engine: %s\n", err);
		return -1;
	}
	while ((ret = trace__next(t, &a, err, sizeof(err))) > 0) {
		if (n == cap) {
			struct reuse_exact_acc *nv;

			cap = cap ? 2 * cap : 1 << 20;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				ret = -ENOMEM;
				break;
			}
			v = nv;
		}
		v[n++] = (struct reuse_exact_acc){ .addr = a.addr, .tid = a.tid,
						   .is_store = a.op == TRACE_WRITE };
	}
	trace__close(t);
	if (ret < 0) {
		fprintf(stderr, "reuse-engine: %s\n", err);
		free(v);
		return -1;
	}
	*vp = v;
	*np = n;
	return 0;
}

#define MAX_RATES 4

/* SHARDS at each of @rates against the exact engine on one trace: speed and MAE. */
static void accuracy(const char *name, const struct reuse_exact_acc *v, u64 n,
		     const double *rates, int nrates)
{
	static struct reuse_exact_thread ex, sh;
	double e_rate, s_rate, mae, mae_all;
	u64 footprint;
	int i;

	e_rate = run(REUSE_EXACT_SHARED, REUSE_GRAN_LINE, 0, v, n, BATCH, &ex);
	footprint = ex.cold;
	printf("%-8s N=%-9llu footprint %8llu lines, exact %.1f M/s\n", name,
	       (unsigned long long)n, (unsigned long long)footprint, e_rate / 1e6);
	for (i = 0; i < nrates; i++) {
		mae = mae_all = NAN;
		s_rate = run(REUSE_EXACT_SHARED, REUSE_GRAN_LINE, rates[i], v, n, BATCH, &sh);
		reuse_mrc__mae(&ex.mrc, &sh.mrc, (u64)ceil(1 / rates[i]), footprint, &mae);
		reuse_mrc__mae(&ex.mrc, &sh.mrc, 1, footprint, &mae_all);
		printf("  SHARDS rate %-5g MAE %.4f (every size from 1 line: %.4f); %llu accesses "
		       "sampled, %.1f M/s\n", rates[i], mae, mae_all,
		       (unsigned long long)sh.accesses, s_rate / 1e6);
	}
	fflush(stdout);
}

int main(int argc, char **argv)
{
	u64 lines[2] = { 100000, 1000000 }, n = 20000000, seed = 1, i;
	static const char *const modes[] = { "private", "shared" };
	static const char *const grans[] = { "address", "line" };
	const char *ribench = NULL;
	struct reuse_exact_acc *v, *w;
	int k, mode, gran, runs = 3, single = 0, acc = 1, speed = 1;
	double rates[MAX_RATES] = { 0.01, 0.1 };
	int nrates = 2;

	for (k = 1; k + 1 < argc; k += 2) {
		if (!strcmp(argv[k], "-n"))
			n = strtoull(argv[k + 1], NULL, 10);
		else if (!strcmp(argv[k], "-r"))
			runs = atoi(argv[k + 1]);
		else if (!strcmp(argv[k], "-1"))
			single = atoi(argv[k + 1]);
		else if (!strcmp(argv[k], "-R")) {
			rates[0] = strtod(argv[k + 1], NULL);
			nrates = 1;
		}
		else if (!strcmp(argv[k], "-S"))
			speed = atoi(argv[k + 1]);
		else if (!strcmp(argv[k], "-A"))
			acc = atoi(argv[k + 1]);
		else if (!strcmp(argv[k], "-t"))
			ribench = argv[k + 1];
		else if (!strcmp(argv[k], "-m"))
			lines[0] = lines[1] = strtoull(argv[k + 1], NULL, 10);
	}
	v = calloc(n, sizeof(*v));
	w = calloc(n, sizeof(*w));
	if (!v || !w)
		return 1;
	printf("# speed: accesses per CPU second, best of %d runs, N=%llu random accesses\n",
	       runs, (unsigned long long)n);
	for (k = 0; k < 2 && speed; k++) {
		if (k && lines[1] == lines[0])
			break;
		gen_random(v, n, lines[k], &seed);
		for (mode = 0; mode < 2; mode++)
			for (gran = 0; gran < 2; gran++) {
				double rb = best(runs, mode, gran, 0, v, n, BATCH);

				printf("exact   %-7s %-7s M=%-8llu %7.2f M accesses/s", modes[mode],
				       grans[gran], (unsigned long long)lines[k], rb / 1e6);
				if (single)
					printf(" (one call per access: %.2f M/s)",
					       best(runs, mode, gran, 0, v, n, 1) / 1e6);
				putchar('\n');
				fflush(stdout);
			}
		for (mode = 0; mode < 2; mode++)
			for (i = 0; i < (u64)nrates; i++) {
				printf("SHARDS  %-7s line    M=%-8llu %7.2f M accesses/s (rate %g)\n",
				       modes[mode], (unsigned long long)lines[k],
				       best(runs, mode, REUSE_GRAN_LINE, rates[i], v, n, BATCH) / 1e6,
				       rates[i]);
				fflush(stdout);
			}
	}

	if (!acc)
		return 0;
	printf("# SHARDS accuracy: miss-ratio curve MAE against the exact engine, sizes\n"
	       "# from 1/rate lines to the footprint, log-spaced (8 per octave)\n");
	n = n / 2;
	gen_random(v, n, lines[1], &seed);
	accuracy("random", v, n, rates, nrates);
	gen_sweep(w, n, lines[1] / 3);
	accuracy("sweep", w, n, rates, nrates);
	if (ribench) {
		struct reuse_exact_acc *t;
		u64 nt;

		if (!load_trace(ribench, &t, &nt)) {
			accuracy("ribench", t, nt, rates, nrates);
			free(t);
		}
	} else {
		printf("ribench  (no trace given: -t FILE)\n");
	}
	if (gen_zipf(v, n, lines[1], 0.9, &seed))
		return 1;
	accuracy("zipf", v, n, rates, nrates);
	/* mix: each access from the random, sweep or Zipf stream in turn at random */
	gen_random(w, n, lines[1] / 2, &seed);
	for (i = 0; i < n; i++) {
		u64 r = rnd(&seed, 3);

		if (r == 1)
			w[i].addr = line_addr(4 * lines[1] + i % (lines[1] / 4));
		else if (r == 2)
			w[i].addr = v[i].addr;
	}
	accuracy("mix", w, n, rates, nrates);
	free(v);
	free(w);
	return 0;
}
