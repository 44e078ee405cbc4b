// SPDX-License-Identifier: GPL-2.0
/*
 * False-Sharing (ComDetective, Sasongko 2022, Listing 5.2): each iteration a
 * thread makes one atomic add, with probability --false-fraction to its own
 * 8-byte slot of a line shared with up to 7 other threads' slots (false
 * sharing), else to the one word all threads add to (true sharing).
 *
 * Layout: false_sharing_lines[g] is a 64-byte line holding slots of threads
 * 8g..8g+7 (thread i: line i/8, slot i%8, byte offset 8*(i%8)); each line
 * and true_sharing_data are 128-byte aligned and padded, so no two of them
 * share a line (or an adjacent-line prefetch pair).
 */
#include <x86intrin.h>

#include "microbench/mb.h"

#define SLOTS_PER_LINE	(MB_LINE / 8)
#define NLINES		((MB_MAX_THREADS + SLOTS_PER_LINE - 1) / SLOTS_PER_LINE)

struct fs_line {
	uint64_t slot[SLOTS_PER_LINE];
} __attribute__((aligned(MB_PAD)));

struct padded {
	uint64_t v;
} __attribute__((aligned(MB_PAD)));

static struct fs_line false_sharing_lines[NLINES];
static struct padded true_sharing_data;
static struct mb_counts counts[MB_MAX_THREADS];

static double false_fraction = 0.5;
static const char *order_path;	/* --order FILE */
static uint64_t *order_log[MB_MAX_THREADS];	/* TSC << 1 | false, per add */
static struct mb_common opt;

static const struct mb_opt opts[] = {
	{ "false-fraction", MB_OPT_DOUBLE, &false_fraction, 0, 1, "F",
	  "probability that an add goes to the thread's own slot (default 0.5)" },
	{ "order", MB_OPT_STR, &order_path, 0, 0, "FILE",
	  "run; write its adds, ordered by the TSC read after each, as a trace" },
	{ NULL },
};

static const struct mb_info info = {
	.name = "false-sharing",
	.summary = "Each thread makes one atomic add per iteration: with probability F to its\n"
		   "own 8-byte slot in 'false_sharing_lines' (a 64-byte line shared by up to 8\n"
		   "threads: false sharing), else to the word 'true_sharing_data' (true sharing).",
	.def_threads = 4, .max_threads = MB_MAX_THREADS,
	.def_iters = 10000000, .iters_help = "atomic adds per thread",
	.has_layout = 1, .has_trace = 1, .opts = opts,
};

static void worker(int idx, void *arg)
{
	uint64_t thr = mb_threshold(false_fraction), r;
	uint64_t *mine = &false_sharing_lines[idx / SLOTS_PER_LINE].slot[idx % SLOTS_PER_LINE];
	uint64_t *log = order_log[idx];
	long long nfalse = 0;
	struct mb_rng rng;
	long i;

	(void)arg;
	mb_rng_seed(&rng, opt.seed, idx);
	for (i = 0; i < opt.iters; i++) {
		r = mb_rng_next(&rng);
		if (MB_CHOOSE(r, thr)) {
			__atomic_fetch_add(mine, r, __ATOMIC_SEQ_CST);
			nfalse++;
			if (log)
				log[i] = __rdtsc() << 1 | 1;
		} else {
			__atomic_fetch_add(&true_sharing_data.v, r, __ATOMIC_SEQ_CST);
			if (log)
				log[i] = __rdtsc() << 1;
		}
	}
	counts[idx] = (struct mb_counts){ .shared = opt.iters, .false_ = nfalse,
		.true_ = opt.iters - nfalse, .loads = opt.iters, .stores = opt.iters,
		.cpu = sched_getcpu() };
}

/* --trace: the add worker() makes for @r (an atomic add is a W). */
static void step(int idx, uint64_t r, struct mb_trace *tr)
{
	if (MB_CHOOSE(r, mb_threshold(false_fraction)))
		mb_trace_put(tr, idx, 'W',
			     &false_sharing_lines[idx / SLOTS_PER_LINE].slot[idx % SLOTS_PER_LINE], 8);
	else
		mb_trace_put(tr, idx, 'W', &true_sharing_data.v, 8);
}

static void expect(void)
{
	double a[MB_MAX_THREADS] = { 0 }, s[MB_MAX_THREADS] = { 0 };
	int off[MB_MAX_THREADS] = { 0 }, len[MB_MAX_THREADS] = { 0 }, i, g;
	struct mb_model m;
	struct mb_json j;

	if (mb_model_init(&m, opt.threads))
		exit(1);
	/* The true-sharing word: everybody adds at rate 1-F to bytes 0..7. */
	for (i = 0; i < opt.threads; i++) {
		a[i] = 1 - false_fraction;
		s[i] = 1;
		off[i] = 0;
		len[i] = 8;
	}
	mb_model_line(&m, opt.iters, a, s, off, len);
	/* Each false-sharing line: its 8 threads add at rate F, each to its slot. */
	for (g = 0; g * SLOTS_PER_LINE < opt.threads; g++) {
		for (i = 0; i < opt.threads; i++) {
			a[i] = i / SLOTS_PER_LINE == g ? false_fraction : 0;
			off[i] = 8 * (i % SLOTS_PER_LINE);
		}
		mb_model_line(&m, opt.iters, a, s, off, len);
	}
	mb_json_init(&j, stdout);
	mb_model_print(&j, info.name, &m);
	mb_json_params(&j, &opt);
	mb_json_double(&j, "false_fraction", false_fraction);
	mb_json_int(&j, "threads_per_line", SLOTS_PER_LINE);
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
	mb_json_object(&j, NULL, "true_sharing_data", &true_sharing_data,
		       sizeof(true_sharing_data));
	mb_json_object(&j, NULL, "false_sharing_lines", false_sharing_lines,
		       sizeof(false_sharing_lines[0]) *
		       ((opt.threads + SLOTS_PER_LINE - 1) / SLOTS_PER_LINE));
	mb_json_arr_end(&j);
	mb_json_obj_end(&j);
}

/*
 * --order: the adds of the run just made, merged by the TSC each thread read
 * right after each of its adds. Adds to one line are serialized by the
 * coherence protocol, a transfer taking far longer than the TSC read that
 * follows an add, so per line this is the order the hardware gave them.
 */
static int order_write(void)
{
	static struct { FILE *f; } tr;
	static char buf[1 << 16];
	long head[MB_MAX_THREADS] = { 0 };
	int t, best, i;
	uint64_t v;

	tr.f = fopen(order_path, "w");
	if (!tr.f) {
		fprintf(stderr, "%s: error: cannot open '%s': %s\n", info.name, order_path,
			strerror(errno));
		return 1;
	}
	setvbuf(tr.f, buf, _IOFBF, sizeof(buf));
	fprintf(tr.f, "# lociprof-trace 1\n# tid op address size\n#");
	for (i = 0; i < opt.argc; i++)
		fprintf(tr.f, " %s", opt.argv[i]);
	fprintf(tr.f, "\n# tid = thread index; the order of a run; time: the TSC after each add\n");
	for (;;) {
		best = -1;
		for (t = 0; t < opt.threads; t++)
			if (head[t] < opt.iters &&
			    (best < 0 || order_log[t][head[t]] >> 1 < order_log[best][head[best]] >> 1))
				best = t;
		if (best < 0)
			break;
		v = order_log[best][head[best]++];
		fprintf(tr.f, "%d W %p 8 %llu\n", best, v & 1 ?
			(void *)&false_sharing_lines[best / SLOTS_PER_LINE].slot[best % SLOTS_PER_LINE] :
			(void *)&true_sharing_data.v, (unsigned long long)(v >> 1));
	}
	if (ferror(tr.f) | fclose(tr.f)) {
		fprintf(stderr, "%s: error: cannot write '%s': %s\n", info.name, order_path,
			strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int t, err;

	mb_parse(&opt, &info, argc, argv);
	if (order_path && (opt.trace || opt.expect)) {
		fprintf(stderr, "%s: error: --order runs the threads: not with --trace or --expect\n",
			info.name);
		return MB_EXIT_USAGE;
	}
	for (t = 0; order_path && t < opt.threads; t++) {
		order_log[t] = calloc(opt.iters ? opt.iters : 1, sizeof(uint64_t));
		if (!order_log[t]) {
			fprintf(stderr, "%s: error: --order: no memory for %ld adds\n", info.name,
				opt.iters);
			return 1;
		}
	}
	err = mb_finish_main(&info, &opt, expect, print_layout, worker, step, counts);
	if (!err && order_path)
		err = order_write();
	return err;
}
