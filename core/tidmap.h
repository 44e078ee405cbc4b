/* SPDX-License-Identifier: GPL-2.0 */
/* Thread id -> thread index (creation order), for the analyses. */
#ifndef LP_TIDMAP_H
#define LP_TIDMAP_H
#include "core/types.h"

struct lp_tidmap_entry {
	u32 tid, idx;
	u8 used;
};

struct lp_tidmap {
	struct lp_tidmap_entry *v;	/* open addressing, power-of-two size */
	u32 n, cap;
};

/* Map @tid to @idx (a reused tid takes the new index). 0 or -ENOMEM. */
int lp_tidmap__set(struct lp_tidmap *m, u32 tid, u32 idx);
/* 1 and *@idx set if @tid is mapped, else 0. */
int lp_tidmap__get(const struct lp_tidmap *m, u32 tid, u32 *idx);
void lp_tidmap__exit(struct lp_tidmap *m);

#endif
