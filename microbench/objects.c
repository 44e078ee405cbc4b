// SPDX-License-Identifier: GPL-2.0
/*
 * Heap objects with a known answer (issue 21): each iteration a thread
 * makes one atomic add, with probability --false-fraction to its own
 * element of 'slots', a calloc'd array of structs whose elements share one
 * cache line (false sharing), else to 'counter', a malloc'd word all
 * threads add to (true sharing). --expect names the two allocation sites
 * (file:line of the calloc and the malloc) and the false fraction.
 * With --pad each element fills two cache lines: the false sharing, and
 * with it the 'slots' object's communication, disappears.
 *
 * --alloc picks the allocator of 'slots' (calloc, malloc, aligned_alloc,
 * memalign, posix_memalign, valloc): each must be named by its site.
 * --counter-mmap puts 'counter' in an anonymous mmap'd page instead.
 * --stack-work adds a private store to the thread's stack per iteration
 * (thread 1's is a mapping of its own: "stack of T1").
 *
 * Untouched guard blocks around 'counter' keep it off the lines of
 * 'slots' (heap blocks are adjacent, 16 bytes apart).
 */
#include <malloc.h>
#include <sys/mman.h>

#include "microbench/mb.h"

struct slot {
	uint64_t v;
};

struct padded_slot {
	uint64_t v;
	char pad[MB_PAD - sizeof(uint64_t)];
};

static double false_fraction = 0.7;
static int pad, stack_work, counter_mmap;
static const char *alloc_fn = "calloc";
static struct mb_common opt;
static struct mb_counts counts[2];

static uint64_t *slot_word[2];	/* thread i's element of 'slots' */
static uint64_t *counter;
static int slots_line, counter_line;

static const struct mb_opt opts[] = {
	{ "false-fraction", MB_OPT_DOUBLE, &false_fraction, 0, 1, "F",
	  "probability that an add goes to the thread's own element (default 0.7)" },
	{ "pad", MB_OPT_FLAG, &pad, 0, 0, NULL,
	  "pad each element of 'slots' to two cache lines: no false sharing" },
	{ "counter-mmap", MB_OPT_FLAG, &counter_mmap, 0, 0, NULL,
	  "put 'counter' in a page of its own from an anonymous mmap" },
	{ "alloc", MB_OPT_STR, &alloc_fn, 0, 0, "FN",
	  "make 'slots' with FN (calloc, malloc, aligned_alloc, memalign, posix_memalign, valloc)" },
	{ "stack-work", MB_OPT_FLAG, &stack_work, 0, 0, NULL,
	  "also store to an array on the thread's stack every iteration (private)" },
	{ NULL },
};

static const struct mb_info info = {
	.name = "objects",
	.summary = "Each thread makes one atomic add per iteration: with probability F to its\n"
		   "own element of 'slots' (calloc'd array of 8-byte structs in one cache line:\n"
		   "false sharing), else to 'counter' (a malloc'd word: true sharing). --expect\n"
		   "names both allocation sites (file:line) and the false fraction.",
	.def_threads = 2, .max_threads = 2,
	.def_iters = 10000000, .iters_help = "atomic adds per thread",
	.opts = opts,
};

/*
 * 'slots' by --alloc, zeroed; each call on one line so that __LINE__ is
 * the call's line. Aligned to a cache line: the elements share one.
 */
static void *alloc_slots(size_t n, size_t size)
{
	void *p = NULL;

	if (!strcmp(alloc_fn, "calloc")) {
		slots_line = __LINE__; p = calloc(n, size);
	} else if (!strcmp(alloc_fn, "malloc")) {
		slots_line = __LINE__; p = malloc(n * size);
	} else if (!strcmp(alloc_fn, "aligned_alloc")) {
		slots_line = __LINE__; p = aligned_alloc(MB_PAD, (n * size + MB_PAD - 1) / MB_PAD * MB_PAD);
	} else if (!strcmp(alloc_fn, "memalign")) {
		slots_line = __LINE__; p = memalign(MB_PAD, n * size);
	} else if (!strcmp(alloc_fn, "posix_memalign")) {
		slots_line = __LINE__; if (posix_memalign(&p, MB_PAD, n * size)) p = NULL;
	} else if (!strcmp(alloc_fn, "valloc")) {
		slots_line = __LINE__; p = valloc(n * size);
	} else {
		fprintf(stderr, "objects: error: unknown --alloc '%s'\n", alloc_fn);
		exit(MB_EXIT_USAGE);
	}
	if (p)
		memset(p, 0, n * size);
	return p;
}

/* The allocations, each on one line so that __LINE__ is the call's line. */
static void allocate(void)
{
	void *guard[2];
	int i;

	if (pad) {
		struct padded_slot *s = alloc_slots(opt.threads, sizeof(*s));

		for (i = 0; s && i < opt.threads; i++)
			slot_word[i] = &s[i].v;
	} else {
		struct slot *s = alloc_slots(opt.threads, sizeof(*s));

		for (i = 0; s && i < opt.threads; i++)
			slot_word[i] = &s[i].v;
	}
	guard[0] = malloc(2 * MB_PAD);
	if (counter_mmap) {
		counter_line = __LINE__; counter = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (counter == MAP_FAILED)
			counter = NULL;
	} else {
		counter_line = __LINE__; counter = malloc(sizeof(*counter));
	}
	guard[1] = malloc(2 * MB_PAD);
	if (!slot_word[0] || !counter || !guard[0] || !guard[1]) {
		fprintf(stderr, "objects: out of memory\n");
		exit(1);
	}
	*counter = 0;
}

static void worker(int idx, void *arg)
{
	uint64_t thr = mb_threshold(false_fraction), r;
	uint64_t *mine = slot_word[idx];
	volatile uint64_t scratch[8];	/* --stack-work: on this thread's stack */
	long long nfalse = 0;
	struct mb_rng rng;
	long i;

	(void)arg;
	mb_rng_seed(&rng, opt.seed, idx);
	for (i = 0; i < opt.iters; i++) {
		r = mb_rng_next(&rng);
		if (stack_work)
			scratch[i & 7] = r;
		if (MB_CHOOSE(r, thr)) {
			__atomic_fetch_add(mine, r, __ATOMIC_SEQ_CST);
			nfalse++;
		} else {
			__atomic_fetch_add(counter, r, __ATOMIC_SEQ_CST);
		}
	}
	(void)scratch;
	counts[idx] = (struct mb_counts){ .shared = opt.iters, .false_ = nfalse,
		.true_ = opt.iters - nfalse, .loads = opt.iters, .stores = opt.iters,
		.cpu = sched_getcpu() };
}

static void expect_site(struct mb_json *j, const char *name, int line, double comm)
{
	char site[64];

	snprintf(site, sizeof(site), "objects.c:%d", line);
	mb_json_obj(j, NULL);
	mb_json_str(j, "name", name);
	mb_json_str(j, "site", site);
	mb_json_str(j, "kind", "heap");
	mb_json_double(j, "communication", comm);
	mb_json_obj_end(j);
}

static void expect(void)
{
	double a[2] = { 0, 0 }, s[2] = { 1, 1 };
	int off[2] = { 0, 0 }, len[2] = { 8, 8 }, i;
	double before, slots_comm = 0, total = 0;
	struct mb_model m;
	struct mb_json j;

	if (mb_model_init(&m, opt.threads))
		exit(1);
	for (i = 0; i < opt.threads; i++)
		a[i] = 1 - false_fraction;
	mb_model_line(&m, opt.iters, a, s, off, len);	/* counter: true sharing */
	for (i = 0; i < opt.threads * opt.threads; i++)
		total += m.all[i];
	before = total;
	if (!pad) {	/* slots: one line, each thread its 8 bytes */
		for (i = 0; i < opt.threads; i++) {
			a[i] = false_fraction;
			off[i] = 8 * i;
		}
		mb_model_line(&m, opt.iters, a, s, off, len);
		for (total = 0, i = 0; i < opt.threads * opt.threads; i++)
			total += m.all[i];
		slots_comm = total - before;
	}
	mb_json_init(&j, stdout);
	mb_model_print(&j, info.name, &m);
	mb_json_arr(&j, "objects");
	/* ranked by communication, as comdetect's object table */
	if (slots_comm > before) {
		expect_site(&j, "slots", slots_line, total > 0 ? slots_comm / total : 0);
		expect_site(&j, "counter", counter_line, total > 0 ? before / total : 0);
	} else {
		expect_site(&j, "counter", counter_line, total > 0 ? before / total : 0);
		if (!pad)
			expect_site(&j, "slots", slots_line, total > 0 ? slots_comm / total : 0);
	}
	mb_json_arr_end(&j);
	mb_json_params(&j, &opt);
	mb_json_double(&j, "false_fraction", false_fraction);
	mb_json_int(&j, "pad", pad);
	mb_json_obj_end(&j);
	mb_json_obj_end(&j);
	mb_model_exit(&m);
}

int main(int argc, char **argv)
{
	mb_parse(&opt, &info, argc, argv);
	allocate();
	return mb_finish_main(&info, &opt, expect, NULL, worker, NULL, counts);
}
