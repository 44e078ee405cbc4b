// SPDX-License-Identifier: GPL-2.0
/*
 * Intel PEBS facility (Documentation/facilities.md, "Intel PEBS"). The probe needs a core PMU in sysfs
 * and a precise memory event that really opens on this process; setup
 * programs loads and stores (and their counting group) per thread; decode
 * turns a sample with ADDR, WEIGHT and DATA_SRC into an lp_sample.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "arch/x86-intel/pebs.h"
#include "core/cpu.h"
#include "core/facility.h"
#include "core/perf-util.h"

static int pebs_setup_layout(const char *pfm_pmu, const struct lp_sampling_opts *opts,
			     struct perf_event_attr *attrs, struct lp_attr_layout *lay,
			     char *err, size_t len)
{
	struct pebs_pmu pmus[2];
	int n, ws_ok;

	memset(lay, 0, sizeof(*lay));
	n = pebs__pmus(pfm_pmu, pmus, ARRAY_SIZE(pmus), err, len);
	if (n < 0)
		return n;
	/* WEIGHT_STRUCT is Linux 5.12+; a forced PMU describes a current kernel */
	ws_ok = pfm_pmu ? 1 : perf__kernel_at_least(5, 12) == 1;
	return pebs__build(pmus, n, opts, ws_ok, attrs, lay, err, len);
}

static int pebs_setup(const struct lp_sampling_opts *opts, struct perf_event_attr *attrs,
		      int *nattrs)
{
	return lp_facility__setup_by_layout(&lp_facility_pebs, opts, attrs, nattrs);
}

static int pebs_probe(struct lp_probe *res)
{
	struct perf_event_attr attrs[LP_MAX_FACILITY_ATTRS], a;
	struct lp_sampling_opts opts = { 0 };
	struct lp_attr_layout lay;
	int ret, fd, n, i;

	memset(res, 0, sizeof(*res));
	ret = pebs_setup_layout(NULL, &opts, attrs, &lay, res->reason, sizeof(res->reason));
	if (ret)
		return 0;
	/* every sampling event must open on this thread, precise and with ADDR */
	for (i = 0; i < lay.nattrs; i++) {
		if (lay.role[i] != LP_ATTR_SAMPLE)
			continue;
		a = attrs[i];
		fd = perf__open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			n = snprintf(res->reason, sizeof(res->reason), "PMU '%s', %s: ",
				     lay.pmu[i], lay.name[i]);
			perf__strerror(fd, &a, "pebs", res->reason + n, sizeof(res->reason) - n);
			return 0;
		}
		close(fd);
	}
	res->usable = 1;
	n = snprintf(res->reason, sizeof(res->reason), "PMU '%s' (type %u):", lay.pmu[0],
		     attrs[0].type);
	for (i = 0; i < lay.nattrs && n < (int)sizeof(res->reason); i++)
		if (lay.role[i] == LP_ATTR_SAMPLE)
			n += snprintf(res->reason + n, sizeof(res->reason) - n, " %s%s (0x%llx)",
				      i ? "+ " : "", lay.name[i],
				      (unsigned long long)attrs[i].config);
	if (n < (int)sizeof(res->reason))
		snprintf(res->reason + n, sizeof(res->reason) - n,
			 " open with precise_ip=2 and data address");
	return 0;
}

/* Does @config (event | umask << 8) sample stores? (Documentation/facilities.md, "Intel PEBS") */
static int is_store_event(u64 config)
{
	switch (config & 0xffff) {
	case 0x82d0:	/* MEM_UOPS_RETIRED / MEM_INST_RETIRED.ALL_STORES */
	case 0x2cd:	/* MEM_TRANS_RETIRED.PRECISE_STORE / STORE_SAMPLE */
	case 0x6d0:	/* Gracemont MEM_UOPS_RETIRED.STORE_LATENCY */
		return 1;
	}
	return 0;
}

static int pebs_decode(struct lp_decode_ctx *ctx, const struct lp_perf_sample *raw,
		       struct lp_sample *out)
{
	const struct perf_event_attr *attr = ctx ? ctx->attr : NULL;
	int kind;

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
	if (raw->sample_type & PERF_SAMPLE_DATA_SRC)
		out->data_src = raw->data_src;
	if (raw->sample_type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		out->latency = raw->weight > 0xffffffffULL ? 0xffffffffu : (u32)raw->weight;

	/* the event says what was sampled; DATA_SRC's mem_op when unknown */
	kind = data_src__kind(out->data_src);
	if (attr && (attr->type == PERF_TYPE_RAW || attr->type >= PERF_TYPE_MAX))
		kind = is_store_event(attr->config) ? LP_ACCESS_STORE : LP_ACCESS_LOAD;
	out->flags = data_src__flags(out->data_src);
	if ((out->flags & LP_SAMPLE_LOCKED) && kind != LP_ACCESS_NONE)
		kind = LP_ACCESS_ATOMIC;	/* a locked op reads and writes */
	out->kind = kind;

	if ((raw->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
		out->flags |= LP_SAMPLE_KERNEL;
	if (!(raw->sample_type & PERF_SAMPLE_ADDR) || !raw->addr)
		out->noaddr = LP_NOADDR_HW_INVALID;	/* PEBS had no linear address */
	else if (out->flags & LP_SAMPLE_KERNEL)
		out->noaddr = LP_NOADDR_KERNEL;
	else
		out->addr = raw->addr;
	return 0;
}

const struct lp_facility_ops lp_facility_pebs = {
	.name = "pebs",
	.desc = "Intel PEBS: precise loads/stores with data address",
	.probe = pebs_probe,
	.setup = pebs_setup,
	.setup_layout = pebs_setup_layout,
	.decode = pebs_decode,
	.default_period = PEBS_DEFAULT_PERIOD,
	.period_unit = "events",
	.auto_order = 0,
};
LP_FACILITY(lp_facility_pebs);
