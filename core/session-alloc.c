// SPDX-License-Identifier: GPL-2.0
/*
 * Heap allocations without an agent: uprobes and uretprobes (the 'uprobe'
 * PMU) on the allocator of the program, opened on each traced thread into
 * its ring like the sampling events. Entry probes sample the arguments
 * (rdi, rsi), return probes the result (rax) and the user call chain (frame
 * pointers, complete at the return: the caller's frame is back in rbp).
 * Entries and returns are paired per thread into LP_EV_ALLOC / LP_EV_FREE.
 */
#include <limits.h>

#include "core/session-internal.h"

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
	 * thread and costs the kernel ~45 ms to remove (sess_alloc_bury).
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
static int find_allocator(pid_t pid, struct lp_symbols *syms, char *path, size_t len)
{
	char exe[PATH_MAX];
	u64 off;

	if (!exe_path(pid, exe, sizeof(exe)) &&
	    symbols__func_file_offset(syms, exe, "malloc", &off) == 0) {
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

void sess_alloc_free(struct lp_session *s)
{
	free(s->alloc);
	s->alloc = NULL;
}

int sess_alloc_setup(struct lp_session *s, pid_t pid)
{
	struct lp_symbols *syms;
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
	syms = symbols__new();
	if (!ap || !syms) {
		err = -ENOMEM;
		goto out;
	}
	err = find_allocator(pid, syms, ap->path, sizeof(ap->path));
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
				!symbols__file_imports(syms, exe, d->sym)) ||
		    symbols__func_file_offset(syms, file, d->sym, &off))
			continue;
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
		if (d->ret) {
			at->sample_type |= PERF_SAMPLE_CALLCHAIN;
			at->exclude_callchain_kernel = 1;
			/* the user marker, then the frames we keep */
			at->sample_max_stack = LP_ALLOC_MAX_FRAMES + 1;
		}
		/* one clock for the ring it shares (PERF_EVENT_IOC_SET_OUTPUT) */
		at->use_clockid = 1;
		at->clockid = CLOCK_MONOTONIC;
		ap->fn[ap->n] = d->fn;
		ap->ret[ap->n] = d->ret;
		ap->n++;
	}
	if (!ap->n) {
		err = -ENOENT;
		goto out;
	}
	s->alloc = ap;
	s->stats.alloc_probes = ap->n;
	ap = NULL;
out:
	symbols__delete(syms);
	free(ap);
	return err;
}

void sess_alloc_open(struct lp_session *s, struct thread *t)
{
	struct allocprobes *ap = s->alloc;
	int i, fd;

	t->napend = 0;
	if (!ap || ap->stopped || !t->has_ring)
		return;
	/*
	 * Each probe event costs ~45 ms of kernel time to release (see
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
 * Releasing a uprobe event unregisters it, and the kernel waits for a
 * grace period each time: ~45 ms per descriptor on this machine, one
 * after another (closed in parallel they take as long). Closed at every
 * thread exit, 14 probes stalled the session (2 threads: 0.12 s became
 * 1.6 s; 64 threads: 1.3 s became 47 s). So the descriptors are handed to
 * a grandchild process that closes them in the background (reparented to
 * init, never waited for) and lociprof drops its copies, which is cheap.
 */
void sess_alloc_bury(struct lp_session *s)
{
	pid_t pid;
	int i, st;

	if (!s->ngrave)
		return;
	pid = fork();
	if (pid == 0) {
		if (fork() == 0) {
			for (i = 0; i < s->ngrave; i++)
				close(s->grave[i]);
			_exit(0);
		}
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, &st, 0);
	for (i = 0; i < s->ngrave; i++)	/* without the fork: the slow way */
		close(s->grave[i]);
	s->ngrave = 0;
}

static void alloc_close_fds(struct lp_session *s, struct thread *t)
{
	int i;

	for (i = 0; i < t->nafds; i++) {
		if (t->afds[i] < 0)
			continue;
		if (s->ngrave == s->capgrave) {
			int ncap = s->capgrave ? s->capgrave * 2 : 64;
			int *nv = realloc(s->grave, ncap * sizeof(*nv));

			if (!nv) {
				close(t->afds[i]);
				t->afds[i] = -1;
				continue;
			}
			s->grave = nv;
			s->capgrave = ncap;
		}
		s->grave[s->ngrave++] = t->afds[i];
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
	sess_pending_push(s, &ev);
}

/*
 * Every probe hit costs the program a trap whether it is kept or not
 * (measured here: ~20 us): past the budget, closing the probes removes
 * the breakpoints. Records already in the rings are still read.
 */
static void stop_tracking(struct lp_session *s, u64 time)
{
	struct thread *t;
	int i;

	for (i = 0; i < THREAD_HASH; i++)
		for (t = s->threads[i]; t; t = t->hnext)
			alloc_close_fds(s, t);
	sess_alloc_bury(s);	/* now: every probe hit costs the program a trap */
	s->alloc->stopped = 1;
	s->stats.alloc_stopped_at = time;
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
		if (++s->alloc->nallocs == s->opts.objects_max)
			stop_tracking(s, raw.time);
	}
	return 1;
}
