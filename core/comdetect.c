// SPDX-License-Identifier: GPL-2.0
/*
 * ComDetective (Sasongko 2022, ch. 5, Algorithm 1) as a pure event consumer. The
 * definitions it implements are written down in comdetect.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/comdetect-internal.h"

static u64 cd_rand(struct comdetect *cd)
{
	return lp_splitmix64(&cd->rng);
}

static int overlaps(u64 a, u64 alen, u64 b, u64 blen)
{
	return a < b + blen && b < a + alen;
}

void comdetect__config_init(struct comdetect_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->board_size = 0;	/* CD_BOARD_PER_LANE x lanes */
	cfg->nslots = 4;
	cfg->max_dr = 4;
	cfg->line_size = LP_CACHE_LINE;
	cfg->expire = 2;
	cfg->max_lines = 1024;
	cfg->lanes = 4;
	cfg->seed = 0x6c6f6369ull;	/* "loci" */
}

static int cd_config_fill(struct comdetect_config *c,
			  const struct comdetect_config *in)
{
	struct comdetect_config def;

	comdetect__config_init(&def);
	*c = in ? *in : def;
	if (!c->lanes)
		c->lanes = def.lanes;
	if (!c->board_size)	/* each lane holds as many lines as one board */
		c->board_size = CD_BOARD_PER_LANE * c->lanes;
	if (!c->nslots)
		c->nslots = def.nslots;
	if (!c->max_dr)
		c->max_dr = c->nslots;
	if (!c->line_size)
		c->line_size = def.line_size;
	if (!c->expire)
		c->expire = def.expire;
	if (!c->max_lines)
		c->max_lines = def.max_lines;
	if (!c->seed)
		c->seed = def.seed;
	if (c->board_size < 1 || c->board_size > (1 << 24) ||
	    c->nslots < 1 || c->nslots > COMDETECT_MAX_SLOTS ||
	    c->max_dr < 1 || c->expire < 1 ||
	    c->max_lines < 1 || c->max_lines > (1 << 24) ||
	    c->lanes < 1 || c->lanes > COMDETECT_MAX_LANES ||
	    c->line_size < 16 || c->line_size > 512 ||
	    (c->line_size & (c->line_size - 1)))
		return -EINVAL;
	return 0;
}

/* ---- threads ---------------------------------------------------------- */

static struct cd_thread *cd_thread_by_tid(struct comdetect *cd, u32 tid)
{
	u64 idx;

	return lp_map__get(&cd->tids, tid, &idx) ? &cd->thr[idx] : NULL;
}

static int cd_threads_grow(struct comdetect *cd, u32 n)
{
	if (n > cd->thr_cap) {
		u32 cap = cd->thr_cap ? cd->thr_cap : 16;
		struct cd_thread *v;

		while (cap < n)
			cap *= 2;
		v = realloc(cd->thr, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		memset(v + cd->thr_cap, 0, (cap - cd->thr_cap) * sizeof(*v));
		cd->thr = v;
		cd->thr_cap = cap;
	}
	if (n > cd->nthr)
		cd->nthr = n;
	return 0;
}

static void cd_cpu_seen(struct comdetect *cd, u32 cpu)
{
	if (cpu != CD_NO_CPU && cpu < CD_MAX_CPUS && cpu >= cd->ncpus)
		cd->ncpus = cpu + 1;
}

static void cd_forget_watch(struct cd_thread *t)
{
	memset(&t->w, 0, sizeof(t->w));
	memset(&t->pw, 0, sizeof(t->pw));
	memset(t->slot, 0, sizeof(t->slot));
}

static int cd_thread_start(struct comdetect *cd, const struct lp_thread *th)
{
	struct cd_thread *t;
	int err;

	if (th->index >= CD_MAX_THREADS)
		return -EINVAL;
	cd_cpu_seen(cd, th->cpu);
	err = cd_threads_grow(cd, th->index + 1);
	if (err)
		return err;
	t = &cd->thr[th->index];
	if (t->started && t->live && t->tid == th->tid)
		return 0;	/* repeated start: keep its armed slots */
	memset(t, 0, sizeof(*t));
	t->tid = th->tid;
	t->started = t->live = 1;
	return lp_map__put(&cd->tids, th->tid, th->index);
}

static void cd_thread_exit(struct comdetect *cd, const struct lp_thread *th)
{
	struct cd_thread *t = cd_thread_by_tid(cd, th->tid);

	/* its debug registers died with it: later traps are stale */
	if (t) {
		cd_forget_watch(t);
		t->live = 0;
	}
}

static u32 cd_index(struct comdetect *cd, struct cd_thread *t)
{
	return (u32)(t - cd->thr);
}

/* ---- pair matrices (sparse while running) ----------------------------- */

static int cd_pairs_add(struct cd_pairs *p, u32 a, u32 b, int is_true,
			double vol)
{
	u64 *i = lp_map__slot(&p->idx, (u64)a << 32 | b);
	struct cd_pair *q;

	if (!i)
		return -ENOMEM;
	if (!*i) {		/* new: indices are stored + 1 */
		if (p->n == p->cap) {
			u32 cap = p->cap ? p->cap * 2 : 64;
			struct cd_pair *v = realloc(p->v, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			p->v = v;
			p->cap = cap;
		}
		p->v[p->n] = (struct cd_pair){ a, b, 0, 0 };
		*i = ++p->n;
	}
	q = &p->v[*i - 1];
	if (is_true)
		q->vt += vol;
	else
		q->vf += vol;
	return 0;
}

/* ---- per-line records (bounded) --------------------------------------- */

static struct comdetect_line *cd_line_find(struct comdetect *cd, u64 line)
{
	int i = cd->buckets[lp_hash64(line) % cd->nbuckets];

	for (; i >= 0; i = cd->lines[i].next)
		if (cd->lines[i].l.line == line)
			return &cd->lines[i].l;
	return NULL;
}

static void cd_line_unlink(struct comdetect *cd, int idx)
{
	int *pp = &cd->buckets[lp_hash64(cd->lines[idx].l.line) % cd->nbuckets];

	while (*pp != idx)
		pp = &cd->lines[*pp].next;
	*pp = cd->lines[idx].next;
}

/* The line's record; creating it evicts the line with the least volume. */
static struct comdetect_line *cd_line_get(struct comdetect *cd, u64 line)
{
	struct comdetect_line *l = cd_line_find(cd, line);
	int idx, b;

	if (l)
		return l;
	if (cd->free_line >= 0) {
		idx = cd->free_line;
		cd->free_line = cd->lines[idx].next;
	} else {
		double least = 0;
		int i;

		idx = -1;
		for (i = 0; i < cd->cfg.max_lines; i++) {
			const struct comdetect_line *c = &cd->lines[i].l;
			double v = c->vol_true + c->vol_false;

			if (idx < 0 || v < least) {
				idx = i;
				least = v;
			}
		}
		cd_line_unlink(cd, idx);
		cd->st.line_evictions++;
	}
	memset(&cd->lines[idx].l, 0, sizeof(cd->lines[idx].l));
	cd->lines[idx].used = 1;
	cd->lines[idx].l.line = line;
	b = lp_hash64(line) % cd->nbuckets;
	cd->lines[idx].next = cd->buckets[b];
	cd->buckets[b] = idx;
	return &cd->lines[idx].l;
}

/* Algorithm R: each sampled access of the line kept with equal chance. */
static void cd_line_point(struct comdetect *cd, struct comdetect_line *l, u64 time,
			  u32 thread, u64 off, u64 len, u8 kind)
{
	struct comdetect_point *p;
	u64 j;

	l->points_seen++;
	if (l->npoints < COMDETECT_LINE_POINTS) {
		p = &l->points[l->npoints++];
	} else {
		j = lp_splitmix64(&cd->point_rng) % l->points_seen;
		if (j >= COMDETECT_LINE_POINTS)
			return;
		p = &l->points[j];
	}
	*p = (struct comdetect_point){ .time = time, .thread = thread, .off = off, .len = len,
				       .kind = kind };
}

static void cd_line_touch(struct comdetect *cd, struct comdetect_line *l,
			  u32 thread, u64 addr, u64 len, u8 kind, u8 src,
			  u64 ip, u64 time)
{
	u64 off = addr - l->line, L = cd->cfg.line_size;
	struct comdetect_touch *t;
	struct comdetect_ip *p;
	int i;

	if (off >= L)
		off = 0;
	if (len < 1)
		len = 1;
	if (len > L - off)
		len = L - off;
	for (i = 0; i < l->ntouches; i++) {
		t = &l->touches[i];
		if (t->thread == thread && t->off == off && t->len == len &&
		    t->kind == kind && t->src == src)
			break;
	}
	if (i < l->ntouches) {
		l->touches[i].count++;
	} else if (i < COMDETECT_LINE_TOUCHES) {
		t = &l->touches[l->ntouches++];
		t->thread = thread;
		t->off = off;
		t->len = len;
		t->kind = kind;
		t->src = src;
		t->count = 1;
	} else {
		l->touches_dropped++;
	}
	if (time)	/* a sample of the line's (not a trap, not a late publisher) */
		cd_line_point(cd, l, time, thread, off, len, kind);

	for (i = 0; i < l->nips; i++) {
		p = &l->ips[i];
		if (p->ip == ip && p->thread == thread && p->src == src)
			break;
	}
	if (i < l->nips) {
		l->ips[i].count++;
	} else if (i < COMDETECT_LINE_IPS) {
		p = &l->ips[l->nips++];
		p->ip = ip;
		p->thread = thread;
		p->src = src;
		p->count = 1;
	} else {
		l->ips_dropped++;
	}
}

/* ---- BulletinBoard ---------------------------------------------------- */

/* A line's entries in different lanes are different keys (line + lane). */
static u32 cd_board_hash(struct comdetect *cd, u64 line, u8 lane)
{
	return lp_hash64(line + lane) % (u64)cd->cfg.board_size;
}

/*
 * Linear probing within a window of CD_PROBE slots from the line's hash
 * (like a set-associative cache). Entries are never deleted, only replaced,
 * so a probe that meets an empty slot has seen every entry of its line.
 */
static u32 cd_probe_len(struct comdetect *cd)
{
	return cd->cfg.board_size < CD_PROBE ? cd->cfg.board_size : CD_PROBE;
}

static struct cd_entry *cd_board_find(struct comdetect *cd, u64 line, u8 lane)
{
	u32 n = cd->cfg.board_size, h = cd_board_hash(cd, line, lane), i;
	u32 w = cd_probe_len(cd);

	for (i = 0; i < w; i++, h = (h + 1 == n) ? 0 : h + 1) {
		if (!cd->board[h].used)
			return NULL;
		if (cd->board[h].line == line && cd->board[h].lane == lane)
			return &cd->board[h];
	}
	return NULL;
}

/* Its publisher has taken @expire more store samples since. */
static int cd_entry_expired(struct comdetect *cd, const struct cd_entry *e)
{
	return cd->thr[e->pub].nstores - e->store_epoch >= (u64)cd->cfg.expire;
}

/* Published since @t's previous sample. */
static int cd_entry_recent(const struct cd_thread *t, const struct cd_entry *e)
{
	return e->seq > t->seq_prev;
}

/* May @t's store replace @e (Algorithm 1 line 22)? */
static int cd_entry_replaceable(struct comdetect *cd, const struct cd_thread *t,
				const struct cd_entry *e)
{
	return cd_entry_expired(cd, e) || e->seq < t->store_seq_prev;
}

static void cd_publish(struct comdetect *cd, struct cd_thread *t,
		       struct cd_entry *e, const struct lp_sample *s, u64 line,
		       u8 lane, u64 len)
{
	if (!e) {
		u32 n = cd->cfg.board_size, h = cd_board_hash(cd, line, lane);
		u32 i, w = cd_probe_len(cd);
		struct cd_entry *old = NULL;

		for (i = 0; i < w; i++, h = (h + 1 == n) ? 0 : h + 1) {
			if (!cd->board[h].used)
				break;
			if (!old || cd->board[h].seq < old->seq)
				old = &cd->board[h];
		}
		if (i < w) {
			e = &cd->board[h];
		} else {	/* window full: its oldest entry goes if old */
			if (!cd_entry_replaceable(cd, t, old)) {
				cd->st.board_drops++;
				return;
			}
			cd->st.board_evictions++;
			e = old;
		}
	}
	e->used = 1;
	e->line = line;
	e->lane = lane;
	e->addr = s->addr;
	e->len = len > 255 ? 255 : len;
	e->kind = s->kind;
	e->ip = s->ip;
	e->cpu = s->cpu;
	e->seq = t->seq_cur;
	e->store_epoch = t->nstores;
	e->time = s->time;
	e->pub = cd_index(cd, t);
	e->touched = cd_line_find(cd, line) != NULL;
	e->seen = 1ull << (e->pub & 63);
	cd->st.publishes++;
}

/* ---- running together --------------------------------------------------- */

/* Was @t running (sampling at its usual rate) at @now? */
static int cd_running(const struct cd_thread *t, u64 now)
{
	return t->tau > 0 && now >= t->t_last &&
	       (double)(now - t->t_last) <= CD_RUN_GAP * t->tau;
}

/*
 * Did @me run through the interval that ends with this sample, and is
 * @pub running now? A lookup across a descheduling gap (threads time-
 * sliced on one CPU) stands for one line transfer per turn, not for a
 * period's worth: it is not counted (Documentation/algorithms.md).
 */
static int cd_together(const struct cd_thread *me, const struct cd_thread *pub,
		       u64 now)
{
	return cd_running(me, now) && cd_running(pub, now);
}

/*
 * Was @e published before @me last resumed (its first sample after not
 * running)? Then @me looks at the line for the first time in its turn
 * and the store is from the publisher's previous turn or from while @me
 * was off: the line moves once per turn, and whether the publisher or @me
 * touched it last is a coin toss, so the hit counts half a period.
 * Counted in full these pulled the false fraction toward 0.5 where turns
 * are short; dropped, away from it (Documentation/algorithms.md, "Live
 * false fraction").
 */
static int cd_resumed_since(const struct cd_thread *me, const struct cd_entry *e)
{
	return e->time < me->run_start;
}

/* After @t's sample at @now: its usual interval, skipping gaps. */
static void cd_tau_update(struct cd_thread *t, u64 now)
{
	double dt;

	if (t->nsamples > 1 && now >= t->t_last) {
		dt = (double)(now - t->t_last);
		if (!t->tau || ++t->long_gaps >= CD_TAU_RESET) {
			t->tau = dt;
			t->long_gaps = 0;
		} else if (dt <= CD_TAU_OUTLIER * t->tau) {
			t->tau += (dt - t->tau) / 8;
			t->long_gaps = 0;
		}
	}
	t->t_last = now;
}

/* ---- communication ---------------------------------------------------- */

static int cd_communicate(struct comdetect *cd, u32 pub, u32 me, u32 pub_cpu,
			  u32 my_cpu, u64 line, int is_true, double vol)
{
	struct comdetect_line *l;
	int err;

	err = cd_pairs_add(&cd->tpairs, pub, me, is_true, vol);
	if (err)
		return err;
	if (pub_cpu != CD_NO_CPU && my_cpu != CD_NO_CPU &&
	    pub_cpu < CD_MAX_CPUS && my_cpu < CD_MAX_CPUS) {
		if (pub_cpu == my_cpu)
			cd->same_cpu_volume += vol;
		else if ((err = cd_pairs_add(&cd->cpairs, pub_cpu, my_cpu,
					     is_true, vol)))
			return err;
	}
	l = cd_line_get(cd, line);
	if (is_true)
		l->vol_true += vol;
	else
		l->vol_false += vol;
	l->detections++;
	return 0;
}

static int cd_push(struct lp_actions *out, u8 op, u32 tid, u8 slot, u64 addr,
		   u64 cookie, u64 time)
{
	struct lp_action a = {
		.op = op, .slot = slot, .tid = tid, .addr = addr,
		.cookie = cookie, .time = time,
	};

	if (op == LP_ACT_ARM) {
		a.mode = LP_WP_RW;
		a.len = COMDETECT_WP_LEN;
	}
	return out ? lp_actions__push(out, &a) : 0;
}

/* Keep the current watch as the previous one before it is replaced. */
static void cd_retire(struct cd_thread *t)
{
	if (!t->w.active)
		return;
	t->pw = t->w;
	memcpy(t->pslot, t->slot, sizeof(t->pslot));
}

static int cd_disarm_all(struct comdetect *cd, struct cd_thread *t, u64 time,
			 struct lp_actions *out, int retire)
{
	int i, err;

	if (retire)
		cd_retire(t);

	for (i = 0; i < cd->cfg.nslots; i++) {
		if (!t->slot[i].armed)
			continue;
		err = cd_push(out, LP_ACT_DISARM, t->tid, i, t->slot[i].addr,
			      t->slot[i].cookie, time);
		if (err)
			return err;
		t->slot[i].armed = 0;
		cd->st.disarm_actions++;
	}
	t->w.active = 0;
	return 0;
}

/* TryArmWatchpoint (Algorithm 1): arm own registers on another's line. */
static int cd_try_arm(struct comdetect *cd, struct cd_thread *t,
		      const struct lp_sample *s, u64 period,
		      struct lp_actions *out)
{
	u32 n = cd->cfg.board_size, me = cd_index(cd, t), h, i;
	u8 chunks[512 / COMDETECT_WP_LEN];
	u32 nchunks = cd->cfg.line_size / COMDETECT_WP_LEN;
	struct cd_entry *e = NULL;
	int err;

	if (t->w.active && t->nsamples - t->w.armed_epoch < (u64)cd->cfg.expire)
		return 0;	/* current watchpoints are recent */

	h = cd_rand(cd) % n;
	for (i = 0; i < n; i++, h = (h + 1 == n) ? 0 : h + 1) {
		struct cd_entry *c = &cd->board[h];

		if (c->used && c->pub != me && cd_entry_recent(t, c) &&
		    !cd_entry_expired(cd, c)) {
			e = c;
			break;
		}
	}
	if (!e)
		return t->w.active ? cd_disarm_all(cd, t, s->time, out, 1) : 0;

	cd_retire(t);

	for (i = 0; i < nchunks; i++)
		chunks[i] = i;
	for (i = 0; i < (u32)cd->ndr; i++) {	/* partial Fisher-Yates */
		u32 j = i + cd_rand(cd) % (nchunks - i);
		u8 tmp = chunks[i];

		chunks[i] = chunks[j];
		chunks[j] = tmp;
	}
	for (i = 0; i < (u32)cd->cfg.nslots; i++) {
		struct cd_slot *sl = &t->slot[i];

		if (i < (u32)cd->ndr) {
			/* ARM on an armed slot moves it (lp_action) */
			sl->addr = e->line + (u64)chunks[i] * COMDETECT_WP_LEN;
			sl->cookie = ++cd->cookie_gen << 8 | i;
			sl->armed = 1;
			err = cd_push(out, LP_ACT_ARM, t->tid, i, sl->addr,
				      sl->cookie, s->time);
			cd->st.arm_actions++;
		} else if (sl->armed) {
			err = cd_push(out, LP_ACT_DISARM, t->tid, i, sl->addr,
				      sl->cookie, s->time);
			sl->armed = 0;
			cd->st.disarm_actions++;
		} else {
			err = 0;
		}
		if (err)
			return err;
	}
	t->w.active = 1;
	t->w.line = e->line;
	t->w.pub = e->pub;
	t->w.pub_addr = e->addr;
	t->w.pub_len = e->len;
	t->w.pub_kind = e->kind;
	t->w.pub_ip = e->ip;
	t->w.pub_cpu = e->cpu;
	t->w.pub_seq = e->seq;
	t->w.pub_touched = e->touched;
	t->w.pub_lane = e->lane;
	t->w.armed_epoch = t->nsamples;
	t->w.ndr = cd->ndr;
	t->w.period = period;
	cd->st.armings++;
	return 0;
}

static int cd_sample(struct comdetect *cd, const struct lp_sample *s,
		     struct lp_actions *out)
{
	u64 L = cd->cfg.line_size, line, len, period;
	struct comdetect_line *l;
	struct cd_thread *t;
	struct cd_entry *e;
	int is_store, err;
	u8 lane;
	u32 me;

	cd->st.samples++;
	if (s->noaddr != LP_NOADDR_NONE || s->kind == LP_ACCESS_NONE ||
	    s->kind > LP_ACCESS_ATOMIC) {
		cd->st.samples_noaddr++;
		return 0;
	}
	t = cd_thread_by_tid(cd, s->tid);
	if (!t || !t->live) {
		cd->st.samples_unknown++;
		return 0;
	}
	me = cd_index(cd, t);
	cd_cpu_seen(cd, s->cpu);
	cd->st.samples_used++;
	is_store = s->kind != LP_ACCESS_LOAD;	/* atomics count as stores */

	t->seq_prev = t->seq_cur;
	t->seq_cur = ++cd->seq;
	t->nsamples++;
	if (is_store) {
		t->store_seq_prev = t->store_seq_cur;
		t->store_seq_cur = t->seq_cur;
		t->nstores++;
		cd->st.stores++;
	} else {
		cd->st.loads++;
	}

	line = s->addr & ~(L - 1);
	len = s->size ? s->size : 1;
	period = cd->cfg.period ? cd->cfg.period : s->period ? s->period : 1;

	if (!cd_running(t, s->time))
		t->run_start = s->time;	/* resumed (or its first sample) */
	lane = cd->cfg.lanes > 1 ? cd_rand(cd) % cd->cfg.lanes : 0;
	e = cd_board_find(cd, line, lane);
	if (e && e->pub != me && !(e->seen & (1ull << (me & 63))) &&
	    !cd_together(t, &cd->thr[e->pub], s->time) &&
	    (cd->st.hits_apart++, !cd->cfg.count_apart)) {
		e->seen |= 1ull << (me & 63);
	} else if (e && e->pub != me && !(e->seen & (1ull << (me & 63)))) {
		int is_true = overlaps(s->addr, len, e->addr, e->len);
		double vol = (double)period;

		if (!cd->cfg.count_apart && cd_resumed_since(t, e)) {
			vol /= 2;
			cd->st.hits_resumed++;
		}
		err = cd_communicate(cd, e->pub, me, e->cpu, s->cpu, line,
				     is_true, vol);
		if (err)
			return err;
		if (!e->touched) {
			l = cd_line_find(cd, line);
			cd_line_touch(cd, l, e->pub, e->addr, e->len, e->kind,
				      COMDETECT_SRC_SAMPLE, e->ip, 0);
			e->touched = 1;
		}
		e->seen |= 1ull << (me & 63);
		cd->st.hits++;
	} else {
		err = cd_try_arm(cd, t, s, period, out);
		if (err)
			return err;
	}

	/* a tracked line records every sampled access, like perf c2c */
	l = cd_line_find(cd, line);
	if (l)
		cd_line_touch(cd, l, me, s->addr, len, s->kind,
			      COMDETECT_SRC_SAMPLE, s->ip, s->time ? s->time : 1);

	cd_tau_update(t, s->time);
	if (is_store)
		cd_publish(cd, t, e, s, line, lane, len);
	return 0;
}

static int cd_trap(struct comdetect *cd, const struct lp_trap *tr,
		   struct lp_actions *out)
{
	struct cd_thread *t = cd_thread_by_tid(cd, tr->tid);
	struct comdetect_line *l;
	struct cd_watch *w;
	struct cd_entry *e;
	struct cd_slot *sl;
	double vol;
	int is_true, err, current;
	u32 me;

	cd->st.traps++;
	if (!t || !t->live || tr->slot >= cd->cfg.nslots) {
		cd->st.traps_stale++;
		return 0;
	}
	if (t->w.active && t->slot[tr->slot].armed &&
	    t->slot[tr->slot].cookie == tr->cookie) {
		current = 1;
		w = &t->w;
		sl = &t->slot[tr->slot];
	} else if (t->pw.active && t->pslot[tr->slot].armed &&
		   t->pslot[tr->slot].cookie == tr->cookie) {
		current = 0;
		w = &t->pw;
		sl = &t->pslot[tr->slot];
		cd->st.traps_late++;
	} else {
		cd->st.traps_stale++;
		return 0;
	}
	me = cd_index(cd, t);
	cd_cpu_seen(cd, tr->cpu);

	/* Sasongko 2022, 5.3.2: each trap stands for period x L / (D x M) events */
	vol = (double)w->period * cd->cfg.line_size /
	      ((double)w->ndr * COMDETECT_WP_LEN);
	is_true = overlaps(sl->addr, COMDETECT_WP_LEN, w->pub_addr, w->pub_len);
	err = cd_communicate(cd, w->pub, me, w->pub_cpu, tr->cpu, w->line,
			     is_true, vol);
	if (err)
		return err;
	cd->st.trap_hits++;

	l = cd_line_find(cd, w->line);
	e = cd_board_find(cd, w->line, w->pub_lane);
	if (e && e->seq != w->pub_seq)
		e = NULL;
	if (!(e ? e->touched : w->pub_touched)) {
		cd_line_touch(cd, l, w->pub, w->pub_addr, w->pub_len,
			      w->pub_kind, COMDETECT_SRC_SAMPLE, w->pub_ip, 0);
		if (e)
			e->touched = 1;
	}
	cd_line_touch(cd, l, me, sl->addr, COMDETECT_WP_LEN, LP_ACCESS_NONE,
		      COMDETECT_SRC_TRAP, tr->ip, 0);

	if (!current) {	/* one detection per watch; its registers moved on */
		t->pw.active = 0;
		return 0;
	}
	/* later accesses to the line are served locally: stop watching it */
	return cd_disarm_all(cd, t, tr->time, out, 0);
}

int comdetect__event(struct comdetect *cd, const struct lp_event *ev,
		     struct lp_actions *out)
{
	switch (ev->type) {
	case LP_EV_THREAD_START:
		return cd_thread_start(cd, &ev->thread);
	case LP_EV_THREAD_EXIT:
		cd_thread_exit(cd, &ev->thread);
		return 0;
	case LP_EV_SAMPLE:
		return cd_sample(cd, &ev->sample, out);
	case LP_EV_TRAP:
		return cd_trap(cd, &ev->trap, out);
	default:		/* action echoes, mmaps, counters: not ours */
		return 0;
	}
}

int comdetect__finish(struct comdetect *cd)
{
	cd->finished = 1;
	return 0;
}

/* ---- lifetime --------------------------------------------------------- */

static int cd_an_event(struct lp_analysis *an, const struct lp_event *ev,
		       struct lp_actions *out)
{
	return comdetect__event(an->priv, ev, out);
}

static int cd_an_finish(struct lp_analysis *an)
{
	return comdetect__finish(an->priv);
}

struct lp_analysis *comdetect__analysis(struct comdetect *cd)
{
	return &cd->an;
}

struct comdetect *comdetect__new(const struct comdetect_config *cfg)
{
	struct comdetect *cd = calloc(1, sizeof(*cd));
	int i, err;

	if (!cd) {
		errno = ENOMEM;
		return NULL;
	}
	err = cd_config_fill(&cd->cfg, cfg);
	if (err) {
		free(cd);
		errno = -err;
		return NULL;
	}
	cd->ndr = cd->cfg.nslots;
	if (cd->ndr > cd->cfg.max_dr)
		cd->ndr = cd->cfg.max_dr;
	if (cd->ndr > cd->cfg.line_size / COMDETECT_WP_LEN)
		cd->ndr = cd->cfg.line_size / COMDETECT_WP_LEN;
	cd->rng = cd->cfg.seed;
	cd->point_rng = cd->cfg.seed ^ 0x9e3779b97f4a7c15ull;
	cd->free_line = -1;
	cd->nbuckets = cd->cfg.max_lines * 2 + 1;
	cd->board = calloc(cd->cfg.board_size, sizeof(*cd->board));
	cd->lines = calloc(cd->cfg.max_lines, sizeof(*cd->lines));
	cd->buckets = malloc(cd->nbuckets * sizeof(*cd->buckets));
	if (!cd->board || !cd->lines || !cd->buckets) {
		comdetect__delete(cd);
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < cd->nbuckets; i++)
		cd->buckets[i] = -1;
	for (i = cd->cfg.max_lines - 1; i >= 0; i--) {
		cd->lines[i].next = cd->free_line;
		cd->free_line = i;
	}
	cd->an.name = "comdetect";
	cd->an.priv = cd;
	cd->an.event = cd_an_event;
	cd->an.finish = cd_an_finish;
	return cd;
}

void comdetect__delete(struct comdetect *cd)
{
	if (!cd)
		return;
	cd_result_free(cd);
	free(cd->board);
	free(cd->thr);
	lp_map__exit(&cd->tids);
	free(cd->tpairs.v);
	free(cd->cpairs.v);
	lp_map__exit(&cd->tpairs.idx);
	lp_map__exit(&cd->cpairs.idx);
	free(cd->lines);
	free(cd->buckets);
	free(cd);
}
