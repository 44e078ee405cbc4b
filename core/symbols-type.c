// SPDX-License-Identifier: GPL-2.0
/*
 * Where inside a static array of structs an address falls, from the DWARF
 * type of the variable: "[3].count" and the offset left inside that member. Each
 * file's variables with a fixed address (DW_OP_addr: globals, file-level
 * and function-level statics) are gathered once, sorted by address.
 */
#include <inttypes.h>

#include "core/grow.h"
#include "core/symbols-internal.h"

#define MEMBER_DEPTH 6		/* [i].field[j].x ... stops here */

struct gvar {
	u64 addr;		/* file virtual address */
	Dwarf_Off type;		/* its type's DIE (global .debug_info offset) */
};

static int gvar_cmp(const void *a, const void *b)
{
	const struct gvar *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void gather(struct dso *d, Dwarf_Die *parent, size_t *cap)
{
	Dwarf_Die c;

	if (dwarf_child(parent, &c))
		return;
	do {
		int tag = dwarf_tag(&c);
		Dwarf_Attribute at;
		Dwarf_Op *expr;
		Dwarf_Die type;
		size_t n;

		if (tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block ||
		    tag == DW_TAG_namespace) {
			gather(d, &c, cap);
			continue;
		}
		if (tag != DW_TAG_variable || !dwarf_attr(&c, DW_AT_location, &at) ||
		    dwarf_getlocation(&at, &expr, &n) || n != 1 || expr[0].atom != DW_OP_addr ||
		    !dwarf_attr_integrate(&c, DW_AT_type, &at) || !dwarf_formref_die(&at, &type))
			continue;
		if (lp_grow((void **)&d->gvars, d->ngvars, cap, sizeof(*d->gvars), 256))
			return;
		d->gvars[d->ngvars++] = (struct gvar){ expr[0].number, dwarf_dieoffset(&type) };
	} while (dwarf_siblingof(&c, &c) == 0);
}

static Dwarf *dso_dwarf(struct dso *d)
{
	Dwarf_Addr bias;

	return d->mod ? dwfl_module_getdwarf(d->mod, &bias) : NULL;
}

static void gather_all(struct dso *d)
{
	Dwarf *dbg = dso_dwarf(d);
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0;

	d->gvars_done = true;
	if (!dbg)
		return;
	while (dwarf_nextcu(dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(dbg, off + hsize, &cu))
			gather(d, &cu, &cap);
		off = next;
	}
	qsort(d->gvars, d->ngvars, sizeof(*d->gvars), gvar_cmp);
}

/* @t without typedefs and qualifiers. */
static bool strip(Dwarf_Die *t)
{
	Dwarf_Attribute at;
	int depth = 0;

	for (;;) {
		int tag = dwarf_tag(t);

		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
		    tag != DW_TAG_volatile_type && tag != DW_TAG_restrict_type &&
		    tag != DW_TAG_atomic_type)
			return true;
		if (++depth > 16 || !dwarf_attr_integrate(t, DW_AT_type, &at) ||
		    !dwarf_formref_die(&at, t))
			return false;
	}
}

/* The element counts of array @t's dimensions; 0 for one not known. */
static int dims(Dwarf_Die *t, u64 *count, int max)
{
	Dwarf_Die c;
	int n = 0;

	if (dwarf_child(t, &c))
		return 0;
	do {
		Dwarf_Attribute at;
		Dwarf_Word v;

		if (dwarf_tag(&c) != DW_TAG_subrange_type || n == max)
			continue;
		count[n] = 0;
		if (dwarf_attr(&c, DW_AT_count, &at) && !dwarf_formudata(&at, &v))
			count[n] = v;
		else if (dwarf_attr(&c, DW_AT_upper_bound, &at) && !dwarf_formudata(&at, &v))
			count[n] = v + 1;
		n++;
	} while (dwarf_siblingof(&c, &c) == 0);
	return n;
}

/* Append to @buf (length *@n of @len) "[i]..." or ".field" for @off in @t. */
static bool step(Dwarf_Die *t, u64 *off, char *buf, size_t len, size_t *n)
{
	int tag = dwarf_tag(t);
	Dwarf_Attribute at;
	Dwarf_Word esize;
	Dwarf_Die c, e;

	if (tag == DW_TAG_array_type) {
		u64 count[8], stride;
		int k, nd = dims(t, count, 8);

		if (!nd || !dwarf_attr_integrate(t, DW_AT_type, &at) || !dwarf_formref_die(&at, &e) ||
		    dwarf_aggregate_size(&e, &esize) || !esize)
			return false;
		for (k = 0; k < nd; k++) {
			int j;

			stride = esize;
			for (j = k + 1; j < nd; j++)
				stride *= count[j] ? count[j] : 1;
			if (k > 0 && count[k] && *off / stride >= count[k])
				return false;
			*n += snprintf(buf + *n, *n < len ? len - *n : 0, "[%" PRIu64 "]", *off / stride);
			*off %= stride;
		}
		*t = e;
		return true;
	}
	if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type && tag != DW_TAG_class_type)
		return false;
	if (dwarf_child(t, &c))
		return false;
	do {
		Dwarf_Word loc = 0, msize;
		const char *name = dwarf_diename(&c);

		if (dwarf_tag(&c) != DW_TAG_member || !name)
			continue;
		if (dwarf_attr(&c, DW_AT_data_member_location, &at) && dwarf_formudata(&at, &loc))
			continue;	/* a location expression: not a plain offset */
		if (!dwarf_attr_integrate(&c, DW_AT_type, &at) || !dwarf_formref_die(&at, &e) ||
		    dwarf_aggregate_size(&e, &msize))
			continue;
		if (*off < loc || *off - loc >= msize)
			continue;
		*n += snprintf(buf + *n, *n < len ? len - *n : 0, ".%s", name);
		*off -= loc;
		*t = e;
		return true;
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/*
 * Is array @t's element a struct, union or class? Arrays of scalars keep
 * their plain 'name+offset' labels (tests and scripts read them so).
 */
static bool of_structs(Dwarf_Die *t)
{
	Dwarf_Attribute at;
	Dwarf_Die e;
	int tag;

	if (!dwarf_attr_integrate(t, DW_AT_type, &at) || !dwarf_formref_die(&at, &e) || !strip(&e))
		return false;
	tag = dwarf_tag(&e);
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_class_type;
}

int dso__member(struct dso *d, u64 start, u64 off, char *buf, size_t len, u64 *left)
{
	Dwarf *dbg;
	struct gvar key = { start, 0 }, *v;
	Dwarf_Die t;
	size_t n = 0;
	int depth;

	if (!d->gvars_done)
		gather_all(d);
	v = d->ngvars ? bsearch(&key, d->gvars, d->ngvars, sizeof(*v), gvar_cmp) : NULL;
	dbg = dso_dwarf(d);
	if (!v || !dbg || !dwarf_offdie(dbg, v->type, &t) || !strip(&t) ||
	    dwarf_tag(&t) != DW_TAG_array_type || !of_structs(&t))
		return -ENOENT;		/* only arrays of structs get an element index */
	for (depth = 0; depth < MEMBER_DEPTH && strip(&t) && step(&t, &off, buf, len, &n); depth++)
		;
	if (!n || n >= len)
		return -ENOENT;
	*left = off;
	return 0;
}
