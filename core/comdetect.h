/* SPDX-License-Identifier: GPL-2.0 */
/*
 * comdetect: inter-thread communication matrices split into true and false
 * sharing (ComDetective, Sasongko 2022, ch. 5, Algorithm 1). A pure event consumer:
 * it reads samples and watchpoint traps and asks for watchpoints to be armed
 * or disarmed; it makes no syscall and prints nothing.
 *
 * Definitions (written down once, here):
 *
 * - Every accepted sample gets a global sequence number (1, 2, ...) in the
 *   order the analysis sees it; "epochs" are per-thread counts of samples
 *   (all kinds) and of store samples (stores and atomics).
 * - BulletinBoard: @board_size entries keyed by cache line. Only stores
 *   publish; loads and stores look up.
 * - An entry E published by thread P at P's store epoch e is *expired* once
 *   P has taken @expire (2) more store samples (Sasongko 2022: "expired if it
 *   survived for more than two store events from the same thread"; loads
 *   do not age it). For a looking-up thread T, E is *recent* iff E was
 *   published after T's previous sample. Both only decide which entries
 *   may be evicted and which lines a thread arms watchpoints on.
 * - Lookup hit (one communication P<->T, volume = period of T's sample):
 *   E is on T's line, P != T, and T has not sampled the line since E was
 *   published (E.seen, threads by index mod 64): another thread stored to
 *   the line since T's last known access to it, as a coherence miss needs
 *   (Documentation/algorithms.md: where this departs from Algorithm 1 and
 *   what it measured). True sharing iff [M1, M1+len1) overlaps
 *   [M2, M2+len2), false otherwise.
 *   The hit counts only if both threads were running: the looker's time
 *   since its previous sample and the time since the publisher's latest
 *   sample are each at most CD_RUN_GAP x that thread's usual interval
 *   (tau, an average of its intervals that skips descheduling gaps);
 *   otherwise the entry is marked seen and stats.hits_apart counts it
 *   (@count_apart: counted as a hit too). A hit on a store published
 *   before the looker last resumed (its first sample after not running)
 *   counts half a period (stats.hits_resumed): which of the two touched
 *   the line last since the looker's turn began is a coin toss.
 * - Lanes: each sample looks up and publishes in one of @lanes lanes
 *   chosen at random (a line's entry per lane); a fixed period makes the
 *   threads' samples alternate more regularly than their accesses, which
 *   random thinning undoes (Documentation/algorithms.md).
 * - Publishing (stores only): T's store replaces its line's entry (the
 *   line's latest sampled store, seen by T alone). A new line lives within
 *   8 slots of its hash; when those are full the oldest of them is evicted
 *   if it is expired or older than T's previous store sample, else the new
 *   entry is dropped.
 * - Watchpoints: a thread that gets no hit arms, if its current watchpoints
 *   are old (armed @expire or more of its own samples ago, loads included),
 *   min(nslots, max_dr, line/8) of its own debug registers on distinct
 *   random 8-byte chunks of one line whose entry is recent, unexpired and
 *   published by another thread; mode RW, because the published access is
 *   a store, so any later access by T (load or store) to the line involves
 *   that store. If no such entry exists, old watchpoints are disarmed.
 * - Trap (one communication P<->T, volume = period x L / (D x M), L = line
 *   size, D = number of registers armed on that line, M = 8): true sharing
 *   iff the trapped 8-byte chunk overlaps the published bytes (a trap only
 *   names the chunk, not the exact access). After a trap the thread's
 *   watchpoints on that line are disarmed (Sasongko 2022: later accesses are
 *   served locally).
 * - Matrices: raw[P][T] += volume; at the end each pair is symmetrized as
 *   Sasongko 2022 does: sym[i][j] = sym[j][i] = raw[i][j] + raw[j][i]. The
 *   diagonal stays zero. Totals count each communication once, so
 *   total = sum over i < j of sym[i][j] = (sum of all cells) / 2.
 * - Core matrices use the CPU of each side's sample (the publisher's sample
 *   CPU, the looker's sample or trap CPU); communications between two
 *   threads on the same CPU are not cross-core and only counted in
 *   same_cpu_volume.
 */
#ifndef LP_COMDETECT_H
#define LP_COMDETECT_H
#include "core/analysis.h"

#define COMDETECT_MAX_SLOTS	16	/* debug registers per thread we track */
#define COMDETECT_MAX_LANES	16	/* sample lanes (config lanes) */
#define COMDETECT_WP_LEN	8	/* M: bytes per watchpoint */
#define COMDETECT_LINE_TOUCHES	16	/* per-line (thread, range, kind) kept */
#define COMDETECT_LINE_IPS	16	/* per-line IPs kept */

/* Zero fields take their default (comdetect__config_init). */
struct comdetect_config {
	int board_size;		/* BulletinBoard entries, default 127 x lanes */
	int nslots;		/* debug registers per thread, default 4 */
	int max_dr;		/* D cap: registers armed per line, default nslots */
	int line_size;		/* L, power of two 16..512, default 64 */
	int expire;		/* epochs until old (entries, watchpoints), default 2 */
	int max_lines;		/* per-line records kept, default 1024 */
	int lanes;		/* sample lanes (1-16), default 4: see below */
	int count_apart;	/* count lookups of threads that did not run together */
	u64 seed;		/* PRNG seed (lanes, chunk choice, arm candidate), 0: fixed */
	u64 period;		/* if nonzero, overrides every sample's period */
};

void comdetect__config_init(struct comdetect_config *cfg);

enum comdetect_src {
	COMDETECT_SRC_SAMPLE = 0,	/* a memory sample: exact IP of the access */
	COMDETECT_SRC_TRAP = 1,		/* a watchpoint trap: IP after the access */
};

/* One access pattern on a line: who, which bytes, how, how often. */
struct comdetect_touch {
	u32 thread;		/* thread index */
	u8 off, len;		/* byte range [off, off+len) within the line */
	u8 kind;		/* enum lp_access_kind; NONE = unknown (RW trap) */
	u8 src;			/* enum comdetect_src */
	u64 count;
};

/*
 * A sampled access to a tracked line, kept for the access-over-time
 * picture of its object (Chen et al. 2012): a uniform reservoir of
 * COMDETECT_LINE_POINTS per line over every sampled access it recorded.
 */
#define COMDETECT_LINE_POINTS	64
struct comdetect_point {
	u64 time;
	u32 thread;		/* thread index */
	u8 off, len;		/* byte range within the line */
	u8 kind;		/* enum lp_access_kind */
	u8 pad;
};

struct comdetect_ip {
	u64 ip;
	u32 thread;
	u8 src;			/* enum comdetect_src */
	u64 count;
};

struct comdetect_line {
	u64 line;		/* line address */
	double vol_true, vol_false;
	u64 detections;
	int ntouches, nips;
	u64 touches_dropped, ips_dropped;	/* beyond the fixed arrays */
	struct comdetect_touch touches[COMDETECT_LINE_TOUCHES];
	struct comdetect_ip ips[COMDETECT_LINE_IPS];
	u64 points_seen;	/* sampled accesses offered to points[] */
	int npoints;
	struct comdetect_point points[COMDETECT_LINE_POINTS];
};

struct comdetect_stats {
	u64 samples;		/* LP_EV_SAMPLE seen */
	u64 samples_used;
	u64 samples_noaddr;	/* ignored: no data address or no access kind */
	u64 samples_unknown;	/* ignored: tid never started */
	u64 loads, stores;	/* used samples by kind (atomics are stores) */
	u64 publishes, board_evictions, board_drops;
	u64 armings;		/* times a thread armed a line */
	u64 arm_actions, disarm_actions;
	u64 traps;		/* LP_EV_TRAP seen */
	u64 traps_stale;	/* slot/cookie not armed now (e.g. thread exited) */
	u64 traps_late;		/* of the watch before the current one (async) */
	u64 hits;		/* communications found by lookup */
	u64 hits_apart;		/* lookups not counted: the threads did not run together
				   (counted in hits with count_apart) */
	u64 hits_resumed;	/* hits at half a period: the looker resumed since
				   the store (in hits) */
	u64 trap_hits;		/* communications found by traps */
	u64 line_evictions;	/* per-line records evicted (bounded memory) */
};

/* One pair's communication, both directions summed (a < b). */
struct comdetect_pair_vol {
	u32 a, b;
	double vt, vf;			/* true, false sharing volume */
};

/* Beyond this many threads the result has no dense matrices, only pairs. */
#define COMDETECT_DENSE_MAX 2048

struct comdetect_result {
	int nthreads;
	const u32 *tids;		/* [nthreads], index order; 0 if never started */
	const u64 *thread_samples;	/* [nthreads] used samples per thread */
	/*
	 * n x n row-major, symmetrized: m[i * n + j] == m[j * n + i]; NULL
	 * beyond COMDETECT_DENSE_MAX threads (the pairs below say it all)
	 */
	const double *all, *true_sharing, *false_sharing;
	/* the pairs that communicated, by volume (vt + vf), largest first */
	int npairs;
	const struct comdetect_pair_vol *pairs;
	int ncpus;
	const double *core_all, *core_true, *core_false;	/* ncpus x ncpus */
	double total_all, total_true, total_false;	/* each event once */
	u64 detections;			/* hits + trap_hits */
	double same_cpu_volume;		/* not in the core matrices */
	int nlines;
	const struct comdetect_line *lines;	/* by vol_true+vol_false, desc */
	struct comdetect_stats stats;
};

struct comdetect;

/* NULL with errno EINVAL (bad config) or ENOMEM. @cfg may be NULL. */
struct comdetect *comdetect__new(const struct comdetect_config *cfg);
void comdetect__delete(struct comdetect *cd);

/* The analysis interface: the session or a replay drives it. */
struct lp_analysis *comdetect__analysis(struct comdetect *cd);
int comdetect__event(struct comdetect *cd, const struct lp_event *ev,
		     struct lp_actions *out);
int comdetect__finish(struct comdetect *cd);

/*
 * A snapshot of everything seen so far (normally after finish); owned by
 * @cd, valid until the next call or comdetect__delete. NULL: -ENOMEM.
 */
const struct comdetect_result *comdetect__result(struct comdetect *cd);

#endif
