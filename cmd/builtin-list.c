// SPDX-License-Identifier: GPL-2.0
/*
 * lociprof list: what this machine offers, found by opening things:
 * CPU, sampling facilities, debug registers, kernel features, topology and
 * caches. Text for people, --json for programs (keys in lociprof-list(1)).
 */
#include <errno.h>
#include <math.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "core/costs.h"
#include "core/cpu.h"
#include "core/facility.h"
#include "core/json.h"
#include "core/perf-util.h"
#include "core/probe.h"
#include "core/topology.h"

const char list_usage[] =
	"usage: lociprof list [--json] [-v] [--costs | --attrs [--pmu NAME] [--ldlat N] [--counters]]\n"
	"\n"
	"Show what this machine offers lociprof, probed by opening things: the CPU,\n"
	"the sampling facilities (pebs, ibs, soft) and why each is usable or not,\n"
	"how many hardware watchpoints a thread gets, kernel perf features, and the\n"
	"CPU and cache topology.\n"
	"\n"
	"    --json            print the same as one JSON object on stdout\n"
	"    -v, --verbose     also show why each check passed, every cache instance\n"
	"                      and every cpu's core and socket\n"
	"    --attrs           print every perf_event_attr pebs and ibs would open\n"
	"                      per thread, with the equivalent perf event string\n"
	"    --pmu NAME        ... for libpfm4 PMU NAME (skx, spr, emr, adl,\n"
	"                      amd64_fam19h_zen3...) instead of this machine\n"
	"    --ldlat N         ... with pebs load-latency sampling above N cycles\n"
	"    --counters        ... with the loads+stores counting group (reuse time)\n"
	"    --costs           measure what a sample, a watchpoint trap, arming a\n"
	"                      running thread's watchpoint and a --sync stop cost a\n"
	"                      thread here, and the least overhead they imply at the\n"
	"                      default period (takes a few seconds)\n"
	"    -h, --help        show this help\n";

struct list_info {
	struct lp_cpu_info cpu;
	int cpu_ret;
	struct lp_facility_status fac[8];
	int nfac;
	struct lp_debugreg_probe bp;
	struct lp_kernel_probe kern;
	struct lp_topology topo;
	int topo_ret;
};

/* Caches grouped by what they are: same level, type and geometry. */
struct cache_group {
	const struct lp_cache *first;
	int instances;
	const struct lp_cache *inst[LP_MAX_CACHES];
};

static int same_kind(const struct lp_cache *a, const struct lp_cache *b)
{
	return a->level == b->level && !strcmp(a->type, b->type) && a->size == b->size &&
	       a->ways == b->ways && a->line_size == b->line_size && a->sets == b->sets;
}

static int group_caches(const struct lp_topology *t, struct cache_group *g)
{
	int i, j, n = 0;

	for (i = 0; i < t->ncaches; i++) {
		for (j = 0; j < n; j++)
			if (same_kind(g[j].first, &t->caches[i]))
				break;
		if (j == n) {
			g[n].first = &t->caches[i];
			g[n].instances = 0;
			n++;
		}
		g[j].inst[g[j].instances++] = &t->caches[i];
	}
	return n;
}

static const char *cache_name(const struct lp_cache *c, char *buf, size_t len)
{
	snprintf(buf, len, "L%d%s", c->level, !strcmp(c->type, "Data") ? "d" :
		 !strcmp(c->type, "Instruction") ? "i" : "");
	return buf;
}

/* sysfs style: "48K" when a whole number of KiB, else bytes. */
static const char *size_str(u64 size, char *buf, size_t len)
{
	if (size && size % 1024 == 0)
		snprintf(buf, len, "%lluK", (unsigned long long)(size / 1024));
	else
		snprintf(buf, len, "%llu", (unsigned long long)size);
	return buf;
}

static const char *yesno(int v)
{
	return v ? "yes" : "no";
}

static void print_feature(const char *name, const struct lp_feature *f, int verbose)
{
	printf("  %-20s %s", name, yesno(f->ok));
	if (!f->ok || verbose)
		printf("  (%s)", f->reason);
	putchar('\n');
}

static void print_text(const struct list_info *li, int verbose)
{
	static struct cache_group groups[LP_MAX_CACHES];
	const struct lp_topology *t = &li->topo;
	char buf[64], list[256];
	int i, j, n;

	printf("CPU\n");
	if (li->cpu_ret) {
		printf("  unavailable: CPUID not supported on this architecture\n");
	} else {
		printf("  %-20s %s\n", "vendor", li->cpu.vendor);
		printf("  %-20s %u (0x%x)\n", "family", li->cpu.family, li->cpu.family);
		printf("  %-20s %u (0x%x)\n", "model", li->cpu.model, li->cpu.model);
		printf("  %-20s %u\n", "stepping", li->cpu.stepping);
		printf("  %-20s %s\n", "name", li->cpu.name[0] ? li->cpu.name : "unknown");
		printf("  %-20s %s", "hypervisor", yesno(li->cpu.hypervisor));
		if (li->cpu.hv_vendor[0])
			printf(" (%s)", li->cpu.hv_vendor);
		putchar('\n');
	}
	printf("  %-20s %s", "libpfm4 PMU", li->cpu.pfm_pmu);
	if (strcmp(li->cpu.pfm_pmu, "none"))
		printf(" (%s)", li->cpu.pfm_pmu_desc);
	putchar('\n');

	printf("\nFacilities\n");
	for (i = 0; i < li->nfac; i++)
		printf("  %-20s %-3s  %s\n", li->fac[i].ops->name,
		       yesno(li->fac[i].probe.usable), li->fac[i].probe.reason);

	printf("\nDebug registers\n");
	printf("  %-20s %d\n", "watchpoints/thread", li->bp.count);
	if (li->bp.err)
		printf("  %-20s %s (%s)\n", "stopped by", perf__errno_name(li->bp.err),
		       strerror(li->bp.err));
	else
		printf("  %-20s probe limit of %d\n", "stopped by", LP_PROBE_MAX_BP);
	if (verbose || (li->bp.err && li->bp.err != ENOSPC))
		printf("  %-20s %s\n", "detail", li->bp.reason);
	if (li->bp.count)
		printf("  %-20s %-3s  %s\n", "fire", yesno(li->bp.fires), li->bp.fire_reason);

	printf("\nKernel\n");
	printf("  %-20s %s\n", "release", li->kern.release);
	print_feature("sigtrap", &li->kern.sigtrap, verbose);
	print_feature("modify-attributes", &li->kern.modify_attributes, verbose);
	print_feature("uprobes", &li->kern.uprobes, verbose);
	if (li->kern.paranoid_ok)
		printf("  %-20s %d\n", "perf_event_paranoid", li->kern.paranoid);
	else
		printf("  %-20s unknown (cannot read /proc/sys/kernel/perf_event_paranoid)\n",
		       "perf_event_paranoid");
	printf("  %-20s %s", "privileged", yesno(li->kern.privileged));
	if (li->kern.privileged)
		printf(" (%s)", li->kern.privileged_by);
	putchar('\n');

	printf("\nTopology\n");
	if (li->topo_ret) {
		printf("  unavailable: cannot read /sys/devices/system/cpu: %s\n",
		       strerror(-li->topo_ret));
		return;
	}
	printf("  %-20s %d\n", "sockets", t->nsockets);
	printf("  %-20s %d\n", "cores", t->ncores);
	{
		struct lp_cpuset online = { { 0 } };

		for (i = 0; i < LP_MAX_CPUS; i++)
			if (t->cpu_core[i] >= 0)
				lp_cpuset__set(&online, i);
		lp_cpuset__format(&online, list, sizeof(list));
		printf("  %-20s %d (online %s)\n", "cpus", t->ncpus, list);
	}
	if (verbose)
		for (i = 0; i < LP_MAX_CPUS; i++)
			if (t->cpu_core[i] >= 0)
				printf("  cpu %-16d core %d, socket %d\n", i, t->cpu_core[i],
				       t->cpu_socket[i]);

	printf("\nCaches\n");
	n = group_caches(t, groups);
	if (!n) {
		printf("  none described in sysfs\n");
		return;
	}
	printf("  %-5s %-12s %9s %5s %5s %8s %10s  %s\n", "name", "type", "size", "ways",
	       "line", "sets", "instances", "cpus sharing each instance");
	for (i = 0; i < n; i++) {
		const struct lp_cache *c = groups[i].first;
		int shown = verbose ? groups[i].instances :
			    (groups[i].instances > 8 ? 8 : groups[i].instances);

		printf("  %-5s %-12s %9s %5d %5d %8d %10d  ", cache_name(c, buf, sizeof(buf)),
		       c->type, size_str(c->size, list, sizeof(list)), c->ways, c->line_size,
		       c->sets, groups[i].instances);
		for (j = 0; j < shown; j++) {
			lp_cpuset__format(&groups[i].inst[j]->cpus, list, sizeof(list));
			printf("%s[%s]", j ? " " : "", list);
		}
		if (shown < groups[i].instances)
			printf(" ... (-v lists all)");
		putchar('\n');
	}
	if (topology__llc_level(t))
		printf("  last-level cache is L%d\n", topology__llc_level(t));
}

static void json_cpu(struct json_writer *w, const struct list_info *li)
{
	json__obj_begin(w, "cpu");
	json__str(w, "vendor", li->cpu_ret ? NULL : li->cpu.vendor);
	json__u64(w, "family", li->cpu.family);
	json__u64(w, "model", li->cpu.model);
	json__u64(w, "stepping", li->cpu.stepping);
	json__str(w, "name", li->cpu.name[0] ? li->cpu.name : NULL);
	json__bool(w, "hypervisor", li->cpu.hypervisor);
	json__str(w, "hypervisor_vendor", li->cpu.hv_vendor[0] ? li->cpu.hv_vendor : NULL);
	json__str(w, "pfm_pmu", li->cpu.pfm_pmu);
	json__str(w, "pfm_pmu_desc", li->cpu.pfm_pmu_desc);
	json__obj_end(w);
}

static void json_facilities(struct json_writer *w, const struct list_info *li)
{
	int i;

	json__obj_begin(w, "facilities");
	for (i = 0; i < li->nfac; i++) {
		json__obj_begin(w, li->fac[i].ops->name);
		json__bool(w, "usable", li->fac[i].probe.usable);
		json__str(w, "reason", li->fac[i].probe.reason);
		json__obj_end(w);
	}
	json__obj_end(w);
	json__obj_begin(w, "debug_registers");
	json__u64(w, "count", li->bp.count);
	json__u64(w, "probe_limit", LP_PROBE_MAX_BP);
	json__str(w, "stopped_by", li->bp.err ? perf__errno_name(li->bp.err) : NULL);
	json__str(w, "reason", li->bp.reason);
	json__bool(w, "fire", li->bp.fires);
	json__str(w, "fire_reason", li->bp.fire_reason);
	json__obj_end(w);
}

static void json_kernel(struct json_writer *w, const struct list_info *li)
{
	json__obj_begin(w, "kernel");
	json__str(w, "release", li->kern.release);
	json__bool(w, "sigtrap", li->kern.sigtrap.ok);
	json__str(w, "sigtrap_reason", li->kern.sigtrap.reason);
	json__bool(w, "modify_attributes", li->kern.modify_attributes.ok);
	json__str(w, "modify_attributes_reason", li->kern.modify_attributes.reason);
	json__bool(w, "uprobes", li->kern.uprobes.ok);
	if (li->kern.uprobe_type >= 0)
		json__u64(w, "uprobe_type", li->kern.uprobe_type);
	else
		json__null(w, "uprobe_type");
	if (li->kern.paranoid_ok)
		json__s64(w, "perf_event_paranoid", li->kern.paranoid);
	else
		json__null(w, "perf_event_paranoid");
	json__bool(w, "privileged", li->kern.privileged);
	json__str(w, "privileged_by", li->kern.privileged_by);
	json__obj_end(w);
}

static void json_topology(struct json_writer *w, const struct lp_topology *t)
{
	struct lp_cpuset online = { { 0 } };
	char buf[256];
	int i;

	json__obj_begin(w, "topology");
	json__u64(w, "sockets", t->nsockets);
	json__u64(w, "cores", t->ncores);
	json__u64(w, "cpus", t->ncpus);
	for (i = 0; i < LP_MAX_CPUS; i++)
		if (t->cpu_core[i] >= 0)
			lp_cpuset__set(&online, i);
	lp_cpuset__format(&online, buf, sizeof(buf));
	json__str(w, "online", buf);
	json__u64(w, "llc_level", topology__llc_level(t));
	json__arr_begin(w, "cpu_list");
	for (i = 0; i < LP_MAX_CPUS; i++) {
		if (t->cpu_core[i] < 0)
			continue;
		json__obj_begin(w, NULL);
		json__u64(w, "cpu", i);
		json__u64(w, "core", t->cpu_core[i]);
		json__u64(w, "socket", t->cpu_socket[i]);
		json__obj_end(w);
	}
	json__arr_end(w);
	json__obj_end(w);
}

static void json_caches(struct json_writer *w, const struct lp_topology *t)
{
	static struct cache_group groups[LP_MAX_CACHES];
	char buf[256];
	int i, j, n;

	json__arr_begin(w, "caches");
	n = group_caches(t, groups);
	for (i = 0; i < n; i++) {
		const struct lp_cache *c = groups[i].first;

		json__obj_begin(w, NULL);
		json__str(w, "name", cache_name(c, buf, sizeof(buf)));
		json__u64(w, "level", c->level);
		json__str(w, "type", c->type);
		json__u64(w, "size", c->size);
		json__u64(w, "ways", c->ways);
		json__u64(w, "line_size", c->line_size);
		json__u64(w, "sets", c->sets);
		json__u64(w, "instances", groups[i].instances);
		json__arr_begin(w, "shared_cpu_lists");
		for (j = 0; j < groups[i].instances; j++) {
			lp_cpuset__format(&groups[i].inst[j]->cpus, buf, sizeof(buf));
			json__str(w, NULL, buf);
		}
		json__arr_end(w);
		json__obj_end(w);
	}
	json__arr_end(w);
}

static void print_json(const struct list_info *li)
{
	struct json_writer w;

	json__init(&w, stdout, JSON_PRETTY);
	json__obj_begin(&w, NULL);
	json_cpu(&w, li);
	json_facilities(&w, li);
	json_kernel(&w, li);
	if (li->topo_ret) {
		json__null(&w, "topology");
		json__null(&w, "caches");
	} else {
		json_topology(&w, &li->topo);
		json_caches(&w, &li->topo);
	}
	json__obj_end(&w);
	if (json__finish(&w))
		lp_err("writing JSON to stdout failed");
}

static void print_flag(const char *name, int on, int *any)
{
	if (on) {
		printf("%s%s", *any ? " " : "", name);
		*any = 1;
	}
}

static void print_sample_type(u64 st)
{
	static const char *const names[] = {
		"IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU", "PERIOD",
		"STREAM_ID", "RAW", "BRANCH_STACK", "REGS_USER", "STACK_USER", "WEIGHT",
		"DATA_SRC", "IDENTIFIER", "TRANSACTION", "REGS_INTR", "PHYS_ADDR", "AUX",
		"CGROUP", "DATA_PAGE_SIZE", "CODE_PAGE_SIZE", "WEIGHT_STRUCT",
	};
	size_t i;
	int n = 0;

	printf("0x%llx (", (unsigned long long)st);
	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (st & (1ULL << i))
			printf("%s%s", n++ ? "|" : "", names[i]);
	printf(")");
}

/* perf's spelling of one event: pmu/config=..,config1=..,period=../pp */
static int perf_event_str(const struct perf_event_attr *a, const char *pmu, char *buf,
			  size_t len)
{
	int n;

	n = snprintf(buf, len, "%s/config=0x%llx", pmu, (unsigned long long)a->config);
	if (a->config1)
		n += snprintf(buf + n, len - n, ",config1=0x%llx", (unsigned long long)a->config1);
	if (a->config2)
		n += snprintf(buf + n, len - n, ",config2=0x%llx", (unsigned long long)a->config2);
	if (a->freq)
		n += snprintf(buf + n, len - n, ",freq=%llu", (unsigned long long)a->sample_freq);
	else if (a->sample_period)
		n += snprintf(buf + n, len - n, ",period=%llu", (unsigned long long)a->sample_period);
	n += snprintf(buf + n, len - n, "/%s%s", a->precise_ip >= 2 ? "pp" :
		      a->precise_ip == 1 ? "p" : "", a->exclude_kernel ? "u" : "");
	return n;
}

static void print_attrs(const struct lp_facility_ops *f, const char *pmu,
			const struct lp_sampling_opts *opts)
{
	static const char *const roles[] = { "sample", "aux leader", "count" };
	struct perf_event_attr a[LP_MAX_FACILITY_ATTRS];
	struct lp_attr_layout lay;
	char err[256], ev[1024], one[256], cnt[512];
	int i, ret, n = 0, nc = 0, any, grp = -1;
	u64 st = 0;

	printf("%s", f->name);
	if (pmu)
		printf(" for libpfm4 PMU %s (nothing opened)", pmu);
	putchar('\n');
	if (!f->setup_layout) {
		printf("  (no attr layout: --pmu does not apply)\n\n");
		return;
	}
	ret = f->setup_layout(pmu, opts, a, &lay, err, sizeof(err));
	if (ret) {
		printf("  none: %s\n\n", err);
		return;
	}
	for (i = 0; i < lay.nattrs; i++) {
		const struct perf_event_attr *x = &a[i];

		printf("  [%d] %-36s %s", i, lay.name[i], roles[lay.role[i] < 3 ? lay.role[i] : 0]);
		if (lay.leader[i] >= 0 && lay.leader[i] != i)
			printf(", in the group of [%d]", lay.leader[i]);
		else if (lay.leader[i] == i)
			printf(", group leader");
		printf(", pmu %s\n", lay.pmu[i]);
		if (x->type == ~0u)
			printf("      type       dynamic (/sys/bus/event_source/devices/%s/type)\n",
			       lay.pmu[i]);
		else
			printf("      type       %u\n", x->type);
		printf("      config     0x%llx  config1 0x%llx  config2 0x%llx  precise_ip %u\n",
		       (unsigned long long)x->config, (unsigned long long)x->config1,
		       (unsigned long long)x->config2, x->precise_ip);
		printf("      sample_type ");
		print_sample_type(x->sample_type);
		putchar('\n');
		if (x->freq)
			printf("      sample_freq %llu\n", (unsigned long long)x->sample_freq);
		else
			printf("      sample_period %llu\n", (unsigned long long)x->sample_period);
		printf("      flags      ");
		any = 0;
		print_flag("exclude_user", x->exclude_user, &any);
		print_flag("exclude_kernel", x->exclude_kernel, &any);
		print_flag("exclude_hv", x->exclude_hv, &any);
		print_flag("exclude_guest", x->exclude_guest, &any);
		print_flag("disabled", x->disabled, &any);
		print_flag("freq", x->freq, &any);
		if (x->read_format)
			printf("%sread_format=0x%llx", any++ ? " " : "",
			       (unsigned long long)x->read_format);
		if (!any)
			printf("none");
		putchar('\n');
		if (lay.role[i] == LP_ATTR_SAMPLE)
			st |= x->sample_type;
		/* perf -e string: groups in braces; counting events go to perf stat */
		perf_event_str(x, lay.pmu[i], one, sizeof(one));
		if (lay.role[i] == LP_ATTR_COUNT) {
			nc += snprintf(cnt + nc, sizeof(cnt) - nc, "%s%s", nc ? "," : "{", one);
			continue;
		}
		if (lay.leader[i] == i) {
			n += snprintf(ev + n, sizeof(ev) - n, "%s{%s", n ? "," : "", one);
			grp = i;
		} else if (grp >= 0 && lay.leader[i] == grp) {
			n += snprintf(ev + n, sizeof(ev) - n, ",%s", one);
		} else {
			if (grp >= 0)
				n += snprintf(ev + n, sizeof(ev) - n, "}");
			grp = -1;
			n += snprintf(ev + n, sizeof(ev) - n, "%s%s", n ? "," : "", one);
		}
		if (grp >= 0 && (i + 1 == lay.nattrs || lay.leader[i + 1] != grp)) {
			n += snprintf(ev + n, sizeof(ev) - n, "}");
			grp = -1;
		}
	}
	if (lay.note[0])
		printf("  note: %s\n", lay.note);
	printf("  perf: perf record%s%s%s%s -e '%s' -- PROGRAM\n",
	       st & PERF_SAMPLE_ADDR ? " -d" : "",
	       st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT) ? " -W" : "",
	       st & PERF_SAMPLE_CPU ? " --sample-cpu" : "",
	       st & PERF_SAMPLE_RAW ? " --raw-samples" : "", ev);
	if (nc)
		printf("  counting group: perf stat -e '%s}' -- PROGRAM\n", cnt);
	putchar('\n');
}

/* ---- --costs ------------------------------------------------------------ */

#define COSTS_REPS 5

struct cost_floor {
	const char *name, *what;
	double ns;		/* overhead per sample */
};

/* What each path pays per sample at least (core/costs.h): 0..4 floors. */
static int cost_floors(const struct lp_costs *c, struct cost_floor *f)
{
	double s = c->sample.us, t = c->trap.us, a = c->arm.us, h = c->hold.us;
	int n = 0;

	if (s >= 0)
		f[n++] = (struct cost_floor){ "sample",
			"every sample (record; comdetect and reuse --async)", s * 1e3 };
	if (s >= 0 && h >= 0)
		f[n++] = (struct cost_floor){ "sync", "every sample held (--sync)",
					      (s + h) * 1e3 };
	if (s >= 0 && t >= 0 && a >= 0)
		f[n++] = (struct cost_floor){ "async_trap",
			"--async, if every sample arms a watchpoint which traps",
			(s + a + t) * 1e3 };
	if (s >= 0 && t >= 0 && h >= 0)
		f[n++] = (struct cost_floor){ "sync_trap",
			"--sync, if every sample arms a watchpoint which traps",
			(s + h + t) * 1e3 };
	return n;
}

static void print_cost(const char *name, const struct lp_cost *c, const char *what)
{
	if (c->us < 0) {
		printf("  %-6s not measured: %s\n", name, c->reason);
		return;
	}
	printf("  %-6s %7.1f us  %s, %.0f per run\n", name, c->us, what, c->events);
}

static void print_costs_text(const struct lp_costs *c)
{
	struct cost_floor f[4];
	char arm[160];
	int i, n = cost_floors(c, f);

	printf("Costs on this machine (extra thread CPU time per event, median of %d runs):\n",
	       COSTS_REPS);
	print_cost("sample", &c->sample, "soft facility sample (cpu-clock + user registers)");
	print_cost("trap", &c->trap, "read/write watchpoint hit");
	snprintf(arm, sizeof(arm), "moving a running thread's watchpoint (the arming "
		 "thread waits %.1f us)", c->arm.wall_us);
	print_cost("arm", &c->arm, arm);
	print_cost("hold", &c->hold, "--sync stop (SIGTRAP, ptrace stop, resume) beyond the sample");
	if (!n)
		return;
	printf("\nLeast overhead at the default period (%.0f us of thread CPU time per sample):\n",
	       (double)c->period_ns / 1e3);
	for (i = 0; i < n; i++) {
		double r = costs__floor((double)c->period_ns, f[i].ns);

		if (isinf(r))	/* the costs alone fill the period */
			printf("  never    %s: its %.1f us exceed the period\n", f[i].what, f[i].ns / 1e3);
		else
			printf("  %6.2fx  %s\n", r, f[i].what);
	}
	printf("  (a period of P us that pays O us of these leaves P - O us to the program:\n"
	       "  P / (P - O) of its native CPU time; with --sync the owner is armed while\n"
	       "  held; every other thread of the program adds an arm per armed sample)\n");
}

static void json_cost(struct json_writer *w, const char *key, const struct lp_cost *c)
{
	json__obj_begin(w, key);
	if (c->us >= 0)
		json__double(w, "us", c->us);
	else
		json__null(w, "us");
	if (c->wall_us >= 0 && c->us >= 0)
		json__double(w, "wall_us", c->wall_us);
	json__double(w, "events", c->events);
	json__u64(w, "runs", (u64)c->reps);
	json__str(w, "reason", c->reason[0] ? c->reason : NULL);
	json__obj_end(w);
}

static void print_costs_json(const struct lp_costs *c)
{
	struct cost_floor f[4];
	struct json_writer w;
	int i, n = cost_floors(c, f);

	json__init(&w, stdout, JSON_PRETTY);
	json__obj_begin(&w, NULL);
	json__obj_begin(&w, "costs");
	json__u64(&w, "period_ns", c->period_ns);
	json__u64(&w, "runs", COSTS_REPS);
	json_cost(&w, "sample", &c->sample);
	json_cost(&w, "trap", &c->trap);
	json_cost(&w, "arm", &c->arm);
	json_cost(&w, "hold", &c->hold);
	json__arr_begin(&w, "floors");
	for (i = 0; i < n; i++) {
		json__obj_begin(&w, NULL);
		json__str(&w, "name", f[i].name);
		json__str(&w, "what", f[i].what);
		json__double(&w, "overhead_us", f[i].ns / 1e3);
		/* null: the costs alone fill the period, the program would not progress */
		json__double(&w, "ratio", costs__floor((double)c->period_ns, f[i].ns));
		json__obj_end(&w);
	}
	json__arr_end(&w);
	json__obj_end(&w);
	json__obj_end(&w);
	json__finish(&w);
}

int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "attrs", no_argument, NULL, 0x301 },
		{ "pmu", required_argument, NULL, 0x302 },
		{ "ldlat", required_argument, NULL, 0x303 },
		{ "counters", no_argument, NULL, 0x304 },
		{ "costs", no_argument, NULL, 0x305 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct list_info li;
	struct lp_sampling_opts sopts = { 0 };
	int c, json = 0, verbose = 0, attrs = 0, costs = 0, i;
	const char *pmu = NULL;
	char *end;

	while ((c = getopt_long(argc, argv, "+vh", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'v': verbose = 1; break;
		case 0x301: attrs = 1; break;
		case 0x302: pmu = optarg; break;
		case 0x303:
			sopts.ldlat = (int)strtol(optarg, &end, 10);
			if (*end || sopts.ldlat < 1 || sopts.ldlat > 65535) {
				lp_err("--ldlat expects a latency in cycles (1..65535), not '%s'",
				      optarg);
				usage_exit(list_usage, 1);
			}
			break;
		case 0x304: sopts.counters = 1; break;
		case 0x305: costs = 1; break;
		case 'h': usage_exit(list_usage, 0);
		default: usage_exit(list_usage, 1);
		}
	}
	if (optind < argc) {
		lp_err("unexpected argument '%s'", argv[optind]);
		usage_exit(list_usage, 1);
	}

	if ((pmu || sopts.ldlat || sopts.counters) && !attrs) {
		lp_err("--pmu, --ldlat and --counters go with --attrs");
		usage_exit(list_usage, 1);
	}
	if (costs) {
		static struct lp_costs cs;

		if (attrs) {
			lp_err("--costs goes alone (or with --json)");
			usage_exit(list_usage, 1);
		}
		if (costs__measure(&cs, COSTS_REPS) == -ENODEV)
			lp_err("nothing could be measured: %s", cs.sample.reason);
		if (json)
			print_costs_json(&cs);
		else
			print_costs_text(&cs);
		if (fflush(stdout) || ferror(stdout)) {
			lp_err("cannot write to stdout");
			return 1;
		}
		return cs.sample.us < 0 && cs.trap.us < 0 && cs.arm.us < 0 ? 1 : 0;
	}
	if (attrs) {
		if (json) {
			lp_err("--attrs prints text only");
			usage_exit(list_usage, 1);
		}
		int nall;
		const struct lp_facility_ops *const *all = lp_facility__list(&nall);

		for (i = 0; i < nall; i++)
			if (all[i]->setup_layout)
				print_attrs(all[i], pmu, &sopts);
		if (fflush(stdout) || ferror(stdout)) {
			lp_err("cannot write to stdout");
			return 1;
		}
		return 0;
	}

	li.cpu_ret = cpu__read(&li.cpu);
	li.nfac = probe__facilities(li.fac, ARRAY_SIZE(li.fac));
	probe__debug_registers(&li.bp);
	probe__kernel(&li.kern);
	li.topo_ret = topology__read(&li.topo, NULL);

	if (json)
		print_json(&li);
	else
		print_text(&li, verbose);
	if (fflush(stdout) || ferror(stdout)) {
		lp_err("cannot write to stdout");
		return 1;
	}
	return 0;
}
