/* SPDX-License-Identifier: GPL-2.0 */
/* CPU and cache topology, read from sysfs. */
#ifndef LP_TOPOLOGY_H
#define LP_TOPOLOGY_H
#include "core/types.h"

#define LP_MAX_CPUS 1024
#define LP_MAX_CACHES 512	/* distinct (level, type, cpu set) instances kept */

struct lp_cpuset {
	u64 bits[LP_MAX_CPUS / 64];
};

static inline int lp_cpuset__has(const struct lp_cpuset *s, int cpu)
{
	return cpu >= 0 && cpu < LP_MAX_CPUS && (s->bits[cpu / 64] >> (cpu % 64)) & 1;
}

static inline void lp_cpuset__set(struct lp_cpuset *s, int cpu)
{
	if (cpu >= 0 && cpu < LP_MAX_CPUS)
		s->bits[cpu / 64] |= 1ULL << (cpu % 64);
}

struct lp_cache {
	int level;		/* 1, 2, 3... */
	char type[16];		/* "Data", "Instruction", "Unified" */
	u64 size;		/* bytes */
	int ways;
	int line_size;
	int sets;
	struct lp_cpuset cpus;	/* CPUs sharing this instance */
};

struct lp_topology {
	int ncpus;			/* online CPUs */
	int nsockets;
	int ncores;			/* physical cores */
	int cpu_core[LP_MAX_CPUS];	/* core id per cpu, -1 if offline */
	int cpu_socket[LP_MAX_CPUS];
	int ncaches;
	struct lp_cache caches[LP_MAX_CACHES];	/* one per instance, by level */
};

/* Parse a sysfs cpu list ("0-3,8,10-11"); number of cpus set, or -EINVAL. */
int lp_cpuset__parse(struct lp_cpuset *s, const char *list);
/* Write @s as a cpu list ("0-3,8"), snprintf-style return. */
int lp_cpuset__format(const struct lp_cpuset *s, char *buf, size_t len);
int lp_cpuset__count(const struct lp_cpuset *s);
int lp_cpuset__equal(const struct lp_cpuset *a, const struct lp_cpuset *b);
int lp_cpuset__first(const struct lp_cpuset *s);	/* lowest cpu, -1 if empty */

/* Read /sys/devices/system/cpu (or @root if not NULL, for tests). 0 or -errno. */
int topology__read(struct lp_topology *t, const char *root);

/* The data/unified cache of @level containing @cpu, or NULL. */
const struct lp_cache *topology__cache_of(const struct lp_topology *t, int level,
					   int cpu);
/* Highest data/unified level present (the last-level cache), 0 if none. */
int topology__llc_level(const struct lp_topology *t);
/* Do @cpu_a and @cpu_b share their last-level cache? */
int topology__share_llc(const struct lp_topology *t, int cpu_a, int cpu_b);

#endif
