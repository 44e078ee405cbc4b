/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The analyses' hashing: one mixer, one seeded generator, one map. The
 * mixer decides bucket and board positions, so results stay reproducible
 * for a given seed only while it stays the same.
 */
#ifndef LP_HASH_H
#define LP_HASH_H
#include "core/types.h"

/* MurmurHash3's 64-bit finalizer: every input bit moves every output bit. */
static inline u64 lp_hash64(u64 x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

/* splitmix64: small, seeded, reproducible; advances *@state. */
static inline u64 lp_splitmix64(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* u64 -> u64, open addressing, kept at most half full; any key, 0 too. */
struct lp_map_slot {
	u64 key, val;
	u8 used;
};

struct lp_map {
	struct lp_map_slot *v;
	u32 n, cap;		/* cap: a power of two, or 0 */
};

/* @key's value, inserted as 0 when new; NULL when out of memory. */
u64 *lp_map__slot(struct lp_map *m, u64 key);
/* Insert or replace. 0 or -ENOMEM. */
int lp_map__put(struct lp_map *m, u64 key, u64 val);
/* 1 and *@val set if @key is in, else 0. */
int lp_map__get(const struct lp_map *m, u64 key, u64 *val);
void lp_map__exit(struct lp_map *m);

#endif
