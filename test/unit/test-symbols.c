// SPDX-License-Identifier: GPL-2.0
/*
 * Symbol resolution against a live PIE target (test/helpers/symtarget), the
 * statically linked test binary itself (ET_EXEC), and synthetic mappings of
 * missing, non-ELF, replaced and corrupted files.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/symbols.h"
#include "core/tests.h"

#define SYMTARGET	"test/helpers/symtarget"
#define SYMTARGET_SRC	"test/helpers/symtarget.c"

struct target {
	pid_t pid;
	int in_fd;		/* its stdin: closing it ends the target */
	u64 func, inline_ret, array, small, relro, printf_addr, heap, stack, thread_stack;
};

static int target__start(struct target *t, char *why, size_t why_len)
{
	int in[2], out[2];
	char line[256];
	FILE *f;

	memset(t, 0, sizeof(*t));
	t->in_fd = -1;
	if (access(SYMTARGET, X_OK)) {
		snprintf(why, why_len, "%s not built (make %s)", SYMTARGET, SYMTARGET);
		return -ENOENT;
	}
	if (pipe(in) || pipe(out))
		return -errno;
	t->pid = fork();
	if (t->pid < 0)
		return -errno;
	if (t->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execl(SYMTARGET, SYMTARGET, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	t->in_fd = in[1];
	f = fdopen(out[0], "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;
		char key[32];

		if (!strncmp(line, "ready", 5)) {
			fclose(f);
			return 0;
		}
		if (sscanf(line, "%31[^=]=%llx", key, &v) != 2)
			continue;
		if (!strcmp(key, "func"))
			t->func = v;
		else if (!strcmp(key, "inline_ret"))
			t->inline_ret = v;
		else if (!strcmp(key, "array"))
			t->array = v;
		else if (!strcmp(key, "small"))
			t->small = v;
		else if (!strcmp(key, "relro"))
			t->relro = v;
		else if (!strcmp(key, "printf"))
			t->printf_addr = v;
		else if (!strcmp(key, "heap"))
			t->heap = v;
		else if (!strcmp(key, "stack"))
			t->stack = v;
		else if (!strcmp(key, "thread_stack"))
			t->thread_stack = v;
	}
	fclose(f);
	snprintf(why, why_len, "%s exited before printing 'ready'", SYMTARGET);
	return -EIO;
}

static void target__stop(struct target *t)
{
	int status;

	/* t->pid stays: lookups go on against the recorded maps */
	if (t->pid <= 0 || t->in_fd < 0)
		return;
	close(t->in_fd);
	t->in_fd = -1;
	if (waitpid(t->pid, &status, 0) < 0)
		kill(t->pid, SIGKILL);
}

/* Line number of the first line of @path containing @marker, or 0. */
static u32 marker_line(const char *path, const char *marker)
{
	char line[512];
	u32 n = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, marker)) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	return 0;
}

static int str_ends(const char *s, const char *suffix)
{
	size_t ls, lx = strlen(suffix);

	if (!s)
		return 0;
	ls = strlen(s);
	return ls >= lx && !strcmp(s + ls - lx, suffix);
}

#define S(x) ((x) ? (x) : "(null)")

/* Start the target and load its maps; skips when the helper is missing. */
#define TARGET_SETUP(t, s)                                                     \
	do {                                                                   \
		char why_[200] = "";                                           \
		int r_ = target__start(&(t), why_, sizeof(why_));              \
		if (r_ == -ENOENT)                                             \
			TEST_SKIP("%s", why_);                                 \
		TEST_ASSERT(r_ == 0, "start %s: %d %s", SYMTARGET, r_, why_);   \
		(s) = symbols__new();                                          \
		TEST_ASSERT((s), "symbols__new");                              \
		r_ = symbols__read_proc_maps((t).pid, symbols__add_mmap_cb, (s)); \
		TEST_ASSERT(r_ == 0, "read_proc_maps: %d", r_);                \
	} while (0)

LP_TEST(test_symbols_pie_function, "symbols: PIE function -> name, file, line")
{
	u32 func_line = marker_line(SYMTARGET_SRC, "FUNC-MARKER");
	struct lp_symbols *s;
	struct lp_srcloc loc;
	struct target t;
	int ret;

	TEST_ASSERT(func_line, "no FUNC-MARKER in %s", SYMTARGET_SRC);
	TARGET_SETUP(t, s);
	ret = symbols__code(s, t.pid, t.func, &loc);
	target__stop(&t);
	TEST_ASSERT(ret == 0, "ret %d", ret);
	TEST_ASSERT(loc.function && !strcmp(loc.function, "lp_sym_func"),
		    "function %s", S(loc.function));
	TEST_ASSERT(loc.offset == 0, "offset %llu", (unsigned long long)loc.offset);
	TEST_ASSERT(str_ends(loc.file, "/" SYMTARGET_SRC), "file %s", S(loc.file));
	TEST_ASSERT(loc.line == func_line, "line %u, want %u", loc.line, func_line);
	TEST_ASSERT(str_ends(loc.dso, "/" SYMTARGET), "dso %s", S(loc.dso));
	/* PIE: the file address is the runtime one minus a nonzero load bias */
	TEST_ASSERT(loc.dso_addr < t.func && loc.dso_addr < 0x100000,
		    "dso_addr %#llx", (unsigned long long)loc.dso_addr);
	/* one byte further: same function, offset counts */
	ret = symbols__code(s, t.pid, t.func + 3, &loc);
	TEST_ASSERT(ret == 0 && loc.offset == 3, "ret %d offset %llu", ret,
		    (unsigned long long)loc.offset);
	symbols__delete(s);
	return TEST_OK;
}

LP_TEST(test_symbols_inline_chain, "symbols: inlined code -> callee at marker, caller at call")
{
	u32 mark = marker_line(SYMTARGET_SRC, "LINE-MARKER");
	u32 call = marker_line(SYMTARGET_SRC, "CALL-MARKER");
	struct lp_symbols *s;
	struct lp_srcloc loc;
	struct target t;
	int ret;

	TEST_ASSERT(mark && call, "markers %u %u", mark, call);
	TARGET_SETUP(t, s);
	/* return address - 1: inside the call made on the marker line */
	ret = symbols__code(s, t.pid, t.inline_ret - 1, &loc);
	target__stop(&t);
	TEST_ASSERT(ret == 0, "ret %d", ret);
	TEST_ASSERT(loc.function && !strcmp(loc.function, "lp_sym_func"),
		    "function %s", S(loc.function));
	TEST_ASSERT(loc.line == mark, "line %u want %u", loc.line, mark);
	TEST_ASSERT(loc.nframes == 2, "nframes %u", loc.nframes);
	TEST_ASSERT(loc.frames[0].function &&
		    !strcmp(loc.frames[0].function, "lp_sym_inlined"),
		    "frame0 %s", S(loc.frames[0].function));
	TEST_ASSERT(loc.frames[0].line == mark, "frame0 line %u want %u",
		    loc.frames[0].line, mark);
	TEST_ASSERT(str_ends(loc.frames[0].file, "/" SYMTARGET_SRC), "frame0 file %s",
		    S(loc.frames[0].file));
	TEST_ASSERT(loc.frames[1].function &&
		    !strcmp(loc.frames[1].function, "lp_sym_func"),
		    "frame1 %s", S(loc.frames[1].function));
	TEST_ASSERT(loc.frames[1].line == call, "frame1 line %u want %u",
		    loc.frames[1].line, call);
	TEST_ASSERT(str_ends(loc.frames[1].file, "/" SYMTARGET_SRC), "frame1 file %s",
		    S(loc.frames[1].file));
	/* the function entry is not inlined code: one frame */
	ret = symbols__code(s, t.pid, t.func, &loc);
	TEST_ASSERT(ret == 0 && loc.nframes == 1, "entry: ret %d nframes %u",
		    ret, loc.nframes);
	symbols__delete(s);
	return TEST_OK;
}

LP_TEST(test_symbols_static_object, "symbols: &array + 24 -> lp_sym_array + 24 in .bss")
{
	struct lp_symbols *s;
	struct lp_dataobj o;
	struct target t;
	int ret;

	TARGET_SETUP(t, s);
	ret = symbols__data(s, t.pid, t.array + 24, &o);
	TEST_ASSERT(ret == 0, "ret %d", ret);
	TEST_ASSERT(o.name && !strcmp(o.name, "lp_sym_array"), "name %s", S(o.name));
	TEST_ASSERT(o.offset == 24, "offset %llu", (unsigned long long)o.offset);
	TEST_ASSERT(o.size == 64 * sizeof(long), "size %llu", (unsigned long long)o.size);
	TEST_ASSERT(o.start == t.array, "start %#llx want %#llx",
		    (unsigned long long)o.start, (unsigned long long)t.array);
	TEST_ASSERT(o.section && !strcmp(o.section, ".bss"), "section %s", S(o.section));
	TEST_ASSERT(str_ends(o.dso, "/" SYMTARGET), "dso %s", S(o.dso));
	TEST_ASSERT(!strcmp(o.label, "lp_sym_array"), "label %.40s", o.label);
	/* last byte in, first byte out */
	ret = symbols__data(s, t.pid, t.array + 511, &o);
	TEST_ASSERT(ret == 0 && o.name && !strcmp(o.name, "lp_sym_array") &&
		    o.offset == 511, "last byte: %s+%llu", S(o.name),
		    (unsigned long long)o.offset);
	ret = symbols__data(s, t.pid, t.array + 512, &o);
	TEST_ASSERT(ret == 0 && !(o.name && !strcmp(o.name, "lp_sym_array")),
		    "one past the end still named %s", S(o.name));
	/*
	 * RELRO: its page is mapped with the same file offset as the read-only
	 * segment before it; the wrong segment would put it 4 KiB off.
	 */
	ret = symbols__data(s, t.pid, t.relro + 8, &o);
	TEST_ASSERT(ret == 0 && o.name && !strcmp(o.name, "lp_sym_relro") &&
		    o.offset == 8 && o.size == 4 * sizeof(char *) && o.section &&
		    !strcmp(o.section, ".data.rel.ro"), "relro: %d %s+%llu %s", ret,
		    S(o.name), (unsigned long long)o.offset, S(o.section));
	/* a file-local (STB_LOCAL) object, only in .symtab */
	ret = symbols__data(s, t.pid, t.small + 2, &o);
	target__stop(&t);
	TEST_ASSERT(ret == 0 && o.name && !strcmp(o.name, "lp_sym_small"),
		    "small: ret %d name %s", ret, S(o.name));
	TEST_ASSERT(o.offset == 2 && o.size == sizeof(int), "small: +%llu size %llu",
		    (unsigned long long)o.offset, (unsigned long long)o.size);
	symbols__delete(s);
	return TEST_OK;
}

LP_TEST(test_symbols_libc_function, "symbols: libc function -> libc symbol and DSO")
{
	struct lp_symbols *s;
	struct lp_srcloc loc;
	struct target t;
	int ret;

	TARGET_SETUP(t, s);
	ret = symbols__code(s, t.pid, t.printf_addr, &loc);
	target__stop(&t);
	TEST_ASSERT(ret == 0, "ret %d dso %s", ret, S(loc.dso));
	TEST_ASSERT(loc.function && strstr(loc.function, "printf"), "function %s",
		    S(loc.function));
	TEST_ASSERT(loc.offset == 0, "offset %llu", (unsigned long long)loc.offset);
	TEST_ASSERT(loc.dso && strstr(loc.dso, "libc"), "dso %s", S(loc.dso));
	symbols__delete(s);
	return TEST_OK;
}

LP_TEST(test_symbols_regions, "symbols: heap, stack, thread stack, unmapped")
{
	struct lp_symbols *s;
	struct lp_srcloc loc;
	struct lp_dataobj o;
	struct target t;
	int ret;

	TARGET_SETUP(t, s);
	target__stop(&t);	/* the maps are in s now: replay from here on */
	ret = symbols__data(s, t.pid, t.heap, &o);
	TEST_ASSERT(ret == 0 && !strcmp(o.label, "[heap]") && !o.name && !o.dso,
		    "heap: ret %d label %.40s", ret, o.label);
	ret = symbols__data(s, t.pid, t.stack, &o);
	TEST_ASSERT(ret == 0 && !strcmp(o.label, "[stack]") && !o.name,
		    "stack: ret %d label %.40s", ret, o.label);
	TEST_ASSERT(o.start <= t.stack && o.start + o.size > t.stack &&
		    o.offset == t.stack - o.start, "stack region %#llx+%#llx",
		    (unsigned long long)o.start, (unsigned long long)o.size);
	ret = symbols__data(s, t.pid, t.thread_stack, &o);
	TEST_ASSERT(ret == 0 && !strcmp(o.label, "[anon]"), "thread stack: ret %d label %.40s",
		    ret, o.label);
	/* below mmap_min_addr nothing is ever mapped */
	ret = symbols__data(s, t.pid, 0x1000, &o);
	TEST_ASSERT(ret == -ENOENT, "unmapped data: %d", ret);
	ret = symbols__code(s, t.pid, 0x1000, &loc);
	TEST_ASSERT(ret == -ENOENT && !loc.function, "unmapped code: %d", ret);
	ret = symbols__code(s, t.pid, t.heap, &loc);
	TEST_ASSERT(ret == -ENOENT && loc.dso && !strcmp(loc.dso, "[heap]"),
		    "code on heap: %d %s", ret, S(loc.dso));
	/* exec: the old address map is gone */
	symbols__forget_pid(s, t.pid);
	ret = symbols__code(s, t.pid, t.func, &loc);
	TEST_ASSERT(ret == -ENOENT, "after forget_pid: %d", ret);
	symbols__delete(s);
	return TEST_OK;
}

/* ET_EXEC: this test binary is linked with -static (no PIE). */
static __attribute__((noinline)) int lp_test_sym_probe(int x)
{
	return x * 7 + 1; /* PROBE-MARKER */
}

long lp_test_sym_data[4] = { 1, 2, 3, 4 };
static char lp_test_sym_bss[1 << 20];	/* spills past the file's last page */

static int elf_type_of(const char *path)
{
	Elf64_Ehdr eh;
	int fd = open(path, O_RDONLY), ok;

	if (fd < 0)
		return -1;
	ok = read(fd, &eh, sizeof(eh)) == sizeof(eh);
	close(fd);
	return ok ? eh.e_type : -1;
}

LP_TEST(test_symbols_static_exec, "symbols: ET_EXEC (this binary): code, .data and big .bss")
{
	u32 mark = marker_line("test/unit/test-symbols.c", "PROBE-MARKER");
	struct lp_symbols *s = symbols__new();
	struct lp_srcloc loc;
	struct lp_dataobj o;
	u64 ip = (u64)(uintptr_t)lp_test_sym_probe;
	int ret;

	if (elf_type_of("/proc/self/exe") != ET_EXEC)
		TEST_SKIP("test binary is not ET_EXEC (built as PIE?)");
	TEST_ASSERT(s && mark, "setup: mark %u", mark);
	ret = symbols__read_proc_maps(getpid(), symbols__add_mmap_cb, s);
	TEST_ASSERT(ret == 0, "read_proc_maps %d", ret);
	lp_test_sym_bss[5] = (char)lp_test_sym_probe(lp_test_sym_data[1]);

	ret = symbols__code(s, getpid(), ip, &loc);
	TEST_ASSERT(ret == 0 && loc.function && !strcmp(loc.function, "lp_test_sym_probe"),
		    "ret %d function %s", ret, S(loc.function));
	/* ET_EXEC: file addresses are runtime addresses */
	TEST_ASSERT(loc.dso_addr == ip, "dso_addr %#llx ip %#llx",
		    (unsigned long long)loc.dso_addr, (unsigned long long)ip);
	TEST_ASSERT(str_ends(loc.file, "test/unit/test-symbols.c"), "file %s", S(loc.file));
	/* a function of the module under test, from the same symbol table */
	ret = symbols__code(s, getpid(), (u64)(uintptr_t)symbols__data, &loc);
	TEST_ASSERT(ret == 0 && loc.function && !strcmp(loc.function, "symbols__data") &&
		    str_ends(loc.file, "core/symbols.c"), "symbols__data: %d %s %s",
		    ret, S(loc.function), S(loc.file));

	ret = symbols__data(s, getpid(), (u64)(uintptr_t)&lp_test_sym_data[2], &o);
	TEST_ASSERT(ret == 0 && o.name && !strcmp(o.name, "lp_test_sym_data") &&
		    o.offset == 16 && o.size == 32 && o.section &&
		    !strcmp(o.section, ".data"), "data: %d %s+%llu %s", ret, S(o.name),
		    (unsigned long long)o.offset, S(o.section));
	ret = symbols__data(s, getpid(), (u64)(uintptr_t)&lp_test_sym_bss[700000], &o);
	TEST_ASSERT(ret == 0 && o.name && !strcmp(o.name, "lp_test_sym_bss") &&
		    o.offset == 700000 && o.size == sizeof(lp_test_sym_bss),
		    "bss: %d %s+%llu label %.40s", ret, S(o.name),
		    (unsigned long long)o.offset, o.label);
	symbols__delete(s);
	return TEST_OK;
}

static int write_file(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	close(fd);
	return n == (ssize_t)len ? 0 : -EIO;
}

static struct lp_mmap mk_mmap(u32 pid, u64 start, u64 len, u64 pgoff, u32 prot,
			      const char *name)
{
	struct lp_mmap m;

	memset(&m, 0, sizeof(m));
	m.pid = pid;
	m.start = start;
	m.len = len;
	m.pgoff = pgoff;
	m.prot = prot;
	snprintf(m.filename, sizeof(m.filename), "%s", name);
	return m;
}

LP_TEST(test_symbols_heap_block_named_by_site, "symbols: a tracked heap block is labelled by its allocation site and offset")
{
	u32 mark = marker_line("test/unit/test-symbols.c", "PROBE-MARKER");
	struct lp_symbols *s = symbols__new();
	struct lp_event ev;
	struct lp_dataobj o;
	char want[96];
	int ret;

	if (elf_type_of("/proc/self/exe") != ET_EXEC)
		TEST_SKIP("test binary is not ET_EXEC (built as PIE?)");
	TEST_ASSERT(s && mark, "setup");
	TEST_ASSERT(symbols__read_proc_maps(getpid(), symbols__add_mmap_cb, s) == 0, "maps");
	memset(&ev, 0, sizeof(ev));
	ev.type = LP_EV_ALLOC;
	ev.alloc.time = 5;
	ev.alloc.addr = 0x10000000;
	ev.alloc.size = 4096;
	ev.alloc.pid = getpid();
	ev.alloc.fn = LP_ALLOC_CALLOC;
	ev.alloc.nframes = 1;
	/* a return address inside lp_test_sym_probe: its line is the marker's or near */
	ev.alloc.frames[0] = (u64)(uintptr_t)lp_test_sym_probe + 1;
	TEST_ASSERT(symbols__add_alloc(s, &ev) == 0, "add");
	ret = symbols__data(s, getpid(), 0x10000040, &o);
	TEST_ASSERT(ret == 0 && o.heap && o.offset == 0x40 && o.size == 4096, "ret %d offset %#llx",
		    ret, (unsigned long long)o.offset);
	snprintf(want, sizeof(want), "calloc'd 4096 B at test-symbols.c:");
	TEST_ASSERT(!strncmp(o.label, want, strlen(want)) && strstr(o.label, "(lp_test_sym_probe)"),
		    "label '%.100s'", o.label);
	ev.type = LP_EV_FREE;
	ev.alloc.time = 9;
	TEST_ASSERT(symbols__add_alloc(s, &ev) == 0, "free");
	ret = symbols__data(s, getpid(), 0x10000040, &o);
	TEST_ASSERT(ret == 0 && o.heap, "a freed block still names its last addresses");
	symbols__delete(s);
	return TEST_OK;
}

LP_TEST(test_symbols_thread_stack_named_by_its_tcb, "symbols: the anonymous mapping holding a thread's fs_base is 'stack of T<index>'")
{
	struct lp_symbols *s = symbols__new();
	struct lp_mmap m;
	struct lp_thread t;
	struct lp_dataobj o;
	int ret;

	memset(&m, 0, sizeof(m));
	m.pid = 42;
	m.prot = PROT_READ | PROT_WRITE;
	m.start = 0x7f0000000000;
	m.len = 0x800000;
	TEST_ASSERT(s && symbols__add_mmap(s, &m) == 0, "stack mapping");
	m.start = 0x7f0001000000;
	strcpy(m.filename, "//anon");	/* as perf's MMAP2 records name it */
	TEST_ASSERT(symbols__add_mmap(s, &m) == 0, "another anonymous mapping");
	memset(&t, 0, sizeof(t));
	t.pid = 42;
	t.tid = 77;
	t.index = 3;
	t.fs_base = 0x7f00007ff640;
	TEST_ASSERT(symbols__add_thread(s, &t) == 0, "thread");
	t.tid = 78;
	t.index = 0;	/* the first thread's TCB is not on a stack */
	t.fs_base = 0x7f0001000100;
	TEST_ASSERT(symbols__add_thread(s, &t) == 0, "first thread");
	ret = symbols__data(s, 42, 0x7f0000100000, &o);
	TEST_ASSERT(ret == 0 && !strcmp(o.label, "stack of T3 (tid 77)"), "ret %d label '%.80s'",
		    ret, o.label);
	ret = symbols__data(s, 42, 0x7f0001000008, &o);
	TEST_ASSERT(ret == 0 && !strcmp(o.label, "[anon]"), "other mapping: '%.80s'", o.label);
	{
		/* pthread_create's mmap of the stack, and another anonymous mmap */
		struct lp_event ev;

		memset(&ev, 0, sizeof(ev));
		ev.type = LP_EV_ALLOC;
		ev.alloc = (struct lp_alloc){ .time = 1, .addr = 0x7f0000000000, .size = 0x800000,
					      .pid = 42, .fn = LP_ALLOC_MMAP };
		TEST_ASSERT(symbols__add_alloc(s, &ev) == 0, "stack mmap");
		ev.alloc.addr = 0x7f0001000000;
		ev.alloc.size = 0x10000;
		TEST_ASSERT(symbols__add_alloc(s, &ev) == 0, "anonymous mmap");
	}
	ret = symbols__data(s, 42, 0x7f0000100000, &o);
	TEST_ASSERT(ret == 0 && !strcmp(o.label, "stack of T3 (tid 77)"),
		    "a mapped stack is still the stack: '%.80s'", o.label);
	ret = symbols__data(s, 42, 0x7f0001000008, &o);
	TEST_ASSERT(ret == 0 && o.heap && !strcmp(o.label, "mmap'd 65536 B") && o.offset == 8,
		    "anonymous mmap: '%.80s'", o.label);
	symbols__delete(s);
	return TEST_OK;
}

LP_TEST(test_symbols_map_overlap, "symbols: new mapping splits old one, pgoff follows")
{
	char dir[] = "/tmp/lp-sym-XXXXXX", path[64];
	static char text[3 * 4096];
	struct lp_symbols *s = symbols__new();
	struct lp_srcloc loc;
	struct lp_dataobj o;
	struct lp_mmap m;
	int ret;

	TEST_ASSERT(s && mkdtemp(dir), "setup");
	snprintf(path, sizeof(path), "%s/notes.txt", dir);
	memset(text, 'x', sizeof(text));
	TEST_ASSERT(write_file(path, text, sizeof(text)) == 0, "write %s", path);

	m = mk_mmap(4242, 0x10000, 0x3000, 0x1000, PROT_READ, path);
	TEST_ASSERT(symbols__add_mmap(s, &m) == 0, "add file");
	m = mk_mmap(4242, 0x11000, 0x1000, 0, PROT_READ | PROT_WRITE, "");
	TEST_ASSERT(symbols__add_mmap(s, &m) == 0, "add anon");

	ret = symbols__data(s, 4242, 0x10800, &o);
	TEST_ASSERT(ret == 0 && o.dso && !strcmp(o.dso, path) && o.file_offset == 0x1800 &&
		    !strcmp(o.label, "notes.txt") && !o.name,
		    "left: %d %s off %#llx label %.40s", ret, S(o.dso),
		    (unsigned long long)o.file_offset, o.label);
	ret = symbols__data(s, 4242, 0x11800, &o);
	TEST_ASSERT(ret == 0 && !strcmp(o.label, "[anon]") && !o.dso,
		    "middle: %d %.40s", ret, o.label);
	ret = symbols__data(s, 4242, 0x12800, &o);
	TEST_ASSERT(ret == 0 && o.dso && o.file_offset == 0x3800 && o.start == 0x12000 &&
		    o.size == 0x1000, "right: %d off %#llx start %#llx size %#llx", ret,
		    (unsigned long long)o.file_offset, (unsigned long long)o.start,
		    (unsigned long long)o.size);
	/* a non-ELF file has no code */
	ret = symbols__code(s, 4242, 0x10800, &loc);
	TEST_ASSERT(ret == -ENOENT && loc.dso && !strcmp(loc.dso, path) && !loc.function,
		    "code in text file: %d", ret);
	/* covering all three pieces at once replaces them */
	m = mk_mmap(4242, 0xf000, 0x5000, 0, PROT_READ, "[heap]");
	TEST_ASSERT(symbols__add_mmap(s, &m) == 0, "add over");
	ret = symbols__data(s, 4242, 0x12800, &o);
	TEST_ASSERT(ret == 0 && !strcmp(o.label, "[heap]") && o.start == 0xf000,
		    "after cover: %.40s start %#llx", o.label, (unsigned long long)o.start);
	ret = symbols__data(s, 4242, 0x14000, &o);
	TEST_ASSERT(ret == -ENOENT, "past end: %d", ret);
	m = mk_mmap(4242, 0x20000, 0, 0, PROT_READ, "");
	TEST_ASSERT(symbols__add_mmap(s, &m) == -EINVAL, "empty mapping accepted");

	/* a path that does not exist */
	m = mk_mmap(4243, 0x400000, 0x1000, 0, PROT_READ | PROT_EXEC,
		    "/nonexistent/lib/libgone.so");
	TEST_ASSERT(symbols__add_mmap(s, &m) == 0, "add missing");
	ret = symbols__code(s, 4243, 0x400010, &loc);
	TEST_ASSERT(ret == -ENOENT && !loc.function, "missing file code: %d", ret);
	ret = symbols__data(s, 4243, 0x400010, &o);
	TEST_ASSERT(ret == 0 && !o.name && !strcmp(o.label, "libgone.so"),
		    "missing file data: %d %.40s", ret, o.label);
	symbols__delete(s);
	unlink(path);
	rmdir(dir);
	return TEST_OK;
}

/* The target's mappings of its own executable, replayed as if @path were it. */
struct copy_arg {
	struct lp_symbols *s;
	u32 pid;
	const char *path;
	int n;
	int all;	/* copy the other mappings too, unchanged */
};

static int copy_exe_maps(void *arg, const struct lp_mmap *m)
{
	struct copy_arg *a = arg;
	struct lp_mmap c = *m;

	c.pid = a->pid;
	if (!str_ends(m->filename, "/" SYMTARGET))
		return a->all ? symbols__add_mmap(a->s, &c) : 0;
	snprintf(c.filename, sizeof(c.filename), "%s", a->path);
	a->n++;
	return symbols__add_mmap(a->s, &c);
}

static int copy_file(const char *from, const char *to, size_t max)
{
	static char buf[1 << 16];
	int in = open(from, O_RDONLY), out;
	ssize_t n;
	size_t done = 0;

	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (out < 0) {
		close(in);
		return -errno;
	}
	while (done < max && (n = read(in, buf, sizeof(buf))) > 0) {
		if ((size_t)n > max - done)
			n = max - done;
		if (write(out, buf, n) != n)
			break;
		done += n;
	}
	close(in);
	close(out);
	return 0;
}

/* A fresh directory @dir (a mkdtemp template) with a copy of the target as @dir/@name in @path. */
static int target_copy_in(char *dir, const char *name, char *path, size_t len)
{
	if (!mkdtemp(dir))
		return -errno;
	snprintf(path, len, "%s/%s", dir, name);
	return copy_file(SYMTARGET, path, ~(size_t)0);
}

LP_TEST(test_symbols_replaced_file, "symbols: a replaced or vanished file is noticed, old mappings keep theirs")
{
	char dir[] = "/tmp/lp-sym-XXXXXX", a[64], b[64], junk[64];
	struct lp_symbols *s;
	struct lp_srcloc loc;
	struct target t;
	struct copy_arg ca;
	int ret;

	TARGET_SETUP(t, s);
	TEST_ASSERT(target_copy_in(dir, "a.out", a, sizeof(a)) == 0, "copy a");
	snprintf(b, sizeof(b), "%s/b.out", dir);
	snprintf(junk, sizeof(junk), "%s/junk", dir);
	TEST_ASSERT(copy_file(SYMTARGET, b, ~(size_t)0) == 0, "copy b");

	ca = (struct copy_arg){ s, 700, a, 0 };
	ret = symbols__read_proc_maps(t.pid, copy_exe_maps, &ca);
	TEST_ASSERT(ret == 0 && ca.n >= 2, "maps of a: %d n %d", ret, ca.n);
	ret = symbols__code(s, 700, t.func, &loc);
	TEST_ASSERT(ret == 0 && loc.function && !strcmp(loc.function, "lp_sym_func") &&
		    !strcmp(loc.dso, a), "copy a: %d %s", ret, S(loc.function));

	/* replace a by a text file (rename, as installers do); map it again */
	TEST_ASSERT(write_file(junk, "not an elf\n", 11) == 0, "junk");
	TEST_ASSERT(rename(junk, a) == 0, "rename");
	ca = (struct copy_arg){ s, 701, a, 0 };
	ret = symbols__read_proc_maps(t.pid, copy_exe_maps, &ca);
	TEST_ASSERT(ret == 0, "maps of new a: %d", ret);
	ret = symbols__code(s, 701, t.func, &loc);
	TEST_ASSERT(ret == -ENOENT && !loc.function, "new a: %d %s", ret, S(loc.function));
	ret = symbols__code(s, 700, t.func + 1, &loc);
	TEST_ASSERT(ret == 0 && loc.function && !strcmp(loc.function, "lp_sym_func"),
		    "old mapping of a lost its file: %d", ret);

	/* b: mapped, then truncated in place before the first lookup */
	ca = (struct copy_arg){ s, 702, b, 0 };
	ret = symbols__read_proc_maps(t.pid, copy_exe_maps, &ca);
	TEST_ASSERT(ret == 0, "maps of b: %d", ret);
	TEST_ASSERT(truncate(b, 100) == 0, "truncate");
	ret = symbols__code(s, 702, t.func, &loc);
	TEST_ASSERT(ret == -ENOENT, "truncated b: %d %s", ret, S(loc.function));
	/* and removed */
	unlink(b);
	ca = (struct copy_arg){ s, 703, b, 0 };
	ret = symbols__read_proc_maps(t.pid, copy_exe_maps, &ca);
	TEST_ASSERT(ret == 0, "maps of gone b: %d", ret);
	ret = symbols__code(s, 703, t.func, &loc);
	TEST_ASSERT(ret == -ENOENT, "vanished b: %d", ret);
	target__stop(&t);
	symbols__delete(s);
	unlink(a);
	rmdir(dir);
	return TEST_OK;
}

LP_TEST(test_symbols_stripped_program_is_the_alloc_site, "symbols: a heap block malloc'd from a stripped program is named by the program's file+address, not by libc's frame past it")
{
	char dir[] = "/tmp/lp-sym-XXXXXX", path[64], cmd[160], want_label[200], name[100];
	struct lp_symbols *s;
	struct lp_srcloc want, loc;
	struct lp_dataobj o;
	struct lp_event ev;
	struct copy_arg ca;
	struct target t;
	int ret;

	TARGET_SETUP(t, s);
	TEST_ASSERT(target_copy_in(dir, "prog", path, sizeof(path)) == 0, "copy");
	snprintf(cmd, sizeof(cmd), "strip %s 2>/dev/null", path);
	if (system(cmd)) {
		target__stop(&t);
		symbols__delete(s);
		unlink(path);
		rmdir(dir);
		TEST_SKIP("strip(1) failed or is missing (binutils)");
	}
	/* where lp_sym_func lies in the file, from the unstripped original */
	ret = symbols__code(s, t.pid, t.func, &want);
	TEST_ASSERT(ret == 0 && want.dso_addr, "unstripped: %d", ret);
	ca = (struct copy_arg){ s, 710, path, 0, 1 };
	ret = symbols__read_proc_maps(t.pid, copy_exe_maps, &ca);
	TEST_ASSERT(ret == 0 && ca.n >= 2, "maps: %d n %d", ret, ca.n);
	ret = symbols__code(s, 710, t.func, &loc);
	TEST_ASSERT(ret == -ENOENT && !loc.function && loc.dso_addr == want.dso_addr,
		    "stripped: %d %s at %#llx, want %#llx", ret, S(loc.function),
		    (unsigned long long)loc.dso_addr, (unsigned long long)want.dso_addr);
	TEST_ASSERT(symbols__code_unnamed(&loc, t.func, name, sizeof(name)) &&
		    !strncmp(name, "prog+0x", 7) &&
		    strtoull(name + 5, NULL, 16) == want.dso_addr, "unnamed: '%.60s'", name);

	/* called from lp_sym_func (a return address one past it), below it libc's printf */
	memset(&ev, 0, sizeof(ev));
	ev.type = LP_EV_ALLOC;
	ev.alloc = (struct lp_alloc){ .time = 1, .addr = 0x10000000, .size = 48, .pid = 710,
				      .fn = LP_ALLOC_MALLOC, .nframes = 2 };
	ev.alloc.frames[0] = t.func + 1;
	ev.alloc.frames[1] = t.printf_addr + 1;
	TEST_ASSERT(symbols__add_alloc(s, &ev) == 0, "alloc");
	ret = symbols__data(s, 710, 0x10000008, &o);
	snprintf(want_label, sizeof(want_label), "malloc'd 48 B at prog+%#llx (no symbols)",
		 (unsigned long long)want.dso_addr);
	TEST_ASSERT(ret == 0 && o.heap && !strcmp(o.label, want_label) && o.offset == 8,
		    "label '%.60s', want '%.60s'", o.label, want_label);
	/* the original program still names its function and line there */
	ev.alloc.pid = t.pid;
	TEST_ASSERT(symbols__add_alloc(s, &ev) == 0, "alloc in the original");
	ret = symbols__data(s, t.pid, 0x10000008, &o);
	TEST_ASSERT(ret == 0 && strstr(o.label, "(lp_sym_func)"), "original: '%.120s'", o.label);
	target__stop(&t);
	symbols__delete(s);
	unlink(path);
	rmdir(dir);
	return TEST_OK;
}

LP_TEST_TIMEOUT(test_symbols_corrupt_elf, "symbols: truncated and byte-flipped ELF files never crash", 120)
{
	char dir[] = "/tmp/lp-sym-XXXXXX", path[64];
	static char img[1 << 20];
	struct target t;
	struct lp_symbols *s0;
	size_t len;
	int fd, i, ok = 0, total = 0;
	unsigned int seed = 12345;

	TARGET_SETUP(t, s0);
	symbols__delete(s0);
	TEST_ASSERT(mkdtemp(dir), "mkdtemp");
	fd = open(SYMTARGET, O_RDONLY);
	TEST_ASSERT(fd >= 0, "open");
	len = read(fd, img, sizeof(img));
	close(fd);
	TEST_ASSERT(len > 4096 && len < sizeof(img), "size %zu", len);

	for (i = 0; i < 120; i++) {
		static char mut[1 << 20];
		struct lp_symbols *s = symbols__new();
		struct lp_srcloc loc;
		struct lp_dataobj o;
		struct copy_arg ca;
		size_t n = len, k;
		int r1, r2, r3;

		memcpy(mut, img, len);
		if (i < 20) {
			n = (len * i) / 20;	/* truncated */
		} else {
			int flips = 1 + rand_r(&seed) % 64;

			for (k = 0; k < (size_t)flips; k++) {
				/* half the flips in the headers, half anywhere */
				size_t at = (k & 1) ? (size_t)rand_r(&seed) % len
						    : (size_t)rand_r(&seed) % 1024;
				mut[at] = (char)rand_r(&seed);
			}
		}
		snprintf(path, sizeof(path), "%s/c%d", dir, i);
		TEST_ASSERT(write_file(path, mut, n) == 0, "write");
		ca = (struct copy_arg){ s, 800, path, 0 };
		TEST_ASSERT(symbols__read_proc_maps(t.pid, copy_exe_maps, &ca) == 0, "maps");
		r1 = symbols__code(s, 800, t.func, &loc);
		r2 = symbols__code(s, 800, t.inline_ret - 1, &loc);
		r3 = symbols__data(s, 800, t.array + 8, &o);
		TEST_ASSERT((r1 == 0 || r1 == -ENOENT) && (r2 == 0 || r2 == -ENOENT) &&
			    r3 == 0, "case %d: %d %d %d", i, r1, r2, r3);
		ok += r1 == 0;
		total++;
		symbols__delete(s);
		unlink(path);
	}
	target__stop(&t);
	rmdir(dir);
	TEST_LOG("%d of %d corrupted copies still named lp_sym_func", ok, total);
	return TEST_OK;
}

LP_TEST(test_symbols_proc_maps_fields, "symbols: /proc/PID/maps parse matches mmap(2)")
{
	char *p = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct lp_symbols *s = symbols__new();
	struct lp_dataobj o;
	int ret;

	TEST_ASSERT(p != MAP_FAILED && s, "setup");
	/* a PROT_NONE guard in the middle makes three separate VMAs */
	TEST_ASSERT(mprotect(p + 4096, 4096, PROT_NONE) == 0, "mprotect");
	ret = symbols__read_proc_maps(getpid(), symbols__add_mmap_cb, s);
	TEST_ASSERT(ret == 0, "read %d", ret);
	ret = symbols__data(s, getpid(), (u64)(uintptr_t)(p + 4096 + 10), &o);
	TEST_ASSERT(ret == 0 && o.start == (u64)(uintptr_t)(p + 4096) && o.size == 4096 &&
		    o.offset == 10 && !strcmp(o.label, "[anon]"),
		    "guard page: %d start %#llx size %#llx %.40s", ret,
		    (unsigned long long)o.start, (unsigned long long)o.size, o.label);
	ret = symbols__read_proc_maps(-5, symbols__add_mmap_cb, s);
	TEST_ASSERT(ret == -ENOENT, "bad pid: %d", ret);
	symbols__delete(s);
	munmap(p, 3 * 4096);
	return TEST_OK;
}

LP_TEST(test_symbols_debuglink, "symbols: stripped file finds its DWARF through .gnu_debuglink")
{
	u32 func_line = marker_line(SYMTARGET_SRC, "FUNC-MARKER");
	char dir[] = "/tmp/lp-sym-XXXXXX", cmd[512], exe[64];
	struct lp_symbols *s;
	struct lp_srcloc loc;
	struct target t;
	struct copy_arg ca;
	int ret;

	if (system("objcopy --version >/dev/null 2>&1"))
		TEST_SKIP("objcopy (binutils) not installed");
	TARGET_SETUP(t, s);
	TEST_ASSERT(mkdtemp(dir), "mkdtemp");
	snprintf(exe, sizeof(exe), "%s/stripped", dir);
	snprintf(cmd, sizeof(cmd),
		 "objcopy --only-keep-debug %s %s/st.debug && "
		 "objcopy --strip-debug --add-gnu-debuglink=%s/st.debug %s %s",
		 SYMTARGET, dir, dir, SYMTARGET, exe);
	TEST_ASSERT(system(cmd) == 0, "objcopy failed: %.120s", cmd);
	ca = (struct copy_arg){ s, 900, exe, 0 };
	ret = symbols__read_proc_maps(t.pid, copy_exe_maps, &ca);
	TEST_ASSERT(ret == 0 && ca.n >= 2, "maps: %d n %d", ret, ca.n);
	ret = symbols__code(s, 900, t.func, &loc);
	TEST_ASSERT(ret == 0 && loc.function && !strcmp(loc.function, "lp_sym_func"),
		    "ret %d function %s", ret, S(loc.function));
	TEST_ASSERT(str_ends(loc.file, "/" SYMTARGET_SRC) && loc.line == func_line,
		    "no DWARF from the debuglink: %s:%u", S(loc.file), loc.line);
	/* stripped with no debuglink: the symbol table still names it */
	snprintf(exe, sizeof(exe), "%s/nodebug", dir);
	snprintf(cmd, sizeof(cmd), "objcopy --strip-debug %s %s", SYMTARGET, exe);
	TEST_ASSERT(system(cmd) == 0, "objcopy failed: %.120s", cmd);
	ca = (struct copy_arg){ s, 901, exe, 0 };
	ret = symbols__read_proc_maps(t.pid, copy_exe_maps, &ca);
	TEST_ASSERT(ret == 0 && ca.n >= 2, "maps: %d n %d", ret, ca.n);
	ret = symbols__code(s, 901, t.func + 2, &loc);
	TEST_ASSERT(ret == 0 && loc.function && !strcmp(loc.function, "lp_sym_func") &&
		    loc.offset == 2 && !loc.file && !loc.nframes,
		    "no DWARF: %d %s+%llu %s nframes %u", ret, S(loc.function),
		    (unsigned long long)loc.offset, S(loc.file), loc.nframes);
	target__stop(&t);
	symbols__delete(s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ret = system(cmd);
	(void)ret;
	return TEST_OK;
}

struct map_at {
	u64 addr;
	u64 off;		/* the file offset of addr */
	char path[256];
};

static int map_at_cb(void *arg, const struct lp_mmap *m)
{
	struct map_at *a = arg;

	if (!m->filename[0] || a->addr < m->start || a->addr >= m->start + m->len)
		return 0;
	a->off = a->addr - m->start + m->pgoff;
	snprintf(a->path, sizeof(a->path), "%s", m->filename);
	return 1;
}

/*
 * A uprobe's offset, as the allocator probes look it up: from the file's
 * own .symtab (the PIE helper) or .dynsym (libc, whose full table is in a
 * separate debug file), where the running process has the function mapped.
 */
LP_TEST(test_symbols_func_file_offset, "symbols: uprobe offsets of lp_sym_func and libc's printf")
{
	struct map_at fn = { 0 }, pf = { 0 };
	struct target t;
	char why[160] = "";
	u64 off = 0;
	int ret;

	ret = target__start(&t, why, sizeof(why));
	if (ret == -ENOENT)
		TEST_SKIP("%s", why);
	TEST_ASSERT(ret == 0, "start %s: %d %s", SYMTARGET, ret, why);
	fn.addr = t.func;
	pf.addr = t.printf_addr;
	symbols__read_proc_maps(t.pid, map_at_cb, &fn);
	symbols__read_proc_maps(t.pid, map_at_cb, &pf);
	target__stop(&t);
	TEST_ASSERT(fn.path[0] && pf.path[0], "func or printf not mapped");
	ret = symbols__func_file_offset(fn.path, "lp_sym_func", &off);
	TEST_ASSERT(ret == 0 && off == fn.off, "lp_sym_func: %d, 0x%llx, mapped at 0x%llx",
		    ret, (unsigned long long)off, (unsigned long long)fn.off);
	ret = symbols__func_file_offset(pf.path, "printf", &off);
	TEST_ASSERT(ret == 0 && off == pf.off, "printf: %d, 0x%llx, mapped at 0x%llx",
		    ret, (unsigned long long)off, (unsigned long long)pf.off);
	TEST_ASSERT(symbols__func_file_offset(fn.path, "no_such_function", &off) == -ENOENT,
		    "a missing function found");
	TEST_ASSERT(symbols__file_imports(fn.path, "malloc"), "malloc not seen imported");
	TEST_ASSERT(!symbols__file_imports(fn.path, "lp_sym_func"),
		    "its own function counted as an import");
	return TEST_OK;
}
