// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>

#include "core/analysis.h"

int lp_actions__push(struct lp_actions *acts, const struct lp_action *a)
{
	if (acts->n == acts->cap) {
		int cap = acts->cap ? acts->cap * 2 : 16;
		struct lp_action *v = realloc(acts->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		acts->v = v;
		acts->cap = cap;
	}
	acts->v[acts->n++] = *a;
	return 0;
}

void lp_actions__reset(struct lp_actions *acts)
{
	acts->n = 0;
}

void lp_actions__exit(struct lp_actions *acts)
{
	free(acts->v);
	acts->v = NULL;
	acts->n = acts->cap = 0;
}
