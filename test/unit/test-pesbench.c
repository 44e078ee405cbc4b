// SPDX-License-Identifier: GPL-2.0
/*
 * pesbench: the facility characterization's pure parts — parsing a
 * microbenchmark's --expect, tallying a run's events, each experiment's
 * arithmetic, the JSON round trip and the merge of two results (one the
 * checked-in example of a real soft run). Expected numbers are worked out
 * by hand in the comments.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>

#include "core/facility.h"
#include "core/json.h"
#include "pesbench/pesbench.h"
#include "core/probe.h"
#include "core/tests.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

/* A hand-written --expect of a 1/4 loop: load, sub, cmp, jne, 1000 iterations. */
static const char expect_14[] =
	"{\"benchmark\":\"load-ratio\",\"iters\":1000,\"symbol\":\"load_ratio_4\","
	"\"symbol_size\":20,\"counts\":{\"instructions\":4000,\"loads\":1000,"
	"\"stores\":0,\"locked\":0,\"branches\":1000,\"taken_branches\":999},"
	"\"loop\":[{\"name\":\"load\",\"offset\":6,\"kind\":\"load\",\"count\":1000},"
	"{\"name\":\"sub\",\"offset\":8,\"kind\":\"none\",\"count\":1000},"
	"{\"name\":\"cmp\",\"offset\":12,\"kind\":\"none\",\"count\":1000},"
	"{\"name\":\"jne\",\"offset\":16,\"kind\":\"none\",\"branch\":1,\"count\":1000,"
	"\"taken\":999}]}";

static int parse14(struct pesbench_expect *e)
{
	return pesbench__parse_expect(expect_14, strlen(expect_14), e);
}

LP_TEST(test_pesbench_parse_expect, "pesbench: --expect JSON gives counts, offsets and kinds")
{
	struct pesbench_expect e;

	TEST_ASSERT(parse14(&e) == 0, "parse");
	TEST_ASSERT(!strcmp(e.symbol, "load_ratio_4") && e.size == 20, "symbol %s %u", e.symbol, e.size);
	TEST_ASSERT(e.instructions == 4000 && e.loads == 1000 && e.taken == 999, "counts");
	TEST_ASSERT(e.ninsn == 4, "ninsn %d", e.ninsn);
	TEST_ASSERT(e.insn[0].kind == LP_ACCESS_LOAD && e.insn[1].kind == LP_ACCESS_NONE, "kinds");
	TEST_ASSERT(e.insn[3].branch && e.insn[3].taken == 999, "jne");
	TEST_ASSERT(pesbench__insn_at(&e, 12) == 2 && pesbench__insn_at(&e, 13) == -1, "insn_at");
	TEST_ASSERT(pesbench__parse_expect("{\"counts\":{}}", 13, &e) == -EINVAL, "not an expect");
	TEST_ASSERT(pesbench__parse_expect("{", 1, &e) < 0, "bad json");
	return TEST_OK;
}

static struct lp_event sample_ev(u64 ip, u8 kind, u8 noaddr, u8 flags)
{
	struct lp_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = LP_EV_SAMPLE;
	ev.sample.ip = ip;
	ev.sample.kind = kind;
	ev.sample.noaddr = noaddr;
	ev.sample.flags = flags;
	return ev;
}

LP_TEST(test_pesbench_tally_maps_ips, "pesbench: samples map to loop instructions through the symbol base")
{
	struct pesbench_expect e;
	struct pesbench_run r;
	struct lp_event ev;
	u64 base = 0x555555555000;

	TEST_ASSERT(parse14(&e) == 0, "parse");
	memset(&r, 0, sizeof(r));
	/* before the base is known nothing is in the loop */
	ev = sample_ev(base + 6, LP_ACCESS_LOAD, LP_NOADDR_NONE, 0);
	pesbench__tally(&r, &e, &ev);
	TEST_ASSERT(r.samples == 1 && r.in_loop == 0 && r.kind[LP_ACCESS_LOAD] == 1, "no base");
	r.sym_base = base;
	pesbench__tally(&r, &e, &ev);					/* load */
	ev = sample_ev(base + 8, 0, LP_NOADDR_NOT_MEMORY, 0);		/* sub */
	pesbench__tally(&r, &e, &ev);
	pesbench__tally(&r, &e, &ev);
	ev = sample_ev(base + 2, 0, LP_NOADDR_NOT_MEMORY, 0);		/* setup code */
	pesbench__tally(&r, &e, &ev);
	ev = sample_ev(base + 20, 0, LP_NOADDR_NOT_MEMORY, 0);		/* just past it */
	pesbench__tally(&r, &e, &ev);
	ev = sample_ev(0xffffffff81000000ull, 0, LP_NOADDR_KERNEL, LP_SAMPLE_KERNEL);
	pesbench__tally(&r, &e, &ev);
	ev = sample_ev(base + 16, LP_ACCESS_ATOMIC, LP_NOADDR_NONE, LP_SAMPLE_PREV_INSN);
	pesbench__tally(&r, &e, &ev);
	memset(&ev, 0, sizeof(ev));
	ev.type = LP_EV_THREAD_EXIT;
	ev.thread.cpu_ns = 700;
	pesbench__tally(&r, &e, &ev);
	ev.thread.cpu_ns = 300;
	pesbench__tally(&r, &e, &ev);
	TEST_ASSERT(r.samples == 8, "samples %llu", (unsigned long long)r.samples);
	TEST_ASSERT(r.in_symbol == 5 && r.in_loop == 4, "in symbol %llu, loop %llu",
		    (unsigned long long)r.in_symbol, (unsigned long long)r.in_loop);
	TEST_ASSERT(r.insn[0] == 1 && r.insn[1] == 2 && r.insn[2] == 0 && r.insn[3] == 1, "per insn");
	TEST_ASSERT(r.kernel == 1 && r.locked == 1 && r.prev == 1, "flags");
	TEST_ASSERT(r.with_addr == 3 && r.kind[LP_ACCESS_ATOMIC] == 1, "kinds");
	TEST_ASSERT(r.cpu_ns == 1000, "cpu %llu", (unsigned long long)r.cpu_ns);
	return TEST_OK;
}

LP_TEST(test_pesbench_mean_se, "pesbench: mean and standard error s/sqrt(n)")
{
	double v[4] = { 1, 2, 3, 4 }, m, se;

	pesbench__mean_se(v, 4, &m, &se);
	/* s^2 = (2.25 + 0.25 + 0.25 + 2.25) / 3 = 5/3; se = sqrt(5/3) / 2 */
	TEST_ASSERT(NEAR(m, 2.5) && NEAR(se, sqrt(5.0 / 3) / 2), "m %g se %g", m, se);
	pesbench__mean_se(v, 1, &m, &se);
	TEST_ASSERT(m == 1 && isnan(se), "one run: no error bar");
	TEST_ASSERT(NEAR(pesbench__error_pct(30, 25), 20) && isnan(pesbench__error_pct(1, 0)), "error_pct");
	return TEST_OK;
}

LP_TEST(test_pesbench_accuracy_load_share, "pesbench: soft accuracy on 1/4: expected samples from CPU time, load share and its error")
{
	struct pesbench_table t;
	struct pesbench_expect e;
	struct pesbench_run r[2];
	const struct pesbench_row *w;

	TEST_ASSERT(parse14(&e) == 0, "parse");
	memset(&t, 0, sizeof(t));
	memset(r, 0, sizeof(r));
	/* run 0: 20 ms CPU / 100 us = 200 expected, 190 seen, 57 loads (30%) */
	r[0].period = 100000; r[0].cpu_ns = 20000000; r[0].samples = 190;
	r[0].kind[LP_ACCESS_LOAD] = 57;
	/* run 1: 22 ms -> 220 expected, 210 seen, 63 loads (30%) */
	r[1].period = 100000; r[1].cpu_ns = 22000000; r[1].samples = 210;
	r[1].kind[LP_ACCESS_LOAD] = 63;
	TEST_ASSERT(pesbench_accuracy__add(&t, "soft", 1, &e, "1/4", r, 2) == 0, "add");
	w = pesbench__find_row(&t, "soft", "load-ratio 1/4", "default period", "samples");
	TEST_ASSERT(w && NEAR(w->expected, 210) && NEAR(w->observed, 200), "samples row");
	/* error = 100 * (200 - 210) / 210 */
	TEST_ASSERT(NEAR(w->error_pct, -1000.0 / 210), "error %g", w->error_pct);
	/* se of {190, 210}: s = 14.142..., se = 10 */
	TEST_ASSERT(NEAR(w->stderr_, 10), "se %g", w->stderr_);
	w = pesbench__find_row(&t, "soft", "load-ratio 1/4", "default period", "load share %");
	/* expected 1000/4000 = 25%, observed 30% in both runs: error +20% */
	TEST_ASSERT(w && NEAR(w->expected, 25) && NEAR(w->observed, 30), "share row");
	TEST_ASSERT(NEAR(w->error_pct, 20) && NEAR(w->stderr_, 0), "share error %g", w->error_pct);
	w = pesbench__find_row(&t, "soft", "load-ratio 1/4", "default period", "load samples");
	TEST_ASSERT(w && NEAR(w->expected, 210 * 0.25) && NEAR(w->observed, 60), "load samples");
	free(t.rows);
	return TEST_OK;
}

/* Bias-Bench: four loads, subq, cmpq, jne. */
static void bias_expect(struct pesbench_expect *e)
{
	static const char *const names[7] = { "load 1", "load 2", "load 3", "load 4",
					      "subq", "cmpq", "jne" };
	int i;

	memset(e, 0, sizeof(*e));
	snprintf(e->bench, sizeof(e->bench), "bias-bench");
	e->ninsn = 7;
	e->instructions = 7000;
	e->loads = 4000;
	for (i = 0; i < 7; i++) {
		snprintf(e->insn[i].name, sizeof(e->insn[i].name), "%s", names[i]);
		e->insn[i].kind = i < 4 ? LP_ACCESS_LOAD : LP_ACCESS_NONE;
		e->insn[i].off = 2 * i;
		e->insn[i].count = 1000;
	}
}

LP_TEST(test_pesbench_bias_shares_sum_to_100, "pesbench: bias table shares sum to 100%, 25% expected per load")
{
	static const u64 hits[2][7] = { { 50, 9, 18, 14, 0, 7, 2 }, { 8, 30, 1, 60, 1, 0, 0 } };
	struct pesbench_expect e;
	struct pesbench_run r[2];
	struct pesbench_table t;
	double share[PESBENCH_MAX_INSN], sum = 0;
	int i, k;

	bias_expect(&e);
	memset(r, 0, sizeof(r));
	memset(&t, 0, sizeof(t));
	for (k = 0; k < 2; k++)
		for (i = 0; i < 7; i++) {
			r[k].insn[i] = hits[k][i];
			r[k].in_loop += hits[k][i];
		}
	TEST_ASSERT(pesbench_bias__add(&t, "soft", &e, "sampled ip", r, 2) == 0, "add");
	TEST_ASSERT(t.n == 7, "rows %d", t.n);
	for (i = 0; i < t.n; i++)
		sum += t.rows[i].observed;
	TEST_ASSERT(fabs(sum - 100) < 1e-9, "sum %.12f", sum);
	/* pooled: load 1 = 58 of 200 = 29%, subq 1 of 200 = 0.5% */
	TEST_ASSERT(NEAR(t.rows[0].observed, 29) && NEAR(t.rows[4].observed, 0.5), "shares");
	TEST_ASSERT(NEAR(t.rows[0].expected, 25) && NEAR(t.rows[6].expected, 0), "expected");
	TEST_ASSERT(!strcmp(t.rows[4].metric, "subq %"), "metric '%s'", t.rows[4].metric);
	TEST_ASSERT(pesbench_bias__shares(&e, r, 2, share) == 0 && NEAR(share[3], 37), "load 4 %g", share[3]);
	memset(r, 0, sizeof(r));
	TEST_ASSERT(pesbench_bias__shares(&e, r, 2, share) == -EINVAL, "no sample");
	free(t.rows);
	return TEST_OK;
}

LP_TEST(test_pesbench_multi_event_shares, "pesbench: multi-event shares weight partly taken branches")
{
	struct pesbench_expect e;
	struct pesbench_run r;
	struct pesbench_table t;
	const struct pesbench_row *w;

	/* two instructions: a lock add (1000) and a jne taken 750 of 1000 times */
	memset(&e, 0, sizeof(e));
	snprintf(e.bench, sizeof(e.bench), "multi-event");
	e.ninsn = 2;
	e.instructions = 2000;
	e.insn[0] = (struct pesbench_insn){ "lock add", "", 0, LP_ACCESS_ATOMIC, 0, 0, 0, 1, 0, 1000, 0 };
	e.insn[1] = (struct pesbench_insn){ "jne", "", 4, LP_ACCESS_NONE, 1, 0, 0, 0, 0, 1000, 750 };
	memset(&r, 0, sizeof(r));
	memset(&t, 0, sizeof(t));
	r.insn[0] = 90;
	r.insn[1] = 10;
	r.in_loop = 100;
	TEST_ASSERT(pesbench_multi__add(&t, "soft", &e, "1 timer", &r, 1) == 0, "add");
	w = pesbench__find_row(&t, "soft", "multi-event", "1 timer", "taken branch share %");
	/* expected 750 / 2000 = 37.5%; observed 10 samples x 0.75 = 7.5% */
	TEST_ASSERT(w && NEAR(w->expected, 37.5) && NEAR(w->observed, 7.5), "taken");
	w = pesbench__find_row(&t, "soft", "multi-event", "1 timer", "locked share %");
	TEST_ASSERT(w && NEAR(w->expected, 50) && NEAR(w->observed, 90), "locked");
	TEST_ASSERT(!pesbench__find_row(&t, "soft", "multi-event", "1 timer", "call share %"),
		    "no row for an event the loop lacks");
	free(t.rows);
	return TEST_OK;
}

LP_TEST(test_pesbench_mode_kernel_share, "pesbench: exec-mode: samples missing = kernel share of CPU time")
{
	struct pesbench_expect e;
	struct pesbench_run r;
	struct pesbench_table t;
	const struct pesbench_row *w;

	memset(&e, 0, sizeof(e));
	snprintf(e.bench, sizeof(e.bench), "exec-mode");
	e.ninsn = 2;
	e.instructions = 2000;
	e.insn[0].syscall = 1;
	e.insn[0].count = 1000;
	e.insn[1].count = 1000;
	memset(&r, 0, sizeof(r));
	memset(&t, 0, sizeof(t));
	/* 60 ms user + 40 ms system, 100 ms thread CPU, 100 us period, 580 samples */
	r.utime_ns = 60000000;
	r.stime_ns = 40000000;
	r.cpu_ns = 100000000;
	r.period = 100000;
	r.samples = 580;
	r.in_loop = 500;
	r.insn[1] = 450;
	TEST_ASSERT(pesbench_mode__add(&t, "soft", 1, &e, &r, 1) == 0, "add");
	w = pesbench__find_row(&t, "soft", "exec-mode", "user only", "samples (user time / period)");
	TEST_ASSERT(w && NEAR(w->expected, 600) && NEAR(w->observed, 580), "user samples");
	w = pesbench__find_row(&t, "soft", "exec-mode", "user only", "missing samples % (kernel time %)");
	/* 1 - 580 * 1e5 / 1e8 = 42%, expected 40% */
	TEST_ASSERT(w && NEAR(w->expected, 40) && NEAR(w->observed, 42), "missing");
	w = pesbench__find_row(&t, "soft", "exec-mode", "user only", "after-syscall share %");
	TEST_ASSERT(w && NEAR(w->expected, 50) && NEAR(w->observed, 90), "after syscall");
	free(t.rows);
	return TEST_OK;
}

LP_TEST(test_pesbench_overhead_and_tool, "pesbench: overhead ratios and comdetect volume in transfers")
{
	struct pesbench_run nat[2], prof[2];
	struct pesbench_table t;
	const struct pesbench_row *w;

	memset(nat, 0, sizeof(nat));
	memset(prof, 0, sizeof(prof));
	memset(&t, 0, sizeof(t));
	nat[0].wall_ns = nat[1].wall_ns = 1000000000;
	nat[0].target_rss_kib = nat[1].target_rss_kib = 1000;
	prof[0].wall_ns = 1400000000;
	prof[1].wall_ns = 1600000000;
	prof[0].target_rss_kib = prof[1].target_rss_kib = 1000;
	prof[0].profiler_rss_kib = prof[1].profiler_rss_kib = 3000;
	TEST_ASSERT(pesbench_overhead__add(&t, "soft", "x", nat, 2, prof, 2) == 0, "add");
	w = pesbench__find_row(&t, "soft", "x", "vs native", "time ratio");
	TEST_ASSERT(w && NEAR(w->observed, 1.5) && NEAR(w->error_pct, 50), "time");
	w = pesbench__find_row(&t, "soft", "x", "vs native", "program+lociprof RSS ratio");
	TEST_ASSERT(w && NEAR(w->observed, 4), "rss");
	/* 1e6 ns of volume x 4e6 stores / 2e8 ns of CPU = 20000 transfers */
	prof[0].tool_volume = 1e6;
	prof[0].cpu_ns = 200000000;
	TEST_ASSERT(pesbench_tool__add(&t, "soft", 1, "s", 25000, 4000000, prof, 1, nat, 2) == 0, "tool");
	w = pesbench__find_row(&t, "soft", "write-volume", "s", "transfers");
	TEST_ASSERT(w && NEAR(w->observed, 20000) && NEAR(w->error_pct, -20), "transfers %g",
		    w ? w->observed : -1);
	free(t.rows);
	return TEST_OK;
}

/* A small result with one table. */
static void small_result(struct pesbench_result *res, const char *fac, double obs)
{
	struct pesbench_table *t;

	pesbench__result_init(res);
	snprintf(res->m.vendor, sizeof(res->m.vendor), "AuthenticAMD");
	snprintf(res->m.cpu, sizeof(res->m.cpu), "EPYC \"7352\"");
	res->m.family = 23;
	res->m.model = 49;
	res->runs = 3;
	res->nfac = 1;
	snprintf(res->fac[0].name, sizeof(res->fac[0].name), "%s", fac);
	res->fac[0].usable = 1;
	snprintf(res->fac[0].reason, sizeof(res->fac[0].reason), "opens per thread");
	t = pesbench__table(res, "accuracy", "observed vs expected");
	snprintf(t->note, sizeof(t->note), "a note");
	pesbench__add_row(t, fac, "load-ratio 1/4", "default period", "load share %",
			  25, obs, 0.5, 3);
	pesbench__add_row(t, fac, "load-ratio 1/4", "default period", "samples",
			  1000, 990, NAN, 1);
}

LP_TEST(test_pesbench_json_round_trip, "pesbench: a result written as JSON reads back the same")
{
	struct pesbench_result a, b;
	struct json_writer w;
	struct json_value *v;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const struct pesbench_row *r;

	small_result(&a, "ibs", 26.5);
	json__init(&w, f, JSON_PRETTY);
	pesbench__write_json(&w, &a);
	TEST_ASSERT(json__finish(&w) == 0, "write");
	fclose(f);
	TEST_ASSERT(json__parse(buf, len, &v, NULL) == 0, "parse: %s", buf);
	TEST_ASSERT(pesbench__read_json(v, &b) == 0, "read");
	json__free(v);
	free(buf);
	TEST_ASSERT(!strcmp(b.m.cpu, "EPYC \"7352\"") && b.m.family == 23 && b.runs == 3, "machine");
	TEST_ASSERT(b.nfac == 1 && b.fac[0].usable && !strcmp(b.fac[0].name, "ibs"), "facility");
	TEST_ASSERT(b.ntables == 1 && b.tables[0].n == 2 && !strcmp(b.tables[0].note, "a note"), "table");
	r = pesbench__find_row(&b.tables[0], "ibs", "load-ratio 1/4", "default period", "load share %");
	TEST_ASSERT(r && r->expected == 25 && r->observed == 26.5 && r->stderr_ == 0.5 &&
		    NEAR(r->error_pct, 6) && r->runs == 3, "row");
	r = pesbench__find_row(&b.tables[0], "ibs", "load-ratio 1/4", "default period", "samples");
	TEST_ASSERT(r && isnan(r->stderr_), "NaN stderr survives as null");
	pesbench__result_exit(&a);
	pesbench__result_exit(&b);
	return TEST_OK;
}

#define EXAMPLE "test/data/pesbench-soft-example.json"

LP_TEST(test_pesbench_merge_with_example, "pesbench: merge of the checked-in soft example and another result")
{
	struct pesbench_result res[2];
	const struct pesbench_row *r;
	char *buf = NULL, dir[] = "/tmp/lp-pesbench-XXXXXX", path[512];
	size_t len = 0;
	FILE *f;
	DIR *d;
	struct dirent *de;
	int i, nsoft = -1, files, seen = 0;

	TEST_ASSERT(pesbench__load(EXAMPLE, &res[0]) == 0, "cannot load %s", EXAMPLE);
	TEST_ASSERT(strstr(res[0].example, "real run of the soft facility"), "label '%.60s'", res[0].example);
	for (i = 0; i < res[0].nfac; i++)
		if (!strcmp(res[0].fac[i].name, "soft"))
			nsoft = i;
	TEST_ASSERT(nsoft >= 0 && res[0].fac[nsoft].usable, "soft listed usable");
	TEST_ASSERT(res[0].ntables >= 7, "tables %d", res[0].ntables);
	r = pesbench__find_row(pesbench__table(&res[0], "accuracy", NULL), "soft",
			       "load-ratio 1/4", "default period", "load share %");
	TEST_ASSERT(r && r->expected == 25, "example has the 1/4 load share");
	/* the example's error is the one its own numbers give */
	TEST_ASSERT(fabs(r->error_pct - 100 * (r->observed - 25) / 25) < 1e-9, "error %g", r->error_pct);
	small_result(&res[1], "ibs", 40);

	f = open_memstream(&buf, &len);
	pesbench__print_merge(f, res, 2);
	fclose(f);
	TEST_ASSERT(strstr(buf, "[A] soft") && strstr(buf, "[B] ibs"), "columns:\n%s", buf);
	TEST_ASSERT(strstr(buf, "40 (+60.0%)"), "B's load share with its error:\n%s", buf);
	TEST_ASSERT(strstr(buf, "== bias:") && strstr(buf, "n/a"), "A-only tables, B n/a");
	free(buf);

	TEST_ASSERT(mkdtemp(dir), "mkdtemp");
	files = pesbench__svg(dir, res, 2);
	TEST_ASSERT(files >= 5, "svg files %d", files);
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!strcmp(de->d_name, "accuracy-load-share.svg")) {
			char head[64] = "";
			FILE *s = fopen(path, "r");

			if (s) {
				if (!fgets(head, sizeof(head), s))
					head[0] = 0;
				fclose(s);
			}
			seen = !!strstr(head, "<svg") || !!strstr(head, "<?xml");
		}
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
	TEST_ASSERT(seen, "accuracy-load-share.svg written as SVG");
	pesbench__result_exit(&res[0]);
	pesbench__result_exit(&res[1]);
	return TEST_OK;
}

LP_TEST(test_pesbench_unavailable_facilities_say_why, "pesbench: every facility is listed; unusable ones with their probe's reason")
{
	const struct lp_facility_ops *const *all;
	int i, n;

	all = lp_facility__list(&n);
	/* the trace-driven one last: it plays a file, never picked by auto */
	TEST_ASSERT(n == 4 && !strcmp(all[0]->name, "pebs") && !strcmp(all[1]->name, "ibs") &&
		    !strcmp(all[2]->name, "soft") && !strcmp(all[3]->name, "trace"),
		    "facilities not registered in auto order");
	for (i = 0; i < n; i++) {
		const struct lp_facility_ops *ops = all[i];
		struct pesbench_facility f;
		struct lp_probe pr;

		memset(&pr, 0, sizeof(pr));
		ops->probe(&pr);
		TEST_ASSERT(pesbench__probe_facility(ops, &f) == 0, "%s", ops->name);
		TEST_ASSERT(!strcmp(f.name, ops->name), "name");
		TEST_ASSERT(f.usable == (pr.usable && ops->setup && ops->decode), "%s usable %d vs probe %d",
			    ops->name, f.usable, pr.usable);
		TEST_ASSERT(!strcmp(f.reason, pr.reason) && f.reason[0], "%s reason '%.40s' vs '%.40s'",
			    ops->name, f.reason, pr.reason);
		TEST_ASSERT(f.counters[0] && f.data[0] && f.modes[0], "%s qualitative fields", ops->name);
		if (!f.usable)
			TEST_ASSERT(strstr(f.counters, "not probed"), "%s: '%.60s'", ops->name, f.counters);
	}
	return TEST_OK;
}
