// SPDX-License-Identifier: GPL-2.0
/*
 * Writes a seed corpus for fuzz-datafile into DIR with datafile__create, so
 * no binary is checked in: compressed and raw files, empty and full, and a
 * flushed-but-unfinished one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/datafile.h"

static void header(struct lp_data_header *h)
{
	static char *const argv[] = { "./microbench/false-sharing", "-t", "2" };
	int i;

	memset(h, 0, sizeof(*h));
	strcpy(h->cpu_vendor, "GenuineIntel");
	h->cpu_family = 6;
	h->cpu_model = 167;
	strcpy(h->cpu_name, "Intel Xeon");
	strcpy(h->kernel_release, "6.1.0");
	strcpy(h->hostname, "fuzz");
	strcpy(h->facility, "soft");
	h->period = 100000;
	strcpy(h->period_unit, "ns");
	datafile__set_cmdline(h, 3, argv);
	for (i = 0; i < LP_MAX_CPUS; i++)
		h->topo.cpu_core[i] = h->topo.cpu_socket[i] = -1;
	h->topo.ncpus = 2;
	h->topo.ncores = 2;
	h->topo.nsockets = 1;
	for (i = 0; i < 2; i++) {
		h->topo.cpu_core[i] = i;
		h->topo.cpu_socket[i] = 0;
	}
	h->topo.ncaches = 2;
	h->topo.caches[0] = (struct lp_cache){ 1, "Data", 32768, 8, 64, 64 };
	lp_cpuset__set(&h->topo.caches[0].cpus, 0);
	h->topo.caches[1] = (struct lp_cache){ 3, "Unified", 16 << 20, 16, 64, 16384 };
	lp_cpuset__set(&h->topo.caches[1].cpus, 0);
	lp_cpuset__set(&h->topo.caches[1].cpus, 1);
}

static int one_of_each(struct lp_datafile *f, int k)
{
	struct lp_event ev;
	int t, err = 0;

	for (t = 1; t < LP_EV__MAX && !err; t++) {
		memset(&ev, 0, sizeof(ev));
		ev.type = t;
		ev.sample.time = 1000 + k;	/* first field of every member but action */
		switch (t) {
		case LP_EV_MMAP:
			ev.mmap.start = 0x400000;
			strcpy(ev.mmap.filename, "/bin/true");
			break;
		case LP_EV_SAMPLE:
			ev.sample.addr = 0x7ffd0000 + k * 8;
			ev.sample.kind = LP_ACCESS_LOAD;
			ev.sample.size = 8;
			break;
		case LP_EV_ACTION:
			ev.action.op = LP_ACT_ARM;
			ev.action.mode = LP_WP_RW;
			ev.action.len = 8;
			break;
		}
		err = datafile__write(f, &ev);
	}
	return err;
}

static int gen(const char *dir, const char *name, u32 flags, int rounds, int finish)
{
	static struct lp_data_header h;
	struct lp_datafile *f;
	char path[4096];
	int k, err;

	header(&h);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	err = datafile__create_flags(&f, path, &h, flags);
	for (k = 0; !err && k < rounds; k++)
		err = one_of_each(f, k);
	if (!err && !finish) {
		err = datafile__flush(f);
		if (!err) {
			char cmd[8300];

			snprintf(cmd, sizeof(cmd), "cp '%s' '%s.cut'", path, path);
			err = system(cmd) ? -1 : 0;
		}
	}
	k = datafile__close(f);
	if (!err)
		err = k;
	if (err)
		fprintf(stderr, "gen-seeds: %s: %s\n", path, datafile__strerror(err));
	return err;
}

int main(int argc, char **argv)
{
	int err = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: gen-seeds DIR\n");
		return 2;
	}
	err |= gen(argv[1], "zstd-empty", LP_DATA_F_ZSTD, 0, 1);
	err |= gen(argv[1], "zstd-one", LP_DATA_F_ZSTD, 1, 1);
	err |= gen(argv[1], "zstd-many", LP_DATA_F_ZSTD, 40, 1);
	err |= gen(argv[1], "raw-empty", 0, 0, 1);
	err |= gen(argv[1], "raw-one", 0, 1, 1);
	err |= gen(argv[1], "raw-few", 0, 4, 1);
	err |= gen(argv[1], "zstd-flushed", LP_DATA_F_ZSTD, 2, 0);
	return err ? 1 : 0;
}
