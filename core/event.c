// SPDX-License-Identifier: GPL-2.0
#include "core/event.h"

const char *const lp_noaddr_names[LP_NOADDR__MAX] = {
	[LP_NOADDR_NONE] = "has address",
	[LP_NOADDR_NOT_MEMORY] = "instruction does not access memory",
	[LP_NOADDR_KERNEL] = "sampled in the kernel",
	[LP_NOADDR_NO_REGS] = "no user registers in sample",
	[LP_NOADDR_CODE_UNREADABLE] = "instruction bytes unreadable",
	[LP_NOADDR_DECODE_FAILED] = "instruction did not decode",
	[LP_NOADDR_UNSUPPORTED] = "unsupported addressing (gather/scatter, segment)",
	[LP_NOADDR_HW_INVALID] = "hardware marked address invalid",
	[LP_NOADDR_BELOW_MIN] = "decoded address below vm.mmap_min_addr (not the instruction that ran)",
};

int lp_sample_below_min(struct lp_sample *s, u64 min_addr)
{
	if (s->noaddr != LP_NOADDR_NONE || s->addr >= min_addr)
		return 0;
	s->noaddr = LP_NOADDR_BELOW_MIN;
	return 1;
}

const char *const lp_event_names[LP_EV__MAX] = {
	[LP_EV_THREAD_START] = "thread-start",
	[LP_EV_THREAD_EXIT] = "thread-exit",
	[LP_EV_MMAP] = "mmap",
	[LP_EV_SAMPLE] = "sample",
	[LP_EV_TRAP] = "trap",
	[LP_EV_ACTION] = "action",
	[LP_EV_LOST] = "lost",
	[LP_EV_COUNTER] = "counter",
	[LP_EV_EXEC] = "exec",
	[LP_EV_ALLOC] = "alloc",
	[LP_EV_FREE] = "free",
	[LP_EV_THREAD_TLS] = "thread-tls",
};

const char *const lp_alloc_fn_names[LP_ALLOC__MAX] = {
	[LP_ALLOC_MALLOC] = "malloc",
	[LP_ALLOC_CALLOC] = "calloc",
	[LP_ALLOC_REALLOC] = "realloc",
	[LP_ALLOC_ALIGNED] = "aligned_alloc",
	[LP_ALLOC_FREE] = "free",
	[LP_ALLOC_MMAP] = "mmap",
	[LP_ALLOC_MUNMAP] = "munmap",
	[LP_ALLOC_POSIX_MEMALIGN] = "posix_memalign",
	[LP_ALLOC_VALLOC] = "valloc",
	[LP_ALLOC_NEW] = "new",
};
