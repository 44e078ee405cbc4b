// SPDX-License-Identifier: GPL-2.0
/*
 * RIBench (ReuseTracker, Sasongko 2022, ch. 6.5.1, Listing 6.1): every
 * thread runs
 *
 *	for i < outer:
 *	  for P in a, b, c, d, e:			(r_P = a, b, ..)
 *	    for j < r_P:				("one j-iteration")
 *	      for k < inv:        store shared_array[k]
 *	      for k < P1; k += 2: load  private_P[k]; store private_P[k + 1]
 *
 * on its own five private arrays; shared_array is one array for all threads,
 * so with --threads >= 2 and --inv > 0 the stores of the other threads
 * invalidate a thread's copies (Sasongko 2022, Definition 6.2.2).
 *
 * Every array element is a long (8 bytes); every access goes through
 * mb_load() / rib_store() (inline asm whose address register survives the
 * instruction, so lociprof's soft facility can recompute the address of the
 * instruction before a sample). Arrays are 128-byte aligned and padded, so
 * no two arrays (nor two threads' arrays) share a cache line.
 *
 * --expect prints the exact expected reuse histogram (closed form below),
 * --trace FILE writes every access in lociprof-trace(5) format. The closed
 * form assumes the order that --trace uses: the threads' j-iterations
 * round-robin (thread 0, 1, .., N-1 each run one whole j-iteration in turn).
 * It is checked against an exact reuse-distance computation of the trace
 * by test/e2e/ribench.sh.
 */
#include <limits.h>
#include <sys/mman.h>
#include "microbench/mb.h"

#define RIB_NPHASE	5
#define RIB_MAX_LEN	(1L << 27)	/* elements of one array (1 GiB) */
#define RIB_MAX_REP	1000000L

/*
 * Defaults: "Long-RD Bell-Shaped Case 2" of Table 6.6 (the configuration of
 * the seed's thread-count experiment, 6.5.4) with outer = 30 instead of
 * 10, so that a run takes about 1 s on the test VM (0.7 ns per access).
 */
static long outer = -1;		/* -1: --iters (default 30) */
static long rep[RIB_NPHASE] = { 50, 40, 40, 10, 3 };
static long len[RIB_NPHASE] = { 50000, 150000, 350000, 750000, 1550000 };
static long inv = 100000;
static const char *gran_arg = "address", *trace_arg;
static int shared_cache;
static struct mb_common opt;

static const struct mb_opt opts[] = {
	{ "outer", MB_OPT_LONG, &outer, 0, RIB_MAX_REP, "N",
	  "outer iterations (default 30; same as --iters)" },
	{ "a", MB_OPT_LONG, &rep[0], 0, RIB_MAX_REP, "N", "j-iterations of phase a (default 50)" },
	{ "a1", MB_OPT_LONG, &len[0], 0, RIB_MAX_LEN, "N",
	  "accesses per pass over private array a (default 50000)" },
	{ "b", MB_OPT_LONG, &rep[1], 0, RIB_MAX_REP, "N", "j-iterations of phase b (default 40)" },
	{ "b1", MB_OPT_LONG, &len[1], 0, RIB_MAX_LEN, "N",
	  "pass length of array b (default 150000)" },
	{ "c", MB_OPT_LONG, &rep[2], 0, RIB_MAX_REP, "N", "j-iterations of phase c (default 40)" },
	{ "c1", MB_OPT_LONG, &len[2], 0, RIB_MAX_LEN, "N",
	  "pass length of array c (default 350000)" },
	{ "d", MB_OPT_LONG, &rep[3], 0, RIB_MAX_REP, "N", "j-iterations of phase d (default 10)" },
	{ "d1", MB_OPT_LONG, &len[3], 0, RIB_MAX_LEN, "N",
	  "pass length of array d (default 750000)" },
	{ "e", MB_OPT_LONG, &rep[4], 0, RIB_MAX_REP, "N", "j-iterations of phase e (default 3)" },
	{ "e1", MB_OPT_LONG, &len[4], 0, RIB_MAX_LEN, "N",
	  "pass length of array e (default 1550000)" },
	{ "inv", MB_OPT_LONG, &inv, 0, RIB_MAX_LEN, "N",
	  "stores to shared_array[0..N-1] before every pass (default 100000)" },
	{ "granularity", MB_OPT_STR, &gran_arg, 0, 0, "G",
	  "address|line: unit of --expect's distances (default address)" },
	{ "shared-cache", MB_OPT_FLAG, &shared_cache, 0, 0, NULL,
	  "--expect: one cache shared by all threads (--trace's order)" },
	{ "trace", MB_OPT_STR, &trace_arg, 0, 0, "FILE",
	  "write every access (lociprof-trace(5), '-': stdout) instead of running" },
	{ NULL },
};

static const struct mb_info info = {
	.name = "ribench",
	.summary = "RIBench (Sasongko 2022, Listing 6.1): each thread runs 'outer' times the\n"
		   "phases a..e; phase P repeats P times (a j-iteration): inv stores to the\n"
		   "shared array, then a pass over its private array P of P1 elements (load\n"
		   "p[k], store p[k+1], k = 0, 2, ..). Shared stores of other threads\n"
		   "invalidate. --expect: exact reuse histograms (stack and time distance) in\n"
		   "lociprof reuse's JSON; --trace: the accesses with the threads'\n"
		   "j-iterations round-robin in one OS thread (the order --expect assumes).\n"
		   "--seed is accepted but unused (ribench makes no random choices).",
	.def_threads = 1, .max_threads = MB_MAX_THREADS,
	.def_iters = 30, .iters_help = "outer iterations (same as --outer)",
	.opts = opts,
};

/* ---------------------------------------------------------------- arrays */

struct rib_thread {
	volatile long *arr[RIB_NPHASE];
	long long loads, stores;
	int cpu;
} __attribute__((aligned(MB_PAD)));

static struct rib_thread thr[MB_MAX_THREADS];
static volatile long *shared_array;

/* Accesses of one pass: load p[k], store p[k+1] for k = 0, 2, .. < P1. */
static long pass_len(long l)
{
	return (l + 1) / 2 * 2;
}

/*
 * Page-aligned and padded, zeroed; NULL only on failure (n > 0). The kernel
 * faults the pages in (MAP_POPULATE): no page fault in the phases, and no
 * user-mode initialising pass a profiler would sample -- Listing 6.1's
 * accesses are the only ones the program makes to its arrays.
 */
static volatile long *rib_alloc(long n)
{
	size_t bytes = ((size_t)n * sizeof(long) + MB_PAD - 1) / MB_PAD * MB_PAD;
	void *p;

	if (!bytes)
		bytes = MB_PAD;		/* a valid pointer that is never accessed */
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static void rib_alloc_all(void)
{
	int t, p;

	shared_array = rib_alloc(inv);
	for (t = 0; t < opt.threads && shared_array; t++)
		for (p = 0; p < RIB_NPHASE; p++)
			if (!(thr[t].arr[p] = rib_alloc(pass_len(len[p]))))
				break;
	if (!shared_array || t < opt.threads) {
		fprintf(stderr, "ribench: error: cannot allocate the arrays: %s\n",
			strerror(ENOMEM));
		exit(1);
	}
}

/* -------------------------------------------------------------- accesses */

/* An 8-byte store that leaves its address register intact (see mb_load). */
static inline void rib_store(volatile long *p, long v)
{
	__asm__ volatile("mov %1, (%0)" : : "r"(p), "r"(v) : "memory");
}

/* The --trace writer: one "TID R|W 0xADDR 8" line per access. */
struct rib_tracer {
	FILE *f;
	char buf[1 << 16];
	size_t n;
};

static void tracer_flush(struct rib_tracer *tr)
{
	if (tr->n && fwrite(tr->buf, 1, tr->n, tr->f) != tr->n) {
		fprintf(stderr, "ribench: error: cannot write trace '%s': %s\n",
			trace_arg, strerror(errno));
		exit(1);
	}
	tr->n = 0;
}

static void tracer_put(struct rib_tracer *tr, int tid, char op, const volatile void *addr)
{
	static const char hex[] = "0123456789abcdef";
	unsigned long a = (unsigned long)addr;
	char tmp[24];
	char *o;
	int i = 0, t = tid;

	if (tr->n > sizeof(tr->buf) - 64)
		tracer_flush(tr);
	o = tr->buf + tr->n;
	do {
		tmp[i++] = (char)('0' + t % 10);
		t /= 10;
	} while (t);
	while (i)
		*o++ = tmp[--i];
	*o++ = ' ';
	*o++ = op;
	*o++ = ' ';
	*o++ = '0';
	*o++ = 'x';
	do {
		tmp[i++] = hex[a & 15];
		a >>= 4;
	} while (a);
	while (i)
		*o++ = tmp[--i];
	memcpy(o, " 8\n", 3);
	o += 3;
	tr->n = (size_t)(o - tr->buf);
}

/*
 * One j-iteration (Listing 6.1's loop body): @ninv stores to @sh, then the
 * pass over @priv. With @tr the accesses are also written to the trace as
 * thread @t's; the run path passes NULL and always_inline makes that a copy
 * without the tracing code. Everything but the array elements is in
 * registers (locals, not globals: the asm "memory" clobbers would reload a
 * global every access), so the loops make no memory access besides the
 * listed ones.
 */
static inline __attribute__((always_inline)) long
rib_jiter(volatile long *sh, long ninv, volatile long *priv, long n, long j,
	  struct rib_tracer *tr, int t)
{
	long k, s = 0;

	for (k = 0; k < ninv; k++) {
		rib_store(&sh[k], j);
		if (tr)
			tracer_put(tr, t, 'W', &sh[k]);
	}
	for (k = 0; k < n; k += 2) {
		s += mb_load(&priv[k]);
		rib_store(&priv[k + 1], s);
		if (tr) {
			tracer_put(tr, t, 'R', &priv[k]);
			tracer_put(tr, t, 'W', &priv[k + 1]);
		}
	}
	return s;
}

/* The @r j-iterations of one phase in a real thread; counts in @ld, @st. */
static __attribute__((noinline)) long
rib_phase(volatile long *sh, long ninv, volatile long *priv, long n, long r,
	  long long *ld, long long *st)
{
	long j, s = 0, half = (n + 1) / 2;
	long long loads = 0, stores = 0;

	for (j = 0; j < r; j++) {
		s += rib_jiter(sh, ninv, priv, n, j, NULL, 0);
		stores += ninv + half;
		loads += half;
	}
	*ld += loads;
	*st += stores;
	return s;
}

static void worker(int idx, void *arg)
{
	long long loads = 0, stores = 0;
	long i, s = 0;
	int p;

	(void)arg;
	for (i = 0; i < outer; i++)
		for (p = 0; p < RIB_NPHASE; p++)
			s += rib_phase(shared_array, inv, thr[idx].arr[p], len[p], rep[p],
				       &loads, &stores);
	MB_KEEP(s);
	thr[idx].loads = loads;
	thr[idx].stores = stores;
	thr[idx].cpu = sched_getcpu();
}

/* All threads in one OS thread: j-iterations round-robin over the threads. */
static void write_trace(void)
{
	static struct rib_tracer tr;
	long i, j, s = 0;
	int p, t;

	tr.f = strcmp(trace_arg, "-") ? fopen(trace_arg, "w") : stdout;
	if (!tr.f) {
		fprintf(stderr, "ribench: error: cannot open '%s': %s\n", trace_arg,
			strerror(errno));
		exit(1);
	}
	fprintf(tr.f, "# lociprof-trace 1\n# tid op address size\n"
		"# ribench --threads %d --outer %ld --a %ld --a1 %ld --b %ld --b1 %ld"
		" --c %ld --c1 %ld --d %ld --d1 %ld --e %ld --e1 %ld --inv %ld\n"
		"# tid = thread index; one OS thread runs the threads' j-iterations"
		" round-robin (0, 1, .., N-1)\n",
		opt.threads, outer, rep[0], len[0], rep[1], len[1], rep[2], len[2],
		rep[3], len[3], rep[4], len[4], inv);
	for (i = 0; i < outer; i++)
		for (p = 0; p < RIB_NPHASE; p++)
			for (j = 0; j < rep[p]; j++)
				for (t = 0; t < opt.threads; t++)
					s += rib_jiter(shared_array, inv, thr[t].arr[p],
						       len[p], j, &tr, t);
	MB_KEEP(s);
	for (t = 0; t < opt.threads; t++)
		for (p = 0; p < RIB_NPHASE; p++) {
			thr[t].loads += outer * rep[p] * ((len[p] + 1) / 2);
			thr[t].stores += outer * rep[p] * (inv + (len[p] + 1) / 2);
		}
	tracer_flush(&tr);
	if (fflush(tr.f) || (tr.f != stdout && fclose(tr.f))) {
		fprintf(stderr, "ribench: error: cannot write trace '%s': %s\n",
			trace_arg, strerror(errno));
		exit(1);
	}
	for (t = 0; t < opt.threads; t++)
		thr[t].cpu = sched_getcpu();
}

static void print_counts(void)
{
	struct mb_json j;
	int t;

	mb_json_init(&j, stderr);
	mb_json_obj(&j, NULL);
	mb_json_str(&j, "benchmark", "ribench");
	mb_json_int(&j, "threads", opt.threads);
	mb_json_int(&j, "pinned", opt.pin);
	mb_json_arr(&j, "counts");
	for (t = 0; t < opt.threads; t++) {
		mb_json_obj(&j, NULL);
		mb_json_int(&j, "thread", t);
		mb_json_int(&j, "cpu", thr[t].cpu);
		mb_json_int(&j, "loads", thr[t].loads);
		mb_json_int(&j, "stores", thr[t].stores);
		mb_json_int(&j, "accesses", thr[t].loads + thr[t].stores);
		mb_json_obj_end(&j);
	}
	mb_json_arr_end(&j);
	mb_json_obj_end(&j);
}

/* ------------------------------------------------------- expected answer */

/*
 * Closed form of the per-thread histograms (seed Table 6.4, made exact).
 *
 * Table 6.4 says: phase P yields num_threads * outer * P * P1 reuses at
 * distance inv + P1, and shared_array's stores become invalidations. With
 * the definitions lociprof uses (stack distance = DISTINCT other units,
 * time distance = accesses STRICTLY between, both counted in the thread's
 * own stream; a unit is an 8-byte element with --granularity address or a
 * 64-byte line with line), exactly, per thread:
 *
 * Let g = 1 (address) or 8 (line) elements per unit; an array of n elements
 * (arrays are line aligned) has u(n) = ceil(n / g) units, all of g elements
 * except the last with c(n) = n - g (u(n) - 1). A pass over it touches the
 * elements in order, so (g = 8) a unit's 2nd..c-th accesses come right after
 * its previous one: n - u(n) reuses at distance 0 per pass (none for g = 1).
 * A unit's first access in a pass reuses its last access in the previous
 * pass over the same array; if X accesses and D distinct other units come
 * between the two passes, the distances are
 *	stack = u(n) - 1 + D,  time = n - g + X  (last unit: n - c(n) + X).
 * (time: the n - 1 - last elements after the unit, X, and g*m before it.)
 *
 * Private array P (n_P = P1 rounded up to even, u_P = u(n_P), s = u(inv)):
 *  - cold: u_P (the first pass of the first outer iteration);
 *  - within the phase (j >= 1): outer (r_P - 1) passes, X = inv, D = s;
 *    this is Table 6.4's row, at distance n_P + inv - 1 (the seed's
 *    inv + P1 counts one more: it includes the reuse itself);
 *  - across outer iterations (j = 0, i >= 1): outer - 1 passes with
 *    X = inv + sum_{Q != P} r_Q (inv + n_Q), D = s + sum_{Q != P, r_Q > 0} u_Q:
 *    Table 6.4's count outer r_P P1 includes these (outer - 1) u_P reuses
 *    and the u_P cold accesses, all at its one distance;
 *  - plus the distance-0 line reuses inside each of the outer r_P passes.
 * The shared units of the current j-iteration are stored just before the
 * pass, by this thread, so they count in D even when other threads keep
 * invalidating them: in the round-robin order nobody runs in the middle of
 * a j-iteration.
 *
 * shared_array (a pass of inv stores per j-iteration, J = outer sum r_P):
 *  - cold: s; distance-0 line reuses: J (inv - s);
 *  - 1 thread: a unit's first store in a j-iteration of phase P reuses the
 *    store of the previous j-iteration (of any phase, not the very last one):
 *    per P, outer r_P (- 1 for the last non-empty phase) passes with
 *    X = n_P, D = u_P, i.e. stack = s - 1 + u_P, time = inv - g + n_P;
 *  - N >= 2 threads, round-robin: between two of a thread's j-iterations
 *    every other thread stored every shared unit, so each first store of a
 *    unit in a later j-iteration is an invalidation: (J - 1) s per thread,
 *    Table 6.4's "each access to shared_array is an invalidation". Uses
 *    invalidated (counted at the other thread's store, including those the
 *    owner never touches again): s (N J - 1) over all threads.
 * accesses = reuses + cold + invalidations = outer sum r_P (inv + n_P).
 */
struct rib_hist {
	uint64_t stack[65], time[65];
	uint64_t reuses, cold, inval, invalidated, accesses;
};

#define RIB_MAX_TERMS	64

struct rib_term {
	const char *what;
	int phase;			/* 0..4, or -1 for shared_array */
	uint64_t count, stack, time;
};

struct rib_expect {
	int g;				/* elements per unit */
	struct rib_term term[RIB_MAX_TERMS];
	int nterms;
	int overflow;
};

/* lociprof's bins (core/reuse-hist.c reuse_hist__bin, re-implemented here
 * because microbenchmarks do not link core/): bin 0 = {0}, bin k >= 1 =
 * [2^(k-1), 2^k). */
static int rib_bin(uint64_t d)
{
	return d ? 64 - __builtin_clzll(d) : 0;
}

static uint64_t rib_bin_lo(int k)
{
	return k <= 0 ? 0 : (uint64_t)1 << (k - 1);
}

static uint64_t rib_bin_hi(int k)
{
	return k <= 0 ? 0 : k >= 64 ? UINT64_MAX : ((uint64_t)1 << k) - 1;
}

static uint64_t rib_mul(struct rib_expect *e, uint64_t a, uint64_t b)
{
	uint64_t r;

	if (__builtin_mul_overflow(a, b, &r))
		e->overflow = 1;
	return r;
}

static uint64_t rib_add(struct rib_expect *e, uint64_t a, uint64_t b)
{
	uint64_t r;

	if (__builtin_add_overflow(a, b, &r))
		e->overflow = 1;
	return r;
}

static void term(struct rib_expect *e, const char *what, int phase, uint64_t count,
		 uint64_t stack, uint64_t time)
{
	struct rib_term *t;

	if (!count)
		return;
	t = e->nterms ? &e->term[e->nterms - 1] : NULL;
	if (t && t->what == what && t->phase == phase && t->stack == stack &&
	    t->time == time) {
		t->count = rib_add(e, t->count, count);	/* same distances: one term */
		return;
	}
	if (e->nterms == RIB_MAX_TERMS) {
		e->overflow = 1;
		return;
	}
	t = &e->term[e->nterms++];
	*t = (struct rib_term){ what, phase, count, stack, time };
}

static uint64_t units(struct rib_expect *e, uint64_t n)
{
	return (n + e->g - 1) / e->g;
}

/* Elements of an array's last unit. */
static uint64_t last_unit(struct rib_expect *e, uint64_t n)
{
	return n ? n - (uint64_t)e->g * (units(e, n) - 1) : 0;
}

/*
 * Reuses of the first access of every unit in @passes passes over an array
 * of @n elements, with @x accesses and @d distinct other units between two
 * passes.
 */
static void pass_reuses(struct rib_expect *e, const char *what, int phase,
			uint64_t passes, uint64_t n, uint64_t x, uint64_t d)
{
	uint64_t u = units(e, n), c = last_unit(e, n);

	if (!passes || !n)
		return;
	if (u > 1)	/* full units: n >= g */
		term(e, what, phase, rib_mul(e, passes, u - 1), u - 1 + d,
		     rib_add(e, n - e->g, x));
	term(e, what, phase, passes, u - 1 + d, rib_add(e, n - c, x));
}

/* The options in units: what both closed forms start from. */
struct rib_shape {
	uint64_t n[RIB_NPHASE], u[RIB_NPHASE], r[RIB_NPHASE];
	uint64_t o, s, ninv, J;		/* outer, u(inv), inv, j-iterations */
	int last;			/* the last phase with r_P > 0, or -1 */
};

/* @e emptied for @gran_line; 0 if there is no access (outer 0). */
static int rib_shape_of(struct rib_expect *e, int gran_line, struct rib_shape *sh)
{
	int p;

	memset(e, 0, sizeof(*e));
	memset(sh, 0, sizeof(*sh));
	e->g = gran_line ? MB_LINE / sizeof(long) : 1;
	sh->o = (uint64_t)outer;
	sh->ninv = (uint64_t)inv;
	sh->s = units(e, sh->ninv);
	sh->last = -1;
	for (p = 0; p < RIB_NPHASE; p++) {
		sh->n[p] = (uint64_t)pass_len(len[p]);
		sh->u[p] = units(e, sh->n[p]);
		sh->r[p] = (uint64_t)rep[p];
		sh->J = rib_add(e, sh->J, sh->r[p]);
		if (sh->r[p])
			sh->last = p;
	}
	sh->J = rib_mul(e, sh->J, sh->o);
	return sh->o != 0;
}

/*
 * Shared cache (--shared-cache): one LRU stack over the interleaved stream
 * of all threads in --trace's order (the round of j-iteration j of phase P
 * is thread 0's, then 1's, .., N-1's), distances counted in that stream;
 * no invalidation (one cache); results kept per reusing thread, as
 * `lociprof reuse --trace --shared-cache` keeps them. Thread t, exactly:
 *
 * Private array P of thread t (only t touches it): cold u_P, the
 * distance-0 line reuses as above, and pass_reuses with
 *  - within the phase: outer (r_P - 1) passes; between two of t's passes
 *    the other N - 1 threads' j-iterations of P and t's own shared stores:
 *    X = N inv + (N - 1) n_P, D = s + (N - 1) u_P;
 *  - across outer iterations: outer - 1 passes; between them the rest of
 *    t's last round of P, every thread's j-iterations of every other phase
 *    and the start of the first round of P:
 *    X = inv + (N - 1)(inv + n_P) + N sum_{Q != P} r_Q (inv + n_Q),
 *    D = s + (N - 1) u_P + N sum_{Q != P, r_Q > 0} u_Q.
 *  (N = 1: the private terms.)
 *
 * shared_array: distance-0 line reuses J (inv - s) per thread; cold s, all
 * of it thread 0's (the stream's first j-iteration). Every other
 * j-iteration's first store to a unit reuses the store of the j-iteration
 * just before it in the stream, whose private pass is all that lies in
 * between besides the shared stores: if that pass was over array Q,
 * stack = s - 1 + u_Q, time = inv - g + n_Q (pass_reuses with X = n_Q,
 * D = u_Q). For t >= 1 the j-iteration before is thread t-1's of the same
 * round: outer r_P passes with Q = P. For thread 0 it is thread N-1's of
 * the round before (Q = P) or, in the first round of a phase, the last
 * round of the phase before (cyclically; none before the very first):
 * outer r_Q - (Q is the last non-empty phase) passes with each Q, the
 * 1-thread terms. With N >= 2 these reuses are all of another thread's
 * store (cross-thread): (J - 1) s for thread 0, J s for the others.
 */
/*
 * Terms of thread @t's stream: in its private caches (@shared 0: the same
 * for every thread) or in the cache all @nthreads threads share; @cross:
 * how many of its reuses are of another thread's access.
 */
static void rib_terms(struct rib_expect *e, int gran_line, int nthreads, int shared, int t,
		      uint64_t *cross)
{
	struct rib_shape sh;
	const uint64_t *n = sh.n, *u = sh.u, *r = sh.r;
	uint64_t x, d, o, s, ninv, J, N = (uint64_t)nthreads;
	uint64_t M = shared ? N : 1;	/* threads whose passes share the stack */
	int p, q, last;

	*cross = 0;
	if (!rib_shape_of(e, gran_line, &sh))
		return;
	o = sh.o, s = sh.s, ninv = sh.ninv, J = sh.J, last = sh.last;
	for (p = 0; p < RIB_NPHASE; p++) {
		if (!r[p] || !n[p])
			continue;
		term(e, "cold", p, u[p], 0, 0);
		term(e, "same line", p, rib_mul(e, rib_mul(e, o, r[p]), n[p] - u[p]), 0, 0);
		pass_reuses(e, "next j-iteration", p, rib_mul(e, o, r[p] - 1), n[p],
			    rib_add(e, rib_mul(e, M, ninv), rib_mul(e, M - 1, n[p])),
			    s + rib_mul(e, M - 1, u[p]));
		x = rib_add(e, ninv, rib_mul(e, M - 1, ninv + n[p]));
		d = s + rib_mul(e, M - 1, u[p]);
		for (q = 0; q < RIB_NPHASE; q++) {
			if (q == p || !r[q])
				continue;
			x = rib_add(e, x, rib_mul(e, rib_mul(e, M, r[q]), ninv + n[q]));
			d = rib_add(e, d, rib_mul(e, M, u[q]));
		}
		pass_reuses(e, "next outer iteration", p, o - 1, n[p], x, d);
	}
	if (!ninv || !J)
		return;
	if (!shared || t == 0)
		term(e, "cold", -1, s, 0, 0);
	term(e, "same line", -1, rib_mul(e, J, ninv - s), 0, 0);
	if (!shared && N >= 2) {
		term(e, "invalidation", -1, rib_mul(e, J - 1, s), 0, 0);
		return;
	}
	for (p = 0; p < RIB_NPHASE; p++) {
		if (!r[p])
			continue;
		/* the j-iteration before this one in the stream was of phase p */
		pass_reuses(e, "next j-iteration", -1, rib_mul(e, o, r[p]) - (t == 0 && p == last),
			    ninv, n[p], u[p]);
	}
	if (N >= 2)
		*cross = rib_mul(e, J - (t == 0), s);
}

static void rib_hist_of(struct rib_expect *e, struct rib_hist *h)
{
	const struct rib_term *t;
	int i;

	memset(h, 0, sizeof(*h));
	for (i = 0; i < e->nterms; i++) {
		t = &e->term[i];
		h->accesses = rib_add(e, h->accesses, t->count);
		if (!strcmp(t->what, "cold")) {
			h->cold += t->count;
		} else if (!strcmp(t->what, "invalidation")) {
			h->inval += t->count;
		} else {
			/* partial sums of the (checked) total cannot overflow */
			h->reuses += t->count;
			h->stack[rib_bin(t->stack)] += t->count;
			h->time[rib_bin(t->time)] += t->count;
		}
	}
}

static void json_bins(struct mb_json *j, const char *key, const uint64_t *bin,
		      uint64_t total)
{
	int k;

	mb_json_arr(j, key);
	for (k = 0; k < 65; k++) {
		if (!bin[k])
			continue;
		mb_json_obj(j, NULL);
		mb_json_int(j, "lo", (long long)rib_bin_lo(k));
		if (rib_bin_hi(k) > (uint64_t)LLONG_MAX)
			mb_json_double(j, "hi", (double)rib_bin_hi(k));
		else
			mb_json_int(j, "hi", (long long)rib_bin_hi(k));
		mb_json_int(j, "count", (long long)bin[k]);
		mb_json_double(j, "fraction", (double)bin[k] / (double)total);
		mb_json_obj_end(j);
	}
	mb_json_arr_end(j);
}

static const char *phase_name(int p)
{
	static const char *const names[] = { "a", "b", "c", "d", "e" };

	return p < 0 ? "shared" : names[p];
}

static void expect(int gran_line)
{
	static struct rib_expect e[MB_MAX_THREADS];
	static struct rib_hist h[MB_MAX_THREADS];
	uint64_t nt = (uint64_t)opt.threads, inv_units, J = 0;
	uint64_t cross[MB_MAX_THREADS] = { 0 }, xsum = 0;
	int nterm = shared_cache ? opt.threads : 1;	/* private: alike for all */
	struct rib_hist sum;
	struct mb_json j;
	int i, k, overflow = 0;

	for (i = 0; i < nterm; i++) {
		rib_terms(&e[i], gran_line, opt.threads, shared_cache, i, &cross[i]);
		rib_hist_of(&e[i], &h[i]);
	}
	memset(&sum, 0, sizeof(sum));
	for (i = 0; i < opt.threads; i++) {
		const struct rib_hist *t = &h[shared_cache ? i : 0];

		for (k = 0; k < 65; k++) {
			sum.stack[k] = rib_add(&e[0], sum.stack[k], t->stack[k]);
			sum.time[k] = rib_add(&e[0], sum.time[k], t->time[k]);
		}
		sum.reuses = rib_add(&e[0], sum.reuses, t->reuses);
		sum.cold = rib_add(&e[0], sum.cold, t->cold);
		sum.inval = rib_add(&e[0], sum.inval, t->inval);
		sum.accesses = rib_add(&e[0], sum.accesses, t->accesses);
		xsum = rib_add(&e[0], xsum, cross[shared_cache ? i : 0]);
	}
	/* uses invalidated (private caches): s (N J - 1) (see the derivation) */
	inv_units = units(&e[0], (uint64_t)inv);
	for (i = 0; i < RIB_NPHASE; i++)
		J = rib_add(&e[0], J, (uint64_t)rep[i]);
	J = rib_mul(&e[0], J, (uint64_t)outer);
	if (!shared_cache && nt >= 2 && J && inv_units)
		sum.invalidated = rib_mul(&e[0], inv_units, rib_mul(&e[0], nt, J) - 1);
	for (i = 0; i < nterm; i++)
		overflow |= e[i].overflow;
	if (overflow) {
		fprintf(stderr, "ribench: error: parameters too large: counts overflow 64 bits\n");
		mb_usage(&info, stderr);
		exit(MB_EXIT_USAGE);
	}

	mb_json_init(&j, stdout);
	mb_json_obj(&j, NULL);
	mb_json_str(&j, "command", "reuse");
	mb_json_str(&j, "benchmark", "ribench");
	mb_json_str(&j, "mode", shared_cache ? "shared" : "private");
	mb_json_str(&j, "granularity", gran_line ? "line" : "address");
	mb_json_str(&j, "metric", "stack");
	mb_json_str(&j, "order", "round-robin by j-iteration (as --trace)");
	json_bins(&j, "bins", sum.stack, sum.reuses);
	json_bins(&j, "time_bins", sum.time, sum.reuses);
	mb_json_int(&j, "reuses", (long long)sum.reuses);
	mb_json_int(&j, "invalidations", (long long)sum.inval);
	mb_json_int(&j, "cold", (long long)sum.cold);
	mb_json_int(&j, "accesses", (long long)sum.accesses);
	mb_json_int(&j, "invalidated_uses", (long long)sum.invalidated);
	if (shared_cache)
		mb_json_int(&j, "cross_thread", (long long)xsum);
	mb_json_arr(&j, "per_thread");
	for (i = 0; i < opt.threads; i++) {
		const struct rib_hist *t = &h[shared_cache ? i : 0];

		mb_json_obj(&j, NULL);
		mb_json_int(&j, "index", i);
		mb_json_int(&j, "tid", i);
		json_bins(&j, "bins", t->stack, t->reuses);
		json_bins(&j, "time_bins", t->time, t->reuses);
		mb_json_int(&j, "reuses", (long long)t->reuses);
		mb_json_int(&j, "invalidations", (long long)t->inval);
		mb_json_int(&j, "cold", (long long)t->cold);
		mb_json_int(&j, "accesses", (long long)t->accesses);
		if (shared_cache)
			mb_json_int(&j, "cross_thread", (long long)cross[i]);
		mb_json_obj_end(&j);
	}
	mb_json_arr_end(&j);
	/* private: one thread's terms (every thread's are alike); shared: each thread's */
	mb_json_arr(&j, "terms");
	for (k = 0; k < nterm; k++)
		for (i = 0; i < e[k].nterms; i++) {
			const struct rib_term *t = &e[k].term[i];

			mb_json_obj(&j, NULL);
			if (shared_cache)
				mb_json_int(&j, "thread", k);
			mb_json_str(&j, "array", phase_name(t->phase));
			mb_json_str(&j, "what", t->what);
			mb_json_int(&j, "count", (long long)t->count);
			if (strcmp(t->what, "cold") && strcmp(t->what, "invalidation")) {
				mb_json_int(&j, "stack", (long long)t->stack);
				mb_json_int(&j, "time", (long long)t->time);
			}
			mb_json_obj_end(&j);
		}
	mb_json_arr_end(&j);
	mb_json_obj(&j, "parameters");
	mb_json_int(&j, "threads", opt.threads);
	mb_json_int(&j, "outer", outer);
	for (i = 0; i < RIB_NPHASE; i++) {
		char key[4] = { phase_name(i)[0], '1', 0 };

		mb_json_int(&j, phase_name(i), rep[i]);
		mb_json_int(&j, key, len[i]);
	}
	mb_json_int(&j, "inv", inv);
	mb_json_int(&j, "seed", (long long)opt.seed);
	mb_json_int(&j, "element_size", sizeof(long));
	mb_json_obj_end(&j);
	mb_json_obj_end(&j);
}

int main(int argc, char **argv)
{
	int gran_line;

	mb_parse(&opt, &info, argc, argv);
	if (outer < 0)
		outer = opt.iters;
	if (!strcmp(gran_arg, "line"))
		gran_line = 1;
	else if (!strcmp(gran_arg, "address"))
		gran_line = 0;
	else
		mb_die_usage(&info, "bad --granularity '%s' (expected address or line)", gran_arg);
	if (opt.expect) {
		expect(gran_line);
		if (!trace_arg)
			return 0;
	}
	rib_alloc_all();
	if (trace_arg) {
		write_trace();
	} else if (mb_run(opt.threads, opt.pin, worker, NULL)) {
		fprintf(stderr, "ribench: error: cannot start %d threads\n", opt.threads);
		return 1;
	}
	if (opt.verbose)
		print_counts();
	return 0;
}
