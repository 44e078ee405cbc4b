// SPDX-License-Identifier: GPL-2.0
/*
 * Thread-Churn: the main thread creates --threads short-lived threads,
 * --batch at a time, joining each batch before starting the next. Each
 * thread writes and sums a 4 KiB buffer on its stack --iters times. A
 * profiler attached to it must follow every clone and exit: the test of
 * a target that spawns and joins thousands of threads must lose nothing.
 *
 * Prints nothing on success (a JSON summary to stderr with -v); exits 1 if
 * a thread cannot be created or fewer threads than asked for ran.
 */
#include "microbench/mb.h"

#define BUF_BYTES	4096
#define MAX_CHURN	1000000

static long batch = 4;
static struct mb_common opt;
static int ncpus, cpus[CPU_SETSIZE];
static long ran;		/* threads that finished their work (atomic) */
static volatile long sink;

static const struct mb_opt opts[] = {
	{ "batch", MB_OPT_LONG, &batch, 1, 1024, "B",
	  "threads alive at once, besides main (default 4, 1..1024)" },
	{ NULL },
};

static const struct mb_info info = {
	.name = "thread-churn",
	.summary = "Creates and joins --threads short-lived threads, --batch at a time; each\n"
		   "writes and sums a 4 KiB stack buffer --iters times. Silent unless -v.",
	.def_threads = 100, .max_threads = MAX_CHURN,
	.def_iters = 1000, .iters_help = "passes over its 4 KiB buffer per thread",
	.threads_help = "threads to create, indices 1..N (main is 0)",
	.has_layout = 0, .opts = opts,
};

static void *churn_thread(void *arg)
{
	long idx = (long)arg, it, sum = 0;
	volatile unsigned char buf[BUF_BYTES];
	size_t k;

	if (opt.pin)
		mb_pin_self(cpus[idx % ncpus]);
	for (it = 0; it < opt.iters; it++)
		for (k = 0; k < BUF_BYTES; k += 8) {
			buf[k] = (unsigned char)(k + it + idx);
			sum += buf[k];
		}
	sink = sum;
	__atomic_fetch_add(&ran, 1, __ATOMIC_RELAXED);
	return NULL;
}

static void expect(void)
{
	struct mb_json j;

	mb_json_init(&j, stdout);
	mb_json_obj(&j, NULL);
	mb_json_str(&j, "benchmark", info.name);
	mb_json_int(&j, "threads", opt.threads);
	mb_json_int(&j, "batch", batch);
	/* created threads have indices 1..N in creation order, main is 0 */
	mb_json_int(&j, "total_threads", opt.threads + 1);
	mb_json_int(&j, "max_alive", (batch < opt.threads ? batch : opt.threads) + 1);
	mb_json_int(&j, "iters", opt.iters);
	mb_json_obj_end(&j);
}

int main(int argc, char **argv)
{
	pthread_t tids[1024];
	long done = 0, i, n;
	struct mb_json j;
	int err;

	mb_parse(&opt, &info, argc, argv);
	if (opt.expect) {
		expect();
		return 0;
	}
	ncpus = mb_allowed_cpus(cpus);
	if (opt.pin && !ncpus) {
		fprintf(stderr, "%s: error: cannot read the cpu affinity mask\n", info.name);
		return 1;
	}
	if (opt.pin)
		mb_pin_self(cpus[0]);
	while (done < opt.threads) {
		n = opt.threads - done < batch ? opt.threads - done : batch;
		for (i = 0; i < n; i++) {
			err = pthread_create(&tids[i], NULL, churn_thread, (void *)(done + i + 1));
			if (err) {
				fprintf(stderr, "%s: error: cannot create thread %ld: %s\n",
					info.name, done + i + 1, strerror(err));
				return 1;
			}
		}
		for (i = 0; i < n; i++)
			pthread_join(tids[i], NULL);
		done += n;
	}
	if (ran != opt.threads) {
		fprintf(stderr, "%s: error: %ld of %d threads ran\n", info.name, ran, opt.threads);
		return 1;
	}
	if (opt.verbose) {
		mb_json_init(&j, stderr);
		mb_json_obj(&j, NULL);
		mb_json_str(&j, "benchmark", info.name);
		mb_json_int(&j, "created", done);
		mb_json_int(&j, "ran", ran);
		mb_json_int(&j, "batch", batch);
		mb_json_obj_end(&j);
	}
	return 0;
}
