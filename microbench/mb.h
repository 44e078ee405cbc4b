/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers for the microbenchmarks (header-only: every benchmark is a
 * standalone program, built by the Makefile pattern rule without core/).
 *
 *   - option parsing: --threads N --iters N --seed S --pin --expect -v
 *     --help, plus per-benchmark options (struct mb_opt); a bad option or
 *     value prints usage to stderr and exits 129, like lociprof;
 *   - a tiny JSON writer (compact, one line);
 *   - a thread launcher in which the main thread is worker 0 and workers
 *     1..N-1 are created in index order, all released by one barrier;
 *   - a per-thread xorshift64* PRNG seeded from --seed and the thread index;
 *   - the expected communication matrix of the "coherence-miss" model shared
 *     by the four ComDetective benchmarks (see mb_model_* and README).
 */
#ifndef MB_H
#define MB_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* affinity, sched_getcpu; the Makefile passes it too */
#endif
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MB_MAX_THREADS	64	/* for the benchmarks with padded per-thread data */
#define MB_LINE		64	/* cache line size assumed by the layouts */
#define MB_PAD		128	/* objects that must not interfere: 2 lines apart
				   (the adjacent-line prefetcher pairs lines) */
#define MB_EXIT_USAGE	129

/* ------------------------------------------------------------------ options */

enum mb_opt_kind { MB_OPT_DOUBLE, MB_OPT_LONG, MB_OPT_STR, MB_OPT_FLAG };

struct mb_opt {			/* one benchmark-specific option */
	const char *name;	/* long name, without "--"; NULL ends the table */
	enum mb_opt_kind kind;
	void *val;		/* double *, long *, const char ** or int * */
	double min, max;	/* allowed range of MB_OPT_DOUBLE / MB_OPT_LONG */
	const char *arg;	/* name of the argument in the usage text */
	const char *help;
};

struct mb_info {
	const char *name;	/* benchmark name, used in usage and JSON */
	const char *summary;	/* one paragraph, printed by --help */
	int def_threads, max_threads;
	long def_iters;
	const char *iters_help;	/* what one iteration is */
	const char *threads_help;	/* NULL: "threads, main thread = index 0" */
	int has_layout;		/* accepts --print-layout */
	int has_trace;		/* accepts --trace, --interleave, --burst */
	const struct mb_opt *opts;
};

struct mb_common {
	int threads;
	long iters;
	unsigned long seed;
	int pin, expect, verbose, print_layout;
	const char *trace;	/* --trace FILE: write the accesses, run nothing */
	int interleave;		/* enum mb_interleave */
	long burst;		/* --burst: iterations per turn (bursty) */
	int argc;		/* the command line, echoed in the trace header */
	char **argv;
};

/* The orders in which --trace takes the threads' iterations. */
enum mb_interleave { MB_IL_RANDOM, MB_IL_RR, MB_IL_BURSTY };
static const char *const mb_interleave_names[] = { "random", "rr", "bursty" };

static inline void mb_usage(const struct mb_info *in, FILE *f)
{
	const struct mb_opt *o;
	char buf[64];

	fprintf(f, "usage: %s [options]\n\n%s\n\nOptions:\n", in->name, in->summary);
	fprintf(f, "  --threads N            %s (default %d, 1..%d)\n",
		in->threads_help ? in->threads_help : "threads, main thread = index 0",
		in->def_threads, in->max_threads);
	fprintf(f, "  --iters N              %s (default %ld)\n", in->iters_help, in->def_iters);
	fprintf(f, "  --seed S               PRNG seed; thread i uses seed and i (default 1)\n");
	fprintf(f, "  --pin                  pin thread i to the i%%ncpus-th allowed cpu\n");
	fprintf(f, "  --expect               print the expected answer as JSON and exit\n");
	if (in->has_layout)
		fprintf(f, "  --print-layout         print this run's data layout as JSON to stderr at start\n");
	if (in->has_trace) {
		fprintf(f, "  --trace FILE           write the accesses (lociprof-trace(5), '-': stdout)\n"
			   "                         in the --interleave order instead of running threads\n");
		fprintf(f, "  --interleave ORDER     random (default: a thread drawn at random per iteration,\n"
			   "                         as --expect assumes), rr (round-robin), bursty\n");
		fprintf(f, "  --burst N              bursty: iterations per turn of a random thread (default 16)\n");
	}
	fprintf(f, "  -v, --verbose          print per-thread counts as JSON to stderr at the end\n");
	fprintf(f, "  -h, --help             this text\n");
	for (o = in->opts; o && o->name; o++) {
		snprintf(buf, sizeof(buf), "--%s%s%s", o->name, o->arg ? " " : "",
			 o->arg ? o->arg : "");
		fprintf(f, "  %-22s %s\n", buf, o->help);
	}
}

static inline void mb_die_usage(const struct mb_info *in, const char *fmt, const char *val)
{
	fprintf(stderr, "%s: error: ", in->name);
	fprintf(stderr, fmt, val);
	fputc('\n', stderr);
	mb_usage(in, stderr);
	exit(MB_EXIT_USAGE);
}

/* Whole-string number parsing; 0 or -EINVAL. */
static inline int mb_parse_long(const char *s, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

static inline int mb_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v))
		return -EINVAL;
	*out = v;
	return 0;
}

enum { MB_O_THREADS = 1000, MB_O_ITERS, MB_O_SEED, MB_O_PIN, MB_O_EXPECT,
       MB_O_LAYOUT, MB_O_TRACE, MB_O_INTERLEAVE, MB_O_BURST, MB_O_EXTRA };

/* Parses argv into @c and the benchmark's own options; exits on -h or error. */
static inline void mb_parse(struct mb_common *c, const struct mb_info *in,
			    int argc, char **argv)
{
	static const struct option common[] = {
		{ "threads", required_argument, NULL, MB_O_THREADS },
		{ "iters", required_argument, NULL, MB_O_ITERS },
		{ "seed", required_argument, NULL, MB_O_SEED },
		{ "pin", no_argument, NULL, MB_O_PIN },
		{ "expect", no_argument, NULL, MB_O_EXPECT },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
	};
	struct option lo[32];
	int ncommon = sizeof(common) / sizeof(common[0]), n = 0, opt, i;
	const struct mb_opt *o;
	long l;
	double d;

	memset(c, 0, sizeof(*c));
	c->threads = in->def_threads;
	c->iters = in->def_iters;
	c->seed = 1;
	c->burst = 16;
	c->argc = argc;
	c->argv = argv;
	for (i = 0; i < ncommon; i++)
		lo[n++] = common[i];
	if (in->has_layout)
		lo[n++] = (struct option){ "print-layout", no_argument, NULL, MB_O_LAYOUT };
	if (in->has_trace) {
		lo[n++] = (struct option){ "trace", required_argument, NULL, MB_O_TRACE };
		lo[n++] = (struct option){ "interleave", required_argument, NULL, MB_O_INTERLEAVE };
		lo[n++] = (struct option){ "burst", required_argument, NULL, MB_O_BURST };
	}
	for (i = 0, o = in->opts; o && o->name; o++, i++)
		lo[n++] = (struct option){ o->name,
			o->kind == MB_OPT_FLAG ? no_argument : required_argument,
			NULL, MB_O_EXTRA + i };
	lo[n] = (struct option){ NULL, 0, NULL, 0 };

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+vh", lo, NULL)) != -1) {
		switch (opt) {
		case 'h':
			mb_usage(in, stdout);
			exit(0);
		case 'v':
			c->verbose = 1;
			break;
		case MB_O_THREADS:
			if (mb_parse_long(optarg, &l) || l < 1 || l > in->max_threads)
				mb_die_usage(in, "bad --threads '%s'", optarg);
			c->threads = (int)l;
			break;
		case MB_O_ITERS:
			if (mb_parse_long(optarg, &l) || l < 0)
				mb_die_usage(in, "bad --iters '%s'", optarg);
			c->iters = l;
			break;
		case MB_O_SEED:
			if (mb_parse_long(optarg, &l) || l < 0)
				mb_die_usage(in, "bad --seed '%s'", optarg);
			c->seed = (unsigned long)l;
			break;
		case MB_O_PIN:
			c->pin = 1;
			break;
		case MB_O_EXPECT:
			c->expect = 1;
			break;
		case MB_O_LAYOUT:
			c->print_layout = 1;
			break;
		case MB_O_TRACE:
			c->trace = optarg;
			break;
		case MB_O_INTERLEAVE:
			for (i = 0; i < 3 && strcmp(optarg, mb_interleave_names[i]); i++)
				;
			if (i == 3)
				mb_die_usage(in, "bad --interleave '%s' (expected random, rr or bursty)",
					     optarg);
			c->interleave = i;
			break;
		case MB_O_BURST:
			if (mb_parse_long(optarg, &l) || l < 1)
				mb_die_usage(in, "bad --burst '%s'", optarg);
			c->burst = l;
			break;
		case '?':
			if (optopt)
				fprintf(stderr, "%s: error: unknown option '-%c'\n", in->name, optopt);
			else
				fprintf(stderr, "%s: error: unknown option '%s'\n", in->name,
					argv[optind - 1]);
			mb_usage(in, stderr);
			exit(MB_EXIT_USAGE);
		default:
			if (opt < MB_O_EXTRA)
				mb_die_usage(in, "%s", "internal option error");
			o = &in->opts[opt - MB_O_EXTRA];
			if (o->kind == MB_OPT_FLAG) {
				*(int *)o->val = 1;
			} else if (o->kind == MB_OPT_STR) {
				*(const char **)o->val = optarg;
			} else if (o->kind == MB_OPT_LONG) {
				if (mb_parse_long(optarg, &l) || l < o->min || l > o->max) {
					fprintf(stderr, "%s: error: --%s must be in [%g, %g]\n",
						in->name, o->name, o->min, o->max);
					mb_die_usage(in, "bad value '%s'", optarg);
				}
				*(long *)o->val = l;
			} else {
				if (mb_parse_double(optarg, &d) || d < o->min || d > o->max) {
					fprintf(stderr, "%s: error: --%s must be in [%g, %g]\n",
						in->name, o->name, o->min, o->max);
					mb_die_usage(in, "bad value '%s'", optarg);
				}
				*(double *)o->val = d;
			}
		}
	}
	if (optind < argc)
		mb_die_usage(in, "unexpected argument '%s'", argv[optind]);
}

/* --------------------------------------------------------------------- JSON */

#define MB_JSON_DEPTH 16

struct mb_json {
	FILE *f;
	int depth;
	int count[MB_JSON_DEPTH];	/* values written so far in each container */
};

static inline void mb_json_init(struct mb_json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
}

/* Separator and key before a value; @key NULL inside arrays. */
static inline void mb_json_key(struct mb_json *j, const char *key)
{
	const char *p;

	if (j->depth > 0 && j->count[j->depth - 1]++)
		fputc(',', j->f);
	if (!key)
		return;
	fputc('"', j->f);
	for (p = key; *p; p++) {
		if (*p == '"' || *p == '\\')
			fputc('\\', j->f);
		fputc(*p, j->f);
	}
	fputs("\":", j->f);
}

static inline void mb_json_open(struct mb_json *j, const char *key, char brace)
{
	mb_json_key(j, key);
	fputc(brace, j->f);
	if (j->depth < MB_JSON_DEPTH)
		j->count[j->depth] = 0;
	j->depth++;
}

static inline void mb_json_close(struct mb_json *j, char brace)
{
	fputc(brace, j->f);
	if (--j->depth == 0) {
		fputc('\n', j->f);
		fflush(j->f);
	}
}

#define mb_json_obj(j, key)	mb_json_open(j, key, '{')
#define mb_json_obj_end(j)	mb_json_close(j, '}')
#define mb_json_arr(j, key)	mb_json_open(j, key, '[')
#define mb_json_arr_end(j)	mb_json_close(j, ']')

static inline void mb_json_str(struct mb_json *j, const char *key, const char *s)
{
	mb_json_key(j, key);
	fputc('"', j->f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', j->f);
		if ((unsigned char)*s < 0x20)
			fprintf(j->f, "\\u%04x", *s);
		else
			fputc(*s, j->f);
	}
	fputc('"', j->f);
}

static inline void mb_json_int(struct mb_json *j, const char *key, long long v)
{
	mb_json_key(j, key);
	fprintf(j->f, "%lld", v);
}

static inline void mb_json_double(struct mb_json *j, const char *key, double v)
{
	mb_json_key(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.17g", v);
	else
		fputs("null", j->f);
}

static inline void mb_json_addr(struct mb_json *j, const char *key, const void *p)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "0x%lx", (unsigned long)p);
	mb_json_str(j, key, buf);
}

/* {"symbol":..,"start":..,"end":..} — one static object, end exclusive. */
static inline void mb_json_object(struct mb_json *j, const char *key, const char *sym,
				  const void *start, size_t size)
{
	mb_json_obj(j, key);
	mb_json_str(j, "symbol", sym);
	mb_json_addr(j, "start", start);
	mb_json_addr(j, "end", (const char *)start + size);
	mb_json_int(j, "size", (long long)size);
	mb_json_obj_end(j);
}

/* --------------------------------------------------------------------- PRNG */

struct mb_rng {
	uint64_t s;
};

static inline uint64_t mb_splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Thread @idx's stream: deterministic in (seed, idx), never the zero state. */
static inline void mb_rng_seed(struct mb_rng *r, unsigned long seed, int idx)
{
	r->s = mb_splitmix64(mb_splitmix64(seed) ^ (uint64_t)idx);
	if (!r->s)
		r->s = 0x2545f4914f6cdd1dULL;
}

/* xorshift64* (Vigna 2016): a handful of instructions, good high bits. */
static inline uint64_t mb_rng_next(struct mb_rng *r)
{
	uint64_t x = r->s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/*
 * A choice with probability @f: (mb_rng_next() >> 11) < mb_threshold(f).
 * The top 53 bits are uniform on [0, 2^53); f = 1 gives 2^53 (always),
 * f = 0 gives 0 (never).
 */
/*
 * An 8-byte load whose destination is never one of its address registers
 * ("=&r"): a profiler that recovers the address of the instruction before
 * the sampled one (lociprof's soft facility: the timer interrupt lands just
 * after a long-latency load) can then always recompute it. Plain C lets the
 * compiler write "mov (%rax),%rax", which destroys the address.
 */
static inline long mb_load(const volatile long *p)
{
	long v;

	__asm__ volatile("mov (%1), %0" : "=&r"(v) : "r"(p) : "memory");
	return v;
}

static inline uint64_t mb_threshold(double f)
{
	if (f <= 0)
		return 0;
	if (f >= 1)
		return 1ULL << 53;
	return (uint64_t)ldexp(f, 53);
}

#define MB_CHOOSE(rnd, thr)	(((rnd) >> 11) < (thr))

/* ------------------------------------------------------------ threads, pin */

typedef void (*mb_worker_fn)(int idx, void *arg);

struct mb_launch {
	pthread_barrier_t barrier;
	mb_worker_fn fn;
	void *arg;
	int ncpus;			/* allowed cpus when launched */
	int cpus[CPU_SETSIZE];
};

struct mb_slot {
	struct mb_launch *l;
	int idx;
};

/* The cpus this process may run on, in order; returns how many. */
static inline int mb_allowed_cpus(int *cpus)
{
	cpu_set_t set;
	int i, n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			cpus[n++] = i;
	return n;
}

/* Pin the calling thread to @cpu; 0 or -errno. */
static inline int mb_pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

static inline void *mb_thread_main(void *p)
{
	struct mb_slot *s = p;

	pthread_barrier_wait(&s->l->barrier);
	s->l->fn(s->idx, s->l->arg);
	return NULL;
}

/*
 * Run @fn(i, @arg) for i in 0..n-1: workers 1..n-1 are created in index
 * order (so creation order = index), the main thread itself is worker 0, and
 * a barrier releases all of them together. With @pin, worker i is bound to
 * the (i % ncpus)-th cpu of the affinity mask the process started with.
 * Returns 0 or -errno (nothing was run if thread creation failed).
 */
static inline int mb_run(int n, int pin, mb_worker_fn fn, void *arg)
{
	static struct mb_launch l;
	static struct mb_slot slots[MB_MAX_THREADS > 1024 ? MB_MAX_THREADS : 1024];
	pthread_t tids[sizeof(slots) / sizeof(slots[0])];
	pthread_attr_t attr;
	cpu_set_t set;
	int i, err;

	if (n < 1 || n > (int)(sizeof(slots) / sizeof(slots[0])))
		return -EINVAL;
	l.fn = fn;
	l.arg = arg;
	l.ncpus = mb_allowed_cpus(l.cpus);
	if (pin && !l.ncpus)
		return -ENODEV;
	if (pthread_barrier_init(&l.barrier, NULL, n))
		return -ENOMEM;
	for (i = 1; i < n; i++) {
		pthread_attr_init(&attr);
		if (pin) {
			CPU_ZERO(&set);
			CPU_SET(l.cpus[i % l.ncpus], &set);
			pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		}
		slots[i] = (struct mb_slot){ &l, i };
		err = pthread_create(&tids[i], &attr, mb_thread_main, &slots[i]);
		pthread_attr_destroy(&attr);
		if (err) {
			/* The barrier would never open: a failure here is fatal. */
			fprintf(stderr, "error: cannot create thread %d: %s\n", i, strerror(err));
			exit(1);
		}
	}
	if (pin && (err = mb_pin_self(l.cpus[0])))
		fprintf(stderr, "warning: cannot pin thread 0: %s\n", strerror(-err));
	pthread_barrier_wait(&l.barrier);
	fn(0, arg);
	for (i = 1; i < n; i++)
		pthread_join(tids[i], NULL);
	pthread_barrier_destroy(&l.barrier);
	return 0;
}

/* ------------------------------------------------- per-thread counts (-v) */

struct mb_counts {		/* one cache line per thread, written once at the end */
	long long private_, shared, true_, false_, loads, stores;
	int cpu;
} __attribute__((aligned(MB_PAD)));

/* {"benchmark":..,"iters":..,"counts":[{"thread":i,"cpu":..,"private":..},..]} */
static inline void mb_print_counts(const char *name, const struct mb_common *c,
				   const struct mb_counts *k)
{
	struct mb_json j;
	int i;

	mb_json_init(&j, stderr);
	mb_json_obj(&j, NULL);
	mb_json_str(&j, "benchmark", name);
	mb_json_int(&j, "iters", c->iters);
	mb_json_int(&j, "seed", (long long)c->seed);
	mb_json_int(&j, "pinned", c->pin);
	mb_json_arr(&j, "counts");
	for (i = 0; i < c->threads; i++) {
		mb_json_obj(&j, NULL);
		mb_json_int(&j, "thread", i);
		mb_json_int(&j, "cpu", k[i].cpu);
		mb_json_int(&j, "private", k[i].private_);
		mb_json_int(&j, "shared", k[i].shared);
		mb_json_int(&j, "true", k[i].true_);
		mb_json_int(&j, "false", k[i].false_);
		mb_json_int(&j, "loads", k[i].loads);
		mb_json_int(&j, "stores", k[i].stores);
		mb_json_obj_end(&j);
	}
	mb_json_arr_end(&j);
	mb_json_obj_end(&j);
}

/* ------------------------------------------------ --trace, --interleave */

/* The --trace writer: one "TID R|W 0xADDR SIZE" line per access. */
struct mb_trace {
	FILE *f;
	const char *path, *bench;
	size_t n;
	char buf[1 << 16];
};

static inline void mb_trace_flush(struct mb_trace *tr)
{
	if (tr->n && fwrite(tr->buf, 1, tr->n, tr->f) != tr->n) {
		fprintf(stderr, "%s: error: cannot write trace '%s': %s\n", tr->bench,
			tr->path, strerror(errno));
		exit(1);
	}
	tr->n = 0;
}

/* Thread @tid's access (@op 'R' or 'W') of @size bytes at @addr. */
static inline void mb_trace_put(struct mb_trace *tr, int tid, char op,
				const volatile void *addr, int size)
{
	if (tr->n > sizeof(tr->buf) - 64)
		mb_trace_flush(tr);
	tr->n += (size_t)snprintf(tr->buf + tr->n, 64, "%d %c 0x%lx %d\n", tid, op,
				  (unsigned long)addr, size);
}

/*
 * One iteration of thread @idx given its random draw @r: the benchmark
 * writes the access its worker makes for @r (same objects, same addresses).
 */
typedef void (*mb_step_fn)(int idx, uint64_t r, struct mb_trace *tr);

/* Uniform in [0, n): the top 53 bits scaled. */
static inline int mb_rng_below(struct mb_rng *r, int n)
{
	return (int)(((mb_rng_next(r) >> 11) * (uint64_t)n) >> 53);
}

/*
 * Writes every thread's --iters iterations, without running threads, in
 * the --interleave order. Thread i draws from the same stream as in a run
 * (mb_rng_seed(seed, i)), so it makes the same choices; the order comes
 * from a separate stream (index -1). random: each iteration is that of a
 * thread drawn uniformly among those with iterations left, the i.i.d.
 * sequence mb_model_line assumes; rr: 0, 1, .., n-1, 0, ..; bursty: a
 * thread drawn at random runs --burst iterations in a row (a time slice).
 */
static inline int mb_trace_write(const struct mb_info *in, const struct mb_common *c,
				 mb_step_fn step)
{
	static struct mb_trace tr;
	static struct mb_rng rng[MB_MAX_THREADS];
	static long left[MB_MAX_THREADS];
	static int alive[MB_MAX_THREADS];
	struct mb_rng order;
	int n = c->threads, nalive = n, i, k, t;
	long it, b;

	if (n > MB_MAX_THREADS) {	/* --threads is capped lower: cannot happen */
		fprintf(stderr, "%s: error: --trace holds at most %d threads\n", in->name,
			MB_MAX_THREADS);
		return 1;
	}
	tr.bench = in->name;
	tr.path = c->trace;
	tr.f = strcmp(c->trace, "-") ? fopen(c->trace, "w") : stdout;
	if (!tr.f) {
		fprintf(stderr, "%s: error: cannot open '%s': %s\n", in->name, c->trace,
			strerror(errno));
		return 1;
	}
	fprintf(tr.f, "# lociprof-trace 1\n# tid op address size\n#");
	for (i = 0; i < c->argc; i++)
		fprintf(tr.f, " %s", c->argv[i]);
	fprintf(tr.f, "\n# tid = thread index; --interleave %s", mb_interleave_names[c->interleave]);
	if (c->interleave == MB_IL_BURSTY)
		fprintf(tr.f, " --burst %ld", c->burst);
	fprintf(tr.f, " --seed %lu\n", c->seed);
	for (i = 0; i < n; i++) {
		mb_rng_seed(&rng[i], c->seed, i);
		left[i] = c->iters;
		alive[i] = i;
	}
	mb_rng_seed(&order, c->seed, -1);
	if (c->interleave == MB_IL_RR) {
		for (it = 0; it < c->iters; it++)
			for (t = 0; t < n; t++)
				step(t, mb_rng_next(&rng[t]), &tr);
	} else {
		if (!c->iters)
			nalive = 0;
		while (nalive) {
			k = mb_rng_below(&order, nalive);
			t = alive[k];
			b = c->interleave == MB_IL_BURSTY ? c->burst : 1;
			for (; b > 0 && left[t] > 0; b--, left[t]--)
				step(t, mb_rng_next(&rng[t]), &tr);
			if (!left[t])
				alive[k] = alive[--nalive];
		}
	}
	mb_trace_flush(&tr);
	if (fflush(tr.f) || (tr.f != stdout && fclose(tr.f))) {
		fprintf(stderr, "%s: error: cannot write trace '%s': %s\n", in->name,
			c->trace, strerror(errno));
		return 1;
	}
	return 0;
}

/*
 * The rest of main() after option parsing, as every communication
 * benchmark runs it: --expect, --print-layout, the threads (or --trace with
 * @step), -v counts.
 */
static inline int mb_finish_main(const struct mb_info *in, const struct mb_common *c,
				 void (*expect)(void), void (*print_layout)(void),
				 mb_worker_fn worker, mb_step_fn step,
				 const struct mb_counts *counts)
{
	int err;

	if (c->expect) {
		expect();
		if (!c->trace)
			return 0;
	}
	if (c->print_layout)
		print_layout();
	if (c->trace && !step) {
		fprintf(stderr, "%s: error: --trace is not defined for this benchmark (its access "
			"order is not modelled)\n", in->name);
		return 129;
	}
	if (c->trace)
		return mb_trace_write(in, c, step);
	err = mb_run(c->threads, c->pin, worker, NULL);
	if (err) {
		fprintf(stderr, "%s: error: cannot run threads: %s\n", in->name, strerror(-err));
		return 1;
	}
	if (c->verbose)
		mb_print_counts(in->name, c, counts);
	return 0;
}

/* ------------------------------------------- expected communication model */

/*
 * The model behind every --expect matrix (derivation in microbench/README):
 *
 * Each shared cache line sees a sequence of accesses; every access comes
 * from thread t with probability proportional to a_t (t's accesses to this
 * line per iteration; threads run at equal iteration rates, so the thread
 * sequence is i.i.d.) and is a store with probability s_t (atomic RMWs count
 * as stores). A communication i -> j is a coherence miss: j accesses the
 * line, the last store to it was by i != j, and j has not accessed the line
 * since that store (its copy was invalidated; the data comes from i). This is
 * what ComDetective with perfect sampling counts (the BulletinBoard holds
 * the last store per line, t_prev counts each published store once per
 * thread). It is true sharing iff j's bytes overlap the bytes i stored.
 *
 * After a store by i, j's first access comes before the next store by
 * any thread other than j with probability a_j / (a_j + sum_{k != j} a_k s_k)
 * (each access is j's with weight a_j and ends the window without j with
 * weight a_k s_k). Stores by i happen at a_i s_i per iteration, so
 *
 *	E[count i -> j] = iters * a_i s_i a_j / (a_j + sum_{k != j} a_k s_k).
 *
 * The matrix cell is the symmetrized sum count(i->j) + count(j->i), as in
 * ComDetective; --expect normalizes so that all n*n cells sum to 1.
 */
struct mb_model {
	int n;
	double *all, *tru, *fal;	/* n*n, expected transfers (not normalized) */
};

static inline int mb_model_init(struct mb_model *m, int n)
{
	m->n = n;
	m->all = calloc((size_t)n * n, sizeof(double));
	m->tru = calloc((size_t)n * n, sizeof(double));
	m->fal = calloc((size_t)n * n, sizeof(double));
	return m->all && m->tru && m->fal ? 0 : -ENOMEM;
}

static inline void mb_model_exit(struct mb_model *m)
{
	free(m->all);
	free(m->tru);
	free(m->fal);
}

/*
 * Add one cache line. a[t], s[t]: thread t's accesses per iteration to the
 * line and the probability that one is a store; off[t], len[t]: the bytes t
 * accesses in the line (used to tell true from false sharing).
 */
static inline void mb_model_line(struct mb_model *m, double iters, const double *a,
				 const double *s, const int *off, const int *len)
{
	double stores = 0, den, c;
	int i, j, n = m->n;

	for (i = 0; i < n; i++)
		stores += a[i] * s[i];
	for (j = 0; j < n; j++) {
		if (a[j] <= 0)
			continue;
		den = a[j] + stores - a[j] * s[j];
		for (i = 0; i < n; i++) {
			if (i == j || a[i] * s[i] <= 0)
				continue;
			c = iters * a[i] * s[i] * a[j] / den;
			/* symmetrize now: both cells get the transfer */
			m->all[i * n + j] += c;
			m->all[j * n + i] += c;
			if (off[i] < off[j] + len[j] && off[j] < off[i] + len[i]) {
				m->tru[i * n + j] += c;
				m->tru[j * n + i] += c;
			} else {
				m->fal[i * n + j] += c;
				m->fal[j * n + i] += c;
			}
		}
	}
}

static inline void mb_json_matrix(struct mb_json *j, const char *key, const double *v,
				  int n, double scale)
{
	int r, c;

	mb_json_arr(j, key);
	for (r = 0; r < n; r++) {
		mb_json_arr(j, NULL);
		for (c = 0; c < n; c++)
			mb_json_double(j, NULL, v[r * n + c] * scale);
		mb_json_arr_end(j);
	}
	mb_json_arr_end(j);
}

/*
 * Open the --expect object in lociprof's comdetect keys and leave it open so
 * the caller can add a "parameters" object; close with mb_json_obj_end().
 * "volume" is the un-normalized expected number of transfers (each counted
 * once, i.e. half the sum of the symmetric cells).
 */
static inline void mb_model_print(struct mb_json *j, const char *bench, const struct mb_model *m)
{
	double sum = 0, st = 0, sf = 0, scale;
	int i, n = m->n;

	for (i = 0; i < n * n; i++) {
		sum += m->all[i];
		st += m->tru[i];
		sf += m->fal[i];
	}
	scale = sum > 0 ? 1.0 / sum : 0;
	mb_json_obj(j, NULL);
	mb_json_str(j, "command", "comdetect");
	mb_json_str(j, "benchmark", bench);
	mb_json_str(j, "model", "coherence-miss, i.i.d. interleaving at equal rates");
	mb_json_arr(j, "threads");
	for (i = 0; i < n; i++) {
		mb_json_obj(j, NULL);
		mb_json_int(j, "index", i);
		mb_json_int(j, "tid", 0);
		mb_json_obj_end(j);
	}
	mb_json_arr_end(j);
	mb_json_obj(j, "matrix");
	mb_json_matrix(j, "all", m->all, n, scale);
	mb_json_matrix(j, "true", m->tru, n, scale);
	mb_json_matrix(j, "false", m->fal, n, scale);
	mb_json_obj_end(j);
	mb_json_obj(j, "totals");
	mb_json_double(j, "all", sum * scale);
	mb_json_double(j, "true", st * scale);
	mb_json_double(j, "false", sf * scale);
	mb_json_obj_end(j);
	mb_json_double(j, "false_fraction", sum > 0 ? sf / sum : 0);
	mb_json_double(j, "volume", sum / 2);
}

/* Common "parameters" keys; the caller adds its own and closes the object. */
static inline void mb_json_params(struct mb_json *j, const struct mb_common *c)
{
	mb_json_obj(j, "parameters");
	mb_json_int(j, "threads", c->threads);
	mb_json_int(j, "iters", c->iters);
	mb_json_int(j, "seed", (long long)c->seed);
}

/* Keeps a value alive without a memory access the profiler would see. */
#define MB_KEEP(x)	__asm__ volatile("" : : "r"(x))

#endif
