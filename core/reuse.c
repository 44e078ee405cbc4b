// SPDX-License-Identifier: GPL-2.0
/*
 * ReuseTracker (Sasongko 2022, ch. 6, Algorithms 2-3) as a pure event consumer. The
 * definitions it implements are written down in reuse.h.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/reuse-internal.h"

const char *const reuse_rate_source_names[] = {
	"default", "user", "stride", "counter",
};

const char *const reuse_res_source_names[] = {
	"exact", "stated", "measured", "unknown",
};

const char *const reuse_time_source_names[] = {
	"none", "thread_cpu", "wall", "mixed", "counter",
};

static u64 ru_rand(struct reuse *ru)
{
	return lp_splitmix64(&ru->rng);
}

/* uniform in [0, 1) with 53 bits */
static double ru_uniform(struct reuse *ru)
{
	return (ru_rand(ru) >> 11) * (1.0 / 9007199254740992.0);
}

void reuse__config_init(struct reuse_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->nslots = 4;
	cfg->gran = REUSE_GRAN_ADDR;
	cfg->seed = 0x72657573ull;	/* "reus" */
	cfg->max_pairs = 4096;
}

/*
 * At line granularity 7 of 8 reuses of a dense walk are spatial, at
 * distance 0: a window with as many longer reuses holds 8x the detections.
 */
int reuse__default_window(enum reuse_gran gran)
{
	return REUSE_DEFAULT_WINDOW * (gran == REUSE_GRAN_LINE ? LP_CACHE_LINE / 8 : 1);
}

static int ru_config_fill(struct reuse_config *c, const struct reuse_config *in)
{
	struct reuse_config def;

	reuse__config_init(&def);
	if (!in) {
		*c = def;
		return 0;
	}
	*c = *in;
	if (!c->nslots)
		c->nslots = def.nslots;
	if (!c->seed)
		c->seed = def.seed;
	if (!c->max_pairs)
		c->max_pairs = def.max_pairs;
	if (!c->window)
		c->window = reuse__default_window(c->gran);
	if (c->nslots < 1 || c->nslots > REUSE_MAX_SLOTS ||
	    (c->gran != REUSE_GRAN_ADDR && c->gran != REUSE_GRAN_LINE) ||
	    c->max_pairs < 1 || c->max_pairs > (1 << 24) ||
	    !(c->access_rate >= 0) || c->access_rate > REUSE_MAX_RATE ||
	    !(c->resolution_ns >= 0) || c->resolution_ns > 1e12)
		return -EINVAL;
	return 0;
}

u64 reuse__ns_to_accesses(double ns, double rate)
{
	double a = floor(ns * rate + 0.5) - 1;

	if (!(a > 0))
		return 0;
	if (a >= 1.8e19)
		return ~0ull;
	return (u64)a;
}

/* ---- threads ---------------------------------------------------------- */

static struct ru_thread *ru_thread_by_tid(struct reuse *ru, u32 tid)
{
	u64 idx;

	return lp_map__get(&ru->tids, tid, &idx) ? &ru->thr[idx] : NULL;
}

static int ru_threads_grow(struct reuse *ru, u32 n)
{
	if (n > ru->thr_cap) {
		u32 cap = ru->thr_cap ? ru->thr_cap : 16;
		struct ru_thread *v;

		while (cap < n)
			cap *= 2;
		v = realloc(ru->thr, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		memset(v + ru->thr_cap, 0, (cap - ru->thr_cap) * sizeof(*v));
		ru->thr = v;
		ru->thr_cap = cap;
	}
	if (n > ru->nthr)
		ru->nthr = n;
	return 0;
}

static u32 ru_index(struct reuse *ru, const struct ru_thread *t)
{
	return (u32)(t - ru->thr);
}

/* Do CPUs @a and @b share a last-level cache? Unknown: yes. */
static int ru_share(const struct reuse *ru, u32 a, u32 b)
{
	if (!ru->cfg.topo || a == RU_NO_CPU || b == RU_NO_CPU || a == b)
		return 1;
	return topology__share_llc(ru->cfg.topo, (int)a, (int)b);
}

/* The mode thread @t gets for a watch owned by @owner on @owner_cpu. */
static u8 ru_mode_for(const struct reuse *ru, u32 t, u32 owner, u32 owner_cpu)
{
	if (t == owner)
		return LP_WP_RW;
	if (ru->cfg.shared && ru_share(ru, owner_cpu, ru->thr[t].cpu))
		return LP_WP_RW;
	return LP_WP_W;
}

/* ---- actions ---------------------------------------------------------- */

/* One action per register slot @i holds in thread @tid (register i * nreg + r). */
static int ru_push(struct reuse *ru, struct lp_actions *out, u8 op, u32 tid,
		   int slot, const struct ru_watch *w, u8 mode, u64 time)
{
	int r, err;

	for (r = 0; r < w->nreg; r++) {
		struct lp_action a = {
			.op = op, .slot = (u8)(slot * ru->nreg + r), .tid = tid,
			.addr = r ? w->addr2 : w->addr, .cookie = w->cookie, .time = time,
		};

		if (op == LP_ACT_ARM) {
			a.mode = mode;
			a.len = w->len;
			ru->st.arm_actions++;
		} else {
			ru->st.disarm_actions++;
		}
		err = out ? lp_actions__push(out, &a) : 0;
		if (err)
			return err;
	}
	return 0;
}

/* Slot @i is done with its current watch: disarm it in every thread. */
static int ru_disarm_slot(struct reuse *ru, int i, u64 time,
			  struct lp_actions *out)
{
	struct ru_slot *s = &ru->slot[i];
	u32 k;
	int err;

	for (k = 0; k < ru->nthr; k++) {
		struct ru_thread *t = &ru->thr[k];

		if (!t->mode[i])
			continue;
		t->mode[i] = 0;
		if (!t->live)
			continue;
		err = ru_push(ru, out, LP_ACT_DISARM, t->tid, i, &s->cur, 0, time);
		if (err)
			return err;
	}
	s->cur.active = 0;
	return 0;
}

/* ---- detections ------------------------------------------------------- */

/*
 * Room for one more element in the growing array @arr of @n elements
 * (capacity @cap, doubled from @first): 0 or -ENOMEM. Typed, so no cast
 * through void ** (strict aliasing).
 */
#define RU_GROW(arr, cap, n, first) ({					\
	int _err = 0;							\
	if ((n) >= (cap)) {						\
		size_t _c = (cap) ? (cap) * 2 : (first);		\
		__typeof__(arr) _v = realloc((arr), _c * sizeof(*(arr)));	\
		if (_v) {						\
			(arr) = _v;					\
			(cap) = _c;					\
		} else {						\
			_err = -ENOMEM;					\
		}							\
	}								\
	_err;								\
})

/*
 * Accesses counted so far over what a reuse of @owner is timed by: its own
 * loads+stores (private) or those of every thread on its cache (shared).
 * 0 when some thread has no counter reading (no counting facility).
 */
static int ru_count(const struct reuse *ru, u32 owner, u32 owner_cpu, u64 *c)
{
	u64 sum = 0;
	u32 k;

	if (!ru->cfg.shared) {
		*c = ru->thr[owner].count;
		return ru->thr[owner].counted;
	}
	for (k = 0; k < ru->nthr; k++) {
		if (!ru->thr[k].started || !ru_share(ru, owner_cpu, ru->thr[k].cpu))
			continue;
		if (!ru->thr[k].counted)
			return 0;
		sum += ru->thr[k].count;
	}
	*c = sum;
	return 1;
}

/* 1 / P, capped at REUSE_MAX_WEIGHT; 1 with cfg.unweighted. */
static double ru_inv_p(const struct reuse *ru, double logp)
{
	if (ru->cfg.unweighted)
		return 1.0;
	return exp(logp < -log(REUSE_MAX_WEIGHT) ? log(REUSE_MAX_WEIGHT) : -logp);
}

/*
 * The accesses watch @w has been held so far (the counter path): what its
 * reuse is timed by now, less at its use. 0 when not counted.
 */
static int ru_age(const struct reuse *ru, const struct ru_watch *w, double *age)
{
	u64 now;

	if (!w->counted || !ru_count(ru, w->owner, w->owner_cpu, &now) || now < w->use_count)
		return 0;
	*age = (double)(now - w->use_count);
	return 1;
}

/* One detection of kind @kind on watch @w (its thread, use and weights). */
static int ru_record(struct reuse *ru, const struct ru_watch *w, u8 kind, double ns,
		     int wall, u8 k)
{
	struct ru_det *d;

	if (RU_GROW(ru->det, ru->det_cap, ru->ndet, 1024))
		return -ENOMEM;
	d = &ru->det[ru->ndet++];
	memset(d, 0, sizeof(*d));
	d->thread = w->owner;
	d->kind = kind;
	d->ns = ns;
	d->wall = (u8)wall;
	d->shared_k = k;
	d->use_time = w->use_time;
	d->use_ns = w->use_ns;
	d->addr = w->use_addr;
	d->w = ru_inv_p(ru, w->logp);
	d->w0 = d->w;
	d->wsel = ru_inv_p(ru, w->logp_sel);
	d->aged = (u8)ru_age(ru, w, &d->age);
	d->use_count = w->use_count;
	switch (kind) {
	case RU_REUSE: ru->thr[w->owner].reuses++; break;
	case RU_INVAL: ru->thr[w->owner].invalidations++; break;
	default: ru->thr[w->owner].cold++; break;
	}
	return 0;
}

/*
 * Watch @w is replaced before its trap: with counters, a censored
 * observation (its reuse comes more than its age after its use), kept for
 * the survival weights (reuse-estimate.c, ru_survival).
 */
static int ru_censor(struct reuse *ru, struct ru_watch *w)
{
	struct ru_cens *c;
	double age;

	w->cens = 0;
	if (!ru_age(ru, w, &age))
		return 0;
	if (RU_GROW(ru->cens, ru->cens_cap, ru->ncens, 256))
		return -ENOMEM;
	c = &ru->cens[ru->ncens++];
	c->thread = w->owner;
	c->live = 1;
	c->use_time = w->use_time;
	c->use_count = w->use_count;
	c->age = age;
	c->wsel = ru_inv_p(ru, w->logp_sel);
	w->cens = ru->ncens;
	return 0;
}

static void ru_pair_add(struct reuse *ru, const struct ru_watch *w, u64 trap_ip,
			int inval)
{
	u64 key = lp_hash64(w->use_ip * 31 + trap_ip);
	u32 mask = ru->pairs_cap - 1, h;

	for (h = key & mask; ru->pairs[h].used; h = (h + 1) & mask) {
		struct reuse_pair *p = &ru->pairs[h].p;

		if (p->use_ip == w->use_ip && p->reuse_ip == trap_ip)
			break;
	}
	if (!ru->pairs[h].used) {
		if (ru->npairs >= ru->cfg.max_pairs)
			return;
		ru->pairs[h].used = 1;
		ru->pairs[h].p.use_ip = w->use_ip;
		ru->pairs[h].p.reuse_ip = trap_ip;
		ru->pairs[h].p.addr = w->use_addr;
		ru->pairs[h].p.thread = w->owner;
		ru->npairs++;
	}
	if (inval)
		ru->pairs[h].p.invalidations++;
	else
		ru->pairs[h].p.reuses++;
}

/* ---- stride estimate of the access rate ------------------------------- */

int ru_dbl_push(struct ru_dbl *d, double x)
{
	if (RU_GROW(d->v, d->cap, d->n, 256))
		return -ENOMEM;
	d->v[d->n++] = x;
	return 0;
}

static int ru_span_push(struct reuse *ru, u32 thread, u64 t0, u64 t1, double r)
{
	struct ru_span *x;

	if (RU_GROW(ru->spans, ru->spans_cap, ru->nspans, 256))
		return -ENOMEM;
	x = &ru->spans[ru->nspans++];
	x->thread = thread;
	x->t0 = t0;
	x->t1 = t1;
	x->rate = r;
	return 0;
}

static int ru_stride(struct reuse *ru, u32 thread, const struct lp_sample *s)
{
	u64 key = ((u64)(thread + 1) << 48) ^ s->ip, h;
	struct ru_stride *e;
	int err = 0;

	if (!key)
		key = 1;
	h = lp_hash64(key) & (RU_STRIDE_CAP - 1);
	e = &ru->stride[h];
	if (e->key == key && s->thread_ns > e->ns && e->size == s->size && s->size) {
		u64 d = s->addr > e->addr ? s->addr - e->addr : e->addr - s->addr;
		double ns = (double)(s->thread_ns - e->ns);

		if (d && d % s->size == 0 && d / s->size <= RU_STRIDE_MAX) {
			double r = (double)(d / s->size) / ns;

			if (r <= REUSE_MAX_RATE)
				err = ru_dbl_push(&ru->rates, r);
			if (!err && r <= REUSE_MAX_RATE && s->addr > e->addr)
				err = ru_span_push(ru, thread, e->ns, s->thread_ns, r);
		}
	}
	e->key = key;
	e->addr = s->addr;
	e->ns = s->thread_ns;
	e->size = s->size;
	return err;
}

/* ---- events ----------------------------------------------------------- */

/*
 * A dense backward walk since the thread's previous sample: its counter
 * advanced by k accesses and the address fell by exactly k accesses of this
 * size (one stream, no other access in between). Anything else, including
 * no counters, is taken as forward: at a period longer than a pass the
 * previous sample is mostly in another pass or array (reuse-estimator.md).
 */
static int ru_walks_down(const struct ru_thread *t, const struct lp_sample *s)
{
	u64 k;

	if (!t->counted || !t->last_count || t->count <= t->last_count || !s->size ||
	    s->addr >= t->last_addr || (s->ip && s->ip != t->last_ip))
		return 0;
	k = t->count - t->last_count;
	return t->last_addr - s->addr == k * s->size;
}

/*
 * Address granularity: the aligned 1/2/4/8-byte block holding the access.
 * Line granularity: the aligned 8 bytes holding its first byte and, in a
 * second register, the 8 bytes right after its last byte within the line,
 * wrapping to the line's first chunk (@down, a dense backward walk: the 8
 * bytes right before its first byte, wrapping to the line's last chunk):
 * the next access to the line is the first trap on either (see reuse.h and
 * Documentation/reuse-estimator.md, "Line granularity").
 */
static void ru_watch_bytes(const struct reuse *ru, const struct lp_sample *s,
			   int down, struct ru_watch *w)
{
	u64 size = s->size ? s->size : 8, len, line, end;

	w->exact = 0;
	w->nreg = 1;
	if (ru->cfg.gran == REUSE_GRAN_ADDR) {
		for (len = 1; len <= 8; len <<= 1) {
			if (len < size)
				continue;
			if ((s->addr & ~(len - 1)) + len >= s->addr + size) {
				w->addr = s->addr & ~(len - 1);
				w->len = (u8)len;
				w->exact = w->addr == s->addr && len == size;
				return;
			}
		}
	}
	w->addr = s->addr & ~7ull;
	w->len = 8;
	w->exact = ru->cfg.gran == REUSE_GRAN_ADDR && w->addr == s->addr && size == 8;
	if (ru->cfg.gran != REUSE_GRAN_LINE || ru->nreg < 2)
		return;
	line = s->addr & ~(u64)(LP_CACHE_LINE - 1);
	end = s->addr + size - 1;
	if (end >= line + LP_CACHE_LINE)
		end = line + LP_CACHE_LINE - 1;
	if (down)
		w->addr2 = line + ((w->addr - line - 8) & (LP_CACHE_LINE - 1));
	else
		w->addr2 = line + (((end & ~7ull) + 8 - line) & (LP_CACHE_LINE - 1));
	if (w->addr2 != w->addr)
		w->nreg = 2;
}

static int ru_arm_thread(struct reuse *ru, int i, struct ru_thread *t, u64 time,
			 struct lp_actions *out)
{
	struct ru_slot *s = &ru->slot[i];
	u8 mode = ru_mode_for(ru, ru_index(ru, t), s->cur.owner, s->cur.owner_cpu);

	t->mode[i] = mode;
	return ru_push(ru, out, LP_ACT_ARM, t->tid, i, &s->cur, mode, time);
}

static void ru_counter(struct reuse *ru, const struct lp_counter *c)
{
	struct ru_thread *t = ru_thread_by_tid(ru, c->tid);

	if (t) {
		t->count = c->value;
		t->counted = 1;
	}
}

static int ru_sample(struct reuse *ru, const struct lp_sample *s,
		     struct lp_actions *out)
{
	int order[REUSE_MAX_SLOTS], n = 0, i, j, err, down;
	double miss;
	struct ru_thread *t;
	struct ru_slot *sl = NULL;
	u32 me, k;

	ru->st.samples++;
	if (s->noaddr != LP_NOADDR_NONE || s->kind == LP_ACCESS_NONE ||
	    s->kind > LP_ACCESS_ATOMIC) {
		ru->st.samples_noaddr++;
		return 0;
	}
	t = ru_thread_by_tid(ru, s->tid);
	if (!t || !t->live) {
		ru->st.samples_unknown++;
		return 0;
	}
	me = ru_index(ru, t);
	if (s->cpu != RU_NO_CPU)
		t->cpu = s->cpu;
	t->samples++;
	ru->size_sum += s->size ? s->size : 8;
	if (s->thread_ns && (err = ru_stride(ru, me, s)))
		return err;
	down = ru_walks_down(t, s);
	t->last_addr = s->addr;
	t->last_ip = s->ip;
	t->last_count = t->counted ? t->count : 0;
	if (s->thread_ns) {
		struct ru_pt *p;

		if (RU_GROW(ru->pts, ru->pts_cap, ru->npts, 1024))
			return -ENOMEM;
		p = &ru->pts[ru->npts++];
		p->thread = me;
		p->size = s->size;
		p->ns = s->thread_ns;
		p->addr = s->addr;
		p->ip = s->ip;
		p->seg = 0;
	}

	/* Algorithm 2: inactive slots first, then active, each by index */
	for (j = 0; j < 2; j++)
		for (i = 0; i < ru->nwatch; i++)
			if (!ru->slot[i].cur.active == !j)
				order[n++] = i;
	/* P(some slot takes it) = 1 - prod over all slots of (1 - 1/n) */
	for (j = 0, miss = 1; j < n; j++)
		miss *= 1.0 - 1.0 / ru->slot[order[j]].n;
	for (j = 0; j < n; j++) {
		struct ru_slot *c = &ru->slot[order[j]];
		int take = ru_uniform(ru) * c->n < 1.0;	/* r < 1/n */

		/* an examined watch that stays survived this with p 1 - 1/n */
		if (!take && c->cur.active)
			c->cur.logp += log1p(-1.0 / c->n);
		c->n += 1.0;
		if (take) {
			sl = c;
			break;
		}
	}
	if (!sl) {
		ru->st.samples_dropped++;
		if (RU_GROW(ru->drops, ru->drops_cap, ru->ndrops, 256))
			return -ENOMEM;
		ru->drops[ru->ndrops].thread = me;
		ru->drops[ru->ndrops++].time = s->time;
		return 0;
	}
	i = (int)(sl - ru->slot);
	if (sl->cur.active) {	/* censored: its reuse was not seen */
		ru->st.replaced++;
		if ((err = ru_censor(ru, &sl->cur)))
			return err;
		sl->prev = sl->cur;
		for (k = 0; k < ru->nthr; k++)
			ru->thr[k].pmode[i] = ru->thr[k].mode[i];
	} else {
		sl->prev.active = 0;
	}
	memset(&sl->cur, 0, sizeof(sl->cur));
	ru_watch_bytes(ru, s, down, &sl->cur);
	sl->cur.active = 1;
	sl->cur.owner = me;
	sl->cur.owner_cpu = t->cpu;
	sl->cur.cookie = ++ru->cookie_gen << 8 | (u64)i;
	sl->cur.use_addr = s->addr;
	sl->cur.use_ip = s->ip;
	sl->cur.use_size = s->size;
	sl->cur.use_ns = s->thread_ns;
	sl->cur.use_time = s->time;
	sl->cur.held = !!(s->flags & LP_SAMPLE_HELD);
	sl->cur.pending = sl->cur.held && (s->flags & LP_SAMPLE_PENDING);
	sl->cur.logp = miss < 1 ? log1p(-miss) : -INFINITY;
	sl->cur.logp_sel = sl->cur.logp;
	sl->cur.counted = (u8)ru_count(ru, me, t->cpu, &sl->cur.use_count);
	ru->st.samples_used++;

	/* the sampling thread first: on the sync path it is the one held */
	err = ru_arm_thread(ru, i, t, s->time, out);
	for (k = 0; !err && k < ru->nthr; k++) {
		if (k == me)
			continue;
		if (!ru->thr[k].live) {
			ru->thr[k].mode[i] = 0;
			continue;
		}
		err = ru_arm_thread(ru, i, &ru->thr[k], s->time, out);
	}
	return err;
}

/* Shared mode: threads whose CPU time runs on the use's cache at once. */
static u8 ru_shared_k(const struct reuse *ru, const struct ru_watch *w)
{
	u32 k, n = 0, ncpus = 0;

	for (k = 0; k < ru->nthr; k++)
		if (ru->thr[k].live && ru_share(ru, w->owner_cpu, ru->thr[k].cpu))
			n++;
	if (ru->cfg.topo && w->owner_cpu != RU_NO_CPU) {
		const struct lp_cache *c;
		int lvl = topology__llc_level(ru->cfg.topo);

		c = lvl ? topology__cache_of(ru->cfg.topo, lvl, (int)w->owner_cpu) : NULL;
		if (c)
			ncpus = (u32)lp_cpuset__count(&c->cpus);
	}
	if (ncpus && n > ncpus)
		n = ncpus;
	if (n < 1)
		n = 1;
	return n > 255 ? 255 : (u8)n;
}

/*
 * The use reported again: a trap at the end of the use's own instruction
 * while the thread's latest sample is still the use (no sign it moved on),
 * once per watch. Measured on this VM (soft, held samples): after a trap
 * the thread is often sampled again at that same access, and a watch armed
 * there traps at once at that instruction, though nothing else shows it
 * ran on: up to seven samples and traps in a row at one address, ~6% of
 * ribench's samples, each a false reuse a few us long. A true reuse at the
 * same instruction (a loop over a small array, a spin) traps again one
 * iteration later and is timed from this trap instead. Held samples
 * only: an async watch is armed after its thread ran on.
 */
static int ru_again(const struct ru_thread *t, const struct ru_watch *w,
		    const struct lp_trap *tr, u32 me, u8 mode)
{
	return w->held && !w->again && !w->pending &&
	       me == w->owner && mode == LP_WP_RW &&
	       tr->ip > w->use_ip && tr->ip <= w->use_ip + RU_MAX_INSN &&
	       t->last_addr == w->use_addr && t->last_ip == w->use_ip;
}

static int ru_trap(struct reuse *ru, const struct lp_trap *tr,
		   struct lp_actions *out)
{
	struct ru_thread *t = ru_thread_by_tid(ru, tr->tid);
	struct ru_watch *w;
	struct ru_slot *sl;
	int current, i = tr->slot / ru->nreg, wall, err;
	u8 mode, k = 1, counted = 0;
	u64 now;
	u32 me;
	double ns;

	ru->st.traps++;
	if (!t || !t->live || i >= ru->nwatch) {
		ru->st.traps_stale++;
		return 0;
	}
	sl = &ru->slot[i];
	if (sl->cur.active && sl->cur.cookie == tr->cookie && t->mode[i]) {
		current = 1;
		w = &sl->cur;
		mode = t->mode[i];
	} else if (sl->prev.active && sl->prev.cookie == tr->cookie && t->pmode[i]) {
		current = 0;
		w = &sl->prev;
		mode = t->pmode[i];
		ru->st.traps_late++;
	} else {
		ru->st.traps_stale++;
		return 0;
	}
	me = ru_index(ru, t);
	if (tr->cpu != RU_NO_CPU)
		t->cpu = tr->cpu;

	/*
	 * A held sample of an access not made yet: the owner's first trap at
	 * that instruction is the use itself (the thread resumed and made it),
	 * not a reuse. It dates the use past the stop; the watch stays.
	 */
	if (current && w->pending && me == w->owner && mode == LP_WP_RW &&
	    tr->ip >= w->use_ip && tr->ip <= w->use_ip + RU_MAX_INSN) {
		w->pending = 0;
		if (tr->thread_ns && w->use_ns && tr->thread_ns > w->use_ns &&
		    (err = ru_dbl_push(&ru->cal, tr->thread_ns - w->use_ns)))
			return err;
		if (tr->thread_ns)
			w->use_ns = tr->thread_ns;
		w->use_time = tr->time;
		ru->st.traps_use++;
		return 0;
	}
	if (ru_again(t, w, tr, me, mode)) {
		if (current)
			w->again = 1;
		else
			sl->prev.active = 0;
		if (tr->thread_ns && w->use_ns)
			w->use_ns = tr->thread_ns;
		w->use_time = tr->time;
		ru->st.traps_again++;
		return 0;
	}
	if (current)
		w->pending = 0;

	if (mode == LP_WP_RW) {
		if (w->counted && ru_count(ru, w->owner, w->owner_cpu, &now) &&
		    now > w->use_count) {
			ns = (double)(now - w->use_count);	/* accesses, the reuse's own included */
			wall = 0;
			counted = 1;
		} else if (!ru->cfg.shared && w->use_ns && tr->thread_ns &&
		    tr->thread_ns >= w->use_ns) {
			ns = (double)(tr->thread_ns - w->use_ns);
			wall = 0;
		} else {
			ns = tr->time > w->use_time ? (double)(tr->time - w->use_time) : 0;
			wall = 1;
			if (ru->cfg.shared) {
				k = ru_shared_k(ru, w);
				ns *= k;
			}
		}
		err = ru_record(ru, w, RU_REUSE, ns, wall, k);
		if (err)
			return err;
		ru->det[ru->ndet - 1].held = w->held && !wall && !counted;
		ru->det[ru->ndet - 1].counted = counted;
		ru->det[ru->ndet - 1].end_time = tr->time > w->use_time ?
						 tr->time : w->use_time;
		ru->det[ru->ndet - 1].ip = w->use_ip;
		ru->det[ru->ndet - 1].size = w->use_size;
		if (me != w->owner)
			ru->thr[w->owner].cross++;
		if (tr->slot % ru->nreg)
			ru->st.spatial++;
		else if (w->exact)
			ru->st.temporal++;
		else
			ru->st.chunk++;
		ru_pair_add(ru, w, tr->ip, 0);
	} else {
		/* counted: when the line left the owner's cache (ru_convert_run) */
		counted = w->counted && ru_count(ru, w->owner, w->owner_cpu, &now) &&
			  now > w->use_count;
		err = ru_record(ru, w, RU_INVAL, counted ? (double)(now - w->use_count) : 0, 0, 1);
		if (err)
			return err;
		ru->det[ru->ndet - 1].counted = counted;
		ru_pair_add(ru, w, tr->ip, 1);
	}
	sl->n = 1.0;
	if (!current) {	/* one decision per watch; its registers moved on */
		if (w->cens)	/* not censored after all */
			ru->cens[w->cens - 1].live = 0;
		sl->prev.active = 0;
		return 0;
	}
	return ru_disarm_slot(ru, i, tr->time, out);
}

static int ru_thread_start(struct reuse *ru, const struct lp_thread *th,
			   struct lp_actions *out)
{
	struct ru_thread *t;
	int i, err;

	if (th->index >= RU_MAX_THREADS)
		return -EINVAL;
	err = ru_threads_grow(ru, th->index + 1);
	if (err)
		return err;
	t = &ru->thr[th->index];
	if (t->started && t->live && t->tid == th->tid)
		return 0;	/* repeated start: keep its watches */
	if (t->started && t->live)
		ru->nlive--;
	memset(t, 0, sizeof(*t));
	t->tid = th->tid;
	t->pid = th->pid;
	t->cpu = th->cpu;
	t->started = t->live = 1;
	ru->nlive++;
	err = lp_map__put(&ru->tids, th->tid, th->index);
	/* it may store to (or reuse) what the active slots watch */
	for (i = 0; !err && i < ru->nwatch; i++)
		if (ru->slot[i].cur.active)
			err = ru_arm_thread(ru, i, t, th->time, out);
	return err;
}

static int ru_thread_exit(struct reuse *ru, const struct lp_thread *th,
			  struct lp_actions *out)
{
	struct ru_thread *t = ru_thread_by_tid(ru, th->tid);
	u32 me;
	int i, err;

	if (!t || !t->live)
		return 0;
	me = ru_index(ru, t);
	/* its debug registers died with it */
	t->live = 0;
	ru->nlive--;
	memset(t->mode, 0, sizeof(t->mode));
	memset(t->pmode, 0, sizeof(t->pmode));
	for (i = 0; i < ru->nwatch; i++) {
		struct ru_slot *sl = &ru->slot[i];

		if (sl->prev.active && sl->prev.owner == me && !ru->cfg.shared)
			sl->prev.active = 0;
		if (!sl->cur.active || sl->cur.owner != me || ru->cfg.shared)
			continue;
		/* private: no reuse by its owner can follow */
		err = ru_record(ru, &sl->cur, RU_COLD, 0, 0, 1);
		if (!err)
			err = ru_disarm_slot(ru, i, th->time, out);
		if (err)
			return err;
		sl->n = 1.0;
	}
	return 0;
}

int reuse__event(struct reuse *ru, const struct lp_event *ev,
		 struct lp_actions *out)
{
	switch (ev->type) {
	case LP_EV_THREAD_START:
		return ru_thread_start(ru, &ev->thread, out);
	case LP_EV_THREAD_EXIT:
		return ru_thread_exit(ru, &ev->thread, out);
	case LP_EV_SAMPLE:
		return ru_sample(ru, &ev->sample, out);
	case LP_EV_TRAP:
		return ru_trap(ru, &ev->trap, out);
	case LP_EV_COUNTER:
		ru_counter(ru, &ev->counter);
		return 0;
	default:		/* action echoes, mmaps, lost: not ours */
		return 0;
	}
}

int reuse__finish(struct reuse *ru)
{
	int i, err;

	if (ru->finished)
		return 0;
	ru->finished = 1;
	/* a use still watched at the end has no reuse in the run: infinite */
	for (i = 0; i < ru->nwatch; i++) {
		struct ru_slot *sl = &ru->slot[i];

		if (!sl->cur.active)
			continue;
		err = ru_record(ru, &sl->cur, RU_COLD, 0, 0, 1);
		if (err)
			return err;
		sl->cur.active = 0;
	}
	return 0;
}

/* ---- lifetime --------------------------------------------------------- */

static int ru_an_event(struct lp_analysis *an, const struct lp_event *ev,
		       struct lp_actions *out)
{
	return reuse__event(an->priv, ev, out);
}

static int ru_an_finish(struct lp_analysis *an)
{
	return reuse__finish(an->priv);
}

struct lp_analysis *reuse__analysis(struct reuse *ru)
{
	return &ru->an;
}

struct reuse *reuse__new(const struct reuse_config *cfg)
{
	struct reuse *ru = calloc(1, sizeof(*ru));
	int i, err;

	if (!ru) {
		errno = ENOMEM;
		return NULL;
	}
	err = ru_config_fill(&ru->cfg, cfg);
	if (err) {
		free(ru);
		errno = -err;
		return NULL;
	}
	ru->rng = ru->cfg.seed;
	ru->nreg = ru->cfg.gran == REUSE_GRAN_LINE && ru->cfg.nslots >= RU_LINE_REGS ?
		   RU_LINE_REGS : 1;
	ru->nwatch = ru->cfg.nslots / ru->nreg;
	for (i = 0; i < REUSE_MAX_SLOTS; i++)
		ru->slot[i].n = 1.0;
	for (ru->pairs_cap = 16; ru->pairs_cap < 2u * ru->cfg.max_pairs; )
		ru->pairs_cap *= 2;
	ru->pairs = calloc(ru->pairs_cap, sizeof(*ru->pairs));
	ru->stride = calloc(RU_STRIDE_CAP, sizeof(*ru->stride));
	if (!ru->pairs || !ru->stride) {
		reuse__delete(ru);
		errno = ENOMEM;
		return NULL;
	}
	ru->an.name = "reuse";
	ru->an.priv = ru;
	ru->an.event = ru_an_event;
	ru->an.finish = ru_an_finish;
	return ru;
}

void reuse__delete(struct reuse *ru)
{
	if (!ru)
		return;
	ru_result_free(ru);
	free(ru->thr);
	lp_map__exit(&ru->tids);
	free(ru->det);
	free(ru->cens);
	free(ru->drops);
	free(ru->stride);
	free(ru->rates.v);
	free(ru->cal.v);
	free(ru->spans);
	free(ru->pts);
	free(ru->pairs);
	free(ru);
}
