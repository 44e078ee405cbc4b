// SPDX-License-Identifier: GPL-2.0
/*
 * Write-Volume (ComDetective, Sasongko 2022, Listing 5.1): each iteration a
 * thread makes one atomic store, to the one shared word with probability
 * --sharing-fraction, else to its own private word. Private words are padded
 * to separate lines, so there is no false sharing. See microbench/README.
 */
#include "microbench/mb.h"

struct padded {
	uint64_t v;
} __attribute__((aligned(MB_PAD)));

static struct padded shared_data;			/* the shared word */
static struct padded private_data[MB_MAX_THREADS];	/* one line pair each */
static struct mb_counts counts[MB_MAX_THREADS];

static double sharing_fraction = 0.5;
static struct mb_common opt;

static const struct mb_opt opts[] = {
	{ "sharing-fraction", MB_OPT_DOUBLE, &sharing_fraction, 0, 1, "F",
	  "probability that an iteration writes the shared word (default 0.5)" },
	{ NULL },
};

static const struct mb_info info = {
	.name = "write-volume",
	.summary = "Each thread makes one atomic store per iteration: to the shared word\n"
		   "'shared_data' with probability F, else to its own 'private_data[i]'.",
	.def_threads = 4, .max_threads = MB_MAX_THREADS,
	.def_iters = 20000000, .iters_help = "stores per thread",
	.has_layout = 1, .has_trace = 1, .opts = opts,
};

static void worker(int idx, void *arg)
{
	uint64_t thr = mb_threshold(sharing_fraction), r;
	uint64_t *priv = &private_data[idx].v;
	long long nshared = 0;
	struct mb_rng rng;
	long i;

	(void)arg;
	mb_rng_seed(&rng, opt.seed, idx);
	for (i = 0; i < opt.iters; i++) {
		r = mb_rng_next(&rng);
		/* Both are seq_cst stores (xchg): only the target differs. */
		if (MB_CHOOSE(r, thr)) {
			__atomic_store_n(&shared_data.v, r, __ATOMIC_SEQ_CST);
			nshared++;
		} else {
			__atomic_store_n(priv, r, __ATOMIC_SEQ_CST);
		}
	}
	counts[idx] = (struct mb_counts){ .private_ = opt.iters - nshared,
		.shared = nshared, .true_ = nshared, .stores = opt.iters,
		.cpu = sched_getcpu() };
}

/* --trace: the store worker() makes for @r. */
static void step(int idx, uint64_t r, struct mb_trace *tr)
{
	mb_trace_put(tr, idx, 'W', MB_CHOOSE(r, mb_threshold(sharing_fraction)) ?
		     &shared_data.v : &private_data[idx].v, 8);
}

static void expect(void)
{
	double a[MB_MAX_THREADS] = { 0 }, s[MB_MAX_THREADS] = { 0 };
	int off[MB_MAX_THREADS] = { 0 }, len[MB_MAX_THREADS] = { 0 }, i;
	struct mb_model m;
	struct mb_json j;

	if (mb_model_init(&m, opt.threads))
		exit(1);
	/* One shared line: every thread stores 8 bytes at offset 0 at rate F. */
	for (i = 0; i < opt.threads; i++) {
		a[i] = sharing_fraction;
		s[i] = 1;
		off[i] = 0;
		len[i] = 8;
	}
	mb_model_line(&m, opt.iters, a, s, off, len);
	/* private lines are touched by one thread only: no transfers */
	mb_json_init(&j, stdout);
	mb_model_print(&j, info.name, &m);
	mb_json_params(&j, &opt);
	mb_json_double(&j, "sharing_fraction", sharing_fraction);
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
	mb_json_object(&j, NULL, "private_data", private_data,
		       sizeof(private_data[0]) * opt.threads);
	mb_json_arr_end(&j);
	mb_json_obj_end(&j);
}

int main(int argc, char **argv)
{
	mb_parse(&opt, &info, argc, argv);
	return mb_finish_main(&info, &opt, expect, print_layout, worker, step, counts);
}
