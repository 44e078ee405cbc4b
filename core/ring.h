/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One perf mmap ring buffer per event fd: a metadata page
 * (struct perf_event_mmap_page) followed by 2^n data pages. The reading
 * protocol is written down here once, as in perf:
 *
 *	if (ring__read_init(r) == 0) {
 *		while ((ret = ring__read_event(r, &ev)) > 0) {
 *			handle(ev);		// ev valid until next read_event
 *			ring__consume(r);	// optional: free space early
 *		}
 *		if (ret < 0)
 *			ring__discard(r);	// corrupt: drop what is there
 *		ring__read_done(r);
 *	}
 *
 * read_init loads data_head with acquire semantics (the kernel's smp_wmb
 * before publishing head pairs with it); consume/read_done store data_tail
 * with release semantics so the kernel cannot overwrite records we are
 * still reading. A record that wraps around the end of the buffer is copied
 * into a per-ring scratch buffer so callers always see it contiguous.
 */
#ifndef LP_RING_H
#define LP_RING_H
#include <linux/perf_event.h>
#include "core/types.h"

struct lp_ring {
	struct perf_event_mmap_page *meta;
	unsigned char *data;	/* data area, data_size bytes */
	u64 data_size;		/* power of two */
	u64 head;		/* data_head snapshot taken by read_init */
	u64 pos;		/* next byte to read */
	u64 tail;		/* last data_tail we published */
	void *scratch;		/* wrapped records are copied here (64 KiB) */
	size_t map_len;		/* 0 if the memory is not ours (init_mem) */
	int fd;			/* -1 for init_mem */
};

/*
 * mmap 1 + @data_pages pages of @fd (@data_pages a power of two, >= 1).
 * Returns 0 or -errno (-EINVAL for a bad page count, mmap's errno else).
 */
int ring__mmap(struct lp_ring *r, int fd, int data_pages);

/*
 * Use caller memory laid out like the kernel's: a struct
 * perf_event_mmap_page at @base, then @data_size bytes of data (a power of
 * two) at @base + sizeof(struct perf_event_mmap_page). For tests and
 * replays; data_offset/data_size of the page are filled in.
 */
int ring__init_mem(struct lp_ring *r, void *base, size_t data_size);

/* Unmap (if mapped by ring__mmap) and free the scratch buffer. */
void ring__munmap(struct lp_ring *r);

/*
 * Snapshot data_head. Returns 0 if there is something to read, -EAGAIN if
 * the ring is empty, -EBADMSG if head/tail are inconsistent (head behind
 * tail or more than data_size ahead).
 */
int ring__read_init(struct lp_ring *r);

/*
 * Next record up to the head snapshot: 1 and *@ev set, 0 when the snapshot
 * is exhausted, -EBADMSG if the record's header.size is smaller than a
 * header or larger than what the kernel published (nothing is read out of
 * bounds; the read position is not advanced), -ENOMEM if the scratch buffer
 * for a wrapped record cannot be allocated. *@ev stays valid until the
 * next ring__read_event or ring__consume/read_done.
 */
int ring__read_event(struct lp_ring *r, const struct perf_event_header **ev);

/* Give the space of every record returned so far back to the kernel. */
void ring__consume(struct lp_ring *r);

/* End of a read_init batch: consume everything returned. */
void ring__read_done(struct lp_ring *r);

/* Skip everything up to the head snapshot (after -EBADMSG): data is lost. */
void ring__discard(struct lp_ring *r);
#endif
