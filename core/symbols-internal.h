/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to core/symbols*.c. symbols-dso.c reads one ELF file (symbols,
 * sections, DWARF lines and inlines, cached per file); symbols.c keeps each
 * process's mappings and turns runtime addresses into file addresses.
 */
#ifndef LP_SYMBOLS_INTERNAL_H
#define LP_SYMBOLS_INTERNAL_H
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <unistd.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>

#include "core/symbols.h"


#define PAGE_MASK_4K	(~(u64)0xfff)	/* x86: mappings are 4 KiB aligned */
#define HASH_BITS	8
#define HASH_SIZE	(1u << HASH_BITS)

enum dso_state { DSO_UNLOADED = 0, DSO_OK = 1, DSO_FAILED = -1 };

struct label {
	struct label *next;
	char s[];
};

struct sym {
	u64 start, size;	/* file virtual address */
	const char *name;	/* owned by the module's ELF string table */
	u8 bind;
};

struct sect {
	u64 addr, size;
	const char *name;
};

struct seg {
	u64 vaddr, offset, filesz, memsz;
	u32 flags;		/* PF_* */
};

struct code_entry {
	struct code_entry *next;
	u64 vaddr;
	int ret;
	struct lp_srcloc loc;
};

struct dso {
	struct dso *next;		/* hash chain, newest first */
	char *path;
	const char *base;		/* basename inside path */
	bool have_id, is_reg, deleted;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	int state;			/* enum dso_state */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	u64 mod_bias;			/* dwfl address - file vaddr (0 by construction) */
	struct seg *segs;
	int nsegs;
	u64 seg_end;			/* highest vaddr + memsz */
	struct sym *funcs, *objs;
	size_t nfuncs, nobjs;
	/* PT_TLS: its block's size and alignment; STT_TLS symbols, start = offset in it */
	u64 tls_memsz, tls_align;
	struct sym *tls;
	size_t ntls;
	struct sect *sects;
	size_t nsects;
	struct code_entry **cache;
	size_t cache_cap, cache_n;
	struct label *strs;		/* source paths made absolute */
	struct gvar *gvars;		/* variables at fixed addresses (symbols-type.c) */
	size_t ngvars;
	bool gvars_done;
};

enum { BIAS_UNKNOWN = 0, BIAS_OK, BIAS_BAD };

struct map {
	u64 start, end, pgoff;
	u32 prot;
	struct dso *dso;		/* file-backed, else NULL and label set */
	const char *label;
	u64 bias;
	int bias_state;
};

/* A thread's TCB address (fs_base): glibc puts it at the top of its stack. */
struct tcb {
	u64 fs_base;		/* the thread pointer: its TCB, its static TLS below */
	u32 index, tid;
};

struct proc {
	struct proc *next;
	u32 pid;
	struct map *maps;		/* sorted by start, not overlapping */
	size_t n, cap;
	struct tcb *tcbs;		/* threads with a known fs_base, by start */
	size_t ntcbs, captcbs;
};

struct lp_symbols {
	struct proc *procs[HASH_SIZE];
	struct dso *dsos[HASH_SIZE];
	struct label *labels;
	struct lp_objects *heap;	/* tracked heap blocks, made on the first */
};

/* symbols-dso.c */
void dso__unload(struct dso *d);
struct dso *symbols__findnew_dso(struct lp_symbols *s, const char *path);
int dso__load(struct dso *d);
/* Name @off within @d's TLS block (its STT_TLS symbol) into @out's label; 0 or -ENOENT. */
int dso__tls_data(struct dso *d, u64 off, struct lp_dataobj *out);
const struct sect *dso__section(const struct dso *d, u64 vaddr);
const struct sym *syms__find(const struct dso *d, const struct sym *v,
			     size_t n, u64 vaddr, bool allow_unsized);
int dso__code(struct dso *d, u64 vaddr, struct lp_srcloc *out);
void dso__data(struct dso *d, u64 vaddr, u64 bias, struct lp_dataobj *out);
/*
 * symbols-type.c: for the array-of-structs variable at file address @start, the
 * element and member @off falls in ("[3].count", into @buf) and the offset
 * left inside it (*@left). -ENOENT when @start is no array DWARF knows.
 */
int dso__member(struct dso *d, u64 start, u64 off, char *buf, size_t len, u64 *left);
int elf__func_file_offset(const char *path, const char *name, u64 *off);
bool elf__imports(const char *path, const char *name);

#endif
