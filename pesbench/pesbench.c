// SPDX-License-Identifier: GPL-2.0
/*
 * pesbench: the shared model of the facility characterization — the
 * microbenchmarks' expectations, the tally of a profiled run, result tables
 * and their JSON form. The experiments are core/pesbench-<exp>.c.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pesbench/pesbench.h"

/* ------------------------------------------------------ expectation */

static u64 get_u64(const struct json_value *o, const char *key)
{
	const struct json_value *v = json__get(o, key);

	return v && v->type == JV_NUMBER && v->num > 0 ? (u64)v->num : 0;
}

static void get_str(const struct json_value *o, const char *key, char *buf, size_t len)
{
	const struct json_value *v = json__get(o, key);

	snprintf(buf, len, "%s", v && v->type == JV_STRING ? v->str : "");
}

static u8 kind_of(const char *s)
{
	if (!strcmp(s, "load"))
		return LP_ACCESS_LOAD;
	if (!strcmp(s, "store"))
		return LP_ACCESS_STORE;
	if (!strcmp(s, "atomic"))
		return LP_ACCESS_ATOMIC;
	return LP_ACCESS_NONE;
}

int pesbench__parse_expect(const char *text, size_t len, struct pesbench_expect *e)
{
	const struct json_value *counts, *loop;
	struct json_value *root;
	char kind[16];
	size_t i;
	int err;

	memset(e, 0, sizeof(*e));
	err = json__parse(text, len, &root, NULL);
	if (err)
		return err;
	counts = json__get(root, "counts");
	loop = json__get(root, "loop");
	err = -EINVAL;
	if (root->type != JV_OBJECT || !counts || !loop || loop->type != JV_ARRAY ||
	    !loop->len || loop->len > PESBENCH_MAX_INSN)
		goto out;
	get_str(root, "benchmark", e->bench, sizeof(e->bench));
	get_str(root, "symbol", e->symbol, sizeof(e->symbol));
	e->size = (u32)get_u64(root, "symbol_size");
	e->iters = get_u64(root, "iters");
	e->instructions = get_u64(counts, "instructions");
	e->loads = get_u64(counts, "loads");
	e->stores = get_u64(counts, "stores");
	e->locked = get_u64(counts, "locked");
	e->branches = get_u64(counts, "branches");
	e->taken = get_u64(counts, "taken_branches");
	e->calls = get_u64(counts, "calls");
	e->returns = get_u64(counts, "returns");
	e->syscalls = get_u64(counts, "syscalls");
	e->ninsn = (int)loop->len;
	for (i = 0; i < loop->len; i++) {
		const struct json_value *in = json__at(loop, i);
		struct pesbench_insn *p = &e->insn[i];

		get_str(in, "name", p->name, sizeof(p->name));
		get_str(in, "text", p->text, sizeof(p->text));
		get_str(in, "kind", kind, sizeof(kind));
		p->kind = kind_of(kind);
		p->off = (u32)get_u64(in, "offset");
		p->branch = !!get_u64(in, "branch");
		p->call = !!get_u64(in, "call");
		p->ret = !!get_u64(in, "ret");
		p->locked = !!get_u64(in, "locked");
		p->syscall = !!get_u64(in, "syscall");
		p->count = get_u64(in, "count");
		p->taken = get_u64(in, "taken");
	}
	if (e->symbol[0] && e->size && e->instructions)
		err = 0;
out:
	json__free(root);
	return err;
}

int pesbench__insn_at(const struct pesbench_expect *e, u64 off)
{
	int i;

	for (i = 0; i < e->ninsn; i++)
		if (e->insn[i].off == off)
			return i;
	return -1;
}

/* ------------------------------------------------------ one run */

void pesbench__tally(struct pesbench_run *r, const struct pesbench_expect *e,
		     const struct lp_event *ev)
{
	const struct lp_sample *s = &ev->sample;
	int i;

	switch (ev->type) {
	case LP_EV_THREAD_START:
		r->threads++;
		break;
	case LP_EV_THREAD_EXIT:
		r->cpu_ns += ev->thread.cpu_ns;
		break;
	case LP_EV_LOST:
		r->lost += ev->lost.lost;
		r->throttled += ev->lost.throttled;
		break;
	case LP_EV_SAMPLE:
		r->samples++;
		if (s->noaddr == LP_NOADDR_NONE) {
			r->with_addr++;
			r->kind[s->kind & 3]++;
		}
		if (s->flags & LP_SAMPLE_KERNEL)
			r->kernel++;
		if ((s->flags & LP_SAMPLE_LOCKED) ||
		    (s->noaddr == LP_NOADDR_NONE && s->kind == LP_ACCESS_ATOMIC))
			r->locked++;
		if (s->flags & LP_SAMPLE_PREV_INSN)
			r->prev++;
		if (!r->sym_base || s->ip < r->sym_base || s->ip - r->sym_base >= e->size)
			break;
		r->in_symbol++;
		i = pesbench__insn_at(e, s->ip - r->sym_base);
		if (i >= 0) {
			r->in_loop++;
			r->insn[i]++;
		}
		break;
	default:
		break;
	}
}

double pesbench__expected_samples(const struct pesbench_run *r, int time_period,
				  u64 count)
{
	if (!r->period)
		return NAN;
	return time_period ? (double)r->cpu_ns / r->period : (double)count / r->period;
}

void pesbench__mean_se(const double *v, int n, double *mean, double *se)
{
	double m = 0, ss = 0;
	int i;

	for (i = 0; i < n; i++)
		m += v[i];
	m = n ? m / n : NAN;
	for (i = 0; i < n; i++)
		ss += (v[i] - m) * (v[i] - m);
	*mean = m;
	*se = n >= 2 ? sqrt(ss / (n - 1)) / sqrt(n) : NAN;
}

double pesbench__error_pct(double observed, double expected)
{
	if (expected == 0 || isnan(expected) || isnan(observed))
		return NAN;
	return 100.0 * (observed - expected) / expected;
}

/* ------------------------------------------------------ result tables */

void pesbench__result_init(struct pesbench_result *res)
{
	memset(res, 0, sizeof(*res));
}

void pesbench__result_exit(struct pesbench_result *res)
{
	int i;

	for (i = 0; i < res->ntables; i++)
		free(res->tables[i].rows);
	memset(res, 0, sizeof(*res));
}

struct pesbench_table *pesbench__table(struct pesbench_result *res,
				       const char *id, const char *title)
{
	struct pesbench_table *t;
	int i;

	for (i = 0; i < res->ntables; i++)
		if (!strcmp(res->tables[i].id, id))
			return &res->tables[i];
	if (res->ntables == PESBENCH_MAX_TABLES)
		return NULL;
	t = &res->tables[res->ntables++];
	memset(t, 0, sizeof(*t));
	snprintf(t->id, sizeof(t->id), "%s", id);
	snprintf(t->title, sizeof(t->title), "%s", title ? title : id);
	return t;
}

int pesbench__add_row(struct pesbench_table *t, const char *facility,
		      const char *bench, const char *config, const char *metric,
		      double expected, double observed, double se, int runs)
{
	struct pesbench_row *r;

	if (t->n == t->cap) {
		int cap = t->cap ? t->cap * 2 : 16;
		struct pesbench_row *v = realloc(t->rows, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->rows = v;
		t->cap = cap;
	}
	r = &t->rows[t->n++];
	memset(r, 0, sizeof(*r));
	snprintf(r->facility, sizeof(r->facility), "%s", facility);
	snprintf(r->bench, sizeof(r->bench), "%s", bench);
	snprintf(r->config, sizeof(r->config), "%s", config);
	snprintf(r->metric, sizeof(r->metric), "%s", metric);
	r->expected = expected;
	r->observed = observed;
	r->stderr_ = se;
	r->error_pct = pesbench__error_pct(observed, expected);
	r->runs = runs;
	return 0;
}

const struct pesbench_row *pesbench__find_row(const struct pesbench_table *t,
					      const char *facility, const char *bench,
					      const char *config, const char *metric)
{
	int i;

	for (i = 0; i < t->n; i++) {
		const struct pesbench_row *r = &t->rows[i];

		if (!strcmp(r->facility, facility) && !strcmp(r->bench, bench) &&
		    !strcmp(r->config, config) && !strcmp(r->metric, metric))
			return r;
	}
	return NULL;
}

/* ------------------------------------------------------ JSON */

void pesbench__write_json(struct json_writer *w, const struct pesbench_result *res)
{
	const struct pesbench_machine *m = &res->m;
	int i, j;

	json__obj_begin(w, NULL);
	json__str(w, "command", "pebs-ibs-compare");
	json__u64(w, "format", 1);
	if (res->example[0])
		json__str(w, "example", res->example);
	json__obj_begin(w, "machine");
	json__str(w, "vendor", m->vendor);
	json__u64(w, "family", m->family);
	json__u64(w, "model", m->model);
	json__str(w, "cpu", m->cpu);
	json__str(w, "hypervisor", m->hypervisor);
	json__str(w, "pmu", m->pmu);
	json__u64(w, "cpus", (u64)m->ncpus);
	json__str(w, "kernel", m->kernel);
	json__str(w, "host", m->host);
	json__str(w, "date", m->date);
	json__obj_end(w);
	json__bool(w, "quick", res->quick);
	json__u64(w, "runs", (u64)res->runs);
	json__arr_begin(w, "facilities");
	for (i = 0; i < res->nfac; i++) {
		const struct pesbench_facility *f = &res->fac[i];

		json__obj_begin(w, NULL);
		json__str(w, "name", f->name);
		json__bool(w, "usable", f->usable);
		json__str(w, "reason", f->reason);
		json__str(w, "period_unit", f->period_unit);
		json__str(w, "counters", f->counters);
		json__str(w, "events", f->events);
		json__str(w, "sampled_data", f->data);
		json__str(w, "execution_modes", f->modes);
		json__obj_end(w);
	}
	json__arr_end(w);
	json__arr_begin(w, "experiments");
	for (i = 0; i < res->ntables; i++) {
		const struct pesbench_table *t = &res->tables[i];

		json__obj_begin(w, NULL);
		json__str(w, "id", t->id);
		json__str(w, "title", t->title);
		json__str(w, "note", t->note);
		json__arr_begin(w, "rows");
		for (j = 0; j < t->n; j++) {
			const struct pesbench_row *r = &t->rows[j];

			json__obj_begin(w, NULL);
			json__str(w, "facility", r->facility);
			json__str(w, "bench", r->bench);
			json__str(w, "config", r->config);
			json__str(w, "metric", r->metric);
			json__double(w, "expected", r->expected);
			json__double(w, "observed", r->observed);
			json__double(w, "stderr", r->stderr_);
			json__double(w, "error_pct", r->error_pct);
			json__u64(w, "runs", (u64)r->runs);
			json__obj_end(w);
		}
		json__arr_end(w);
		json__obj_end(w);
	}
	json__arr_end(w);
	json__obj_end(w);
}

static double get_num(const struct json_value *o, const char *key)
{
	const struct json_value *v = json__get(o, key);

	return v && v->type == JV_NUMBER ? v->num : NAN;
}

int pesbench__read_json(const struct json_value *v, struct pesbench_result *res)
{
	const struct json_value *cmd = json__get(v, "command");
	const struct json_value *m, *facs, *exps, *x;
	size_t i, j;
	int err;

	pesbench__result_init(res);
	if (v->type != JV_OBJECT || !cmd || cmd->type != JV_STRING ||
	    strcmp(cmd->str, "pebs-ibs-compare"))
		return -EINVAL;
	get_str(v, "example", res->example, sizeof(res->example));
	m = json__get(v, "machine");
	if (m) {
		get_str(m, "vendor", res->m.vendor, sizeof(res->m.vendor));
		get_str(m, "cpu", res->m.cpu, sizeof(res->m.cpu));
		get_str(m, "hypervisor", res->m.hypervisor, sizeof(res->m.hypervisor));
		get_str(m, "pmu", res->m.pmu, sizeof(res->m.pmu));
		get_str(m, "kernel", res->m.kernel, sizeof(res->m.kernel));
		get_str(m, "host", res->m.host, sizeof(res->m.host));
		get_str(m, "date", res->m.date, sizeof(res->m.date));
		res->m.family = (unsigned int)get_u64(m, "family");
		res->m.model = (unsigned int)get_u64(m, "model");
		res->m.ncpus = (int)get_u64(m, "cpus");
	}
	x = json__get(v, "quick");
	res->quick = x && x->type == JV_BOOL && x->boolean;
	res->runs = (int)get_u64(v, "runs");
	facs = json__get(v, "facilities");
	for (i = 0; facs && facs->type == JV_ARRAY && i < facs->len &&
		    i < PESBENCH_MAX_FAC; i++) {
		const struct json_value *f = json__at(facs, i);
		struct pesbench_facility *p = &res->fac[res->nfac++];

		get_str(f, "name", p->name, sizeof(p->name));
		x = json__get(f, "usable");
		p->usable = x && x->type == JV_BOOL && x->boolean;
		get_str(f, "reason", p->reason, sizeof(p->reason));
		get_str(f, "period_unit", p->period_unit, sizeof(p->period_unit));
		get_str(f, "counters", p->counters, sizeof(p->counters));
		get_str(f, "events", p->events, sizeof(p->events));
		get_str(f, "sampled_data", p->data, sizeof(p->data));
		get_str(f, "execution_modes", p->modes, sizeof(p->modes));
	}
	exps = json__get(v, "experiments");
	if (!exps || exps->type != JV_ARRAY)
		return -EINVAL;
	for (i = 0; i < exps->len; i++) {
		const struct json_value *e = json__at(exps, i), *rows;
		struct pesbench_table *t;
		char id[16], title[128];

		get_str(e, "id", id, sizeof(id));
		get_str(e, "title", title, sizeof(title));
		t = pesbench__table(res, id, title);
		if (!t)
			return -EINVAL;
		get_str(e, "note", t->note, sizeof(t->note));
		rows = json__get(e, "rows");
		for (j = 0; rows && rows->type == JV_ARRAY && j < rows->len; j++) {
			const struct json_value *r = json__at(rows, j);
			char f[16], b[32], c[48], mt[48];

			get_str(r, "facility", f, sizeof(f));
			get_str(r, "bench", b, sizeof(b));
			get_str(r, "config", c, sizeof(c));
			get_str(r, "metric", mt, sizeof(mt));
			err = pesbench__add_row(t, f, b, c, mt, get_num(r, "expected"),
						get_num(r, "observed"), get_num(r, "stderr"),
						(int)get_u64(r, "runs"));
			if (err)
				return err;
			/* keep the writer's error, not a recomputation */
			t->rows[t->n - 1].error_pct = get_num(r, "error_pct");
		}
	}
	return 0;
}

int pesbench__load(const char *path, struct pesbench_result *res)
{
	struct json_value *v;
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	int err;

	pesbench__result_init(res);
	if (!f)
		return -errno;
	for (;;) {
		if (len + 4096 > cap) {
			char *p = realloc(buf, cap = cap ? cap * 2 : 65536);

			if (!p) {
				free(buf);
				fclose(f);
				return -ENOMEM;
			}
			buf = p;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (!n)
			break;
	}
	err = ferror(f) ? -EIO : 0;
	fclose(f);
	if (!err)
		err = json__parse(buf, len, &v, NULL);
	free(buf);
	if (err)
		return err;
	err = pesbench__read_json(v, res);
	json__free(v);
	if (err)
		pesbench__result_exit(res);
	return err;
}
