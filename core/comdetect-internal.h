/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to core/comdetect*.c: the detector's state. comdetect.c detects
 * communication from the event stream; comdetect-result.c builds the
 * matrices and line ranking from what it gathered.
 */
#ifndef LP_COMDETECT_INTERNAL_H
#define LP_COMDETECT_INTERNAL_H
#include "core/comdetect.h"
#include "core/hash.h"

#define CD_MAX_THREADS	(1u << 24)
#define CD_MAX_CPUS	(1u << 16)
#define CD_NO_CPU	(~0u)
#define CD_PROBE	8	/* board slots probed per line */
#define CD_BOARD_PER_LANE 127	/* default board entries per sample lane */
#define CD_RUN_GAP	2.0	/* running: an interval of at most this x tau */
#define CD_TAU_OUTLIER	4.0	/* intervals beyond this x tau are descheduling */
#define CD_TAU_RESET	8	/* ... unless this many in a row: a new rate */

struct cd_entry {		/* one BulletinBoard entry */
	u64 line, addr, ip;
	u64 seq;		/* global sample sequence number at publish */
	u64 store_epoch;	/* publisher's store count including this one */
	u64 time;		/* of the publishing sample */
	u32 pub;		/* publisher thread index */
	u32 cpu;
	u8 len, kind;
	u8 used;
	u8 touched;		/* its access is already in the line's touches */
	u8 lane;		/* the sample lane it was published in */
	u64 seen;		/* threads (index mod 64) that sampled the line since */
};

struct cd_slot {
	u64 addr, cookie;
	u8 armed;
};

/* What a thread's armed watchpoints watch: all on one line (Sasongko 2022). */
struct cd_watch {
	u8 active;
	u8 pub_len, pub_kind, pub_touched, pub_lane;
	u32 pub, pub_cpu;
	int ndr;		/* D: registers armed on this line */
	u64 line, pub_addr, pub_ip, pub_seq;
	u64 armed_epoch;	/* owner's sample count when armed */
	u64 period;		/* period of the sample that armed */
};

struct cd_thread {
	u32 tid;
	u8 started, live;
	u64 nsamples, nstores;	/* epochs */
	u64 seq_cur, seq_prev;	/* global seq of this and the previous sample */
	u64 store_seq_cur, store_seq_prev;
	u64 t_last;		/* time of its latest sample */
	u64 run_start;		/* first sample since it last was not running */
	double tau;		/* its usual time between samples (0: unknown) */
	u32 long_gaps;		/* consecutive intervals > CD_TAU_OUTLIER x tau */
	struct cd_watch w;
	struct cd_slot slot[COMDETECT_MAX_SLOTS];
	/*
	 * The watch these registers held before the current one. On the
	 * asynchronous path a trap can be read after the analysis moved the
	 * registers; the session stamps it with the old cookie, and it is
	 * still a communication that happened while the old watch was armed.
	 */
	struct cd_watch pw;
	struct cd_slot pslot[COMDETECT_MAX_SLOTS];
};

struct cd_pair {
	u32 a, b;		/* raw[a][b]: a published, b detected */
	double vt, vf;
};

struct cd_pairs {
	struct lp_map idx;	/* a << 32 | b -> index in v */
	struct cd_pair *v;
	u32 n, cap;
};

struct cd_linerec {
	struct comdetect_line l;
	int next;		/* bucket chain / free list */
	u8 used;
};

struct comdetect {
	struct lp_analysis an;
	struct comdetect_config cfg;
	int ndr;		/* registers armed per line: min(nslots, max_dr, L/M) */
	u64 rng;
	u64 point_rng;		/* the lines' reservoirs: rng's draws stay as they were */
	u64 seq, cookie_gen;

	struct cd_entry *board;

	struct cd_thread *thr;
	u32 nthr, thr_cap;
	struct lp_map tids;		/* tid -> thread index */

	u32 ncpus;
	struct cd_pairs tpairs, cpairs;
	double same_cpu_volume;

	struct cd_linerec *lines;
	int *buckets;
	int nbuckets, free_line;

	int finished;
	struct comdetect_stats st;

	/* result snapshot */
	struct comdetect_result res;
	u32 *r_tids;
	u64 *r_samples;
	double *r_mat, *r_core;
	struct comdetect_pair_vol *r_pairs;
	struct comdetect_line *r_lines;
};

/* comdetect-result.c */
void cd_result_free(struct comdetect *cd);

#endif
