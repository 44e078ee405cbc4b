// SPDX-License-Identifier: GPL-2.0
/*
 * Software precise sampling (Documentation/facilities.md, "Software precise sampling"): a per-thread cpu-clock sampling
 * event with the user registers; the instruction at the sampled IP is decoded
 * (x86-decode.c) and its effective address computed from those registers.
 *
 * attr choices:
 * - disabled=0: lociprof opens the event on a thread while it is
 *   ptrace-stopped (after exec for the first thread, at the clone stop for
 *   the others), so it is live from the thread's next instruction. A caller
 *   that opens on a pre-exec child may set disabled=1 + enable_on_exec=1
 *   itself; that cannot be combined with sigtrap (which needs remove_on_exec).
 * - wakeup_events=32: at the 10 kHz default the reader wakes every ~3 ms.
 * - sample_id_all=1 so side-band records carry tid/time.
 * - the period is in ns of the thread's CPU time, not an event count.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "arch/x86-soft/soft.h"
#include "core/facility.h"
#include "core/perf-util.h"
#include "arch/x86-soft/x86-decode.h"

#define SOFT_DEFAULT_PERIOD	100000ULL	/* ns: 10 kHz of thread CPU time */
#define SOFT_SAMPLE_TYPE	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | \
				 PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
				 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | \
				 PERF_SAMPLE_REGS_USER)
#define SOFT_PAGE		4096ULL
#define SOFT_BACK_BYTES		64	/* code read before IP to find the previous insn */
#define SOFT_BACK_STARTS	16	/* decoding start offsets tried in it */
#define SOFT_CACHE_MAX		(1u << 20)	/* slots; beyond that start over */

static int soft_setup(const struct lp_sampling_opts *opts,
		      struct perf_event_attr *attrs, int *nattrs)
{
	struct perf_event_attr *a = &attrs[0];

	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_SOFTWARE;
	a->size = sizeof(*a);
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	if (opts && opts->freq) {
		a->freq = 1;
		a->sample_freq = opts->freq;
	} else {
		a->sample_period = opts && opts->period ? opts->period :
				   SOFT_DEFAULT_PERIOD;
	}
	a->sample_type = SOFT_SAMPLE_TYPE;
	a->sample_regs_user = LP_REGS_USER_MASK;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->sample_id_all = 1;
	a->wakeup_events = 32;
	if (opts && opts->sigtrap) {
		a->sigtrap = 1;
		a->remove_on_exec = 1;	/* the kernel requires it with sigtrap */
	}
	*nattrs = 1;
	return 0;
}

static int soft_probe(struct lp_probe *res)
{
	struct lp_sampling_opts opts = { 0 };
	struct perf_event_attr attr[LP_MAX_FACILITY_ATTRS];
	int n, fd, err = 0;
	pid_t child;

	res->usable = 0;
	soft_setup(&opts, attr, &n);
	child = fork();
	if (child < 0) {
		err = errno;
		snprintf(res->reason, sizeof(res->reason),
			 "cannot fork a probe child: %s", strerror(err));
		return 0;
	}
	if (!child) {
		for (;;)
			pause();
	}
	fd = perf__open(&attr[0], child, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		err = fd;
	else
		close(fd);
	kill(child, SIGKILL);
	while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
		;
	if (err) {
		perf__strerror(err, &attr[0], "soft (cpu-clock + user regs)",
			       res->reason, sizeof(res->reason));
		return 0;
	}
	res->usable = 1;
	snprintf(res->reason, sizeof(res->reason),
		 "cpu-clock sampling with user registers (IP, GPRs, FLAGS) opens "
		 "on a child; addresses from decoding the sampled instruction, "
		 "period in ns of thread CPU time");
	return 0;
}

/* ---- per-process decode cache ---------------------------------------- */

enum { INSN_UNKNOWN, INSN_OK, INSN_BAD };
/* PREV_NONE: voting failed (a learned boundary may still come);
 * PREV_CONFLICT: two sampled instructions end at this IP (overlapping code). */
enum { PREV_UNKNOWN, PREV_LEARNED, PREV_SYNC, PREV_NONE, PREV_CONFLICT };

/*
 * Keyed by IP. Holds the decoded description of the instruction at IP (not
 * its address: registers differ per sample) and what is known of the
 * instruction that ends at IP.
 */
struct soft_slot {
	u64 ip;
	u64 prev_ip;
	u8 used;
	u8 state;		/* INSN_* */
	u8 prev_state;		/* PREV_* */
	struct x86_insn_info insn;
};

struct soft_cache {
	u32 pid;
	u32 nslots;		/* power of two */
	u32 nused;
	struct soft_slot *slots;
};

static u32 slot_hash(u64 ip, u32 nslots)
{
	return (u32)((ip * 0x9e3779b97f4a7c15ULL) >> 32) & (nslots - 1);
}

static struct soft_slot *cache__find(struct soft_cache *c, u64 ip)
{
	u32 i;

	if (!c || !c->slots)
		return NULL;
	for (i = slot_hash(ip, c->nslots);; i = (i + 1) & (c->nslots - 1)) {
		if (!c->slots[i].used)
			return NULL;
		if (c->slots[i].ip == ip)
			return &c->slots[i];
	}
}

static int cache__grow(struct soft_cache *c)
{
	u32 n = c->nslots ? c->nslots * 2 : 256, i, j;
	struct soft_slot *s;

	if (n > SOFT_CACHE_MAX) {	/* bound memory: forget everything */
		memset(c->slots, 0, sizeof(*s) * c->nslots);
		c->nused = 0;
		return 0;
	}
	s = calloc(n, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (i = 0; i < c->nslots; i++) {
		if (!c->slots[i].used)
			continue;
		for (j = slot_hash(c->slots[i].ip, n); s[j].used; j = (j + 1) & (n - 1))
			;
		s[j] = c->slots[i];
	}
	free(c->slots);
	c->slots = s;
	c->nslots = n;
	return 0;
}

/* Find or add the slot of @ip; NULL on ENOMEM. Invalidates other slot pointers. */
static struct soft_slot *cache__get(struct soft_cache *c, u64 ip)
{
	struct soft_slot *s = cache__find(c, ip);
	u32 i;

	if (s)
		return s;
	if ((c->nused + 1) * 2 > c->nslots && cache__grow(c))
		return NULL;
	for (i = slot_hash(ip, c->nslots); c->slots[i].used;
	     i = (i + 1) & (c->nslots - 1))
		;
	s = &c->slots[i];
	memset(s, 0, sizeof(*s));
	s->used = 1;
	s->ip = ip;
	c->nused++;
	return s;
}

static struct soft_cache *soft_cache(struct lp_decode_ctx *ctx)
{
	struct soft_cache *c = ctx->cache;

	if (c && c->pid != ctx->pid) {
		free(c->slots);
		memset(c, 0, sizeof(*c));
		c->pid = ctx->pid;
	}
	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return NULL;
		c->pid = ctx->pid;
		ctx->cache = c;
	}
	return c;
}

static void soft_flush(struct lp_decode_ctx *ctx)
{
	struct soft_cache *c = ctx->cache;

	if (!c)
		return;
	free(c->slots);
	free(c);
	ctx->cache = NULL;
}

/* ---- reading and decoding code --------------------------------------- */

/* Read up to @len bytes at @addr; a failed read is retried up to the page
 * end (an instruction near the end of the last code page). */
static long code__read(struct lp_decode_ctx *ctx, u64 addr, u8 *buf, size_t len)
{
	u64 room = SOFT_PAGE - (addr & (SOFT_PAGE - 1));
	long n;

	if (!ctx->read_mem)
		return -EFAULT;
	n = ctx->read_mem(ctx->arg, ctx->pid, addr, buf, len);
	if (n <= 0 && room < len)
		n = ctx->read_mem(ctx->arg, ctx->pid, addr, buf, room);
	if (n == 0)
		return -EFAULT;
	return n;
}

/* The instruction at @ip, from the cache or decoded: 0, -EFAULT, -EILSEQ. */
static int insn__get(struct lp_decode_ctx *ctx, u64 ip,
		     struct x86_insn_info *insn)
{
	struct soft_cache *c = soft_cache(ctx);
	struct soft_slot *s = cache__find(c, ip);
	u8 buf[X86_MAX_INSN_LEN];
	long n;
	int err;

	if (s && s->state == INSN_OK) {
		*insn = s->insn;
		return 0;
	}
	if (s && s->state == INSN_BAD)
		return -EILSEQ;
	n = code__read(ctx, ip, buf, sizeof(buf));
	if (n < 0)
		return -EFAULT;		/* not cached: may become readable */
	err = x86_decode__insn(buf, n, ip, insn);
	if (err == -ENOMEM)
		return err;
	if (!c)
		return err;
	s = cache__get(c, ip);
	if (!s)
		return err;
	s->state = err ? INSN_BAD : INSN_OK;
	if (err)
		return err;
	s->insn = *insn;
	/* A sampled IP is a true boundary: it is the previous insn of ip+len. */
	s = cache__get(c, ip + insn->len);
	if (s) {
		if (s->prev_state == PREV_LEARNED) {
			if (s->prev_ip != ip)
				s->prev_state = PREV_CONFLICT;
		} else if (s->prev_state != PREV_CONFLICT) {
			s->prev_state = PREV_LEARNED;
			s->prev_ip = ip;
		}
	}
	return 0;
}

/* ---- decode ------------------------------------------------------------ */

static void sample__init(const struct lp_perf_sample *raw, struct lp_sample *out)
{
	memset(out, 0, sizeof(*out));
	out->time = raw->time;
	out->pid = raw->pid;
	out->tid = raw->tid;
	out->cpu = raw->cpu;
	out->ip = raw->ip;
	out->period = raw->period;
}

/* 1 if the sample cannot carry an address whatever the code (noaddr set). */
static int sample__unusable(const struct lp_perf_sample *raw,
			    struct lp_sample *out)
{
	if ((raw->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL ||
	    (s64)raw->ip < 0) {
		out->flags |= LP_SAMPLE_KERNEL;
		out->noaddr = LP_NOADDR_KERNEL;
		return 1;
	}
	if (!raw->regs_abi || !(raw->sample_type & PERF_SAMPLE_REGS_USER)) {
		out->noaddr = LP_NOADDR_NO_REGS;
		return 1;
	}
	return 0;
}

static u8 noaddr_of(int err)
{
	switch (err) {
	case 0:			return LP_NOADDR_NONE;
	case -EFAULT:		return LP_NOADDR_CODE_UNREADABLE;
	case -ENODATA:		return LP_NOADDR_NOT_MEMORY;
	case -EOPNOTSUPP:	return LP_NOADDR_UNSUPPORTED;
	case -EADDRNOTAVAIL:	return LP_NOADDR_UNSUPPORTED;
	case -ENOENT:		return LP_NOADDR_DECODE_FAILED;
	default:		return LP_NOADDR_DECODE_FAILED;
	}
}

static void sample__set(struct lp_sample *out, const struct x86_insn_info *insn,
			const struct x86_access *acc)
{
	out->size = acc->size;
	out->kind = acc->kind;
	out->addr = acc->addr;
	if (insn->flags & X86_INSN_LOCKED)
		out->flags |= LP_SAMPLE_LOCKED;
}

static int soft_decode(struct lp_decode_ctx *ctx, const struct lp_perf_sample *raw,
		       struct lp_sample *out)
{
	struct x86_insn_info insn;
	struct x86_access acc;
	int err;

	sample__init(raw, out);
	if (sample__unusable(raw, out))
		return 0;
	err = insn__get(ctx, raw->ip, &insn);
	if (err == -ENOMEM)
		return err;
	if (!err) {
		if (x86_insn__regs_needed(&insn) & ~raw->regs_mask) {
			out->noaddr = LP_NOADDR_NO_REGS;
			return 0;
		}
		err = x86_insn__ea(&insn, raw->regs, ctx->fs_base, ctx->gs_base,
				   &acc);
		sample__set(out, &insn, &acc);
		if (err)
			out->addr = 0;
		else	/* the timer interrupted before IP executed */
			out->flags |= LP_SAMPLE_PENDING;
	}
	out->noaddr = noaddr_of(err);
	return 0;
}

/* ---- previous instruction ---------------------------------------------- */

/*
 * Decode forward from SOFT_BACK_STARTS offsets of the code before @ip; x86
 * decoding resynchronises within a few instructions, so the streams that
 * land exactly on @ip vote for where the instruction before it starts.
 */
static int prev__sync(struct lp_decode_ctx *ctx, u64 ip, u64 *prev)
{
	u8 buf[SOFT_BACK_BYTES];
	u64 start = ip - SOFT_BACK_BYTES, page = ip & ~(SOFT_PAGE - 1);
	u64 cand[SOFT_BACK_STARTS];
	int votes[SOFT_BACK_STARTS], ncand = 0, hits = 0, best = -1;
	size_t blen = SOFT_BACK_BYTES, pos, l;
	int s, i, last;
	long n;

	if (ip < SOFT_BACK_BYTES || !ctx->read_mem)
		return -ENOENT;
	n = ctx->read_mem(ctx->arg, ctx->pid, start, buf, blen);
	if (n != (long)blen) {
		if (page == ip || ip - page >= SOFT_BACK_BYTES)
			return -ENOENT;
		start = page;	/* previous page unreadable: this page only */
		blen = ip - page;
		n = ctx->read_mem(ctx->arg, ctx->pid, start, buf, blen);
		if (n != (long)blen)
			return -ENOENT;
	}
	for (s = 0; s < SOFT_BACK_STARTS && (size_t)s < blen; s++) {
		last = -1;
		for (pos = s; pos < blen; pos += l) {
			l = x86_decode__len(buf + pos, blen - pos, start + pos);
			if (!l)
				break;
			last = pos;
		}
		if (pos != blen || last < 0)
			continue;
		hits++;
		for (i = 0; i < ncand && cand[i] != start + last; i++)
			;
		if (i == ncand) {
			cand[ncand] = start + last;
			votes[ncand++] = 0;
		}
		votes[i]++;
	}
	for (i = 0; i < ncand; i++)
		if (best < 0 || votes[i] > votes[best])
			best = i;
	if (best < 0 || votes[best] < 2 || votes[best] * 4 < hits * 3)
		return -ENOENT;
	*prev = cand[best];
	return 0;
}

/* Where the instruction ending at @ip starts: 0 or -ENOENT. */
static int prev__find(struct lp_decode_ctx *ctx, u64 ip, u64 *prev)
{
	struct soft_cache *c = soft_cache(ctx);
	struct soft_slot *s = cache__find(c, ip);
	int err;

	if (s && (s->prev_state == PREV_LEARNED || s->prev_state == PREV_SYNC)) {
		*prev = s->prev_ip;
		return 0;
	}
	if (s && (s->prev_state == PREV_NONE || s->prev_state == PREV_CONFLICT))
		return -ENOENT;
	err = prev__sync(ctx, ip, prev);
	if (c && (s = cache__get(c, ip)) && s->prev_state == PREV_UNKNOWN) {
		s->prev_state = err ? PREV_NONE : PREV_SYNC;
		s->prev_ip = err ? 0 : *prev;
	}
	return err;
}

int soft__decode_prev(struct lp_decode_ctx *ctx, const struct lp_perf_sample *raw,
		      struct lp_sample *out)
{
	struct x86_insn_info insn;
	struct x86_access acc;
	u64 prev;
	int err;

	sample__init(raw, out);
	if (sample__unusable(raw, out))
		return -EINVAL;
	err = prev__find(ctx, raw->ip, &prev);
	if (!err)
		err = insn__get(ctx, prev, &insn);
	if (!err && (u64)(prev + insn.len) != raw->ip)
		err = -ENOENT;
	if (!err && (insn.flags & X86_INSN_BRANCH) && insn.mem != X86_MEM_NONE)
		err = -ENOENT;		/* jmp/call *mem, ret: no fall-through */
	if (err) {
		out->noaddr = err == -EFAULT ? LP_NOADDR_CODE_UNREADABLE :
					       LP_NOADDR_DECODE_FAILED;
		return err == -ENOMEM ? err : -ENOENT;
	}
	out->ip = prev;
	out->flags |= LP_SAMPLE_PREV_INSN;
	if ((x86_insn__regs_needed(&insn) | 1ull << LP_REG_SP) & ~raw->regs_mask) {
		out->noaddr = LP_NOADDR_NO_REGS;
		return -EINVAL;
	}
	err = x86_insn__ea_after(&insn, raw->regs, ctx->fs_base, ctx->gs_base,
				 &acc);
	sample__set(out, &insn, &acc);
	if (err)
		out->addr = 0;
	out->noaddr = noaddr_of(err);
	return err;
}

const struct lp_facility_ops lp_facility_soft = {
	.name = "soft",
	.desc = "software precise sampling: cpu-clock + user registers, "
		"address from decoding the sampled instruction",
	.probe = soft_probe,
	.setup = soft_setup,
	.decode = soft_decode,
	.decode_prev = soft__decode_prev,
	.flush = soft_flush,
	.default_period = SOFT_DEFAULT_PERIOD,
	.period_unit = "ns",
	.auto_order = 2,
};
LP_FACILITY(lp_facility_soft);
