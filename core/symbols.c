// SPDX-License-Identifier: GPL-2.0
/*
 * Symbol resolution (see symbols.h): each process's mappings, from perf
 * MMAP2 records or /proc/PID/maps, and the lookups that turn a runtime
 * address into a file address of one ELF file (core/symbols-dso.c).
 */
#include <inttypes.h>

#include "core/symbols-internal.h"
#include "core/tests.h"

static u32 hash_u32(u32 x)
{
	return (x * 2654435761u) >> (32 - HASH_BITS);
}

struct lp_symbols *symbols__new(void)
{
	elf_version(EV_CURRENT);
	return calloc(1, sizeof(struct lp_symbols));
}

static void proc__free(struct proc *p)
{
	free(p->maps);
	free(p->tcbs);
	free(p);
}

void symbols__delete(struct lp_symbols *s)
{
	struct label *l, *lnext;
	u32 i;

	if (!s)
		return;
	for (i = 0; i < HASH_SIZE; i++) {
		struct proc *p, *pnext;
		struct dso *d, *dnext;

		for (p = s->procs[i]; p; p = pnext) {
			pnext = p->next;
			proc__free(p);
		}
		for (d = s->dsos[i]; d; d = dnext) {
			dnext = d->next;
			dso__unload(d);
			free(d->path);
			free(d);
		}
	}
	for (l = s->labels; l; l = lnext) {
		lnext = l->next;
		free(l);
	}
	objects__delete(s->heap);
	free(s);
}

static const char *symbols__label(struct lp_symbols *s, const char *name)
{
	struct label *l;
	size_t len = strlen(name);

	for (l = s->labels; l; l = l->next)
		if (!strcmp(l->s, name))
			return l->s;
	l = malloc(sizeof(*l) + len + 1);
	if (!l)
		return NULL;
	memcpy(l->s, name, len + 1);
	l->next = s->labels;
	s->labels = l;
	return l->s;
}

static struct proc *symbols__proc(struct lp_symbols *s, u32 pid, bool create)
{
	u32 h = hash_u32(pid);
	struct proc *p;

	for (p = s->procs[h]; p; p = p->next)
		if (p->pid == pid)
			return p;
	if (!create)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->next = s->procs[h];
	s->procs[h] = p;
	return p;
}

void symbols__forget_pid(struct lp_symbols *s, u32 pid)
{
	struct proc **pp;

	for (pp = &s->procs[hash_u32(pid)]; *pp; pp = &(*pp)->next) {
		if ((*pp)->pid == pid) {
			struct proc *p = *pp;

			*pp = p->next;
			proc__free(p);
			return;
		}
	}
}

static int proc__reserve(struct proc *p, size_t extra)
{
	if (p->n + extra > p->cap) {
		size_t ncap = p->cap ? p->cap * 2 : 64;
		struct map *nv;

		while (ncap < p->n + extra)
			ncap *= 2;
		nv = realloc(p->maps, ncap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		p->maps = nv;
		p->cap = ncap;
	}
	return 0;
}

/* Index of the first mapping ending after @addr. */
static size_t proc__lower(const struct proc *p, u64 addr)
{
	size_t lo = 0, hi = p->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static ssize_t proc__find(const struct proc *p, u64 addr)
{
	size_t i = proc__lower(p, addr);

	return i < p->n && p->maps[i].start <= addr ? (ssize_t)i : -1;
}

/* Insert @nm, cutting what it overlaps as the kernel does for MAP_FIXED. */
static int proc__insert(struct proc *p, const struct map *nm)
{
	size_t first, last;

	if (proc__reserve(p, 2))
		return -ENOMEM;
	first = proc__lower(p, nm->start);
	if (first < p->n && p->maps[first].start < nm->start &&
	    p->maps[first].end > nm->end) {
		/* punch a hole: split into left, new, right */
		struct map right = p->maps[first];

		right.pgoff += nm->end - right.start;
		right.start = nm->end;
		p->maps[first].end = nm->start;
		memmove(&p->maps[first + 3], &p->maps[first + 1],
			(p->n - first - 1) * sizeof(*p->maps));
		p->maps[first + 1] = *nm;
		p->maps[first + 2] = right;
		p->n += 2;
		return 0;
	}
	if (first < p->n && p->maps[first].start < nm->start) {
		p->maps[first].end = nm->start;	/* trim the left neighbour */
		first++;
	}
	for (last = first; last < p->n && p->maps[last].end <= nm->end; last++)
		;	/* [first, last) are covered entirely */
	if (last < p->n && p->maps[last].start < nm->end) {
		struct map *r = &p->maps[last];

		r->pgoff += nm->end - r->start;
		r->start = nm->end;
	}
	/* replace [first, last) by the one new mapping */
	if (last == first) {
		memmove(&p->maps[first + 1], &p->maps[first],
			(p->n - first) * sizeof(*p->maps));
		p->n++;
	} else if (last > first + 1) {
		memmove(&p->maps[first + 1], &p->maps[last],
			(p->n - last) * sizeof(*p->maps));
		p->n -= last - first - 1;
	}
	p->maps[first] = *nm;
	return 0;
}

int symbols__add_mmap(struct lp_symbols *s, const struct lp_mmap *m)
{
	char name[sizeof(m->filename) + 1];
	struct map nm = { 0 };
	struct proc *p;

	if (!s || !m->len || m->start + m->len < m->start)
		return -EINVAL;
	memcpy(name, m->filename, sizeof(m->filename));
	name[sizeof(m->filename)] = '\0';
	nm.start = m->start;
	nm.end = m->start + m->len;
	nm.pgoff = m->pgoff;
	nm.prot = m->prot;
	/* perf names anonymous memory "//anon" (MMAP2): not a file */
	if (!strcmp(name, "//anon"))
		name[0] = '\0';
	if (name[0] == '/') {
		nm.dso = symbols__findnew_dso(s, name);
		if (!nm.dso)
			return -ENOMEM;
		nm.label = nm.dso->path;
	} else {
		nm.label = symbols__label(s, name[0] ? name : "[anon]");
		if (!nm.label)
			return -ENOMEM;
	}
	p = symbols__proc(s, m->pid, true);
	if (!p)
		return -ENOMEM;
	return proc__insert(p, &nm);
}

int symbols__add_mmap_cb(void *arg, const struct lp_mmap *m)
{
	return symbols__add_mmap(arg, m);
}

static bool prot_fits(u32 prot, u32 pflags)
{
	if (!!(prot & PROT_EXEC) != !!(pflags & PF_X))
		return false;
	return !(prot & PROT_WRITE) || (pflags & PF_W);
}

/*
 * Load biases that would put @m's file offset into some PT_LOAD segment.
 * Several segments can share a file page (the RELRO part of the data
 * segment and the read-only segment before it), hence several answers.
 */
static int map__bias_candidates(const struct map *m, const struct dso *d,
				u64 *out, int max, bool check_prot)
{
	int i, n = 0;

	for (i = 0; i < d->nsegs && n < max; i++) {
		const struct seg *sg = &d->segs[i];

		if (!sg->filesz || m->pgoff < (sg->offset & PAGE_MASK_4K) ||
		    m->pgoff >= sg->offset + sg->filesz)
			continue;
		if (check_prot && !prot_fits(m->prot, sg->flags))
			continue;
		/* start maps pgoff, which is vaddr - (offset - pgoff) */
		out[n++] = m->start + (sg->offset - m->pgoff) - sg->vaddr;
	}
	return n;
}

/* Resolve the load bias of p->maps[idx] (a mapping of a loaded dso). */
static int proc__map_bias(struct proc *p, size_t idx, u64 *bias)
{
	struct map *m = &p->maps[idx];
	u64 cand[8];
	int n, i, best = 0, best_votes = -1;
	size_t j;

	if (m->bias_state == BIAS_OK) {
		*bias = m->bias;
		return 0;
	}
	if (m->bias_state == BIAS_BAD)
		return -ENOENT;
	m->bias_state = BIAS_BAD;
	n = map__bias_candidates(m, m->dso, cand, ARRAY_SIZE(cand), true);
	if (!n)
		n = map__bias_candidates(m, m->dso, cand, ARRAY_SIZE(cand), false);
	if (!n)
		return -ENOENT;
	/* the true bias explains the other mappings of the same file too */
	for (i = 0; n > 1 && i < n; i++) {
		int votes = 0;

		for (j = 0; j < p->n; j++) {
			u64 c2[8];
			int k, n2;

			if (j == idx || p->maps[j].dso != m->dso)
				continue;
			n2 = map__bias_candidates(&p->maps[j], m->dso, c2,
						  ARRAY_SIZE(c2), true);
			for (k = 0; k < n2; k++)
				votes += c2[k] == cand[i];
		}
		if (votes > best_votes) {
			best_votes = votes;
			best = i;
		}
	}
	m->bias = cand[best];
	m->bias_state = BIAS_OK;
	*bias = m->bias;
	return 0;
}

int symbols__code(struct lp_symbols *s, u32 pid, u64 ip, struct lp_srcloc *out)
{
	struct proc *p;
	struct map *m;
	ssize_t idx;
	u64 bias;
	int ret;

	memset(out, 0, sizeof(*out));
	p = s ? symbols__proc(s, pid, false) : NULL;
	if (!p)
		return -ENOENT;
	idx = proc__find(p, ip);
	if (idx < 0)
		return -ENOENT;
	m = &p->maps[idx];
	out->dso = m->label;
	if (!m->dso || dso__load(m->dso) || proc__map_bias(p, idx, &bias))
		return -ENOENT;
	ret = dso__code(m->dso, ip - bias, out);
	out->dso = m->dso->path;
	out->dso_addr = ip - bias;
	return ret;
}

int symbols__add_alloc(struct lp_symbols *s, const struct lp_event *ev)
{
	if (!s->heap && !(s->heap = objects__new()))
		return -ENOMEM;
	if (ev->type == LP_EV_ALLOC)
		return objects__alloc(s->heap, &ev->alloc);
	if (ev->type == LP_EV_FREE)
		return objects__free(s->heap, &ev->alloc);
	return 0;
}

int symbols__add_thread(struct lp_symbols *s, const struct lp_thread *t)
{
	struct proc *p;

	if (!t->fs_base)	/* not known yet (a program's first thread at its exec) */
		return 0;
	p = symbols__proc(s, t->pid, true);
	if (!p)
		return -ENOMEM;
	if (p->ntcbs == p->captcbs) {
		size_t ncap = p->captcbs ? p->captcbs * 2 : 16;
		struct tcb *nv = realloc(p->tcbs, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		p->tcbs = nv;
		p->captcbs = ncap;
	}
	p->tcbs[p->ntcbs++] = (struct tcb){ t->fs_base, t->index, t->tid };
	return 0;
}

/*
 * The latest thread whose TCB lies in @m: a reused stack is the new
 * thread's (not the first thread's: ld.so allocates its TCB elsewhere).
 */
static const struct tcb *stack_owner(const struct proc *p, const struct map *m)
{
	size_t i = p->ntcbs;

	while (i--)
		if (p->tcbs[i].index && p->tcbs[i].fs_base >= m->start &&
		    p->tcbs[i].fs_base < m->end)
			return &p->tcbs[i];
	return NULL;
}

/*
 * A static TLS variable of the program: x86-64 puts the executable's TLS
 * block right below each thread pointer (TLS variant II, the block first:
 * [fs_base - roundup(memsz, align), fs_base)); its STT_TLS symbols give the
 * offsets within. The executable is the process's lowest file mapping.
 * 0 and @out named "VAR of T<index>", or -ENOENT.
 */
static int tls_data(const struct proc *p, u64 addr, struct lp_dataobj *out)
{
	struct dso *exe = NULL;
	u64 size;
	size_t i;

	for (i = 0; i < p->n && !exe; i++)
		if (p->maps[i].dso && !p->maps[i].pgoff)
			exe = p->maps[i].dso;
	if (!exe || dso__load(exe) || !exe->tls_memsz)
		return -ENOENT;
	size = (exe->tls_memsz + exe->tls_align - 1) / exe->tls_align * exe->tls_align;
	for (i = p->ntcbs; i--; ) {
		const struct tcb *t = &p->tcbs[i];
		u64 lo = t->fs_base - size;

		if (addr < lo || addr >= t->fs_base)
			continue;
		char var[200] = "TLS";

		if (dso__tls_data(exe, addr - lo, out) == 0)
			snprintf(var, sizeof(var), "%s", out->name);
		else
			out->offset = addr - lo;
		snprintf(out->label, sizeof(out->label), "%s of T%u (tid %u)", var, t->index, t->tid);
		out->dso = exe->path;
		out->start = addr - out->offset;
		out->name = out->label;
		return 0;
	}
	return -ENOENT;
}

const struct lp_objects *symbols__objects(const struct lp_symbols *s)
{
	return s->heap;
}

/* Frames in these are the allocator's, not the program's call site. */
static bool allocator_dso(const char *path)
{
	static const char *const libs[] = { "libc.so", "libc-", "libstdc++", "ld-linux" };
	const char *base = path ? strrchr(path, '/') : NULL;
	size_t i;

	base = base ? base + 1 : path;
	for (i = 0; base && i < ARRAY_SIZE(libs); i++)
		if (!strncmp(base, libs[i], strlen(libs[i])))
			return true;
	return false;
}

/* @loc names a file's code without a symbol (symbols__code() failed on it) */
static bool unnamed_file_code(const struct lp_srcloc *loc)
{
	return loc->dso && loc->dso[0] == '/' && loc->dso_addr;
}

bool symbols__code_unnamed(const struct lp_srcloc *loc, u64 ip, char *buf, size_t len)
{
	if (unnamed_file_code(loc)) {
		snprintf(buf, len, "%s+%#" PRIx64, strrchr(loc->dso, '/') + 1, loc->dso_addr);
		return true;
	}
	if (loc->dso && loc->dso[0] == '[')
		snprintf(buf, len, "%#" PRIx64 " %s", ip, loc->dso);
	else
		snprintf(buf, len, "%#" PRIx64, ip);
	return false;
}

int symbols__alloc_site(struct lp_symbols *s, const struct lp_object *b,
			struct lp_srcloc *out)
{
	int i, first = -1;

	for (i = 0; i < b->nframes; i++) {
		/* a return address: the call is the instruction before it */
		if (symbols__code(s, b->pid, b->frames[i] - 1, out)) {
			/*
			 * A stripped program's own frame is its site still: the
			 * libc frames past it (__libc_start_call_main) are not.
			 */
			if (unnamed_file_code(out) && !allocator_dso(out->dso))
				return 0;
			continue;
		}
		if (first < 0)
			first = i;
		if (!allocator_dso(out->dso))
			return 0;
	}
	if (first < 0)
		return -ENOENT;
	return symbols__code(s, b->pid, b->frames[first] - 1, out);
}

static void heap_label(struct lp_symbols *s, const struct lp_object *b, u64 addr,
		       struct lp_dataobj *out)
{
	static const char *const verbs[LP_ALLOC__MAX] = {
		[LP_ALLOC_MALLOC] = "malloc'd", [LP_ALLOC_CALLOC] = "calloc'd",
		[LP_ALLOC_REALLOC] = "realloc'd", [LP_ALLOC_ALIGNED] = "aligned_alloc'd",
		[LP_ALLOC_MMAP] = "mmap'd", [LP_ALLOC_POSIX_MEMALIGN] = "posix_memalign'd",
		[LP_ALLOC_VALLOC] = "valloc'd", [LP_ALLOC_NEW] = "new'd",
	};
	const char *verb = b->fn < LP_ALLOC__MAX && verbs[b->fn] ? verbs[b->fn] : "allocated";
	struct lp_srcloc loc;
	int n;

	out->heap = b;
	out->start = b->start;
	out->offset = addr - b->start;
	out->size = b->size;
	n = snprintf(out->label, sizeof(out->label), "%s %" PRIu64 " B", verb, b->size);
	if (symbols__alloc_site(s, b, &loc) == 0 && n > 0 && (size_t)n < sizeof(out->label)) {
		const char *f = loc.file ? strrchr(loc.file, '/') : NULL;
		char where[200];

		f = f ? f + 1 : loc.file;
		if (!loc.function) {
			symbols__code_unnamed(&loc, 0, where, sizeof(where));
			snprintf(out->label + n, sizeof(out->label) - n, " at %s (no symbols)",
				 where);
		} else if (f)
			snprintf(out->label + n, sizeof(out->label) - n, " at %s:%u (%s)", f,
				 loc.line, loc.function);
		else
			snprintf(out->label + n, sizeof(out->label) - n, " in %s", loc.function);
	}
	out->name = out->label;
}

int symbols__data(struct lp_symbols *s, u32 pid, u64 addr, struct lp_dataobj *out)
{
	const struct lp_object *b;
	struct proc *p;
	struct map *m, *prev;
	ssize_t idx;
	u64 bias;

	memset(out, 0, sizeof(*out));
	b = s && s->heap ? objects__find(s->heap, pid, addr, 0) : NULL;
	p = s ? symbols__proc(s, pid, false) : NULL;
	idx = p ? proc__find(p, addr) : -1;
	/* pthread_create mmaps the stacks: a thread's is named as its stack */
	if (b && b->fn == LP_ALLOC_MMAP && idx >= 0 && stack_owner(p, &p->maps[idx]))
		b = NULL;
	if (b) {
		heap_label(s, b, addr, out);
		return 0;
	}
	if (!p)
		return -ENOENT;
	if (tls_data(p, addr, out) == 0)
		return 0;
	if (idx < 0)
		return -ENOENT;
	m = &p->maps[idx];
	out->start = m->start;
	out->offset = addr - m->start;
	out->size = m->end - m->start;
	if (m->dso) {
		out->dso = m->dso->path;
		out->file_offset = addr - m->start + m->pgoff;
		snprintf(out->label, sizeof(out->label), "%s", m->dso->base);
		if (!dso__load(m->dso) && !proc__map_bias(p, idx, &bias))
			dso__data(m->dso, addr - bias, bias, out);
		return 0;
	}
	snprintf(out->label, sizeof(out->label), "%s", m->label);
	if (!strcmp(m->label, "[anon]")) {
		const struct tcb *o = stack_owner(p, m);

		if (o) {
			snprintf(out->label, sizeof(out->label), "stack of T%u (tid %u)", o->index,
				 o->tid);
			return 0;
		}
	}
	/* .bss past the file's last page: anonymous, right after the file */
	prev = idx > 0 ? &p->maps[idx - 1] : NULL;
	if (prev && prev->dso && prev->end == m->start && !strcmp(m->label, "[anon]") &&
	    !dso__load(prev->dso) && !proc__map_bias(p, idx - 1, &bias) &&
	    addr - bias < prev->dso->seg_end) {
		dso__data(prev->dso, addr - bias, bias, out);
		if (!out->name) {
			out->start = m->start;
			out->offset = addr - m->start;
		}
	}
	return 0;
}

int symbols__data_label(const struct lp_dataobj *obj, char *buf, size_t len)
{
	if (obj->name && obj->member[0])
		return snprintf(buf, len, "%s%s+%#" PRIx64, obj->label, obj->member,
				obj->member_offset);
	if (obj->name)
		return snprintf(buf, len, "%s+%#" PRIx64, obj->label, obj->offset);
	return snprintf(buf, len, "%s", obj->label);
}

int symbols__read_proc_maps(pid_t pid,
			    int (*cb)(void *arg, const struct lp_mmap *m),
			    void *arg)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while ((len = getline(&line, &cap, f)) > 0) {
		unsigned long long start, end, off;
		char perms[8];
		int name_at = 0;
		struct lp_mmap m;
		char *name;

		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %*x:%*x %*u %n", &start,
			   &end, perms, &off, &name_at) < 4 || end <= start) {
			ret = -EINVAL;
			break;
		}
		memset(&m, 0, sizeof(m));
		m.pid = pid;
		m.start = start;
		m.len = end - start;
		m.pgoff = off;
		m.prot = (perms[0] == 'r' ? PROT_READ : 0) |
			 (perms[1] == 'w' ? PROT_WRITE : 0) |
			 (perms[2] == 'x' ? PROT_EXEC : 0);
		name = name_at ? line + name_at : line + len;
		while (*name == ' ')
			name++;
		snprintf(m.filename, sizeof(m.filename), "%s", name);
		ret = cb(arg, &m);
		if (ret)
			break;
	}
	free(line);
	fclose(f);
	return ret;
}

LP_SELFTEST(selftest_symbols_self, "symbols: lociprof names its own code")
{
	struct lp_symbols *s = symbols__new();
	struct lp_srcloc loc;
	int ret;

	TEST_ASSERT(s, "symbols__new failed");
	ret = symbols__read_proc_maps(getpid(), symbols__add_mmap_cb, s);
	TEST_ASSERT(ret == 0, "read_proc_maps: %d", ret);
	ret = symbols__code(s, getpid(), (u64)(uintptr_t)symbols__code, &loc);
	TEST_ASSERT(ret == 0, "symbols__code: %d (dso %s)", ret,
		    loc.dso ? loc.dso : "-");
	TEST_ASSERT(loc.function && !strcmp(loc.function, "symbols__code"),
		    "function %s", loc.function ? loc.function : "(null)");
	TEST_ASSERT(loc.offset == 0, "offset %llu", (unsigned long long)loc.offset);
	symbols__delete(s);
	return TEST_OK;
}

int symbols__func_file_offset(const char *path, const char *name, u64 *off)
{
	return elf__func_file_offset(path, name, off);
}

int symbols__file_imports(const char *path, const char *name)
{
	return elf__imports(path, name);
}
