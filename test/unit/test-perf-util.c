// SPDX-License-Identifier: GPL-2.0
/*
 * perf__strerror: each errno maps to advice naming what failed and what to
 * do. Where the kernel can be made to fail for real (breakpoints, limits,
 * permissions), the errno comes from the kernel, not from the test.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>

#include "core/perf-util.h"
#include "core/tests.h"

static long watched[16] __attribute__((aligned(64)));

static void bp_attr(struct perf_event_attr *a, u64 addr, u64 len, u32 type)
{
	perf__bp_attr(a, (int)type, addr, (int)len);
	a->disabled = 1;
}

static void clock_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->sample_period = 1000000;
	a->exclude_kernel = 1;
	a->disabled = 1;
}

#define HAS(s) strstr(msg, s)

LP_TEST(test_perf_errno_names, "perf-util: errno names and release parsing")
{
	int ma, mi;

	TEST_ASSERT(!strcmp(perf__errno_name(-ENOSPC), "ENOSPC"), "%s", perf__errno_name(-ENOSPC));
	TEST_ASSERT(!strcmp(perf__errno_name(EACCES), "EACCES"), "EACCES");
	TEST_ASSERT(perf__parse_release("6.18.44-fc-v669", &ma, &mi) == 0 && ma == 6 && mi == 18,
		    "%d.%d", ma, mi);
	TEST_ASSERT(perf__parse_release("5.4", &ma, &mi) == 0 && ma == 5 && mi == 4, "5.4");
	TEST_ASSERT(perf__parse_release("junk", &ma, &mi) == -EINVAL, "junk");
	return TEST_OK;
}

LP_TEST(test_perf_strerror_debug_registers_full, "perf-util: ENOSPC on breakpoints: registers in use")
{
	struct perf_event_attr a;
	char msg[512];
	int i, fd = 0;

	for (i = 0; i < 16; i++) {
		bp_attr(&a, (u64)(unsigned long)&watched[i], 8, HW_BREAKPOINT_W);
		fd = perf__open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			break;
	}
	if (fd == -ENOENT || fd == -ENODEV)
		TEST_SKIP("no hardware breakpoints here");
	TEST_ASSERT(fd == -ENOSPC, "stopped after %d with %d", i, fd);
	perf__strerror(fd, &a, "watchpoint", msg, sizeof(msg));
	TEST_LOG("%.120s", msg);
	TEST_ASSERT(!strncmp(msg, "watchpoint: cannot open hardware breakpoint W len 8", 51),
		    "%.120s", msg);
	TEST_ASSERT(HAS("(ENOSPC)") && HAS("debug registers") && HAS("gdb"), "%.120s", msg);
	return TEST_OK;
}

LP_TEST(test_perf_strerror_bad_breakpoints, "perf-util: EINVAL breakpoints name the bad field")
{
	static const struct { u64 off, len; u32 type; const char *want; } cases[] = {
		{ 0, 3, HW_BREAKPOINT_W, "length 3" },
		{ 4, 8, HW_BREAKPOINT_W, "not aligned to its length 8" },
		{ 0, 8, HW_BREAKPOINT_R, "use RW" },
	};
	struct perf_event_attr a;
	char msg[512];
	size_t i;
	int fd;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		bp_attr(&a, (u64)(unsigned long)watched + cases[i].off, cases[i].len,
			cases[i].type);
		fd = perf__open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd == -ENOENT || fd == -ENODEV)
			TEST_SKIP("no hardware breakpoints here");
		TEST_ASSERT(fd == -EINVAL, "case %zu: kernel gave %d", i, fd);
		perf__strerror(fd, &a, NULL, msg, sizeof(msg));
		TEST_ASSERT(HAS("(EINVAL)") && HAS(cases[i].want), "case %zu: %.110s", i, msg);
	}
	return TEST_OK;
}

LP_TEST(test_perf_strerror_sigtrap, "perf-util: sigtrap errors name remove_on_exec / 5.13")
{
	struct perf_event_attr a;
	char msg[512];
	int fd;

	clock_attr(&a);
	a.sigtrap = 1;
	fd = perf__open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	TEST_ASSERT(fd == -EINVAL, "sigtrap without remove_on_exec gave %d", fd);
	perf__strerror(fd, &a, "soft", msg, sizeof(msg));
	TEST_ASSERT(HAS("remove_on_exec=1") && HAS("sigtrap"), "%.120s", msg);

	/* an E2BIG from a pre-5.13 kernel: it knows 120 bytes, sig_data is beyond */
	a.remove_on_exec = 1;
	a.sig_data = 42;
	a.size = 120;
	perf__strerror(E2BIG, &a, NULL, msg, sizeof(msg));
	TEST_ASSERT(HAS("120-byte") && HAS("sig_data (needs Linux 5.13+)"), "%.120s", msg);
	TEST_ASSERT(!HAS("aux_sample_size"), "names an unset field: %.120s", msg);
	return TEST_OK;
}

LP_TEST(test_perf_strerror_attr_too_big, "perf-util: E2BIG: kernel's attr size is reported")
{
	struct {
		struct perf_event_attr a;
		u64 extra[32];	/* far beyond any kernel's struct */
	} big;
	struct perf_event_attr *a = &big.a;
	char msg[512], want[64];
	int fd;

	memset(&big, 0, sizeof(big));
	clock_attr(a);
	a->size = sizeof(big);
	big.extra[31] = 1;	/* non-zero bytes the kernel does not know */
	fd = perf__open(a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	TEST_ASSERT(fd == -E2BIG, "open gave %d", fd);
	/* the kernel wrote back the size it knows */
	TEST_ASSERT(a->size >= PERF_ATTR_SIZE_VER7 && a->size < sizeof(big), "size %u", a->size);
	perf__strerror(fd, a, NULL, msg, sizeof(msg));
	snprintf(want, sizeof(want), "%u", a->size);
	TEST_ASSERT(HAS("(E2BIG)") && HAS(want) && HAS("kernel"), "%.120s", msg);
	return TEST_OK;
}

LP_TEST(test_perf_strerror_emfile, "perf-util: EMFILE says ulimit -n and the limit")
{
	struct perf_event_attr a;
	struct rlimit rl = { 8, 8 };
	char msg[512];
	int i, fd = 0;

	/* runs in a forked child: the lowered limit dies with it */
	TEST_ASSERT(setrlimit(RLIMIT_NOFILE, &rl) == 0, "setrlimit");
	clock_attr(&a);
	for (i = 0; i < 16 && fd >= 0; i++)
		fd = perf__open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	TEST_ASSERT(fd == -EMFILE, "gave %d", fd);
	perf__strerror(fd, &a, NULL, msg, sizeof(msg));
	TEST_ASSERT(HAS("software event cpu-clock") && HAS("ulimit -n") && HAS("now 8"),
		    "%.120s", msg);
	return TEST_OK;
}

LP_TEST(test_perf_strerror_esrch, "perf-util: ESRCH for a thread that is gone")
{
	struct perf_event_attr a;
	char msg[512];
	pid_t pid = fork();
	int fd;

	if (pid == 0)
		_exit(0);
	TEST_ASSERT(pid > 0 && waitpid(pid, NULL, 0) == pid, "fork/wait");
	clock_attr(&a);
	fd = perf__open(&a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	TEST_ASSERT(fd == -ESRCH, "gave %d", fd);
	perf__strerror(fd, &a, NULL, msg, sizeof(msg));
	TEST_ASSERT(HAS("(ESRCH)") && HAS("exited"), "%.120s", msg);
	return TEST_OK;
}

static int read_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = -100;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -100;
		fclose(f);
	}
	return v;
}

LP_TEST(test_perf_strerror_access, "perf-util: EACCES names paranoid level, fix, CAP_PERFMON")
{
	struct perf_event_attr a;
	int level = read_paranoid(), fd;
	char msg[512], want[64];

	TEST_ASSERT(level != -100, "cannot read perf_event_paranoid");
	if (geteuid() == 0) {
		/* root's view: the level cannot be the reason */
		clock_attr(&a);
		perf__strerror(EACCES, &a, NULL, msg, sizeof(msg));
		TEST_ASSERT(HAS("security policy") && HAS("CAP_PERFMON"), "%.120s", msg);
		/* become an unprivileged user (caps are dropped with uid 0) */
		TEST_ASSERT(setresgid(65534, 65534, 65534) == 0 &&
			    setresuid(65534, 65534, 65534) == 0, "setresuid: %s",
			    strerror(errno));
	}
	snprintf(want, sizeof(want), "perf_event_paranoid is %d;", level);

	/* kernel space needs level <= 1 (perf_event_open(2)) */
	clock_attr(&a);
	a.exclude_kernel = 0;
	fd = perf__open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (level >= 2)
		TEST_ASSERT(fd == -EACCES, "kernel allowed kernel sampling at level %d: %d",
			    level, fd);
	perf__strerror(EACCES, &a, NULL, msg, sizeof(msg));
	TEST_LOG("%.120s", msg);
	TEST_ASSERT(HAS(want), "'%.100s' lacks '%.20s'", msg, want);
	if (level > 1)
		TEST_ASSERT(HAS("needs 1 or lower") && HAS("sysctl kernel.perf_event_paranoid=1") &&
			    HAS("CAP_PERFMON"), "%.120s", msg);

	/* user-space only needs level <= 2 */
	a.exclude_kernel = 1;
	perf__strerror(-EPERM, &a, NULL, msg, sizeof(msg));
	TEST_ASSERT(HAS(want), "'%.100s' lacks '%.20s'", msg, want);
	if (level > 2)
		TEST_ASSERT(HAS("needs 2 or lower"), "%.120s", msg);
	else
		TEST_ASSERT(HAS("ptrace"), "%.120s", msg);
	return TEST_OK;
}

LP_TEST(test_perf_strerror_no_pmu, "perf-util: ENOENT: no PMU / no debug registers")
{
	struct perf_event_attr a;
	char msg[512];
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_RAW;
	a.config = 0x81d0;
	a.precise_ip = 2;
	a.sample_period = 10007;
	a.exclude_kernel = 1;
	fd = perf__open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (access("/sys/bus/event_source/devices/cpu", F_OK) &&
	    access("/sys/bus/event_source/devices/cpu_core", F_OK))
		TEST_ASSERT(fd == -ENOENT || fd == -ENODEV, "no cpu PMU in sysfs, open gave %d", fd);
	perf__strerror(ENOENT, &a, "pebs", msg, sizeof(msg));
	TEST_ASSERT(!strncmp(msg, "pebs: cannot open raw event 0x81d0 precise_ip=2:", 48), "%.120s", msg);
	TEST_ASSERT(HAS("no hardware PMU") && HAS("--sampler soft") && HAS("precisely"), "%.120s", msg);

	bp_attr(&a, 0x1000, 8, HW_BREAKPOINT_W);
	perf__strerror(ENODEV, &a, NULL, msg, sizeof(msg));
	TEST_ASSERT(HAS("no hardware breakpoints") && HAS("debug registers"), "%.120s", msg);

	memset(&a, 0, sizeof(a));
	a.type = 12345;
	perf__strerror(ENOENT, &a, "ibs", msg, sizeof(msg));
	TEST_ASSERT(HAS("PMU ? (type 12345)") && HAS("AMD"), "%.120s", msg);
	return TEST_OK;
}

LP_TEST(test_perf_strerror_dynamic_pmu_name, "perf-util: dynamic PMU types are named from sysfs")
{
	struct perf_event_attr a;
	char msg[512], want[128];
	FILE *f = fopen("/sys/bus/event_source/devices/uprobe/type", "r");
	unsigned int type;

	if (!f)
		TEST_SKIP("no uprobe PMU");
	TEST_ASSERT(fscanf(f, "%u", &type) == 1, "read type");
	fclose(f);
	memset(&a, 0, sizeof(a));
	a.type = type;
	a.config = 1;
	perf__strerror(EINVAL, &a, NULL, msg, sizeof(msg));
	snprintf(want, sizeof(want), "PMU uprobe (type %u) event 0x1", type);
	TEST_ASSERT(HAS(want), "'%.100s' lacks '%.20s'", msg, want);
	TEST_ASSERT(perf__pmu_type("uprobe") == (int)type, "pmu_type");
	return TEST_OK;
}

LP_TEST(test_perf_strerror_rest, "perf-util: EBUSY, ENODATA, unknown errno, truncation")
{
	struct perf_event_attr a;
	char msg[512], tiny[16];
	struct utsname u;
	int n;

	clock_attr(&a);
	perf__strerror(EBUSY, &a, NULL, msg, sizeof(msg));
	TEST_ASSERT(HAS("exclusive"), "%.120s", msg);
	a.type = PERF_TYPE_RAW;
	a.config = 0x1cd;
	perf__strerror(ENODATA, &a, "pebs", msg, sizeof(msg));
	TEST_ASSERT(HAS("mem-loads-aux (0x8203)") && HAS("Sapphire Rapids"), "%.120s", msg);
	uname(&u);
	perf__strerror(EXDEV, &a, NULL, msg, sizeof(msg));
	TEST_ASSERT(HAS("unexpected") && HAS(u.release), "%.120s", msg);
	n = perf__strerror(EBUSY, &a, NULL, tiny, sizeof(tiny));
	TEST_ASSERT(n == (int)strlen(tiny) && n == 15, "n=%d '%s'", n, tiny);
	return TEST_OK;
}
