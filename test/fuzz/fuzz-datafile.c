// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the lociprof.data reader over arbitrary bytes. Besides
 * memory errors (ASan) it traps on broken promises of the reader API.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/datafile.h"

static void check(int cond)
{
	if (!cond)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static struct lp_data_header h;
	const char *argv[64];
	struct lp_datafile *f;
	struct lp_event ev;
	int ret, n = 0, i;

	ret = datafile__open_mem(&f, data, size, &h);
	check(datafile__strerror(ret) != NULL);
	if (ret) {
		check(ret < 0 && f == NULL);
		return 0;
	}
	/* header promises: NUL-terminated strings, bounded topology */
	check(memchr(h.cpu_vendor, 0, sizeof(h.cpu_vendor)) != NULL);
	check(memchr(h.hostname, 0, sizeof(h.hostname)) != NULL);
	check(memchr(h.period_unit, 0, sizeof(h.period_unit)) != NULL);
	check(h.topo.ncpus >= 0 && h.topo.ncpus <= LP_MAX_CPUS);
	check(h.topo.ncaches >= 0 && h.topo.ncaches <= LP_MAX_CACHES);
	for (i = 0; i < h.topo.ncaches; i++)
		check(memchr(h.topo.caches[i].type, 0, sizeof(h.topo.caches[i].type)) != NULL);
	check(datafile__get_argv(&h, argv, 64) <= 64);
	check(h.cmdline_len <= sizeof(h.cmdline));

	while ((ret = datafile__read(f, &ev)) > 0) {
		check(ret == 1);
		check(ev.type > 0 && ev.type < LP_EV__MAX);
		if (ev.type == LP_EV_MMAP)
			check(memchr(ev.mmap.filename, 0, sizeof(ev.mmap.filename)) != NULL);
		if (ev.type == LP_EV_SAMPLE)
			check(ev.sample.kind <= LP_ACCESS_ATOMIC &&
			      ev.sample.noaddr < LP_NOADDR__MAX);
		n++;
	}
	check(ret == 0 || ret == -EBADMSG || ret == -ENODATA || ret == -ENOMEM);
	/* errors and the end are sticky */
	check(datafile__read(f, &ev) == ret);
	check(datafile__nr_events(f) == (u64)n);
	check(datafile__strerror(ret) != NULL);
	datafile__close(f);
	return 0;
}
