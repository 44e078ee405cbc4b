// SPDX-License-Identifier: GPL-2.0
/* The heap-object table: ranges, retirement by free, reuse, lookups at a time. */
#include <string.h>

#include "core/objects.h"
#include "core/tests.h"

static struct lp_alloc mk(u64 time, u64 addr, u64 size, u32 tid, u8 fn)
{
	struct lp_alloc a;

	memset(&a, 0, sizeof(a));
	a.time = time;
	a.addr = addr;
	a.size = size;
	a.pid = 100;
	a.tid = tid;
	a.fn = fn;
	a.nframes = 1;
	a.frames[0] = 0x400000 + time;
	return a;
}

LP_TEST(test_objects_reused_address_goes_to_later_allocation, "objects: a freed block's address reused: the later allocation names it")
{
	struct lp_objects *o = objects__new();
	struct lp_alloc a = mk(10, 0x10000, 64, 1, LP_ALLOC_MALLOC), f, b;
	const struct lp_object *x;

	TEST_ASSERT(o && objects__alloc(o, &a) == 0, "alloc");
	f = mk(20, 0x10000, 0, 1, LP_ALLOC_FREE);
	TEST_ASSERT(objects__free(o, &f) == 0, "free");
	b = mk(30, 0x10000, 32, 2, LP_ALLOC_CALLOC);
	TEST_ASSERT(objects__alloc(o, &b) == 0, "alloc again");
	x = objects__find(o, 100, 0x10010, 0);
	TEST_ASSERT(x && x->time == 30 && x->tid == 2 && x->size == 32, "latest: time %llu",
		    x ? (unsigned long long)x->time : 0ull);
	x = objects__find(o, 100, 0x10010, 15);
	TEST_ASSERT(x && x->time == 10 && x->end == 20, "at 15: the first block");
	x = objects__find(o, 100, 0x10010, 25);
	TEST_ASSERT(!x, "at 25 nothing is live there");
	/* past the second block's end, within the first's */
	x = objects__find(o, 100, 0x10030, 0);
	TEST_ASSERT(x && x->time == 10, "0x10030: only the first block held it");
	TEST_ASSERT(!objects__find(o, 101, 0x10010, 0), "another process");
	objects__delete(o);
	return TEST_OK;
}

LP_TEST(test_objects_page_spanning_and_large_blocks, "objects: blocks across pages and blocks of many pages are found anywhere inside")
{
	struct lp_objects *o = objects__new();
	struct lp_alloc a = mk(1, 0x20ff0, 0x30, 1, LP_ALLOC_MALLOC);
	struct lp_alloc big = mk(2, 0x7f0000000000, 64 << 20, 1, LP_ALLOC_MALLOC);
	const struct lp_object *x;

	TEST_ASSERT(objects__alloc(o, &a) == 0 && objects__alloc(o, &big) == 0, "alloc");
	x = objects__find(o, 100, 0x21010, 0);
	TEST_ASSERT(x && x->start == 0x20ff0, "second page of a spanning block");
	TEST_ASSERT(!objects__find(o, 100, 0x21020, 0), "one past its end");
	x = objects__find(o, 100, 0x7f0000000000 + (40 << 20), 0);
	TEST_ASSERT(x && x->size == (64 << 20) && x->id == 1, "inside the 64 MiB block");
	TEST_ASSERT(objects__count(o) == 2 && objects__get(o, 1) == x, "count and get");
	objects__delete(o);
	return TEST_OK;
}

LP_TEST(test_objects_free_of_unknown_or_inner_pointer_ignored, "objects: free of an inner or unknown pointer retires nothing")
{
	struct lp_objects *o = objects__new();
	struct lp_alloc a = mk(1, 0x30000, 128, 1, LP_ALLOC_MALLOC);
	struct lp_alloc f = mk(5, 0x30040, 0, 1, LP_ALLOC_FREE);
	const struct lp_object *x;

	TEST_ASSERT(objects__alloc(o, &a) == 0 && objects__free(o, &f) == 0, "events");
	x = objects__find(o, 100, 0x30000, 10);
	TEST_ASSERT(x && x->end == ~0ull, "still live at 10");
	objects__delete(o);
	return TEST_OK;
}
