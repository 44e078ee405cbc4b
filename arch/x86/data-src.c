// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_SAMPLE_DATA_SRC (union perf_mem_data_src, <linux/perf_event.h>) as
 * text and as lociprof sample fields. PEBS samples carry it from the kernel;
 * the IBS decoder builds one so that reports read both the same way.
 */
#include <stdio.h>
#include <string.h>

#include <linux/perf_event.h>

#include "arch/x86/data-src.h"
#include "core/event.h"

#define FIELD(v, name, bits) (((v) >> PERF_MEM_##name##_SHIFT) & ((1ULL << (bits)) - 1))

void data_src__fields(u64 v, struct lp_data_src *d)
{
	memset(d, 0, sizeof(*d));
	d->op = FIELD(v, OP, 5);
	d->lvl = FIELD(v, LVL, 14);
	d->snoop = FIELD(v, SNOOP, 5);
	d->lock = FIELD(v, LOCK, 2);
	d->tlb = FIELD(v, TLB, 7);
	d->lvl_num = FIELD(v, LVLNUM, 4);
	d->remote = FIELD(v, REMOTE, 1);
	d->snoopx = FIELD(v, SNOOPX, 2);
	d->blk = FIELD(v, BLK, 3);
	d->hops = FIELD(v, HOPS, 3);
}

/* LP_ACCESS_* from mem_op; LP_ACCESS_NONE if it says neither. */
int data_src__kind(u64 v)
{
	unsigned int op = FIELD(v, OP, 5);

	if ((op & PERF_MEM_OP_LOAD) && (op & PERF_MEM_OP_STORE))
		return LP_ACCESS_ATOMIC;
	if (op & PERF_MEM_OP_LOAD)
		return LP_ACCESS_LOAD;
	if (op & PERF_MEM_OP_STORE)
		return LP_ACCESS_STORE;
	return LP_ACCESS_NONE;
}

u8 data_src__flags(u64 v)
{
	u8 f = 0;

	if (FIELD(v, LOCK, 2) & PERF_MEM_LOCK_LOCKED)
		f |= LP_SAMPLE_LOCKED;
	if (FIELD(v, TLB, 7) & PERF_MEM_TLB_MISS)
		f |= LP_SAMPLE_TLB_MISS;
	return f;
}

struct sbuf {
	char *buf;
	size_t len, pos;
};

static void add(struct sbuf *sb, const char *s)
{
	int n;

	if (sb->pos >= sb->len)
		return;
	n = snprintf(sb->buf + sb->pos, sb->len - sb->pos, "%s%s", sb->pos ? " " : "", s);
	if (n > 0)
		sb->pos += (size_t)n < sb->len - sb->pos ? (size_t)n : sb->len - sb->pos - 1;
}

static const char *lvl_num_name(unsigned int n)
{
	static const char *const names[16] = {
		[PERF_MEM_LVLNUM_L1] = "L1", [PERF_MEM_LVLNUM_L2] = "L2",
		[PERF_MEM_LVLNUM_L3] = "L3", [PERF_MEM_LVLNUM_L4] = "L4",
		[PERF_MEM_LVLNUM_CXL] = "CXL", [PERF_MEM_LVLNUM_IO] = "I/O",
		[PERF_MEM_LVLNUM_ANY_CACHE] = "any-cache", [PERF_MEM_LVLNUM_LFB] = "LFB",
		[PERF_MEM_LVLNUM_RAM] = "RAM", [PERF_MEM_LVLNUM_PMEM] = "PMEM",
	};

	return n < 16 ? names[n] : NULL;
}

const char *lp_data_src__str(u64 v, char *buf, size_t len)
{
	static const struct {
		unsigned int bit;
		const char *name;
	} lvls[] = {
		{ PERF_MEM_LVL_L1, "L1" }, { PERF_MEM_LVL_LFB, "LFB" },
		{ PERF_MEM_LVL_L2, "L2" }, { PERF_MEM_LVL_L3, "L3" },
		{ PERF_MEM_LVL_LOC_RAM, "local-RAM" },
		{ PERF_MEM_LVL_REM_RAM1, "remote-RAM(1-hop)" },
		{ PERF_MEM_LVL_REM_RAM2, "remote-RAM(2-hop)" },
		{ PERF_MEM_LVL_REM_CCE1, "remote-cache(1-hop)" },
		{ PERF_MEM_LVL_REM_CCE2, "remote-cache(2-hop)" },
		{ PERF_MEM_LVL_IO, "I/O" }, { PERF_MEM_LVL_UNC, "uncached" },
	};
	static const char *const hops[8] = {
		NULL, "core", "node", "socket", "board", NULL, NULL, NULL,
	};
	struct lp_data_src d;
	struct sbuf sb = { buf, len, 0 };
	char tmp[64];
	size_t i;

	if (!len)
		return buf;
	buf[0] = '\0';
	data_src__fields(v, &d);
	switch (data_src__kind(v)) {
	case LP_ACCESS_LOAD: add(&sb, "load"); break;
	case LP_ACCESS_STORE: add(&sb, "store"); break;
	case LP_ACCESS_ATOMIC: add(&sb, "load+store"); break;
	default:
		if (d.op & PERF_MEM_OP_PFETCH)
			add(&sb, "prefetch");
		else if (d.op & PERF_MEM_OP_EXEC)
			add(&sb, "exec");
	}

	/* level: the numbered form when the kernel gives one, else the bits */
	if (d.lvl_num && d.lvl_num != PERF_MEM_LVLNUM_NA && lvl_num_name(d.lvl_num)) {
		snprintf(tmp, sizeof(tmp), "%s%s", d.remote ? "remote-" : "",
			 lvl_num_name(d.lvl_num));
		add(&sb, tmp);
		if (d.lvl & PERF_MEM_LVL_HIT)
			add(&sb, "hit");
		else if (d.lvl & PERF_MEM_LVL_MISS)
			add(&sb, "miss");
	} else if (d.lvl && !(d.lvl & PERF_MEM_LVL_NA)) {
		int any = 0;

		for (i = 0; i < ARRAY_SIZE(lvls); i++)
			if (d.lvl & lvls[i].bit) {
				add(&sb, lvls[i].name);
				any = 1;
			}
		if (any && (d.lvl & PERF_MEM_LVL_HIT))
			add(&sb, "hit");
		else if (any && (d.lvl & PERF_MEM_LVL_MISS))
			add(&sb, "miss");
	}
	if (d.hops && hops[d.hops]) {
		snprintf(tmp, sizeof(tmp), "from-remote-%s", hops[d.hops]);
		add(&sb, tmp);
	}

	if (d.snoopx & PERF_MEM_SNOOPX_PEER)
		add(&sb, "snoop-peer");
	if (d.snoopx & PERF_MEM_SNOOPX_FWD)
		add(&sb, "snoop-fwd");
	if (d.snoop & PERF_MEM_SNOOP_HITM)
		add(&sb, "snoop-HITM");
	else if (d.snoop & PERF_MEM_SNOOP_HIT)
		add(&sb, "snoop-hit");
	else if (d.snoop & PERF_MEM_SNOOP_MISS)
		add(&sb, "snoop-miss");
	else if (d.snoop & PERF_MEM_SNOOP_NONE)
		add(&sb, "no-snoop");

	if (d.tlb && !(d.tlb & PERF_MEM_TLB_NA)) {
		snprintf(tmp, sizeof(tmp), "TLB%s%s%s%s %s",
			 d.tlb & PERF_MEM_TLB_L1 ? "-L1" : "",
			 d.tlb & PERF_MEM_TLB_L2 ? "-L2" : "",
			 d.tlb & PERF_MEM_TLB_WK ? "-walk" : "",
			 d.tlb & PERF_MEM_TLB_OS ? "-OS" : "",
			 d.tlb & PERF_MEM_TLB_MISS ? "miss" :
			 d.tlb & PERF_MEM_TLB_HIT ? "hit" : "?");
		add(&sb, tmp);
	}
	if (d.lock & PERF_MEM_LOCK_LOCKED)
		add(&sb, "locked");
	if (d.blk & PERF_MEM_BLK_DATA)
		add(&sb, "blocked-data");
	if (d.blk & PERF_MEM_BLK_ADDR)
		add(&sb, "blocked-addr");
	if (!sb.pos)
		snprintf(buf, len, "-");
	return buf;
}
