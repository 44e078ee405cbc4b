// SPDX-License-Identifier: GPL-2.0
/*
 * The data file's records: the header (machine, run, command line,
 * topology, analysis settings) and every event type, field by field
 * (Documentation/data-file.md). The file around them is core/datafile.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/datafile-codec.h"

/* ---- header ---- */

int datafile__set_cmdline(struct lp_data_header *h, int argc,
			  char *const *argv)
{
	size_t n = 0, len;
	int i;

	for (i = 0; i < argc; i++) {
		len = strlen(argv[i]) + 1;
		if (len > sizeof(h->cmdline) - n)
			return -E2BIG;
		memcpy(h->cmdline + n, argv[i], len);
		n += len;
	}
	h->argc = argc;
	h->cmdline_len = n;
	return 0;
}

int datafile__get_argv(const struct lp_data_header *h, const char **argv,
		       int max)
{
	size_t pos = 0, end = h->cmdline_len;
	int n = 0;

	if (end > sizeof(h->cmdline))
		end = sizeof(h->cmdline);
	while (n < max && (u32)n < h->argc && pos < end) {
		const char *s = h->cmdline + pos;
		size_t len = strnlen(s, end - pos);

		if (len == end - pos)	/* unterminated */
			break;
		argv[n++] = s;
		pos += len + 1;
	}
	return n;
}

/* Per-cpu entries worth writing: up to the last cpu that is not -1/-1. */
static int topo_nent(const struct lp_topology *t)
{
	int n = t->ncpus, i;

	for (i = LP_MAX_CPUS - 1; i >= 0; i--)
		if (t->cpu_core[i] != -1 || t->cpu_socket[i] != -1)
			break;
	if (i + 1 > n)
		n = i + 1;
	if (n < 0)
		n = 0;
	if (n > LP_MAX_CPUS)
		n = LP_MAX_CPUS;
	return n;
}

void datafile__put_header(struct wb *w, const struct lp_data_header *h)
{
	const struct lp_topology *t = &h->topo;
	int i, j, nent = topo_nent(t), ncaches = t->ncaches;
	u32 clen = h->cmdline_len;

	wb_str(w, h->cpu_vendor, sizeof(h->cpu_vendor) - 1);
	wb_u32(w, h->cpu_family);
	wb_u32(w, h->cpu_model);
	wb_str(w, h->cpu_name, sizeof(h->cpu_name) - 1);
	wb_str(w, h->kernel_release, sizeof(h->kernel_release) - 1);
	wb_str(w, h->hostname, sizeof(h->hostname) - 1);
	wb_str(w, h->facility, sizeof(h->facility) - 1);
	wb_u64(w, h->period);
	wb_str(w, h->period_unit, sizeof(h->period_unit) - 1);
	wb_u64(w, h->sampling_flags);
	wb_u64(w, h->start_time);
	wb_u64(w, h->start_perf_time);
	if (clen > sizeof(h->cmdline))
		clen = sizeof(h->cmdline);
	wb_u32(w, h->argc);
	wb_u32(w, clen);
	wb_bytes(w, h->cmdline, clen);

	wb_u32(w, t->ncpus);
	wb_u32(w, t->nsockets);
	wb_u32(w, t->ncores);
	wb_u32(w, nent);
	for (i = 0; i < nent; i++) {
		wb_u32(w, t->cpu_core[i]);
		wb_u32(w, t->cpu_socket[i]);
	}
	if (ncaches < 0)
		ncaches = 0;
	if (ncaches > LP_MAX_CACHES)
		ncaches = LP_MAX_CACHES;
	wb_u32(w, ncaches);
	for (i = 0; i < ncaches; i++) {
		const struct lp_cache *c = &t->caches[i];
		int nwords = 0;

		for (j = 0; j < LP_MAX_CPUS / 64; j++)
			if (c->cpus.bits[j])
				nwords = j + 1;
		wb_u32(w, c->level);
		wb_str(w, c->type, sizeof(c->type) - 1);
		wb_u64(w, c->size);
		wb_u32(w, c->ways);
		wb_u32(w, c->line_size);
		wb_u32(w, c->sets);
		wb_u32(w, nwords);
		for (j = 0; j < nwords; j++)
			wb_u64(w, c->cpus.bits[j]);
	}
	wb_str(w, h->analysis, sizeof(h->analysis) - 1);	/* since 1.1 */
	wb_str(w, h->config, sizeof(h->config) - 1);		/* since 1.2 */
}

int datafile__get_header(struct rd *r, struct lp_data_header *h)
{
	struct lp_topology *t = &h->topo;
	u32 i, j, nent, ncaches, nul = 0;

	rd_str(r, h->cpu_vendor, sizeof(h->cpu_vendor));
	h->cpu_family = rd_u32(r);
	h->cpu_model = rd_u32(r);
	rd_str(r, h->cpu_name, sizeof(h->cpu_name));
	rd_str(r, h->kernel_release, sizeof(h->kernel_release));
	rd_str(r, h->hostname, sizeof(h->hostname));
	rd_str(r, h->facility, sizeof(h->facility));
	h->period = rd_u64(r);
	rd_str(r, h->period_unit, sizeof(h->period_unit));
	h->sampling_flags = rd_u64(r);
	h->start_time = rd_u64(r);
	h->start_perf_time = rd_u64(r);
	h->argc = rd_u32(r);
	h->cmdline_len = rd_u32(r);
	if (r->bad || h->cmdline_len > sizeof(h->cmdline) ||
	    (size_t)(r->end - r->p) < h->cmdline_len)
		return -EBADMSG;
	memcpy(h->cmdline, r->p, h->cmdline_len);
	r->p += h->cmdline_len;
	/* argc NUL-terminated strings exactly: get_argv can trust it */
	for (i = 0; i < h->cmdline_len; i++)
		nul += h->cmdline[i] == '\0';
	if (nul != h->argc ||
	    (h->cmdline_len && h->cmdline[h->cmdline_len - 1] != '\0'))
		return -EBADMSG;

	t->ncpus = rd_s32(r);
	t->nsockets = rd_s32(r);
	t->ncores = rd_s32(r);
	nent = rd_u32(r);
	if (r->bad || t->ncpus < 0 || t->ncpus > LP_MAX_CPUS || t->nsockets < 0 ||
	    t->nsockets > LP_MAX_CPUS || t->ncores < 0 || t->ncores > LP_MAX_CPUS ||
	    nent > LP_MAX_CPUS)
		return -EBADMSG;
	for (i = 0; i < LP_MAX_CPUS; i++)
		t->cpu_core[i] = t->cpu_socket[i] = -1;
	for (i = 0; i < nent; i++) {
		t->cpu_core[i] = rd_s32(r);
		t->cpu_socket[i] = rd_s32(r);
		if (t->cpu_core[i] < -1 || t->cpu_socket[i] < -1)
			return -EBADMSG;
	}
	ncaches = rd_u32(r);
	if (r->bad || ncaches > LP_MAX_CACHES)
		return -EBADMSG;
	t->ncaches = ncaches;
	for (i = 0; i < ncaches; i++) {
		struct lp_cache *c = &t->caches[i];
		u32 nwords;

		c->level = rd_s32(r);
		rd_str(r, c->type, sizeof(c->type));
		c->size = rd_u64(r);
		c->ways = rd_s32(r);
		c->line_size = rd_s32(r);
		c->sets = rd_s32(r);
		nwords = rd_u32(r);
		if (r->bad || nwords > LP_MAX_CPUS / 64)
			return -EBADMSG;
		memset(&c->cpus, 0, sizeof(c->cpus));
		for (j = 0; j < nwords; j++)
			c->cpus.bits[j] = rd_u64(r);
	}
	if (!r->bad && r->end - r->p >= 4)	/* 1.0 headers end here */
		rd_str(r, h->analysis, sizeof(h->analysis));
	if (!r->bad && r->end - r->p >= 4)	/* 1.1 headers end here */
		rd_str(r, h->config, sizeof(h->config));
	return r->bad ? -EBADMSG : 0;
}

/* ---- events ---- */

int datafile__put_event(struct wb *w, const struct lp_event *ev)
{
	switch (ev->type) {
	case LP_EV_THREAD_START:
	case LP_EV_THREAD_EXIT:
	case LP_EV_THREAD_TLS: {
		const struct lp_thread *e = &ev->thread;

		wb_u64(w, e->time);
		wb_u32(w, e->pid);
		wb_u32(w, e->tid);
		wb_u32(w, e->parent_tid);
		wb_u32(w, e->cpu);
		wb_u32(w, e->index);
		wb_u32(w, e->status);
		wb_u64(w, e->fs_base);
		wb_u64(w, e->cpu_ns);	/* since 1.1 */
		break;
	}
	case LP_EV_MMAP: {
		const struct lp_mmap *e = &ev->mmap;

		wb_u64(w, e->time);
		wb_u32(w, e->pid);
		wb_u32(w, e->prot);
		wb_u64(w, e->start);
		wb_u64(w, e->len);
		wb_u64(w, e->pgoff);
		wb_str(w, e->filename, sizeof(e->filename) - 1);
		break;
	}
	case LP_EV_SAMPLE: {
		const struct lp_sample *e = &ev->sample;

		wb_u64(w, e->time);
		wb_u64(w, e->ip);
		wb_u64(w, e->addr);
		wb_u64(w, e->period);
		wb_u64(w, e->data_src);
		wb_u32(w, e->pid);
		wb_u32(w, e->tid);
		wb_u32(w, e->cpu);
		wb_u32(w, e->latency);
		wb_u8(w, e->size);
		wb_u8(w, e->kind);
		wb_u8(w, e->noaddr);
		wb_u8(w, e->flags);
		wb_u64(w, e->thread_ns);	/* since 1.1 */
		break;
	}
	case LP_EV_TRAP: {
		const struct lp_trap *e = &ev->trap;

		wb_u64(w, e->time);
		wb_u64(w, e->ip);
		wb_u64(w, e->addr);
		wb_u64(w, e->cookie);
		wb_u32(w, e->pid);
		wb_u32(w, e->tid);
		wb_u32(w, e->cpu);
		wb_u8(w, e->slot);
		wb_u8(w, e->mode);
		wb_u8(w, e->len);
		wb_u64(w, e->thread_ns);	/* since 1.1 */
		break;
	}
	case LP_EV_ACTION: {
		const struct lp_action *e = &ev->action;

		wb_u8(w, e->op);
		wb_u8(w, e->slot);
		wb_u8(w, e->mode);
		wb_u8(w, e->len);
		wb_u32(w, e->tid);
		wb_u64(w, e->addr);
		wb_u64(w, e->cookie);
		wb_u64(w, e->time);
		break;
	}
	case LP_EV_LOST: {
		const struct lp_lost *e = &ev->lost;

		wb_u64(w, e->time);
		wb_u32(w, e->pid);
		wb_u32(w, e->tid);
		wb_u64(w, e->lost);
		wb_u64(w, e->throttled);
		break;
	}
	case LP_EV_COUNTER: {
		const struct lp_counter *e = &ev->counter;

		wb_u64(w, e->time);
		wb_u32(w, e->pid);
		wb_u32(w, e->tid);
		wb_u64(w, e->value);
		wb_u64(w, e->enabled_ns);
		wb_u64(w, e->running_ns);
		break;
	}
	case LP_EV_EXEC: {
		const struct lp_exec *e = &ev->exec;

		wb_u64(w, e->time);
		wb_u32(w, e->pid);
		wb_u32(w, e->tid);
		wb_str(w, e->filename, sizeof(e->filename) - 1);
		break;
	}
	case LP_EV_ALLOC:
	case LP_EV_FREE: {
		const struct lp_alloc *e = &ev->alloc;
		u8 i, n = e->nframes > LP_ALLOC_MAX_FRAMES ? LP_ALLOC_MAX_FRAMES : e->nframes;

		wb_u64(w, e->time);
		wb_u64(w, e->addr);
		wb_u64(w, e->size);
		wb_u32(w, e->pid);
		wb_u32(w, e->tid);
		wb_u8(w, e->fn);
		wb_u8(w, n);
		for (i = 0; i < n; i++)
			wb_u64(w, e->frames[i]);
		break;
	}
	default:
		return -EINVAL;
	}
	return 0;
}

/* A CPU number an event may carry: one of LP_MAX_CPUS, or ~0 (unknown). */
static int cpu_ok(u32 cpu)
{
	return cpu < LP_MAX_CPUS || cpu == ~0u;
}

int datafile__get_event(struct rd *r, u32 type, struct lp_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	switch (type) {
	case LP_EV_THREAD_START:
	case LP_EV_THREAD_EXIT:
	case LP_EV_THREAD_TLS: {
		struct lp_thread *e = &ev->thread;

		e->time = rd_u64(r);
		e->pid = rd_u32(r);
		e->tid = rd_u32(r);
		e->parent_tid = rd_u32(r);
		e->cpu = rd_u32(r);
		e->index = rd_u32(r);
		e->status = rd_s32(r);
		e->fs_base = rd_u64(r);
		if (r->end - r->p >= 8)	/* 1.0 files end here */
			e->cpu_ns = rd_u64(r);
		break;
	}
	case LP_EV_MMAP: {
		struct lp_mmap *e = &ev->mmap;

		e->time = rd_u64(r);
		e->pid = rd_u32(r);
		e->prot = rd_u32(r);
		e->start = rd_u64(r);
		e->len = rd_u64(r);
		e->pgoff = rd_u64(r);
		rd_str(r, e->filename, sizeof(e->filename));
		break;
	}
	case LP_EV_SAMPLE: {
		struct lp_sample *e = &ev->sample;

		e->time = rd_u64(r);
		e->ip = rd_u64(r);
		e->addr = rd_u64(r);
		e->period = rd_u64(r);
		e->data_src = rd_u64(r);
		e->pid = rd_u32(r);
		e->tid = rd_u32(r);
		e->cpu = rd_u32(r);
		e->latency = rd_u32(r);
		e->size = rd_u8(r);
		e->kind = rd_u8(r);
		e->noaddr = rd_u8(r);
		e->flags = rd_u8(r);
		/* consumers index name tables with these */
		if (e->kind > LP_ACCESS_ATOMIC || e->noaddr >= LP_NOADDR__MAX)
			return -EBADMSG;
		if (r->end - r->p >= 8)	/* 1.0 records end here */
			e->thread_ns = rd_u64(r);
		break;
	}
	case LP_EV_TRAP: {
		struct lp_trap *e = &ev->trap;

		e->time = rd_u64(r);
		e->ip = rd_u64(r);
		e->addr = rd_u64(r);
		e->cookie = rd_u64(r);
		e->pid = rd_u32(r);
		e->tid = rd_u32(r);
		e->cpu = rd_u32(r);
		e->slot = rd_u8(r);
		e->mode = rd_u8(r);
		e->len = rd_u8(r);
		if (r->end - r->p >= 8)	/* 1.0 records end here */
			e->thread_ns = rd_u64(r);
		break;
	}
	case LP_EV_ACTION: {
		struct lp_action *e = &ev->action;

		e->op = rd_u8(r);
		e->slot = rd_u8(r);
		e->mode = rd_u8(r);
		e->len = rd_u8(r);
		e->tid = rd_u32(r);
		e->addr = rd_u64(r);
		e->cookie = rd_u64(r);
		e->time = rd_u64(r);
		break;
	}
	case LP_EV_LOST: {
		struct lp_lost *e = &ev->lost;

		e->time = rd_u64(r);
		e->pid = rd_u32(r);
		e->tid = rd_u32(r);
		e->lost = rd_u64(r);
		e->throttled = rd_u64(r);
		break;
	}
	case LP_EV_COUNTER: {
		struct lp_counter *e = &ev->counter;

		e->time = rd_u64(r);
		e->pid = rd_u32(r);
		e->tid = rd_u32(r);
		e->value = rd_u64(r);
		e->enabled_ns = rd_u64(r);
		e->running_ns = rd_u64(r);
		break;
	}
	case LP_EV_EXEC: {
		struct lp_exec *e = &ev->exec;

		e->time = rd_u64(r);
		e->pid = rd_u32(r);
		e->tid = rd_u32(r);
		rd_str(r, e->filename, sizeof(e->filename));
		break;
	}
	case LP_EV_ALLOC:
	case LP_EV_FREE: {
		struct lp_alloc *e = &ev->alloc;
		u8 i;

		e->time = rd_u64(r);
		e->addr = rd_u64(r);
		e->size = rd_u64(r);
		e->pid = rd_u32(r);
		e->tid = rd_u32(r);
		e->fn = rd_u8(r);
		e->nframes = rd_u8(r);
		/* printers index the name table with fn */
		if (e->fn == 0 || e->fn >= LP_ALLOC__MAX || e->nframes > LP_ALLOC_MAX_FRAMES)
			return -EBADMSG;
		for (i = 0; i < e->nframes; i++)
			e->frames[i] = rd_u64(r);
		break;
	}
	default:
		return -ENOENT;	/* caller skips it */
	}
	/* Shorter than this version's fields: corrupt. Longer: newer writer. */
	if (r->bad)
		return -EBADMSG;
	/* sizes come from these: a CPU beyond any machine is damage, not data */
	if (!cpu_ok(type == LP_EV_SAMPLE ? ev->sample.cpu : type == LP_EV_TRAP ? ev->trap.cpu :
		    type == LP_EV_THREAD_START || type == LP_EV_THREAD_EXIT ||
		    type == LP_EV_THREAD_TLS ? ev->thread.cpu : 0))
		return -EBADMSG;
	return 0;
}
