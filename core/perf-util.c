// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>

#include "core/perf-util.h"

#define PMU_DIR "/sys/bus/event_source/devices"

int perf__open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
	       unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);

	return fd < 0 ? -errno : (int)fd;
}

const char *perf__errno_name(int err)
{
	const char *name = strerrorname_np(err < 0 ? -err : err);

	return name ? name : "E?";
}

static int read_proc_int(const char *path, long long *v)
{
	char buf[64], *end;
	FILE *f = fopen(path, "re");

	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -ENODATA;
	}
	fclose(f);
	*v = strtoll(buf, &end, 10);
	return end == buf ? -EINVAL : 0;
}

int perf__paranoid(int *level)
{
	long long v;
	int ret = read_proc_int("/proc/sys/kernel/perf_event_paranoid", &v);

	if (!ret)
		*level = v;
	return ret;
}

const char *perf__kernel_release(void)
{
	static struct utsname u;

	if (!u.release[0] && uname(&u))
		return "unknown";
	return u.release;
}

int perf__parse_release(const char *release, int *major, int *minor)
{
	return sscanf(release, "%d.%d", major, minor) == 2 ? 0 : -EINVAL;
}

int perf__kernel_at_least(int major, int minor)
{
	int ma, mi;

	if (perf__parse_release(perf__kernel_release(), &ma, &mi))
		return -EINVAL;
	return ma > major || (ma == major && mi >= minor);
}

int perf__pmu_type(const char *name)
{
	char path[512];
	long long v;
	int ret;

	snprintf(path, sizeof(path), PMU_DIR "/%s/type", name);
	ret = read_proc_int(path, &v);
	return ret ? ret : (int)v;
}

int perf__pmu_name(u32 type, char *buf, size_t len)
{
	struct dirent *de;
	DIR *dir = opendir(PMU_DIR);
	int ret = -ENOENT;

	if (!dir)
		return -ENOENT;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		if (perf__pmu_type(de->d_name) == (int)type) {
			snprintf(buf, len, "%s", de->d_name);
			ret = 0;
			break;
		}
	}
	closedir(dir);
	return ret;
}

/* Append to a bounded buffer. */
struct sbuf {
	char *buf;
	size_t len, pos;
};

__attribute__((format(printf, 2, 3)))
static void sb_add(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (sb->pos >= sb->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(sb->buf + sb->pos, sb->len - sb->pos, fmt, ap);
	va_end(ap);
	if (n > 0)
		sb->pos += (size_t)n < sb->len - sb->pos ? (size_t)n : sb->len - sb->pos - 1;
}

static const char *bp_type_name(u32 t)
{
	switch (t) {
	case HW_BREAKPOINT_R: return "R";
	case HW_BREAKPOINT_W: return "W";
	case HW_BREAKPOINT_RW: return "RW";
	case HW_BREAKPOINT_X: return "X";
	default: return "?";
	}
}

static void describe_event(struct sbuf *sb, const struct perf_event_attr *a)
{
	static const char *const hw[] = {
		"cycles", "instructions", "cache-references", "cache-misses",
		"branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
		"stalled-cycles-backend", "ref-cycles",
	};
	static const char *const sw[] = {
		"cpu-clock", "task-clock", "page-faults", "context-switches",
		"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
		"emulation-faults", "dummy", "bpf-output", "cgroup-switches",
	};
	char pmu[64];

	switch (a->type) {
	case PERF_TYPE_HARDWARE:
		if (a->config < ARRAY_SIZE(hw))
			sb_add(sb, "hardware event %s", hw[a->config]);
		else
			sb_add(sb, "hardware event 0x%llx", (unsigned long long)a->config);
		break;
	case PERF_TYPE_SOFTWARE:
		if (a->config < ARRAY_SIZE(sw))
			sb_add(sb, "software event %s", sw[a->config]);
		else
			sb_add(sb, "software event %llu", (unsigned long long)a->config);
		break;
	case PERF_TYPE_TRACEPOINT:
		sb_add(sb, "tracepoint %llu", (unsigned long long)a->config);
		break;
	case PERF_TYPE_HW_CACHE:
		sb_add(sb, "hardware cache event 0x%llx", (unsigned long long)a->config);
		break;
	case PERF_TYPE_RAW:
		sb_add(sb, "raw event 0x%llx", (unsigned long long)a->config);
		break;
	case PERF_TYPE_BREAKPOINT:
		sb_add(sb, "hardware breakpoint %s len %llu at 0x%llx",
		       bp_type_name(a->bp_type), (unsigned long long)a->bp_len,
		       (unsigned long long)a->bp_addr);
		break;
	default:
		if (perf__pmu_name(a->type, pmu, sizeof(pmu)))
			snprintf(pmu, sizeof(pmu), "?");
		sb_add(sb, "PMU %s (type %u) event 0x%llx", pmu, a->type,
		       (unsigned long long)a->config);
		break;
	}
	if (a->precise_ip)
		sb_add(sb, " precise_ip=%u", a->precise_ip);
	if (a->sigtrap)
		sb_add(sb, " sigtrap");
}

static int privileged(void)
{
	char line[256];
	unsigned long long eff = 0;
	FILE *f;

	if (geteuid() == 0)
		return 1;
	f = fopen("/proc/self/status", "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	/* CAP_PERFMON (38), CAP_SYS_ADMIN (21) */
	return (eff >> 38 & 1) || (eff >> 21 & 1);
}

static void advise_access(struct sbuf *sb, const struct perf_event_attr *a)
{
	int level, need = a->exclude_kernel ? 2 : 1;

	if (perf__paranoid(&level)) {
		sb_add(sb, "cannot read /proc/sys/kernel/perf_event_paranoid; ");
		level = 99;
	} else {
		sb_add(sb, "kernel.perf_event_paranoid is %d; ", level);
	}
	if (privileged()) {
		sb_add(sb, "lociprof already runs privileged, so a security policy blocks "
		       "perf_event_open (container seccomp profile, SELinux/AppArmor, "
		       "kernel lockdown): allow the perf_event_open syscall and CAP_PERFMON, "
		       "e.g. docker run --cap-add PERFMON --security-opt seccomp=unconfined");
		return;
	}
	if (level > need) {
		sb_add(sb, "%s needs %d or lower: run 'sysctl kernel.perf_event_paranoid=%d' "
		       "as root, or run lociprof as root, or give it CAP_PERFMON "
		       "(Linux 5.8+: setcap cap_perfmon+ep lociprof)",
		       a->exclude_kernel ? "per-thread user-space events" :
		       "events that include kernel space (exclude_kernel=0)", need, need);
		return;
	}
	sb_add(sb, "the level allows this event, so the target is not yours to "
	       "monitor: perf needs ptrace access to it (same user, "
	       "kernel.yama.ptrace_scope <= 1), or run as root / with CAP_PERFMON");
}

/* perf_event_attr fields added after the first struct, with their kernels. */
static const struct {
	size_t end;
	const char *field;
	const char *since;
} late_fields[] = {
	{ 72, "config2", "2.6.39" },
	{ 80, "branch_sample_type", "3.4" },
	{ 96, "sample_regs_user/sample_stack_user", "3.7" },
	{ 104, "sample_regs_intr", "3.19" },
	{ 112, "aux_watermark", "4.1" },
	{ 120, "aux_sample_size", "5.5" },
	{ 128, "sig_data", "5.13" },
	{ 136, "config3", "6.3" },
};

static void advise_size(struct sbuf *sb, const struct perf_event_attr *a)
{
	const unsigned char *p = (const unsigned char *)a;
	size_t i, j, ksize = a->size;

	/* on E2BIG the kernel writes its own struct size into attr->size */
	if (!ksize || ksize >= sizeof(*a)) {
		sb_add(sb, "this kernel (%s) knows a %u-byte perf_event_attr and was "
		       "given a larger one with non-zero bytes beyond that: the kernel "
		       "is too old for the request, upgrade it", perf__kernel_release(),
		       a->size);
		return;
	}
	sb_add(sb, "this kernel (%s) knows a %zu-byte perf_event_attr, lociprof sets "
	       "fields beyond it:", perf__kernel_release(), ksize);
	for (i = 0; i < ARRAY_SIZE(late_fields); i++) {
		size_t start = i ? late_fields[i - 1].end : 64;

		if (late_fields[i].end <= ksize || start >= sizeof(*a))
			continue;
		for (j = start; j < late_fields[i].end && j < sizeof(*a); j++)
			if (p[j])
				break;
		if (j < late_fields[i].end && j < sizeof(*a))
			sb_add(sb, " %s (needs Linux %s+)", late_fields[i].field,
			       late_fields[i].since);
	}
	sb_add(sb, "; upgrade the kernel or run without the feature that needs it");
}

static void advise_inval(struct sbuf *sb, const struct perf_event_attr *a,
			 const char *facility)
{
	int new513 = perf__kernel_at_least(5, 13);
	long long max_rate;

	if (a->sigtrap && !a->remove_on_exec) {
		sb_add(sb, "attr.sigtrap requires attr.remove_on_exec=1 (a lociprof bug: "
		       "please report it)");
		return;
	}
	if ((a->sigtrap || a->remove_on_exec) && new513 == 0) {
		sb_add(sb, "%s needs Linux 5.13+, this kernel is %s: upgrade it, or use a "
		       "mode without synchronous stops", a->sigtrap ? "attr.sigtrap" :
		       "attr.remove_on_exec", perf__kernel_release());
		return;
	}
	if (a->type == PERF_TYPE_BREAKPOINT) {
		if (a->bp_type == HW_BREAKPOINT_R) {
			sb_add(sb, "x86 debug registers cannot watch reads alone: use RW");
			return;
		}
		if (a->bp_type != HW_BREAKPOINT_X && a->bp_len != 1 && a->bp_len != 2 &&
		    a->bp_len != 4 && a->bp_len != 8) {
			sb_add(sb, "watchpoint length %llu: x86 supports 1, 2, 4 or 8 bytes",
			       (unsigned long long)a->bp_len);
			return;
		}
		if (a->bp_len && a->bp_addr % a->bp_len) {
			sb_add(sb, "address 0x%llx is not aligned to its length %llu",
			       (unsigned long long)a->bp_addr, (unsigned long long)a->bp_len);
			return;
		}
	}
	if (a->freq && !read_proc_int("/proc/sys/kernel/perf_event_max_sample_rate",
				      &max_rate) && (long long)a->sample_freq > max_rate) {
		sb_add(sb, "sample frequency %llu Hz exceeds kernel.perf_event_max_sample_rate "
		       "(%lld): use a lower -F or raise the sysctl",
		       (unsigned long long)a->sample_freq, max_rate);
		return;
	}
	if ((a->sample_type & PERF_SAMPLE_REGS_USER) && (a->sample_regs_user & 0xf000)) {
		sb_add(sb, "sample_regs_user asks for DS/ES/FS/GS, which x86-64 cannot "
		       "sample (a lociprof bug: please report it)");
		return;
	}
	if (facility && !strcmp(facility, "ibs")) {
		sb_add(sb, "IBS rejected the attributes: per-thread IBS needs Linux 6.2+ "
		       "(this kernel is %s), IBS takes no exclude_user/exclude_kernel "
		       "without swfilt, and its period must be a multiple of 16",
		       perf__kernel_release());
		return;
	}
	if (a->precise_ip) {
		sb_add(sb, "precise_ip=%u is not supported for this event on this CPU: "
		       "it needs a PEBS-capable event", a->precise_ip);
		return;
	}
	if (a->sigtrap) {
		sb_add(sb, "attr.sigtrap (Linux 5.13+, this kernel is %s) was rejected "
		       "for this event", perf__kernel_release());
		return;
	}
	sb_add(sb, "the kernel (%s) rejected an attribute of this event: check the "
	       "period or frequency and the exclude_* bits", perf__kernel_release());
}

int perf__strerror(int err, const struct perf_event_attr *attr, const char *facility,
		   char *buf, size_t len)
{
	struct sbuf sb = { buf, len, 0 };
	static const struct perf_event_attr none;
	const struct perf_event_attr *a = attr ? attr : &none;
	int is_bp = attr && attr->type == PERF_TYPE_BREAKPOINT;
	struct rlimit rl;

	if (!len)
		return 0;
	buf[0] = '\0';
	if (err < 0)
		err = -err;
	if (facility)
		sb_add(&sb, "%s: ", facility);
	sb_add(&sb, "cannot open ");
	if (attr)
		describe_event(&sb, attr);
	else
		sb_add(&sb, "perf event");
	sb_add(&sb, ": %s (%s): ", strerror(err), perf__errno_name(err));

	switch (err) {
	case EACCES:
	case EPERM:
		advise_access(&sb, a);
		break;
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP:
		if (is_bp) {
			sb_add(&sb, "this machine exposes no hardware breakpoints (no usable "
			       "debug registers: some hypervisors and containers hide them), "
			       "so watchpoint-based analyses cannot run here");
		} else if (facility && !strcmp(facility, "ibs")) {
			sb_add(&sb, "no IBS here: it needs an AMD CPU whose ibs_op/ibs_fetch "
			       "PMUs are exposed (not in most VMs), and Linux 6.2+ per thread");
		} else if (err == EOPNOTSUPP) {
			sb_add(&sb, "the PMU cannot do what was asked (sampling, precise_ip, "
			       "an exclude_* bit or branch stacks); see 'lociprof list'");
		} else if (a->type == PERF_TYPE_SOFTWARE || a->type == PERF_TYPE_TRACEPOINT) {
			sb_add(&sb, "this kernel lacks the event (or the cpu is offline)");
		} else {
			sb_add(&sb, "the PMU or event is not available on this machine: no "
			       "hardware PMU is exposed (virtual machines often hide it: "
			       "enable the vPMU, e.g. QEMU -cpu host,pmu=on) or this CPU "
			       "lacks the event%s; 'lociprof list' shows what exists, "
			       "--sampler soft works without a PMU",
			       a->precise_ip ? " or cannot sample it precisely" : "");
		}
		break;
	case E2BIG:
		advise_size(&sb, a);
		break;
	case EINVAL:
		advise_inval(&sb, a, facility);
		break;
	case ENOSPC:
		if (is_bp)
			sb_add(&sb, "all debug registers of the thread are in use (x86 has 4 "
			       "per thread, shared with debuggers such as gdb): arm fewer "
			       "watchpoints, or detach the debugger");
		else
			sb_add(&sb, "no room for another event on this PMU: use fewer events");
		break;
	case EMFILE:
		if (getrlimit(RLIMIT_NOFILE, &rl))
			rl.rlim_cur = rl.rlim_max = 0;
		sb_add(&sb, "too many open files: every event is a file descriptor; raise "
		       "the limit with 'ulimit -n' (now %llu, hard limit %llu)",
		       (unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max);
		break;
	case ENFILE:
		sb_add(&sb, "the system ran out of file descriptors: raise fs.file-max");
		break;
	case ESRCH:
		sb_add(&sb, "the thread is gone: it exited before the event was attached");
		break;
	case EBUSY:
		sb_add(&sb, "the PMU is in exclusive use (another profiler, an exclusive "
		       "event or a hardware tracer): stop it and retry");
		break;
	case ENODATA:
		sb_add(&sb, "on Sapphire Rapids, Emerald Rapids and Alder/Raptor Lake "
		       "P-cores, load-latency sampling with DATA_SRC (0x1cd) must be in a "
		       "group led by mem-loads-aux (0x8203)");
		break;
	case EOVERFLOW:
		sb_add(&sb, "sample_max_stack exceeds kernel.perf_event_max_stack");
		break;
	case ENOMEM:
		sb_add(&sb, "the kernel is out of memory for perf events");
		break;
	case EINTR:
		sb_add(&sb, "interrupted: retry");
		break;
	default:
		sb_add(&sb, "unexpected error from perf_event_open (kernel %s)",
		       perf__kernel_release());
		break;
	}
	return sb.pos;
}

void perf__bp_attr(struct perf_event_attr *a, int type, u64 addr, int len)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_BREAKPOINT;
	a->bp_type = type;
	a->bp_addr = addr;
	a->bp_len = len;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}
