// SPDX-License-Identifier: GPL-2.0
/*
 * PEBS event choice per microarchitecture (Documentation/facilities.md, "Intel PEBS") and the attrs that
 * follow from it. Codes are Intel's (event | umask << 8, from the SDM and
 * perfmon event lists); libpfm4 encodes by name where it knows the PMU and
 * must agree, else the table wins and the layout note says so (libpfm4
 * 4.13 encodes SPR MEM_TRANS_RETIRED:STORE_SAMPLE as 0x3cd; it is 0x2cd).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <perfmon/pfmlib.h>

#include "arch/x86-intel/pebs.h"
#include "core/cpu.h"
#include "core/perf-util.h"

const struct pebs_uarch pebs_uarchs[] = {
	{
		.name = "nhm-wsm",
		.pfm = { "nhm", "nhm_ex", "wsm", "wsm_dp" },
		.models = { 0x1a, 0x1e, 0x1f, 0x2e, 0x25, 0x2c, 0x2f },
		.load_ev = "MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD", .load_raw = 0x100b,
		.load_needs_ldlat = 1,
		.ldlat_ev = "MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD", .ldlat_raw = 0x100b,
	}, {
		.name = "snb-ivb",
		.pfm = { "snb", "snb_ep", "ivb", "ivb_ep" },
		.models = { 0x2a, 0x2d, 0x3a, 0x3e },
		.load_ev = "MEM_TRANS_RETIRED:LATENCY_ABOVE_THRESHOLD", .load_raw = 0x1cd,
		.load_needs_ldlat = 1,
		.store_ev = "MEM_TRANS_RETIRED:PRECISE_STORE", .store_raw = 0x2cd,
		.ldlat_ev = "MEM_TRANS_RETIRED:LATENCY_ABOVE_THRESHOLD", .ldlat_raw = 0x1cd,
		.st_lat_ev = "MEM_TRANS_RETIRED:PRECISE_STORE", .st_lat_raw = 0x2cd,
	}, {
		.name = "hsw-bdw",
		.pfm = { "hsw", "hsw_ep", "bdw", "bdw_ep" },
		.models = { 0x3c, 0x3f, 0x45, 0x46, 0x3d, 0x47, 0x4f, 0x56 },
		.load_ev = "MEM_UOPS_RETIRED:ALL_LOADS", .load_raw = 0x81d0,
		.store_ev = "MEM_UOPS_RETIRED:ALL_STORES", .store_raw = 0x82d0,
		.ldlat_ev = "MEM_TRANS_RETIRED:LOAD_LATENCY", .ldlat_raw = 0x1cd,
		.st_lat_ev = "MEM_UOPS_RETIRED:ALL_STORES", .st_lat_raw = 0x82d0,
	}, {
		.name = "skl-icl",
		.pfm = { "skl", "skx", "clx", "icl", "icx" },
		/* SKL, SKX/CLX, KBL/CFL, CML, ICL, ICX, TGL, RKL */
		.models = { 0x4e, 0x5e, 0x55, 0x8e, 0x9e, 0xa5, 0xa6, 0x7d, 0x7e, 0x6a,
			    0x6c, 0x8c, 0x8d, 0xa7 },
		.unknown = { "tgl", "rkl" },
		.load_ev = "MEM_INST_RETIRED:ALL_LOADS", .load_raw = 0x81d0,
		.store_ev = "MEM_INST_RETIRED:ALL_STORES", .store_raw = 0x82d0,
		.ldlat_ev = "MEM_TRANS_RETIRED:LOAD_LATENCY", .ldlat_raw = 0x1cd,
		.st_lat_ev = "MEM_INST_RETIRED:ALL_STORES", .st_lat_raw = 0x82d0,
	}, {
		.name = "spr-emr-gnr-adl_glc",
		.pfm = { "spr" },
		/* SPR, EMR, GNR (X, D), ADL, RPL P-cores */
		.models = { 0x8f, 0xcf, 0xad, 0xae, 0x97, 0x9a, 0xb7, 0xba, 0xbf },
		.unknown = { "emr", "gnr", "adl_glc", "rpl", "adl" },
		.load_ev = "MEM_INST_RETIRED:ALL_LOADS", .load_raw = 0x81d0,
		.store_ev = "MEM_INST_RETIRED:ALL_STORES", .store_raw = 0x82d0,
		.ldlat_ev = "MEM_TRANS_RETIRED:LOAD_LATENCY", .ldlat_raw = 0x1cd,
		.st_lat_ev = "MEM_TRANS_RETIRED:STORE_SAMPLE", .st_lat_raw = 0x2cd,
		.aux = 1,
		.weight_struct = 1,
	}, {
		/* hybrid E-cores: only reached through cpu_atom or --pmu adl_grt */
		.name = "adl_grt",
		.unknown = { "adl_grt" },
		.load_raw = 0x5d0, .load_needs_ldlat = 1,
		.store_raw = 0x6d0,
		.ldlat_raw = 0x5d0, .st_lat_raw = 0x6d0,
		.atom = 1,
	},
};
const int pebs_nuarchs = ARRAY_SIZE(pebs_uarchs);

/* Counting events for reuse time: every retired load / store. */
static void count_codes(const struct pebs_uarch *ua, u64 *ld, u64 *st)
{
	if (!strcmp(ua->name, "nhm-wsm")) {
		*ld = 0x010b;	/* MEM_INST_RETIRED.LOADS */
		*st = 0x020b;	/* MEM_INST_RETIRED.STORES */
	} else {
		*ld = 0x81d0;	/* MEM_UOPS_RETIRED/MEM_INST_RETIRED.ALL_LOADS */
		*st = 0x82d0;	/* .ALL_STORES */
	}
}

const struct pebs_uarch *pebs__uarch_by_pfm(const char *pfm)
{
	int i, j;

	for (i = 0; i < pebs_nuarchs; i++) {
		for (j = 0; j < (int)ARRAY_SIZE(pebs_uarchs[i].pfm) && pebs_uarchs[i].pfm[j]; j++)
			if (!strcmp(pebs_uarchs[i].pfm[j], pfm))
				return &pebs_uarchs[i];
		for (j = 0; j < (int)ARRAY_SIZE(pebs_uarchs[i].unknown) &&
			    pebs_uarchs[i].unknown[j]; j++)
			if (!strcmp(pebs_uarchs[i].unknown[j], pfm))
				return &pebs_uarchs[i];
	}
	return NULL;
}

const struct pebs_uarch *pebs__uarch_by_model(unsigned int family, unsigned int model)
{
	int i, j;

	if (family != 6)
		return NULL;
	for (i = 0; i < pebs_nuarchs; i++)
		for (j = 0; j < (int)sizeof(pebs_uarchs[i].models) && pebs_uarchs[i].models[j]; j++)
			if (pebs_uarchs[i].models[j] == model)
				return &pebs_uarchs[i];
	return NULL;
}

/* ---- which PMUs ------------------------------------------------------------ */

int pebs__no_pmu_msg(int hypervisor, char *buf, size_t len)
{
	return snprintf(buf, len, "no core PMU in sysfs (/sys/bus/event_source/devices/cpu, "
			"cpu_core, cpu_atom): %s; --sampler soft works without one",
			hypervisor ? "this VM exposes no hardware PMU (enable its vPMU, e.g. "
			"QEMU -cpu host,pmu=on)" : "the kernel exposes no hardware PMU");
}

static void set_pmu(struct pebs_pmu *p, const struct pebs_uarch *ua, int type,
		    const char *sysfs, const char *pfm)
{
	memset(p, 0, sizeof(*p));
	p->ua = ua;
	p->type = type;
	snprintf(p->sysfs, sizeof(p->sysfs), "%s", sysfs);
	snprintf(p->pfm, sizeof(p->pfm), "%s", pfm ? pfm : "");
}

static int forced_pmus(const char *force, struct pebs_pmu *pmus, int max, char *err,
		       size_t len)
{
	const struct pebs_uarch *ua;
	int known;

	if (max < 2)
		return -EINVAL;
	if (!strcmp(force, "adl") || !strcmp(force, "rpl")) {
		set_pmu(&pmus[0], pebs__uarch_by_pfm("adl_glc"), -1, "cpu_core", NULL);
		set_pmu(&pmus[1], pebs__uarch_by_pfm("adl_grt"), -1, "cpu_atom", NULL);
		return 2;
	}
	ua = pebs__uarch_by_pfm(force);
	if (!ua) {
		snprintf(err, len, "lociprof knows no PEBS memory events for PMU '%s' "
			 "(known: nhm wsm snb ivb hsw bdw skl skx clx icl icx tgl rkl spr "
			 "emr gnr adl adl_glc adl_grt, and their _ep/_ex/_dp forms)", force);
		return -ENOENT;
	}
	known = x86_pfm__known(force);
	if (ua->atom)
		set_pmu(&pmus[0], ua, -1, "cpu_atom", NULL);
	else if (!strcmp(force, "adl_glc"))
		set_pmu(&pmus[0], ua, -1, "cpu_core", NULL);
	else
		set_pmu(&pmus[0], ua, PERF_TYPE_RAW, "cpu", known ? force : NULL);
	pmus[0].forced = 1;
	return 1;
}

int pebs__pmus(const char *force, struct pebs_pmu *pmus, int max, char *err, size_t len)
{
	const struct pebs_uarch *ua = NULL;
	struct lp_cpu_info ci;
	int core, atom, cpu;
	char first[32];

	err[0] = '\0';
	if (force)
		return forced_pmus(force, pmus, max, err, len);
	if (max < 2)
		return -EINVAL;
	cpu__read(&ci);
	core = perf__pmu_type("cpu_core");
	atom = perf__pmu_type("cpu_atom");
	cpu = perf__pmu_type("cpu");
	if (core < 0 && atom < 0 && cpu < 0) {
		pebs__no_pmu_msg(ci.hypervisor, err, len);
		return -ENODEV;
	}
	if (!cpu__is_intel(&ci)) {
		snprintf(err, len, "core PMU present, but PEBS is Intel only (this is %s)",
			 ci.vendor);
		return -EOPNOTSUPP;
	}
	snprintf(first, sizeof(first), "%.*s", (int)strcspn(ci.pfm_pmu, ","), ci.pfm_pmu);
	if (core >= 0 || atom >= 0) {
		int n = 0;

		if (core >= 0)
			set_pmu(&pmus[n++], pebs__uarch_by_pfm("adl_glc"), core, "cpu_core",
				NULL);
		if (atom >= 0)
			set_pmu(&pmus[n++], pebs__uarch_by_pfm("adl_grt"), atom, "cpu_atom",
				NULL);
		return n;
	}
	if (strcmp(first, "none"))
		ua = pebs__uarch_by_pfm(first);
	if (ua && ua->pfm[0] && pebs__uarch_by_model(ci.family, ci.model) != ua &&
	    pebs__uarch_by_model(ci.family, ci.model))
		ua = pebs__uarch_by_model(ci.family, ci.model);	/* CPUID is the truth */
	if (!ua)
		ua = pebs__uarch_by_model(ci.family, ci.model);
	if (!ua) {
		snprintf(err, len, "Intel family %u model 0x%x (libpfm4 PMU: %s): lociprof "
			 "knows no PEBS memory sampling events for it; newer CPUs need a "
			 "newer lociprof (table in arch/x86-intel/pebs-events.c)",
			 ci.family, ci.model, ci.pfm_pmu);
		return -ENOENT;
	}
	set_pmu(&pmus[0], ua, cpu, "cpu", pebs__uarch_by_pfm(first) == ua ? first : NULL);
	return 1;
}

/* ---- attrs ----------------------------------------------------------------- */

struct builder {
	struct perf_event_attr *attrs;
	struct lp_attr_layout *lay;
	char *err;
	size_t errlen;
	size_t notepos;
};

static void note(struct builder *b, const char *fmt, const char *a, u64 x, u64 y)
{
	size_t room = sizeof(b->lay->note) - b->notepos;
	int n;

	if (room <= 1)
		return;
	n = snprintf(b->lay->note + b->notepos, room, b->notepos ? "; " : "");
	b->notepos += n;
	room -= n;
	n = snprintf(b->lay->note + b->notepos, room, fmt, a, (unsigned long long)x,
		     (unsigned long long)y);
	if (n > 0)
		b->notepos += (size_t)n < room ? (size_t)n : room - 1;
}

/*
 * Encode @ev (libpfm4 name, may be NULL) for @p, falling back to / checked
 * against the table's @raw. @ldlat goes to config1 for load-latency events.
 */
static void encode(struct builder *b, const struct pebs_pmu *p, int use_pfm, const char *ev,
		   u64 raw, int ldlat, struct perf_event_attr *a)
{
	struct perf_event_attr e;
	char name[128];

	a->config = raw;
	a->config1 = ldlat > 0 ? (u64)ldlat : 0;
	if (!use_pfm || !ev)
		return;
	memset(&e, 0, sizeof(e));
	if (ldlat > 0)
		snprintf(name, sizeof(name), "%s:ldlat=%d", ev, ldlat);
	else
		snprintf(name, sizeof(name), "%s", ev);
	if (x86_pfm__encode_on(p->forced ? p->pfm : NULL, name, &e)) {
		note(b, "libpfm4 cannot encode %s: raw 0x%llx", ev, raw, 0);
		return;
	}
	if (e.config != raw)
		note(b, "libpfm4 encodes %s as 0x%llx; using Intel's 0x%llx", ev, e.config, raw);
	else if (ldlat > 0 && e.config1 != (u64)ldlat)
		note(b, "libpfm4 gives %s ldlat config1=0x%llx; using 0x%llx", ev, e.config1,
		     (u64)ldlat);
}

static int add_attr(struct builder *b, int role, int leader, int kind, const char *name,
		    const struct pebs_pmu *p)
{
	struct lp_attr_layout *lay = b->lay;
	struct perf_event_attr *a;
	int i = lay->nattrs;

	if (i >= LP_MAX_FACILITY_ATTRS) {
		snprintf(b->err, b->errlen, "pebs needs more than %d events",
			 LP_MAX_FACILITY_ATTRS);
		return -E2BIG;
	}
	a = &b->attrs[i];
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = p->type < 0 ? ~0u : (u32)p->type;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->disabled = 1;
	lay->role[i] = role;
	lay->leader[i] = leader;
	lay->kind[i] = kind;
	snprintf(lay->name[i], sizeof(lay->name[i]), "%s", name);
	snprintf(lay->pmu[i], sizeof(lay->pmu[i]), "%s", p->sysfs);
	lay->nattrs++;
	return i;
}

static void sampling(struct perf_event_attr *a, const struct lp_sampling_opts *opts,
		     int weight_struct)
{
	if (opts && opts->freq) {
		a->freq = 1;
		a->sample_freq = opts->freq;
	} else {
		a->sample_period = opts && opts->period ? opts->period : PEBS_DEFAULT_PERIOD;
	}
	a->precise_ip = 2;
	a->sample_type = PEBS_SAMPLE_TYPE |
			 (weight_struct ? PERF_SAMPLE_WEIGHT_STRUCT : PERF_SAMPLE_WEIGHT);
	a->wakeup_events = 32;
}

static const char *ev_name(const char *pfm, u64 raw, char *buf, size_t len)
{
	const char *c;

	if (!pfm) {
		snprintf(buf, len, "raw 0x%llx", (unsigned long long)raw);
		return buf;
	}
	snprintf(buf, len, "%s", pfm);
	c = strchr(buf, ':');
	if (c)
		buf[c - buf] = '.';
	return buf;
}

int pebs__build(const struct pebs_pmu *pmus, int npmus, const struct lp_sampling_opts *opts,
		int weight_struct_ok, struct perf_event_attr *attrs,
		struct lp_attr_layout *lay, char *err, size_t len)
{
	struct builder b = { attrs, lay, err, len, 0 };
	int ldlat_mode = opts && opts->ldlat > 0;
	char name[64];
	int k, i;

	memset(lay, 0, sizeof(*lay));
	for (k = 0; k < npmus; k++) {
		const struct pebs_pmu *p = &pmus[k];
		const struct pebs_uarch *ua = p->ua;
		int ws = ua->weight_struct && weight_struct_ok;
		int ldlat = ldlat_mode ? opts->ldlat : PEBS_DEFAULT_LDLAT;
		int leader = -1;
		const char *lev = ldlat_mode ? ua->ldlat_ev : ua->load_ev;
		u64 lraw = ldlat_mode ? ua->ldlat_raw : ua->load_raw;
		const char *sev = ldlat_mode ? ua->st_lat_ev : ua->store_ev;
		u64 sraw = ldlat_mode ? ua->st_lat_raw : ua->store_raw;
		int lat = ldlat_mode || ua->load_needs_ldlat;
		int use_pfm = p->pfm[0] != '\0';

		if (lat && ua->aux && lraw == 0x1cd) {
			i = add_attr(&b, LP_ATTR_AUX, -1, LP_ACCESS_NONE, "mem-loads-aux", p);
			if (i < 0)
				return i;
			attrs[i].config = PEBS_MEM_LOADS_AUX;
			attrs[i].sample_type = PEBS_SAMPLE_TYPE;
			lay->leader[i] = i;
			leader = i;
		}
		i = add_attr(&b, LP_ATTR_SAMPLE, leader, LP_ACCESS_LOAD,
			     ev_name(lev, lraw, name, sizeof(name)), p);
		if (i < 0)
			return i;
		encode(&b, p, use_pfm, lev, lraw, lat ? ldlat : 0, &attrs[i]);
		sampling(&attrs[i], opts, ws);
		if (sraw) {
			i = add_attr(&b, LP_ATTR_SAMPLE, -1, LP_ACCESS_STORE,
				     ev_name(sev, sraw, name, sizeof(name)), p);
			if (i < 0)
				return i;
			encode(&b, p, use_pfm, sev, sraw, 0, &attrs[i]);
			sampling(&attrs[i], opts, ws);
		} else {
			note(&b, "%s has no precise store event: loads only", ua->name, 0, 0);
		}
		if (opts && opts->counters) {
			u64 cl, cs;
			int l;

			count_codes(ua, &cl, &cs);
			l = add_attr(&b, LP_ATTR_COUNT, -1, LP_ACCESS_LOAD,
				     ev_name(NULL, cl, name, sizeof(name)), p);
			if (l < 0)
				return l;
			snprintf(lay->name[l], sizeof(lay->name[l]), "loads (count 0x%llx)",
				 (unsigned long long)cl);
			lay->leader[l] = l;
			attrs[l].config = cl;
			attrs[l].read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
					       PERF_FORMAT_TOTAL_TIME_RUNNING;
			i = add_attr(&b, LP_ATTR_COUNT, l, LP_ACCESS_STORE, "", p);
			if (i < 0)
				return i;
			snprintf(lay->name[i], sizeof(lay->name[i]), "stores (count 0x%llx)",
				 (unsigned long long)cs);
			attrs[i].config = cs;
			attrs[i].read_format = attrs[l].read_format;
		}
		if (!use_pfm)
			note(&b, "%s: raw codes from lociprof's table (libpfm4 does not know "
			     "this PMU)", p->sysfs, 0, 0);
		if (p->type < 0)
			note(&b, "%s: type is dynamic, read it from "
			     "/sys/bus/event_source/devices/<pmu>/type", p->sysfs, 0, 0);
	}
	return 0;
}
