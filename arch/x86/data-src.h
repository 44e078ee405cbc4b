/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PERF_SAMPLE_DATA_SRC (union perf_mem_data_src), as both x86 vendors'
 * facilities fill it and reports print it.
 */
#ifndef LP_ARCH_X86_DATA_SRC_H
#define LP_ARCH_X86_DATA_SRC_H
#include <stddef.h>
#include "core/types.h"

/* union perf_mem_data_src, unpacked (host-endian independent). */
struct lp_data_src {
	unsigned int op, lvl, snoop, lock, tlb, lvl_num, remote, snoopx, blk, hops;
};
void data_src__fields(u64 data_src, struct lp_data_src *d);
int data_src__kind(u64 data_src);	/* LP_ACCESS_* from mem_op */
u8 data_src__flags(u64 data_src);	/* LP_SAMPLE_LOCKED, LP_SAMPLE_TLB_MISS */

/*
 * As text for reports: "load L3 hit snoop HITM TLB L1 miss/L2 hit locked".
 * Returns @buf; "-" when @data_src says nothing.
 */
const char *lp_data_src__str(u64 data_src, char *buf, size_t len);

#endif
