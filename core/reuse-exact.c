// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "core/reuse-exact.h"

#define NO_SLOT		UINT32_MAX
#define EMPTY_THR	UINT32_MAX
#define MAX_SLOTS	((u32)1 << 31)
#define DEFAULT_SLOTS	65536

/* Latest access of one address in one stream. */
struct ent {
	u64 key;
	u64 last_seq;		/* stream time of the latest access */
	u32 slot;		/* its Fenwick slot, NO_SLOT once invalidated */
	u32 last_thr;		/* thread index of that access; EMPTY_THR: free */
};

/* Open addressing, linear probing, no deletions. */
struct etab {
	struct ent *v;
	u64 mask;
	u64 n;
};

/* PER_THREAD: the threads whose stream holds a live (valid) use of a key. */
struct aent {
	u64 key;
	u32 nh;
	u32 cap;		/* 0: free slot; 2: holders inline */
	union {
		u32 in[2];
		u32 *v;
	} h;
};

struct atab {
	struct aent *v;
	u64 mask;
	u64 n;
};

struct stream {
	u64 seq;		/* accesses so far */
	u64 nlive;		/* markers set */
	u32 cap;		/* slots */
	u32 next;		/* next free slot */
	u32 *fw;		/* Fenwick tree, 1-based, cap + 1 */
	u64 *owner;		/* key whose marker is in a slot */
	u64 *mark;		/* bitmap: slot holds a marker */
	struct etab tab;
};

struct reuse_exact {
	struct reuse_exact_opts o;
	int nthr, thr_cap;
	struct reuse_exact_thread *thr;
	struct stream *streams;	/* one per thread, or one (SHARED) */
	int nstreams;
	struct lp_map tids;	/* tid -> thread index */
	u32 last_tid;
	int last_idx;		/* -1: none */
	struct atab holders;
};

/* ---- address -> latest access ---- */

static int etab__grow(struct etab *t)
{
	u64 cap = t->v ? (t->mask + 1) * 2 : 1024, i;
	struct ent *v = malloc(cap * sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (i = 0; i < cap; i++)
		v[i].last_thr = EMPTY_THR;
	if (t->v) {
		for (i = 0; i <= t->mask; i++) {
			u64 j;

			if (t->v[i].last_thr == EMPTY_THR)
				continue;
			j = lp_hash64(t->v[i].key) & (cap - 1);
			while (v[j].last_thr != EMPTY_THR)
				j = (j + 1) & (cap - 1);
			v[j] = t->v[i];
		}
		free(t->v);
	}
	t->v = v;
	t->mask = cap - 1;
	return 0;
}

static struct ent *etab__find(const struct etab *t, u64 key)
{
	u64 i;

	if (!t->v)
		return NULL;
	for (i = lp_hash64(key) & t->mask;; i = (i + 1) & t->mask) {
		if (t->v[i].last_thr == EMPTY_THR)
			return NULL;
		if (t->v[i].key == key)
			return &t->v[i];
	}
}

/* Find @key or add it as last accessed by thread @thr. */
static int etab__get(struct etab *t, u64 key, u32 thr, struct ent **ep,
		     int *is_new)
{
	struct ent *e = etab__find(t, key);
	u64 i;

	*is_new = 0;
	if (e) {
		*ep = e;
		return 0;
	}
	if (!t->v || (t->n + 1) * 8 > (t->mask + 1) * 5) {
		int err = etab__grow(t);

		if (err)
			return err;
	}
	for (i = lp_hash64(key) & t->mask; t->v[i].last_thr != EMPTY_THR;
	     i = (i + 1) & t->mask)
		;
	e = &t->v[i];
	e->key = key;
	e->slot = NO_SLOT;
	e->last_seq = 0;
	e->last_thr = thr;	/* also marks the slot used */
	t->n++;
	*is_new = 1;
	*ep = e;
	return 0;
}

/* ---- key -> holder threads ---- */

static u32 *aent__holders(struct aent *a)
{
	return a->cap == 2 ? a->h.in : a->h.v;
}

static int atab__grow(struct atab *t)
{
	u64 cap = t->v ? (t->mask + 1) * 2 : 1024, i;
	struct aent *v = calloc(cap, sizeof(*v));

	if (!v)
		return -ENOMEM;
	if (t->v) {
		for (i = 0; i <= t->mask; i++) {
			u64 j;

			if (!t->v[i].cap)
				continue;
			j = lp_hash64(t->v[i].key) & (cap - 1);
			while (v[j].cap)
				j = (j + 1) & (cap - 1);
			v[j] = t->v[i];
		}
		free(t->v);
	}
	t->v = v;
	t->mask = cap - 1;
	return 0;
}

static int atab__get(struct atab *t, u64 key, struct aent **ap)
{
	u64 i;

	if (!t->v || (t->n + 1) * 8 > (t->mask + 1) * 5) {
		int err = atab__grow(t);

		if (err)
			return err;
	}
	for (i = lp_hash64(key) & t->mask; t->v[i].cap; i = (i + 1) & t->mask) {
		if (t->v[i].key == key) {
			*ap = &t->v[i];
			return 0;
		}
	}
	t->v[i].key = key;
	t->v[i].cap = 2;
	t->v[i].nh = 0;
	t->n++;
	*ap = &t->v[i];
	return 0;
}

static int aent__add(struct aent *a, u32 thr)
{
	if (a->nh == a->cap) {
		u32 cap = a->cap * 2, *v = malloc(cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		memcpy(v, aent__holders(a), a->nh * sizeof(*v));
		if (a->cap != 2)
			free(a->h.v);
		a->h.v = v;
		a->cap = cap;
	}
	aent__holders(a)[a->nh++] = thr;
	return 0;
}

static void atab__exit(struct atab *t)
{
	u64 i;

	for (i = 0; t->v && i <= t->mask; i++)
		if (t->v[i].cap > 2)
			free(t->v[i].h.v);
	free(t->v);
}

/* ---- Fenwick tree of latest-access markers ---- */

static void fw__add(struct stream *s, u32 slot, int delta)
{
	u64 i;

	for (i = (u64)slot + 1; i <= s->cap; i += i & -i)
		s->fw[i] += delta;
}

/* Markers in slots [0, slot]. */
static u64 fw__prefix(const struct stream *s, u32 slot)
{
	u64 i, sum = 0;

	for (i = (u64)slot + 1; i > 0; i -= i & -i)
		sum += s->fw[i];
	return sum;
}

/*
 * Renumber the live markers 0..nlive-1 in time order into fresh arrays of
 * at least twice that size, so the next compaction is nlive accesses away
 * (amortized O(1) per access).
 */
static int stream__compact(struct stream *s, u32 min_slots)
{
	u64 want = 2 * (s->nlive + 1), i;
	u32 cap, j = 0, *fw;
	u64 *owner, *mark;

	if (want < min_slots)
		want = min_slots;
	if (want > MAX_SLOTS)
		return -EOVERFLOW;
	cap = want;
	fw = calloc((u64)cap + 1, sizeof(*fw));
	owner = malloc((u64)cap * sizeof(*owner));
	mark = calloc(((u64)cap + 63) / 64, sizeof(*mark));
	if (!fw || !owner || !mark) {
		free(fw);
		free(owner);
		free(mark);
		return -ENOMEM;
	}
	for (i = 0; i < s->next; i++) {
		struct ent *e;

		if (!(s->mark[i / 64] & (1ULL << (i % 64))))
			continue;
		e = etab__find(&s->tab, s->owner[i]);
		e->slot = j;
		owner[j] = s->owner[i];
		mark[j / 64] |= 1ULL << (j % 64);
		fw[j + 1] = 1;
		j++;
	}
	/* linear-time Fenwick build */
	for (i = 1; i <= cap; i++) {
		u64 p = i + (i & -i);

		if (p <= cap)
			fw[p] += fw[i];
	}
	free(s->fw);
	free(s->owner);
	free(s->mark);
	s->fw = fw;
	s->owner = owner;
	s->mark = mark;
	s->cap = cap;
	s->next = j;
	return 0;
}

static void stream__unmark(struct stream *s, struct ent *e)
{
	fw__add(s, e->slot, -1);
	s->mark[e->slot / 64] &= ~(1ULL << (e->slot % 64));
	s->nlive--;
	e->slot = NO_SLOT;
}

static int stream__mark(struct stream *s, struct ent *e, u32 min_slots)
{
	if (s->next == s->cap) {
		int err = stream__compact(s, min_slots);

		if (err)
			return err;
	}
	e->slot = s->next++;
	s->owner[e->slot] = e->key;
	s->mark[e->slot / 64] |= 1ULL << (e->slot % 64);
	fw__add(s, e->slot, 1);
	s->nlive++;
	return 0;
}

static void stream__exit(struct stream *s)
{
	free(s->fw);
	free(s->owner);
	free(s->mark);
	free(s->tab.v);
}

/* ---- threads ---- */

static int reuse_exact__new_thread(struct reuse_exact *re, u32 tid)
{
	struct reuse_exact_thread *t;
	u32 n = re->nthr;

	if (re->nthr == re->thr_cap) {
		int cap = re->thr_cap ? re->thr_cap * 2 : 8;
		struct reuse_exact_thread *v;

		v = realloc(re->thr, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		re->thr = v;
		if (re->o.mode == REUSE_EXACT_PER_THREAD) {
			struct stream *s = realloc(re->streams, cap * sizeof(*s));

			if (!s)
				return -ENOMEM;
			re->streams = s;
		}
		re->thr_cap = cap;
	}
	if (lp_map__put(&re->tids, tid, n))
		return -ENOMEM;
	if (re->o.mode == REUSE_EXACT_PER_THREAD) {
		memset(&re->streams[n], 0, sizeof(re->streams[n]));
		re->nstreams++;
	}
	t = &re->thr[n];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	reuse_hist__init(&t->stack, REUSE_STACK, re->o.gran);
	reuse_hist__init(&t->time, REUSE_TIME, re->o.gran);
	re->nthr++;
	return n;
}

static int reuse_exact__thread_index(struct reuse_exact *re, u32 tid)
{
	u64 idx;
	int i;

	if (re->last_idx >= 0 && re->last_tid == tid)
		return re->last_idx;
	if (lp_map__get(&re->tids, tid, &idx)) {
		i = (int)idx;
	} else {
		i = reuse_exact__new_thread(re, tid);
		if (i < 0)
			return i;
	}
	re->last_tid = tid;
	re->last_idx = i;
	return i;
}

/* ---- public ---- */

int reuse_exact__new(const struct reuse_exact_opts *opts,
		     struct reuse_exact **rep)
{
	struct reuse_exact *re;

	if ((opts->mode != REUSE_EXACT_PER_THREAD &&
	     opts->mode != REUSE_EXACT_SHARED) ||
	    (opts->gran != REUSE_GRAN_ADDR && opts->gran != REUSE_GRAN_LINE) ||
	    opts->init_slots > MAX_SLOTS)
		return -EINVAL;
	re = calloc(1, sizeof(*re));
	if (!re)
		return -ENOMEM;
	re->o = *opts;
	if (!re->o.init_slots)
		re->o.init_slots = DEFAULT_SLOTS;
	re->last_idx = -1;
	if (opts->mode == REUSE_EXACT_SHARED) {
		re->streams = calloc(1, sizeof(*re->streams));
		if (!re->streams) {
			free(re);
			return -ENOMEM;
		}
		re->nstreams = 1;
	}
	*rep = re;
	return 0;
}

void reuse_exact__delete(struct reuse_exact *re)
{
	int i;

	if (!re)
		return;
	for (i = 0; i < re->nstreams; i++)
		stream__exit(&re->streams[i]);
	free(re->streams);
	free(re->thr);
	lp_map__exit(&re->tids);
	atab__exit(&re->holders);
	free(re);
}

/* Another thread stored to @key: @h's live use of it is invalidated. */
static int reuse_exact__invalidate(struct reuse_exact *re, u32 h, u64 key)
{
	struct stream *s = &re->streams[h];
	struct ent *e = etab__find(&s->tab, key);

	/* holders list only threads with a live marker for the key */
	if (e && e->slot != NO_SLOT) {
		stream__unmark(s, e);
		re->thr[h].invalidated++;
		return 1;
	}
	return 0;
}

int reuse_exact__access(struct reuse_exact *re, u32 tid, u64 addr,
			int is_store, struct reuse_exact_res *res)
{
	struct reuse_exact_res dummy;
	struct reuse_exact_thread *thr;
	struct stream *s;
	struct ent *e;
	u64 key = re->o.gran == REUSE_GRAN_LINE ? addr >> 6 : addr, now;
	int ti, is_new, was_live, err;

	if (!res)
		res = &dummy;
	res->dist = res->time = 0;
	ti = reuse_exact__thread_index(re, tid);
	if (ti < 0)
		return ti;
	thr = &re->thr[ti];
	s = re->o.mode == REUSE_EXACT_PER_THREAD ? &re->streams[ti] :
						   &re->streams[0];
	err = etab__get(&s->tab, key, ti, &e, &is_new);
	if (err)
		return err;
	now = s->seq++;
	thr->accesses++;
	was_live = !is_new && e->slot != NO_SLOT;
	if (is_new) {
		res->kind = REUSE_EXACT_COLD;
		thr->cold++;
		thr->stack.cold += 1;
		thr->time.cold += 1;
	} else if (!was_live) {
		res->kind = REUSE_EXACT_INVAL;
		thr->inval_misses++;
		thr->stack.inval += 1;
		thr->time.inval += 1;
	} else {
		/* markers after e's slot: every marker sits before `now` */
		u64 d = s->nlive - fw__prefix(s, e->slot);

		res->kind = REUSE_EXACT_REUSE;
		res->dist = d;
		res->time = now - e->last_seq - 1;
		reuse_hist__add(&thr->stack, d, 1);
		reuse_hist__add(&thr->time, res->time, 1);
		thr->reuses++;
		if (e->last_thr != (u32)ti)
			thr->cross_thread++;
		stream__unmark(s, e);
	}
	err = stream__mark(s, e, re->o.init_slots);
	if (err)
		return err;
	e->last_seq = now;
	e->last_thr = ti;

	if (re->o.mode == REUSE_EXACT_PER_THREAD) {
		struct aent *a;
		u32 i, *h, keep = 0;

		err = atab__get(&re->holders, key, &a);
		if (err)
			return err;
		if (!was_live) {
			err = aent__add(a, ti);
			if (err)
				return err;
		}
		if (is_store && a->nh > 1) {
			h = aent__holders(a);
			for (i = 0; i < a->nh; i++) {
				if (h[i] == (u32)ti) {
					keep = 1;
					continue;
				}
				if (reuse_exact__invalidate(re, h[i], key))
					thr->invalidations++;
			}
			a->nh = 0;
			if (keep)
				h[a->nh++] = ti;
		}
	}
	return 0;
}

int reuse_exact__nr_threads(const struct reuse_exact *re)
{
	return re->nthr;
}

const struct reuse_exact_thread *reuse_exact__thread(const struct reuse_exact *re,
						     int i)
{
	return i >= 0 && i < re->nthr ? &re->thr[i] : NULL;
}

void reuse_exact__sum(const struct reuse_exact *re,
		      struct reuse_exact_thread *sum)
{
	int i;

	memset(sum, 0, sizeof(*sum));
	reuse_hist__init(&sum->stack, REUSE_STACK, re->o.gran);
	reuse_hist__init(&sum->time, REUSE_TIME, re->o.gran);
	for (i = 0; i < re->nthr; i++) {
		const struct reuse_exact_thread *t = &re->thr[i];

		sum->accesses += t->accesses;
		sum->reuses += t->reuses;
		sum->cold += t->cold;
		sum->inval_misses += t->inval_misses;
		sum->invalidated += t->invalidated;
		sum->invalidations += t->invalidations;
		sum->cross_thread += t->cross_thread;
		reuse_hist__merge(&sum->stack, &t->stack);
		reuse_hist__merge(&sum->time, &t->time);
	}
}
