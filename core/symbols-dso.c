// SPDX-License-Identifier: GPL-2.0
/*
 * One ELF file (a "dso"): its symbols, sections and segments, and its
 * DWARF line and inline lookups, loaded once and shared by every process
 * that maps it.
 *
 * Each file gets its own Dwfl, reported at bias 0 so that module
 * addresses are the file's own virtual addresses: a runtime address becomes
 * a file address by subtracting the load bias of the mapping holding it
 * (core/symbols.c), and everything here is per file.
 */
#include "core/symbols-internal.h"

static char *debuginfo_path;

/* Never asked: every module is reported with its file already open. */
static int symbols__find_elf(Dwfl_Module *mod, void **userdata,
			     const char *modname, Dwarf_Addr base,
			     char **file_name, Elf **elfp)
{
	(void)mod, (void)userdata, (void)modname, (void)base;
	*file_name = NULL;
	*elfp = NULL;
	return -1;
}

/* @path if it is an ELF file carrying build ID @bid (when the module has one). */
static int open_debug_candidate(const char *path, const unsigned char *bid,
				int bidlen, char **name)
{
	const void *b2;
	ssize_t n2 = -1;
	Elf *e;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (e)
		n2 = dwelf_elf_gnu_build_id(e, &b2);
	if (!e || (bidlen > 0 && (n2 != bidlen || memcmp(b2, bid, bidlen)))) {
		if (e)
			elf_end(e);
		close(fd);
		return -1;
	}
	elf_end(e);
	*name = strdup(path);
	return fd;
}

/*
 * Separate debug info: /usr/lib/debug/.build-id/xx/yyyy.debug, then the
 * .gnu_debuglink name next to the file, in .debug/ and under /usr/lib/debug.
 * Our own instead of dwfl_standard_find_debuginfo, which drags debuginfod's
 * dlopen() into the static binary.
 */
static int symbols__find_debuginfo(Dwfl_Module *mod, void **userdata,
				   const char *modname, Dwarf_Addr base,
				   const char *file_name, const char *debuglink,
				   GElf_Word crc, char **debuginfo_file_name)
{
	const unsigned char *bid = NULL;
	char path[4096], dir[4096];
	GElf_Addr bid_vaddr;
	const char *slash;
	int i, len, fd, n;

	(void)userdata, (void)modname, (void)base, (void)crc;
	len = dwfl_module_build_id(mod, &bid, &bid_vaddr);
	if (len > 1) {
		n = snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%02x/",
			     bid[0]);
		for (i = 1; i < len && n < 200; i++)
			n += snprintf(path + n, sizeof(path) - n, "%02x", bid[i]);
		snprintf(path + n, sizeof(path) - n, ".debug");
		fd = open_debug_candidate(path, bid, len, debuginfo_file_name);
		if (fd >= 0)
			return fd;
	}
	if (!debuglink || !file_name || strchr(debuglink, '/'))
		return -1;
	slash = strrchr(file_name, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - file_name) : 1,
		 slash ? file_name : ".");
	for (i = 0; i < 3; i++) {
		static const char *const fmt[] = { "%s/%s", "%s/.debug/%s",
						   "/usr/lib/debug%s/%s" };

		if (snprintf(path, sizeof(path), fmt[i], dir, debuglink) >=
		    (int)sizeof(path) || !strcmp(path, file_name))
			continue;
		fd = open_debug_candidate(path, bid, len, debuginfo_file_name);
		if (fd >= 0)
			return fd;
	}
	return -1;
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = symbols__find_elf,
	.find_debuginfo = symbols__find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

static u32 hash_str(const char *s)
{
	u32 h = 2166136261u;

	while (*s)
		h = (h ^ (u8)*s++) * 16777619u;
	return h & (HASH_SIZE - 1);
}

void dso__unload(struct dso *d)
{
	size_t i;

	if (d->dwfl)
		dwfl_end(d->dwfl);	/* closes the fd the module took */
	d->dwfl = NULL;
	d->mod = NULL;
	free(d->segs);
	free(d->funcs);
	free(d->objs);
	free(d->tls);
	free(d->sects);
	free(d->gvars);
	d->gvars = NULL;
	d->ngvars = 0;
	d->gvars_done = false;
	d->segs = NULL;
	d->funcs = d->objs = d->tls = NULL;
	d->sects = NULL;
	d->nsegs = 0;
	d->nfuncs = d->nobjs = d->nsects = d->ntls = 0;
	d->tls_memsz = d->tls_align = 0;
	for (i = 0; i < d->cache_cap; i++) {
		struct code_entry *e = d->cache[i], *next;

		for (; e; e = next) {
			next = e->next;
			free(e);
		}
	}
	free(d->cache);
	d->cache = NULL;
	d->cache_cap = d->cache_n = 0;
	while (d->strs) {
		struct label *l = d->strs;

		d->strs = l->next;
		free(l);
	}
}

static bool same_identity(const struct dso *d, const struct stat *st)
{
	return d->dev == st->st_dev && d->ino == st->st_ino &&
	       d->size == st->st_size &&
	       d->mtime.tv_sec == st->st_mtim.tv_sec &&
	       d->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && !strcmp(s + ls - lx, suffix);
}

/*
 * The dso for @path as it is on disk now. A file that changed since it was
 * last seen gets a new entry; the old one stays for the mappings that
 * still point to it (and for the strings lookups handed out).
 */
struct dso *symbols__findnew_dso(struct lp_symbols *s, const char *path)
{
	u32 h = hash_str(path);
	struct stat st;
	bool have_id, deleted = ends_with(path, " (deleted)");
	struct dso *d;
	const char *slash;

	have_id = !deleted && stat(path, &st) == 0;
	for (d = s->dsos[h]; d; d = d->next) {
		if (strcmp(d->path, path))
			continue;
		/* newest entry for this path decides */
		if (d->deleted || (!have_id && !d->have_id) ||
		    (have_id && d->have_id && same_identity(d, &st)))
			return d;
		break;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->path = strdup(path);
	if (!d->path) {
		free(d);
		return NULL;
	}
	slash = strrchr(d->path, '/');
	d->base = slash ? slash + 1 : d->path;
	d->deleted = deleted;
	d->have_id = have_id;
	if (have_id) {
		d->dev = st.st_dev;
		d->ino = st.st_ino;
		d->size = st.st_size;
		d->mtime = st.st_mtim;
		d->is_reg = S_ISREG(st.st_mode);
	}
	d->next = s->dsos[h];
	s->dsos[h] = d;
	return d;
}

/* Which of two symbols at the same address names it: sized, global, plain. */
static bool sym_better(const struct sym *a, const struct sym *b)
{
	static const int bind_rank[] = { [STB_LOCAL] = 0, [STB_GLOBAL] = 2,
					 [STB_WEAK] = 1 };
	int ra = a->bind <= STB_WEAK ? bind_rank[a->bind] : 0;
	int rb = b->bind <= STB_WEAK ? bind_rank[b->bind] : 0;
	size_t ua = strspn(a->name, "_"), ub = strspn(b->name, "_");

	if (!!a->size != !!b->size)
		return a->size;
	if (ra != rb)
		return ra > rb;
	if (ua != ub)
		return ua < ub;
	if (a->size != b->size)
		return a->size > b->size;
	return strcmp(a->name, b->name) < 0;
}

static int sym_cmp(const void *pa, const void *pb)
{
	const struct sym *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return sym_better(a, b) ? -1 : sym_better(b, a) ? 1 : 0;
}

/* Sort by address and keep one name per address (the best alias). */
static size_t syms__sort_unique(struct sym *v, size_t n)
{
	size_t i, j = 0;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), sym_cmp);
	for (i = 1; i < n; i++) {
		if (v[i].start == v[j].start)
			continue;	/* sorted best first */
		v[++j] = v[i];
	}
	return j + 1;
}

static int sect_cmp(const void *pa, const void *pb)
{
	const struct sect *a = pa, *b = pb;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int push_sym(struct sym **v, size_t *n, size_t *cap, const struct sym *x)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 256;
		struct sym *nv = realloc(*v, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = ncap;
	}
	(*v)[(*n)++] = *x;
	return 0;
}

static int dso__load_segments(struct dso *d, Elf *elf)
{
	size_t i, phnum;

	if (elf_getphdrnum(elf, &phnum) || !phnum)
		return -ENOENT;
	d->segs = calloc(phnum, sizeof(*d->segs));
	if (!d->segs)
		return -ENOMEM;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_TLS) {
			d->tls_memsz = ph.p_memsz;
			d->tls_align = ph.p_align ? ph.p_align : 1;
		}
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		d->segs[d->nsegs++] = (struct seg){ ph.p_vaddr, ph.p_offset,
						    ph.p_filesz, ph.p_memsz,
						    ph.p_flags };
		if (ph.p_vaddr + ph.p_memsz > d->seg_end)
			d->seg_end = ph.p_vaddr + ph.p_memsz;
	}
	return d->nsegs ? 0 : -ENOENT;
}

static int dso__load_sections(struct dso *d, Elf *elf)
{
	size_t shstrndx, cap = 0;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;	/* no section headers: only labels suffer */
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    (sh.sh_flags & SHF_TLS) || !sh.sh_size)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		if (d->nsects == cap) {
			size_t ncap = cap ? cap * 2 : 32;
			struct sect *nv = realloc(d->sects, ncap * sizeof(*nv));

			if (!nv)
				return -ENOMEM;
			d->sects = nv;
			cap = ncap;
		}
		d->sects[d->nsects++] = (struct sect){ sh.sh_addr, sh.sh_size, name };
	}
	if (d->nsects)
		qsort(d->sects, d->nsects, sizeof(*d->sects), sect_cmp);
	return 0;
}

static int dso__load_symbols(struct dso *d)
{
	size_t fcap = 0, ocap = 0, tcap = 0;
	int i, n = dwfl_module_getsymtab(d->mod);

	for (i = 0; i < n; i++) {
		GElf_Sym es;
		GElf_Addr addr;
		GElf_Word shndx;
		struct sym x;
		const char *name;
		int type, err;

		name = dwfl_module_getsym_info(d->mod, i, &es, &addr, &shndx,
					       NULL, NULL);
		if (!name || !*name || shndx == SHN_UNDEF ||
		    shndx == (GElf_Word)-1 || shndx == SHN_ABS)
			continue;
		type = GELF_ST_TYPE(es.st_info);
		x = (struct sym){ addr - d->mod_bias, es.st_size, name,
				  GELF_ST_BIND(es.st_info) };
		if (type == STT_FUNC || type == STT_GNU_IFUNC)
			err = push_sym(&d->funcs, &d->nfuncs, &fcap, &x);
		else if (type == STT_OBJECT && es.st_size)
			err = push_sym(&d->objs, &d->nobjs, &ocap, &x);
		else if (type == STT_TLS && es.st_size)	/* its value: offset in the block */
			err = push_sym(&d->tls, &d->ntls, &tcap,
				       &(struct sym){ es.st_value, es.st_size, name,
						      GELF_ST_BIND(es.st_info) });
		else
			continue;
		if (err)
			return err;
	}
	d->nfuncs = syms__sort_unique(d->funcs, d->nfuncs);
	d->nobjs = syms__sort_unique(d->objs, d->nobjs);
	d->ntls = syms__sort_unique(d->tls, d->ntls);
	return 0;
}

/* Open the ELF file behind @d once; 0 if usable, else -ENOENT (cached). */
int dso__load(struct dso *d)
{
	struct stat st;
	GElf_Addr bias;
	Elf *elf;
	int fd;

	if (d->state == DSO_OK)
		return 0;
	if (d->state == DSO_FAILED)
		return -ENOENT;
	d->state = DSO_FAILED;
	if (d->deleted || !d->have_id || !d->is_reg)
		return -ENOENT;
	fd = open(d->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ENOENT;
	/* the file must still be the one the mapping was added for */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !same_identity(d, &st)) {
		close(fd);
		return -ENOENT;
	}
	d->dwfl = dwfl_begin(&dwfl_callbacks);
	if (!d->dwfl) {
		close(fd);
		return -ENOENT;
	}
	d->mod = dwfl_report_elf(d->dwfl, d->base, d->path, fd, 0, true);
	if (!d->mod) {
		close(fd);	/* not consumed on failure */
		goto fail;
	}
	if (dwfl_report_end(d->dwfl, NULL, NULL))
		goto fail;
	elf = dwfl_module_getelf(d->mod, &bias);
	if (!elf)
		goto fail;
	d->mod_bias = bias;
	if (dso__load_segments(d, elf) || dso__load_sections(d, elf) ||
	    dso__load_symbols(d))
		goto fail;
	d->state = DSO_OK;
	return 0;
fail:
	dso__unload(d);
	return -ENOENT;
}

/* Index of the last entry starting at or before @addr, or -1. */
static ssize_t syms__floor(const struct sym *v, size_t n, u64 addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (ssize_t)lo - 1;
}

const struct sect *dso__section(const struct dso *d, u64 vaddr)
{
	size_t lo = 0, hi = d->nsects;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->sects[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && vaddr < d->sects[lo - 1].addr + d->sects[lo - 1].size)
		return &d->sects[lo - 1];
	return NULL;
}

/*
 * The symbol holding @vaddr: a sized one that contains it (looking a few
 * entries back for nested symbols), else an unsized one before it in the
 * same section (hand-written assembly).
 */
const struct sym *syms__find(const struct dso *d, const struct sym *v,
				    size_t n, u64 vaddr, bool allow_unsized)
{
	ssize_t i = syms__floor(v, n, vaddr), j;
	const struct sect *sa, *sb;

	if (i < 0)
		return NULL;
	for (j = i; j >= 0 && j > i - 8; j--)
		if (v[j].size && vaddr < v[j].start + v[j].size)
			return &v[j];
	if (!allow_unsized || v[i].size)
		return NULL;
	sa = dso__section(d, v[i].start);
	sb = dso__section(d, vaddr);
	return sa && sa == sb ? &v[i] : NULL;
}

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n = NULL;

	if (dwarf_attr_integrate(die, DW_AT_name, &a))
		n = dwarf_formstring(&a);
	if (!n && dwarf_attr_integrate(die, DW_AT_linkage_name, &a))
		n = dwarf_formstring(&a);
	return n;
}

/* A string that lives as long as @d's module: for paths we had to build. */
static const char *dso__strdup(struct dso *d, const char *a, const char *b)
{
	size_t la = strlen(a), lb = b ? strlen(b) : 0;
	struct label *l = malloc(sizeof(*l) + la + lb + 2);

	if (!l)
		return a;
	memcpy(l->s, a, la);
	if (b) {
		l->s[la] = '/';
		memcpy(l->s + la + 1, b, lb + 1);
	} else {
		l->s[la] = '\0';
	}
	l->next = d->strs;
	d->strs = l;
	return l->s;
}

/*
 * Source paths relative to the compilation directory (gcc run on a relative
 * path) are made absolute, so reports show the same file whatever the CU.
 */
static const char *dso__abs_path(struct dso *d, Dwarf_Die *cu, const char *file)
{
	Dwarf_Attribute a;
	const char *dir;
	struct label *l;
	size_t ld;

	if (!file || file[0] == '/' || !cu ||
	    !dwarf_attr(cu, DW_AT_comp_dir, &a) || !(dir = dwarf_formstring(&a)))
		return file;
	ld = strlen(dir);
	for (l = d->strs; l; l = l->next)	/* few distinct files per DSO */
		if (!strncmp(l->s, dir, ld) && l->s[ld] == '/' &&
		    !strcmp(l->s + ld + 1, file))
			return l->s;
	return dso__strdup(d, dir, file);
}

/* DW_AT_call_file/call_line of an inlined_subroutine DIE. */
static void die_call_site(struct dso *d, Dwarf_Die *die, const char **file,
			  u32 *line)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	Dwarf_Files *files;
	Dwarf_Die cu;
	size_t nfiles;

	*file = NULL;
	*line = 0;
	if (dwarf_attr(die, DW_AT_call_line, &a) && !dwarf_formudata(&a, &w))
		*line = w;
	if (dwarf_attr(die, DW_AT_call_file, &a) && !dwarf_formudata(&a, &w) &&
	    dwarf_diecu(die, &cu, NULL, NULL) &&
	    !dwarf_getsrcfiles(&cu, &files, &nfiles) && w < nfiles)
		*file = dso__abs_path(d, &cu, dwarf_filesrc(files, w, NULL, NULL));
}

#define MAX_DIE_DEPTH 64

/*
 * Walk down from @parent to the innermost function-like DIEs holding @pc,
 * outermost first, into @path. Only children whose ranges hold pc are
 * entered (and the scopes that carry no ranges: namespaces, classes), so a
 * lookup costs the siblings along one path, not the whole CU as
 * dwarf_getscopes does. Returns true once a subprogram was found.
 */
static bool die_find_pc(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *path,
			int *n, int depth)
{
	Dwarf_Die child;

	if (depth > MAX_DIE_DEPTH || dwarf_child(parent, &child) != 0)
		return false;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_namespace:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
		case DW_TAG_module:
			if (die_find_pc(&child, pc, path, n, depth + 1))
				return true;
			break;
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
		case DW_TAG_lexical_block:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
			if (dwarf_haspc(&child, pc) != 1)
				break;
			if (dwarf_tag(&child) != DW_TAG_lexical_block &&
			    dwarf_tag(&child) != DW_TAG_try_block &&
			    dwarf_tag(&child) != DW_TAG_catch_block &&
			    *n < MAX_DIE_DEPTH)
				path[(*n)++] = child;
			die_find_pc(&child, pc, path, n, depth + 1);
			return true;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* Fill the inline chain of @loc (innermost first) for module address @dwaddr. */
static void dso__inline_chain(struct dso *d, Dwarf_Addr dwaddr,
			      struct lp_srcloc *loc, u64 *func_low)
{
	Dwarf_Die path[MAX_DIE_DEPTH];
	Dwarf_Addr cubias, low;
	Dwarf_Die *cu;
	const char *file = loc->file;
	u32 line = loc->line;
	int i, n = 0;

	cu = dwfl_module_addrdie(d->mod, dwaddr, &cubias);
	if (!cu || !die_find_pc(cu, dwaddr - cubias, path, &n, 0) || !n)
		return;
	/* path[0] is the subprogram, path[n - 1] the innermost inlined body */
	if (dwarf_lowpc(&path[0], &low) == 0)
		*func_low = low + cubias - d->mod_bias;
	for (i = n - 1; i >= 0; i--) {
		struct lp_srcframe *f = NULL;

		if (loc->nframes < LP_SRCLOC_MAX_FRAMES)
			f = &loc->frames[loc->nframes++];
		else if (i == 0)	/* keep the out-of-line function last */
			f = &loc->frames[LP_SRCLOC_MAX_FRAMES - 1];
		if (f) {
			f->function = die_name(&path[i]);
			f->file = file;
			f->line = line;
		}
		if (i > 0)
			die_call_site(d, &path[i], &file, &line);
	}
}

static int dso__code_uncached(struct dso *d, u64 vaddr, struct lp_srcloc *loc)
{
	Dwarf_Addr dwaddr = vaddr + d->mod_bias;
	const struct sym *fs;
	Dwfl_Line *l;
	u64 func_low = ~0ull;
	int line = 0;

	fs = syms__find(d, d->funcs, d->nfuncs, vaddr, true);
	if (fs) {
		loc->function = fs->name;
		loc->offset = vaddr - fs->start;
	}
	l = dwfl_module_getsrc(d->mod, dwaddr);
	if (l) {
		Dwarf_Addr cubias;

		loc->file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
		loc->file = dso__abs_path(d, dwfl_module_addrdie(d->mod, dwaddr, &cubias),
					  loc->file);
		loc->line = line > 0 ? line : 0;
	}
	dso__inline_chain(d, dwaddr, loc, &func_low);
	/* no symbol table entry (stripped symtab, kept DWARF): name from DWARF */
	if (!loc->function && loc->nframes && loc->frames[loc->nframes - 1].function) {
		loc->function = loc->frames[loc->nframes - 1].function;
		loc->offset = func_low <= vaddr ? vaddr - func_low : 0;
	}
	return loc->function ? 0 : -ENOENT;
}

int dso__code(struct dso *d, u64 vaddr, struct lp_srcloc *out)
{
	struct code_entry *e;
	size_t h;

	if (d->cache_n >= d->cache_cap) {
		size_t i, ncap = d->cache_cap ? d->cache_cap * 2 : 1024;
		struct code_entry **nc = calloc(ncap, sizeof(*nc));

		if (nc) {
			for (i = 0; i < d->cache_cap; i++) {
				struct code_entry *next;

				for (e = d->cache[i]; e; e = next) {
					next = e->next;
					h = (e->vaddr * 0x9e3779b97f4a7c15ull) >> 32;
					e->next = nc[h & (ncap - 1)];
					nc[h & (ncap - 1)] = e;
				}
			}
			free(d->cache);
			d->cache = nc;
			d->cache_cap = ncap;
		}
	}
	if (!d->cache_cap)
		return dso__code_uncached(d, vaddr, out);
	h = ((vaddr * 0x9e3779b97f4a7c15ull) >> 32) & (d->cache_cap - 1);
	for (e = d->cache[h]; e; e = e->next) {
		if (e->vaddr == vaddr) {
			*out = e->loc;
			return e->ret;
		}
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return dso__code_uncached(d, vaddr, out);
	e->vaddr = vaddr;
	e->ret = dso__code_uncached(d, vaddr, &e->loc);
	e->next = d->cache[h];
	d->cache[h] = e;
	d->cache_n++;
	*out = e->loc;
	return e->ret;
}

int dso__tls_data(struct dso *d, u64 off, struct lp_dataobj *out)
{
	ssize_t i = syms__floor(d->tls, d->ntls, off);

	if (i < 0 || off >= d->tls[i].start + d->tls[i].size)
		return -ENOENT;
	out->name = d->tls[i].name;
	out->offset = off - d->tls[i].start;
	out->size = d->tls[i].size;
	snprintf(out->label, sizeof(out->label), "%s", d->tls[i].name);
	return 0;
}

/* Label a data address inside loaded dso @d at file address @vaddr. */
void dso__data(struct dso *d, u64 vaddr, u64 bias, struct lp_dataobj *out)
{
	const struct sym *o = syms__find(d, d->objs, d->nobjs, vaddr, false);
	const struct sect *sc = dso__section(d, vaddr);

	out->dso = d->path;
	out->section = sc ? sc->name : NULL;
	if (o) {
		out->name = o->name;
		out->start = o->start + bias;
		out->offset = vaddr - o->start;
		out->size = o->size;
		snprintf(out->label, sizeof(out->label), "%s", o->name);
		if (dso__member(d, o->start, vaddr - o->start, out->member, sizeof(out->member),
				&out->member_offset))
			out->member[0] = 0;
	} else if (sc) {
		snprintf(out->label, sizeof(out->label), "%s of %s", sc->name,
			 d->base);
	} else {
		snprintf(out->label, sizeof(out->label), "%s", d->base);
	}
}

/*
 * The symbol table of @path itself (.dynsym if @dynamic, else .symtab if
 * the file has one, else .dynsym), not the separate debug file dso__load
 * reads: a uprobe's function is exported or in the executable's own
 * table, and loading libc's debug file for it took 13-20 ms of every
 * --objects setup. Calls @fn for each symbol until it returns nonzero;
 * that value, or 0.
 */
static int elf_each_sym(const char *path, int dynamic,
			int (*fn)(Elf *e, const GElf_Sym *sym, const char *name, void *arg),
			void *arg)
{
	Elf_Scn *scn = NULL, *tab = NULL;
	GElf_Shdr sh, tsh;
	Elf_Data *data, *str;
	size_t i, n = 0;
	int fd, ret = 0;
	Elf *e;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	e = elf_begin(fd, ELF_C_READ, NULL);	/* pread: no mapping of the file to tear down */
	while (e && (scn = elf_nextscn(e, scn))) {
		if (gelf_getshdr(scn, &sh) && ((sh.sh_type == SHT_SYMTAB && !dynamic) ||
					       (sh.sh_type == SHT_DYNSYM && !tab))) {
			tab = scn;
			tsh = sh;
		}
	}
	data = tab ? elf_getdata(tab, NULL) : NULL;
	/* the names read directly: elf_strptr checks the rest of the table each call */
	str = data ? elf_getdata(elf_getscn(e, tsh.sh_link), NULL) : NULL;
	if (str && str->d_size && ((const char *)str->d_buf)[str->d_size - 1] == 0 &&
	    tsh.sh_entsize)
		n = tsh.sh_size / tsh.sh_entsize;
	for (i = 0; i < n && !ret; i++) {
		GElf_Sym sym;

		if (gelf_getsym(data, (int)i, &sym) && sym.st_name < str->d_size)
			ret = fn(e, &sym, (const char *)str->d_buf + sym.st_name, arg);
	}
	if (e)
		elf_end(e);
	close(fd);
	return ret;
}

struct func_query {
	const char *name;
	u64 off;
};

/* The defined function of that name: its address moved into the executable PT_LOAD. */
static int func_offset_cb(Elf *e, const GElf_Sym *sym, const char *name, void *arg)
{
	struct func_query *q = arg;
	size_t k, nph;
	GElf_Phdr ph;

	if (strcmp(name, q->name) || sym->st_shndx == SHN_UNDEF ||
	    GELF_ST_TYPE(sym->st_info) != STT_FUNC || elf_getphdrnum(e, &nph))
		return 0;
	for (k = 0; k < nph; k++) {
		if (gelf_getphdr(e, (int)k, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
		    sym->st_value >= ph.p_vaddr && sym->st_value < ph.p_vaddr + ph.p_filesz) {
			q->off = sym->st_value - ph.p_vaddr + ph.p_offset;
			return 1;
		}
	}
	return 0;
}

/*
 * The offset in @path of the first instruction of function @name (what a
 * uprobe takes). -ENOENT when the file or the symbol is missing.
 */
int elf__func_file_offset(const char *path, const char *name, u64 *off)
{
	struct func_query q = { name, 0 };

	if (!elf_each_sym(path, 0, func_offset_cb, &q))
		return -ENOENT;
	*off = q.off;
	return 0;
}

static int imports_cb(Elf *e, const GElf_Sym *sym, const char *name, void *arg)
{
	(void)e;
	return sym->st_shndx == SHN_UNDEF && !strcmp(name, (const char *)arg);
}

/* Does @path call function @name from another file (an undefined dynamic symbol)? */
bool elf__imports(const char *path, const char *name)
{
	return elf_each_sym(path, 1, imports_cb, (void *)name);
}
