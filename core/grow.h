/* SPDX-License-Identifier: GPL-2.0 */
#ifndef LP_GROW_H
#define LP_GROW_H

#include <errno.h>
#include <stdlib.h>

/*
 * Makes room in the array *@v (@n elements of @size bytes, capacity *@cap)
 * for one more: doubles the capacity, starting at @first. Returns 0, or
 * -ENOMEM with *@v and *@cap as they were.
 */
static inline int lp_grow(void **v, size_t n, size_t *cap, size_t size, size_t first)
{
	size_t ncap;
	void *nv;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : first;
	nv = realloc(*v, ncap * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = ncap;
	return 0;
}

#endif /* LP_GROW_H */
