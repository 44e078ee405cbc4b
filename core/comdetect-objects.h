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

/* A sampled access of the object, for its access-over-time picture. */
struct comdetect_object_point {
	u64 time;
	u64 off;			/* offset within the object */
	u32 thread;			/* thread index */
	u8 len, kind;			/* enum lp_access_kind */
};

#define COMDETECT_OBJECT_POINTS	512	/* kept per object (a reservoir) */

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
	/* a uniform reservoir over the points its lines kept (each line's
	 * own reservoir of COMDETECT_LINE_POINTS); malloc'd */
	struct comdetect_object_point *points;
	u32 npoints;
	u64 points_seen;		/* line points offered */
	u64 line_points_seen;		/* sampled accesses its lines' reservoirs saw */
};

/*
 * The objects of @res's lines in process @pid, by vol_true + vol_false
 * descending: each line's volume is split over the objects its offset
 * groups hit, by their access counts. *@out is malloc'd
 * (comdetect__objects_free).
 * 0 or -ENOMEM.
 */
int comdetect__objects(const struct comdetect_result *res, struct lp_symbols *syms, u32 pid,
		       struct comdetect_object **out, int *n);
/* Free what comdetect__objects returned. */
void comdetect__objects_free(struct comdetect_object *v, int n);

#endif
