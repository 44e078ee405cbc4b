// SPDX-License-Identifier: GPL-2.0
/*
 * Ring buffer reader on a synthetic ring in malloc'd memory laid out like the
 * kernel's (struct perf_event_mmap_page, then the data area), plus one live
 * ring on a software event when perf_event_open is allowed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/ring.h"
#include "core/tests.h"

#define DATA 256

struct fake {
	struct lp_ring r;
	unsigned char *base;
	unsigned char *data;
	u64 head;		/* producer position */
};

static int fake__init(struct fake *f)
{
	f->base = calloc(1, sizeof(struct perf_event_mmap_page) + DATA);
	if (!f->base)
		return -ENOMEM;
	f->data = f->base + sizeof(struct perf_event_mmap_page);
	f->head = 0;
	return ring__init_mem(&f->r, f->base, DATA);
}

static void fake__exit(struct fake *f)
{
	ring__munmap(&f->r);
	free(f->base);
}

/*
 * Write a record as the kernel would: header {type, misc, size} then @size-8
 * payload bytes, each byte = seed + i, wrapping modulo DATA. Does not publish.
 */
static void fake__put(struct fake *f, u32 type, u16 size, u8 seed)
{
	unsigned char rec[1024];
	unsigned i;

	memset(rec, 0, sizeof(rec));
	memcpy(rec, &type, 4);		/* little endian, x86 */
	rec[6] = size & 0xff;
	rec[7] = size >> 8;
	for (i = 8; i < size && i < sizeof(rec); i++)
		rec[i] = (u8)(seed + i);
	for (i = 0; i < size && i < sizeof(rec); i++)
		f->data[(f->head + i) % DATA] = rec[i];
	f->head += size;
}

static void fake__publish(struct fake *f)
{
	struct perf_event_mmap_page *pg = (void *)f->base;

	__atomic_store_n(&pg->data_head, f->head, __ATOMIC_RELEASE);
}

static u64 fake__tail(struct fake *f)
{
	return ((struct perf_event_mmap_page *)f->base)->data_tail;
}

static int payload_ok(const struct perf_event_header *ev, u8 seed)
{
	const unsigned char *p = (const unsigned char *)ev;
	unsigned i;

	for (i = 8; i < ev->size; i++)
		if (p[i] != (u8)(seed + i))
			return 0;
	return 1;
}

LP_TEST(test_ring_reads_records_that_fit, "ring: records in order, tail after consume")
{
	const struct perf_event_header *ev;
	struct fake f;
	int ret;

	TEST_ASSERT(fake__init(&f) == 0, "init");
	TEST_ASSERT(ring__read_init(&f.r) == -EAGAIN, "empty ring must say EAGAIN");
	fake__put(&f, PERF_RECORD_SAMPLE, 24, 1);
	fake__put(&f, PERF_RECORD_LOST, 32, 2);
	fake__publish(&f);

	TEST_ASSERT(ring__read_init(&f.r) == 0, "data published");
	ret = ring__read_event(&f.r, &ev);
	TEST_ASSERT(ret == 1 && ev->type == PERF_RECORD_SAMPLE && ev->size == 24,
		    "ret=%d", ret);
	TEST_ASSERT(payload_ok(ev, 1), "payload of first record");
	/* Points into the ring itself: no copy for a record that fits. */
	TEST_ASSERT((const unsigned char *)ev == f.data, "first record at data+0");
	ret = ring__read_event(&f.r, &ev);
	TEST_ASSERT(ret == 1 && ev->type == PERF_RECORD_LOST && ev->size == 32,
		    "ret=%d", ret);
	TEST_ASSERT(payload_ok(ev, 2), "payload of second record");
	TEST_ASSERT((const unsigned char *)ev == f.data + 24, "second at data+24");
	TEST_ASSERT(ring__read_event(&f.r, &ev) == 0, "snapshot exhausted");
	TEST_ASSERT(fake__tail(&f) == 0, "tail untouched before consume: %llu",
		    (unsigned long long)fake__tail(&f));
	ring__read_done(&f.r);
	TEST_ASSERT(fake__tail(&f) == 56, "tail=%llu, want 24+32",
		    (unsigned long long)fake__tail(&f));
	TEST_ASSERT((__atomic_load_n(&f.r.meta->data_head, __ATOMIC_ACQUIRE) - f.r.tail) == 0, "nothing pending");
	TEST_ASSERT(ring__read_init(&f.r) == -EAGAIN, "empty again");
	fake__exit(&f);
	return TEST_OK;
}

LP_TEST(test_ring_copies_wrapped_record, "ring: a record wrapping the end is copied out whole")
{
	const struct perf_event_header *ev;
	struct fake f;
	int i, ret;

	TEST_ASSERT(fake__init(&f) == 0, "init");
	/* Move to offset 232 of 256: five 40-byte records plus one of 32. */
	for (i = 0; i < 5; i++)
		fake__put(&f, PERF_RECORD_SAMPLE, 40, 10 + i);
	fake__put(&f, PERF_RECORD_SAMPLE, 32, 20);
	fake__publish(&f);
	TEST_ASSERT(ring__read_init(&f.r) == 0, "init");
	while ((ret = ring__read_event(&f.r, &ev)) > 0)
		;
	TEST_ASSERT(ret == 0, "ret=%d", ret);
	ring__read_done(&f.r);
	TEST_ASSERT(fake__tail(&f) == 232, "tail=%llu",
		    (unsigned long long)fake__tail(&f));

	/* 64 bytes from 232: 24 at the end, 40 at the start. */
	fake__put(&f, PERF_RECORD_SAMPLE, 64, 77);
	fake__put(&f, PERF_RECORD_THROTTLE, 16, 5);
	fake__publish(&f);
	TEST_ASSERT(ring__read_init(&f.r) == 0, "init 2");
	ret = ring__read_event(&f.r, &ev);
	TEST_ASSERT(ret == 1 && ev->size == 64, "ret=%d size=%d", ret,
		    ev ? ev->size : -1);
	TEST_ASSERT(payload_ok(ev, 77), "wrapped payload reassembled");
	TEST_ASSERT((const unsigned char *)ev < f.base ||
		    (const unsigned char *)ev >= f.data + DATA,
		    "wrapped record must not point into the ring");
	ret = ring__read_event(&f.r, &ev);
	TEST_ASSERT(ret == 1 && ev->type == PERF_RECORD_THROTTLE && ev->size == 16,
		    "record after the wrap");
	TEST_ASSERT((const unsigned char *)ev == f.data + 40, "at data+40");
	ring__read_done(&f.r);
	TEST_ASSERT(fake__tail(&f) == 232 + 64 + 16, "tail=%llu",
		    (unsigned long long)fake__tail(&f));
	fake__exit(&f);
	return TEST_OK;
}

LP_TEST(test_ring_wrapped_header, "ring: a header split by the wrap is reassembled")
{
	const struct perf_event_header *ev;
	struct fake f;
	int ret;

	TEST_ASSERT(fake__init(&f) == 0, "init");
	/* Not kernel-aligned (sizes are multiples of 8 there), but legal here. */
	fake__put(&f, PERF_RECORD_SAMPLE, 252, 0);
	fake__publish(&f);
	TEST_ASSERT(ring__read_init(&f.r) == 0, "init");
	TEST_ASSERT(ring__read_event(&f.r, &ev) == 1, "first");
	ring__read_done(&f.r);
	fake__put(&f, PERF_RECORD_LOST, 24, 9);	/* header at 252..259 */
	fake__publish(&f);
	TEST_ASSERT(ring__read_init(&f.r) == 0, "init 2");
	ret = ring__read_event(&f.r, &ev);
	TEST_ASSERT(ret == 1 && ev->type == PERF_RECORD_LOST && ev->size == 24,
		    "ret=%d", ret);
	TEST_ASSERT(payload_ok(ev, 9), "payload");
	fake__exit(&f);
	return TEST_OK;
}

LP_TEST(test_ring_rejects_bad_size, "ring: zero, short and oversized header.size are errors")
{
	const struct perf_event_header *ev;
	struct fake f;
	static const u16 bad[] = { 0, 4, 7, 40, 65535 };
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		TEST_ASSERT(fake__init(&f) == 0, "init");
		/* 32 bytes published, header claims bad[i] */
		fake__put(&f, PERF_RECORD_SAMPLE, 32, 3);
		f.data[6] = bad[i] & 0xff;
		f.data[7] = bad[i] >> 8;
		fake__publish(&f);
		TEST_ASSERT(ring__read_init(&f.r) == 0, "init");
		TEST_ASSERT(ring__read_event(&f.r, &ev) == -EBADMSG,
			    "size %u must be rejected", bad[i]);
		TEST_ASSERT(ev == NULL, "no record on error");
		/* Position is not advanced: the error repeats, nothing is read. */
		TEST_ASSERT(ring__read_event(&f.r, &ev) == -EBADMSG, "sticky");
		ring__discard(&f.r);
		TEST_ASSERT(fake__tail(&f) == 32, "discard frees everything");
		TEST_ASSERT(ring__read_init(&f.r) == -EAGAIN, "empty after discard");
		fake__exit(&f);
	}

	/* A head more than a buffer ahead of the tail is inconsistent. */
	TEST_ASSERT(fake__init(&f) == 0, "init");
	f.head = DATA + 8;
	fake__publish(&f);
	TEST_ASSERT(ring__read_init(&f.r) == -EBADMSG, "head too far ahead");
	fake__exit(&f);

	/* Published bytes shorter than a header. */
	TEST_ASSERT(fake__init(&f) == 0, "init");
	fake__put(&f, PERF_RECORD_SAMPLE, 8, 0);
	f.head = 4;
	fake__publish(&f);
	TEST_ASSERT(ring__read_init(&f.r) == 0, "init");
	TEST_ASSERT(ring__read_event(&f.r, &ev) == -EBADMSG, "partial header");
	fake__exit(&f);
	return TEST_OK;
}

LP_TEST(test_ring_head_tail_accounting, "ring: consume publishes exactly what was read, across laps")
{
	const struct perf_event_header *ev;
	struct fake f;
	u64 read_bytes = 0, n = 0;
	int lap, ret;

	TEST_ASSERT(fake__init(&f) == 0, "init");
	/* Several laps of 56-byte records (56 does not divide 256: all offsets). */
	for (lap = 0; lap < 40; lap++) {
		fake__put(&f, PERF_RECORD_SAMPLE, 56, lap);
		fake__put(&f, PERF_RECORD_SAMPLE, 56, lap + 100);
		fake__publish(&f);
		TEST_ASSERT((__atomic_load_n(&f.r.meta->data_head, __ATOMIC_ACQUIRE) - f.r.tail) == 112, "pending=%llu",
			    (unsigned long long)(__atomic_load_n(&f.r.meta->data_head, __ATOMIC_ACQUIRE) - f.r.tail));
		TEST_ASSERT(ring__read_init(&f.r) == 0, "lap %d", lap);
		ret = ring__read_event(&f.r, &ev);
		TEST_ASSERT(ret == 1 && payload_ok(ev, lap), "lap %d first", lap);
		read_bytes += ev->size;
		n++;
		ring__consume(&f.r);
		TEST_ASSERT(fake__tail(&f) == read_bytes, "tail %llu != %llu",
			    (unsigned long long)fake__tail(&f),
			    (unsigned long long)read_bytes);
		ret = ring__read_event(&f.r, &ev);
		TEST_ASSERT(ret == 1 && payload_ok(ev, lap + 100), "lap %d second", lap);
		read_bytes += ev->size;
		n++;
		TEST_ASSERT(ring__read_event(&f.r, &ev) == 0, "end of lap");
		ring__read_done(&f.r);
	}
	TEST_ASSERT(n == 80 && fake__tail(&f) == 80 * 56, "n=%llu tail=%llu",
		    (unsigned long long)n, (unsigned long long)fake__tail(&f));
	fake__exit(&f);
	return TEST_OK;
}

LP_TEST(test_ring_init_rejects_bad_geometry, "ring: non power-of-two sizes are refused")
{
	struct lp_ring r;
	char buf[sizeof(struct perf_event_mmap_page) + 96];

	TEST_ASSERT(ring__init_mem(&r, buf, 96) == -EINVAL, "96 bytes");
	TEST_ASSERT(ring__init_mem(&r, buf, 0) == -EINVAL, "0 bytes");
	TEST_ASSERT(ring__mmap(&r, -1, 3) == -EINVAL, "3 pages");
	TEST_ASSERT(ring__mmap(&r, -1, 0) == -EINVAL, "0 pages");
	return TEST_OK;
}

static void spin_ms(int ms)
{
	struct timespec a, b;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do {
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

LP_TEST(test_ring_live_task_clock, "ring: samples of a real task-clock event are read back")
{
	struct perf_event_attr attr;
	const struct perf_event_header *ev;
	struct lp_ring r;
	int fd, ret, nsamples = 0, nbad = 0;
	u32 mypid = getpid();

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.sample_period = 100000;	/* 100 us */
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	attr.exclude_kernel = 1;
	attr.disabled = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0)
		TEST_SKIP("perf_event_open: %s", strerror(errno));
	ret = ring__mmap(&r, fd, 1);	/* one page: it will wrap */
	TEST_ASSERT(ret == 0, "mmap: %d", ret);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (int round = 0; round < 20; round++) {
		spin_ms(5);
		if (ring__read_init(&r))
			continue;
		while ((ret = ring__read_event(&r, &ev)) > 0) {
			u32 pid;

			if (ev->type != PERF_RECORD_SAMPLE)
				continue;
			/* body: ip (8), pid (4), tid (4) */
			TEST_ASSERT(ev->size == 8 + 16, "size %d", ev->size);
			memcpy(&pid, (const char *)ev + 16, 4);
			if (pid == mypid)
				nsamples++;
			else
				nbad++;
		}
		TEST_ASSERT(ret == 0, "read_event: %d", ret);
		ring__read_done(&r);
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	TEST_LOG("%d samples of pid %u, %d others", nsamples, mypid, nbad);
	TEST_ASSERT(nsamples >= 20 && nbad == 0, "%d samples, %d foreign",
		    nsamples, nbad);
	ring__munmap(&r);
	close(fd);
	return TEST_OK;
}
