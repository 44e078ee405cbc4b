/* SPDX-License-Identifier: GPL-2.0 */
/*
 * reuse: multithreaded reuse distance for private and shared caches
 * (ReuseTracker, seed 1 ch.6, Algorithms 2-3, Definitions 6.2.1-6.2.4). A
 * pure event consumer: samples and watchpoint traps in, arm/disarm actions
 * out; no syscall, no printing.
 *
 * Definitions (written down once, here):
 *
 * - GlobalWP: @nslots slots; slot i is debug register i of EVERY thread.
 *   A slot is active from the sample that armed it until its first trap.
 *   Each slot keeps a sample counter n (1.0 initially and after a trap).
 * - A usable sample (data address, access kind, known live thread) scans
 *   the slots, inactive ones first, then active ones, each in index order;
 *   AllowReplacement(slot) draws r in [0,1), takes the slot iff
 *   r < 1/n, and increments n either way (Algorithm 2, reservoir sampling:
 *   a slot that has not trapped holds each of the samples it saw since its
 *   last trap with probability 1/n). No slot taken: the sample is dropped.
 *   A taken active slot's old watch is censored (replaced before its reuse:
 *   it counts nowhere, as in the seed; stats.replaced).
 * - Arming (one LP_ACT_ARM per live thread, same slot index everywhere):
 *   private mode: RW on the sampling thread T, W on every other thread.
 *   shared mode: RW on every thread whose CPU shares T's last-level cache
 *   (T included: a shared cache sees its own thread's reuses too), W on
 *   the rest. A thread's CPU is that of its latest sample or trap, else of
 *   its start record; with no topology (or an unknown CPU) threads are
 *   taken to share. Threads that start while a slot is active are armed
 *   with the mode they would have had.
 * - Watched bytes: the sampled access rounded up to an aligned 1, 2, 4 or 8
 *   byte block (an access larger than 8 bytes or crossing an 8-byte
 *   boundary: the aligned 8 bytes holding its first byte); with
 *   REUSE_GRAN_LINE always the aligned 8 bytes holding it.
 * - First trap on an active slot decides, then the slot is inactive in every
 *   thread (one DISARM per armed thread) and n = 1:
 *     reuse: trap in an RW-armed thread (private: T itself; shared: a thread
 *            sharing T's cache, cross_thread if not T),
 *     invalidation: trap in a W-armed thread (a store by a thread that does
 *            not share the use's cache).
 *   temporal: the watch was exactly the sampled bytes; chunk: the watch was
 *   wider (line granularity or a rounded-up access) and a trap does not say
 *   which of its bytes were touched, so it is temporal or spatial within
 *   those 8 bytes. A 64-byte line cannot be watched whole with 8-byte debug
 *   registers: spatial reuse elsewhere in the line is not seen.
 * - A sample of an access not made yet (LP_SAMPLE_PENDING: the soft
 *   facility's sampled instruction) taken while its thread was held
 *   (LP_SAMPLE_HELD): the owner's first trap at that instruction (trap IP
 *   within RU_MAX_INSN bytes after it) is the use being made, not a reuse;
 *   it moves the use's time to that trap and leaves the watch armed
 *   (stats.traps_use).
 * - The use reported again (held watches, once each): a trap at the end of
 *   the use's own instruction while the thread's latest sample is still
 *   the use. On this VM the thread is often sampled again at the access a
 *   trap just caught, and a watch armed there traps at once at that
 *   instruction, before any sign that the thread ran on (up to seven
 *   samples and traps in a row at one address): false reuses of a few us.
 *   Such a trap re-dates the use and leaves the watch armed
 *   (stats.traps_again); a true reuse at the same instruction (a loop over
 *   a small array) traps again one iteration later.
 * - Traps on an inactive slot, with a cookie not of the slot's current (or,
 *   for a late asynchronous read, previous censored) watch, or by a thread
 *   that exited are stale and ignored. A late trap of the previous watch
 *   of a slot (asynchronous path: read after the slot was re-armed) counts
 *   for that watch if it had not trapped: it happened while it was armed.
 * - Reuse time: thread CPU ns elapsed between use and reuse, from
 *   lp_sample/lp_trap.thread_ns (private mode; the same thread) or, when
 *   they are 0, CLOCK_MONOTONIC time (time_source says which). Shared mode:
 *   the CPU time of all threads on that cache, estimated as wall time times
 *   min(live threads sharing it, CPUs of that cache). A reuse timed from a
 *   held sample (LP_SAMPLE_HELD) also holds the thread's return from the
 *   stop and the trap's own entry, which the session cannot subtract: the
 *   median over the run of (own-access trap ns - sample ns) of held pending
 *   samples (above) measures that cost, and it is subtracted (clamped at
 *   0) when at least REUSE_MIN_TRAP_COST were seen (result.trap_cost_ns).
 *   In accesses: t = max(0, round(rate x ns) - 1) accesses strictly
 *   between use and reuse.
 * - Access rate (accesses per ns of thread CPU time), in this order:
 *   cfg.access_rate if set (REUSE_RATE_USER, one rate for every reuse);
 *   else the stride estimate (REUSE_RATE_STRIDE): two consecutive samples
 *   of one thread at one IP whose addresses differ by a multiple d of the
 *   access size s, within 2^24 accesses, give |d|/s accesses of a dense
 *   stream in the thread CPU ns between them (rates above REUSE_MAX_RATE
 *   per ns are impossible and rejected). It assumes the code walks dense
 *   arrays one element per access (true of array loops; a pass shorter
 *   than the sample spacing aliases). Programs run at different speeds in
 *   different phases (ribench: 3.3 accesses/ns in L2, 0.9 out of it), so:
 *   - local: a reuse over thread CPU ns [u, u + n] whose interval holds
 *     forward pairs of its thread (both samples inside, address rising:
 *     within one pass, so not aliased) uses their median;
 *   - run: every other reuse uses the median of the pairs some reuse used
 *     (at least REUSE_MIN_RATE_PAIRS of them), else of all pairs (at
 *     least REUSE_MIN_RATE_PAIRS); cfg.global_rate: the median of all
 *     pairs for every reuse, as before local rates.
 *   With fewer pairs: REUSE_RATE_DEFAULT, 1 access per ns, and every output
 *   says the distances are then in that unit.
 * - Address chains (default; cfg.no_chain: off): on a VM without a PMU each
 *   soft sample costs its thread 25-120 us of CPU time (measured: ribench
 *   at a 25 us period used 0.72 s of thread CPU time for 0.04 s of work),
 *   so thread CPU time is mostly sampling overhead and a poor clock. A
 *   private reuse with samples of its thread between use and reuse is
 *   instead counted along them: each step between consecutive points (use,
 *   samples, reuse) that is a dense forward walk (same access size, IPs
 *   within RU_LOOP_BYTES, whole elements, a rate within RU_CHAIN_SLACK of
 *   the run's median step rate) counts its address difference / size; a
 *   backward step of one loop (the walk wrapped around its array) counts
 *   the array's ends: the extent of the loop's sample addresses contiguous
 *   with both points, from the reuse's interval and then outwards in time
 *   until a sample falls outside (another array or phase, even one whose
 *   array lies next to this one); two samples at one address and IP (the
 *   thread did not move: the stop cost more than a period) count nothing
 *   and their time is left out; any other step is timed at the rate of
 *   the chain's counted steps. Reuses with no sample in between are timed
 *   as above. result.chained_reuses counts the chained ones.
 * - Access weights (with chains): a time-based sampler takes more samples
 *   per access where the program runs slowly; each detection's weight is
 *   also multiplied by the mean step (accesses per sample: forward steps
 *   and wraps counted as the chains count them, 0 where the thread did not
 *   move, uncountable steps left out) of its thread's samples around its
 *   use, over the run's mean step, so the histograms are per access, not
 *   per CPU time (result.access_weighted detections).
 * - Cold/infinite: a watch still active when the stream ends (the use has
 *   no reuse in the rest of the run), or, in private mode, whose owner
 *   exited. Cold and invalidations are infinite reuse times for the
 *   footprint conversion (reuse_hist__time_to_stack).
 * - Weights (Horvitz-Thompson): the reservoir replaces a watch before a
 *   long reuse far more often than before a short one, so raw counts
 *   over-represent short reuses (a reuse m samples away survives with
 *   probability ~1/(m+1) from a fresh slot). The analysis makes every random
 *   choice itself, so it knows each detection's probability of being
 *   observed: p = P(the sample got a slot) = 1 - prod_slots (1 - 1/n),
 *   times (1 - 1/n) for every later sample that examined the watch's slot
 *   and left it. A detection (reuse, invalidation or cold) counts 1/p
 *   (capped at REUSE_MAX_WEIGHT), which makes the histogram and the
 *   fractions unbiased estimates over the sampled uses. The cap trades a
 *   little bias on the rarest survivors for variance: on ribench one
 *   detection kept with p = 1/2807 (a store to its phase-end counter,
 *   258 ms of thread CPU time later) held 40% of a run's histogram under
 *   load (S 0.58; 0.79 with the cap). Of 192 recordings, 8 had a weight
 *   over 1000; in the other 7 the cap moved S by at most 0.001.
 *   cfg.unweighted counts 1 per detection as the seed does.
 * - Histograms (REUSE_TIME then REUSE_STACK by the footprint conversion,
 *   reuse_hist__time_to_stack) are kept per use thread and for the whole
 *   program, in those weights; the counts (reuses, invalidations, cold) are
 *   detections. Each thread's time histogram is converted on its own (its
 *   own private cache); the whole program's private stack histogram is
 *   the sum of the threads', its shared one the conversion of all
 *   detections. The conversion assumes the reuse-time distribution is the
 *   same throughout what it converts, and programs run in phases (on
 *   ribench, converting the whole run at once costs S 0.75-0.83 even on
 *   the EXACT time histogram). So the detections (by use time) are cut
 *   into windows of cfg.window (default REUSE_DEFAULT_WINDOW), each with
 *   its own footprint, and a reuse whose interval crosses windows is
 *   converted piecewise: the accesses of each window in the interval count
 *   by that window's reuse times (the chance that one is not reused before
 *   the interval ends). A phase's last pass, reused an outer iteration
 *   later, then counts the other phases' arrays once, not every pass over
 *   them (test_reuse_phase_end_distance). Each reuse maps to one distance
 *   (its own access count), not a time bin's spread. cfg.window < 0
 *   converts the whole run at once.
 * - Pairs: (sample IP, trap IP) with counts of reuses and invalidations and
 *   one example data address; trap IPs are the instruction AFTER the access.
 */
#ifndef LP_REUSE_H
#define LP_REUSE_H
#include "core/analysis.h"
#include "core/reuse-hist.h"
#include "core/topology.h"

#define REUSE_MAX_SLOTS		16
#define REUSE_MIN_RATE_PAIRS	8
#define REUSE_MAX_RATE		16.0	/* accesses per ns: beyond any CPU */
#define REUSE_MAX_WEIGHT	1e3	/* cap of a detection's weight */
#define REUSE_MIN_TRAP_COST	3	/* own-access traps behind a trap cost */
#define REUSE_DEFAULT_WINDOW	8	/* detections per footprint window */

/* Zero fields take their default (reuse__config_init). */
struct reuse_config {
	int nslots;			/* GlobalWP slots, default 4 */
	int shared;			/* shared-cache mode */
	enum reuse_gran gran;		/* REUSE_GRAN_ADDR (default) or LINE */
	const struct lp_topology *topo;	/* shared mode: who shares the LLC */
	double access_rate;		/* accesses per ns; 0: estimate */
	u64 seed;			/* PRNG seed, 0: fixed default */
	int max_pairs;			/* use->reuse pairs kept, default 4096 */
	int unweighted;			/* every detection weight 1 (the seed) */
	int window;			/* detections per conversion window
					 * (default REUSE_DEFAULT_WINDOW), < 0: all */
	int global_rate;		/* one stride rate for the run, no local rates */
	int no_chain;			/* time every reuse; no address chains */
};

void reuse__config_init(struct reuse_config *cfg);

enum reuse_rate_source {
	REUSE_RATE_DEFAULT = 0,		/* nothing measured: 1 per ns */
	REUSE_RATE_USER = 1,		/* --access-rate */
	REUSE_RATE_STRIDE = 2,		/* estimated from sample strides */
};

enum reuse_time_source {
	REUSE_TIME_NONE = 0,		/* no reuse measured */
	REUSE_TIME_THREAD_CPU = 1,	/* thread_ns of sample and trap */
	REUSE_TIME_WALL = 2,		/* CLOCK_MONOTONIC (thread_ns missing) */
	REUSE_TIME_MIXED = 3,		/* some of each */
};

extern const char *const reuse_rate_source_names[];	/* "default", "user", ... */
extern const char *const reuse_time_source_names[];	/* "none", "thread_cpu", ... */

struct reuse_pair {
	u64 use_ip, reuse_ip;		/* reuse_ip: trap IP (after the access) */
	u64 addr;			/* one example data address of the use */
	u64 reuses, invalidations;
	u32 thread;			/* use thread index of the first one */
};

struct reuse_thread {
	u32 tid;			/* 0 if never started */
	u64 samples;			/* usable samples */
	u64 reuses, invalidations, cold, cross_thread;
	struct reuse_hist time, stack;
};

struct reuse_stats {
	u64 samples;			/* LP_EV_SAMPLE seen */
	u64 samples_used;		/* armed a slot */
	u64 samples_noaddr;		/* no data address or access kind */
	u64 samples_unknown;		/* thread never started or exited */
	u64 samples_dropped;		/* reservoir kept the old watches */
	u64 replaced;			/* active watches censored by a new one */
	u64 traps, traps_stale, traps_late;
	u64 traps_again;		/* the use reported again (ru_again) */
	u64 traps_use;			/* a held pending sample's own access */
	u64 arm_actions, disarm_actions;
	u64 temporal, chunk;		/* reuses by watch kind (see above) */
	u64 rate_pairs;			/* stride pairs behind the estimate */
};

struct reuse_result {
	int shared;
	enum reuse_gran gran;
	int nthreads;
	const struct reuse_thread *threads;	/* [nthreads], index order */
	struct reuse_hist time, stack;		/* whole program */
	u64 reuses, invalidations, cold, cross_thread;
	double access_rate;			/* accesses per ns used */
	enum reuse_rate_source rate_source;
	double stride_rate;			/* the estimate, 0 if none */
	enum reuse_time_source time_source;
	double mean_access_size;		/* bytes, of used samples */
	double trap_cost_ns;			/* subtracted from held reuses, 0: none */
	u64 trap_cost_samples;			/* own-access traps measured */
	u64 local_rate_reuses;			/* reuses timed with a local rate */
	u64 chained_reuses;			/* reuses counted along address chains */
	u64 access_weighted;			/* detections weighted by accesses per sample */
	int window;				/* footprint window (cfg.window) */
	u64 rate_pairs_local;			/* stride pairs behind access_rate, if local */
	int npairs;
	const struct reuse_pair *pairs;		/* by reuses+invalidations, desc */
	struct reuse_stats stats;
};

struct reuse;

/* NULL with errno EINVAL (bad config) or ENOMEM. @cfg may be NULL. */
struct reuse *reuse__new(const struct reuse_config *cfg);
void reuse__delete(struct reuse *ru);

struct lp_analysis *reuse__analysis(struct reuse *ru);
int reuse__event(struct reuse *ru, const struct lp_event *ev,
		 struct lp_actions *out);
/* End of stream: active watches become cold. */
int reuse__finish(struct reuse *ru);


/*
 * Histograms and counts of everything seen so far (normally after finish);
 * owned by @ru, valid until the next call or reuse__delete. NULL: ENOMEM.
 */
const struct reuse_result *reuse__result(struct reuse *ru);

/* The time distance (accesses strictly between) of @ns at @rate per ns. */
u64 reuse__ns_to_accesses(double ns, double rate);

#endif
