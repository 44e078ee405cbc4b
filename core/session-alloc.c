// SPDX-License-Identifier: GPL-2.0
/*
 * Heap allocations without an agent: uprobes and uretprobes (the 'uprobe'
 * PMU) on the allocator of the program, opened on each traced thread into
 * its ring like the sampling events. Entry probes sample the arguments
 * (rdi, rsi), return probes the result (rax) and the user call chain (frame
 * pointers, complete at the return: the caller's frame is back in rbp;
 * where they are missing, a DWARF unwind of a stack copy, core/unwind.c).
 * Entries and returns are paired per thread into LP_EV_ALLOC / LP_EV_FREE.
 */
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <limits.h>

#include "core/session-internal.h"
#include "core/unwind.h"

#include <capstone/capstone.h>

/*
 * The cost budget (--objects-budget PCT): every probe hit is a trap,
 * whatever is kept of it (measured here: 7-10 us alone on an instruction
 * the kernel emulates, 28-31 us on one it single-steps, about 3 times
 * that beside a sampling event; a malloc/free pair 3 hits), so a size
 * threshold or a sampled record would save nothing. What bounds the cost
 * is the time the probes are in place: they are silenced (text_toggle)
 * when hits x the cost of one exceed BUDGET_START_NS + PCT% of
 * the time since setup, and armed again once the budget has grown by
 * BUDGET_WINDOW_NS. Allocations are thus tracked
 * in windows, all of them in each (the program's first ones among them).
 */
#define BUDGET_START_NS 5000000ull	/* what the first window may cost */
/*
 * Reopen when this much is available: writing the int3s back is cheap, so
 * windows are short and frequent (2 ms of traps, every 20 ms at 10%), and
 * a burst of allocations in a later phase falls in one more often; where
 * the probes had to be closed, reopening costs the kernel a probe release
 * each, so the windows are 10 times longer.
 */
#define BUDGET_WINDOW_NS 2000000ull
#define BUDGET_WINDOW_CLOSED_NS 20000000ull
/*
 * The cost of a hit is measured twice. At setup (calibrate()): CALIB_CALLS
 * calls (2 hits each) of a function of lociprof's own, a short burst of
 * traps (35-47 us each against 58-64 us for 1000 of them), before the
 * program runs and lociprof reads records beside it on the other CPU: off
 * either way (13-16 us at setup against 35 us in malloc-rate at load 8,
 * 20-26 against 11-19 at load 2). Then from the program's hits (burst()):
 * the wall time per hit of runs of BURST_HITS consecutive hits of a
 * thread, the program's work between them included; a program that
 * allocates now and then has no dense run, so what is above BURST_CAP x
 * the setup's figure is taken for that work, and without a dense run the
 * setup's figure stands.
 */
#define CALIB_CALLS 32
#define BURST_HITS 32
#define BURST_CAP 4
#define CALIB_RING_PAGES 128		/* their records' ring: 64 stack copies */
/* what the DWARF unwinder starts from: ip, sp and the callee-saved ones */
#define UNWIND_REGS (1ull << LP_REG_IP | 1ull << LP_REG_SP | 1ull << LP_REG_BP | \
		     1ull << LP_REG_BX | 1ull << LP_REG_R12 | 1ull << LP_REG_R13 | \
		     1ull << LP_REG_R14 | 1ull << LP_REG_R15)
#define BUDGET_DRAIN_MS 2		/* drain interval while the probes trap */
#define ALLOC_WAKEUP 32			/* records of a probe that wake lociprof */

/* What one probe reads (Documentation/architecture.md: no agent, no stop). */
struct probe_def {
	const char *sym;
	u8 fn;		/* enum lp_alloc_fn */
	u8 ret;		/* uretprobe */
	u8 cxx;		/* in libstdc++, when the program calls operator new */
	u8 opt;		/* only if the executable calls it (or is the allocator) */
};

static const struct probe_def probe_defs[] = {
	{ "malloc", LP_ALLOC_MALLOC, 0 },
	{ "malloc", LP_ALLOC_MALLOC, 1 },
	{ "calloc", LP_ALLOC_CALLOC, 0 },
	{ "calloc", LP_ALLOC_CALLOC, 1 },
	{ "realloc", LP_ALLOC_REALLOC, 0 },
	{ "realloc", LP_ALLOC_REALLOC, 1 },
	/*
	 * Rarer ones, only when the executable imports them (a library's
	 * calls are missed): every probe event is opened on each traced
	 * thread and costs the kernel 45-220 ms to remove (sess_alloc_bury).
	 * glibc: aligned_alloc is memalign (one address, probed once).
	 */
	{ "aligned_alloc", LP_ALLOC_ALIGNED, 0, 0, 1 },
	{ "aligned_alloc", LP_ALLOC_ALIGNED, 1, 0, 1 },
	{ "memalign", LP_ALLOC_ALIGNED, 0, 0, 1 },
	{ "memalign", LP_ALLOC_ALIGNED, 1, 0, 1 },
	{ "posix_memalign", LP_ALLOC_POSIX_MEMALIGN, 0, 0, 1 },
	{ "posix_memalign", LP_ALLOC_POSIX_MEMALIGN, 1, 0, 1 },
	{ "valloc", LP_ALLOC_VALLOC, 0, 0, 1 },
	{ "valloc", LP_ALLOC_VALLOC, 1, 0, 1 },
	{ "free", LP_ALLOC_FREE, 0 },
	{ "mmap", LP_ALLOC_MMAP, 0 },
	{ "mmap", LP_ALLOC_MMAP, 1 },
	{ "munmap", LP_ALLOC_MUNMAP, 0 },
	/*
	 * libstdc++'s operator new calls malloc (aligned new: aligned_alloc)
	 * from a frame without a frame pointer: the call path of malloc's
	 * return skips the program's new. Probed too, the block is reported
	 * again at new's return with the right path (objects.c keeps the later).
	 */
	{ "_Znwm", LP_ALLOC_NEW, 0, 1, 1 },
	{ "_Znwm", LP_ALLOC_NEW, 1, 1, 1 },
	{ "_Znam", LP_ALLOC_NEW, 0, 1, 1 },
	{ "_Znam", LP_ALLOC_NEW, 1, 1, 1 },
	{ "_ZnwmSt11align_val_t", LP_ALLOC_NEW, 0, 1, 1 },
	{ "_ZnwmSt11align_val_t", LP_ALLOC_NEW, 1, 1, 1 },
	{ "_ZnamSt11align_val_t", LP_ALLOC_NEW, 0, 1, 1 },
	{ "_ZnamSt11align_val_t", LP_ALLOC_NEW, 1, 1, 1 },
};

/*
 * posix_memalign returns its block through *memptr, usually a local of
 * the caller: its return probe copies this much of the stack above the
 * caller's sp (a memptr elsewhere is read from /proc/PID/mem instead).
 */
#define MEMPTR_STACK 512

/* Where a dynamically linked program's libc is when it is not mapped yet. */
static const char *const libc_dirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
	"/lib", "/usr/lib",
};

static int retprobe_bit(void)
{
	char buf[64];
	int bit = 0;
	FILE *f = fopen("/sys/bus/event_source/devices/uprobe/format/retprobe", "re");

	if (f) {
		if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "config:%d", &bit) != 1)
			bit = 0;
		fclose(f);
	}
	return bit;
}

/* The library of process @pid whose file name starts with @base ("libc."). */
static int mapped_lib(pid_t pid, const char *base, char *path, size_t len)
{
	char line[PATH_MAX + 128];
	int err = -ENOENT;
	FILE *f;

	snprintf(line, sizeof(line), "/proc/%d/maps", pid);
	f = fopen(line, "re");
	if (!f)
		return -errno;
	while (err && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');

		if (!p)
			continue;
		p[strcspn(p, "\n")] = 0;
		if (!strncmp(strrchr(p, '/') + 1, base, strlen(base))) {
			snprintf(path, len, "%s", p);
			err = 0;
		}
	}
	fclose(f);
	return err;
}

/* A program stopped at its exec: ld.so has not mapped @name yet. */
static int lib_file(const char *name, char *path, size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(libc_dirs); i++) {
		snprintf(path, len, "%s/%s", libc_dirs[i], name);
		if (access(path, R_OK) == 0)
			return 0;
	}
	return -ENOENT;
}

/* The executable of @pid into @exe. 0 or -ENOENT. */
static int exe_path(pid_t pid, char *exe, size_t len)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", pid);
	n = readlink(link, exe, len - 1);
	if (n <= 0)
		return -ENOENT;
	exe[n] = 0;
	return 0;
}

/* The file whose allocator the program calls: its own (static), else its libc. */
static int find_allocator(pid_t pid, char *path, size_t len)
{
	char exe[PATH_MAX];
	u64 off;

	if (!exe_path(pid, exe, sizeof(exe)) &&
	    symbols__func_file_offset(exe, "malloc", &off) == 0) {
		snprintf(path, len, "%s", exe);
		return 0;
	}
	/* attached: the libc it maps ("libc.so.6", or "libc-2.31.so") */
	if (!mapped_lib(pid, "libc.so", path, len) || !mapped_lib(pid, "libc-", path, len))
		return 0;
	return lib_file("libc.so.6", path, len);
}

/*
 * libstdc++: the one the program maps, else the one ld.so would map. Its
 * operator new is probed where the executable calls it (probe_def.opt);
 * a library calling new for it is not looked at. 0 or -ENOENT.
 */
static int find_cxx(pid_t pid, char *path, size_t len)
{
	if (!mapped_lib(pid, "libstdc++.so", path, len))
		return 0;
	return lib_file("libstdc++.so.6", path, len);
}

/*
 * Where an entry-only probe of a function traps cheapest: the kernel
 * emulates push and nop, and single-steps anything else out of line,
 * which costs a second trap (measured: a probe on push 10 us, on nop 7,
 * on mov/pop/lea 28-31). glibc's free starts 'test %rdi,%rdi; je' (the
 * NULL check: nothing to track there) before its first push. @off moves to
 * the first push or nop reached from the entry through instructions that
 * write no register and branch only on that check; else it stays.
 */
static void cheap_entry(const char *path, u64 *off)
{
	u8 code[64];
	const u8 *p = code;
	size_t len = 0;
	u64 addr = *off;
	int fd, null_check = 0;
	csh h;
	cs_insn *in;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (pread(fd, code, sizeof(code), (off_t)*off) > 0)
		len = sizeof(code);
	close(fd);
	if (!len || cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return;
	in = cs_malloc(h);
	while (in && cs_disasm_iter(h, &p, &len, &addr, in)) {
		if (in->id == X86_INS_PUSH || in->id == X86_INS_NOP) {
			*off = in->address;
			break;
		}
		if (in->id == X86_INS_ENDBR64)
			continue;
		if (in->id == X86_INS_TEST && !strcmp(in->op_str, "rdi, rdi")) {
			null_check = 1;
			continue;
		}
		if (!(in->id == X86_INS_JE && null_check))
			break;
	}
	if (in)
		cs_free(in, 1);
	cs_close(&h);
}

/* The byte at @off of @path, or 0xcc (then never written back) if unreadable. */
static u8 file_byte(const char *path, u64 off)
{
	u8 b = 0xcc;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (pread(fd, &b, 1, (off_t)off) != 1)
			b = 0xcc;
		close(fd);
	}
	return b;
}

void sess_alloc_free(struct lp_session *s)
{
	if (s->alloc && s->alloc->grave_fd >= 0)
		close(s->alloc->grave_fd);
	if (s->alloc)
		unwind__delete(s->alloc->unwinder);
	free(s->alloc);
	s->alloc = NULL;
}

static void grave_add(struct lp_session *s, int fd);

/*
 * What the calibration probes trap on: like malloc, a push first (the
 * kernel emulates it; an instruction it single-steps would cost 3 times
 * as much) with the return probe at the same address.
 */
int sess_alloc_calib_target(int x);
__asm__(".text\n"
	".globl sess_alloc_calib_target\n"
	".type sess_alloc_calib_target, @function\n"
	"sess_alloc_calib_target:\n"
	"\tpush %rbx\n"
	"\tlea 1(%rdi), %eax\n"
	"\tpop %rbx\n"
	"\tret\n"
	".size sess_alloc_calib_target, . - sess_alloc_calib_target\n");

/*
 * The file and file offset of lociprof's own code at @addr, from where it
 * is mapped (no symbol table: that of the static binary took 6-9 ms to
 * read, and a stripped one has none). 0 or -ENOENT.
 */
static int self_file_offset(u64 addr, char *path, size_t len, u64 *off)
{
	char line[PATH_MAX + 128];
	unsigned long long start, end, pgoff;
	int err = -ENOENT;
	FILE *f = fopen("/proc/self/maps", "re");

	if (!f)
		return -errno;
	while (err && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');

		if (!p || sscanf(line, "%llx-%llx %*s %llx", &start, &end, &pgoff) != 3 ||
		    addr < start || addr >= end)
			continue;
		p[strcspn(p, "\n")] = 0;
		snprintf(path, len, "%s", p);
		*off = addr - start + pgoff;
		err = 0;
	}
	fclose(f);
	return err;
}

/*
 * The cost of one probe hit on this machine, as malloc's probes cost it:
 * an entry and a return probe with malloc's attributes (registers, call
 * chain, stack copy) on a function of lociprof itself, into a ring of
 * their own, CALIB_CALLS calls (two hits each) less the calls alone. The
 * ns of one hit, or 0 if it could not be measured.
 */
static u64 calibrate(struct lp_session *s, const struct allocprobes *ap)
{
	const struct perf_event_attr *tmpl[2] = { NULL, NULL };
	struct perf_event_attr at;
	char exe[PATH_MAX];
	u64 off = 0, t0, t1, t2, t3, hits = 0;
	int fd[2] = { -1, -1 }, i, x = 0;
	size_t len = (size_t)(1 + CALIB_RING_PAGES) * sysconf(_SC_PAGESIZE);
	size_t small = (size_t)(1 + 8) * sysconf(_SC_PAGESIZE);
	void *ring = MAP_FAILED, *sring = MAP_FAILED;
	int sfd = -1;
	u64 ns = 0;

	for (i = 0; i < ap->n; i++)
		if (ap->fn[i] == LP_ALLOC_MALLOC)
			tmpl[ap->ret[i]] = &ap->attrs[i];
	if (!tmpl[0] || !tmpl[1] ||
	    self_file_offset((u64)(uintptr_t)sess_alloc_calib_target, exe, sizeof(exe), &off))
		return 0;
	/*
	 * The program's own sampling event makes each trap dearer (measured:
	 * an emulated probe 6.6 us alone, 22-28 us with a cpu-clock sampling
	 * event every 100 us): the same one on lociprof while it measures.
	 */
	if (s->nattrs) {
		at = s->attrs[0];
		at.sigtrap = 0;
		at.remove_on_exec = 0;
		at.disabled = 0;
		at.enable_on_exec = 0;
		at.inherit = 0;
		sfd = perf__open(&at, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (sfd >= 0)
			sring = mmap(NULL, small, PROT_READ | PROT_WRITE, MAP_SHARED, sfd, 0);
	}
	t0 = sess_now_ns();	/* the calls alone */
	for (i = 0; i < CALIB_CALLS; i++)
		x = sess_alloc_calib_target(x);
	t1 = sess_now_ns();
	for (i = 0; i < 2; i++) {
		at = *tmpl[i];
		at.config1 = (u64)(uintptr_t)exe;
		at.config2 = off;
		fd[i] = perf__open(&at, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd[i] < 0)
			goto out;
	}
	ring = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd[0], 0);
	if (ring == MAP_FAILED) {	/* locked memory: a full ring drops, cheaper */
		len = small;
		ring = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd[0], 0);
	}
	if (ring == MAP_FAILED || ioctl(fd[1], PERF_EVENT_IOC_SET_OUTPUT, fd[0]) < 0)
		goto out;
	t2 = sess_now_ns();
	for (i = 0; i < CALIB_CALLS; i++)
		x = sess_alloc_calib_target(x);
	t3 = sess_now_ns();
	if (read(fd[0], &hits, sizeof(hits)) != sizeof(hits))
		hits = 0;
	if (hits == CALIB_CALLS && x == 2 * CALIB_CALLS && t3 - t2 > t1 - t0)
		ns = (t3 - t2 - (t1 - t0)) / (2 * CALIB_CALLS);
out:
	if (ring != MAP_FAILED)
		munmap(ring, len);
	if (sring != MAP_FAILED)
		munmap(sring, small);
	if (sfd >= 0)
		close(sfd);
	for (i = 0; i < 2; i++)
		if (fd[i] >= 0)
			grave_add(s, fd[i]);	/* released later, in the background */
	return ns;
}

int sess_alloc_setup(struct lp_session *s, pid_t pid)
{
	struct allocprobes *ap;
	char exe[PATH_MAX];
	int type, rbit, err;
	size_t i;

	sess_alloc_free(s);
	s->stats.alloc_probes = 0;
	if (!s->opts.objects)
		return 0;
	type = perf__pmu_type("uprobe");
	if (type < 0)
		return -ENODEV;
	ap = calloc(1, sizeof(*ap));
	if (!ap) {
		err = -ENOMEM;
		goto out;
	}
	err = find_allocator(pid, ap->path, sizeof(ap->path));
	if (err)
		goto out;
	if (find_cxx(pid, ap->cxxpath, sizeof(ap->cxxpath)))
		ap->cxxpath[0] = 0;
	if (exe_path(pid, exe, sizeof(exe)))
		exe[0] = 0;
	rbit = retprobe_bit();
	for (i = 0; i < ARRAY_SIZE(probe_defs) && ap->n < LP_ALLOC_PROBES; i++) {
		const struct probe_def *d = &probe_defs[i];
		struct perf_event_attr *at = &ap->attrs[ap->n];
		const char *file = d->cxx ? ap->cxxpath : ap->path;
		int j;
		u64 off;

		if (!*file || (d->opt && strcmp(file, exe) &&
				!symbols__file_imports(exe, d->sym)) ||
		    symbols__func_file_offset(file, d->sym, &off))
			continue;
		if (d->fn == LP_ALLOC_FREE)	/* entry only, its argument kept */
			cheap_entry(file, &off);
		/* an alias of one probed already: both would fire */
		for (j = 0; j < ap->n; j++)
			if (ap->attrs[j].config1 == (u64)(uintptr_t)file &&
			    ap->attrs[j].config2 == off && ap->ret[j] == d->ret)
				break;
		if (j < ap->n)
			continue;
		memset(at, 0, sizeof(*at));
		at->size = sizeof(*at);
		at->type = type;
		at->config = d->ret ? 1ull << rbit : 0;
		at->config1 = (u64)(uintptr_t)file;
		at->config2 = off;
		at->sample_period = 1;
		at->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				  PERF_SAMPLE_REGS_USER;
		/* rdi, rsi, rdx, rcx: the arguments read (mmap's flags are the 4th); rax: the result */
		at->sample_regs_user = 1ull << LP_REG_AX | 1ull << LP_REG_SI | 1ull << LP_REG_DI |
				       1ull << LP_REG_DX | 1ull << LP_REG_CX;
		if (d->ret && d->fn == LP_ALLOC_POSIX_MEMALIGN) {
			at->sample_type |= PERF_SAMPLE_STACK_USER;
			at->sample_regs_user |= 1ull << LP_REG_SP;
			at->sample_stack_user = MEMPTR_STACK;
		}
		if (d->ret && s->opts.objects_stack) {
			/* a DWARF unwind where frame pointers are missing (unwind.h) */
			at->sample_type |= PERF_SAMPLE_STACK_USER;
			at->sample_regs_user |= UNWIND_REGS;
			if (at->sample_stack_user < s->opts.objects_stack)
				at->sample_stack_user = s->opts.objects_stack;
		}
		if (d->ret) {
			at->sample_type |= PERF_SAMPLE_CALLCHAIN;
			at->exclude_callchain_kernel = 1;
			/* the user marker, then the frames we keep */
			at->sample_max_stack = LP_ALLOC_MAX_FRAMES + 1;
		}
		/*
		 * lociprof checks the budget as it reads the records: woken every
		 * ALLOC_WAKEUP of them, not only at its 2 ms drains (a loaded
		 * machine left it descheduled for thousands of hits)
		 */
		at->wakeup_events = ALLOC_WAKEUP;
		/* one clock for the ring it shares (PERF_EVENT_IOC_SET_OUTPUT) */
		at->use_clockid = 1;
		at->clockid = CLOCK_MONOTONIC;
		ap->fn[ap->n] = d->fn;
		ap->ret[ap->n] = d->ret;
		ap->orig[ap->n] = file_byte(file, off);
		ap->n++;
	}
	if (!ap->n) {
		err = -ENOENT;
		goto out;
	}
	ap->grave_fd = -1;
	ap->t0 = sess_now_ns();
	if (s->opts.objects_stack)
		ap->unwinder = unwind__new();
	ap->calib_ns = ap->hit_ns = calibrate(s, ap);
	s->alloc = ap;
	s->stats.alloc_probes = ap->n;
	s->stats.alloc_hit_ns = ap->hit_ns;
	s->stats.alloc_calib_ns = ap->calib_ns;
	s->stats.alloc_windows = 1;
	ap = NULL;
out:
	free(ap);
	return err;
}

/* Whether @t will get allocator probes with stack copies (its ring: bigger). */
int sess_alloc_big_ring(const struct lp_session *s, const struct thread *t)
{
	return s->alloc && !s->alloc->stopped && s->opts.objects_stack &&
	       (s->opts.objects_all_threads || t->tid == t->proc->pid) &&
	       s->ring_pages * 4 <= 1024;
}

void sess_alloc_open(struct lp_session *s, struct thread *t)
{
	struct allocprobes *ap = s->alloc;
	int i, fd;

	t->napend = 0;
	if (!ap || ap->stopped || ap->paused || !t->has_ring)
		return;
	/*
	 * Each probe event costs 45-220 ms of kernel time to release (see
	 * sess_alloc_bury): by default only each process's first thread,
	 * where programs typically allocate what their threads later share.
	 */
	if (!s->opts.objects_all_threads && t->tid != t->proc->pid)
		return;
	for (i = 0; i < ap->n; i++) {
		struct perf_event_attr at = ap->attrs[i];

		fd = perf__open(&at, t->tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0 && !t->nafds && (fd == -EACCES || fd == -EPERM)) {
			/* the uprobe PMU wants CAP_PERFMON: not tracked, said once */
			s->alloc->stopped = 1;
			s->stats.alloc_probes = 0;
			s->stats.last_alloc_error = fd;
			return;
		}
		if (fd < 0) {
			s->stats.alloc_open_errors++;
			s->stats.last_alloc_error = fd;
			continue;
		}
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, t->fds[0]) < 0 ||
		    ioctl(fd, PERF_EVENT_IOC_ID, &t->aids[t->nafds]) < 0) {
			s->stats.alloc_open_errors++;
			s->stats.last_alloc_error = -errno;
			close(fd);
			continue;
		}
		t->afds[t->nafds] = fd;
		t->aprobe[t->nafds] = i;
		t->nafds++;
	}
}

/* Closed, but their ids stay known: records still in the ring are read. */
#define GRAVE_MAX 512	/* probe fds kept before they are released */

/*
 * What the releaser reads: its own region, which lociprof never touches
 * again (shared memory, see sess_alloc_bury), so neither frees nor
 * reuses it while the releaser runs: a few KiB left mapped per burial.
 */
#define REL_STACK (32 * 1024)
struct releaser {
	int go;		/* read end: EOF once lociprof has dropped its copies */
	int n, nkeep;
	int *graves;	/* in probe order */
	int *keep;	/* sorted: the graves, the done pipe and go */
	char *stack;	/* the grandchild's, below its top */
};

static int int_cmp(const void *a, const void *b)
{
	return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

/*
 * The releaser: it shares lociprof's memory (CLONE_VM), so it calls no
 * function that keeps state there (malloc, stdio, opendir) and reads
 * only its region. Every descriptor but the kept ones is closed first (a
 * pipe to the shell would stay open else), then the graves, once
 * lociprof's own copies are gone: the last close pays the release.
 */
static int releaser_main(void *arg)
{
	const struct releaser *r = arg;
	unsigned int lo = 0;
	char c;
	int i;

	for (i = 0; i < r->nkeep; i++) {
		if ((unsigned int)r->keep[i] > lo)
			close_range(lo, (unsigned int)r->keep[i] - 1, 0);
		lo = (unsigned int)r->keep[i] + 1;
	}
	close_range(lo, ~0u, 0);
	if (r->go >= 0)
		while (read(r->go, &c, 1) < 0)	/* EINTR */
			;
	for (i = 0; i < r->n; i++)
		close(r->graves[i]);
	_exit(0);
}

/*
 * The child that starts the releaser and exits: init reaps the releaser.
 * Named first, so the releaser is when lociprof resumes (make bench waits
 * for it).
 */
static int releaser_start(void *arg)
{
	struct releaser *r = arg;

	prctl(PR_SET_NAME, "lociprof-rel");
	clone(releaser_main, r->stack + REL_STACK, CLONE_VM | SIGCHLD, r);
	_exit(0);
}

/*
 * Releasing a uprobe event unregisters it, and the kernel waits for a
 * grace period each time: 45-220 ms per descriptor (150-220 ms on 6.18), one
 * after another (perf_uprobe_destroy holds the global event_mutex across
 * it, so closing in parallel takes as long). Closed at every thread exit,
 * 14 probes stalled the session (2 threads: 0.12 s became 1.6 s; 64
 * threads: 1.3 s became 47 s). So the descriptors are handed to a
 * grandchild process that closes them in the background (reparented to
 * init, never waited for) and lociprof drops its copies, which is cheap.
 * The grandchild shares lociprof's memory (CLONE_VM) rather than copying
 * it: fork() took 3-23 ms here (page tables copied in a paravirtualized
 * guest, then every page lociprof wrote faulted); lociprof's own exit
 * then leaves its memory to the releaser to unmap, in the background too.
 * A probe traps until its own close: the graves go in probe order,
 * malloc's first. ap->grave_fd reads EOF when the grandchild is done.
 */
void sess_alloc_bury(struct lp_session *s)
{
	int i, st, p[2] = { -1, -1 }, go[2] = { -1, -1 };
	struct releaser *r = MAP_FAILED;
	size_t len;
	pid_t pid = -1;

	if (!s->ngrave)
		return;
	if (s->alloc && !pipe2(p, O_CLOEXEC | O_NONBLOCK)) {
		if (s->alloc->grave_fd >= 0)	/* the new one finishes after it */
			close(s->alloc->grave_fd);
		s->alloc->grave_fd = p[0];
	}
	/* the last close pays the release: the grandchild's, after ours (EOF on go) */
	if (pipe2(go, O_CLOEXEC))
		go[0] = go[1] = -1;
	len = sizeof(*r) + (2 * s->ngrave + 2) * sizeof(int) + 2 * REL_STACK + 64;
	r = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
		 -1, 0);
	if (r != MAP_FAILED) {
		r->go = go[0];
		r->n = s->ngrave;
		r->graves = (int *)(r + 1);
		r->keep = r->graves + s->ngrave;
		memcpy(r->graves, s->grave, s->ngrave * sizeof(int));
		memcpy(r->keep, s->grave, s->ngrave * sizeof(int));
		r->nkeep = s->ngrave;
		for (i = 0; i < 2; i++) {
			int fd = i ? go[0] : p[1];

			if (fd >= 0)
				r->keep[r->nkeep++] = fd;
		}
		qsort(r->keep, r->nkeep, sizeof(int), int_cmp);
		/* two stacks, 16-byte aligned: the grandchild's, then its parent's */
		r->stack = (char *)(((uintptr_t)(r->keep + r->nkeep) + 15) & ~(uintptr_t)15);
		/* CLONE_VFORK: lociprof waits until the child has started the releaser */
		pid = clone(releaser_start, r->stack + 2 * REL_STACK,
			    CLONE_VM | CLONE_VFORK | SIGCHLD, r);
	}
	if (pid > 0)
		waitpid(pid, &st, 0);
	else if (r != MAP_FAILED)
		munmap(r, len);
	for (i = 0; i < s->ngrave; i++)	/* without the releaser: the slow way */
		close(s->grave[i]);
	s->ngrave = 0;
	for (i = 0; i < 2; i++) {
		if (p[i] >= 0 && i == 1)
			close(p[i]);
		if (go[i] >= 0)
			close(go[i]);
	}
}

/* Are the probes buried last released? (their traps have stopped) */
static int graves_released(struct lp_session *s)
{
	struct allocprobes *ap = s->alloc;
	char c;

	if (ap->grave_fd < 0)
		return 1;
	if (read(ap->grave_fd, &c, 1) != 0)	/* -1 EAGAIN: still closing */
		return 0;
	close(ap->grave_fd);
	ap->grave_fd = -1;
	return 1;
}

static void grave_add(struct lp_session *s, int fd)
{
	if (s->ngrave == s->capgrave) {
		int ncap = s->capgrave ? s->capgrave * 2 : 64;
		int *nv = realloc(s->grave, ncap * sizeof(*nv));

		if (!nv) {
			close(fd);
			return;
		}
		s->grave = nv;
		s->capgrave = ncap;
	}
	s->grave[s->ngrave++] = fd;
}

static void alloc_close_fds(struct lp_session *s, struct thread *t)
{
	int i;

	for (i = 0; i < t->nafds; i++) {
		if (t->afds[i] < 0)
			continue;
		grave_add(s, t->afds[i]);
		t->afds[i] = -1;
	}
	if (s->ngrave >= GRAVE_MAX)
		sess_alloc_bury(s);
}

void sess_alloc_close(struct lp_session *s, struct thread *t)
{
	alloc_close_fds(s, t);
	t->nafds = 0;
	t->napend = 0;
}

/*
 * The call path of an allocation: the frame-pointer chain the kernel
 * walked, or where the return probe copied the stack, a DWARF unwind of
 * it when that one is longer or disagrees from the caller's frame on (the
 * chain went astray: the code keeps no frame pointers). @ev has the chain.
 */
static void alloc_path(struct lp_session *s, const struct lp_perf_sample *raw,
		       struct lp_alloc *a)
{
	u64 pcs[LP_ALLOC_MAX_FRAMES];
	int n, i;

	if (!s->alloc->unwinder || !raw->stack_size || !(raw->regs_mask & 1ull << LP_REG_IP))
		return;
	n = unwind__frames(s->alloc->unwinder, raw->pid, raw->tid, raw->regs, raw->stack,
			   raw->stack_size, pcs, LP_ALLOC_MAX_FRAMES);
	if (n < 2)
		return;
	for (i = 1; i < n && i < a->nframes && pcs[i] == a->frames[i]; i++)
		;
	if (n <= a->nframes && i == n)
		return;		/* the chain has it all */
	memcpy(a->frames, pcs, n * sizeof(pcs[0]));
	a->nframes = n;
	s->stats.alloc_dwarf++;
}

static void emit(struct lp_session *s, const struct lp_perf_sample *raw, u32 type, u8 fn,
		 u64 addr, u64 size)
{
	struct lp_event ev;
	u32 i;

	memset(&ev, 0, sizeof(ev));
	ev.type = type;
	ev.alloc.time = raw->time;
	ev.alloc.pid = raw->pid;
	ev.alloc.tid = raw->tid;
	ev.alloc.fn = fn;
	ev.alloc.addr = addr;
	ev.alloc.size = size;
	for (i = 0; type == LP_EV_ALLOC && i < raw->callchain_nr &&
		    ev.alloc.nframes < LP_ALLOC_MAX_FRAMES; i++) {
		u64 ip;

		memcpy(&ip, (const char *)raw->callchain + 8 * i, 8);
		if (ip >= (u64)PERF_CONTEXT_MAX)	/* a context marker */
			continue;
		ev.alloc.frames[ev.alloc.nframes++] = ip;
	}
	if (type == LP_EV_ALLOC)
		alloc_path(s, raw, &ev.alloc);
	sess_pending_push(s, &ev);
}

/*
 * Over budget, the probes stay open but stop trapping: removing one costs
 * the kernel a grace period (45-220 ms, one after another) during which the
 * program keeps trapping, and opening it again as much at its next close.
 * Instead lociprof writes the original instruction byte over the kernel's
 * int3 in the program's text (/proc/PID/mem, as a debugger sets its own
 * breakpoints): the traps stop at once; back in budget, the int3 is
 * written again. The kernel copes with both: a hit whose int3 is gone
 * re-executes the instruction, and unregistering leaves a byte that is no
 * int3 alone (verify_opcode). Only in a process where a thread holds its
 * probes open: an int3 with no probe registered would kill it (SIGTRAP).
 * Returns the bytes written, or -errno.
 */
static int text_toggle(struct lp_session *s, pid_t pid, int arm)
{
	struct allocprobes *ap = s->alloc;
	char line[PATH_MAX + 128];
	struct stat st[LP_ALLOC_PROBES];
	int i, fd, n = 0, err = 0;
	FILE *maps;

	for (i = 0; i < ap->n; i++)
		if (stat((const char *)(uintptr_t)ap->attrs[i].config1, &st[i]))
			st[i].st_ino = 0;
	snprintf(line, sizeof(line), "/proc/%d/mem", pid);
	fd = open(line, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	snprintf(line, sizeof(line), "/proc/%d/maps", pid);
	maps = fopen(line, "re");
	if (!maps) {
		close(fd);
		return -errno;
	}
	while (!err && fgets(line, sizeof(line), maps)) {
		unsigned long long start, end, pgoff, ino;
		unsigned int maj, mnr;
		char perms[8];

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu", &start, &end, perms, &pgoff,
			   &maj, &mnr, &ino) != 7 || perms[2] != 'x' || !ino)
			continue;
		for (i = 0; i < ap->n; i++) {
			u64 off = ap->attrs[i].config2, addr = start + off - pgoff;
			u8 now, want = arm ? 0xcc : ap->orig[i], was = arm ? ap->orig[i] : 0xcc;

			if (st[i].st_ino != ino || st[i].st_dev != makedev(maj, mnr) ||
			    off < pgoff || off - pgoff >= end - start || ap->orig[i] == 0xcc)
				continue;
			if (pread(fd, &now, 1, (off_t)addr) != 1) {
				err = -errno;
				break;
			}
			if (now != was)		/* done already (entry and return share it) */
				continue;
			if (pwrite(fd, &want, 1, (off_t)addr) != 1) {
				err = -errno;
				break;
			}
			n++;
		}
	}
	fclose(maps);
	close(fd);
	return err ? err : n;
}

/* Toggle the probes of every process where a live thread holds them open. */
static int text_toggle_all(struct lp_session *s, int arm)
{
	struct proc *pr;
	struct thread *t;
	int i, k, ret, n = 0;

	for (pr = s->procs; pr; pr = pr->next) {
		int open = 0;

		for (i = 0; i < THREAD_HASH && !open; i++)
			for (t = s->threads[i]; t && !open; t = t->hnext)
				for (k = 0; t->proc == pr && t->state == TS_LIVE && k < t->nafds; k++)
					open |= t->afds[k] >= 0;
		if (!open)
			continue;
		ret = text_toggle(s, pr->pid, arm);
		if (ret < 0)
			return ret;
		n += ret;
	}
	return n;
}

/*
 * Stop the traps: @stop for good (--objects-max: every thread's probes are
 * closed; records still in the rings are read, the ids stay known), else
 * paused by the budget (text_toggle; closed as for good if that fails,
 * then sess_alloc_tick opens them again).
 */
static void alloc_pause(struct lp_session *s, u64 time, int stop)
{
	struct allocprobes *ap = s->alloc;
	struct thread *t;
	int i;

	if (!stop) {
		ap->paused = 1;
		ap->paused_at = time;
		ap->text_paused = text_toggle_all(s, 0) > 0;
		if (ap->text_paused)
			return;
	}
	for (i = 0; i < THREAD_HASH; i++)
		for (t = s->threads[i]; t; t = t->hnext)
			alloc_close_fds(s, t);
	sess_alloc_bury(s);	/* now: every probe hit costs the program a trap */
	if (stop) {
		ap->stopped = 1;
		s->stats.alloc_stopped_at = time;
	}
}

/* What the budget allows the probes to have cost by @now (ns). */
static u64 budget_ns(const struct lp_session *s, u64 now)
{
	const struct allocprobes *ap = s->alloc;

	return BUDGET_START_NS + (now - ap->t0) / 100 * s->opts.objects_budget;
}

static int over_budget(const struct lp_session *s, u64 now, u64 margin)
{
	const struct allocprobes *ap = s->alloc;

	return s->opts.objects_budget && ap->hit_ns && now > ap->t0 &&
	       ap->hits * ap->hit_ns + margin > budget_ns(s, now);
}

/*
 * The budget is checked as records are read: while the probes trap, every
 * 2 ms rather than every drain interval (20 ms of traps past the budget,
 * and records with stack copies lost from a full ring).
 */
int sess_alloc_drain_ms(const struct lp_session *s)
{
	const struct allocprobes *ap = s->alloc;

	if (ap && !ap->stopped && !ap->paused)
		return BUDGET_DRAIN_MS;
	return DRAIN_INTERVAL_MS;
}

void sess_alloc_tick(struct lp_session *s)
{
	struct allocprobes *ap = s->alloc;
	struct thread *t;
	u64 now;
	int i;

	if (!ap || ap->stopped || !ap->paused)
		return;
	now = sess_now_ns();
	if (over_budget(s, now, ap->text_paused ? BUDGET_WINDOW_NS : BUDGET_WINDOW_CLOSED_NS))
		return;
	if (ap->text_paused) {
		if (text_toggle_all(s, 1) < 0)
			return;
	} else if (!graves_released(s)) {
		return;	/* the closed probes' last records are read first */
	}
	sess_drain_all(s);
	ap->paused = 0;
	s->stats.alloc_paused_ns += now - ap->paused_at;
	s->stats.alloc_windows++;
	for (i = 0; i < THREAD_HASH; i++)
		for (t = s->threads[i]; t; t = t->hnext)
			if (t->state == TS_LIVE && t->has_ring && (!ap->text_paused || !t->nafds)) {
				t->nafds = 0;
				sess_alloc_open(s, t);
			}
	ap->text_paused = 0;
}

/*
 * The pointer posix_memalign stored at @memptr: from the stack copy of
 * its return probe, else read from the process now (a global or a heap
 * field is still the block unless the program already changed it).
 */
static int memptr_read(const struct lp_perf_sample *raw, u64 memptr, u64 *out)
{
	u64 sp = raw->regs[LP_REG_SP];
	char path[64];
	ssize_t n;
	int fd;

	*out = 0;
	if ((raw->sample_type & PERF_SAMPLE_STACK_USER) && memptr >= sp &&
	    memptr - sp + 8 <= raw->stack_size) {
		memcpy(out, (const char *)raw->stack + (memptr - sp), 8);
		return *out ? 0 : -ENOENT;
	}
	snprintf(path, sizeof(path), "/proc/%u/mem", raw->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = pread(fd, out, 8, (off_t)memptr);
	close(fd);
	return n == 8 && *out ? 0 : -ENOENT;
}

void sess_alloc_finish(struct lp_session *s)
{
	struct allocprobes *ap = s->alloc;

	if (ap && ap->paused && !ap->stopped) {
		s->stats.alloc_paused_ns += sess_now_ns() - ap->paused_at;
		ap->paused_at = sess_now_ns();
	}
}

/*
 * A hit of @t at @time: each run of BURST_HITS of its hits (records read
 * in order) has a wall time per hit; those below BURST_CAP x the setup's
 * measure are dense, and the budget prices a hit at their mean (the
 * luckiest run alone, with no interrupt in it, read 10 us where a tracked
 * malloc/free pair cost malloc-rate 51 us). While none is, the setup's.
 */
static void burst(struct lp_session *s, struct thread *t, u64 time)
{
	struct allocprobes *ap = s->alloc;
	u64 ns;

	if (!t->aburst_n || time < t->aburst_t0) {
		t->aburst_t0 = time;
		t->aburst_n = 1;
		return;
	}
	if (++t->aburst_n < BURST_HITS)
		return;
	ns = (time - t->aburst_t0) / (BURST_HITS - 1);
	t->aburst_t0 = time;
	t->aburst_n = 1;
	if (ap->calib_ns && ns >= BURST_CAP * ap->calib_ns) {
		s->stats.alloc_sparse_runs = ++ap->sparse_runs;	/* the program's work between hits */
		return;
	}
	ap->dense_ns += ns;
	s->stats.alloc_dense_runs = ++ap->dense_runs;
	ap->hit_ns = s->stats.alloc_hit_ns = ap->dense_ns / ap->dense_runs;
}

/* A record of an allocator probe of @t (1), or not one (0). */
int sess_alloc_sample(struct lp_session *s, struct thread *t, u64 id,
		      const struct perf_event_header *h)
{
	const struct allocprobes *ap = s->alloc;
	const struct perf_event_attr *at;
	struct lp_perf_sample raw;
	struct apend *p;
	int k, fn;

	for (k = 0; k < t->nafds; k++)
		if (t->aids[k] == id)
			break;
	if (k == t->nafds)
		return 0;
	at = &ap->attrs[t->aprobe[k]];
	fn = ap->fn[t->aprobe[k]];
	if (perf_sample__parse(h, h->size, at->sample_type, at->sample_regs_user, &raw))
		return 1;
	s->stats.alloc_hits = ++s->alloc->hits;
	burst(s, t, raw.time);
	if (!ap->stopped && !ap->paused && over_budget(s, raw.time, 0))
		alloc_pause(s, raw.time, 0);
	if (fn == LP_ALLOC_FREE || fn == LP_ALLOC_MUNMAP) {
		if (raw.regs[LP_REG_DI])
			emit(s, &raw, LP_EV_FREE, fn, raw.regs[LP_REG_DI], 0);
		return 1;
	}
	if (!ap->ret[t->aprobe[k]]) {
		if (t->napend == LP_ALLOC_NEST) {	/* returns lost: start over */
			s->stats.alloc_unpaired += t->napend;
			t->napend = 0;
		}
		p = &t->apend[t->napend++];
		p->fn = fn;
		p->old = 0;
		p->skip = 0;
		switch (fn) {
		case LP_ALLOC_MMAP:	/* only anonymous memory is an object */
			p->size = raw.regs[LP_REG_SI];
			p->skip = !(raw.regs[LP_REG_CX] & MAP_ANONYMOUS);
			break;
		case LP_ALLOC_CALLOC:
			p->size = raw.regs[LP_REG_DI] * raw.regs[LP_REG_SI];
			break;
		case LP_ALLOC_REALLOC:
			p->old = raw.regs[LP_REG_DI];
			p->size = raw.regs[LP_REG_SI];
			break;
		case LP_ALLOC_ALIGNED:	/* (alignment, size) */
			p->size = raw.regs[LP_REG_SI];
			break;
		case LP_ALLOC_POSIX_MEMALIGN:	/* (memptr, alignment, size) */
			p->old = raw.regs[LP_REG_DI];
			p->size = raw.regs[LP_REG_DX];
			break;
		default:
			p->size = raw.regs[LP_REG_DI];
			break;
		}
		return 1;
	}
	/* a return: its entry is the innermost pending one of the same function */
	while (t->napend && t->apend[t->napend - 1].fn != fn) {
		t->napend--;
		s->stats.alloc_unpaired++;
	}
	if (!t->napend) {
		s->stats.alloc_unpaired++;
		return 1;
	}
	p = &t->apend[--t->napend];
	if (p->skip || raw.regs[LP_REG_AX] == (u64)MAP_FAILED)
		return 1;
	if (fn == LP_ALLOC_POSIX_MEMALIGN) {
		/* 0 and the block in *memptr, or an error number */
		if (raw.regs[LP_REG_AX])
			return 1;
		if (memptr_read(&raw, p->old, &raw.regs[LP_REG_AX])) {
			s->stats.alloc_unpaired++;	/* not found: not tracked */
			return 1;
		}
		p->old = 0;
	}
	if (p->old && raw.regs[LP_REG_AX])	/* realloc moved or kept it */
		emit(s, &raw, LP_EV_FREE, LP_ALLOC_FREE, p->old, 0);
	if (raw.regs[LP_REG_AX]) {
		emit(s, &raw, LP_EV_ALLOC, fn, raw.regs[LP_REG_AX], p->size);
		if (++s->alloc->nallocs == s->opts.objects_max && !ap->stopped)
			alloc_pause(s, raw.time, 1);
	}
	return 1;
}
