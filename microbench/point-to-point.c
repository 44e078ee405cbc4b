// SPDX-License-Identifier: GPL-2.0
/*
 * Point-to-Point (ComDetective, Sasongko 2022, Listing 5.4): threads are
 * grouped (normally in pairs); group g has its own shared word pair_data[g]
 * and fraction f_g. Each iteration a thread of group g makes one atomic
 * store, to pair_data[g] with probability f_g, else to its own
 * private_data[i]. A thread in no group only stores to private_data[i].
 *
 * Expected matrix (mb_model_line per group line; m = group size, every
 * member accesses at rate f_g and always stores): count(i -> j) =
 * iters f_g f_g / (f_g + (m-1) f_g) = iters f_g / m, so cell(i,j) =
 * 2 iters f_g / m for i != j in the same group, 0 across groups.
 * For pairs (m = 2) a cell is iters * f_g: pairs 0-1,2-3 with fractions
 * 1.0,0.5 normalize to 1/3 in (0,1),(1,0) and 1/6 in (2,3),(3,2).
 *
 * The model holds when a group's threads run at the same time. With more
 * threads than CPUs the scheduler decides which threads run together: a
 * thread whose partner is off CPU stores to a line its own cache holds, and
 * the group transfers nothing (measured: two equal pairs on 2 CPUs got
 * matrices 2:1 apart). --turns N makes the groups take turns: the stores
 * are cut into N rounds, and in each round group 0 runs its share, then
 * group 1, ..., while the other groups sleep on a condition variable.
 * Ungrouped threads keep no turns.
 */
#include "microbench/mb.h"

struct padded {
	uint64_t v;
} __attribute__((aligned(MB_PAD)));

static struct padded pair_data[MB_MAX_THREADS / 2];	/* one per group */
static struct padded private_data[MB_MAX_THREADS];
static struct mb_counts counts[MB_MAX_THREADS];

static const char *pairs_arg, *fractions_arg;
static int group_of[MB_MAX_THREADS];		/* -1: no group */
static int ngroups, group_size[MB_MAX_THREADS / 2];
static double group_frac[MB_MAX_THREADS / 2];
static struct mb_common opt;
static long turns;			/* --turns: 0 = groups run freely */

static struct {				/* --turns: whose turn it is */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	long turn;			/* round * ngroups + group */
	int done;			/* members done with this turn */
} tk = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0 };

static const struct mb_opt opts[] = {
	{ "pairs", MB_OPT_STR, &pairs_arg, 0, 0, "LIST",
	  "groups 'i-j[-k..],..' of thread indices (default 0-1,2-3,...)" },
	{ "fractions", MB_OPT_STR, &fractions_arg, 0, 0, "LIST",
	  "sharing fraction per group 'f,..', or one for all (default 1.0)" },
	{ "turns", MB_OPT_LONG, &turns, 1, 1000000, "N",
	  "groups take turns in N rounds, so that a group's threads run together" },
	{ NULL },
};

static const struct mb_info info = {
	.name = "point-to-point",
	.summary = "Threads in groups (normally pairs) communicate through one word per group,\n"
		   "'pair_data[g]': each iteration a thread of group g stores to it with\n"
		   "probability f_g, else to its own 'private_data[i]'. Ungrouped threads\n"
		   "only store to 'private_data[i]'. Group g is the g-th group of --pairs.",
	.def_threads = 4, .max_threads = MB_MAX_THREADS,
	.def_iters = 40000000, .iters_help = "stores per thread",
	.has_layout = 1, .has_trace = 1, .opts = opts,
};

static void bad(const char *what, const char *val)
{
	char fmt[128];

	snprintf(fmt, sizeof(fmt), "bad %s '%%s'", what);
	mb_die_usage(&info, fmt, val);
}

/* Fills group_of[], group_size[], group_frac[]; exits 129 on bad input. */
static void setup_groups(void)
{
	char buf[1024], *grp, *save1, *tok, *save2;
	int i, nfrac = 0;
	double fr[MB_MAX_THREADS];
	long t;

	for (i = 0; i < opt.threads; i++)
		group_of[i] = -1;
	if (!pairs_arg) {
		for (i = 0; i + 1 < opt.threads; i += 2) {
			group_of[i] = group_of[i + 1] = ngroups;
			group_size[ngroups++] = 2;
		}
	} else {
		if (strlen(pairs_arg) >= sizeof(buf))
			bad("--pairs", pairs_arg);
		strcpy(buf, pairs_arg);
		for (grp = strtok_r(buf, ",", &save1); grp; grp = strtok_r(NULL, ",", &save1)) {
			if (ngroups >= MB_MAX_THREADS / 2)
				bad("--pairs (too many groups)", pairs_arg);
			for (tok = strtok_r(grp, "-", &save2); tok; tok = strtok_r(NULL, "-", &save2)) {
				if (mb_parse_long(tok, &t) || t < 0 || t >= opt.threads)
					bad("--pairs (thread index out of range)", pairs_arg);
				if (group_of[t] >= 0)
					bad("--pairs (thread in two groups)", pairs_arg);
				group_of[t] = ngroups;
				group_size[ngroups]++;
			}
			if (group_size[ngroups] < 2)
				bad("--pairs (a group needs 2 threads)", pairs_arg);
			ngroups++;
		}
	}
	if (fractions_arg) {
		if (strlen(fractions_arg) >= sizeof(buf))
			bad("--fractions", fractions_arg);
		strcpy(buf, fractions_arg);
		for (tok = strtok_r(buf, ",", &save1); tok; tok = strtok_r(NULL, ",", &save1)) {
			if (nfrac >= MB_MAX_THREADS || mb_parse_double(tok, &fr[nfrac]) ||
			    fr[nfrac] < 0 || fr[nfrac] > 1)
				bad("--fractions", fractions_arg);
			nfrac++;
		}
		if (nfrac != 1 && nfrac != ngroups)
			bad("--fractions (need one, or one per group)", fractions_arg);
	}
	for (i = 0; i < ngroups; i++)
		group_frac[i] = !nfrac ? 1.0 : nfrac == 1 ? fr[0] : fr[i];
}

/* --turns: sleeps until turn @t (round * ngroups + group) has come. */
static void turn_wait(long t)
{
	pthread_mutex_lock(&tk.lock);
	while (tk.turn != t)
		pthread_cond_wait(&tk.cond, &tk.lock);
	pthread_mutex_unlock(&tk.lock);
}

/* --turns: the last member of group @g to finish its share passes the turn. */
static void turn_done(int g)
{
	pthread_mutex_lock(&tk.lock);
	if (++tk.done == group_size[g]) {
		tk.done = 0;
		tk.turn++;
		pthread_cond_broadcast(&tk.cond);
	}
	pthread_mutex_unlock(&tk.lock);
}

static void worker(int idx, void *arg)
{
	int g = group_of[idx];
	uint64_t thr = g >= 0 ? mb_threshold(group_frac[g]) : 0, r;
	uint64_t *shared = &pair_data[g >= 0 ? g : 0].v, *priv = &private_data[idx].v;
	long long nshared = 0;
	struct mb_rng rng;
	long i, end, round, nturns = turns && g >= 0 ? turns : 1;

	(void)arg;
	mb_rng_seed(&rng, opt.seed, idx);
	for (round = 0, i = 0; round < nturns; round++) {
		if (nturns > 1)
			turn_wait(round * ngroups + g);
		end = opt.iters / nturns * (round + 1) + (round == nturns - 1 ? opt.iters % nturns : 0);
		for (; i < end; i++) {
			r = mb_rng_next(&rng);
			if (MB_CHOOSE(r, thr)) {
				__atomic_store_n(shared, r, __ATOMIC_SEQ_CST);
				nshared++;
			} else {
				__atomic_store_n(priv, r, __ATOMIC_SEQ_CST);
			}
		}
		if (nturns > 1)
			turn_done(g);
	}
	counts[idx] = (struct mb_counts){ .private_ = opt.iters - nshared,
		.shared = nshared, .true_ = nshared, .stores = opt.iters,
		.cpu = sched_getcpu() };
}

/* --trace: the store worker() makes for @r. */
static void step(int idx, uint64_t r, struct mb_trace *tr)
{
	int g = group_of[idx];

	mb_trace_put(tr, idx, 'W', g >= 0 && MB_CHOOSE(r, mb_threshold(group_frac[g])) ?
		     &pair_data[g].v : &private_data[idx].v, 8);
}

static void expect(void)
{
	double a[MB_MAX_THREADS] = { 0 }, s[MB_MAX_THREADS] = { 0 };
	int off[MB_MAX_THREADS] = { 0 }, len[MB_MAX_THREADS] = { 0 }, i, g;
	struct mb_model m;
	struct mb_json j;

	if (mb_model_init(&m, opt.threads))
		exit(1);
	for (g = 0; g < ngroups; g++) {
		for (i = 0; i < opt.threads; i++) {
			a[i] = group_of[i] == g ? group_frac[g] : 0;
			s[i] = 1;
			off[i] = 0;
			len[i] = 8;
		}
		mb_model_line(&m, opt.iters, a, s, off, len);
	}
	mb_json_init(&j, stdout);
	mb_model_print(&j, info.name, &m);
	mb_json_params(&j, &opt);
	mb_json_arr(&j, "groups");
	for (g = 0; g < ngroups; g++) {
		mb_json_obj(&j, NULL);
		mb_json_arr(&j, "threads");
		for (i = 0; i < opt.threads; i++)
			if (group_of[i] == g)
				mb_json_int(&j, NULL, i);
		mb_json_arr_end(&j);
		mb_json_double(&j, "fraction", group_frac[g]);
		mb_json_obj_end(&j);
	}
	mb_json_arr_end(&j);
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
	mb_json_object(&j, NULL, "pair_data", pair_data,
		       sizeof(pair_data[0]) * (ngroups ? ngroups : 1));
	mb_json_object(&j, NULL, "private_data", private_data,
		       sizeof(private_data[0]) * opt.threads);
	mb_json_arr_end(&j);
	mb_json_obj_end(&j);
}

int main(int argc, char **argv)
{
	mb_parse(&opt, &info, argc, argv);
	setup_groups();
	return mb_finish_main(&info, &opt, expect, print_layout, worker, step, counts);
}
