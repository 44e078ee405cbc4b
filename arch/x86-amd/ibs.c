// SPDX-License-Identifier: GPL-2.0
/*
 * AMD IBS facility (Documentation/facilities.md, "AMD IBS"). The probe needs the ibs_op PMU in sysfs,
 * Linux 6.2+ for per-thread use, and an ibs_op event that opens on this
 * process. Setup counts dispatched ops (cnt_ctl) with a period that is a
 * multiple of 16 in the PMU's range; decode splits PERF_SAMPLE_RAW into the
 * IBS registers and keeps loads/stores with a valid linear address,
 * counting every op it drops by reason.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "arch/x86-amd/ibs.h"
#include "arch/x86/pfm.h"
#include "core/cpu.h"
#include "core/facility.h"
#include "core/perf-util.h"

#define IBS_DIR "/sys/bus/event_source/devices"

const char *const ibs_discard_names[IBS_DISCARD__MAX] = {
	[IBS_KEPT] = "kept",
	[IBS_DISCARD_NOT_MEM] = "not a load or store",
	[IBS_DISCARD_NO_ADDR] = "no valid linear address",
	[IBS_DISCARD_KERNEL] = "kernel",
	[IBS_DISCARD_BAD_RAW] = "malformed raw record",
};

static struct ibs_stats stats;

void ibs__stats(struct ibs_stats *st)
{
	*st = stats;
}

void ibs__stats_reset(void)
{
	memset(&stats, 0, sizeof(stats));
}

/* ---- pure parts ------------------------------------------------------------ */

int ibs__parse_raw(const void *raw, u32 size, struct ibs_raw *out)
{
	const unsigned char *p = raw;
	size_t need, off;
	int i;

	memset(out, 0, sizeof(*out));
	if (!raw || size < 4)
		return -EINVAL;
	memcpy(&out->caps, p, 4);
	need = 4 + 8 * 7;
	if (out->caps & IBS_CAPS_BRNTRGT)
		need += 8;
	if (out->caps & IBS_CAPS_OPDATA4)
		need += 8;
	if (size < need)
		return -EINVAL;
	off = 4;
	for (i = 0; i < IBS_NREGS; i++) {
		if (i == IBS_BR_TARGET && !(out->caps & IBS_CAPS_BRNTRGT))
			continue;
		if (i == IBS_OP_DATA4 && !(out->caps & IBS_CAPS_OPDATA4))
			continue;
		memcpy(&out->reg[i], p + off, 8);
		out->has[i] = 1;
		off += 8;
	}
	return 0;
}

/* DataSrc of OP_DATA2 (Zen4: 5 bits, with DataSrcHi). */
static unsigned int data_src_code(const struct ibs_raw *r)
{
	u64 d2 = r->reg[IBS_OP_DATA2];
	unsigned int lo = d2 & 7;

	if (r->caps & IBS_CAPS_ZEN4)
		return (((d2 >> 6) & 3) << 3) | lo;
	return lo;
}

#define LVL(x) ((u64)(x) << PERF_MEM_LVL_SHIFT)

/* Follows perf_ibs_get_mem_lvl/_snoop/_tlb_lvl/_lock of the kernel. */
u64 ibs__data_src(const struct ibs_raw *r)
{
	u64 d3 = r->reg[IBS_OP_DATA3];
	u64 d2 = r->reg[IBS_OP_DATA2];
	unsigned int src = data_src_code(r);
	int zen4 = !!(r->caps & IBS_CAPS_ZEN4);
	u64 v = 0, lvl = 0;
	int load = !!(d3 & IBS_LD_OP);

	if (load)
		v |= PERF_MEM_S(OP, LOAD);
	else if (d3 & IBS_ST_OP)
		v |= PERF_MEM_S(OP, STORE);
	else
		return PERF_MEM_S(OP, NA) | PERF_MEM_S(LVL, NA) | PERF_MEM_S(SNOOP, NA) |
		       PERF_MEM_S(LOCK, NA) | PERF_MEM_S(TLB, NA);

	/* level */
	if ((d3 & IBS_DC_UC_MEM_ACC) && src != 7) {
		lvl = PERF_MEM_LVL_UNC | PERF_MEM_LVL_HIT;
	} else if (!(d3 & IBS_DC_MISS)) {
		lvl = PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT;
	} else if (!(d3 & IBS_L2_MISS)) {
		lvl = PERF_MEM_LVL_L2 | PERF_MEM_LVL_HIT;
	} else if (load && zen4 && src == 1) {
		lvl = PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT;
	} else if (load && !zen4 && src == 2) {
		lvl = PERF_MEM_LVL_L3 | PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_HIT;
	} else if (load && zen4 && src == 2) {
		lvl = PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_HIT;
	} else if (load && ((zen4 && src == 5) || (!zen4 && src == 4))) {
		lvl = PERF_MEM_LVL_REM_CCE2 | PERF_MEM_LVL_HIT;
	} else if (load && src == 3) {
		lvl = (d2 & IBS_RMT_NODE ? PERF_MEM_LVL_REM_RAM1 : PERF_MEM_LVL_LOC_RAM) |
		      PERF_MEM_LVL_HIT;
	} else if (load && zen4 && (src == 6 || src == 8)) {
		v |= (u64)(src == 6 ? PERF_MEM_LVLNUM_PMEM : PERF_MEM_LVLNUM_CXL) <<
		     PERF_MEM_LVLNUM_SHIFT;
		if (d2 & IBS_RMT_NODE)
			v |= PERF_MEM_S(REMOTE, REMOTE) | PERF_MEM_S(HOPS, 1);
	} else if (load && src == 7) {
		lvl = PERF_MEM_LVL_IO;
		v |= (u64)PERF_MEM_LVLNUM_IO << PERF_MEM_LVLNUM_SHIFT;
		if (d2 & IBS_RMT_NODE)
			v |= PERF_MEM_S(REMOTE, REMOTE) | PERF_MEM_S(HOPS, 1);
	} else if (d3 & IBS_DC_MISS_NO_MAB) {
		lvl = PERF_MEM_LVL_LFB | PERF_MEM_LVL_HIT;
	} else {
		lvl = PERF_MEM_LVL_NA;
	}
	v |= LVL(lvl);

	/* snoop: a load served by another core's Modified line is a HITM */
	if (load && !(lvl & (PERF_MEM_LVL_L1 | PERF_MEM_LVL_L2)) &&
	    !(d2 & IBS_CACHE_HIT_ST) &&
	    ((zen4 && (src == 1 || src == 2 || src == 5)) || (!zen4 && src == 2)))
		v |= PERF_MEM_S(SNOOP, HITM);
	else
		v |= PERF_MEM_S(SNOOP, NA);

	/* TLB */
	if (!(d3 & IBS_DC_LIN_ADDR_VALID))
		v |= PERF_MEM_S(TLB, NA);
	else if (!(d3 & IBS_DC_L1TLB_MISS))
		v |= (u64)(PERF_MEM_TLB_L1 | PERF_MEM_TLB_HIT) << PERF_MEM_TLB_SHIFT;
	else if (!(d3 & IBS_DC_L2TLB_MISS))
		v |= (u64)(PERF_MEM_TLB_L2 | PERF_MEM_TLB_HIT) << PERF_MEM_TLB_SHIFT;
	else
		v |= (u64)(PERF_MEM_TLB_L2 | PERF_MEM_TLB_MISS) << PERF_MEM_TLB_SHIFT;

	v |= d3 & IBS_DC_LOCKED_OP ? PERF_MEM_S(LOCK, LOCKED) : PERF_MEM_S(LOCK, NA);
	return v;
}

int ibs__period(u64 req, u32 caps, u64 *out, char *err, size_t len)
{
	u64 max = caps & IBS_CAPS_OPCNTEXT ? IBS_MAX_PERIOD_EXT : IBS_MAX_PERIOD;
	u64 p = req ? req : IBS_DEFAULT_PERIOD;

	p = (p + 8) & ~0xfULL;		/* nearest multiple of 16 */
	if (p < IBS_MIN_PERIOD || p > max) {
		snprintf(err, len, "IBS op period %llu is out of range: it must be a multiple "
			 "of 16 from %llu (0x%llx) to %llu (0x%llx)%s",
			 (unsigned long long)req, (unsigned long long)IBS_MIN_PERIOD,
			 (unsigned long long)IBS_MIN_PERIOD, (unsigned long long)max,
			 (unsigned long long)max, caps & IBS_CAPS_OPCNTEXT ? "" :
			 " (this CPU lacks the 27-bit OpCntExt count)");
		return -ERANGE;
	}
	*out = p;
	return 0;
}

int ibs__kernel_check(const char *release, char *err, size_t len)
{
	int ma, mi;

	if (perf__parse_release(release, &ma, &mi)) {
		snprintf(err, len, "cannot tell the kernel version from '%s'; per-thread IBS "
			 "needs Linux 6.2 or later", release);
		return -EOPNOTSUPP;
	}
	if (ma > 6 || (ma == 6 && mi >= 2))
		return 0;
	snprintf(err, len, "kernel %s is older than 6.2: it cannot attach IBS to one "
		 "thread (pid=tid, cpu=-1); upgrade to Linux 6.2+, or use --sampler soft",
		 release);
	return -EOPNOTSUPP;
}

int ibs__parse_format(const char *s, int *field, int *bit)
{
	char *end;
	long b;

	if (!strncmp(s, "config:", 7)) {
		*field = 0;
		s += 7;
	} else if (!strncmp(s, "config1:", 8)) {
		*field = 1;
		s += 8;
	} else if (!strncmp(s, "config2:", 8)) {
		*field = 2;
		s += 8;
	} else {
		return -EINVAL;
	}
	b = strtol(s, &end, 10);
	if (end == s || b < 0 || b > 63)
		return -EINVAL;
	*bit = (int)b;
	return 0;
}

static __u64 *config_field(struct perf_event_attr *a, int field)
{
	return field == 0 ? &a->config : field == 1 ? &a->config1 : &a->config2;
}

int ibs__build(const struct ibs_pmu *p, const struct lp_sampling_opts *opts,
	       struct perf_event_attr *attrs, struct lp_attr_layout *lay,
	       char *err, size_t len)
{
	struct perf_event_attr *a = &attrs[0];
	size_t np = 0;
	u64 period;
	int ret, i;

	memset(lay, 0, sizeof(*lay));
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = p->type < 0 ? ~0u : (u32)p->type;
	if (opts && opts->freq) {
		a->freq = 1;
		a->sample_freq = opts->freq;
	} else {
		ret = ibs__period(opts ? opts->period : 0, p->caps, &period, err, len);
		if (ret)
			return ret;
		a->sample_period = period;
	}
	if (p->cnt_ctl_field >= 0)
		*config_field(a, p->cnt_ctl_field) |= 1ULL << p->cnt_ctl_bit;
	/* no exclude_* bit unless the kernel filters in software (swfilt) */
	if (p->swfilt_field >= 0) {
		*config_field(a, p->swfilt_field) |= 1ULL << p->swfilt_bit;
		a->exclude_kernel = 1;
		a->exclude_hv = 1;
	}
	a->sample_type = IBS_SAMPLE_TYPE;
	a->disabled = 1;
	a->wakeup_events = 32;
	lay->nattrs = 1;
	lay->role[0] = LP_ATTR_SAMPLE;
	lay->leader[0] = -1;
	lay->kind[0] = LP_ACCESS_NONE;	/* loads and stores, decode tells */
	snprintf(lay->name[0], sizeof(lay->name[0]), "ibs_op%s",
		 p->cnt_ctl_field >= 0 ? " (dispatched ops)" : " (cycles)");
	snprintf(lay->pmu[0], sizeof(lay->pmu[0]), "ibs_op");
	np += snprintf(lay->note + np, sizeof(lay->note) - np, "IBS caps 0x%x%s", p->caps,
		       p->swfilt_field >= 0 ? "; swfilt: kernel-mode ops filtered" :
		       "; no swfilt: no exclude bits, kernel ops are dropped by decode");
	if (p->type < 0 && np < sizeof(lay->note))
		np += snprintf(lay->note + np, sizeof(lay->note) - np, "; ibs_op type is "
			       "dynamic: /sys/bus/event_source/devices/ibs_op/type");

	if (opts && opts->counters) {
		static const char *const evs[2] = { "LS_DISPATCH:LD_DISPATCH",
						    "LS_DISPATCH:STORE_DISPATCH" };
		static const u64 raw[2] = { 0x129, 0x229 };	/* PMCx029 umask 1, 2 */
		int use_pfm = p->pfm[0] != '\0';

		for (i = 0; i < 2; i++) {
			struct perf_event_attr *c = &attrs[1 + i], e;

			memset(c, 0, sizeof(*c));
			c->size = sizeof(*c);
			c->type = PERF_TYPE_RAW;
			c->config = raw[i];
			if (use_pfm) {
				memset(&e, 0, sizeof(e));
				if (x86_pfm__encode_on(p->forced ? p->pfm : NULL, evs[i],
							&e) == 0 && e.config != raw[i] &&
				    np < sizeof(lay->note))
					np += snprintf(lay->note + np, sizeof(lay->note) - np,
						       "; libpfm4 encodes %s as 0x%llx, using 0x%llx",
						       evs[i], (unsigned long long)e.config,
						       (unsigned long long)raw[i]);
			}
			c->exclude_kernel = 1;
			c->exclude_hv = 1;
			c->disabled = 1;
			c->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
					 PERF_FORMAT_TOTAL_TIME_RUNNING;
			lay->role[1 + i] = LP_ATTR_COUNT;
			lay->leader[1 + i] = 1;
			lay->kind[1 + i] = i ? LP_ACCESS_STORE : LP_ACCESS_LOAD;
			snprintf(lay->name[1 + i], sizeof(lay->name[1 + i]), "%s", evs[i]);
			lay->name[1 + i][11] = '.';
			snprintf(lay->pmu[1 + i], sizeof(lay->pmu[1 + i]), "cpu");
		}
		lay->nattrs = 3;
	}
	return 0;
}

/* ---- this machine ---------------------------------------------------------- */

/* "caps: name=value ..." from <pmu>/caps/, empty if none. */
static void read_caps(const char *pmu, char *buf, size_t len)
{
	char path[512], val[64];
	struct dirent *de;
	size_t n = 0;
	DIR *dir;

	buf[0] = '\0';
	snprintf(path, sizeof(path), IBS_DIR "/%s/caps", pmu);
	dir = opendir(path);
	if (!dir)
		return;
	while ((de = readdir(dir)) && n < len) {
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), IBS_DIR "/%s/caps/%s", pmu, de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (!fgets(val, sizeof(val), f))
			val[0] = '\0';
		fclose(f);
		val[strcspn(val, "\n")] = '\0';
		n += snprintf(buf + n, len - n, "%s%s=%s", n ? " " : "caps: ",
			      de->d_name, val);
	}
	closedir(dir);
}

static int read_format(const char *name, int *field, int *bit)
{
	char path[256], val[64];
	FILE *f;
	int ret = -ENOENT;

	*field = *bit = -1;
	snprintf(path, sizeof(path), IBS_DIR "/ibs_op/format/%s", name);
	f = fopen(path, "re");
	if (!f)
		return -ENOENT;
	if (fgets(val, sizeof(val), f))
		ret = ibs__parse_format(val, field, bit);
	fclose(f);
	if (ret)
		*field = *bit = -1;
	return ret;
}

/* CPUID Fn8000_001B_EAX with bit 0 set, as the kernel reports ibs_caps. */
static u32 cpuid_caps(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned int a, b, c, d;

	if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x8000001b)
		return IBS_CAPS_AVAIL;
	__cpuid(0x8000001b, a, b, c, d);
	return a | IBS_CAPS_AVAIL;
#else
	return 0;
#endif
}

/* No IBS on this machine: why. */
static void no_ibs_msg(int fetch, char *buf, size_t len)
{
	struct lp_cpu_info ci;

	cpu__read(&ci);
	if (fetch >= 0)
		snprintf(buf, len, "only ibs_fetch (type %d) in sysfs; memory sampling "
			 "needs ibs_op", fetch);
	else if (!cpu__is_amd(&ci))
		snprintf(buf, len, "no ibs_op/ibs_fetch PMU in sysfs: IBS is AMD only "
			 "(this is %s)", ci.vendor);
	else
		snprintf(buf, len, "no ibs_op/ibs_fetch PMU in sysfs: %s", ci.hypervisor ?
			 "this VM does not expose IBS" : "the kernel does not expose IBS");
}

static int machine_pmu(struct ibs_pmu *p, char *err, size_t len)
{
	struct lp_cpu_info ci;
	int ret;

	memset(p, 0, sizeof(*p));
	p->type = perf__pmu_type("ibs_op");
	if (p->type < 0) {
		no_ibs_msg(perf__pmu_type("ibs_fetch"), err, len);
		return -ENODEV;
	}
	ret = ibs__kernel_check(perf__kernel_release(), err, len);
	if (ret)
		return ret;
	p->caps = cpuid_caps();
	read_format("cnt_ctl", &p->cnt_ctl_field, &p->cnt_ctl_bit);
	read_format("swfilt", &p->swfilt_field, &p->swfilt_bit);
	cpu__read(&ci);
	if (strcmp(ci.pfm_pmu, "none"))
		snprintf(p->pfm, sizeof(p->pfm), "%.*s", (int)strcspn(ci.pfm_pmu, ","),
			 ci.pfm_pmu);
	return 0;
}

/* A libpfm4 AMD PMU name: IBS as on that family, caps assumed. */
static int forced_pmu(const char *name, struct ibs_pmu *p, char *err, size_t len)
{
	memset(p, 0, sizeof(*p));
	if (strncmp(name, "amd64_fam1", 10) || !strcmp(name, "amd64_fam11h_turion")) {
		snprintf(err, len, "'%s' is not an AMD PMU with IBS (libpfm4 names such as "
			 "amd64_fam17h_zen2, amd64_fam19h_zen3, amd64_fam19h_zen4)", name);
		return -ENOENT;
	}
	p->type = -1;
	p->caps = IBS_CAPS_AVAIL | 0x1e | IBS_CAPS_OPCNT;
	if (!strncmp(name, "amd64_fam17h", 12) || !strncmp(name, "amd64_fam19h", 12))
		p->caps |= IBS_CAPS_BRNTRGT | IBS_CAPS_OPCNTEXT | IBS_CAPS_RIPINVALIDCHK;
	if (!strcmp(name, "amd64_fam19h_zen4"))
		p->caps |= IBS_CAPS_OPDATA4 | IBS_CAPS_ZEN4;
	p->cnt_ctl_field = 0;
	p->cnt_ctl_bit = IBS_OP_CNT_CTL_BIT;
	p->swfilt_field = p->swfilt_bit = -1;
	if (x86_pfm__known(name))
		snprintf(p->pfm, sizeof(p->pfm), "%s", name);
	p->forced = 1;
	return 0;
}

static int ibs_setup_layout(const char *pfm_pmu, const struct lp_sampling_opts *opts,
			    struct perf_event_attr *attrs, struct lp_attr_layout *lay,
			    char *err, size_t len)
{
	struct ibs_pmu p;
	int ret;

	memset(lay, 0, sizeof(*lay));
	ret = pfm_pmu ? forced_pmu(pfm_pmu, &p, err, len) : machine_pmu(&p, err, len);
	if (ret)
		return ret;
	ret = ibs__build(&p, opts, attrs, lay, err, len);
	if (!ret && pfm_pmu) {
		size_t n = strlen(lay->note);

		snprintf(lay->note + n, sizeof(lay->note) - n, "; caps assumed for %s, "
			 "cnt_ctl=config:19, no swfilt", pfm_pmu);
	}
	return ret;
}

static int ibs_setup(const struct lp_sampling_opts *opts, struct perf_event_attr *attrs,
		     int *nattrs)
{
	return lp_facility__setup_by_layout(&lp_facility_ibs, opts, attrs, nattrs);
}

static int ibs_probe(struct lp_probe *res)
{
	struct perf_event_attr attrs[LP_MAX_FACILITY_ATTRS];
	struct lp_sampling_opts opts = { 0 };
	struct lp_attr_layout lay;
	int fd, n;
	char caps[96];

	memset(res, 0, sizeof(*res));
	if (ibs_setup_layout(NULL, &opts, attrs, &lay, res->reason, sizeof(res->reason))) {
		/* name what is there when the kernel is the problem */
		if (perf__pmu_type("ibs_op") >= 0) {
			char why[sizeof(res->reason)];

			memcpy(why, res->reason, sizeof(why));
			res->reason[0] = '\0';
			snprintf(res->reason, sizeof(res->reason), "ibs_op (type %d) present, "
				 "but %.200s", perf__pmu_type("ibs_op"), why);
		}
		return 0;
	}
	fd = perf__open(&attrs[0], 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		n = snprintf(res->reason, sizeof(res->reason), "ibs_op (type %u) present, but ",
			     attrs[0].type);
		perf__strerror(fd, &attrs[0], "ibs", res->reason + n, sizeof(res->reason) - n);
		return 0;
	}
	close(fd);
	res->usable = 1;
	read_caps("ibs_op", caps, sizeof(caps));
	n = snprintf(res->reason, sizeof(res->reason), "ibs_op (type %u) opens per thread, "
		     "period %llu ops", attrs[0].type,
		     (unsigned long long)attrs[0].sample_period);
	if (caps[0])
		snprintf(res->reason + n, sizeof(res->reason) - n, "; %s", caps);
	return 0;
}

static int ibs_decode(struct lp_decode_ctx *ctx, const struct lp_perf_sample *raw,
		      struct lp_sample *out)
{
	const struct perf_event_attr *attr = ctx ? ctx->attr : NULL;
	struct ibs_raw r;
	u64 d3, w;

	memset(out, 0, sizeof(*out));
	out->time = raw->time;
	out->ip = raw->ip;
	out->pid = raw->pid;
	out->tid = raw->tid;
	out->cpu = raw->cpu;
	if (raw->sample_type & PERF_SAMPLE_PERIOD)
		out->period = raw->period;
	else if (attr && !attr->freq)
		out->period = attr->sample_period;
	stats.ops++;
	if (!(raw->sample_type & PERF_SAMPLE_RAW) ||
	    ibs__parse_raw(raw->raw, raw->raw_size, &r)) {
		out->noaddr = LP_NOADDR_HW_INVALID;
		stats.reason[IBS_DISCARD_BAD_RAW]++;
		return 0;
	}
	d3 = r.reg[IBS_OP_DATA3];
	/* OP_RIP is the tagged op's own IP, unless the hardware says it is not */
	if ((r.caps & IBS_CAPS_RIPINVALIDCHK) && (r.reg[IBS_OP_DATA] & IBS_RIP_INVALID)) {
		out->ip = 0;
		stats.rip_invalid++;
	} else {
		out->ip = r.reg[IBS_OP_RIP];
	}
	if (!(d3 & (IBS_LD_OP | IBS_ST_OP))) {
		out->noaddr = LP_NOADDR_NOT_MEMORY;
		stats.reason[IBS_DISCARD_NOT_MEM]++;
		return 0;
	}
	out->data_src = ibs__data_src(&r);
	out->kind = d3 & IBS_LD_OP ? LP_ACCESS_LOAD : LP_ACCESS_STORE;
	if (d3 & IBS_DC_LOCKED_OP) {
		out->flags |= LP_SAMPLE_LOCKED;
		out->kind = LP_ACCESS_ATOMIC;
		stats.locked++;
	}
	if (d3 & IBS_DC_L1TLB_MISS) {
		out->flags |= LP_SAMPLE_TLB_MISS;
		stats.tlb_miss++;
	}
	w = (d3 >> IBS_WIDTH_SHIFT) & 0xf;
	out->size = w ? (u8)(1u << (w - 1)) : 0;
	if (d3 & IBS_DC_MISS)
		out->latency = (u32)((d3 >> IBS_MISS_LAT_SHIFT) & 0xffff);
	if ((raw->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
		out->flags |= LP_SAMPLE_KERNEL;
	if (!(d3 & IBS_DC_LIN_ADDR_VALID)) {
		out->noaddr = LP_NOADDR_HW_INVALID;
		stats.reason[IBS_DISCARD_NO_ADDR]++;
		return 0;
	}
	if ((out->flags & LP_SAMPLE_KERNEL) || (r.reg[IBS_DC_LINADDR] >> 47)) {
		out->flags |= LP_SAMPLE_KERNEL;
		out->noaddr = LP_NOADDR_KERNEL;
		stats.reason[IBS_DISCARD_KERNEL]++;
		return 0;
	}
	out->addr = r.reg[IBS_DC_LINADDR];
	stats.reason[IBS_KEPT]++;
	if (out->kind == LP_ACCESS_STORE)
		stats.stores++;
	else
		stats.loads++;
	return 0;
}

static int ibs_stats_str(char *buf, size_t len)
{
	size_t n;
	int i;

	n = snprintf(buf, len, "ibs: %llu ops sampled, %llu kept (%llu loads, %llu stores, "
		     "%llu locked, %llu DTLB misses, %llu with RIP invalid)",
		     (unsigned long long)stats.ops,
		     (unsigned long long)stats.reason[IBS_KEPT],
		     (unsigned long long)stats.loads, (unsigned long long)stats.stores,
		     (unsigned long long)stats.locked, (unsigned long long)stats.tlb_miss,
		     (unsigned long long)stats.rip_invalid);
	for (i = 1; i < IBS_DISCARD__MAX && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%llu %s", i == 1 ? "; discarded: " : ", ",
			      (unsigned long long)stats.reason[i], ibs_discard_names[i]);
	return n < len ? (int)n : (int)len - 1;
}

const struct lp_facility_ops lp_facility_ibs = {
	.name = "ibs",
	.desc = "AMD IBS: tagged ops with data address",
	.probe = ibs_probe,
	.setup = ibs_setup,
	.setup_layout = ibs_setup_layout,
	.decode = ibs_decode,
	.stats = ibs_stats_str,
	.default_period = IBS_DEFAULT_PERIOD,
	.period_unit = "events",
	.auto_order = 1,
};
LP_FACILITY(lp_facility_ibs);
