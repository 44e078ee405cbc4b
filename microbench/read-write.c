// SPDX-License-Identifier: GPL-2.0
/*
 * Read-Write (ComDetective, Sasongko 2022, Listing 5.3): every iteration
 * every thread accesses the one shared word. Thread 0 (the main thread)
 * always stores; threads 1..N-1 load it with probability --read-fraction,
 * else store it. Loads are volatile and summed, so -O2 keeps them.
 *
 * Expected matrix (mb_model_line with a_t = 1, s_0 = 1, s_k = w = 1 - F for
 * k >= 1, S = 1 + (n-1)w; see mb.h and README for the general formula):
 *   count(0 -> k) = 1 / (1 + S - w) = 1 / (2 + (n-2)w)
 *	(after 0's store, k's first access precedes the next store by anyone
 *	 but k: weight 1 for k against 1 for thread 0 and w for each other)
 *   count(k -> 0) = w / (1 + S - 1) = w / (1 + (n-1)w)
 *   count(k -> l) = w / (2 + (n-2)w)
 *   cell(0,k) = 1/(2+(n-2)w) + w/(1+(n-1)w),  cell(k,l) = 2w/(2+(n-2)w).
 * Checks: F = 0 (w = 1) gives 2/n everywhere (uniform, as write-volume);
 * F = 1 gives cell(0,k) = 1/2 and cell(k,l) = 0: readers only communicate
 * with the writer, and each reader sees half of its stores.
 */
#include "microbench/mb.h"

struct padded {
	uint64_t v;
} __attribute__((aligned(MB_PAD)));

static struct padded shared_data;
static struct mb_counts counts[MB_MAX_THREADS];
static volatile uint64_t sink[MB_MAX_THREADS * (MB_PAD / 8)];

static double read_fraction = 0.5;
static struct mb_common opt;

static const struct mb_opt opts[] = {
	{ "read-fraction", MB_OPT_DOUBLE, &read_fraction, 0, 1, "F",
	  "probability that thread k >= 1 loads instead of stores (default 0.5)" },
	{ NULL },
};

static const struct mb_info info = {
	.name = "read-write",
	.summary = "Every thread accesses the word 'shared_data' once per iteration: thread 0\n"
		   "(the main thread) always stores; the others load with probability F, else store.",
	.def_threads = 4, .max_threads = MB_MAX_THREADS,
	.def_iters = 20000000, .iters_help = "accesses per thread",
	.has_layout = 1, .has_trace = 1, .opts = opts,
};

static void worker(int idx, void *arg)
{
	uint64_t thr = idx ? mb_threshold(read_fraction) : 0, r, sum = 0;
	long long nloads = 0;
	struct mb_rng rng;
	long i;

	(void)arg;
	mb_rng_seed(&rng, opt.seed, idx);
	for (i = 0; i < opt.iters; i++) {
		r = mb_rng_next(&rng);
		if (MB_CHOOSE(r, thr)) {
			sum += *(volatile uint64_t *)&shared_data.v;
			nloads++;
		} else {
			__atomic_store_n(&shared_data.v, r, __ATOMIC_SEQ_CST);
		}
	}
	sink[idx * (MB_PAD / 8)] = sum;
	counts[idx] = (struct mb_counts){ .shared = opt.iters, .true_ = opt.iters,
		.loads = nloads, .stores = opt.iters - nloads, .cpu = sched_getcpu() };
}

/* --trace: the access worker() makes for @r (thread 0 always stores). */
static void step(int idx, uint64_t r, struct mb_trace *tr)
{
	mb_trace_put(tr, idx, idx && MB_CHOOSE(r, mb_threshold(read_fraction)) ? 'R' : 'W',
		     &shared_data.v, 8);
}

static void expect(void)
{
	double a[MB_MAX_THREADS] = { 0 }, s[MB_MAX_THREADS] = { 0 };
	int off[MB_MAX_THREADS] = { 0 }, len[MB_MAX_THREADS] = { 0 }, i;
	struct mb_model m;
	struct mb_json j;

	if (mb_model_init(&m, opt.threads))
		exit(1);
	for (i = 0; i < opt.threads; i++) {
		a[i] = 1;
		s[i] = i ? 1 - read_fraction : 1;
		off[i] = 0;
		len[i] = 8;
	}
	mb_model_line(&m, opt.iters, a, s, off, len);
	mb_json_init(&j, stdout);
	mb_model_print(&j, info.name, &m);
	mb_json_params(&j, &opt);
	mb_json_double(&j, "read_fraction", read_fraction);
	mb_json_int(&j, "writer", 0);
	mb_json_obj_end(&j);
	mb_json_obj_end(&j);
	mb_model_exit(&m);
}

static void print_layout(void)
{
	struct mb_json j;

	mb_json_init(&j, stderr);
	mb_json_obj(&j, NULL);
	mb_json_str(&j, "benchmark", info.name);
	mb_json_int(&j, "pid", getpid());
	mb_json_arr(&j, "objects");
	mb_json_object(&j, NULL, "shared_data", &shared_data, sizeof(shared_data));
	mb_json_arr_end(&j);
	mb_json_obj_end(&j);
}

int main(int argc, char **argv)
{
	mb_parse(&opt, &info, argc, argv);
	return mb_finish_main(&info, &opt, expect, print_layout, worker, step, counts);
}
