// SPDX-License-Identifier: GPL-2.0
/*
 * The heap-object table: ranges, retirement by free, reuse, lookups at a
 * time; comdetect's object view over it.
 */
#include <stdlib.h>
#include <string.h>

#include "core/comdetect-objects.h"
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

LP_TEST(test_objects_reused_address_goes_to_later_allocation, "objects: a freed block's address reused: the later allocation names it, the earlier one at its time")
{
	struct lp_objects *o = objects__new();
	/* A spans two pages, B only the first: B gets an entry of its own */
	struct lp_alloc a = mk(10, 0x10ff0, 0x40, 1, LP_ALLOC_MALLOC), f, b;
	const struct lp_object *x;

	TEST_ASSERT(o && objects__alloc(o, &a) == 0, "alloc");
	f = mk(20, 0x10ff0, 0, 1, LP_ALLOC_FREE);
	TEST_ASSERT(objects__free(o, &f) == 0, "free");
	b = mk(30, 0x10ff0, 8, 2, LP_ALLOC_CALLOC);
	TEST_ASSERT(objects__alloc(o, &b) == 0, "alloc again");
	x = objects__find(o, 100, 0x10ff4, 0);
	TEST_ASSERT(x && x->time == 30 && x->tid == 2 && x->size == 8, "latest: time %llu",
		    x ? (unsigned long long)x->time : 0ull);
	x = objects__find(o, 100, 0x10ff4, 15);
	TEST_ASSERT(x && x->time == 10 && x->end == 20, "at 15: the first block");
	x = objects__find(o, 100, 0x10ff4, 25);
	TEST_ASSERT(!x, "at 25 nothing is live there");
	/* past the second block's end, within the first's */
	x = objects__find(o, 100, 0x11010, 0);
	TEST_ASSERT(x && x->time == 10, "0x11010: only the first block held it");
	TEST_ASSERT(!objects__find(o, 101, 0x10ff4, 0), "another process");
	objects__delete(o);
	return TEST_OK;
}

LP_TEST(test_objects_alloc_free_loop_keeps_one_entry, "objects: a malloc/free loop at one address keeps one entry, named by the latest allocation")
{
	struct lp_objects *o = objects__new();
	const struct lp_object *x;
	int i;

	for (i = 0; i < 1000; i++) {
		struct lp_alloc a = mk(10 * i + 1, 0x50000, 64, 1, LP_ALLOC_MALLOC);
		struct lp_alloc f = mk(10 * i + 5, 0x50000, 0, 1, LP_ALLOC_FREE);

		TEST_ASSERT(objects__alloc(o, &a) == 0 && objects__free(o, &f) == 0, "pair %d", i);
	}
	TEST_ASSERT(objects__count(o) == 1, "%u entries", objects__count(o));
	x = objects__find(o, 100, 0x50010, 0);
	TEST_ASSERT(x && x->time == 9991 && x->end == 9995, "latest: time %llu",
		    x ? (unsigned long long)x->time : 0ull);
	objects__delete(o);
	return TEST_OK;
}

LP_TEST(test_objects_block_reported_twice_keeps_the_outer_call, "objects: a live block allocated again (operator new's malloc, then new) keeps one entry, the later report's path")
{
	struct lp_objects *o = objects__new();
	struct lp_alloc in = mk(10, 0x60000, 24, 1, LP_ALLOC_MALLOC);
	struct lp_alloc out = mk(11, 0x60000, 24, 1, LP_ALLOC_NEW);
	struct lp_alloc grown = mk(20, 0x61000, 64, 1, LP_ALLOC_MALLOC);
	struct lp_alloc huge = mk(21, 0x61000, 1 << 20, 1, LP_ALLOC_NEW);
	struct lp_alloc f = mk(30, 0x60000, 0, 1, LP_ALLOC_FREE);
	const struct lp_object *x;

	TEST_ASSERT(objects__alloc(o, &in) == 0 && objects__alloc(o, &out) == 0, "alloc");
	TEST_ASSERT(objects__count(o) == 1, "%u entries", objects__count(o));
	x = objects__find(o, 100, 0x60010, 0);
	TEST_ASSERT(x && x->fn == LP_ALLOC_NEW && x->frames[0] == 0x400000 + 11, "new's report");
	TEST_ASSERT(objects__free(o, &f) == 0, "free");
	x = objects__find(o, 100, 0x60010, 0);
	TEST_ASSERT(x && x->end == 30, "the free retires it: end %llu",
		    x ? (unsigned long long)x->end : 0ull);
	/* other pages: a second entry, the first one ended where the second began */
	TEST_ASSERT(objects__alloc(o, &grown) == 0 && objects__alloc(o, &huge) == 0, "alloc 2");
	x = objects__find(o, 100, 0x61010, 0);
	TEST_ASSERT(x && x->size == (1 << 20), "the later block");
	x = objects__find(o, 100, 0x61010, 20);
	TEST_ASSERT(x && x->size == 64 && x->end == 21, "at 20: the first, ended at 21");
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

LP_TEST(test_comdetect_objects_split_and_rank, "comdetect objects: a line's volume is split over the blocks its offsets hit, by count, then ranked")
{
	struct lp_symbols *s = symbols__new();
	struct comdetect_line lines[2];
	struct comdetect_result res;
	struct comdetect_object *v = NULL;
	struct lp_event ev;
	int n = 0;

	memset(&ev, 0, sizeof(ev));
	ev.type = LP_EV_ALLOC;
	ev.alloc = mk(1, 0x40000, 16, 1, LP_ALLOC_CALLOC);	/* bytes 0x00-0x0f of line A */
	TEST_ASSERT(s && symbols__add_alloc(s, &ev) == 0, "block 1");
	ev.alloc = mk(2, 0x40010, 0x100, 1, LP_ALLOC_MALLOC);	/* rest of A, all of B */
	TEST_ASSERT(symbols__add_alloc(s, &ev) == 0, "block 2");
	memset(lines, 0, sizeof(lines));
	memset(&res, 0, sizeof(res));
	lines[0].line = 0x40000;
	lines[0].vol_false = 8;
	lines[0].ntouches = 2;
	lines[0].touches[0] = (struct comdetect_touch){ .thread = 0, .off = 8, .len = 8, .count = 3 };
	lines[0].touches[1] = (struct comdetect_touch){ .thread = 1, .off = 0x20, .len = 8, .count = 1 };
	lines[1].line = 0x40040;
	lines[1].vol_true = 10;
	lines[1].ntouches = 1;
	lines[1].touches[0] = (struct comdetect_touch){ .thread = 2, .off = 0, .len = 4, .count = 5 };
	/* the lines' sampled accesses over time: each to its block, offsets in it */
	lines[0].npoints = 3;
	lines[0].points_seen = 40;
	lines[0].points[0] = (struct comdetect_point){ .time = 100, .thread = 0, .off = 8, .len = 8,
						       .kind = LP_ACCESS_STORE };
	lines[0].points[1] = (struct comdetect_point){ .time = 200, .thread = 1, .off = 0x20,
						       .len = 8, .kind = LP_ACCESS_LOAD };
	lines[0].points[2] = (struct comdetect_point){ .time = 300, .thread = 0, .off = 8, .len = 8,
						       .kind = LP_ACCESS_STORE };
	lines[1].npoints = 1;
	lines[1].points_seen = 5;
	lines[1].points[0] = (struct comdetect_point){ .time = 400, .thread = 2, .off = 0, .len = 4,
						       .kind = LP_ACCESS_ATOMIC };
	res.nlines = 2;
	res.lines = lines;
	TEST_ASSERT(comdetect__objects(&res, s, 100, &v, &n) == 0 && n == 2, "%d objects", n);
	/* block 2 (v[0]): 0x40020 at +0x10, 0x40040 at +0x30; block 1 (v[1]): +8 twice */
	TEST_ASSERT(v[0].npoints == 2 && v[0].points[0].off == 0x10 && v[0].points[0].time == 200 &&
		    v[0].points[1].off == 0x30 && v[0].points[1].thread == 2 &&
		    v[0].points[1].kind == LP_ACCESS_ATOMIC && v[0].line_points_seen == 45,
		    "b2 %u %llu", v[0].npoints,
		    (unsigned long long)v[0].line_points_seen);
	TEST_ASSERT(v[1].npoints == 2 && v[1].points[0].off == 8 && v[1].points[1].off == 8 &&
		    v[1].points[1].time == 300 && v[1].line_points_seen == 40, "block 1: %u points",
		    v[1].npoints);
	/* block 2: 2 false (a quarter of line A) + 10 true; block 1: 6 false */
	TEST_ASSERT(v[0].heap && v[0].heap->start == 0x40010 && v[0].vol_true == 10 &&
		    v[0].vol_false == 2, "first: %#llx true %g false %g",
		    v[0].heap ? (unsigned long long)v[0].heap->start : 0ull, v[0].vol_true,
		    v[0].vol_false);
	TEST_ASSERT(v[0].nlines == 2 && v[0].nthreads == 2 && v[0].threads == 0x6 &&
		    v[0].off_lo == 0x10 && v[0].off_hi == 0x33, "lines %u threads %#llx offs %#x-%#x",
		    v[0].nlines, (unsigned long long)v[0].threads, v[0].off_lo, v[0].off_hi);
	TEST_ASSERT(v[1].kind == COMDETECT_OBJ_HEAP && v[1].vol_false == 6 && v[1].vol_true == 0 &&
		    !strncmp(v[1].label, "calloc'd 16 B", 13), "second: %.60s false %g", v[1].label,
		    v[1].vol_false);
	comdetect__objects_free(v, n);
	symbols__delete(s);
	return TEST_OK;
}
