/* SPDX-License-Identifier: GPL-2.0 */
/*
 * comdetect's data-object view: the communication of the top cache lines
 * attributed to the objects their accesses hit (a tracked heap block, a
 * static variable, else the mapping), ranked, with the true/false split.
 */
#ifndef LP_COMDETECT_OBJECTS_H
#define LP_COMDETECT_OBJECTS_H
#include "core/comdetect.h"
#include "core/symbols.h"

enum comdetect_object_kind {
	COMDETECT_OBJ_HEAP = 1,		/* a tracked allocation */
	COMDETECT_OBJ_STATIC,		/* a symbol of the ELF file */
	COMDETECT_OBJ_REGION,		/* only its mapping is known ([heap], anon...) */
};

struct comdetect_object {
	u8 kind;			/* enum comdetect_object_kind */
	u64 start, size;		/* the object, else the region */
	const struct lp_object *heap;	/* COMDETECT_OBJ_HEAP: the block (call path) */
	char label[320];		/* lp_dataobj.label */
	double vol_true, vol_false;
	u64 threads;			/* bit i: thread index i touched it (i < 64) */
	u32 nthreads;			/* threads that touched it, all indexes */
	u32 nlines;			/* cache lines of it that communicated */
	u32 off_lo, off_hi;		/* offsets touched within it, [lo, hi] */
	/* its sampled accesses on those lines by kind (Chen et al. 2012's
	 * read/write mix): loads, stores, atomics (read-modify-writes) */
	u64 loads, stores, atomics;
};

/*
 * The objects of @res's lines in process @pid, by vol_true + vol_false
 * descending: each line's volume is split over the objects its offset
 * groups hit, by their access counts. *@out is malloc'd (free it).
 * 0 or -ENOMEM.
 */
int comdetect__objects(const struct comdetect_result *res, struct lp_symbols *syms, u32 pid,
		       struct comdetect_object **out, int *n);

#endif
