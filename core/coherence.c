// SPDX-License-Identifier: GPL-2.0
/* The MESI simulator (core/coherence.h says what it counts). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/coherence.h"
#include "core/hash.h"

#define MAXT COHERENCE_MAX_THREADS

/* A directory entry: who holds the line, and how. */
struct dline {
	u64 line;
	u64 valid;		/* caches holding it S, E or M */
	u64 inv;		/* caches holding its tag Invalid */
	u64 seen;		/* caches that ever held it (cold vs capacity) */
	int8_t owner;		/* E or M holder, -1: none */
	u8 dirty;		/* the owner's copy is M */
	int8_t last_writer;		/* -1: never stored */
	u32 ext;		/* 1 + index in ext[], 0: never invalidated */
};

/* What only lines that saw an invalidation need. */
struct dext {
	u64 wmask[MAXT];	/* bytes stored by others since t's copy was invalidated */
	struct coherence_line out;
};

/* One thread's cache: sets x ways tags (line | 1; 0 empty), LRU stamps. */
struct tcache {
	u64 *tag, *stamp;
};

struct coherence {
	u32 line_size, sets, ways;
	int nthreads;
	u32 tids[MAXT];
	struct lp_map tid_map;		/* tid -> index + 1 */
	struct tcache cache[MAXT];
	u64 clock;
	struct lp_map line_map;		/* line -> index + 1 in lines[] */
	struct dline *lines;
	size_t nlines, cap_lines;
	struct dext *ext;
	size_t next, cap_ext;
	struct lp_map ref_map;		/* hashed (addr, thread, op) -> 1 + index */
	struct coherence_ref *refs;
	size_t nrefs, cap_refs;
	struct coherence_counts threads[MAXT];
	u64 miss_all[MAXT * MAXT], miss_true[MAXT * MAXT], miss_false[MAXT * MAXT];
	u64 inval[MAXT * MAXT];
	/* the result, rebuilt by coherence__result */
	struct coherence_result res;
	u32 rtids[MAXT];
	struct coherence_counts rthreads[MAXT];
	u64 *rmat;
	struct coherence_line *rlines;
	struct coherence_ref *rrefs;
};

/* Grow @*arr of @*cap elements of @size to hold @need; 0 or -ENOMEM. */
static int grow(void *arr, size_t *cap, size_t need, size_t size)
{
	size_t ncap = *cap ? *cap : 64;
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	p = realloc(*(void **)arr, ncap * size);
	if (!p)
		return -ENOMEM;
	memset((char *)p + *cap * size, 0, (ncap - *cap) * size);
	*(void **)arr = p;
	*cap = ncap;
	return 0;
}

int coherence__new(struct coherence **cp, const struct coherence_config *cfg)
{
	struct coherence_config d = { 0 };
	struct coherence *c;

	if (cfg)
		d = *cfg;
	if (!d.line_size)
		d.line_size = 64;
	if ((d.line_size != 16 && d.line_size != 32 && d.line_size != 64) ||
	    (d.sets && !d.ways) || (u64)d.sets * d.ways > (1u << 26))
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->line_size = d.line_size;
	c->sets = d.sets;
	c->ways = d.sets ? d.ways : 0;
	*cp = c;
	return 0;
}

void coherence__delete(struct coherence *c)
{
	int t;

	if (!c)
		return;
	for (t = 0; t < c->nthreads; t++) {
		free(c->cache[t].tag);
		free(c->cache[t].stamp);
	}
	lp_map__exit(&c->tid_map);
	lp_map__exit(&c->line_map);
	lp_map__exit(&c->ref_map);
	free(c->lines);
	free(c->ext);
	free(c->refs);
	free(c->rmat);
	free(c->rlines);
	free(c->rrefs);
	free(c);
}

/* @tid's index, a new one on its first access; -E2BIG, -ENOMEM. */
static int thread_index(struct coherence *c, u32 tid)
{
	u64 *v = lp_map__slot(&c->tid_map, tid);
	int t;

	if (!v)
		return -ENOMEM;
	if (*v)
		return (int)*v - 1;
	if (c->nthreads == MAXT)
		return -E2BIG;
	t = c->nthreads;
	if (c->sets) {
		size_t n = (size_t)c->sets * c->ways;

		c->cache[t].tag = calloc(n, sizeof(u64));
		c->cache[t].stamp = calloc(n, sizeof(u64));
		if (!c->cache[t].tag || !c->cache[t].stamp)
			return -ENOMEM;
	}
	c->tids[t] = tid;
	c->nthreads++;
	*v = (u64)t + 1;
	return t;
}

static struct dline *dir_line(struct coherence *c, u64 line)
{
	u64 *v = lp_map__slot(&c->line_map, line);

	if (!v)
		return NULL;
	if (!*v) {
		if (grow(&c->lines, &c->cap_lines, c->nlines + 1, sizeof(*c->lines)))
			return NULL;
		c->lines[c->nlines] = (struct dline){ .line = line, .owner = -1,
						      .last_writer = -1 };
		*v = ++c->nlines;
	}
	return &c->lines[*v - 1];
}

static struct dext *line_ext(struct coherence *c, struct dline *l)
{
	if (!l->ext) {
		if (grow(&c->ext, &c->cap_ext, c->next + 1, sizeof(*c->ext)))
			return NULL;
		c->ext[c->next].out.line = l->line;
		l->ext = (u32)++c->next;
	}
	return &c->ext[l->ext - 1];
}

static struct coherence_ref *ref_of(struct coherence *c, int t, int store, u64 addr)
{
	u64 key = lp_hash64(addr ^ lp_hash64(((u64)t << 1) | (u64)store)), *v;
	struct coherence_ref *r;

	for (;; key++) {	/* two references may hash alike: probe on */
		v = lp_map__slot(&c->ref_map, key);
		if (!v)
			return NULL;
		if (!*v)
			break;
		r = &c->refs[*v - 1];
		if (r->thread == (u32)t && r->store == store && r->addr == addr)
			return r;
	}
	if (grow(&c->refs, &c->cap_refs, c->nrefs + 1, sizeof(*c->refs)))
		return NULL;
	c->refs[c->nrefs] = (struct coherence_ref){ .thread = (u32)t, .store = (u8)store,
						    .addr = addr };
	*v = ++c->nrefs;
	return &c->refs[c->nrefs - 1];
}

/* Thread @t no longer holds @l (LRU replaced it). */
static void drop_copy(struct coherence *c, struct dline *l, int t)
{
	l->valid &= ~(1ull << t);
	l->inv &= ~(1ull << t);
	if (l->owner == t) {
		if (l->dirty)
			c->threads[t].writebacks++;
		l->owner = -1;
		l->dirty = 0;
	}
}

/*
 * Touch @line in @t's cache: refresh its LRU stamp if the tag is there,
 * else take a free way or replace the least recent one. Unbounded caches
 * keep everything. 0 or -ENOMEM.
 */
static int cache_touch(struct coherence *c, int t, u64 line)
{
	struct tcache *tc = &c->cache[t];
	size_t set, w, base, victim;
	struct dline *l;
	u64 *v;

	if (!c->sets)
		return 0;
	set = (size_t)((line / c->line_size) % c->sets);
	base = set * c->ways;
	victim = base;
	for (w = base; w < base + c->ways; w++) {
		if (tc->tag[w] == (line | 1)) {
			tc->stamp[w] = ++c->clock;
			return 0;
		}
		if (!tc->tag[w] || (tc->tag[victim] && tc->stamp[w] < tc->stamp[victim]))
			victim = w;
	}
	if (tc->tag[victim]) {
		v = lp_map__slot(&c->line_map, tc->tag[victim] & ~1ull);
		if (!v || !*v)
			return -ENOMEM;
		l = &c->lines[*v - 1];
		drop_copy(c, l, t);
	}
	tc->tag[victim] = line | 1;
	tc->stamp[victim] = ++c->clock;
	return 0;
}

static void add_touch(struct coherence_line *o, int t, u8 off, u8 len, int store)
{
	int k;

	for (k = 0; k < o->ntouches; k++)
		if (o->touches[k].thread == (u32)t && o->touches[k].off == off &&
		    o->touches[k].len == len && o->touches[k].store == store) {
			o->touches[k].count++;
			return;
		}
	if (o->ntouches == COHERENCE_LINE_TOUCHES) {
		o->touches_dropped++;
		return;
	}
	o->touches[o->ntouches++] = (struct coherence_touch){ (u32)t, off, len, (u8)store, 1 };
}

/* A coherence miss of @t on @l: counted for (last writer, t). */
static int coherence_miss(struct coherence *c, struct dline *l, int t, int store, u64 addr,
			  u8 off, u8 len, u64 mask)
{
	struct dext *e = line_ext(c, l);
	struct coherence_counts *k = &c->threads[t];
	struct coherence_ref *r = ref_of(c, t, store, addr);
	int w = l->last_writer, tru;
	size_t cell;

	if (!e || !r)
		return -ENOMEM;
	tru = (e->wmask[t] & mask) != 0;
	cell = (size_t)(w >= 0 ? w : t) * MAXT + (size_t)t;
	k->misses++;
	if (store)
		k->store_misses++;
	else
		k->load_misses++;
	e->out.misses++;
	r->misses++;
	c->miss_all[cell]++;
	if (tru) {
		k->true_sharing++;
		e->out.true_sharing++;
		r->true_sharing++;
		c->miss_true[cell]++;
	} else {
		k->false_sharing++;
		e->out.false_sharing++;
		r->false_sharing++;
		c->miss_false[cell]++;
	}
	add_touch(&e->out, t, off, len, store);
	e->wmask[t] = 0;
	return 0;
}

/* A store of @t with byte mask @mask: the other copies become Invalid. */
static int store_invalidates(struct coherence *c, struct dline *l, int t, u64 addr, u64 mask)
{
	u64 others = l->valid & ~(1ull << t), stale = l->inv & ~(1ull << t);
	struct coherence_ref *r;
	struct dext *e;
	int k;

	if (!others && !stale)
		return 0;
	e = line_ext(c, l);
	if (!e)
		return -ENOMEM;
	for (k = 0; k < c->nthreads; k++)
		if (stale >> k & 1)
			e->wmask[k] |= mask;
	if (!others)
		return 0;
	r = ref_of(c, t, 1, addr);
	if (!r)
		return -ENOMEM;
	for (k = 0; k < c->nthreads; k++) {
		if (!(others >> k & 1))
			continue;
		e->wmask[k] = mask;
		c->inval[(size_t)t * MAXT + k]++;
		c->threads[t].invalidations++;
		e->out.invalidations++;
		r->invalidations++;
	}
	l->inv |= others;
	l->valid &= ~others;
	return 0;
}

/* One access of thread @t within one line. */
static int line_access(struct coherence *c, int t, int store, u64 addr, u32 len)
{
	u64 line = addr & ~(u64)(c->line_size - 1), bit = 1ull << t, mask;
	u8 off = (u8)(addr - line);
	struct coherence_counts *k = &c->threads[t];
	struct dline *l = dir_line(c, line);
	int err;

	if (!l)
		return -ENOMEM;
	mask = (len >= 64 ? ~0ull : ((1ull << len) - 1)) << off;
	k->accesses++;
	if (store)
		k->stores++;
	else
		k->loads++;
	if (l->valid & bit) {
		k->hits++;
		if (store && l->owner != t)
			k->upgrades++;
	} else if (l->inv & bit) {
		err = coherence_miss(c, l, t, store, addr, off, (u8)len, mask);
		if (err)
			return err;
	} else if (l->seen & bit) {
		k->capacity++;
	} else {
		k->cold++;
	}
	err = cache_touch(c, t, line);	/* may replace another line, never this one */
	if (err)
		return err;
	l->seen |= bit;
	l->inv &= ~bit;
	if (store) {
		err = store_invalidates(c, l, t, addr, mask);
		if (err)
			return err;
		l->valid = bit;
		l->owner = (int8_t)t;
		l->dirty = 1;
		l->last_writer = (int8_t)t;
	} else if (!(l->valid & bit)) {
		if (l->owner >= 0) {	/* E or M elsewhere: both keep S */
			if (l->dirty)
				c->threads[l->owner].writebacks++;
			l->owner = -1;
			l->dirty = 0;
		}
		if (!l->valid) {
			l->owner = (int8_t)t;	/* E */
			l->dirty = 0;
		}
		l->valid |= bit;
	}
	return 0;
}

int coherence__access(struct coherence *c, u32 tid, int store, u64 addr, u32 size)
{
	int t = thread_index(c, tid), err;
	u32 len;

	if (t < 0)
		return t;
	if (!size)
		size = 8;
	while (size) {
		len = c->line_size - (u32)(addr & (c->line_size - 1));
		if (len > size)
			len = size;
		err = line_access(c, t, !!store, addr, len);
		if (err)
			return err;
		addr += len;
		size -= len;
	}
	return 0;
}

static int line_cmp(const void *a, const void *b)
{
	const struct coherence_line *x = a, *y = b;

	if (x->misses != y->misses)
		return x->misses < y->misses ? 1 : -1;
	if (x->invalidations != y->invalidations)
		return x->invalidations < y->invalidations ? 1 : -1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int ref_cmp(const void *a, const void *b)
{
	const struct coherence_ref *x = a, *y = b;

	if (x->misses != y->misses)
		return x->misses < y->misses ? 1 : -1;
	if (x->invalidations != y->invalidations)
		return x->invalidations < y->invalidations ? 1 : -1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (int)x->thread - (int)y->thread;
}

static void add_counts(struct coherence_counts *to, const struct coherence_counts *from)
{
	const u64 *f = (const u64 *)from;
	u64 *o = (u64 *)to;
	size_t i;

	for (i = 0; i < sizeof(*to) / sizeof(u64); i++)
		o[i] += f[i];
}

/* @perm[t]: thread t's place when threads are ordered by tid. */
static void tid_order(const struct coherence *c, int *perm)
{
	int t, u, rank;

	for (t = 0; t < c->nthreads; t++) {
		for (rank = 0, u = 0; u < c->nthreads; u++)
			rank += c->tids[u] < c->tids[t];
		perm[t] = rank;
	}
}

int coherence__result(struct coherence *c, const struct coherence_result **res)
{
	struct coherence_result *r = &c->res;
	size_t n = (size_t)c->nthreads, i, j, nl = 0, pi, pj;
	int perm[MAXT], k;
	u64 *m;

	free(c->rmat);
	free(c->rlines);
	free(c->rrefs);
	c->rmat = calloc(4 * (n ? n * n : 1), sizeof(u64));
	c->rlines = calloc(c->next ? c->next : 1, sizeof(*c->rlines));
	c->rrefs = calloc(c->nrefs ? c->nrefs : 1, sizeof(*c->rrefs));
	if (!c->rmat || !c->rlines || !c->rrefs)
		return -ENOMEM;
	memset(r, 0, sizeof(*r));
	tid_order(c, perm);
	m = c->rmat;
	for (i = 0; i < n; i++) {
		pi = (size_t)perm[i];
		c->rtids[pi] = c->tids[i];
		c->rthreads[pi] = c->threads[i];
		add_counts(&r->total, &c->threads[i]);
		for (j = 0; j < n; j++) {
			pj = (size_t)perm[j];
			m[pi * n + pj] = c->miss_all[i * MAXT + j];
			m[n * n + pi * n + pj] = c->miss_true[i * MAXT + j];
			m[2 * n * n + pi * n + pj] = c->miss_false[i * MAXT + j];
			m[3 * n * n + pi * n + pj] = c->inval[i * MAXT + j];
		}
	}
	for (i = 0; i < c->next; i++) {
		if (!c->ext[i].out.misses && !c->ext[i].out.invalidations)
			continue;
		c->rlines[nl] = c->ext[i].out;
		for (k = 0; k < c->rlines[nl].ntouches; k++)
			c->rlines[nl].touches[k].thread = (u32)perm[c->rlines[nl].touches[k].thread];
		nl++;
	}
	qsort(c->rlines, nl, sizeof(*c->rlines), line_cmp);
	for (i = 0; i < c->nrefs; i++) {
		c->rrefs[i] = c->refs[i];
		c->rrefs[i].thread = (u32)perm[c->refs[i].thread];
	}
	qsort(c->rrefs, c->nrefs, sizeof(*c->rrefs), ref_cmp);
	r->nthreads = c->nthreads;
	r->tids = c->rtids;
	r->threads = c->rthreads;
	r->miss_all = m;
	r->miss_true = m + n * n;
	r->miss_false = m + 2 * n * n;
	r->inval = m + 3 * n * n;
	r->nlines = (int)nl;
	r->lines = c->rlines;
	r->nrefs = (int)c->nrefs;
	r->refs = c->rrefs;
	*res = r;
	return 0;
}
