// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/tests.h"
#include "core/topology.h"

/* Write @text to @root/@rel, creating directories on the way. */
__attribute__((format(printf, 3, 4)))
static int put(const char *root, const char *text, const char *fmt, ...)
{
	char path[1024], *slash;
	va_list ap;
	FILE *f;
	int n;

	n = snprintf(path, sizeof(path), "%s/", root);
	va_start(ap, fmt);
	vsnprintf(path + n, sizeof(path) - n, fmt, ap);
	va_end(ap);
	for (slash = path + strlen(root) + 1; (slash = strchr(slash, '/')); slash++) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "%s\n", text);
	return fclose(f) ? -errno : 0;
}

static void put_cache(const char *root, int cpu, int idx, int level, const char *type,
		      const char *size, int ways, int sets, const char *shared)
{
	char v[32];

	put(root, type, "cpu%d/cache/index%d/type", cpu, idx);
	snprintf(v, sizeof(v), "%d", level);
	put(root, v, "cpu%d/cache/index%d/level", cpu, idx);
	put(root, size, "cpu%d/cache/index%d/size", cpu, idx);
	snprintf(v, sizeof(v), "%d", ways);
	put(root, v, "cpu%d/cache/index%d/ways_of_associativity", cpu, idx);
	put(root, "64", "cpu%d/cache/index%d/coherency_line_size", cpu, idx);
	snprintf(v, sizeof(v), "%d", sets);
	put(root, v, "cpu%d/cache/index%d/number_of_sets", cpu, idx);
	put(root, shared, "cpu%d/cache/index%d/shared_cpu_list", cpu, idx);
}

/*
 * 4 online cpus on 1 socket: private 32K L1d/L1i, a 1M L2 per pair of
 * cpus (0-1, 2-3), one 8M L3; @split_l3: two sockets, one L3 each.
 * cpu4 exists but is offline and must be ignored.
 */
static int fake_tree(char *root, size_t len, int split_l3)
{
	static const char *const l2_share[] = { "0-1", "0-1", "2-3", "2-3" };
	char v[16];
	int cpu;

	snprintf(root, len, "/tmp/lp-topo-XXXXXX");
	if (!mkdtemp(root))
		return -errno;
	put(root, "0-3", "online");
	for (cpu = 0; cpu < 5; cpu++) {
		int socket = split_l3 ? cpu / 2 : 0;

		snprintf(v, sizeof(v), "%d", split_l3 ? cpu % 2 : cpu);
		put(root, v, "cpu%d/topology/core_id", cpu);
		snprintf(v, sizeof(v), "%d", socket);
		put(root, v, "cpu%d/topology/physical_package_id", cpu);
		snprintf(v, sizeof(v), "%d", cpu);
		put_cache(root, cpu, 0, 1, "Data", "32K", 8, 64, v);
		put_cache(root, cpu, 1, 1, "Instruction", "32K", 8, 64, v);
		put_cache(root, cpu, 2, 2, "Unified", "1024K", 16, 1024,
			  cpu < 4 ? l2_share[cpu] : "4");
		put_cache(root, cpu, 3, 3, "Unified", "8M", 16, 8192,
			  cpu == 4 ? "4" : split_l3 ? (cpu < 2 ? "0-1" : "2-3") : "0-3");
	}
	return 0;
}

static void rm_tree(const char *root)
{
	char cmd[256];

	int ret;

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ret = system(cmd);
	(void)ret;
}

static int count_level(const struct lp_topology *t, int level, const char *type)
{
	int i, n = 0;

	for (i = 0; i < t->ncaches; i++)
		n += t->caches[i].level == level && !strcmp(t->caches[i].type, type);
	return n;
}

LP_TEST(test_topology_fake_sysfs, "topology: fake sysfs: cpus, cores, dedup caches")
{
	static struct lp_topology t;
	const struct lp_cache *c;
	char root[64], list[64];
	int ret, i;

	TEST_ASSERT(fake_tree(root, sizeof(root), 0) == 0, "mkdtemp");
	ret = topology__read(&t, root);
	rm_tree(root);
	TEST_ASSERT(ret == 0, "topology__read: %d", ret);
	TEST_ASSERT(t.ncpus == 4, "ncpus=%d (offline cpu4 counted?)", t.ncpus);
	TEST_ASSERT(t.nsockets == 1 && t.ncores == 4, "sockets=%d cores=%d",
		    t.nsockets, t.ncores);
	TEST_ASSERT(t.cpu_core[3] == 3 && t.cpu_core[4] == -1, "core of 3=%d of 4=%d",
		    t.cpu_core[3], t.cpu_core[4]);
	/* 4 L1d + 4 L1i + 2 L2 + 1 L3, each seen from several cpus */
	TEST_ASSERT(t.ncaches == 11, "ncaches=%d", t.ncaches);
	TEST_ASSERT(count_level(&t, 1, "Data") == 4, "L1d");
	TEST_ASSERT(count_level(&t, 1, "Instruction") == 4, "L1i");
	TEST_ASSERT(count_level(&t, 2, "Unified") == 2, "L2");
	TEST_ASSERT(count_level(&t, 3, "Unified") == 1, "L3");
	for (i = 1; i < t.ncaches; i++)
		TEST_ASSERT(t.caches[i - 1].level <= t.caches[i].level, "not sorted by level");

	c = topology__cache_of(&t, 2, 2);
	TEST_ASSERT(c, "no L2 for cpu 2");
	lp_cpuset__format(&c->cpus, list, sizeof(list));
	TEST_ASSERT(!strcmp(list, "2-3"), "L2 of cpu2 shared by %s", list);
	TEST_ASSERT(c->size == 1024 * 1024 && c->ways == 16 && c->sets == 1024 &&
		    c->line_size == 64, "L2 geometry %llu %d %d %d",
		    (unsigned long long)c->size, c->ways, c->sets, c->line_size);
	c = topology__cache_of(&t, 1, 1);
	TEST_ASSERT(c && !strcmp(c->type, "Data") && c->size == 32768 &&
		    lp_cpuset__count(&c->cpus) == 1 && lp_cpuset__has(&c->cpus, 1),
		    "L1 of cpu1 is not its private L1d");
	c = topology__cache_of(&t, 3, 0);
	TEST_ASSERT(c && c->size == 8ULL << 20, "L3 size");
	lp_cpuset__format(&c->cpus, list, sizeof(list));
	TEST_ASSERT(!strcmp(list, "0-3"), "L3 shared by %s", list);
	TEST_ASSERT(!topology__cache_of(&t, 4, 0), "L4 found");

	TEST_ASSERT(topology__llc_level(&t) == 3, "llc=%d", topology__llc_level(&t));
	TEST_ASSERT(topology__share_llc(&t, 0, 3), "0 and 3 share the L3");
	TEST_ASSERT(!topology__share_llc(&t, 0, 4), "offline cpu4 shares the L3");
	return TEST_OK;
}

LP_TEST(test_topology_two_sockets, "topology: two sockets, one L3 each: share_llc")
{
	static struct lp_topology t;
	char root[64];
	int ret;

	TEST_ASSERT(fake_tree(root, sizeof(root), 1) == 0, "mkdtemp");
	ret = topology__read(&t, root);
	rm_tree(root);
	TEST_ASSERT(ret == 0, "topology__read: %d", ret);
	/* core ids repeat across sockets: 2 per socket, 4 in all */
	TEST_ASSERT(t.nsockets == 2 && t.ncores == 4, "sockets=%d cores=%d",
		    t.nsockets, t.ncores);
	TEST_ASSERT(count_level(&t, 3, "Unified") == 2, "L3 instances");
	TEST_ASSERT(topology__share_llc(&t, 0, 1), "0,1 share");
	TEST_ASSERT(topology__share_llc(&t, 3, 2), "3,2 share");
	TEST_ASSERT(!topology__share_llc(&t, 1, 2), "1,2 share across sockets");
	return TEST_OK;
}

LP_TEST(test_topology_missing_root, "topology: a missing sysfs root is an error")
{
	static struct lp_topology t;

	TEST_ASSERT(topology__read(&t, "/nonexistent/lp") == -ENOENT, "ret");
	return TEST_OK;
}

LP_TEST(test_cpuset_list_parse_format, "topology: cpu lists like 0-3,8,10-11")
{
	struct lp_cpuset s;
	char buf[64];
	int i;

	TEST_ASSERT(lp_cpuset__parse(&s, "0-3,8,10-11\n") == 7, "count");
	for (i = 0; i < 16; i++)
		TEST_ASSERT(lp_cpuset__has(&s, i) == (i <= 3 || i == 8 || i == 10 || i == 11),
			    "cpu %d", i);
	TEST_ASSERT(lp_cpuset__count(&s) == 7 && lp_cpuset__first(&s) == 0, "count/first");
	TEST_ASSERT(lp_cpuset__format(&s, buf, sizeof(buf)) == 11 &&
		    !strcmp(buf, "0-3,8,10-11"), "format %s", buf);
	TEST_ASSERT(lp_cpuset__parse(&s, "1023") == 1 && lp_cpuset__first(&s) == 1023, "1023");
	TEST_ASSERT(lp_cpuset__parse(&s, "") == 0 && lp_cpuset__first(&s) == -1, "empty");
	TEST_ASSERT(lp_cpuset__parse(&s, "3-1") == -EINVAL, "reversed range");
	TEST_ASSERT(lp_cpuset__parse(&s, "1024") == -EINVAL, "beyond LP_MAX_CPUS");
	TEST_ASSERT(lp_cpuset__parse(&s, "1,,2") == -EINVAL, "empty item");
	TEST_ASSERT(lp_cpuset__parse(&s, "a") == -EINVAL, "letters");
	TEST_ASSERT(lp_cpuset__parse(&s, "1-") == -EINVAL, "open range");
	/* a short buffer truncates but reports the full length */
	lp_cpuset__parse(&s, "0-3,8,10-11");
	TEST_ASSERT(lp_cpuset__format(&s, buf, 4) == 11 && !strcmp(buf, "0-3"), "short %s", buf);
	return TEST_OK;
}

LP_TEST(test_topology_many_instances, "topology: beyond LP_MAX_CACHES every LLC is kept")
{
	static struct lp_topology t;
	char root[64], v[16];
	int cpu, ret;

	snprintf(root, sizeof(root), "/tmp/lp-topo-XXXXXX");
	TEST_ASSERT(mkdtemp(root), "mkdtemp");
	/* 40 cpus x (L1d, L1i, L2) private = 120 instances, plus 2 L3 */
	put(root, "0-39", "online");
	for (cpu = 0; cpu < 40; cpu++) {
		snprintf(v, sizeof(v), "%d", cpu);
		put(root, v, "cpu%d/topology/core_id", cpu);
		put(root, "0", "cpu%d/topology/physical_package_id", cpu);
		put_cache(root, cpu, 0, 1, "Data", "32K", 8, 64, v);
		put_cache(root, cpu, 1, 1, "Instruction", "32K", 8, 64, v);
		put_cache(root, cpu, 2, 2, "Unified", "1024K", 16, 1024, v);
		put_cache(root, cpu, 3, 3, "Unified", "8M", 16, 8192,
			  cpu < 20 ? "0-19" : "20-39");
	}
	ret = topology__read(&t, root);
	rm_tree(root);
	TEST_ASSERT(ret == 0, "topology__read: %d", ret);
	TEST_ASSERT(t.ncpus == 40 && t.ncaches <= LP_MAX_CACHES, "ncpus=%d ncaches=%d",
		    t.ncpus, t.ncaches);
	/* every LLC instance survives, so LLC sharing stays right */
	TEST_ASSERT(count_level(&t, 3, "Unified") == 2, "L3 instances %d",
		    count_level(&t, 3, "Unified"));
	TEST_ASSERT(topology__share_llc(&t, 20, 39) && !topology__share_llc(&t, 19, 20),
		    "share_llc");
	TEST_ASSERT(count_level(&t, 2, "Unified") == 40, "L2 instances %d",
		    count_level(&t, 2, "Unified"));
	/* what no longer fits keeps one representative for its geometry */
	TEST_ASSERT(count_level(&t, 1, "Data") >= 1 && count_level(&t, 1, "Instruction") >= 1,
		    "L1 gone");
	return TEST_OK;
}
