// SPDX-License-Identifier: GPL-2.0
/*
 * lociprof.data writer and reader (format: lociprof-datafile(5)).
 *
 * Writer: records are serialized field by field into a 128 KiB chunk; a
 * full chunk goes through ZSTD_compressStream2 and the compressed bytes are
 * written when the output buffer fills, so the hot path is a few stores per
 * event. Reader: a decoded window that grows to hold the largest record;
 * every length is checked against LP_DATA_MAX_RECORD and the window before
 * a byte is read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "core/datafile.h"

/* Record types outside the event range (events use enum lp_event_type). */
#define REC_HEADER	0x8000
#define REC_END		0x8001

#define PREAMBLE_SIZE	16
#define REC_HDR_SIZE	8
#define CHUNK		(128 * 1024)
#define ZSTD_LEVEL	1	/* fast: this runs while the target runs */

struct lp_datafile {
	int writing;
	int fd;
	int err;			/* sticky */
	u32 flags;
	u64 counts[LP_EV__MAX];
	u64 nevents;
	/* writer */
	ZSTD_CCtx *cctx;
	unsigned char *ibuf;		/* serialized, not yet compressed */
	size_t ilen;
	unsigned char *obuf;		/* compressed, not yet written */
	size_t ocap;
	/* reader input: memory, or a buffer refilled from fd */
	ZSTD_DCtx *dctx;
	const unsigned char *in;
	size_t in_len, in_pos;
	unsigned char *inbuf;
	size_t inbuf_cap;
	int in_eof;			/* no more input will come */
	int frame_done;			/* last zstd call ended a frame */
	/* reader output: decoded stream window [rpos, wpos) of buf */
	unsigned char *buf;
	size_t rpos, wpos, cap;
	u64 unknown;			/* records of unknown type skipped */
	int done;			/* end record verified */
};

/* ---- little-endian serialization ---- */

struct wb {
	unsigned char *p;
	size_t n, cap;
	int overflow;
};

static void wb_bytes(struct wb *w, const void *src, size_t len)
{
	if (w->overflow || w->cap - w->n < len) {
		w->overflow = 1;
		return;
	}
	memcpy(w->p + w->n, src, len);
	w->n += len;
}

static void wb_le(struct wb *w, u64 v, int bytes)
{
	unsigned char b[8];
	int i;

	for (i = 0; i < bytes; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	wb_bytes(w, b, bytes);
}

#define wb_u8(w, v)	wb_le(w, (u8)(v), 1)
#define wb_u16(w, v)	wb_le(w, (u16)(v), 2)
#define wb_u32(w, v)	wb_le(w, (u32)(v), 4)
#define wb_u64(w, v)	wb_le(w, (u64)(v), 8)

/* u32 length + bytes, at most @max bytes of @s (no NUL on the wire). */
static void wb_str(struct wb *w, const char *s, size_t max)
{
	size_t len = strnlen(s, max);

	wb_u32(w, len);
	wb_bytes(w, s, len);
}

struct rd {
	const unsigned char *p, *end;
	int bad;
};

static u64 rd_le(struct rd *r, int bytes)
{
	u64 v = 0;
	int i;

	if (r->bad || r->end - r->p < bytes) {
		r->bad = 1;
		return 0;
	}
	for (i = 0; i < bytes; i++)
		v |= (u64)r->p[i] << (8 * i);
	r->p += bytes;
	return v;
}

#define rd_u8(r)	((u8)rd_le(r, 1))
#define rd_u16(r)	((u16)rd_le(r, 2))
#define rd_u32(r)	((u32)rd_le(r, 4))
#define rd_s32(r)	((s32)rd_le(r, 4))
#define rd_u64(r)	rd_le(r, 8)

/* Length-prefixed string into @dst of @cap bytes, NUL-terminated. */
static void rd_str(struct rd *r, char *dst, size_t cap)
{
	u32 len = rd_u32(r);

	if (r->bad || len >= cap || (size_t)(r->end - r->p) < len) {
		r->bad = 1;
		dst[0] = '\0';
		return;
	}
	memcpy(dst, r->p, len);
	dst[len] = '\0';
	r->p += len;
}

/* ---- header ---- */

int datafile__set_cmdline(struct lp_data_header *h, int argc,
			  char *const *argv)
{
	size_t n = 0, len;
	int i;

	for (i = 0; i < argc; i++) {
		len = strlen(argv[i]) + 1;
		if (len > sizeof(h->cmdline) - n)
			return -E2BIG;
		memcpy(h->cmdline + n, argv[i], len);
		n += len;
	}
	h->argc = argc;
	h->cmdline_len = n;
	return 0;
}

int datafile__get_argv(const struct lp_data_header *h, const char **argv,
		       int max)
{
	size_t pos = 0, end = h->cmdline_len;
	int n = 0;

	if (end > sizeof(h->cmdline))
		end = sizeof(h->cmdline);
	while (n < max && (u32)n < h->argc && pos < end) {
		const char *s = h->cmdline + pos;
		size_t len = strnlen(s, end - pos);

		if (len == end - pos)	/* unterminated */
			break;
		argv[n++] = s;
		pos += len + 1;
	}
	return n;
}

/* Per-cpu entries worth writing: up to the last cpu that is not -1/-1. */
static int topo_nent(const struct lp_topology *t)
{
	int n = t->ncpus, i;

	for (i = LP_MAX_CPUS - 1; i >= 0; i--)
		if (t->cpu_core[i] != -1 || t->cpu_socket[i] != -1)
			break;
	if (i + 1 > n)
		n = i + 1;
	if (n < 0)
		n = 0;
	if (n > LP_MAX_CPUS)
		n = LP_MAX_CPUS;
	return n;
}

static void header_serialize(struct wb *w, const struct lp_data_header *h)
{
	const struct lp_topology *t = &h->topo;
	int i, j, nent = topo_nent(t), ncaches = t->ncaches;
	u32 clen = h->cmdline_len;

	wb_str(w, h->cpu_vendor, sizeof(h->cpu_vendor) - 1);
	wb_u32(w, h->cpu_family);
	wb_u32(w, h->cpu_model);
	wb_str(w, h->cpu_name, sizeof(h->cpu_name) - 1);
	wb_str(w, h->kernel_release, sizeof(h->kernel_release) - 1);
	wb_str(w, h->hostname, sizeof(h->hostname) - 1);
	wb_str(w, h->facility, sizeof(h->facility) - 1);
	wb_u64(w, h->period);
	wb_str(w, h->period_unit, sizeof(h->period_unit) - 1);
	wb_u64(w, h->sampling_flags);
	wb_u64(w, h->start_time);
	wb_u64(w, h->start_perf_time);
	if (clen > sizeof(h->cmdline))
		clen = sizeof(h->cmdline);
	wb_u32(w, h->argc);
	wb_u32(w, clen);
	wb_bytes(w, h->cmdline, clen);

	wb_u32(w, t->ncpus);
	wb_u32(w, t->nsockets);
	wb_u32(w, t->ncores);
	wb_u32(w, nent);
	for (i = 0; i < nent; i++) {
		wb_u32(w, t->cpu_core[i]);
		wb_u32(w, t->cpu_socket[i]);
	}
	if (ncaches < 0)
		ncaches = 0;
	if (ncaches > LP_MAX_CACHES)
		ncaches = LP_MAX_CACHES;
	wb_u32(w, ncaches);
	for (i = 0; i < ncaches; i++) {
		const struct lp_cache *c = &t->caches[i];
		int nwords = 0;

		for (j = 0; j < LP_MAX_CPUS / 64; j++)
			if (c->cpus.bits[j])
				nwords = j + 1;
		wb_u32(w, c->level);
		wb_str(w, c->type, sizeof(c->type) - 1);
		wb_u64(w, c->size);
		wb_u32(w, c->ways);
		wb_u32(w, c->line_size);
		wb_u32(w, c->sets);
		wb_u32(w, nwords);
		for (j = 0; j < nwords; j++)
			wb_u64(w, c->cpus.bits[j]);
	}
	wb_str(w, h->analysis, sizeof(h->analysis) - 1);	/* since 1.1 */
	wb_str(w, h->config, sizeof(h->config) - 1);		/* since 1.2 */
}

static int header_parse(struct rd *r, struct lp_data_header *h)
{
	struct lp_topology *t = &h->topo;
	u32 i, j, nent, ncaches, nul = 0;

	rd_str(r, h->cpu_vendor, sizeof(h->cpu_vendor));
	h->cpu_family = rd_u32(r);
	h->cpu_model = rd_u32(r);
	rd_str(r, h->cpu_name, sizeof(h->cpu_name));
	rd_str(r, h->kernel_release, sizeof(h->kernel_release));
	rd_str(r, h->hostname, sizeof(h->hostname));
	rd_str(r, h->facility, sizeof(h->facility));
	h->period = rd_u64(r);
	rd_str(r, h->period_unit, sizeof(h->period_unit));
	h->sampling_flags = rd_u64(r);
	h->start_time = rd_u64(r);
	h->start_perf_time = rd_u64(r);
	h->argc = rd_u32(r);
	h->cmdline_len = rd_u32(r);
	if (r->bad || h->cmdline_len > sizeof(h->cmdline) ||
	    (size_t)(r->end - r->p) < h->cmdline_len)
		return -EBADMSG;
	memcpy(h->cmdline, r->p, h->cmdline_len);
	r->p += h->cmdline_len;
	/* argc NUL-terminated strings exactly: get_argv can trust it */
	for (i = 0; i < h->cmdline_len; i++)
		nul += h->cmdline[i] == '\0';
	if (nul != h->argc ||
	    (h->cmdline_len && h->cmdline[h->cmdline_len - 1] != '\0'))
		return -EBADMSG;

	t->ncpus = rd_s32(r);
	t->nsockets = rd_s32(r);
	t->ncores = rd_s32(r);
	nent = rd_u32(r);
	if (r->bad || t->ncpus < 0 || t->ncpus > LP_MAX_CPUS || t->nsockets < 0 ||
	    t->nsockets > LP_MAX_CPUS || t->ncores < 0 || t->ncores > LP_MAX_CPUS ||
	    nent > LP_MAX_CPUS)
		return -EBADMSG;
	for (i = 0; i < LP_MAX_CPUS; i++)
		t->cpu_core[i] = t->cpu_socket[i] = -1;
	for (i = 0; i < nent; i++) {
		t->cpu_core[i] = rd_s32(r);
		t->cpu_socket[i] = rd_s32(r);
		if (t->cpu_core[i] < -1 || t->cpu_socket[i] < -1)
			return -EBADMSG;
	}
	ncaches = rd_u32(r);
	if (r->bad || ncaches > LP_MAX_CACHES)
		return -EBADMSG;
	t->ncaches = ncaches;
	for (i = 0; i < ncaches; i++) {
		struct lp_cache *c = &t->caches[i];
		u32 nwords;

		c->level = rd_s32(r);
		rd_str(r, c->type, sizeof(c->type));
		c->size = rd_u64(r);
		c->ways = rd_s32(r);
		c->line_size = rd_s32(r);
		c->sets = rd_s32(r);
		nwords = rd_u32(r);
		if (r->bad || nwords > LP_MAX_CPUS / 64)
			return -EBADMSG;
		memset(&c->cpus, 0, sizeof(c->cpus));
		for (j = 0; j < nwords; j++)
			c->cpus.bits[j] = rd_u64(r);
	}
	if (!r->bad && r->end - r->p >= 4)	/* 1.0 headers end here */
		rd_str(r, h->analysis, sizeof(h->analysis));
	if (!r->bad && r->end - r->p >= 4)	/* 1.1 headers end here */
		rd_str(r, h->config, sizeof(h->config));
	return r->bad ? -EBADMSG : 0;
}

/* ---- events ---- */

static int event_serialize(struct wb *w, const struct lp_event *ev)
{
	switch (ev->type) {
	case LP_EV_THREAD_START:
	case LP_EV_THREAD_EXIT: {
		const struct lp_thread *e = &ev->thread;

		wb_u64(w, e->time);
		wb_u32(w, e->pid);
		wb_u32(w, e->tid);
		wb_u32(w, e->parent_tid);
		wb_u32(w, e->cpu);
		wb_u32(w, e->index);
		wb_u32(w, e->status);
		wb_u64(w, e->fs_base);
		wb_u64(w, e->cpu_ns);	/* since 1.1 */
		break;
	}
	case LP_EV_MMAP: {
		const struct lp_mmap *e = &ev->mmap;

		wb_u64(w, e->time);
		wb_u32(w, e->pid);
		wb_u32(w, e->prot);
		wb_u64(w, e->start);
		wb_u64(w, e->len);
		wb_u64(w, e->pgoff);
		wb_str(w, e->filename, sizeof(e->filename) - 1);
		break;
	}
	case LP_EV_SAMPLE: {
		const struct lp_sample *e = &ev->sample;

		wb_u64(w, e->time);
		wb_u64(w, e->ip);
		wb_u64(w, e->addr);
		wb_u64(w, e->period);
		wb_u64(w, e->data_src);
		wb_u32(w, e->pid);
		wb_u32(w, e->tid);
		wb_u32(w, e->cpu);
		wb_u32(w, e->latency);
		wb_u8(w, e->size);
		wb_u8(w, e->kind);
		wb_u8(w, e->noaddr);
		wb_u8(w, e->flags);
		wb_u64(w, e->thread_ns);	/* since 1.1 */
		break;
	}
	case LP_EV_TRAP: {
		const struct lp_trap *e = &ev->trap;

		wb_u64(w, e->time);
		wb_u64(w, e->ip);
		wb_u64(w, e->addr);
		wb_u64(w, e->cookie);
		wb_u32(w, e->pid);
		wb_u32(w, e->tid);
		wb_u32(w, e->cpu);
		wb_u8(w, e->slot);
		wb_u8(w, e->mode);
		wb_u8(w, e->len);
		wb_u64(w, e->thread_ns);	/* since 1.1 */
		break;
	}
	case LP_EV_ACTION: {
		const struct lp_action *e = &ev->action;

		wb_u8(w, e->op);
		wb_u8(w, e->slot);
		wb_u8(w, e->mode);
		wb_u8(w, e->len);
		wb_u32(w, e->tid);
		wb_u64(w, e->addr);
		wb_u64(w, e->cookie);
		wb_u64(w, e->time);
		break;
	}
	case LP_EV_LOST: {
		const struct lp_lost *e = &ev->lost;

		wb_u64(w, e->time);
		wb_u32(w, e->pid);
		wb_u32(w, e->tid);
		wb_u64(w, e->lost);
		wb_u64(w, e->throttled);
		break;
	}
	case LP_EV_COUNTER: {
		const struct lp_counter *e = &ev->counter;

		wb_u64(w, e->time);
		wb_u32(w, e->pid);
		wb_u32(w, e->tid);
		wb_u64(w, e->value);
		wb_u64(w, e->enabled_ns);
		wb_u64(w, e->running_ns);
		break;
	}
	default:
		return -EINVAL;
	}
	return 0;
}

static int event_parse(struct rd *r, u32 type, struct lp_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	switch (type) {
	case LP_EV_THREAD_START:
	case LP_EV_THREAD_EXIT: {
		struct lp_thread *e = &ev->thread;

		e->time = rd_u64(r);
		e->pid = rd_u32(r);
		e->tid = rd_u32(r);
		e->parent_tid = rd_u32(r);
		e->cpu = rd_u32(r);
		e->index = rd_u32(r);
		e->status = rd_s32(r);
		e->fs_base = rd_u64(r);
		if (r->end - r->p >= 8)	/* 1.0 files end here */
			e->cpu_ns = rd_u64(r);
		break;
	}
	case LP_EV_MMAP: {
		struct lp_mmap *e = &ev->mmap;

		e->time = rd_u64(r);
		e->pid = rd_u32(r);
		e->prot = rd_u32(r);
		e->start = rd_u64(r);
		e->len = rd_u64(r);
		e->pgoff = rd_u64(r);
		rd_str(r, e->filename, sizeof(e->filename));
		break;
	}
	case LP_EV_SAMPLE: {
		struct lp_sample *e = &ev->sample;

		e->time = rd_u64(r);
		e->ip = rd_u64(r);
		e->addr = rd_u64(r);
		e->period = rd_u64(r);
		e->data_src = rd_u64(r);
		e->pid = rd_u32(r);
		e->tid = rd_u32(r);
		e->cpu = rd_u32(r);
		e->latency = rd_u32(r);
		e->size = rd_u8(r);
		e->kind = rd_u8(r);
		e->noaddr = rd_u8(r);
		e->flags = rd_u8(r);
		/* consumers index name tables with these */
		if (e->kind > LP_ACCESS_ATOMIC || e->noaddr >= LP_NOADDR__MAX)
			return -EBADMSG;
		if (r->end - r->p >= 8)	/* 1.0 records end here */
			e->thread_ns = rd_u64(r);
		break;
	}
	case LP_EV_TRAP: {
		struct lp_trap *e = &ev->trap;

		e->time = rd_u64(r);
		e->ip = rd_u64(r);
		e->addr = rd_u64(r);
		e->cookie = rd_u64(r);
		e->pid = rd_u32(r);
		e->tid = rd_u32(r);
		e->cpu = rd_u32(r);
		e->slot = rd_u8(r);
		e->mode = rd_u8(r);
		e->len = rd_u8(r);
		if (r->end - r->p >= 8)	/* 1.0 records end here */
			e->thread_ns = rd_u64(r);
		break;
	}
	case LP_EV_ACTION: {
		struct lp_action *e = &ev->action;

		e->op = rd_u8(r);
		e->slot = rd_u8(r);
		e->mode = rd_u8(r);
		e->len = rd_u8(r);
		e->tid = rd_u32(r);
		e->addr = rd_u64(r);
		e->cookie = rd_u64(r);
		e->time = rd_u64(r);
		break;
	}
	case LP_EV_LOST: {
		struct lp_lost *e = &ev->lost;

		e->time = rd_u64(r);
		e->pid = rd_u32(r);
		e->tid = rd_u32(r);
		e->lost = rd_u64(r);
		e->throttled = rd_u64(r);
		break;
	}
	case LP_EV_COUNTER: {
		struct lp_counter *e = &ev->counter;

		e->time = rd_u64(r);
		e->pid = rd_u32(r);
		e->tid = rd_u32(r);
		e->value = rd_u64(r);
		e->enabled_ns = rd_u64(r);
		e->running_ns = rd_u64(r);
		break;
	}
	default:
		return -ENOENT;	/* caller skips it */
	}
	/* Shorter than this version's fields: corrupt. Longer: newer writer. */
	return r->bad ? -EBADMSG : 0;
}

/* ---- writer ---- */

static int write_all(struct lp_datafile *f, const void *p, size_t len)
{
	const unsigned char *b = p;

	while (len) {
		ssize_t n = write(f->fd, b, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		b += n;
		len -= n;
	}
	return 0;
}

/* Compress (or copy) the pending chunk; @mode ZSTD_e_continue/flush/end. */
static int drain(struct lp_datafile *f, ZSTD_EndDirective mode)
{
	ZSTD_inBuffer in = { f->ibuf, f->ilen, 0 };
	int err = 0;

	if (f->err)
		return f->err;
	if (!(f->flags & LP_DATA_F_ZSTD)) {
		err = write_all(f, f->ibuf, f->ilen);
	} else {
		for (;;) {
			ZSTD_outBuffer out = { f->obuf, f->ocap, 0 };
			size_t ret = ZSTD_compressStream2(f->cctx, &out, &in, mode);

			if (ZSTD_isError(ret)) {
				err = -EIO;
				break;
			}
			err = write_all(f, f->obuf, out.pos);
			if (err)
				break;
			if (mode == ZSTD_e_continue ? in.pos == in.size : ret == 0)
				break;
		}
	}
	f->ilen = 0;
	if (err)
		f->err = err;
	return err;
}

static int stream_put(struct lp_datafile *f, const void *p, size_t len)
{
	const unsigned char *b = p;

	while (len) {
		size_t n = CHUNK - f->ilen;

		if (n > len)
			n = len;
		memcpy(f->ibuf + f->ilen, b, n);
		f->ilen += n;
		b += n;
		len -= n;
		if (f->ilen == CHUNK && drain(f, ZSTD_e_continue))
			return f->err;
	}
	return 0;
}

/* Frame the payload in w->p[REC_HDR_SIZE..w->n) and queue it. */
static int put_record(struct lp_datafile *f, struct wb *w, u16 type)
{
	u32 len = w->n - REC_HDR_SIZE;
	struct wb h = { w->p, 0, REC_HDR_SIZE, 0 };

	if (w->overflow)
		return -E2BIG;
	wb_u16(&h, type);
	wb_u16(&h, 0);
	wb_u32(&h, len);
	return stream_put(f, w->p, w->n);
}

static void datafile_free(struct lp_datafile *f)
{
	if (f->fd >= 0)
		close(f->fd);
	ZSTD_freeCCtx(f->cctx);
	ZSTD_freeDCtx(f->dctx);
	free(f->ibuf);
	free(f->obuf);
	free(f->inbuf);
	free(f->buf);
	free(f);
}

int datafile__create_flags(struct lp_datafile **out, const char *path,
			   const struct lp_data_header *h, u32 flags)
{
	unsigned char pre[PREAMBLE_SIZE];
	struct wb w = { pre, 0, sizeof(pre), 0 };
	struct lp_datafile *f;
	struct wb hw = { NULL, REC_HDR_SIZE, 64 * 1024, 0 };
	struct stat st;
	int err;

	*out = NULL;
	if (flags & ~LP_DATA_F_ZSTD)
		return -EINVAL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->writing = 1;
	f->flags = flags;
	f->fd = -1;
	f->ibuf = malloc(CHUNK);
	hw.p = malloc(hw.cap);
	if (flags & LP_DATA_F_ZSTD) {
		f->ocap = ZSTD_CStreamOutSize();
		f->obuf = malloc(f->ocap);
		f->cctx = ZSTD_createCCtx();
	}
	if (!f->ibuf || !hw.p || ((flags & LP_DATA_F_ZSTD) && (!f->obuf || !f->cctx))) {
		err = -ENOMEM;
		goto out_free;
	}
	if (f->cctx) {
		/* The checksum lets a reader tell corrupt data from a bad writer. */
		if (ZSTD_isError(ZSTD_CCtx_setParameter(f->cctx, ZSTD_c_compressionLevel,
							ZSTD_LEVEL)) ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(f->cctx, ZSTD_c_checksumFlag, 1))) {
			err = -EINVAL;
			goto out_free;
		}
	}

	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
		char *old;

		if (asprintf(&old, "%s.old", path) < 0) {
			err = -ENOMEM;
			goto out_free;
		}
		err = rename(path, old) ? -errno : 0;
		free(old);
		if (err)
			goto out_free;
	}
	f->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (f->fd < 0) {
		err = -errno;
		goto out_free;
	}

	wb_bytes(&w, LP_DATA_MAGIC, 8);
	wb_u32(&w, LP_DATA_VERSION);
	wb_u32(&w, flags);
	err = write_all(f, pre, w.n);
	if (err)
		goto out_free;
	header_serialize(&hw, h);
	err = put_record(f, &hw, REC_HEADER);
	if (err)
		goto out_free;
	free(hw.p);
	*out = f;
	return 0;

out_free:
	free(hw.p);
	datafile_free(f);
	return err;
}

int datafile__create(struct lp_datafile **out, const char *path,
		     const struct lp_data_header *h)
{
	return datafile__create_flags(out, path, h, LP_DATA_F_ZSTD);
}

int datafile__write(struct lp_datafile *f, const struct lp_event *ev)
{
	unsigned char b[512];
	struct wb w = { b, REC_HDR_SIZE, sizeof(b), 0 };
	int err;

	if (!f->writing)
		return -EBADF;
	if (f->err)
		return f->err;
	err = event_serialize(&w, ev);
	if (err)
		return err;
	err = put_record(f, &w, ev->type);
	if (err)
		return err;
	f->counts[ev->type]++;
	f->nevents++;
	return 0;
}

int datafile__flush(struct lp_datafile *f)
{
	if (!f->writing)
		return -EBADF;
	return drain(f, ZSTD_e_flush);
}

static int write_end(struct lp_datafile *f)
{
	unsigned char b[REC_HDR_SIZE + 12 + 8 * LP_EV__MAX];
	struct wb w = { b, REC_HDR_SIZE, sizeof(b), 0 };
	int t, err;

	wb_u64(&w, f->nevents);
	wb_u32(&w, LP_EV__MAX - 1);
	for (t = 1; t < LP_EV__MAX; t++)
		wb_u64(&w, f->counts[t]);
	err = put_record(f, &w, REC_END);
	if (err)
		return err;
	return drain(f, ZSTD_e_end);
}

int datafile__close(struct lp_datafile *f)
{
	int err = 0;

	if (!f)
		return 0;
	if (f->writing) {
		err = f->err ? f->err : write_end(f);
		if (close(f->fd) && !err)
			err = -errno;
		f->fd = -1;
	}
	datafile_free(f);
	return err;
}

u64 datafile__nr_events(const struct lp_datafile *f)
{
	return f->nevents;
}

/* ---- reader ---- */

/* Get more input into f->in. 0: none left. */
static int input_refill(struct lp_datafile *f)
{
	ssize_t n;

	if (f->in_eof || f->fd < 0) {
		f->in_eof = 1;
		return 0;
	}
	for (;;) {
		n = read(f->fd, f->inbuf, f->inbuf_cap);
		if (n < 0 && errno == EINTR)
			continue;
		break;
	}
	if (n < 0)
		return -errno;
	if (n == 0) {
		f->in_eof = 1;
		return 0;
	}
	f->in = f->inbuf;
	f->in_len = n;
	f->in_pos = 0;
	return 1;
}

/* Decode more of the stream into buf[wpos, cap). >0 progress, 0 end, <0 error. */
static int fill(struct lp_datafile *f)
{
	size_t space = f->cap - f->wpos;
	int ret;

	for (;;) {
		if (f->in_pos == f->in_len) {
			ret = input_refill(f);
			if (ret < 0)
				return ret;
		}
		if (!(f->flags & LP_DATA_F_ZSTD)) {
			size_t n = f->in_len - f->in_pos;

			if (!n)
				return 0;
			if (n > space)
				n = space;
			memcpy(f->buf + f->wpos, f->in + f->in_pos, n);
			f->in_pos += n;
			f->wpos += n;
			return 1;
		} else {
			ZSTD_inBuffer in = { f->in, f->in_len, f->in_pos };
			ZSTD_outBuffer out = { f->buf + f->wpos, space, 0 };
			size_t zr = ZSTD_decompressStream(f->dctx, &out, &in);

			if (ZSTD_isError(zr))
				return -EBADMSG;
			/* an empty call after a frame ends asks for the next one */
			if (in.pos != f->in_pos || out.pos)
				f->frame_done = zr == 0;
			f->in_pos = in.pos;
			f->wpos += out.pos;
			if (out.pos)
				return 1;
			/* No output: zstd needs input; stop if there is none. */
			if (in.pos == in.size && f->in_eof)
				return 0;
		}
	}
}

/*
 * Make @n bytes available at buf + rpos. -ENODATA if the stream ends first
 * (see stream_complete), -EBADMSG/-errno on errors.
 */
static int need(struct lp_datafile *f, size_t n)
{
	int ret;

	while (f->wpos - f->rpos < n) {
		if (f->rpos && f->cap - f->rpos < n + 4096) {
			memmove(f->buf, f->buf + f->rpos, f->wpos - f->rpos);
			f->wpos -= f->rpos;
			f->rpos = 0;
		}
		if (f->cap - f->rpos < n) {
			size_t cap = f->cap * 2;
			unsigned char *b;

			while (cap - f->rpos < n)
				cap *= 2;
			b = realloc(f->buf, cap);
			if (!b)
				return -ENOMEM;
			f->buf = b;
			f->cap = cap;
		}
		ret = fill(f);
		if (ret < 0)
			return ret;
		if (ret == 0)
			return -ENODATA;
	}
	return 0;
}

/* The input ended where a writer's stream could end (no cut frame). */
static int stream_complete(const struct lp_datafile *f)
{
	return f->in_eof && f->in_pos == f->in_len &&
	       (!(f->flags & LP_DATA_F_ZSTD) || f->frame_done);
}

/*
 * Next record: *type, *payload, *len; the window is advanced past it.
 * A record cut by the end of a cut stream is -ENODATA; one that overruns
 * a complete stream has a lying length: -EBADMSG.
 */
static int next_record(struct lp_datafile *f, u16 *type, const unsigned char **p,
		       u32 *len)
{
	struct rd r;
	int ret;

	ret = need(f, REC_HDR_SIZE);
	if (ret == -ENODATA && f->wpos != f->rpos && stream_complete(f))
		return -EBADMSG;
	if (ret)
		return ret;
	r.p = f->buf + f->rpos;
	r.end = r.p + REC_HDR_SIZE;
	r.bad = 0;
	*type = rd_u16(&r);
	rd_le(&r, 2);		/* reserved: written as 0, ignored */
	*len = rd_u32(&r);
	if (*len > LP_DATA_MAX_RECORD)
		return -EBADMSG;
	ret = need(f, REC_HDR_SIZE + (size_t)*len);
	if (ret == -ENODATA && stream_complete(f))
		return -EBADMSG;
	if (ret)
		return ret;
	*p = f->buf + f->rpos + REC_HDR_SIZE;
	f->rpos += REC_HDR_SIZE + *len;
	return 0;
}

static int read_preamble(struct lp_datafile *f, const unsigned char *p, size_t len)
{
	struct rd r = { p, p + len, 0 };
	u32 version, flags;

	if (len == 0)
		return -ENODATA;
	if (len < PREAMBLE_SIZE) {
		/* a prefix of the magic is a cut file, anything else is not ours */
		return memcmp(p, LP_DATA_MAGIC, len < 8 ? len : 8) ? -EMEDIUMTYPE
								  : -ENODATA;
	}
	if (memcmp(p, LP_DATA_MAGIC, 8))
		return -EMEDIUMTYPE;
	r.p += 8;
	version = rd_u32(&r);
	flags = rd_u32(&r);
	if (version >> 16 != LP_DATA_VERSION_MAJOR)
		return -EPROTONOSUPPORT;
	if (flags & LP_DATA_F_INCOMPAT_MASK & ~LP_DATA_F_ZSTD)
		return -EPROTONOSUPPORT;
	f->flags = flags;
	return version;
}

static int reader_start(struct lp_datafile *f, struct lp_data_header *h)
{
	const unsigned char *p;
	struct rd r;
	u16 type;
	u32 len;
	int ret;

	f->cap = 64 * 1024;
	f->buf = malloc(f->cap);
	if (!f->buf)
		return -ENOMEM;
	if (f->flags & LP_DATA_F_ZSTD) {
		f->dctx = ZSTD_createDCtx();
		if (!f->dctx)
			return -ENOMEM;
	}
	ret = next_record(f, &type, &p, &len);
	if (ret)
		return ret;
	if (type != REC_HEADER)
		return -EBADMSG;
	r.p = p;
	r.end = p + len;
	r.bad = 0;
	return header_parse(&r, h);
}

static int reader_new(struct lp_datafile **out)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	(*out)->fd = -1;
	return 0;
}

static int open_finish(struct lp_datafile *f, struct lp_data_header *h, u32 version,
		       struct lp_datafile **out)
{
	struct lp_data_header *tmp = NULL;
	int err;

	if (!h) {
		tmp = malloc(sizeof(*tmp));
		if (!tmp) {
			datafile_free(f);
			return -ENOMEM;
		}
		h = tmp;
	}
	memset(h, 0, sizeof(*h));
	err = reader_start(f, h);
	h->version = version;
	h->flags = f->flags;
	free(tmp);
	if (err) {
		datafile_free(f);
		return err;
	}
	*out = f;
	return 0;
}

int datafile__open_mem(struct lp_datafile **out, const void *buf, size_t len,
		       struct lp_data_header *h)
{
	struct lp_datafile *f;
	int ret;

	ret = reader_new(&f);
	if (ret)
		return ret;
	*out = NULL;
	ret = read_preamble(f, buf, len);
	if (ret < 0) {
		datafile_free(f);
		return ret;
	}
	f->in = (const unsigned char *)buf + PREAMBLE_SIZE;
	f->in_len = len - PREAMBLE_SIZE;
	f->in_eof = 1;
	return open_finish(f, h, ret, out);
}

int datafile__open(struct lp_datafile **out, const char *path,
		   struct lp_data_header *h)
{
	unsigned char pre[PREAMBLE_SIZE];
	struct lp_datafile *f;
	size_t got = 0;
	ssize_t n;
	int ret;

	*out = NULL;
	ret = reader_new(&f);
	if (ret)
		return ret;
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0) {
		ret = -errno;
		datafile_free(f);
		return ret;
	}
	while (got < sizeof(pre)) {
		n = read(f->fd, pre + got, sizeof(pre) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			datafile_free(f);
			return ret;
		}
		if (n == 0)
			break;
		got += n;
	}
	ret = read_preamble(f, pre, got);
	if (ret < 0) {
		datafile_free(f);
		return ret;
	}
	f->inbuf_cap = ZSTD_DStreamInSize();
	f->inbuf = malloc(f->inbuf_cap);
	if (!f->inbuf) {
		datafile_free(f);
		return -ENOMEM;
	}
	f->in = f->inbuf;
	return open_finish(f, h, ret, out);
}

static int check_end(struct lp_datafile *f, const unsigned char *p, u32 len)
{
	struct rd r = { p, p + len, 0 };
	u64 total = rd_u64(&r);
	u32 ntypes = rd_u32(&r), t;
	int ret;

	if (r.bad || ntypes > 0xffff)
		return -EBADMSG;
	if (total != f->nevents + f->unknown)
		return -EBADMSG;
	for (t = 1; t <= ntypes; t++) {
		u64 c = rd_u64(&r);

		if (r.bad)
			return -EBADMSG;
		if (t < LP_EV__MAX && c != f->counts[t])
			return -EBADMSG;
	}
	/* Nothing may follow the end record, and the frame must be whole. */
	ret = need(f, 1);
	if (ret == 0)
		return -EBADMSG;
	if (ret != -ENODATA)
		return ret;
	return stream_complete(f) ? 0 : -ENODATA;
}

int datafile__read(struct lp_datafile *f, struct lp_event *ev)
{
	const unsigned char *p;
	struct rd r;
	u16 type;
	u32 len;
	int ret;

	if (f->writing)
		return -EBADF;
	if (f->err)
		return f->err;
	if (f->done)
		return 0;
	for (;;) {
		ret = next_record(f, &type, &p, &len);
		if (ret)
			break;
		if (type == REC_END) {
			ret = check_end(f, p, len);
			if (!ret)
				f->done = 1;
			break;
		}
		if (type == REC_HEADER) {
			ret = -EBADMSG;
			break;
		}
		r.p = p;
		r.end = p + len;
		r.bad = 0;
		ret = event_parse(&r, type, ev);
		if (ret == -ENOENT) {
			f->unknown++;
			continue;
		}
		if (ret)
			break;
		f->counts[type]++;
		f->nevents++;
		return 1;
	}
	if (ret)
		f->err = ret;
	return ret;
}

const char *datafile__strerror(int err)
{
	switch (err) {
	case 0:
		return "success";
	case -EBADMSG:
		return "corrupt data file (a record or the compressed stream is damaged)";
	case -ENODATA:
		return "truncated data file (no end record; the recording was cut short)";
	case -EPROTONOSUPPORT:
		return "data file format version or flag not supported by this lociprof";
	case -EMEDIUMTYPE:
		return "not a lociprof data file (bad magic)";
	case -E2BIG:
		return "record too large for the data file format";
	default:
		return strerror(err < 0 ? -err : err);
	}
}
