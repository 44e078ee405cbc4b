/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to core/datafile*.c: the little-endian field codec and the
 * header and event records built with it (Documentation/data-file.md).
 * Every field is written one by one, so struct layout never leaks into
 * the file.
 */
#ifndef LP_DATAFILE_CODEC_H
#define LP_DATAFILE_CODEC_H
#include <string.h>

#include "core/datafile.h"

/* ---- little-endian serialization ---- */

struct wb {
	unsigned char *p;
	size_t n, cap;
	int overflow;
};

static inline void wb_bytes(struct wb *w, const void *src, size_t len)
{
	if (w->overflow || w->cap - w->n < len) {
		w->overflow = 1;
		return;
	}
	memcpy(w->p + w->n, src, len);
	w->n += len;
}

static inline void wb_le(struct wb *w, u64 v, int bytes)
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
static inline void wb_str(struct wb *w, const char *s, size_t max)
{
	size_t len = strnlen(s, max);

	wb_u32(w, len);
	wb_bytes(w, s, len);
}

struct rd {
	const unsigned char *p, *end;
	int bad;
};

static inline u64 rd_le(struct rd *r, int bytes)
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
static inline void rd_str(struct rd *r, char *dst, size_t cap)
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

/* The header record's payload. */
void datafile__put_header(struct wb *w, const struct lp_data_header *h);
int datafile__get_header(struct rd *r, struct lp_data_header *h);
/* One event's payload; 0 or -EINVAL for an unknown type. */
int datafile__put_event(struct wb *w, const struct lp_event *ev);
/* 0 decoded, -ENOENT a type this reader does not know (skip it), -EBADMSG. */
int datafile__get_event(struct rd *r, u32 type, struct lp_event *ev);

#endif
