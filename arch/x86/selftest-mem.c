// SPDX-License-Identifier: GPL-2.0
/*
 * Live test of a hardware memory-sampling facility (PEBS, IBS) on the
 * user's machine: the facility's sampling events, opened on this thread as
 * the session would (groups per the layout, one ring), see a loop of loads
 * and stores over an array, and most decoded samples must carry addresses
 * inside that array. SKIPs with the probe's reason where the hardware lacks
 * the facility.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "arch/x86/selftest-mem.h"
#include "core/perf-record.h"
#include "core/perf-util.h"
#include "core/ring.h"
#include "core/tests.h"

#define MEM_ST_BYTES (8u << 20)

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void mem_loop(volatile u64 *a, size_t n)
{
	double end = now_s() + 0.3;
	size_t i, j = 0;

	while (now_s() < end)
		for (i = 0; i < 1u << 16; i++) {
			j = (j * 2862933555777941757ULL + 3037000493ULL) % n;
			a[j] = a[(j + 8) % n] + 1;
		}
}

int mem_selftest(const struct lp_facility_ops *f, struct lp_test_ctx *ctx)
{
	struct perf_event_attr attrs[LP_MAX_FACILITY_ATTRS];
	struct lp_sampling_opts opts = { 0 };
	int fds[LP_MAX_FACILITY_ATTRS];
	u64 ids[LP_MAX_FACILITY_ATTRS];
	const struct perf_event_header *h;
	struct lp_attr_layout lay;
	struct lp_ring ring = { 0 };
	struct lp_probe pr;
	u64 *arr, lo, hi, samples = 0, in = 0, addr = 0;
	int i, n = 0, ret = TEST_FAIL, first = -1;
	char err[256];

	f->probe(&pr);
	if (!pr.usable)
		TEST_SKIP("%s", pr.reason);
	opts.period = !strcmp(f->name, "pebs") ? 2003 : 0x1000;	/* events vs ibs ops */
	if (f->setup_layout(NULL, &opts, attrs, &lay, err, sizeof(err)))
		TEST_SKIP("%s", err);
	arr = calloc(1, MEM_ST_BYTES);
	if (!arr)
		TEST_SKIP("out of memory");
	lo = (u64)arr;
	hi = lo + MEM_ST_BYTES;
	for (i = 0; i < lay.nattrs; i++)
		fds[i] = -1;
	for (i = 0; i < lay.nattrs; i++) {
		int group = lay.leader[i] >= 0 && lay.leader[i] != i ? fds[lay.leader[i]] : -1;

		if (lay.role[i] == LP_ATTR_COUNT)
			continue;
		attrs[i].sample_type |= PERF_SAMPLE_IDENTIFIER;
		attrs[i].disabled = 0;
		fds[i] = perf__open(&attrs[i], 0, -1, group, PERF_FLAG_FD_CLOEXEC);
		if (fds[i] < 0) {
			perf__strerror(fds[i], &attrs[i], f->name, err, sizeof(err));
			snprintf(ctx->reason, sizeof(ctx->reason), "%s", err);
			goto out;
		}
		ioctl(fds[i], PERF_EVENT_IOC_ID, &ids[i]);
		if (first < 0) {
			first = i;
			if (ring__mmap(&ring, fds[i], 64)) {
				snprintf(ctx->reason, sizeof(ctx->reason), "ring mmap failed");
				goto out;
			}
		} else if (ioctl(fds[i], PERF_EVENT_IOC_SET_OUTPUT, fds[first]) < 0) {
			snprintf(ctx->reason, sizeof(ctx->reason), "SET_OUTPUT: %s", strerror(errno));
			goto out;
		}
		n++;
	}
	mem_loop(arr, MEM_ST_BYTES / 8 - 16);
	for (i = 0; i < lay.nattrs; i++)
		if (fds[i] >= 0)
			ioctl(fds[i], PERF_EVENT_IOC_DISABLE, 0);
	if (ring__read_init(&ring) == 0) {
		while (ring__read_event(&ring, &h) > 0) {
			struct lp_decode_ctx dc = { 0 };
			struct lp_perf_sample raw;
			struct lp_sample s;
			u64 id;

			if (h->type != PERF_RECORD_SAMPLE || h->size < sizeof(*h) + 8) {
				ring__consume(&ring);
				continue;
			}
			memcpy(&id, h + 1, 8);
			for (i = 0; i < lay.nattrs; i++)
				if (fds[i] >= 0 && ids[i] == id && lay.role[i] == LP_ATTR_SAMPLE)
					break;
			if (i < lay.nattrs &&
			    perf_sample__parse(h, h->size, attrs[i].sample_type, 0, &raw) == 0) {
				dc.attr = &attrs[i];
				f->decode(&dc, &raw, &s);
				if (s.noaddr == LP_NOADDR_NONE) {
					samples++;
					in += s.addr >= lo && s.addr < hi;
					addr = s.addr;
				}
			}
			ring__consume(&ring);
		}
		ring__read_done(&ring);
	}
	TEST_LOG("%s: %d events, %llu samples with address, %llu in the array (last 0x%llx)",
		 f->name, n, (unsigned long long)samples, (unsigned long long)in,
		 (unsigned long long)addr);
	if (samples < 10) {
		snprintf(ctx->reason, sizeof(ctx->reason), "%s: only %llu samples with an address",
			 f->name, (unsigned long long)samples);
		goto out;
	}
	if (in * 2 < samples) {
		snprintf(ctx->reason, sizeof(ctx->reason), "%s: %llu of %llu sampled addresses in "
			 "the array", f->name, (unsigned long long)in, (unsigned long long)samples);
		goto out;
	}
	ret = TEST_OK;
out:
	if (first >= 0)
		ring__munmap(&ring);
	for (i = 0; i < lay.nattrs; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(arr);
	return ret;
}
