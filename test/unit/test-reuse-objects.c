// SPDX-License-Identifier: GPL-2.0
/*
 * reuse's data-object view on a hand-built stream: allocation events name
 * three heap blocks, samples and traps give one block far reuses, one
 * near reuses and one a use never reused; the objects are ranked by the
 * mass beyond each cache. And the exact view (reuse --exact): a hand-worked
 * access sequence through the engine, counted per line and per block.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/reuse-exact-objects.h"
#include "core/reuse-objects.h"
#include "core/tests.h"
#include "test/unit/reuse-helpers.h"

static int add_block(struct lp_symbols *s, u64 addr, u64 size, u64 time)
{
	struct lp_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = LP_EV_ALLOC;
	ev.alloc.time = time;
	ev.alloc.addr = addr;
	ev.alloc.size = size;
	ev.alloc.pid = 100;	/* ev_start's */
	ev.alloc.tid = 10;
	ev.alloc.fn = LP_ALLOC_MALLOC;
	return symbols__add_alloc(s, &ev);
}

/* One use of @addr at @t ns, trapped @dt ns later (0: never). */
static int use(struct reuse *ru, struct lp_actions *acts, u64 addr, u64 t, u64 dt)
{
	u64 cookie;

	if (feed(ru, ev_sample(10, 0, LP_ACCESS_LOAD, addr, 8, t), acts) || acts->n != 1)
		return -1;
	cookie = acts->v[0].cookie;
	return dt ? feed(ru, ev_trap(10, 0, acts->v[0].slot, cookie, t + dt), acts) : 0;
}

LP_TEST(test_reuse_objects_ranked_by_mass_beyond_caches,
	"reuse objects: far reuses, a use never reused and near reuses rank in that order by mass beyond L2; near ones miss nothing")
{
	static const struct sdcm_cache caches[] = {
		{ "L1", 4096, 8, 64 }, { "L2", 65536, 16, 64 },
	};
	struct lp_symbols *s = symbols__new();
	struct lp_actions acts = { 0 };
	struct reuse_config cfg;
	const struct reuse_result *r;
	struct reuse_object *v = NULL;
	struct reuse *ru;
	int n = 0, i;

	TEST_ASSERT(s, "symbols");
	TEST_ASSERT(!add_block(s, 0x10000, 4096, 1) && !add_block(s, 0x20000, 4096, 2) &&
		    !add_block(s, 0x30000, 64, 3), "blocks");
	reuse__config_init(&cfg);
	cfg.nslots = 1;
	cfg.gran = REUSE_GRAN_LINE;
	cfg.access_rate = 1;	/* an access per ns: times are distances */
	ru = reuse__new(&cfg);
	TEST_ASSERT(ru, "new");
	FEED(ev_start(10, 0, 0));
	for (i = 0; i < 4; i++) {	/* block 1: 10^6 accesses apart; block 2: 10 */
		TEST_ASSERT(!use(ru, &acts, 0x10000 + 64 * i, 1000 + 4000000 * (u64)i, 1000000),
			    "far use %d", i);
		TEST_ASSERT(!use(ru, &acts, 0x20000 + 64 * i, 2000000 + 4000000 * (u64)i, 10),
			    "near use %d", i);
	}
	TEST_ASSERT(!use(ru, &acts, 0x30008, 20000000, 0), "last use");
	reuse__finish(ru);
	r = reuse__result(ru);
	TEST_ASSERT(r && r->nuses == 9, "%zu uses", r ? r->nuses : 0);
	TEST_ASSERT(reuse__objects(r, s, caches, 2, &v, &n) == 0 && n == 3, "%d objects", n);
	TEST_ASSERT(v[0].start == 0x10000 && v[1].start == 0x30000 && v[2].start == 0x20000,
		    "order %#llx %#llx %#llx", (unsigned long long)v[0].start,
		    (unsigned long long)v[1].start, (unsigned long long)v[2].start);
	TEST_ASSERT(v[0].detections == 4 && fabs(v[0].beyond[0] - v[0].uses) < 1e-9 &&
		    v[0].beyond[1] > 0.99 * v[0].uses, "far: uses %g beyond %g %g", v[0].uses,
		    v[0].beyond[0], v[0].beyond[1]);
	TEST_ASSERT(v[1].cold == v[1].uses && v[1].beyond[0] == v[1].uses &&
		    v[1].beyond[1] == v[1].uses && v[1].detections == 1, "never reused: cold %g",
		    v[1].cold);
	TEST_ASSERT(v[2].detections == 4 && v[2].beyond[0] < 1e-3 * v[2].uses && v[2].uses > 0,
		    "near: beyond L1 %g", v[2].beyond[0]);
	TEST_ASSERT(v[0].kind == REUSE_OBJ_HEAP && v[0].heap && !strncmp(v[0].label, "malloc'd 4096 B", 15),
		    "label %.60s", v[0].label);
	free(v);
	/* no block and no mapping holds the uses: not available */
	symbols__delete(s);
	s = symbols__new();
	TEST_ASSERT(reuse__objects(r, s, caches, 2, &v, &n) == -ENODATA && !v, "not available");
	symbols__delete(s);
	lp_actions__exit(&acts);
	reuse__delete(ru);
	return TEST_OK;
}

LP_TEST(test_reuse_xobjs_exact_counts,
	"reuse --exact objects: per-line accesses, first accesses, invalidations and misses of a 3-line fully associative LRU cache, grouped by block")
{
	static const u64 limit[] = { 3 };
	/* thread 1: lines 0 1 2 3 0 1 0 (line 0 reused at 3 then 1), thread 2 stores line 0 */
	static const struct { u32 tid; u64 line; int store; } seq[] = {
		{ 1, 0, 0 }, { 1, 1, 0 }, { 1, 2, 0 }, { 1, 3, 0 }, { 1, 0, 0 }, { 1, 1, 0 },
		{ 1, 0, 0 }, { 2, 0, 1 }, { 1, 0, 0 },
	};
	struct reuse_exact_opts o = { .mode = REUSE_EXACT_PER_THREAD, .gran = REUSE_GRAN_LINE };
	struct lp_symbols *s = symbols__new();
	struct reuse_xobj_key k;
	struct reuse_object *v = NULL;
	struct reuse_xobjs *xo = reuse_xobjs__new(limit, 1);
	struct reuse_exact *re;
	size_t i;
	int n = 0;

	TEST_ASSERT(s && xo && !reuse_exact__new(&o, &re), "new");
	/* lines 0-1 in one block, 2-3 in another */
	TEST_ASSERT(!add_block(s, 0x10000, 128, 1) && !add_block(s, 0x10080, 128, 2), "blocks");
	for (i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		struct reuse_exact_res res;
		u64 addr = 0x10000 + 64 * seq[i].line + 8;

		TEST_ASSERT(!reuse_exact__access(re, seq[i].tid, addr, seq[i].store, &res) &&
			    !reuse_xobjs__access(xo, addr >> 6, addr, &res), "access %zu", i);
	}
	/*
	 * line 0: 5 accesses; thread 1's first (cold), at distance 3 (a miss
	 * in 3 lines), at 1 (a hit), after thread 2's store (an invalidation,
	 * a miss); thread 2's first (cold): 4 misses
	 */
	TEST_ASSERT(!reuse_xobjs__key(xo, 0x10000 >> 6, &k) && k.addr == 0x10008, "line 0");
	TEST_ASSERT(k.accesses == 5 && k.cold == 2 && k.inval == 1 && k.beyond[0] == 4,
		    "%llu acc %llu cold %llu inv %llu miss", (unsigned long long)k.accesses,
		    (unsigned long long)k.cold, (unsigned long long)k.inval,
		    (unsigned long long)k.beyond[0]);
	/* line 1: cold, then at distance 3 (lines 2, 3, 0): two misses */
	TEST_ASSERT(!reuse_xobjs__key(xo, 0x10040 >> 6, &k) && k.accesses == 2 && k.cold == 1 &&
		    k.beyond[0] == 2, "line 1: %llu beyond", (unsigned long long)k.beyond[0]);
	TEST_ASSERT(reuse_xobjs__key(xo, 0x10100 >> 6, &k) == -ENOENT, "line 4 never accessed");
	/* block 1 (lines 0, 1): 7 accesses, 6 misses; block 2 (lines 2, 3): 2 cold */
	TEST_ASSERT(reuse_xobjs__objects(xo, s, 100, &v, &n) == 0 && n == 2, "%d objects", n);
	TEST_ASSERT(v[0].start == 0x10000 && v[0].uses == 7 && v[0].beyond[0] == 6 &&
		    v[0].cold == 3 && v[0].inval == 1, "first %#llx %g acc %g miss",
		    (unsigned long long)v[0].start, v[0].uses, v[0].beyond[0]);
	TEST_ASSERT(v[1].start == 0x10080 && v[1].uses == 2 && v[1].beyond[0] == 2 &&
		    v[1].kind == REUSE_OBJ_HEAP, "second %#llx", (unsigned long long)v[1].start);
	free(v);
	reuse_xobjs__delete(xo);
	reuse_exact__delete(re);
	symbols__delete(s);
	return TEST_OK;
}
