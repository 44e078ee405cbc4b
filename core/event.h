/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The typed events that flow from the session (live) or a data file (replay)
 * into the analyses. Analyses see nothing else of the machine.
 */
#ifndef LP_EVENT_H
#define LP_EVENT_H
#include "core/types.h"

enum lp_access_kind {
	LP_ACCESS_NONE = 0,
	LP_ACCESS_LOAD = 1,
	LP_ACCESS_STORE = 2,
	LP_ACCESS_ATOMIC = 3,	/* read-modify-write: load and store */
};

/* Why a sample carries no data address. */
enum lp_noaddr {
	LP_NOADDR_NONE = 0,		/* it has one */
	LP_NOADDR_NOT_MEMORY,		/* instruction does not access memory */
	LP_NOADDR_KERNEL,		/* IP outside user space */
	LP_NOADDR_NO_REGS,		/* sample carries no user registers */
	LP_NOADDR_CODE_UNREADABLE,	/* could not read the instruction bytes */
	LP_NOADDR_DECODE_FAILED,	/* bytes did not decode */
	LP_NOADDR_UNSUPPORTED,		/* gather/scatter, segment other than fs/gs... */
	LP_NOADDR_HW_INVALID,		/* facility marked the address invalid */
	LP_NOADDR_BELOW_MIN,		/* computed address below vm.mmap_min_addr */
	LP_NOADDR__MAX
};

extern const char *const lp_noaddr_names[LP_NOADDR__MAX];

struct lp_sample;
/*
 * No process can map an address below vm.mmap_min_addr (@min_addr), so a
 * decoded address there comes from an instruction that did not run with
 * these registers (a timer sample's IP at a jump target: the instruction
 * before it in memory is not the one that ran). Marks @s
 * LP_NOADDR_BELOW_MIN and returns 1 if so; 0 otherwise.
 */
int lp_sample_below_min(struct lp_sample *s, u64 min_addr);

/* lp_sample.flags */
#define LP_SAMPLE_PREV_INSN	(1u << 0)	/* address of the instruction before IP */
#define LP_SAMPLE_KERNEL	(1u << 1)	/* sampled in kernel mode */
#define LP_SAMPLE_LOCKED	(1u << 2)
#define LP_SAMPLE_TLB_MISS	(1u << 3)
#define LP_SAMPLE_HELD		(1u << 4)	/* thread is stopped while this is processed */
#define LP_SAMPLE_PENDING	(1u << 5)	/* access not made yet: it is IP's, the
						   thread's next instruction (soft) */

/*
 * One decoded memory sample: the one struct that crosses the facility
 * boundary (Documentation/architecture.md, "Events and actions"). Unknown fields are 0.
 */
struct lp_sample {
	u64 time;		/* ns, CLOCK_MONOTONIC (attr.clockid) */
	u64 ip;			/* instruction that made the access */
	u64 addr;		/* data address; valid iff noaddr == LP_NOADDR_NONE */
	u64 period;		/* facility period: ns (soft) or events (pebs/ibs) */
	u64 data_src;		/* PERF_SAMPLE_DATA_SRC encoding, 0 if unknown */
	u32 pid, tid;
	u32 cpu;
	u32 latency;		/* cycles, 0 if unknown */
	u8 size;		/* bytes accessed, 0 if unknown */
	u8 kind;		/* enum lp_access_kind */
	u8 noaddr;		/* enum lp_noaddr */
	u8 flags;		/* LP_SAMPLE_* */
	u64 thread_ns;		/* CPU time the thread had used, 0 if unknown */
};

/* Watchpoint modes, the values of HW_BREAKPOINT_W / HW_BREAKPOINT_RW. */
enum lp_wp_mode {
	LP_WP_W = 2,
	LP_WP_RW = 3,
};

/* A watchpoint fired. */
struct lp_trap {
	u64 time;
	u64 ip;			/* instruction after the access (traps are after) */
	u64 addr;		/* watched address (bp_addr of the slot) */
	u64 cookie;		/* what the analysis passed when arming */
	u32 pid, tid;
	u32 cpu;
	u8 slot;
	u8 mode;		/* enum lp_wp_mode */
	u8 len;
	u8 pad;
	u64 thread_ns;		/* CPU time the trapping thread had used, 0 if unknown */
};

struct lp_thread {
	u64 time;
	u32 pid, tid;
	u32 parent_tid;		/* 0 for the first thread */
	u32 cpu;		/* CPU it last ran on, if known, else ~0 */
	u32 index;		/* order of creation, 0 = main thread */
	s32 status;		/* exit: wait status, start: 0 */
	u64 fs_base;
	u64 cpu_ns;		/* exit: CPU time the thread used, 0 if unknown */
};

struct lp_mmap {
	u64 time;
	u32 pid;
	u32 prot;		/* PROT_* */
	u64 start, len, pgoff;
	char filename[256];
};

/* Records the kernel dropped, and throttling, per thread. */
struct lp_lost {
	u64 time;
	u32 pid, tid;
	u64 lost;
	u64 throttled;
};

/* A counting reading (loads+stores where the facility counts them). */
struct lp_counter {
	u64 time;
	u32 pid, tid;
	u64 value;
	u64 enabled_ns, running_ns;
};

/* A process replaced its program (execve): the events after it are the new one's. */
struct lp_exec {
	u64 time;
	u32 pid, tid;
	char filename[256];	/* the new program, /proc/PID/exe */
};

/* The allocator function an LP_EV_ALLOC / LP_EV_FREE came from. */
enum lp_alloc_fn {
	LP_ALLOC_MALLOC = 1,
	LP_ALLOC_CALLOC,
	LP_ALLOC_REALLOC,
	LP_ALLOC_ALIGNED,	/* aligned_alloc, memalign */
	LP_ALLOC_FREE,
	LP_ALLOC_MMAP,		/* anonymous mmap */
	LP_ALLOC_MUNMAP,	/* an LP_EV_FREE */
	LP_ALLOC_POSIX_MEMALIGN,	/* the block is written to *memptr */
	LP_ALLOC_VALLOC,		/* valloc */
	LP_ALLOC_NEW,			/* C++ operator new, new[] (libstdc++) */
	LP_ALLOC__MAX
};

extern const char *const lp_alloc_fn_names[LP_ALLOC__MAX];

#define LP_ALLOC_MAX_FRAMES 8

/*
 * A heap block was allocated (LP_EV_ALLOC: addr, size, the call path) or
 * freed (LP_EV_FREE: addr; size and frames 0). time is the allocator's
 * return (alloc) or entry (free). realloc is a free of the old block,
 * then an alloc of the new one.
 */
struct lp_alloc {
	u64 time;
	u64 addr;
	u64 size;
	u32 pid, tid;
	u8 fn;			/* enum lp_alloc_fn */
	u8 nframes;		/* valid entries of frames[] */
	u16 pad;
	u32 pad2;
	/* return addresses, innermost first: frames[0] is in malloc's caller */
	u64 frames[LP_ALLOC_MAX_FRAMES];
};

enum lp_action_op {
	LP_ACT_ARM = 1,		/* arm (or move) watchpoint slot on tid */
	LP_ACT_DISARM = 2,
};

/* What an analysis asks the session to do. */
struct lp_action {
	u8 op;			/* enum lp_action_op */
	u8 slot;		/* 0..nslots-1 */
	u8 mode;		/* enum lp_wp_mode */
	u8 len;			/* 1, 2, 4 or 8; addr aligned to it */
	u32 tid;		/* thread whose debug register is used */
	u64 addr;
	u64 cookie;		/* comes back in lp_trap */
	u64 time;		/* when the session executed it (CLOCK_MONOTONIC ns) */
};

enum lp_event_type {
	LP_EV_THREAD_START = 1,
	LP_EV_THREAD_EXIT,
	LP_EV_MMAP,
	LP_EV_SAMPLE,
	LP_EV_TRAP,
	LP_EV_ACTION,
	LP_EV_LOST,
	LP_EV_COUNTER,
	LP_EV_EXEC,		/* since data file 1.3 */
	LP_EV_ALLOC,		/* since data file 1.4 */
	LP_EV_FREE,		/* since data file 1.4 */
	LP_EV_THREAD_TLS,	/* a thread's fs_base learnt late (1.4 readers skip it) */
	LP_EV__MAX
};

extern const char *const lp_event_names[LP_EV__MAX];

struct lp_event {
	u32 type;		/* enum lp_event_type */
	u32 pad;
	union {
		struct lp_thread thread;
		struct lp_mmap mmap;
		struct lp_sample sample;
		struct lp_trap trap;
		struct lp_action action;
		struct lp_lost lost;
		struct lp_counter counter;
		struct lp_exec exec;
		struct lp_alloc alloc;	/* LP_EV_ALLOC, LP_EV_FREE */
	};
};

#endif
