/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbol resolution for reports and `lociprof script`: code address ->
 * function + file:line with the inline chain (libdwfl), data address ->
 * static object from the ELF symbol table, or the label of its mapping.
 *
 * Address maps are built only from struct lp_mmap events, so the same code
 * runs live and on replay when the process is gone. ELF files are opened
 * lazily, once per path and identity (st_dev, st_ino, size, mtime, taken
 * when the mapping is added), and kept until symbols__delete(): every string
 * a lookup returns stays valid until then.
 */
#ifndef LP_SYMBOLS_H
#define LP_SYMBOLS_H
#include <stdbool.h>
#include <sys/types.h>

#include "core/event.h"
#include "core/objects.h"

struct lp_symbols;

#define LP_SRCLOC_MAX_FRAMES 8

struct lp_srcframe {
	const char *function;	/* NULL if unknown */
	const char *file;	/* as written in DWARF (usually absolute) */
	u32 line;		/* 0 if unknown */
};

struct lp_srcloc {
	const char *function;	/* symbol holding ip (the out-of-line function) */
	u64 offset;		/* ip - start of function */
	const char *file;	/* line-table source of ip itself; NULL without DWARF */
	u32 line;
	/*
	 * Inline chain, innermost first: frames[0] is the code at ip (its line is
	 * @line), frames[i + 1] is the function frames[i] was inlined into, with
	 * the line of that call site; the last frame is the out-of-line function.
	 * 0 frames without DWARF; at most LP_SRCLOC_MAX_FRAMES (innermost kept).
	 */
	u32 nframes;
	struct lp_srcframe frames[LP_SRCLOC_MAX_FRAMES];
	const char *dso;	/* mapped file path or mapping label ("[vdso]") */
	u64 dso_addr;		/* ip as ELF virtual address (what addr2line takes) */
};

struct lp_dataobj {
	const char *name;	/* static object (STT_OBJECT) or NULL */
	u64 start;		/* runtime address of the object, else of the region */
	u64 offset;		/* addr - start */
	u64 size;		/* object size, else region length */
	const char *dso;	/* file the address belongs to, NULL for [heap]... */
	const char *section;	/* ELF section holding addr (".bss"), or NULL */
	const struct lp_object *heap;	/* the heap block holding addr, or NULL */
	u64 file_offset;	/* addr's offset in the mapped file, when @dso */
	/* Always set: object name, "malloc'd 4096 B at f.c:42 (main)" for a
	 * tracked heap block, "[heap]", "[stack]", "[anon]", "[vdso]",
	 * ".bss of libfoo.so", or the mapped file's base name. */
	char label[320];
	/* In a static array of structs whose DWARF type is known: the element and member
	 * holding addr ("[3].count") and addr's offset inside it; else "". */
	char member[128];
	u64 member_offset;
};

/*
 * How every command prints a data address: "label+0x8", or in a static
 * array of structs "slots[3].count+0x4" (the offset inside the member), or the bare
 * label of an unnamed region. Returns what snprintf does.
 */
int symbols__data_label(const struct lp_dataobj *obj, char *buf, size_t len);

struct lp_symbols *symbols__new(void);
void symbols__delete(struct lp_symbols *s);

/* A mapping appeared (replaces what it overlaps, like mmap(MAP_FIXED)). */
int symbols__add_mmap(struct lp_symbols *s, const struct lp_mmap *m);
/*
 * A heap block was allocated or freed (LP_EV_ALLOC / LP_EV_FREE): data
 * lookups name the addresses it holds. 0 or -ENOMEM.
 */
int symbols__add_alloc(struct lp_symbols *s, const struct lp_event *ev);
/*
 * Where heap block @b was allocated: the first frame of its call path
 * outside the allocator's library (libc, libstdc++, ld.so), as a code
 * lookup of the call instruction. Such a frame in a file without symbols
 * (a stripped program) is still the site: 0 with out->function NULL and
 * out->dso, out->dso_addr set (symbols__code_unnamed names it). 0, or
 * -ENOENT when no frame resolves.
 */
int symbols__alloc_site(struct lp_symbols *s, const struct lp_object *b,
			struct lp_srcloc *out);
/* The heap blocks added, for views that list them. */
const struct lp_objects *symbols__objects(const struct lp_symbols *s);

/*
 * A thread started (LP_EV_THREAD_START): the anonymous mapping holding the
 * fs_base of a thread other than the first (glibc's thread descriptor, at
 * the top of the thread's stack) is labelled "stack of T<index>", and the
 * program's static TLS block right below any known fs_base (x86-64 TLS
 * variant II) names its __thread variables "VAR of T<index>".
 */
int symbols__add_thread(struct lp_symbols *s, const struct lp_thread *t);

/* The process exec'd or exited: drop its address map. */
void symbols__forget_pid(struct lp_symbols *s, u32 pid);

/*
 * Code lookup. 0 when the function is known; -ENOENT when the address is in
 * no mapping, in a mapping without a readable ELF file, or in no symbol
 * (then out->dso and out->dso_addr are still filled when a mapping holds it).
 */
int symbols__code(struct lp_symbols *s, u32 pid, u64 ip, struct lp_srcloc *out);
/*
 * The name of code symbols__code() found no symbol for (@loc is what it
 * filled): as perf names it, by the file and the address addr2line takes,
 * "sort+0x1a2b" (true); "0x7f.. [anon]" in a mapping without a file; else
 * the address alone (false both).
 */
bool symbols__code_unnamed(const struct lp_srcloc *loc, u64 ip, char *buf, size_t len);

/*
 * Data lookup. 0 when some mapping holds addr (out->label always set,
 * out->name when a static object does); -ENOENT when none does.
 */
int symbols__data(struct lp_symbols *s, u32 pid, u64 addr, struct lp_dataobj *out);

/*
 * Turn /proc/PID/maps into lp_mmap events, in address order. Every mapping
 * is reported: file-backed ones with their path, [heap]/[stack]/[vdso] with
 * that name, anonymous ones with an empty filename. Stops at, and returns,
 * the first nonzero value of @cb.
 */
int symbols__read_proc_maps(pid_t pid,
			    int (*cb)(void *arg, const struct lp_mmap *m),
			    void *arg);

/*
 * The file offset of function @name's entry in ELF file @path (a uprobe's
 * offset), from the file's own .symtab or .dynsym (no debug file): 0, or
 * -ENOENT when the file cannot be read or has no such symbol.
 */
int symbols__func_file_offset(const char *path, const char *name, u64 *off);

/* Does ELF file @path call function @name in another file (undefined symbol)? */
int symbols__file_imports(const char *path, const char *name);

/* Callback for symbols__read_proc_maps(): arg is the struct lp_symbols. */
int symbols__add_mmap_cb(void *arg, const struct lp_mmap *m);

#endif
