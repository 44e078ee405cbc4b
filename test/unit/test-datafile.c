// SPDX-License-Identifier: GPL-2.0
/* lociprof.data: round trips, the wire format, and damaged files. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/datafile.h"
#include "core/tests.h"

static char *tmp_path(const char *name)
{
	static char path[256];

	snprintf(path, sizeof(path), "/tmp/lp-test-datafile-%d-%s", getpid(), name);
	return path;
}

static void fill_header(struct lp_data_header *h)
{
	static char *const argv[] = { "./a.out", "--threads", "4", "" };
	int i;

	memset(h, 0, sizeof(*h));
	strcpy(h->cpu_vendor, "GenuineIntel");
	h->cpu_family = 6;
	h->cpu_model = 167;
	strcpy(h->cpu_name, "11th Gen Intel(R) Core(TM) i7-11700 @ 2.50GHz");
	strcpy(h->kernel_release, "6.1.0-test");
	strcpy(h->hostname, "box.example.org");
	strcpy(h->facility, "soft");
	h->period = 250000;
	strcpy(h->period_unit, "ns");
	h->sampling_flags = LP_DATA_SAMPLING_WATCHPOINTS;
	strcpy(h->analysis, "reuse");
	strcpy(h->config, "shared-cache=1 granularity=line window=0 seed=5");
	datafile__set_cmdline(h, 4, argv);
	h->start_time = 1700000000123456789ULL;
	h->start_perf_time = 987654321;
	for (i = 0; i < LP_MAX_CPUS; i++)
		h->topo.cpu_core[i] = h->topo.cpu_socket[i] = -1;
	h->topo.ncpus = 4;
	h->topo.nsockets = 1;
	h->topo.ncores = 2;
	for (i = 0; i < 4; i++) {
		h->topo.cpu_core[i] = i / 2;
		h->topo.cpu_socket[i] = 0;
	}
	h->topo.cpu_core[70] = 35;	/* a sparse online cpu, second bitmap word */
	h->topo.cpu_socket[70] = 1;
	h->topo.ncaches = 3;
	h->topo.caches[0] = (struct lp_cache){ 1, "Data", 48 << 10, 12, 64, 64 };
	lp_cpuset__set(&h->topo.caches[0].cpus, 0);
	lp_cpuset__set(&h->topo.caches[0].cpus, 1);
	h->topo.caches[1] = (struct lp_cache){ 2, "Unified", 1280 << 10, 20, 64, 1024 };
	lp_cpuset__set(&h->topo.caches[1].cpus, 2);
	h->topo.caches[2] = (struct lp_cache){ 3, "Unified", 32ULL << 20, 16, 64, 32768 };
	for (i = 0; i < 4; i++)
		lp_cpuset__set(&h->topo.caches[2].cpus, i);
	lp_cpuset__set(&h->topo.caches[2].cpus, 70);
}

/* One event of each type; every field a distinct non-zero value. */
static int make_events(struct lp_event *ev)
{
	int n = 0;

	memset(ev, 0, 8 * sizeof(*ev));
	ev[n].type = LP_EV_THREAD_START;
	ev[n++].thread = (struct lp_thread){ 11, 101, 102, 100, 1, 3, 0, 0x7f0011223344ULL };
	ev[n].type = LP_EV_THREAD_EXIT;
	ev[n++].thread = (struct lp_thread){ 12, 101, 103, 102, 0, 4, -9, 0x7f0055667788ULL,
					     987654321 };
	ev[n].type = LP_EV_MMAP;
	ev[n].mmap = (struct lp_mmap){ 13, 101, 5, 0x400000, 0x21000, 0x1000 };
	strcpy(ev[n++].mmap.filename, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	ev[n].type = LP_EV_SAMPLE;
	ev[n++].sample = (struct lp_sample){ 14, 0x401234, 0x7ffd1000, 250000, 0x68100142,
					     101, 102, 1, 321, 8, LP_ACCESS_STORE,
					     LP_NOADDR_NONE, LP_SAMPLE_LOCKED | LP_SAMPLE_HELD,
					     123456789 };
	ev[n].type = LP_EV_TRAP;
	ev[n++].trap = (struct lp_trap){ 15, 0x401239, 0x7ffd1008, 0xc00c1e, 101, 103, 0,
					 2, LP_WP_RW, 8, 0, 223456789 };
	ev[n].type = LP_EV_ACTION;
	ev[n++].action = (struct lp_action){ LP_ACT_ARM, 3, LP_WP_W, 4, 103, 0x7ffd1010,
					     0xc00c1f, 16 };
	ev[n].type = LP_EV_LOST;
	ev[n++].lost = (struct lp_lost){ 17, 101, 102, 12345, 67 };
	ev[n].type = LP_EV_COUNTER;
	ev[n++].counter = (struct lp_counter){ 18, 101, 102, 99999999, 5000000, 4000000 };
	return n;
}

static int event_equal(const struct lp_event *a, const struct lp_event *b)
{
	if (a->type != b->type)
		return 0;
	switch (a->type) {
	case LP_EV_THREAD_START:
	case LP_EV_THREAD_EXIT:
		return !memcmp(&a->thread, &b->thread, sizeof(a->thread));
	case LP_EV_MMAP:
		return !memcmp(&a->mmap, &b->mmap, sizeof(a->mmap));
	case LP_EV_SAMPLE:
		return !memcmp(&a->sample, &b->sample, sizeof(a->sample));
	case LP_EV_TRAP:
		return !memcmp(&a->trap, &b->trap, sizeof(a->trap));
	case LP_EV_ACTION:
		return !memcmp(&a->action, &b->action, sizeof(a->action));
	case LP_EV_LOST:
		return !memcmp(&a->lost, &b->lost, sizeof(a->lost));
	case LP_EV_COUNTER:
		return !memcmp(&a->counter, &b->counter, sizeof(a->counter));
	case LP_EV_ALLOC:
	case LP_EV_FREE:
		return !memcmp(&a->alloc, &b->alloc, sizeof(a->alloc));
	case LP_EV_EXEC:
		return a->exec.time == b->exec.time && a->exec.pid == b->exec.pid &&
		       a->exec.tid == b->exec.tid && !strcmp(a->exec.filename, b->exec.filename);
	}
	return 0;
}

/* @every > 0: flush every @every events, as the recorder does once a second. */
static int write_file_flushing(const char *path, u32 flags, const struct lp_event *ev, int n,
			       int every)
{
	struct lp_data_header *h = malloc(sizeof(*h));
	struct lp_datafile *f;
	int i, err;

	fill_header(h);
	err = datafile__create_flags(&f, path, h, flags);
	free(h);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		err = datafile__write(f, &ev[i]);
		if (!err && every && i % every == every - 1)
			err = datafile__flush(f);
		if (err) {
			datafile__close(f);
			return err;
		}
	}
	return datafile__close(f);
}

static int write_file(const char *path, u32 flags, const struct lp_event *ev, int n)
{
	return write_file_flushing(path, flags, ev, n, 0);
}

static unsigned char *slurp(const char *path, size_t *len)
{
	struct stat st;
	unsigned char *b;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	b = malloc(st.st_size + 1);
	if (b && read(fd, b, st.st_size) != st.st_size) {
		free(b);
		b = NULL;
	}
	close(fd);
	*len = st.st_size;
	return b;
}

LP_TEST(test_datafile_roundtrip_every_event, "datafile: every event type round-trips, zstd and raw")
{
	struct lp_event ev[8], got;
	struct lp_datafile *f;
	const char *path = tmp_path("rt");
	u32 modes[2] = { LP_DATA_F_ZSTD, 0 };
	int n = make_events(ev), i, m, ret;

	for (m = 0; m < 2; m++) {
		ret = write_file(path, modes[m], ev, n);
		TEST_ASSERT(ret == 0, "write: %s", datafile__strerror(ret));
		ret = datafile__open(&f, path, NULL);
		TEST_ASSERT(ret == 0, "open: %s", datafile__strerror(ret));
		for (i = 0; i < n; i++) {
			ret = datafile__read(f, &got);
			TEST_ASSERT(ret == 1, "event %d: %s", i, datafile__strerror(ret));
			TEST_ASSERT(event_equal(&got, &ev[i]), "event %d (%s) differs", i,
				    lp_event_names[ev[i].type]);
		}
		ret = datafile__read(f, &got);
		TEST_ASSERT(ret == 0, "clean end: %s", datafile__strerror(ret));
		TEST_ASSERT(datafile__read(f, &got) == 0, "end is sticky");
		TEST_ASSERT(datafile__nr_events(f) == (u64)n, "count");
		datafile__close(f);
	}
	unlink(path);
	return TEST_OK;
}

LP_TEST(test_datafile_header_roundtrip, "datafile: header with machine, run, cmdline and topology round-trips")
{
	struct lp_data_header *in = malloc(sizeof(*in)), *out = malloc(sizeof(*out));
	const char *argv[8];
	struct lp_datafile *f;
	const char *path = tmp_path("hdr");
	int ret, i;

	fill_header(in);
	TEST_ASSERT(write_file(path, LP_DATA_F_ZSTD, NULL, 0) == 0, "write");
	ret = datafile__open(&f, path, out);
	TEST_ASSERT(ret == 0, "open: %s", datafile__strerror(ret));
	TEST_ASSERT(out->version == LP_DATA_VERSION && out->flags == LP_DATA_F_ZSTD, "version");
	TEST_ASSERT(!strcmp(out->cpu_vendor, "GenuineIntel"), "vendor '%s'", out->cpu_vendor);
	TEST_ASSERT(out->cpu_family == 6 && out->cpu_model == 167, "family/model");
	TEST_ASSERT(!strcmp(out->cpu_name, in->cpu_name), "cpu name");
	TEST_ASSERT(!strcmp(out->kernel_release, "6.1.0-test"), "release");
	TEST_ASSERT(!strcmp(out->hostname, "box.example.org"), "hostname");
	TEST_ASSERT(!strcmp(out->facility, "soft"), "facility");
	TEST_ASSERT(out->period == 250000 && !strcmp(out->period_unit, "ns"), "period");
	TEST_ASSERT(out->sampling_flags == LP_DATA_SAMPLING_WATCHPOINTS, "flags");
	TEST_ASSERT(!strcmp(out->analysis, "reuse") && !strcmp(out->config, in->config),
		    "analysis %.20s, settings %.60s", out->analysis, out->config);
	TEST_ASSERT(out->start_time == 1700000000123456789ULL, "start time");
	TEST_ASSERT(out->start_perf_time == 987654321, "perf time");
	TEST_ASSERT(datafile__get_argv(out, argv, 8) == 4, "argc");
	TEST_ASSERT(!strcmp(argv[0], "./a.out") && !strcmp(argv[1], "--threads") &&
		    !strcmp(argv[2], "4") && !strcmp(argv[3], ""), "argv");
	TEST_ASSERT(out->topo.ncpus == 4 && out->topo.nsockets == 1 && out->topo.ncores == 2,
		    "counts");
	for (i = 0; i < LP_MAX_CPUS; i++)
		TEST_ASSERT(out->topo.cpu_core[i] == in->topo.cpu_core[i] &&
			    out->topo.cpu_socket[i] == in->topo.cpu_socket[i],
			    "cpu %d: core %d socket %d", i, out->topo.cpu_core[i],
			    out->topo.cpu_socket[i]);
	TEST_ASSERT(out->topo.cpu_core[70] == 35 && out->topo.cpu_core[71] == -1, "sparse");
	TEST_ASSERT(out->topo.ncaches == 3, "ncaches %d", out->topo.ncaches);
	for (i = 0; i < 3; i++) {
		const struct lp_cache *a = &in->topo.caches[i], *b = &out->topo.caches[i];

		TEST_ASSERT(a->level == b->level && !strcmp(a->type, b->type) &&
			    a->size == b->size && a->ways == b->ways &&
			    a->line_size == b->line_size && a->sets == b->sets &&
			    !memcmp(&a->cpus, &b->cpus, sizeof(a->cpus)), "cache %d", i);
	}
	TEST_ASSERT(lp_cpuset__has(&out->topo.caches[2].cpus, 70) &&
		    !lp_cpuset__has(&out->topo.caches[1].cpus, 0), "cpu sets");
	datafile__close(f);
	unlink(path);
	free(in);
	free(out);
	return TEST_OK;
}

/*
 * The wire format of man 5 lociprof-datafile, checked on an uncompressed
 * file against bytes encoded here by hand.
 */
LP_TEST(test_datafile_wire_format, "datafile: preamble and a LOST record are laid out as documented")
{
	static const unsigned char want_pre[16] = {
		'L', 'O', 'C', 'I', 'P', 'R', 'O', 'F',
		0x04, 0x00, 0x01, 0x00,		/* version 1.4: 0x00010004 */
		0x00, 0x00, 0x00, 0x00,		/* flags: raw */
	};
	static const unsigned char want_lost[8 + 32] = {
		0x07, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00,	/* type 7, len 32 */
		0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* time 17 */
		0x65, 0x00, 0x00, 0x00, 0x66, 0x00, 0x00, 0x00,	/* pid 101, tid 102 */
		0x39, 0x30, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* lost 12345 */
		0x43, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* throttled 67 */
	};
	struct lp_event ev[8];
	const char *path = tmp_path("wire");
	unsigned char *b;
	size_t len, off;
	u32 hlen;

	make_events(ev);
	TEST_ASSERT(write_file(path, 0, &ev[6], 1) == 0, "write");
	b = slurp(path, &len);
	TEST_ASSERT(b && len > 16 + 8, "read back");
	TEST_ASSERT(!memcmp(b, want_pre, 16), "preamble");
	/* header record: type 0x8000 */
	TEST_ASSERT(b[16] == 0x00 && b[17] == 0x80 && b[18] == 0 && b[19] == 0, "header type");
	hlen = b[20] | b[21] << 8 | b[22] << 16 | (u32)b[23] << 24;
	/* first header field: vendor string, u32 length 12 then the bytes */
	TEST_ASSERT(b[24] == 12 && !memcmp(b + 28, "GenuineIntel", 12), "vendor");
	off = 16 + 8 + hlen;
	TEST_ASSERT(len >= off + sizeof(want_lost), "len %zu", len);
	TEST_ASSERT(!memcmp(b + off, want_lost, sizeof(want_lost)), "lost record bytes");
	off += sizeof(want_lost);
	/* end record: type 0x8001, u64 total 1, u32 12 types, counts (lost = 1) */
	TEST_ASSERT(b[off] == 0x01 && b[off + 1] == 0x80, "end type");
	TEST_ASSERT(b[off + 8] == 1 && b[off + 16] == 12, "total 1, 12 types: %d", b[off + 16]);
	TEST_ASSERT(b[off + 20 + 8 * (LP_EV_LOST - 1)] == 1, "lost count");
	TEST_ASSERT(len == off + 8 + 12 + 8 * 12, "nothing after the end record");
	free(b);
	unlink(path);
	return TEST_OK;
}

/* Raw stream builder for hand-made files. */
struct sb {
	unsigned char b[4096];
	size_t n;
};

static void sb_le(struct sb *s, u64 v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		s->b[s->n++] = (unsigned char)(v >> (8 * i));
}

/* Preamble + header record copied from a real raw file. */
static int sb_start(struct sb *s, const char *path)
{
	unsigned char *b;
	size_t len, hlen;

	if (write_file(path, 0, NULL, 0))
		return -1;
	b = slurp(path, &len);
	if (!b)
		return -1;
	hlen = b[20] | b[21] << 8 | b[22] << 16;
	if (16 + 8 + hlen > sizeof(s->b)) {
		free(b);
		return -1;
	}
	memcpy(s->b, b, 16 + 8 + hlen);
	s->n = 16 + 8 + hlen;
	free(b);
	return 0;
}

static void sb_end(struct sb *s, u64 total, u64 nlost)
{
	sb_le(s, 0x8001, 2);
	sb_le(s, 0, 2);
	sb_le(s, 12 + 8 * 8, 4);
	sb_le(s, total, 8);
	sb_le(s, 8, 4);
	for (int t = 1; t <= 8; t++)
		sb_le(s, t == LP_EV_LOST ? nlost : 0, 8);
}

LP_TEST(test_datafile_skips_unknown, "datafile: unknown record types and trailing fields are skipped")
{
	struct lp_datafile *f;
	struct lp_event ev;
	struct sb s;
	int ret;

	TEST_ASSERT(sb_start(&s, tmp_path("unk")) == 0, "start");
	/* a record type from the future */
	sb_le(&s, 0x0042, 2);
	sb_le(&s, 0, 2);
	sb_le(&s, 5, 4);
	sb_le(&s, 0xabcdef, 5);
	/* a LOST record grown by 8 bytes */
	sb_le(&s, LP_EV_LOST, 2);
	sb_le(&s, 0, 2);
	sb_le(&s, 40, 4);
	sb_le(&s, 1000, 8);
	sb_le(&s, 7, 4);
	sb_le(&s, 8, 4);
	sb_le(&s, 55, 8);
	sb_le(&s, 66, 8);
	sb_le(&s, 0xfeedfeedfeedfeedULL, 8);
	sb_end(&s, 2, 1);
	ret = datafile__open_mem(&f, s.b, s.n, NULL);
	TEST_ASSERT(ret == 0, "open: %s", datafile__strerror(ret));
	ret = datafile__read(f, &ev);
	TEST_ASSERT(ret == 1 && ev.type == LP_EV_LOST, "ret %d", ret);
	TEST_ASSERT(ev.lost.time == 1000 && ev.lost.pid == 7 && ev.lost.tid == 8 &&
		    ev.lost.lost == 55 && ev.lost.throttled == 66, "values");
	ret = datafile__read(f, &ev);
	TEST_ASSERT(ret == 0, "end: %s", datafile__strerror(ret));
	datafile__close(f);

	/* The same LOST record cut short is corrupt. */
	TEST_ASSERT(sb_start(&s, tmp_path("unk")) == 0, "start");
	sb_le(&s, LP_EV_LOST, 2);
	sb_le(&s, 0, 2);
	sb_le(&s, 24, 4);
	sb_le(&s, 1000, 8);
	sb_le(&s, 7, 4);
	sb_le(&s, 8, 4);
	sb_le(&s, 55, 8);
	sb_end(&s, 1, 1);
	TEST_ASSERT(datafile__open_mem(&f, s.b, s.n, NULL) == 0, "open");
	ret = datafile__read(f, &ev);
	TEST_ASSERT(ret == -EBADMSG, "short record: %d", ret);
	datafile__close(f);

	/* End counts that disagree with the stream: records went missing. */
	TEST_ASSERT(sb_start(&s, tmp_path("unk")) == 0, "start");
	sb_end(&s, 1, 1);
	TEST_ASSERT(datafile__open_mem(&f, s.b, s.n, NULL) == 0, "open");
	TEST_ASSERT(datafile__read(f, &ev) == -EBADMSG, "count mismatch");
	datafile__close(f);

	/* Impossible record length. */
	TEST_ASSERT(sb_start(&s, tmp_path("unk")) == 0, "start");
	sb_le(&s, LP_EV_SAMPLE, 2);
	sb_le(&s, 0, 2);
	sb_le(&s, LP_DATA_MAX_RECORD + 1, 4);
	TEST_ASSERT(datafile__open_mem(&f, s.b, s.n, NULL) == 0, "open");
	TEST_ASSERT(datafile__read(f, &ev) == -EBADMSG, "> 1 MiB");
	datafile__close(f);

	/* A sample whose access kind is out of range would index past tables. */
	TEST_ASSERT(sb_start(&s, tmp_path("unk")) == 0, "start");
	sb_le(&s, LP_EV_SAMPLE, 2);
	sb_le(&s, 0, 2);
	sb_le(&s, 60, 4);
	for (int i = 0; i < 5; i++)
		sb_le(&s, i, 8);
	for (int i = 0; i < 4; i++)
		sb_le(&s, i, 4);
	sb_le(&s, 8, 1);
	sb_le(&s, 9, 1);	/* kind 9 */
	sb_le(&s, 0, 1);
	sb_le(&s, 0, 1);
	sb_end(&s, 1, 0);
	TEST_ASSERT(datafile__open_mem(&f, s.b, s.n, NULL) == 0, "open");
	TEST_ASSERT(datafile__read(f, &ev) == -EBADMSG, "bad kind");
	datafile__close(f);
	unlink(tmp_path("unk"));
	return TEST_OK;
}

/* Read all of @b; 1 if it never crashed and its outcome is allowed. */
static int read_all(const unsigned char *b, size_t len, const struct lp_event *want,
		    int nwant, int *nread, int *result)
{
	struct lp_datafile *f;
	struct lp_event ev;
	int ret, n = 0;

	*nread = 0;
	ret = datafile__open_mem(&f, b, len, NULL);
	if (ret) {
		*result = ret;
		return 1;
	}
	while ((ret = datafile__read(f, &ev)) > 0) {
		if (want && (n >= nwant || !event_equal(&ev, &want[n])))
			want = NULL;	/* prefix broken: caller checks nread */
		else
			n++;
	}
	*nread = n;
	*result = ret;
	datafile__close(f);
	return 1;
}

LP_TEST_TIMEOUT(test_datafile_truncated, "datafile: a file cut anywhere gives ENODATA/EBADMSG after the intact prefix", 60)
{
	struct lp_event ev[400];
	const char *path = tmp_path("trunc");
	u32 modes[2] = { LP_DATA_F_ZSTD, 0 };
	unsigned char *b;
	size_t len, cut;
	int i, m, nread, res, maxread_cut = 0;

	for (i = 0; i < 400; i += 8)
		make_events(ev + i);
	for (i = 0; i < 400; i++)
		if (ev[i].type == LP_EV_SAMPLE)
			ev[i].sample.time += i;	/* distinct */
	for (m = 0; m < 2; m++) {
		/* frames of 50 events: a cut loses the frame it falls in, no more */
		TEST_ASSERT(write_file_flushing(path, modes[m], ev, 400, 50) == 0, "write");
		b = slurp(path, &len);
		TEST_ASSERT(b, "slurp");
		read_all(b, len, ev, 400, &nread, &res);
		TEST_ASSERT(res == 0 && nread == 400, "whole file: %d events, %s", nread,
			    datafile__strerror(res));
		for (cut = 0; cut < len; cut++) {
			read_all(b, cut, ev, 400, &nread, &res);
			TEST_ASSERT(res == -ENODATA || res == -EBADMSG,
				    "mode %d cut %zu/%zu: result %d (%s)", m, cut, len, res,
				    datafile__strerror(res));
			/* events before the cut came back, in order, intact */
			TEST_ASSERT(nread <= 400, "nread");
			/* compressed: from checked frames only, 50 events each */
			TEST_ASSERT(!modes[m] || nread % 50 == 0, "cut %zu: %d events, not whole frames",
				    cut, nread);
			if (nread > maxread_cut)
				maxread_cut = nread;
		}
		/* the last cuts lose only the end: every event was returned */
		TEST_ASSERT(maxread_cut == 400, "mode %d: best prefix %d", m, maxread_cut);
		free(b);
		maxread_cut = 0;
	}
	unlink(path);
	return TEST_OK;
}

LP_TEST_TIMEOUT(test_datafile_flipped_bytes, "datafile: flipped bytes give an error or a valid stream, never a crash", 60)
{
	struct lp_event ev[8];
	const char *path = tmp_path("flip");
	u32 modes[2] = { LP_DATA_F_ZSTD, 0 };
	unsigned char *b;
	size_t len, pos;
	int m, n = make_events(ev), nread, res, bit, nerr = 0, total = 0;

	for (m = 0; m < 2; m++) {
		TEST_ASSERT(write_file(path, modes[m], ev, n) == 0, "write");
		b = slurp(path, &len);
		TEST_ASSERT(b, "slurp");
		for (pos = 0; pos < len; pos++) {
			for (bit = 0; bit < 8; bit += 3) {
				b[pos] ^= 1 << bit;
				read_all(b, len, NULL, 0, &nread, &res);
				b[pos] ^= 1 << bit;
				TEST_ASSERT(res <= 0, "result %d", res);
				nerr += res < 0;
				total++;
			}
		}
		free(b);
	}
	TEST_LOG("%d of %d flips detected", nerr, total);
	/* the zstd checksum catches every flip inside the compressed frame */
	TEST_ASSERT(nerr > total / 2, "only %d of %d flips detected", nerr, total);
	unlink(path);
	return TEST_OK;
}

LP_TEST(test_datafile_bad_magic_version, "datafile: bad magic, unknown major, unknown flag are clear errors")
{
	struct lp_data_header *h = malloc(sizeof(*h));
	struct lp_datafile *f;
	const char *path = tmp_path("magic");
	unsigned char *b;
	size_t len;
	int ret;

	TEST_ASSERT(write_file(path, LP_DATA_F_ZSTD, NULL, 0) == 0, "write");
	b = slurp(path, &len);
	TEST_ASSERT(b, "slurp");
	b[0] = 'X';
	ret = datafile__open_mem(&f, b, len, h);
	TEST_ASSERT(ret == -EMEDIUMTYPE, "ret %d", ret);
	TEST_ASSERT(strstr(datafile__strerror(ret), "not a lociprof data file"), "%s",
		    datafile__strerror(ret));
	b[0] = 'L';
	b[10] = 2;		/* major 2 */
	ret = datafile__open_mem(&f, b, len, h);
	TEST_ASSERT(ret == -EPROTONOSUPPORT, "major 2: %d", ret);
	b[10] = 1;
	b[8] = 7;		/* minor 7: compatible */
	ret = datafile__open_mem(&f, b, len, h);
	TEST_ASSERT(ret == 0 && h->version == 0x10007, "minor 7: %d", ret);
	datafile__close(f);
	b[13] = 1;		/* incompat flag bit 8 */
	ret = datafile__open_mem(&f, b, len, h);
	TEST_ASSERT(ret == -EPROTONOSUPPORT, "flag: %d", ret);
	b[13] = 0;
	b[14] = 1;		/* compat flag bit 16: ignored */
	ret = datafile__open_mem(&f, b, len, h);
	TEST_ASSERT(ret == 0, "compat flag: %d", ret);
	datafile__close(f);
	TEST_ASSERT(datafile__open_mem(&f, "LOCI", 4, h) == -ENODATA, "cut magic");
	TEST_ASSERT(datafile__open_mem(&f, "ELF\x7f", 4, h) == -EMEDIUMTYPE, "short junk");
	TEST_ASSERT(datafile__open(&f, "/nonexistent/x", h) == -ENOENT, "enoent");
	free(b);
	free(h);
	unlink(path);
	return TEST_OK;
}

LP_TEST(test_datafile_mode_and_old, "datafile: created 0600; an existing file becomes .old")
{
	const char *path = tmp_path("old");
	char old[300];
	struct lp_event ev[8];
	struct stat st;
	unsigned char *b;
	size_t len;
	mode_t um = umask(0);
	int fd;

	snprintf(old, sizeof(old), "%s.old", path);
	unlink(old);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	TEST_ASSERT(fd >= 0 && write(fd, "previous run", 12) == 12, "seed file");
	close(fd);
	make_events(ev);
	TEST_ASSERT(write_file(path, LP_DATA_F_ZSTD, ev, 8) == 0, "write");
	umask(um);
	TEST_ASSERT(stat(path, &st) == 0, "stat");
	TEST_ASSERT((st.st_mode & 07777) == 0600, "mode %o", st.st_mode & 07777);
	b = slurp(old, &len);
	TEST_ASSERT(b && len == 12 && !memcmp(b, "previous run", 12), ".old has the old data");
	free(b);
	b = slurp(path, &len);
	TEST_ASSERT(b && !memcmp(b, "LOCIPROF", 8), "new file");
	free(b);
	unlink(path);
	unlink(old);
	return TEST_OK;
}

LP_TEST(test_datafile_symlink_not_followed, "datafile: -o onto a symlink moves the link to .old, never writes its target")
{
	char target[300], path[300], old[320], buf[64];
	struct lp_event ev[8];
	struct stat st;
	unsigned char *b;
	size_t len;
	int fd;

	snprintf(target, sizeof(target), "%s", tmp_path("linktarget"));
	snprintf(path, sizeof(path), "%s", tmp_path("link"));
	snprintf(old, sizeof(old), "%s.old", path);
	unlink(old);
	unlink(path);
	fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	TEST_ASSERT(fd >= 0 && write(fd, "precious", 8) == 8, "target file");
	close(fd);
	TEST_ASSERT(symlink(target, path) == 0, "symlink");
	make_events(ev);
	TEST_ASSERT(write_file(path, LP_DATA_F_ZSTD, ev, 8) == 0, "write through the link's name");
	b = slurp(target, &len);
	TEST_ASSERT(b && len == 8 && !memcmp(b, "precious", 8), "the link's target was overwritten");
	free(b);
	TEST_ASSERT(lstat(old, &st) == 0 && S_ISLNK(st.st_mode), "the link did not become .old");
	TEST_ASSERT(readlink(old, buf, sizeof(buf)) > 0, "readlink");
	TEST_ASSERT(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0600,
		    "new file: mode %o, regular %d", st.st_mode & 07777, S_ISREG(st.st_mode));
	unlink(path);
	unlink(old);
	unlink(target);
	return TEST_OK;
}

LP_TEST(test_datafile_buffers_and_flushes, "datafile: writes are buffered; flush makes a readable prefix")
{
	const char *path = tmp_path("buf");
	struct lp_data_header *h = malloc(sizeof(*h));
	struct lp_event ev[8], got;
	struct lp_datafile *f, *r;
	struct stat st;
	off_t hdr_size;
	int i, ret, n = 0;

	fill_header(h);
	make_events(ev);
	TEST_ASSERT(datafile__create(&f, path, h) == 0, "create");
	TEST_ASSERT(stat(path, &st) == 0 && st.st_size > 16, "the header is not flushed at create");
	hdr_size = st.st_size;
	for (i = 0; i < 800; i++)
		TEST_ASSERT(datafile__write(f, &ev[i % 8]) == 0, "write %d", i);
	TEST_ASSERT(stat(path, &st) == 0 && st.st_size == hdr_size,
		    "800 events must still be buffered: size %lld", (long long)st.st_size);
	TEST_ASSERT(datafile__flush(f) == 0, "flush");
	TEST_ASSERT(stat(path, &st) == 0 && st.st_size > hdr_size, "flushed");
	ret = datafile__open(&r, path, h);
	TEST_ASSERT(ret == 0, "open flushed prefix: %s", datafile__strerror(ret));
	while ((ret = datafile__read(r, &got)) > 0)
		TEST_ASSERT(event_equal(&got, &ev[n++ % 8]), "event %d", n);
	TEST_ASSERT(ret == -ENODATA && n == 800, "ret %d after %d events", ret, n);
	datafile__close(r);
	TEST_ASSERT(datafile__close(f) == 0, "close");
	struct lp_event bad = { .type = 99 };
	TEST_ASSERT(datafile__create(&f, path, h) == 0, "create");
	TEST_ASSERT(datafile__write(f, &bad) == -EINVAL, "unknown type refused");
	TEST_ASSERT(datafile__close(f) == 0, "close");
	free(h);
	unlink(path);
	{
		char old[300];

		snprintf(old, sizeof(old), "%s.old", path);
		unlink(old);
	}
	return TEST_OK;
}

/* The test runs in a child of its own: a file size limit stands for a full disk. */
LP_TEST(test_datafile_full_disk_reads_to_last_flush, "datafile: after a failed write the file reads back up to its last flush")
{
	const char *path = tmp_path("full");
	struct lp_data_header *h = malloc(sizeof(*h));
	struct rlimit rl = { 40000, 40000 };
	struct lp_event ev[8], got;
	struct lp_datafile *f, *r;
	u64 flushed = 0, written = 0;
	int i, ret, n = 0, err = 0;

	fill_header(h);
	make_events(ev);
	signal(SIGXFSZ, SIG_IGN);	/* write(2) then fails with EFBIG */
	TEST_ASSERT(setrlimit(RLIMIT_FSIZE, &rl) == 0, "setrlimit");
	TEST_ASSERT(datafile__create_flags(&f, path, h, 0) == 0, "create");
	for (i = 0; i < 200000 && !err; i++) {
		ev[i % 8].sample.time = i;	/* every event differs: no compression either */
		err = datafile__write(f, &ev[i % 8]);
		if (!err && i % 200 == 199)
			err = datafile__flush(f);
	}
	TEST_ASSERT(err == -EFBIG, "the size limit did not stop the writes: %d", err);
	flushed = datafile__nr_flushed(f);
	written = datafile__nr_events(f);
	TEST_ASSERT(datafile__close(f) == -EFBIG, "close reports the failure");
	TEST_ASSERT(flushed > 0 && flushed < written, "flushed %llu of %llu",
		    (unsigned long long)flushed, (unsigned long long)written);
	ret = datafile__open(&r, path, h);
	TEST_ASSERT(ret == 0, "open: %s", datafile__strerror(ret));
	while ((ret = datafile__read(r, &got)) > 0)
		n++;
	datafile__close(r);
	TEST_ASSERT(ret == -ENODATA && (u64)n == flushed, "ret %d after %d events, %llu flushed",
		    ret, n, (unsigned long long)flushed);
	free(h);
	unlink(path);
	return TEST_OK;
}

LP_TEST_TIMEOUT(test_datafile_large_stream, "datafile: 300k events over many chunks round-trip", 60)
{
	const char *path = tmp_path("big");
	struct lp_data_header *h = malloc(sizeof(*h));
	struct lp_datafile *f;
	struct lp_event ev, got;
	int i, ret;
	u64 n = 0;

	fill_header(h);
	TEST_ASSERT(datafile__create(&f, path, h) == 0, "create");
	for (i = 0; i < 300000; i++) {
		memset(&ev, 0, sizeof(ev));
		if (i % 1000 == 0) {
			ev.type = LP_EV_MMAP;
			ev.mmap.start = i;
			memset(ev.mmap.filename, 'a' + i % 26, 255);
		} else {
			ev.type = LP_EV_SAMPLE;
			ev.sample.time = i;
			ev.sample.addr = (u64)i * 2654435761u;
		}
		TEST_ASSERT(datafile__write(f, &ev) == 0, "write");
	}
	TEST_ASSERT(datafile__close(f) == 0, "close");
	TEST_ASSERT(datafile__open(&f, path, h) == 0, "open");
	while ((ret = datafile__read(f, &got)) > 0) {
		if (n % 1000 == 0) {
			TEST_ASSERT(got.type == LP_EV_MMAP && got.mmap.start == n &&
				    strlen(got.mmap.filename) == 255 &&
				    got.mmap.filename[0] == (char)('a' + n % 26), "mmap %llu",
				    (unsigned long long)n);
		} else {
			TEST_ASSERT(got.type == LP_EV_SAMPLE && got.sample.time == n &&
				    got.sample.addr == n * 2654435761u, "sample %llu",
				    (unsigned long long)n);
		}
		n++;
	}
	TEST_ASSERT(ret == 0 && n == 300000, "ret %d n %llu", ret, (unsigned long long)n);
	datafile__close(f);
	free(h);
	unlink(path);
	{
		char old[300];

		snprintf(old, sizeof(old), "%s.old", path);
		unlink(old);
	}
	return TEST_OK;
}

/* A 1.0 writer's 40-byte thread record still reads, as CPU time unknown. */
LP_TEST(test_datafile_thread_v10, "datafile: a 1.0 thread record reads with cpu_ns 0")
{
	struct lp_datafile *f;
	struct lp_event ev;
	struct sb s;
	int ret;

	TEST_ASSERT(sb_start(&s, tmp_path("v10")) == 0, "start");
	sb_le(&s, LP_EV_THREAD_EXIT, 2);
	sb_le(&s, 0, 2);
	sb_le(&s, 40, 4);
	sb_le(&s, 5, 8);		/* time */
	sb_le(&s, 10, 4);		/* pid */
	sb_le(&s, 11, 4);		/* tid */
	sb_le(&s, 10, 4);		/* parent */
	sb_le(&s, 1, 4);		/* cpu */
	sb_le(&s, 2, 4);		/* index */
	sb_le(&s, 0, 4);		/* status */
	sb_le(&s, 0x1234, 8);		/* fs_base */
	sb_end(&s, 1, 0);
	ret = datafile__open_mem(&f, s.b, s.n, NULL);
	TEST_ASSERT(ret == 0, "open: %s", datafile__strerror(ret));
	ret = datafile__read(f, &ev);
	TEST_ASSERT(ret == 1 && ev.type == LP_EV_THREAD_EXIT, "ret %d", ret);
	TEST_ASSERT(ev.thread.tid == 11 && ev.thread.index == 2 &&
		    ev.thread.fs_base == 0x1234 && ev.thread.cpu_ns == 0, "values");
	datafile__close(f);
	unlink(tmp_path("v10"));
	return TEST_OK;
}

LP_TEST(test_datafile_bounds_cpu, "datafile: an event naming a CPU beyond any machine is damage, not a size")
{
	const char *path = tmp_path("cpu");
	struct lp_datafile *f;
	struct lp_event ev[8], got;
	static const u32 bad[] = { LP_MAX_CPUS, 5000, 64768 };
	size_t i;
	int ret, n;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		make_events(ev);
		ev[3].type = LP_EV_SAMPLE;	/* after a few good events */
		ev[3].sample.cpu = bad[i];
		TEST_ASSERT(write_file(path, LP_DATA_F_ZSTD, ev, 8) == 0, "write");
		TEST_ASSERT(datafile__open(&f, path, NULL) == 0, "open");
		n = 0;
		while ((ret = datafile__read(f, &got)) > 0)
			n++;
		datafile__close(f);
		TEST_ASSERT(ret == -EBADMSG && n == 3, "cpu %u: ret %d after %d events", bad[i], ret, n);
	}
	make_events(ev);
	ev[3].type = LP_EV_SAMPLE;
	ev[3].sample.cpu = ~0u;		/* unknown: allowed */
	TEST_ASSERT(write_file(path, LP_DATA_F_ZSTD, ev, 8) == 0, "write");
	TEST_ASSERT(datafile__open(&f, path, NULL) == 0, "open");
	n = 0;
	while ((ret = datafile__read(f, &got)) > 0)
		n++;
	datafile__close(f);
	TEST_ASSERT(ret == 0 && n == 8, "unknown cpu: ret %d, %d events", ret, n);
	unlink(path);
	return TEST_OK;
}

LP_TEST(test_datafile_exec_roundtrip, "datafile: an EXEC record round-trips between other events")
{
	const char *path = tmp_path("exec");
	struct lp_event ev[8], got[9], ex;
	struct lp_datafile *f;
	int i, n = 0, ret;

	make_events(ev);
	memset(&ex, 0, sizeof(ex));
	ex.type = LP_EV_EXEC;
	ex.exec.time = 123456789;
	ex.exec.pid = 4242;
	ex.exec.tid = 4243;
	strcpy(ex.exec.filename, "/usr/bin/true");
	{
		struct lp_event all[9];

		memcpy(all, ev, 4 * sizeof(*ev));
		all[4] = ex;
		memcpy(all + 5, ev + 4, 4 * sizeof(*ev));
		TEST_ASSERT(write_file(path, LP_DATA_F_ZSTD, all, 9) == 0, "write");
		TEST_ASSERT(datafile__open(&f, path, NULL) == 0, "open");
		while (n < 9 && (ret = datafile__read(f, &got[n])) > 0)
			n++;
		ret = datafile__read(f, &got[0]);
		datafile__close(f);
		TEST_ASSERT(n == 9 && ret == 0, "%d events, end %d", n, ret);
		TEST_ASSERT(event_equal(&got[4], &ex), "the exec record differs");
		for (i = 0; i < 9; i++)
			TEST_ASSERT(i == 4 || got[i].type != LP_EV_EXEC, "event %d", i);
	}
	unlink(path);
	return TEST_OK;
}

LP_TEST(test_datafile_alloc_free_roundtrip, "datafile: ALLOC with its call path and FREE round-trip; a bad fn is damage")
{
	const char *path = tmp_path("alloc");
	struct lp_event ev[2], got[2];
	struct lp_datafile *f;
	int n = 0, ret;

	memset(ev, 0, sizeof(ev));
	ev[0].type = LP_EV_ALLOC;
	ev[0].alloc = (struct lp_alloc){ .time = 1000, .addr = 0x5550000, .size = 4096,
					 .pid = 7, .tid = 8, .fn = LP_ALLOC_CALLOC, .nframes = 3,
					 .frames = { 0x401010, 0x401020, 0x401030 } };
	ev[1].type = LP_EV_FREE;
	ev[1].alloc = (struct lp_alloc){ .time = 2000, .addr = 0x5550000, .pid = 7, .tid = 9,
					 .fn = LP_ALLOC_FREE };
	TEST_ASSERT(write_file(path, LP_DATA_F_ZSTD, ev, 2) == 0, "write");
	TEST_ASSERT(datafile__open(&f, path, NULL) == 0, "open");
	while (n < 2 && (ret = datafile__read(f, &got[n])) > 0)
		n++;
	ret = datafile__read(f, &got[0]);
	datafile__close(f);
	unlink(path);
	TEST_ASSERT(n == 2 && ret == 0, "%d events, end %d", n, ret);
	TEST_ASSERT(event_equal(&got[1], &ev[1]), "free differs");
	TEST_ASSERT(got[0].type == LP_EV_ALLOC && got[0].alloc.nframes == 3 &&
		    got[0].alloc.frames[2] == 0x401030 && got[0].alloc.size == 4096,
		    "alloc: %u frames, size %llu", got[0].alloc.nframes,
		    (unsigned long long)got[0].alloc.size);
	ev[0].alloc.fn = LP_ALLOC__MAX;
	TEST_ASSERT(write_file(path, LP_DATA_F_ZSTD, ev, 1) == 0, "write bad");
	TEST_ASSERT(datafile__open(&f, path, NULL) == 0, "open bad");
	ret = datafile__read(f, &got[0]);
	datafile__close(f);
	unlink(path);
	TEST_ASSERT(ret == -EBADMSG, "fn beyond the table read as %d", ret);
	return TEST_OK;
}

LP_TEST_TIMEOUT(test_datafile_damage_detected_where_it_starts, "datafile: a flipped byte in a frame stops the reader before any altered event", 120)
{
	struct lp_event ev[400], got;
	const char *path = tmp_path("flip");
	struct lp_datafile *f;
	unsigned char *b;
	size_t len, pos;
	int i, n, ret, altered = 0, errors = 0, tries = 0;

	for (i = 0; i < 400; i += 8)
		make_events(ev + i);
	for (i = 0; i < 400; i++)
		if (ev[i].type == LP_EV_SAMPLE)
			ev[i].sample.time += i;
	TEST_ASSERT(write_file_flushing(path, LP_DATA_F_ZSTD, ev, 400, 50) == 0, "write");
	b = slurp(path, &len);
	TEST_ASSERT(b && len > 400, "slurp");
	/* every 7th byte past the preamble and the header's frame */
	for (pos = len / 8; pos < len; pos += 7) {
		b[pos] ^= 0x10;
		ret = datafile__open_mem(&f, b, len, NULL);
		if (ret == 0) {
			n = 0;
			while ((ret = datafile__read(f, &got)) > 0) {
				if (n >= 400 || !event_equal(&got, &ev[n]))
					altered++;
				n++;
			}
			datafile__close(f);
			errors += ret < 0;
		} else {
			errors++;
		}
		tries++;
		b[pos] ^= 0x10;
	}
	free(b);
	unlink(path);
	TEST_ASSERT(altered == 0, "%d altered events returned as intact over %d flips", altered, tries);
	/* a flip zstd can ignore (it decodes to the same, checked bytes) is no damage */
	TEST_ASSERT(tries - errors <= tries / 20, "%d of %d flips went unnoticed", tries - errors, tries);
	return TEST_OK;
}
