// SPDX-License-Identifier: GPL-2.0
/*
 * CPU and cache topology from sysfs (Documentation/ABI/testing/
 * sysfs-devices-system-cpu): cpuN/topology/{core_id,physical_package_id},
 * cpuN/cache/indexM/{level,type,size,ways_of_associativity,
 * coherency_line_size,number_of_sets,shared_cpu_list}.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/topology.h"

#define SYSFS_CPU "/sys/devices/system/cpu"

int lp_cpuset__parse(struct lp_cpuset *s, const char *list)
{
	const char *p = list;
	int n = 0;

	memset(s, 0, sizeof(*s));
	while (*p && *p != '\n') {
		char *end;
		long a, b;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		a = strtol(p, &end, 10);
		b = a;
		p = end;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				return -EINVAL;
			b = strtol(p, &end, 10);
			p = end;
		}
		if (b < a || b >= LP_MAX_CPUS)
			return -EINVAL;
		for (; a <= b; a++) {
			if (!lp_cpuset__has(s, a))
				n++;
			lp_cpuset__set(s, a);
		}
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -EINVAL;
	}
	return n;
}

/* shared_cpu_map: hex words, most significant first, "00000000,0000000f". */
static int cpuset_parse_mask(struct lp_cpuset *s, const char *mask)
{
	int bit = 0, n = 0;
	const char *p = mask + strlen(mask);

	memset(s, 0, sizeof(*s));
	while (p > mask) {
		int c = tolower((unsigned char)*--p), v, i;

		if (c == ',' || c == '\n')
			continue;
		if (!isxdigit(c))
			return -EINVAL;
		v = isdigit(c) ? c - '0' : c - 'a' + 10;
		for (i = 0; i < 4; i++, bit++)
			if (v & (1 << i) && bit < LP_MAX_CPUS) {
				lp_cpuset__set(s, bit);
				n++;
			}
	}
	return n;
}

int lp_cpuset__count(const struct lp_cpuset *s)
{
	int n = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(s->bits); i++)
		n += __builtin_popcountll(s->bits[i]);
	return n;
}

int lp_cpuset__equal(const struct lp_cpuset *a, const struct lp_cpuset *b)
{
	return !memcmp(a->bits, b->bits, sizeof(a->bits));
}

int lp_cpuset__first(const struct lp_cpuset *s)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(s->bits); i++)
		if (s->bits[i])
			return i * 64 + __builtin_ctzll(s->bits[i]);
	return -1;
}

int lp_cpuset__format(const struct lp_cpuset *s, char *buf, size_t len)
{
	int cpu, total = 0;

	if (len)
		buf[0] = '\0';
	for (cpu = 0; cpu < LP_MAX_CPUS; cpu++) {
		int last = cpu, n;

		if (!lp_cpuset__has(s, cpu))
			continue;
		while (lp_cpuset__has(s, last + 1))
			last++;
		if (last == cpu)
			n = snprintf(buf + (total < (int)len ? total : (int)len),
				     total < (int)len ? len - total : 0, "%s%d",
				     total ? "," : "", cpu);
		else
			n = snprintf(buf + (total < (int)len ? total : (int)len),
				     total < (int)len ? len - total : 0, "%s%d-%d",
				     total ? "," : "", cpu, last);
		total += n;
		cpu = last;
	}
	return total;
}

/* Read a one-line sysfs file below @root; 0 or -errno. */
__attribute__((format(printf, 4, 5)))
static int read_line(const char *root, char *buf, size_t len, const char *fmt, ...)
{
	char path[4096];
	va_list ap;
	FILE *f;
	int n;

	n = snprintf(path, sizeof(path), "%s/", root);
	va_start(ap, fmt);
	vsnprintf(path + n, sizeof(path) - n, fmt, ap);
	va_end(ap);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, len, f)) {
		fclose(f);
		return -ENODATA;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* "48K", "2048K", "8M", "512" -> bytes; 0 if unparsable. */
static u64 parse_size(const char *s)
{
	char *end;
	u64 v = strtoull(s, &end, 10);

	if (end == s)
		return 0;
	switch (toupper((unsigned char)*end)) {
	case 'K': return v << 10;
	case 'M': return v << 20;
	case 'G': return v << 30;
	default: return v;
	}
}

__attribute__((format(printf, 3, 4)))
static int read_int(const char *root, int def, const char *fmt, ...)
{
	char rel[512], buf[64], *end;
	va_list ap;
	long v;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	if (read_line(root, buf, sizeof(buf), "%s", rel))
		return def;
	v = strtol(buf, &end, 10);
	return end == buf ? def : (int)v;
}

static int type_rank(const char *type)
{
	if (!strcmp(type, "Data"))
		return 0;
	if (!strcmp(type, "Instruction"))
		return 1;
	return 2;
}

static int cache_cmp(const void *pa, const void *pb)
{
	const struct lp_cache *a = pa, *b = pb;

	if (a->level != b->level)
		return a->level - b->level;
	if (type_rank(a->type) != type_rank(b->type))
		return type_rank(a->type) - type_rank(b->type);
	return lp_cpuset__first(&a->cpus) - lp_cpuset__first(&b->cpus);
}

struct cache_list {
	struct lp_cache *v;
	int n, cap;
};

static int add_cache(struct cache_list *l, const struct lp_cache *c)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (l->v[i].level == c->level && !strcmp(l->v[i].type, c->type) &&
		    lp_cpuset__equal(&l->v[i].cpus, &c->cpus))
			return 0;
	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 16;
		struct lp_cache *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = *c;
	return 0;
}

static int read_caches_of(const char *root, int cpu, struct cache_list *l)
{
	char path[4096], buf[4096];
	struct dirent *de;
	DIR *dir;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/cpu%d/cache", root, cpu);
	dir = opendir(path);
	if (!dir)
		return 0;	/* no cache information: not an error */
	while ((de = readdir(dir))) {
		struct lp_cache c;
		int idx;
		char *end;

		if (strncmp(de->d_name, "index", 5))
			continue;
		idx = strtol(de->d_name + 5, &end, 10);
		if (end == de->d_name + 5 || *end)
			continue;
		memset(&c, 0, sizeof(c));
		c.level = read_int(root, 0, "cpu%d/cache/index%d/level", cpu, idx);
		if (read_line(root, c.type, sizeof(c.type), "cpu%d/cache/index%d/type",
			      cpu, idx))
			snprintf(c.type, sizeof(c.type), "Unknown");
		if (!read_line(root, buf, sizeof(buf), "cpu%d/cache/index%d/size", cpu, idx))
			c.size = parse_size(buf);
		c.ways = read_int(root, 0, "cpu%d/cache/index%d/ways_of_associativity",
				  cpu, idx);
		c.line_size = read_int(root, 0, "cpu%d/cache/index%d/coherency_line_size",
				       cpu, idx);
		c.sets = read_int(root, 0, "cpu%d/cache/index%d/number_of_sets", cpu, idx);
		if (!read_line(root, buf, sizeof(buf), "cpu%d/cache/index%d/shared_cpu_list",
			       cpu, idx))
			lp_cpuset__parse(&c.cpus, buf);
		else if (!read_line(root, buf, sizeof(buf),
				    "cpu%d/cache/index%d/shared_cpu_map", cpu, idx))
			cpuset_parse_mask(&c.cpus, buf);
		/* whatever sysfs says, the cache serves the cpu it hangs off */
		lp_cpuset__set(&c.cpus, cpu);
		if (c.level <= 0)
			continue;
		ret = add_cache(l, &c);
		if (ret)
			break;
	}
	closedir(dir);
	return ret;
}

/*
 * More instances than LP_MAX_CACHES (big machines: one L1d, L1i, L2 per
 * core): keep every instance of the highest levels, where sharing matters,
 * and one representative of the levels that no longer fit.
 */
static void keep_caches(struct lp_topology *t, struct cache_list *l)
{
	int i, j, kept = 0;

	if (l->n <= LP_MAX_CACHES) {
		memcpy(t->caches, l->v, l->n * sizeof(*l->v));
		t->ncaches = l->n;
		return;
	}
	for (i = l->n; i > 0; i = j) {
		/* group [j, i) has one (level, type) */
		for (j = i - 1; j > 0 && l->v[j - 1].level == l->v[i - 1].level &&
		     !strcmp(l->v[j - 1].type, l->v[i - 1].type); j--)
			;
		if (kept + (i - j) <= LP_MAX_CACHES) {
			memcpy(&t->caches[kept], &l->v[j], (i - j) * sizeof(*l->v));
			kept += i - j;
		} else if (kept < LP_MAX_CACHES) {
			t->caches[kept++] = l->v[j];
		}
	}
	t->ncaches = kept;
	qsort(t->caches, t->ncaches, sizeof(t->caches[0]), cache_cmp);
}

/* Online cpus: the "online" list, else every cpuN directory. */
static int read_online(const char *root, struct lp_cpuset *online)
{
	char buf[4096];
	struct dirent *de;
	DIR *dir;
	int n;

	if (!read_line(root, buf, sizeof(buf), "online")) {
		n = lp_cpuset__parse(online, buf);
		return n > 0 ? 0 : -EINVAL;
	}
	memset(online, 0, sizeof(*online));
	dir = opendir(root);
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		char *end;
		long cpu;

		if (strncmp(de->d_name, "cpu", 3) || !isdigit((unsigned char)de->d_name[3]))
			continue;
		cpu = strtol(de->d_name + 3, &end, 10);
		if (*end || cpu >= LP_MAX_CPUS)
			continue;
		if (read_int(root, 1, "cpu%ld/online", cpu) != 0)
			lp_cpuset__set(online, cpu);
	}
	closedir(dir);
	return lp_cpuset__count(online) ? 0 : -ENOENT;
}

int topology__read(struct lp_topology *t, const char *root)
{
	struct lp_cpuset online, sockets;
	struct cache_list l = { 0 };
	int cpu, ret, i;

	if (!root)
		root = SYSFS_CPU;
	memset(t, 0, sizeof(*t));
	for (cpu = 0; cpu < LP_MAX_CPUS; cpu++)
		t->cpu_core[cpu] = t->cpu_socket[cpu] = -1;
	ret = read_online(root, &online);
	if (ret)
		return ret;
	memset(&sockets, 0, sizeof(sockets));
	for (cpu = 0; cpu < LP_MAX_CPUS; cpu++) {
		if (!lp_cpuset__has(&online, cpu))
			continue;
		t->ncpus++;
		t->cpu_core[cpu] = read_int(root, cpu, "cpu%d/topology/core_id", cpu);
		t->cpu_socket[cpu] = read_int(root, 0, "cpu%d/topology/physical_package_id",
					      cpu);
		if (t->cpu_socket[cpu] < 0)
			t->cpu_socket[cpu] = 0;
		/* a core is a distinct (socket, core_id) pair */
		for (i = 0; i < cpu; i++)
			if (t->cpu_core[i] == t->cpu_core[cpu] &&
			    t->cpu_socket[i] == t->cpu_socket[cpu])
				break;
		if (i == cpu)
			t->ncores++;
		if (!lp_cpuset__has(&sockets, t->cpu_socket[cpu])) {
			lp_cpuset__set(&sockets, t->cpu_socket[cpu]);
			t->nsockets++;
		}
		ret = read_caches_of(root, cpu, &l);
		if (ret)
			goto out;
	}
	qsort(l.v, l.n, sizeof(*l.v), cache_cmp);
	keep_caches(t, &l);
out:
	free(l.v);
	return ret;
}

const struct lp_cache *topology__cache_of(const struct lp_topology *t, int level,
					   int cpu)
{
	int i;

	for (i = 0; i < t->ncaches; i++) {
		const struct lp_cache *c = &t->caches[i];

		if (c->level == level && strcmp(c->type, "Instruction") &&
		    lp_cpuset__has(&c->cpus, cpu))
			return c;
	}
	return NULL;
}

int topology__llc_level(const struct lp_topology *t)
{
	int i, level = 0;

	for (i = 0; i < t->ncaches; i++)
		if (strcmp(t->caches[i].type, "Instruction") && t->caches[i].level > level)
			level = t->caches[i].level;
	return level;
}

int topology__share_llc(const struct lp_topology *t, int cpu_a, int cpu_b)
{
	const struct lp_cache *c = topology__cache_of(t, topology__llc_level(t), cpu_a);

	return c && lp_cpuset__has(&c->cpus, cpu_b);
}
