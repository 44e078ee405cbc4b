// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <sys/mman.h>
#ifdef __x86_64__
#include <immintrin.h>
#endif

#include "core/hash.h"
#include "core/reuse-exact.h"

#define NO_SLOT		UINT32_MAX
#define FREE_SLOT	(UINT32_MAX - 1)	/* an unused table entry */
#define MAX_SLOTS	((u32)1 << 31)
#define DEFAULT_SLOTS	65536

/*
 * Latest access of one address in one stream: 16 bytes, four to a cache
 * line, so the table (the one structure that does not stay in cache) is
 * two thirds of what 24 bytes made it, and a probe never straddles lines.
 * The stream time is kept modulo 2^32: exact while the latest access is
 * less than 2^32 accesses back, and compaction (at least every 2^31
 * accesses of the stream) moves the live entries older than 2^31 to a
 * side table at full width (struct stream's old; opts.seq_bits narrows
 * the width so a unit test reaches it). The thread of the latest
 * access is the stream's own in PER_THREAD mode, and in SHARED mode is
 * kept beside the table (etab.thr) only once a second thread appears.
 */
struct ent {
	u64 key;
	u32 slot;		/* its slot on the time axis, NO_SLOT once invalidated, FREE_SLOT: unused */
	u32 seq;		/* stream time of the latest access, modulo 2^32 */
};

/* Open addressing, linear probing, no deletions. */
struct etab {
	struct ent *v;
	u32 *thr;		/* SHARED, two threads or more: thread index of each latest access */
	int track_thr;		/* keep thr */
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

/*
 * One stream's time axis: slot i holds a marker iff the latest access of
 * some key sits there. The markers are a bitmap, counted by a tree of
 * fixed depth over its 64-bit words (see "time axis" below), so the
 * structure is about cap/8 + cap/32 bytes (cap up to 5 x the live keys:
 * about 80 KiB per 100k) and stays in cache while the key table cannot:
 * a reuse costs one table probe, one popcount and one pass down a few
 * tree levels, with no branch that depends on the data.
 */
#define TREE_MAX_LVL	7	/* 2^(10 + 4 x 5) words > MAX_SLOTS / 64 */

struct stream {
	u64 seq;		/* accesses so far */
	u64 nlive;		/* markers set */
	u32 cap;		/* slots */
	u32 next;		/* next free slot */
	u32 nblk;		/* bitmap words */
	u32 alloc_blk;		/* words allocated */
	u32 fw_hi;		/* words [0, fw_hi) are in the tree */
	u32 nlvl;		/* tree levels */
	u32 lvl_off[TREE_MAX_LVL];	/* where level l starts in tree, bytes */
	u64 tree_alloc;		/* tree bytes allocated */
	u64 tail_live;		/* markers in word fw_hi (the one next falls in) */
	u64 *mark;		/* bitmap: slot holds a marker */
	u8 *tree;		/* the tree's counts, levels one after the other */
	u32 *rank;		/* compaction: markers before each word */
	struct etab tab;
	/* live keys whose latest access is 2^31 or more back: key -> its full time */
	struct lp_map old;
	/*
	 * SHARDS with hot keys: the markers of hot keys again, on the same
	 * slots (a subset of mark), with their own tree; the tail word is
	 * the same one.
	 */
	int hot_axis;
	u8 narrow;		/* 32 - opts.seq_bits (tests), else 0 */
	u64 hnlive, htail_live;
	u64 *hmark;
	u8 *htree;
};

/*
 * SHARDS with hot keys: a count-min sketch (saturating 4-bit counters, 2
 * a key, halved every HOT_AGE accesses) over a random 1 in HOT_SUB of all
 * accesses (a gap of 1 to 2 HOT_SUB - 1 accesses drawn after each one
 * counted, so no period in the trace hides a key); a key whose two
 * counters reach HOT_THRESH joins the hot set (an open-addressing table of
 * key + 1) until it holds opts.hot_keys keys. In steady state a key seen
 * at frequency f counts about 2 f HOT_AGE / HOT_SUB, so the threshold is
 * met from f ~ 1.5e-5 (less where other keys share its counters), after
 * about HOT_THRESH x HOT_SUB / f accesses. The 2^HOT_CM_BITS counters
 * are as many as leaves the other keys' background (2^18 counts a window,
 * 2 a key, over 2^19 counters: 2 in steady state) well below the
 * threshold. A key's two counters share a 64-byte line (two different
 * nibbles of it, both drawn by the hash): one cache miss a count, not two,
 * and as independent as two rows for keys drawn at random. 4 bits a
 * counter (the threshold is 8) give twice the counters and twice the
 * window in the 256 KiB that 2^18 8-bit counters over 2^20 accesses took:
 * on the Zipf bench trace 6567 keys turn hot instead of 3980, and the
 * curve's error at R = 0.03 drops from 0.0055 / 0.0121 (mean / max over 8
 * salts) to 0.0046 / 0.0098 with up to 8192 hot keys.
 */
#define HOT_SUB_BITS	3
#define HOT_SUB		(1U << HOT_SUB_BITS)
#define HOT_CM_BITS	19
#define HOT_AGE		(1ULL << 21)
#define HOT_CM_BYTES	(1 << (HOT_CM_BITS - 1))	/* 4-bit counters */
#define HOT_THRESH	8
/*
 * A bit per hash class (the top bits of the hash, as the sample's): may a
 * key of the class be hot or sampled? Set for the classes the sample
 * rate takes and for every hot key's, so one bit test lets most accesses
 * by. The same for hot keys alone, in front of the hot table.
 */
#define HOT_FILT_BITS	14
#define HOT_CLASS(hash)	((hash) >> (64 - HOT_FILT_BITS))

struct hot {
	u64 *keys;		/* key + 1; 0: free */
	u64 mask;
	u32 n, max;
	u8 *cm;			/* 2^HOT_CM_BITS counters, 64-byte aligned */
	u64 filt[(1 << HOT_FILT_BITS) / 64];	/* set: a hot or sampled key may have that class */
	u64 hfilt[(1 << HOT_FILT_BITS) / 64];	/* set: a hot key may have that class */
	u64 seen;		/* accesses seen, all threads */
	u64 next;		/* the next access counted in the sketch (seen then) */
	u64 rng;		/* draws the gaps between them */
	u64 age_next;		/* seen at the next halving */
	u64 first, last;	/* seen when the first and last key became hot */
	u64 unsampled;		/* hot keys its hash does not sample */
	double scale;		/* all keys / sampled keys, refreshed */
	u64 scale_next;		/* seen at the next refresh */
	u64 tick_at;		/* the earlier of age_next and scale_next */
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
	int sampled;		/* SHARDS */
	u64 thresh;		/* a key is sampled iff shards_hash(key) < thresh */
	u64 salt;		/* SHARDS: hashed with every key */
	double weight;		/* 1 / rate: what one sampled access stands for */
	int finished;		/* reuse_exact__finish() adjusted the histograms */
	u8 *hll;		/* SHARDS: HyperLogLog registers of all keys */
	struct sdist *sd;	/* SHARDS: per thread, sampled distances unscaled */
	double keys_est;	/* finish: distinct keys, estimated */
	u64 keys_sampled;	/* finish: distinct keys sampled */
	struct hot *hot;	/* SHARDS with hot keys, else NULL */
};

/*
 * SHARDS: the curve's sampled distances below SDIST_MAX are counted as they
 * are (small integers) and scaled at finish by all keys / sampled keys,
 * the share actually sampled, not 1/rate: a sweep's one step then lands
 * where it is, not up to a few % off with the sample of keys.
 */
#define SDIST_MAX	(1U << 20)

/*
 * With hot keys, a distance is hd + sd x scale (hd hot keys, sd sampled
 * others in between): kept as x = sd + hd / (the scale then), so the
 * scale applied is the final one too, in steps of 1/SDIST_HOT_RES up to
 * SDIST_HOT_FINE and of 1 above (less than 1/2^10 of x there). Steps of
 * 1/4 all the way made the array 4 x plain SHARDS's, 2 MiB at 5e4 keys
 * sampled, and its one random update per sampled reuse missed the L2
 * cache.
 */
#define SDIST_HOT_RES	4
#define SDIST_HOT_FINE	1024

/* The count that holds x. */
static inline __attribute__((always_inline)) u64 sdist_hot__index(double x)
{
	return x < SDIST_HOT_FINE ? (u64)(x * SDIST_HOT_RES + 0.5) :
	       (SDIST_HOT_RES - 1) * SDIST_HOT_FINE + (u64)(x + 0.5);
}

/* The x count @k holds. */
static double sdist_hot__x(u64 k)
{
	return k < SDIST_HOT_RES * SDIST_HOT_FINE ? (double)k / SDIST_HOT_RES :
	       (double)(k - (SDIST_HOT_RES - 1) * SDIST_HOT_FINE);
}

struct sdist {
	double *n;		/* n[d]: weight of the sampled reuses at sampled distance d */
	u32 cap;
};

#define SHARDS_BITS	24
/* its own salt, so the sample does not select key-table buckets */
#define SHARDS_SALT	0x5ad5a3b1e0f9c2d7ull
#define HLL_BITS	16

/*
 * One hash per access decides the sample (its top 24 bits) and feeds a
 * HyperLogLog of all the keys (index: the low 16 bits, rank: the next
 * 24), so the sampled share of the distinct keys is known at the end.
 */
static inline __attribute__((always_inline)) u64 shards_hll(struct reuse_exact *re, u64 h)
{
	u8 *r = &re->hll[h & ((1 << HLL_BITS) - 1)];
	u8 rank = __builtin_ctzll((h >> HLL_BITS) | (1ULL << 24)) + 1;

	if (rank > *r)
		*r = rank;
	return h;
}

static inline u64 shards_hash_full(struct reuse_exact *re, u64 key)
{
	return shards_hll(re, lp_hash64(key ^ re->salt));
}

static inline u64 shards_hash(struct reuse_exact *re, u64 key)
{
	return shards_hash_full(re, key) >> (64 - SHARDS_BITS);
}

/* Distinct keys (Flajolet et al. 2007, with linear counting when small). */
static double hll__estimate(const u8 *reg)
{
	double m = 1 << HLL_BITS, sum = 0, e, pow2[256];
	int i, zeros = 0;

	/* the same exact powers as ldexp() per register, 256 calls instead of 65536 */
	for (i = 0; i < 256; i++)
		pow2[i] = ldexp(1, -i);
	for (i = 0; i < 1 << HLL_BITS; i++) {
		sum += pow2[reg[i]];
		zeros += !reg[i];
	}
	e = 0.7213 / (1 + 1.079 / m) * m * m / sum;
	if (e <= 2.5 * m && zeros)
		e = m * log(m / zeros);
	return e;
}

/* ---- SHARDS with hot keys: which keys are hot ---- */

static int hot__new(struct hot **hp, u32 max, double weight, u64 seed, u64 thresh)
{
	struct hot *h = calloc(1, sizeof(*h));
	u64 cap = 16, c;

	if (!h)
		return -ENOMEM;
	while (cap < 2 * (u64)max)
		cap *= 2;
	h->keys = calloc(cap, sizeof(*h->keys));
	h->cm = aligned_alloc(64, HOT_CM_BYTES);
	if (!h->keys || !h->cm) {
		free(h->keys);
		free(h->cm);
		free(h);
		return -ENOMEM;
	}
	memset(h->cm, 0, HOT_CM_BYTES);
	h->mask = cap - 1;
	h->max = max;
	h->age_next = HOT_AGE;
	h->rng = seed;
	/* the classes of sampled keys: a key is sampled iff hash >> 40 < thresh */
	for (c = 0; c < 1 << HOT_FILT_BITS &&
		    c << (SHARDS_BITS - HOT_FILT_BITS) < thresh; c++)
		h->filt[c / 64] |= 1ULL << (c % 64);
	h->scale = weight;
	h->scale_next = 1 << 10;
	h->tick_at = h->scale_next;
	*hp = h;
	return 0;
}

static void hot__delete(struct hot *h)
{
	if (!h)
		return;
	free(h->keys);
	free(h->cm);
	free(h);
}

static inline __attribute__((always_inline)) int hot__find(const struct hot *h, u64 key, u64 hash)
{
	u64 i, b = HOT_CLASS(hash);

	if (!(h->hfilt[b / 64] >> (b % 64) & 1))
		return 0;
	for (i = (hash >> 4) & h->mask; h->keys[i]; i = (i + 1) & h->mask)
		if (h->keys[i] == key + 1)
			return 1;
	return 0;
}

/* Accesses from one counted in the sketch to the next: 1 to 2 HOT_SUB - 1. */
static inline __attribute__((always_inline)) u64 hot__gap(struct hot *h)
{
	return 1 + (((lp_splitmix64(&h->rng) >> 32) * (2 * HOT_SUB - 1)) >> 32);
}

/*
 * Count an access to a key not hot (hash @hash) in the sketch; 1 if that
 * makes it hot (hot__add() it, in its turn).
 */
static inline __attribute__((always_inline)) int hot__count(struct hot *h, u64 key, u64 hash)
{
	u8 *line = &h->cm[(hash & ((1 << (HOT_CM_BITS - 7)) - 1)) * 64];
	u64 b0 = (hash >> 20) % 128, b1 = (b0 + 1 + (hash >> 27) % 64) % 128;	/* b1 != b0 */
	u32 s0 = b0 % 2 * 4, s1 = b1 % 2 * 4, c0, c1;

	/* 128 counters of 4 bits a line, saturating at 15; b0 and b1 may share a byte */
	c0 = line[b0 / 2] >> s0 & 15;
	c0 += c0 < 15;
	line[b0 / 2] = (line[b0 / 2] & ~(15u << s0)) | c0 << s0;
	c1 = line[b1 / 2] >> s1 & 15;
	c1 += c1 < 15;
	line[b1 / 2] = (line[b1 / 2] & ~(15u << s1)) | c1 << s1;
	return c0 >= HOT_THRESH && c1 >= HOT_THRESH && key != UINT64_MAX;
}

/* @key (hash @hash) is hot from the access after the @seen-th on. */
static void hot__add(struct hot *h, u64 key, u64 hash, u64 seen)
{
	u64 i, b = HOT_CLASS(hash);

	for (i = (hash >> 4) & h->mask; h->keys[i]; i = (i + 1) & h->mask)
		;
	h->keys[i] = key + 1;
	h->filt[b / 64] |= 1ULL << (b % 64);
	h->hfilt[b / 64] |= 1ULL << (b % 64);
	if (!h->n++)
		h->first = seen;
	h->last = seen;
}

/* Halve the sketch every HOT_AGE accesses: it counts recent ones. */
static void hot__age(struct hot *h)
{
	typedef u64 __attribute__((may_alias)) u64a;
	u64a *w = (u64a *)h->cm;
	u32 i;

	/* 16 counters a word */
	for (i = 0; i < HOT_CM_BYTES / 8; i++)
		w[i] = (w[i] >> 1) & 0x7777777777777777ull;
	h->age_next += HOT_AGE;
}

/* ---- address -> latest access ---- */

/*
 * Big tables are probed at random: back them with huge pages where the
 * kernel allows (THP "madvise"), so a probe is a cache miss and not also a
 * TLB miss (a page walk per access, worse under virtualization).
 */
#define HUGE_SZ	(2UL << 20)

/* 2 MiB-aligned, so every part of the table can be a huge page. */
static void *big__alloc(size_t size)
{
	size_t len = size + HUGE_SZ;
	u8 *p, *a;

	if (size < HUGE_SZ)
		return malloc(size);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	a = (u8 *)(((unsigned long)p + HUGE_SZ - 1) & ~(HUGE_SZ - 1));
	if (a > p)
		munmap(p, a - p);
	if (a + size < p + len)
		munmap(a + size, p + len - (a + size));
	madvise(a, size, MADV_HUGEPAGE);
	return a;
}

static void big__free(void *p, size_t size)
{
	if (size < HUGE_SZ)
		free(p);
	else if (p)
		munmap(p, size);
}

static void etab__free(struct etab *t)
{
	if (t->v)
		big__free(t->v, (t->mask + 1) * sizeof(*t->v));
	free(t->thr);
}

static int etab__grow(struct etab *t)
{
	u64 cap = t->v ? (t->mask + 1) * 2 : 1024, i;
	struct ent *v = big__alloc(cap * sizeof(*v));
	u32 *thr = NULL;

	if (!v)
		return -ENOMEM;
	if (t->track_thr && !(thr = calloc(cap, sizeof(*thr)))) {
		big__free(v, cap * sizeof(*v));
		return -ENOMEM;
	}
	for (i = 0; i < cap; i++)
		v[i].slot = FREE_SLOT;
	if (t->v) {
		for (i = 0; i <= t->mask; i++) {
			u64 j;

			if (t->v[i].slot == FREE_SLOT)
				continue;
			j = lp_hash64(t->v[i].key) & (cap - 1);
			while (v[j].slot != FREE_SLOT)
				j = (j + 1) & (cap - 1);
			v[j] = t->v[i];
			if (thr && t->thr)
				thr[j] = t->thr[i];
		}
		big__free(t->v, (t->mask + 1) * sizeof(*t->v));
		free(t->thr);
	}
	t->v = v;
	t->thr = thr;
	t->mask = cap - 1;
	return 0;
}

/* SHARED, a second thread: every entry so far is thread index 0's. */
static int etab__track_threads(struct etab *t)
{
	t->track_thr = 1;
	if (t->thr || !t->v)
		return 0;
	t->thr = calloc(t->mask + 1, sizeof(*t->thr));
	return t->thr ? 0 : -ENOMEM;
}

static struct ent *etab__find(const struct etab *t, u64 key)
{
	u64 i;

	if (!t->v)
		return NULL;
	for (i = lp_hash64(key) & t->mask;; i = (i + 1) & t->mask) {
		if (t->v[i].slot == FREE_SLOT)
			return NULL;
		if (t->v[i].key == key)
			return &t->v[i];
	}
}

/* Find @key (hash @h) or add it (slot NO_SLOT). */
static inline __attribute__((always_inline)) int etab__get(struct etab *t, u64 key, u64 h,
			    struct ent **ep, int *is_new)
{
	struct ent *e;
	u64 i;

	if (t->v) {
		for (i = h & t->mask;; i = (i + 1) & t->mask) {
			e = &t->v[i];
			if (e->slot == FREE_SLOT)
				break;
			if (e->key == key) {
				*is_new = 0;
				*ep = e;
				return 0;
			}
		}
	}
	if (!t->v || (t->n + 1) * 8 > (t->mask + 1) * 5) {
		int err = etab__grow(t);

		if (err)
			return err;
	}
	for (i = h & t->mask; t->v[i].slot != FREE_SLOT; i = (i + 1) & t->mask)
		;
	e = &t->v[i];
	e->key = key;
	e->slot = NO_SLOT;	/* also marks the entry used */
	e->seq = 0;
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

/* ---- time axis: marker bitmap + a tree of counts over its words ---- */

/*
 * An entry of the tree stands for a group of words: the markers in the
 * groups after it under the same parent (its later siblings), so the
 * markers in the words after word w are the sum of one entry per level,
 * read off w's bits a few at a time: a fixed number of independent loads,
 * no data-dependent branch (a Fenwick tree's walks stop after a number of
 * steps that varies with the position, and a mispredicted exit cost more
 * than its loads). A marker added or removed at w changes one 64-byte
 * group on w's path per level, the entries before w's: two or four vector
 * adds. The two lowest levels, most of the tree, group 32 words and 32
 * groups of them under a parent, so their counts fit 16 bits (at most
 * 31 x 2048 markers); the levels above group 16 of 32-bit counts. The
 * word that new markers go to (the tail) enters the tree only once it is
 * full, so a new marker costs no tree update.
 */
#define NARROW		2	/* levels of 16-bit counts, 32 to a line */
#define N_BITS		5
#define W_BITS		4	/* levels above: 32-bit counts, 16 to a line */

typedef int16_t v8s16 __attribute__((vector_size(16)));
typedef s32 v4s __attribute__((vector_size(16)));
/* used only where compiled for AVX2 (else GCC would lower them to scalars) */
typedef int16_t v16s16 __attribute__((vector_size(32)));
typedef s32 v8s __attribute__((vector_size(32)));

/* Level @l's entries stand for 2^tree__shift(l) words each. */
static inline __attribute__((always_inline)) u32 tree__shift(u32 l)
{
	return l < NARROW ? N_BITS * l : N_BITS * NARROW + W_BITS * (l - NARROW);
}

/* Levels and their byte offsets for @nwords words; the tree's bytes. */
static u64 tree__layout(struct stream *s, u32 nwords)
{
	u64 total = 0;
	u32 l = 0;

	do {
		u32 sh = tree__shift(l), fan = l < NARROW ? 1 << N_BITS : 1 << W_BITS;
		u64 n = (((u64)nwords + (1ULL << sh) - 1) >> sh);

		s->lvl_off[l] = total;
		/* whole 64-byte groups */
		total += (n + fan - 1) / fan * 64;
		l++;
	} while (l < NARROW || (((u64)nwords - 1) >> tree__shift(l) && l < TREE_MAX_LVL));
	s->nlvl = l;
	return total;
}

/*
 * Two vectors of a 64-byte group @g: the lanes before j (@jj; lane order
 * in @iota) get -1 (@dec) or @dv (a delta in every lane) added.
 */
#define GROUP_ADD2(g, iota, jj, dv, dec)					\
	do {								\
		(g)[0] += (dec) ? ((iota)[0] < (jj)) : ((iota)[0] < (jj)) & (dv);	\
		(g)[1] += (dec) ? ((iota)[1] < (jj)) : ((iota)[1] < (jj)) & (dv);	\
	} while (0)

/*
 * One level of the tree on word @w's path (level @l, a constant): @sum
 * gets the entry standing for w's group (its later siblings' markers) when
 * @read, and the entries before it in its 64-byte group get @delta added
 * when @add (@dec: @delta is -1, or 0 to change nothing; the mask is the
 * -1s to add). The entry read is not among those changed, so one walk
 * does both.
 */
static inline __attribute__((always_inline)) void
tree__lvl(const struct stream *s, u8 *tree, u32 w, u32 l, s32 delta, int dec, int avx2,
	  int read, int add, u64 *sum)
{
	u32 idx = w >> tree__shift(l);

	if (l < NARROW) {
		int16_t *base = (int16_t *)(tree + s->lvl_off[l]);
		/* with @dec and @delta 0, no entry is before entry 0: nothing added */
		int16_t j = (idx % (1 << N_BITS)) & (dec ? delta : -1);
		int16_t d16 = (int16_t)delta;

		if (read)
			*sum += (u16)base[idx];
		if (!add)
			return;
		/* 16-bit counts, added modulo 2^16 (signed compares: j < 32) */
		if (avx2) {
			static const v16s16 iota[2] = {
				{ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 },
				{ 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31 } };
			v16s16 jj = { j, j, j, j, j, j, j, j, j, j, j, j, j, j, j, j };
			v16s16 dn = { d16, d16, d16, d16, d16, d16, d16, d16,
				      d16, d16, d16, d16, d16, d16, d16, d16 };
			v16s16 *g = (v16s16 *)(base + (idx & ~((1u << N_BITS) - 1)));

			GROUP_ADD2(g, iota, jj, dn, dec);
		} else {
			static const v8s16 iota[4] = {
				{ 0, 1, 2, 3, 4, 5, 6, 7 }, { 8, 9, 10, 11, 12, 13, 14, 15 },
				{ 16, 17, 18, 19, 20, 21, 22, 23 },
				{ 24, 25, 26, 27, 28, 29, 30, 31 } };
			v8s16 jj = { j, j, j, j, j, j, j, j };
			v8s16 dn = { d16, d16, d16, d16, d16, d16, d16, d16 };
			v8s16 *g = (v8s16 *)(base + (idx & ~((1u << N_BITS) - 1)));

			/* the entries before idx count idx's markers among their later siblings */
			GROUP_ADD2(g, iota, jj, dn, dec);
			GROUP_ADD2(g + 2, iota + 2, jj, dn, dec);
		}
	} else {
		s32 *base = (s32 *)(tree + s->lvl_off[l]);
		s32 j = (idx % (1 << W_BITS)) & (dec ? delta : -1);

		if (read)
			*sum += (u32)base[idx];
		if (!add)
			return;
		if (avx2) {
			static const v8s iota[2] = { { 0, 1, 2, 3, 4, 5, 6, 7 },
						     { 8, 9, 10, 11, 12, 13, 14, 15 } };
			v8s jj = { j, j, j, j, j, j, j, j };
			v8s dw = { delta, delta, delta, delta, delta, delta, delta, delta };
			v8s *g = (v8s *)(base + (idx & ~((1u << W_BITS) - 1)));

			GROUP_ADD2(g, iota, jj, dw, dec);
		} else {
			static const v4s iota[4] = { { 0, 1, 2, 3 }, { 4, 5, 6, 7 },
						     { 8, 9, 10, 11 }, { 12, 13, 14, 15 } };
			v4s jj = { j, j, j, j };
			v4s dw = { delta, delta, delta, delta };
			v4s *g = (v4s *)(base + (idx & ~((1u << W_BITS) - 1)));

			GROUP_ADD2(g, iota, jj, dw, dec);
			GROUP_ADD2(g + 2, iota + 2, jj, dw, dec);
		}
	}
}

/*
 * Word @w's path through every level, unrolled (each level's shift a
 * constant; the levels above the NARROW ones behind a branch that goes
 * the same way all run long): the markers in the tree's words after w,
 * returned when @read, and @delta markers added at w when @add (see
 * tree__lvl()). @avx2: the caller is compiled for AVX2 (a constant).
 */
static inline __attribute__((always_inline)) u64
tree__walk(const struct stream *s, u8 *tree, u32 w, s32 delta, int dec, int avx2,
	   int read, int add)
{
	u64 sum = 0;

	_Static_assert(NARROW == 2 && TREE_MAX_LVL == 7, "tree__walk() unrolls 2 + 5 levels");
	tree__lvl(s, tree, w, 0, delta, dec, avx2, read, add, &sum);
	tree__lvl(s, tree, w, 1, delta, dec, avx2, read, add, &sum);
	if (s->nlvl > 2) {
		tree__lvl(s, tree, w, 2, delta, dec, avx2, read, add, &sum);
		if (s->nlvl > 3) {
			tree__lvl(s, tree, w, 3, delta, dec, avx2, read, add, &sum);
			if (s->nlvl > 4) {
				tree__lvl(s, tree, w, 4, delta, dec, avx2, read, add, &sum);
				if (s->nlvl > 5) {
					tree__lvl(s, tree, w, 5, delta, dec, avx2, read, add, &sum);
					if (s->nlvl > 6)
						tree__lvl(s, tree, w, 6, delta, dec, avx2,
							  read, add, &sum);
				}
			}
		}
	}
	return sum;
}

/*
 * Add @delta markers at word @w (its later siblings' counts do not change);
 * @dec: @delta is -1, or 0 to change nothing (the mask is the -1s to add).
 * @avx2: the caller is compiled for AVX2 (a constant).
 */
static inline __attribute__((always_inline)) void
tree__add(const struct stream *s, u8 *tree, u32 w, s32 delta, int dec, int avx2)
{
	tree__walk(s, tree, w, delta, dec, avx2, 0, 1);
}

static void stream__free_axis(struct stream *s)
{
	free(s->rank);
	free(s->tree);
	free(s->mark);
	free(s->htree);
	free(s->hmark);
}

/* Rebuild @tree (@total bytes) from the popcounts of @mark's words [0, @full). */
static void tree__build(const struct stream *s, u8 *tree, u64 total, const u64 *mark, u32 full)
{
	u32 w;

	memset(tree, 0, total);
	for (w = 0; w < full; w++) {
		int c = __builtin_popcountll(mark[w]);

		if (c)
			tree__add(s, tree, w, c, 0, 0);
	}
}

/* 64-byte aligned, so a tree group is one cache line. */
static u8 *tree__alloc(u64 bytes)
{
	return aligned_alloc(64, bytes);
}

/* An entry's time is kept modulo 2^32; one this far back goes to s->old. */
#define SEQ_OLD		(1ULL << 31)
#define SEQ_GONE	UINT64_MAX	/* in s->old: the key was accessed since */

/*
 * The stream time of @e's latest access, @now a later time (less than
 * 2^32 later unless the entry is in s->old: see struct ent).
 */
static inline __attribute__((always_inline)) u64
stream__seq(const struct stream *s, const struct ent *e, u64 now)
{
	u64 v;

	if (__builtin_expect(s->old.n != 0, 0) && lp_map__get(&s->old, e->key, &v) &&
	    v != SEQ_GONE)
		return v;
	return now - ((u32)((u32)now - e->seq) << s->narrow >> s->narrow);
}

/* @e is accessed at stream time @now. 0 or -ENOMEM. */
static inline __attribute__((always_inline)) int
stream__set_seq(struct stream *s, struct ent *e, u64 now)
{
	u64 v;

	e->seq = (u32)now;
	if (__builtin_expect(s->old.n != 0, 0) && lp_map__get(&s->old, e->key, &v) &&
	    v != SEQ_GONE)
		return lp_map__put(&s->old, e->key, SEQ_GONE);
	return 0;
}

/*
 * Renumber the live markers 0..nlive-1 in time order, keeping room for
 * four times as many accesses as there are live markers or keys
 * (whichever is more), so the next compaction is that far away and its
 * scan of the key table is amortized O(1) per access (twice as many
 * measured 10-30% slower at 1e6 keys: the scan is of a table that does
 * not fit any cache, while the axis grows by only cap/6 bytes). The new slot of a key is its
 * marker's rank, read off per-word prefix counts of the old bitmap. The
 * arrays are rebuilt in place unless they must grow.
 */
static inline __attribute__((always_inline)) int
compact_body(struct stream *s, u32 min_slots)
{
	u64 live = s->nlive, keys = s->tab.n, i, total;
	u64 want = live + 4 * (live > keys ? live : keys) + 64;
	u32 nblk, acc = 0, ns;
	u64 *hmark = NULL;
	struct lp_map old = { 0 };

	/* near the limit, half the room: compactions twice as often */
	if (want > MAX_SLOTS >> s->narrow)
		want = live + 2 * (live > keys ? live : keys) + 64;
	if (want < min_slots)
		want = min_slots;
	if (want > MAX_SLOTS >> s->narrow)
		return -EOVERFLOW;
	nblk = (want + 63) / 64;
	if (s->hot_axis) {
		/* the new hot bitmap, built beside the old one */
		hmark = calloc(nblk > s->alloc_blk ? nblk : s->alloc_blk, sizeof(*hmark));
		if (!hmark)
			return -ENOMEM;
	}
	if (nblk > s->alloc_blk) {
		u32 *rank = malloc((u64)nblk * sizeof(*rank));
		u64 *mark = calloc(nblk, sizeof(*mark));

		if (!rank || !mark) {
			free(rank);
			free(mark);
			free(hmark);
			return -ENOMEM;
		}
		if (s->nblk)
			memcpy(mark, s->mark, (u64)s->nblk * sizeof(*mark));
		free(s->rank);
		free(s->mark);
		s->rank = rank;
		s->mark = mark;
		s->alloc_blk = nblk;
	}
	/* the old tree is not read from here on: rebuilt below */
	total = tree__layout(s, nblk);
	if (total > s->tree_alloc) {
		u8 *tree = tree__alloc(total), *htree = s->hot_axis ? tree__alloc(total) : NULL;

		if (!tree || (s->hot_axis && !htree)) {
			free(tree);
			free(htree);
			free(hmark);
			return -ENOMEM;
		}
		free(s->tree);
		free(s->htree);
		s->tree = tree;
		s->htree = htree;
		s->tree_alloc = total;
	}
	for (i = 0; i < s->nblk; i++) {
		s->rank[i] = acc;
		acc += __builtin_popcountll(s->mark[i]);
	}
	for (i = 0; live && i <= s->tab.mask; i++) {
		struct ent *e = &s->tab.v[i];
		u32 w;

		if (e->slot >= FREE_SLOT)
			continue;
		/* the next compaction is at most 2^31 accesses away: keep the times exact */
		if (s->seq - stream__seq(s, e, s->seq) >= SEQ_OLD >> s->narrow &&
		    lp_map__put(&old, e->key, stream__seq(s, e, s->seq))) {
			lp_map__exit(&old);
			free(hmark);
			return -ENOMEM;
		}
		w = e->slot / 64;
		ns = s->rank[w] + __builtin_popcountll(s->mark[w] &
						((1ULL << (e->slot % 64)) - 1));
		if (hmark && (s->hmark[w] >> (e->slot % 64) & 1))
			hmark[ns / 64] |= 1ULL << (ns % 64);
		e->slot = ns;
	}
	lp_map__exit(&s->old);
	s->old = old;
	memset(s->mark, 0, (u64)nblk * sizeof(*s->mark));
	for (i = 0; i < live / 64; i++)
		s->mark[i] = ~0ULL;
	if (live % 64)
		s->mark[live / 64] = (1ULL << (live % 64)) - 1;
	s->fw_hi = live / 64;
	s->tail_live = live % 64;
	tree__build(s, s->tree, total, s->mark, s->fw_hi);
	if (hmark) {
		free(s->hmark);
		s->hmark = hmark;
		tree__build(s, s->htree, total, hmark, s->fw_hi);
		s->htail_live = __builtin_popcountll(hmark[s->fw_hi]);
	}
	s->cap = want;
	s->nblk = nblk;
	s->next = live;
	return 0;
}

/* A popcount per live key: one instruction where the CPU has it. */
static int has_popcnt = -1, has_avx2 = -1, has_avx512 = -1;

__attribute__((target("popcnt"))) static int
compact_popcnt(struct stream *s, u32 min_slots)
{
	return compact_body(s, min_slots);
}

static int compact_generic(struct stream *s, u32 min_slots)
{
	return compact_body(s, min_slots);
}

static int stream__compact(struct stream *s, u32 min_slots)
{
	if (has_popcnt < 0)
		has_popcnt = __builtin_cpu_supports("popcnt");
	return has_popcnt ? compact_popcnt(s, min_slots) : compact_generic(s, min_slots);
}

/* @hot_axis: s->hot_axis, a constant where the caller knows it. */
/*
 * Remove @e's marker. With @dist, first the markers in slots after its
 * (the distinct keys accessed since), and with @hdist the hot ones, read
 * on the same walk down the tree.
 */
static inline __attribute__((always_inline)) void
stream__take(struct stream *s, struct ent *e, int hot_axis, int avx2, u64 *dist, u64 *hdist)
{
	u32 w = e->slot / 64;
	u64 bit = 1ULL << (e->slot % 64);
	/* bits above the slot's; two shifts, as a shift by 64 is undefined */
	u64 above = (~0ULL << (e->slot % 64)) << 1;
	/* the tail word is not in the tree: its entries get 0 added, no branch */
	s32 in_tree = w < s->fw_hi;
	u64 t;

	t = tree__walk(s, s->tree, w, -in_tree, 1, avx2, dist != NULL, 1);
	if (dist)
		*dist = t + __builtin_popcountll(s->mark[w] & above) + (in_tree ? s->tail_live : 0);
	s->tail_live -= !in_tree;
	if (hot_axis && hdist) {
		u64 hot = (s->hmark[w] & bit) != 0;

		/* read whether or not the key is hot; its own marker removed if it is */
		t = tree__walk(s, s->htree, w, -(in_tree & (s32)hot), 1, avx2, 1, 1);
		*hdist = t + __builtin_popcountll(s->hmark[w] & above) +
			 (in_tree ? s->htail_live : 0);
		s->htail_live -= in_tree ? 0 : hot;
		s->hmark[w] &= ~bit;
		s->hnlive -= hot;
	} else if (hot_axis && (s->hmark[w] & bit)) {
		tree__walk(s, s->htree, w, -in_tree, 1, avx2, 0, 1);
		s->htail_live -= !in_tree;
		s->hmark[w] &= ~bit;
		s->hnlive--;
	}
	s->mark[w] &= ~bit;
	s->nlive--;
	e->slot = NO_SLOT;
}

/* @hot_axis: s->hot_axis, a constant where the caller knows it. */
static inline __attribute__((always_inline)) void stream__unmark(struct stream *s, struct ent *e,
								 int hot_axis, int avx2)
{
	stream__take(s, e, hot_axis, avx2, NULL, NULL);
}

static inline __attribute__((always_inline)) int stream__mark(struct stream *s, struct ent *e, u32 min_slots,
							     int hot, int avx2)
{
	if (s->next == s->cap) {
		int err = stream__compact(s, min_slots);

		if (err)
			return err;
	}
	e->slot = s->next++;
	if (e->slot / 64 != s->fw_hi) {
		/* the tail word is full: into the tree with what is left of it */
		tree__add(s, s->tree, s->fw_hi, s->tail_live, 0, avx2);
		if (s->hot_axis)
			tree__add(s, s->htree, s->fw_hi, s->htail_live, 0, avx2);
		s->fw_hi++;
		s->tail_live = 0;
		s->htail_live = 0;
	}
	s->mark[e->slot / 64] |= 1ULL << (e->slot % 64);
	s->tail_live++;
	s->nlive++;
	if (hot) {
		s->hmark[e->slot / 64] |= 1ULL << (e->slot % 64);
		s->htail_live++;
		s->hnlive++;
	}
	return 0;
}

static void stream__exit(struct stream *s)
{
	stream__free_axis(s);
	etab__free(&s->tab);
	lp_map__exit(&s->old);
}

/* ---- threads ---- */

/*
 * Holder lists matter only once a second thread can store: until then the
 * one thread holds every live key, so the lists are built from its table
 * when the second thread appears (one pass) and kept from then on.
 */
static int holders__seed(struct reuse_exact *re)
{
	const struct etab *t = &re->streams[0].tab;
	u64 i;

	for (i = 0; t->v && i <= t->mask; i++) {
		struct aent *a;
		int err;

		if (t->v[i].slot >= FREE_SLOT)
			continue;
		err = atab__get(&re->holders, t->v[i].key, &a);
		if (!err)
			err = aent__add(a, 0);
		if (err)
			return err;
	}
	return 0;
}

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
		if (re->sampled) {
			struct sdist *sd = realloc(re->sd, cap * sizeof(*sd));

			if (!sd)
				return -ENOMEM;
			re->sd = sd;
		}
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
		re->streams[n].hot_axis = re->hot != NULL;
		re->streams[n].narrow = 32 - re->o.seq_bits;
		re->nstreams++;
		if (n == 1) {
			int err = holders__seed(re);

			if (err)
				return err;
		}
	} else if (n == 1 && etab__track_threads(&re->streams[0].tab)) {
		return -ENOMEM;
	}
	if (re->sampled)
		memset(&re->sd[n], 0, sizeof(re->sd[n]));
	t = &re->thr[n];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	reuse_mrc__init(&t->mrc);
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
	    opts->init_slots > MAX_SLOTS || (opts->seq_bits && opts->seq_bits < 8) ||
	    opts->seq_bits > 32 ||
	    !(opts->sample_rate >= 0 && opts->sample_rate <= 1))
		return -EINVAL;
	re = calloc(1, sizeof(*re));
	if (!re)
		return -ENOMEM;
	re->o = *opts;
	re->weight = 1;
	if (opts->sample_rate > 0 && opts->sample_rate < 1) {
		re->thresh = (u64)(opts->sample_rate * (1 << SHARDS_BITS) + 0.5);
		if (!re->thresh) {
			free(re);
			return -EINVAL;		/* below one in 2^24 */
		}
		re->sampled = 1;
		re->salt = opts->salt ? opts->salt : SHARDS_SALT;
		re->weight = (double)(1 << SHARDS_BITS) / (double)re->thresh;
		re->hll = calloc(1 << HLL_BITS, 1);
		if (!re->hll || (opts->hot_keys && hot__new(&re->hot, opts->hot_keys, re->weight,
							     re->salt, re->thresh))) {
			free(re->hll);
			free(re);
			return -ENOMEM;
		}
	}
	if (!re->o.init_slots)
		re->o.init_slots = DEFAULT_SLOTS;
	if (!re->o.seq_bits)
		re->o.seq_bits = 32;
	if (re->o.init_slots > MAX_SLOTS >> (32 - re->o.seq_bits))
		re->o.init_slots = MAX_SLOTS >> (32 - re->o.seq_bits);
	re->last_idx = -1;
	if (opts->mode == REUSE_EXACT_SHARED) {
		re->streams = calloc(1, sizeof(*re->streams));
		if (!re->streams) {
			hot__delete(re->hot);
			free(re->hll);
			free(re);
			return -ENOMEM;
		}
		re->streams[0].hot_axis = re->hot != NULL;
		re->streams[0].narrow = 32 - re->o.seq_bits;
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
	free(re->hll);
	hot__delete(re->hot);
	for (i = 0; re->sd && i < re->nthr; i++)
		free(re->sd[i].n);
	free(re->sd);
	free(re);
}

/* Another thread stored to @key: @h's live use of it is invalidated. */
static int reuse_exact__invalidate(struct reuse_exact *re, u32 h, u64 key)
{
	struct stream *s = &re->streams[h];
	struct ent *e = etab__find(&s->tab, key);

	/* holders list only threads with a live marker for the key */
	if (e && e->slot != NO_SLOT) {
		stream__unmark(s, e, s->hot_axis, 0);
		re->thr[h].invalidated++;
		return 1;
	}
	return 0;
}

static inline __attribute__((always_inline)) int hist_bin(u64 d)
{
	return d ? 64 - __builtin_clzll(d) : 0;
}

/*
 * What an access path depends on, as flags: the batch path is compiled
 * once per combination, so none of it is tested per access.
 */
#define F_SHARED	1
#define F_LINE		2
#define F_SAMPLED	4
#define F_HOT		8	/* SHARDS with hot keys */
#define F_AVX2		16	/* compiled for AVX2 (batch path only) */

/* F_HOT: what the filter found, in the is_store of a buffered access */
#define A_STORE		1
#define A_HOT		2	/* a hot key's access: weight 1 */
#define A_BECOMES_HOT	4	/* the key turns hot after this access */
#define A_UNCOUNTED	8	/* not sampled: only its time is taken */

static inline __attribute__((always_inline)) unsigned flags_of(const struct reuse_exact *re)
{
	return (re->o.mode == REUSE_EXACT_SHARED ? F_SHARED : 0) |
	       (re->o.gran == REUSE_GRAN_LINE ? F_LINE : 0) | (re->sampled ? F_SAMPLED : 0) |
	       (re->hot ? F_HOT : 0);
}

static inline __attribute__((always_inline)) struct stream *stream_of(struct reuse_exact *re, int ti,
								      unsigned f)
{
	return f & F_SHARED ? &re->streams[0] : &re->streams[ti];
}

/* Another thread @ti stored to @key: drop the other holders' live uses. */
static int reuse_exact__store(struct reuse_exact *re, int ti, u64 key,
			      int was_live, int is_store)
{
	struct aent *a;
	u32 i, *h, keep = 0;
	int err;

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
				re->thr[ti].invalidations++;
		}
		a->nh = 0;
		if (keep)
			h[a->nh++] = ti;
	}
	return 0;
}

/* Count a sampled distance @d (none at or above SDIST_MAX). */
static int sdist__add(struct sdist *sd, u64 d, double w)
{
	if (d >= SDIST_MAX)
		return 0;
	if (d >= sd->cap) {
		u32 cap = sd->cap ? sd->cap : 1024;
		double *n;

		while (cap <= d)
			cap *= 2;
		n = realloc(sd->n, (u64)cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		memset(n + sd->cap, 0, (u64)(cap - sd->cap) * sizeof(*n));
		sd->n = n;
		sd->cap = cap;
	}
	sd->n[d] += w;
	return 0;
}

/* Weight @w spread evenly over the distances [@a, @b), @a >= 1. */
static void mrc__spread(struct reuse_mrc *m, double a, double b, double w)
{
	double x = a, len = b - a;

	while (x < b) {
		u64 d = (u64)x, nx;
		double e;

		if (d < REUSE_MRC_SUB) {
			nx = d + 1;
		} else {
			u64 step = 1ULL << (60 - __builtin_clzll(d));	/* 2^(octave - 3) */

			nx = (d & ~(step - 1)) + step;
		}
		e = fmin((double)nx, b);
		m->bin[reuse_mrc__bin(d)] += w * (e - x) / len;
		x = e;
	}
}

/* One access of thread index @ti to @key (lp_hash64(key) = @h). */
static inline __attribute__((always_inline)) int access_one(struct reuse_exact *re, int ti, u64 key, u64 h,
			     int is_store, struct reuse_exact_res *res, unsigned f)
{
	struct reuse_exact_thread *thr = &re->thr[ti];
	struct stream *s = stream_of(re, ti, f);
	double w = re->weight;
	struct ent *e;
	int is_new, was_live, err, mrc_done, a = is_store, hot = 0;
	u64 now;

	if (f & F_HOT) {
		is_store = a & A_STORE;
		hot = (a & (A_HOT | A_BECOMES_HOT)) != 0;
		if (a & A_HOT)
			w = 1;
	}
	err = etab__get(&s->tab, key, h, &e, &is_new);
	if (err)
		return err;
	now = s->seq++;
	thr->seen++;
	was_live = !is_new && e->slot != NO_SLOT;
	if ((f & F_HOT) && (a & A_UNCOUNTED)) {
		/* becomes hot, not sampled: its next access is measured from here */
		res->kind = REUSE_EXACT_SKIPPED;
		if (was_live)
			stream__unmark(s, e, f & F_HOT, f & F_AVX2);
		goto mark;
	}
	thr->accesses++;
	thr->hot += (f & F_HOT) && (a & A_HOT);
	if (is_new) {
		res->kind = REUSE_EXACT_COLD;
		thr->cold++;
		thr->stack.cold += w;
		thr->time.cold += w;
		thr->mrc.inf += w;
	} else if (!was_live) {
		res->kind = REUSE_EXACT_INVAL;
		thr->inval_misses++;
		thr->stack.inval += w;
		thr->time.inval += w;
		thr->mrc.inf += w;
	} else {
		res->kind = REUSE_EXACT_REUSE;
		u64 hd = 0;

		/* the distance read on the way down that removes the marker */
		stream__take(s, e, f & F_HOT, f & F_AVX2, &res->dist, f & F_HOT ? &hd : NULL);
		res->time = now - stream__seq(s, e, now) - 1;
		mrc_done = 0;
		if (f & F_HOT) {
			/*
			 * Hot keys in between count 1 each, the sampled others
			 * all keys / sampled keys (spread over one step as below);
			 * the time in tracked accesses, scaled by all over tracked.
			 */
			u64 sd = res->dist - hd;
			double u = (lp_hash64(key ^ (now * 0x9e3779b97f4a7c15ull)) >> 11) * 0x1p-53;
			double sc = re->hot->scale;

			if (sd) {
				u64 q = sdist_hot__index((double)sd + (double)hd / sc);

				err = sdist__add(&re->sd[ti], q, w);
				if (err)
					return err;
				mrc_done = q < SDIST_MAX;
			}
			res->dist = hd + (sd ? (u64)(((double)sd + u) * sc) : 0);
			res->time = res->time ? (u64)(((double)res->time + u) * (double)thr->seen /
						      (double)thr->accesses) : 0;
		} else if (f & F_SAMPLED) {
			err = sdist__add(&re->sd[ti], res->dist, w);
			if (err)
				return err;
			mrc_done = res->dist < SDIST_MAX;
			/*
			 * What the sampled distances stand for in the full trace:
			 * d >= 1 sampled keys in between say d/rate to (d+1)/rate
			 * keys; a reproducible uniform offset spreads them over
			 * that range, so the curve has no steps 1/rate apart.
			 */
			double u = (lp_hash64(key ^ (now * 0x9e3779b97f4a7c15ull)) >> 11) * 0x1p-53;

			/* 0 stays 0: most are the same line touched again at once */
			res->dist = res->dist ? (u64)(((double)res->dist + u) * w) : 0;
			res->time = res->time ? (u64)(((double)res->time + u) * w) : 0;
		}
		thr->stack.bin[hist_bin(res->dist)] += w;
		thr->time.bin[hist_bin(res->time)] += w;
		if (!mrc_done)
			reuse_mrc__add(&thr->mrc, res->dist, w);
		thr->reuses++;
		if ((f & F_SHARED) && (s->tab.thr ? s->tab.thr[e - s->tab.v] : 0) != (u32)ti)
			thr->cross_thread++;
	}
mark:
	err = stream__mark(s, e, re->o.init_slots, hot, f & F_AVX2);
	if (err)
		return err;
	err = stream__set_seq(s, e, now);
	if (err)
		return err;
	if ((f & F_SHARED) && s->tab.thr)
		s->tab.thr[e - s->tab.v] = ti;
	/* one thread so far: it holds every key, nobody can invalidate */
	if (!(f & F_SHARED) && re->nthr > 1)
		return reuse_exact__store(re, ti, key, was_live, is_store);
	return 0;
}

static inline __attribute__((always_inline)) u64 key_of(u64 addr, unsigned f)
{
	return f & F_LINE ? addr >> 6 : addr;
}

/* All keys / sampled keys so far (the HyperLogLog over all of them). */
static void hot__rescale(struct reuse_exact *re)
{
	struct hot *h = re->hot;
	u64 k = re->o.mode == REUSE_EXACT_SHARED || re->nthr <= 1 ?
		(re->nstreams ? re->streams[0].tab.n : 0) : re->holders.n;
	double est = hll__estimate(re->hll);

	k = k > h->unsampled ? k - h->unsampled : 0;
	if (k >= 16 && est > k)
		h->scale = est / (double)k;
	h->scale_next = h->scale_next < (1ULL << 22) ? 2 * h->scale_next :
			h->scale_next + (1ULL << 22);
}

/* After some accesses: age the sketch, refresh the scale when due. */
static void hot__tick(struct reuse_exact *re)
{
	struct hot *h = re->hot;

	while (h->seen >= h->age_next)
		hot__age(h);
	if (h->seen >= h->scale_next)
		hot__rescale(re);
	h->tick_at = h->age_next < h->scale_next ? h->age_next : h->scale_next;
}

/*
 * SHARDS with hot keys: what to do with an access to @key (salted hash
 * @h): -1 skip it, else the A_ flags to process it with. A hot key's
 * access is tracked (weight 1). Another key's may be counted in the
 * sketch; when that makes it hot, this access is still a SHARDS one
 * (counted if its hash samples it, else only its time is taken,
 * uncounted), so every key's accesses before it turned hot are estimated
 * as without hot keys, and the ones after exactly from there: no access
 * is counted twice or lost. One access at a time; the batch path does the
 * same in passes over chunks (batch_hot()).
 */
static int hot__classify(struct reuse_exact *re, u64 key, u64 h)
{
	struct hot *hot = re->hot;
	int samp = (shards_hll(re, h) >> (64 - SHARDS_BITS)) < re->thresh, hit;
	u64 seen = hot->seen;

	if (seen >= hot->tick_at)
		hot__tick(re);
	hot->seen++;
	hit = hot__find(hot, key, h);
	if (seen == hot->next) {
		hot->next += hot__gap(hot);
		if (!hit && hot->n < hot->max && hot__count(hot, key, h)) {
			hot__add(hot, key, h, seen + 1);
			hot->unsampled += !samp;
			return samp ? A_BECOMES_HOT : A_BECOMES_HOT | A_UNCOUNTED;
		}
	}
	return hit ? A_HOT : samp ? 0 : -1;
}

int reuse_exact__access(struct reuse_exact *re, u32 tid, u64 addr,
			int is_store, struct reuse_exact_res *res)
{
	struct reuse_exact_res dummy;
	unsigned f = flags_of(re);
	u64 key = key_of(addr, f);
	int ti;

	if (!res)
		res = &dummy;
	res->dist = res->time = 0;
	ti = reuse_exact__thread_index(re, tid);
	if (ti < 0)
		return ti;
	if (f & F_HOT) {
		int a = hot__classify(re, key, lp_hash64(key ^ re->salt));

		if (a < 0) {
			re->thr[ti].seen++;
			res->kind = REUSE_EXACT_SKIPPED;
			return 0;
		}
		return access_one(re, ti, key, lp_hash64(key), a | (is_store != 0), res, f);
	}
	if (re->sampled && shards_hash(re, key) >= re->thresh) {
		re->thr[ti].seen++;
		res->kind = REUSE_EXACT_SKIPPED;
		return 0;
	}
	return access_one(re, ti, key, lp_hash64(key), is_store, res, f);
}

/*
 * The key table is the one structure that does not stay in cache, and
 * under virtualization a probe is often a page walk too. A prefetch
 * appears to wait for its walk before it retires (perf put 60% of the
 * samples at 1e6 keys on the prefetch instructions), so prefetches spread
 * one per access (a few hundred instructions apart) overlap only a couple
 * of walks: the buckets of the next CHUNK accesses are hashed and touched
 * in one tight loop instead, all their misses in flight together, while
 * the current chunk is processed. Before a chunk is processed its buckets
 * have arrived, and their slots say which marker words to touch.
 */
#define CHUNK 32
#define PROBE_AHEAD 3

/* The stream access @a will go to, if known without adding a thread. */
static inline __attribute__((always_inline)) const struct stream *
stream_guess(struct reuse_exact *re, const struct reuse_exact_acc *a, unsigned f)
{
	u64 idx;

	if (f & F_SHARED)
		return &re->streams[0];
	if (a->tid == re->last_tid && re->last_idx >= 0)
		return &re->streams[re->last_idx];
	if (lp_map__get(&re->tids, a->tid, &idx))
		return &re->streams[idx];
	return NULL;
}

/* Hash @n accesses into @hash and touch their buckets. */
static inline __attribute__((always_inline)) void
chunk_prefetch(struct reuse_exact *re, const struct reuse_exact_acc *v, size_t n, u64 *hash,
	       unsigned f)
{
	const struct stream *s = n ? stream_guess(re, &v[0], f) : NULL;
	u32 tid = n ? v[0].tid : 0;
	size_t j;

	for (j = 0; j < n; j++) {
		/* runs of one thread: its stream looked up once a run */
		if (v[j].tid != tid) {
			tid = v[j].tid;
			s = stream_guess(re, &v[j], f);
		}
		hash[j] = lp_hash64(key_of(v[j].addr, f));
		if (s && s->tab.v) {
			const struct ent *e = &s->tab.v[hash[j] & s->tab.mask];

			/* the entries a probe usually reads (a 24-byte one straddles lines) */
			__builtin_prefetch(e);
			__builtin_prefetch((const char *)(e + PROBE_AHEAD) - 1);
		}
	}
}

/* The buckets of @n accesses have arrived: touch their marker words. */
static inline __attribute__((always_inline)) void
chunk_prefetch_marks(struct reuse_exact *re, const struct reuse_exact_acc *v, size_t n,
		     const u64 *hash, unsigned f)
{
	const struct stream *s = n ? stream_guess(re, &v[0], f) : NULL;
	u32 tid = n ? v[0].tid : 0;
	size_t j;

	for (j = 0; j < n; j++) {
		if (v[j].tid != tid) {
			tid = v[j].tid;
			s = stream_guess(re, &v[j], f);
		}
		if (s && s->tab.v) {
			const struct ent *e = &s->tab.v[hash[j] & s->tab.mask];

			/* no test of the key: a wrong word is harmless, a branch is not */
			__builtin_prefetch(&s->mark[(e->slot < s->cap ? e->slot : 0) / 64]);
		}
	}
}

static inline __attribute__((always_inline)) int
batch_body(struct reuse_exact *re, const struct reuse_exact_acc *v, size_t n, unsigned f)
{
	u64 hash[2][CHUNK];
	struct reuse_exact_res res;
	size_t c, i;
	int err, cur = 0;

	chunk_prefetch(re, v, n < CHUNK ? n : CHUNK, hash[0], f);
	for (c = 0; c < n; c += CHUNK, cur ^= 1) {
		size_t end = n - c < CHUNK ? n : c + CHUNK;
		size_t next = n - end < CHUNK ? n - end : CHUNK;

		chunk_prefetch(re, v + end, next, hash[cur ^ 1], f);
		chunk_prefetch_marks(re, v + c, end - c, hash[cur], f);
		for (i = c; i < end; i++) {
			int ti = v[i].tid == re->last_tid && re->last_idx >= 0 ? re->last_idx :
				 reuse_exact__thread_index(re, v[i].tid);

			if (ti < 0)
				return ti;
			err = access_one(re, ti, key_of(v[i].addr, f), hash[cur][i - c],
					 v[i].is_store, &res, f);
			if (err)
				return err;
		}
	}
	return 0;
}

/* Each combination of flags the batch path is compiled for, or'ed with @x. */
#define BATCH_CASES(re, v, n, x)						\
	switch (flags_of(re)) {							\
	case 0: return batch_body(re, v, n, 0 | (x));				\
	case 1: return batch_body(re, v, n, 1 | (x));				\
	case 2: return batch_body(re, v, n, 2 | (x));				\
	case 3: return batch_body(re, v, n, 3 | (x));				\
	case 4: return batch_body(re, v, n, 4 | (x));				\
	case 5: return batch_body(re, v, n, 5 | (x));				\
	case 6: return batch_body(re, v, n, 6 | (x));				\
	case 7: return batch_body(re, v, n, 7 | (x));				\
	case 12: return batch_body(re, v, n, 12 | (x));				\
	case 13: return batch_body(re, v, n, 13 | (x));				\
	case 14: return batch_body(re, v, n, 14 | (x));				\
	default: return batch_body(re, v, n, 15 | (x));				\
	}

/* The marker counts are popcounts: one instruction where the CPU has it. */
__attribute__((target("popcnt"))) static int
batch_popcnt(struct reuse_exact *re, const struct reuse_exact_acc *v, size_t n)
{
	BATCH_CASES(re, v, n, 0)
}

/* And a tree update is two vector adds a level where it has AVX2. */
__attribute__((target("popcnt,avx2,bmi,bmi2,lzcnt"))) static int
batch_avx2(struct reuse_exact *re, const struct reuse_exact_acc *v, size_t n)
{
	BATCH_CASES(re, v, n, F_AVX2)
}

static int batch_generic(struct reuse_exact *re, const struct reuse_exact_acc *v,
			 size_t n)
{
	return batch_body(re, v, n, flags_of(re));
}

/*
 * SHARDS: most accesses are rejected by one hash and a compare; the few
 * sampled ones go through the exact path in small batches.
 */
#define SAMPLED_BATCH 256

/*
 * Sampled accesses are buffered for the exact path, @body; the skipped
 * ones only counted, per thread. Send the buffer when @cond.
 */
#define FLUSH_IF(cond)							\
	if (cond) {							\
		re->thr[ti].seen += skipped;				\
		skipped = 0;						\
		err = body(re, buf, nb);				\
		if (err)						\
			return err;					\
		nb = 0;							\
		ti = reuse_exact__thread_index(re, tid);		\
	}

static inline __attribute__((always_inline)) int
batch_sampled(struct reuse_exact *re, const struct reuse_exact_acc *v, size_t n,
	      int (*body)(struct reuse_exact *, const struct reuse_exact_acc *, size_t),
	      unsigned f)
{
	struct reuse_exact_acc buf[SAMPLED_BATCH];
	u64 thresh = re->thresh, salt = re->salt, skipped = 0;
	u32 tid;
	size_t i, nb = 0;
	int ti, err;

	tid = v[0].tid;
	ti = reuse_exact__thread_index(re, tid);
	if (ti < 0)
		return ti;
	for (i = 0; i < n; i++) {
		u64 key = key_of(v[i].addr, f), h = lp_hash64(key ^ salt);

		if (v[i].tid != tid) {
			re->thr[ti].seen += skipped;
			skipped = 0;
			tid = v[i].tid;
			ti = reuse_exact__thread_index(re, tid);
			if (ti < 0)
				return ti;
		}
		if (shards_hll(re, h) >> (64 - SHARDS_BITS) >= thresh) {
			skipped++;
			continue;
		}
		buf[nb++] = v[i];
		FLUSH_IF(nb == SAMPLED_BATCH);
	}
	re->thr[ti].seen += skipped;
	err = nb ? body(re, buf, nb) : 0;
	return err;
}

/*
 * SHARDS with hot keys, batched: the HyperLogLog of accesses @v[0, @n)
 * and the indexes of those whose class bit is set (hot or sampled keys
 * may have it) in @idx, how many returned, each access's salted hash in
 * @hs; no branch but the register update's. *@mixed: not all of one thread.
 */
static inline __attribute__((always_inline)) size_t
hot__scan(const struct reuse_exact_acc *v, size_t n, u8 *hll, const u64 *filt, u64 salt,
	  u32 *idx, u64 *hs, int *mixed, unsigned f)
{
	u32 tid = v[0].tid, other = 0;
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		u64 h = lp_hash64(key_of(v[i].addr, f) ^ salt), c = HOT_CLASS(h);
		u8 *r = &hll[h & ((1 << HLL_BITS) - 1)];
		u8 rank = __builtin_ctzll((h >> HLL_BITS) | (1ULL << 24)) + 1;

		hs[i] = h;
		if (rank > *r)
			*r = rank;
		idx[k] = i;
		k += filt[c / 64] >> (c % 64) & 1;
		other |= v[i].tid ^ tid;
	}
	*mixed = other != 0;
	return k;
}

#ifdef __x86_64__
/*
 * hot__scan() eight accesses at a time with AVX-512 (F, DQ for the 64-bit
 * multiply, CD for the count of leading zeros, VL): the same hashes,
 * registers and indexes, bit for bit (integer operations only; the unit
 * tests compare it with the scalar scan). The registers are updated one
 * lane at a time (a register's maximum does not depend on the order), the
 * filter words are gathered and the passing indexes compressed in a
 * register (a compress to memory is microcoded on AMD's Zen 4) and stored
 * 8 wide at idx[k], k <= i, so within @n. Not inlined: its caller is not compiled for AVX-512,
 * and it holds no floating point, so nothing else is compiled differently.
 */
__attribute__((target("avx512f,avx512dq,avx512cd,avx512vl,popcnt"), noinline)) static size_t
hot__scan_avx512(const struct reuse_exact_acc *v, size_t n, u8 *hll, const u64 *filt,
		 u64 salt, u32 *idx, u64 *hs, int *mixed, int line)
{
	const __m512i even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
	const __m512i odd = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
	const __m512i vsalt = _mm512_set1_epi64((long long)salt);
	const __m512i m1 = _mm512_set1_epi64((long long)0xff51afd7ed558ccdull);
	const __m512i m2 = _mm512_set1_epi64((long long)0xc4ceb9fe1a85ec53ull);
	const __m512i lowmask = _mm512_set1_epi64((1 << HLL_BITS) - 1);
	const __m512i top = _mm512_set1_epi64(1ULL << 24);
	const __m512i one = _mm512_set1_epi64(1);
	const __m512i sixty_four = _mm512_set1_epi64(64);
	const __m512i low6 = _mm512_set1_epi64(63);
	const __m256i lane = _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0);
	__m512i vtid = _mm512_set1_epi64(v[0].tid), other = _mm512_setzero_si512();
	size_t i, k = 0;
	int tail_mixed;

	for (i = 0; i + 8 <= n; i += 8) {
		__m512i a = _mm512_loadu_si512((const void *)&v[i]);
		__m512i b = _mm512_loadu_si512((const void *)&v[i + 4]);
		__m512i x = _mm512_permutex2var_epi64(a, even, b);
		__m512i t = _mm512_permutex2var_epi64(a, odd, b);
		__m512i reg, y, rank, c, w;
		u64 ri[8], rr[8];
		__mmask8 pass;
		int j;

		if (line)
			x = _mm512_srli_epi64(x, 6);
		x = _mm512_xor_si512(x, vsalt);
		x = _mm512_xor_si512(x, _mm512_srli_epi64(x, 33));
		x = _mm512_mullo_epi64(x, m1);
		x = _mm512_xor_si512(x, _mm512_srli_epi64(x, 33));
		x = _mm512_mullo_epi64(x, m2);
		x = _mm512_xor_si512(x, _mm512_srli_epi64(x, 33));
		_mm512_storeu_si512((void *)&hs[i], x);
		/* rank: trailing zeros + 1 = 64 - leading zeros of the lowest set bit */
		y = _mm512_or_si512(_mm512_srli_epi64(x, HLL_BITS), top);
		y = _mm512_and_si512(y, _mm512_sub_epi64(_mm512_setzero_si512(), y));
		rank = _mm512_sub_epi64(sixty_four, _mm512_lzcnt_epi64(y));
		reg = _mm512_and_si512(x, lowmask);
		_mm512_storeu_si512((void *)ri, reg);
		_mm512_storeu_si512((void *)rr, rank);
		for (j = 0; j < 8; j++) {
			u8 *r = &hll[ri[j]];

			if ((u8)rr[j] > *r)
				*r = (u8)rr[j];
		}
		c = _mm512_srli_epi64(x, 64 - HOT_FILT_BITS);
		w = _mm512_i64gather_epi64(_mm512_srli_epi64(c, 6), (const void *)filt, 8);
		w = _mm512_srlv_epi64(w, _mm512_and_si512(c, low6));
		pass = _mm512_test_epi64_mask(w, one);
		_mm256_storeu_si256((__m256i *)&idx[k],
				    _mm256_maskz_compress_epi32(pass, _mm256_add_epi32(
					    lane, _mm256_set1_epi32((int)i))));
		k += __builtin_popcount(pass);
		other = _mm512_or_si512(other, _mm512_xor_si512(
			_mm512_and_si512(t, _mm512_set1_epi64(0xffffffff)), vtid));
	}
	*mixed = _mm512_reduce_or_epi64(other) != 0;
	if (i < n) {
		/* the last n % 8 one at a time */
		size_t j, t = hot__scan(v + i, n - i, hll, filt, salt, idx + k, hs + i, &tail_mixed,
					line ? F_LINE : 0);

		for (j = 0; j < t; j++)
			idx[k + j] += i;
		k += t;
		*mixed |= tail_mixed || v[i].tid != v[0].tid;
	}
	return k;
}
#endif

/*
 * SHARDS with hot keys, batched, as hot__classify() one access at a time,
 * in passes over chunks of accesses: first the HyperLogLog, the hash and
 * the class filter of every access of the chunk (hot__scan()); then the 1
 * in HOT_SUB the sketch counts (no test per access: the gaps say which),
 * their hashes taken from the scan, up to the first that makes its key
 * hot, which ends the chunk there; then the accesses the filter let
 * through, up to that end, against the hot set and the sample. The key
 * turning hot is added after its access, and the accesses after it are
 * scanned again with the next chunk (a HyperLogLog register takes the
 * same access twice alike). A chunk also ends where the sketch is due for
 * halving or the scale for a refresh. Counting after the scan rather than
 * before it reads the chunk from cache and hashes each access once: 10-18%
 * faster on the engine bench's random traces, the histograms bit for bit
 * the same.
 */
#define HOT_CHUNK 512

static inline __attribute__((always_inline)) int
batch_hot(struct reuse_exact *re, const struct reuse_exact_acc *v, size_t n,
	  int (*body)(struct reuse_exact *, const struct reuse_exact_acc *, size_t), unsigned f)
{
	struct reuse_exact_acc buf[SAMPLED_BATCH];
	struct hot *hot = re->hot;
	u64 thresh = re->thresh, salt = re->salt, skipped = 0;
	size_t i = 0, nb = 0;
	u32 tid, idx[HOT_CHUNK];
	u64 hs[HOT_CHUNK];
	int ti, err;

	tid = v[0].tid;
	ti = reuse_exact__thread_index(re, tid);
	if (ti < 0)
		return ti;
	while (i < n) {
		u64 base = hot->seen - i;	/* v[j] is access number base + j */
		size_t i0 = i;
		size_t end = n - i < HOT_CHUNK ? n : i + HOT_CHUNK, turn = n, k, nc;
		int mixed;

		if (hot->seen >= hot->tick_at) {
			/* the scale is read off the key tables: the accesses before go in first */
			FLUSH_IF(nb);
			hot__tick(re);
		}
		if (hot->tick_at - hot->seen < end - i)
			end = i + (hot->tick_at - hot->seen);
#ifdef __x86_64__
		if (has_avx512 > 0)
			nc = hot__scan_avx512(v + i, end - i, re->hll, hot->filt, salt, idx, hs,
					      &mixed, (f & F_LINE) != 0);
		else
#endif
			nc = hot__scan(v + i, end - i, re->hll, hot->filt, salt, idx, hs,
				       &mixed, f);
		while (hot->n < hot->max && hot->next < base + end) {
			size_t j = hot->next - base;
			u64 key = key_of(v[j].addr, f), h = hs[j - i];

			hot->next += hot__gap(hot);
			if (!hot__find(hot, key, h) && hot__count(hot, key, h)) {
				turn = j;
				end = j + 1;
				while (nc && i + idx[nc - 1] >= end)
					nc--;
				break;
			}
		}
		if (v[i].tid != tid || mixed) {
			/* threads change in the chunk: one access at a time (the registers are set) */
			for (nc = 0; i + nc < end; nc++)
				idx[nc] = nc;
		} else {
			skipped += end - i - nc;
		}
		for (k = 0; k < nc; k++) {
			const struct reuse_exact_acc *a = &v[i + idx[k]];
			u64 key = key_of(a->addr, f), h = hs[idx[k]];
			int fl;

			if (a->tid != tid) {
				re->thr[ti].seen += skipped;
				skipped = 0;
				tid = a->tid;
				ti = reuse_exact__thread_index(re, tid);
				if (ti < 0)
					return ti;
			}
			if (hot__find(hot, key, h)) {
				fl = A_HOT;
			} else if ((h >> (64 - SHARDS_BITS)) < thresh) {
				fl = 0;
			} else {
				skipped++;
				continue;
			}
			FLUSH_IF(nb == SAMPLED_BATCH);
			buf[nb] = *a;
			buf[nb++].is_store = fl | (a->is_store != 0);
		}
		i = end;
		hot->seen = base + end;
		if (turn < n) {
			/* the last access of the chunk, buffered if sampled, else skipped */
			u64 key = key_of(v[turn].addr, f), h = hs[turn - i0];
			int samp = (h >> (64 - SHARDS_BITS)) < thresh;

			if (samp) {
				buf[nb - 1].is_store |= A_BECOMES_HOT;
			} else {
				skipped--;
				FLUSH_IF(nb == SAMPLED_BATCH);
				buf[nb] = v[turn];
				buf[nb++].is_store = A_BECOMES_HOT | A_UNCOUNTED | (v[turn].is_store != 0);
			}
			hot__add(hot, key, h, hot->seen);
			hot->unsampled += !samp;
		}
	}
	re->thr[ti].seen += skipped;
	return nb ? body(re, buf, nb) : 0;
}

#undef FLUSH_IF

/* The filter compiled for each granularity, with and without hot keys. */
#define SAMPLED_CASES(re, v, n, body)						\
	switch (flags_of(re) & (F_LINE | F_HOT)) {				\
	case 0: return batch_sampled(re, v, n, body, 0);			\
	case F_LINE: return batch_sampled(re, v, n, body, F_LINE);		\
	case F_HOT: return batch_hot(re, v, n, body, F_HOT);			\
	default: return batch_hot(re, v, n, body, F_HOT | F_LINE);		\
	}

__attribute__((target("popcnt"))) static int
sampled_popcnt(struct reuse_exact *re, const struct reuse_exact_acc *v, size_t n)
{
	SAMPLED_CASES(re, v, n, batch_popcnt)
}

__attribute__((target("popcnt,avx2,bmi,bmi2,lzcnt"))) static int
sampled_avx2(struct reuse_exact *re, const struct reuse_exact_acc *v, size_t n)
{
	SAMPLED_CASES(re, v, n, batch_avx2)
}

static int sampled_generic(struct reuse_exact *re, const struct reuse_exact_acc *v,
			   size_t n)
{
	SAMPLED_CASES(re, v, n, batch_generic)
}

int reuse_exact__isa(int max)
{
	has_popcnt = max != 0 && __builtin_cpu_supports("popcnt");
	has_avx2 = has_popcnt && (max < 0 || max >= 2) && __builtin_cpu_supports("avx2") &&
		   __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") &&
		   __builtin_cpu_supports("lzcnt");
	has_avx512 = has_avx2 && (max < 0 || max >= 3) && __builtin_cpu_supports("avx512f") &&
		     __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512cd") &&
		     __builtin_cpu_supports("avx512vl");
	return has_avx512 ? 3 : has_avx2 ? 2 : has_popcnt ? 1 : 0;
}

int reuse_exact__access_batch(struct reuse_exact *re,
			      const struct reuse_exact_acc *v, size_t n)
{
	if (has_avx512 < 0)
		reuse_exact__isa(-1);
	if (re->sampled && !n)
		return 0;
	if (re->sampled)
		return has_avx2 ? sampled_avx2(re, v, n) :
		       has_popcnt ? sampled_popcnt(re, v, n) : sampled_generic(re, v, n);
	return has_avx2 ? batch_avx2(re, v, n) :
	       has_popcnt ? batch_popcnt(re, v, n) : batch_generic(re, v, n);
}

/* Add @d (may be < 0) to *@bin0, keeping it >= 0; what was added. */
static double adjust_bin0(double *bin0, double d)
{
	if (*bin0 + d < 0)
		d = -*bin0;
	*bin0 += d;
	return d;
}

void reuse_exact__finish(struct reuse_exact *re)
{
	double expect, scale;
	int i;

	if (!re->sampled || re->finished)
		return;
	re->finished = 1;
	/* every distinct key has a table entry in its stream, or in the holders' */
	re->keys_sampled = re->o.mode == REUSE_EXACT_SHARED || re->nthr <= 1 ?
			   (re->nstreams ? re->streams[0].tab.n : 0) : re->holders.n;
	/* hot keys the hash does not sample are in the tables too */
	if (re->hot)
		re->keys_sampled -= re->hot->unsampled < re->keys_sampled ? re->hot->unsampled :
					re->keys_sampled;
	re->keys_est = hll__estimate(re->hll);
	/*
	 * The sampled accesses to expect are the thread's accesses x the share
	 * of the keys sampled (not the nominal rate: the sample of keys is
	 * itself off by a few percent, and that part of the difference is
	 * not hot reuses; normalizing by the sample handles it).
	 */
	expect = re->keys_sampled && re->keys_est > 0 ?
		 fmin(1, (double)re->keys_sampled / re->keys_est) : 1 / re->weight;
	/*
	 * A sampled distance d >= 1 stands for d / share to (d + 1) / share
	 * keys, evenly: the share sampled (the same ratio of keys), not the
	 * rate.
	 */
	scale = re->keys_sampled && re->keys_est > 0 ? re->keys_est / (double)re->keys_sampled :
						       re->weight;
	for (i = 0; i < re->nthr; i++) {
		struct reuse_exact_thread *t = &re->thr[i];
		const struct sdist *sd = &re->sd[i];
		u64 k;

		for (k = 0; k < sd->cap; k++) {
			double x = re->hot ? sdist_hot__x(k) : (double)k;

			if (!sd->n[k])
				continue;
			if (!k)
				t->mrc.bin[0] += sd->n[0];
			else
				mrc__spread(&t->mrc, x * scale, (x + 1) * scale, sd->n[k]);
		}
	}
	for (i = 0; i < re->nthr; i++) {
		struct reuse_exact_thread *t = &re->thr[i];
		/* hot keys' accesses are all there: the sample is of the others' */
		double d = ((double)(t->seen - t->hot) * expect - (double)(t->accesses - t->hot)) *
			   re->weight;

		/* the curve may hold less than nothing at 0: it is cut at 1 */
		t->mrc.bin[0] += d;
		d = adjust_bin0(&t->stack.bin[0], d);
		t->time.bin[0] += d;
	}
}

int reuse_exact__sample_keys(const struct reuse_exact *re, u64 *sampled, double *est)
{
	if (!re->sampled || !re->finished)
		return -EINVAL;
	*sampled = re->keys_sampled;
	*est = re->keys_est;
	return 0;
}

int reuse_exact__hot_keys(const struct reuse_exact *re, u64 *nkeys, u64 *first, u64 *last)
{
	if (!re->hot)
		return -EINVAL;
	*nkeys = re->hot->n;
	*first = re->hot->first;
	*last = re->hot->last;
	return 0;
}

double reuse_exact__sample_rate(const struct reuse_exact *re)
{
	return re->sampled ? 1 / re->weight : 1;
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
	reuse_mrc__init(&sum->mrc);
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
		sum->hot += t->hot;
		sum->seen += t->seen;
		reuse_mrc__merge(&sum->mrc, &t->mrc);
		reuse_hist__merge(&sum->stack, &t->stack);
		reuse_hist__merge(&sum->time, &t->time);
	}
}
