// SPDX-License-Identifier: GPL-2.0
/* perf mmap ring buffer reader; the protocol is described in ring.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/ring.h"

/* header.size is a u16: no record is larger than this. */
#define RING_SCRATCH_SIZE 65536

static int is_pow2(u64 x)
{
	return x && !(x & (x - 1));
}

int ring__mmap(struct lp_ring *r, int fd, int data_pages)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len;
	void *base;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	if (data_pages < 1 || !is_pow2(data_pages) || page <= 0)
		return -EINVAL;
	len = (size_t)(data_pages + 1) * page;
	base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		return -errno;
	r->meta = base;
	r->map_len = len;
	r->fd = fd;
	/* Kernels since 4.1 say where the data is; older ones: the next page. */
	if (r->meta->data_offset && r->meta->data_size) {
		r->data = (unsigned char *)base + r->meta->data_offset;
		r->data_size = r->meta->data_size;
	} else {
		r->data = (unsigned char *)base + page;
		r->data_size = (u64)data_pages * page;
	}
	if (!is_pow2(r->data_size) ||
	    (unsigned char *)r->data + r->data_size > (unsigned char *)base + len) {
		ring__munmap(r);
		return -EINVAL;
	}
	r->tail = r->pos = __atomic_load_n(&r->meta->data_tail, __ATOMIC_RELAXED);
	r->head = r->pos;
	return 0;
}

int ring__init_mem(struct lp_ring *r, void *base, size_t data_size)
{
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	if (!base || !is_pow2(data_size))
		return -EINVAL;
	r->meta = base;
	r->data = (unsigned char *)base + sizeof(struct perf_event_mmap_page);
	r->data_size = data_size;
	r->meta->data_offset = sizeof(struct perf_event_mmap_page);
	r->meta->data_size = data_size;
	r->tail = r->pos = r->head = r->meta->data_tail;
	return 0;
}

void ring__munmap(struct lp_ring *r)
{
	if (r->map_len && r->meta)
		munmap(r->meta, r->map_len);
	free(r->scratch);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

int ring__read_init(struct lp_ring *r)
{
	/* Pairs with the kernel's barrier before it publishes data_head. */
	r->head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	if (r->head - r->pos > r->data_size)
		return -EBADMSG;
	return r->head == r->pos ? -EAGAIN : 0;
}

/* Copy @len bytes at ring offset @off (may wrap) to @dst. */
static void ring_copy(const struct lp_ring *r, u64 off, void *dst, size_t len)
{
	u64 mask = r->data_size - 1;
	size_t start = off & mask;
	size_t first = r->data_size - start;

	if (first >= len) {
		memcpy(dst, r->data + start, len);
	} else {
		memcpy(dst, r->data + start, first);
		memcpy((unsigned char *)dst + first, r->data, len - first);
	}
}

int ring__read_event(struct lp_ring *r, const struct perf_event_header **ev)
{
	struct perf_event_header hdr;
	u64 avail = r->head - r->pos;
	size_t start;

	*ev = NULL;
	if (avail == 0)
		return 0;
	/* The kernel publishes whole records: a partial header is corruption. */
	if (avail < sizeof(hdr) || avail > r->data_size)
		return -EBADMSG;
	ring_copy(r, r->pos, &hdr, sizeof(hdr));
	if (hdr.size < sizeof(hdr) || hdr.size > avail)
		return -EBADMSG;

	start = r->pos & (r->data_size - 1);
	if (start + hdr.size <= r->data_size) {
		*ev = (const struct perf_event_header *)(r->data + start);
	} else {
		if (!r->scratch) {
			r->scratch = malloc(RING_SCRATCH_SIZE);
			if (!r->scratch)
				return -ENOMEM;
		}
		ring_copy(r, r->pos, r->scratch, hdr.size);
		*ev = r->scratch;
	}
	r->pos += hdr.size;
	return 1;
}

void ring__consume(struct lp_ring *r)
{
	if (r->tail == r->pos)
		return;
	/* Our reads of the records happen before the kernel may reuse them. */
	__atomic_store_n(&r->meta->data_tail, r->pos, __ATOMIC_RELEASE);
	r->tail = r->pos;
}

void ring__read_done(struct lp_ring *r)
{
	ring__consume(r);
}

void ring__discard(struct lp_ring *r)
{
	r->pos = r->head;
	ring__consume(r);
}

