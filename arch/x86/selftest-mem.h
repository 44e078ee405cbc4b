/* SPDX-License-Identifier: GPL-2.0 */
#ifndef LP_ARCH_X86_SELFTEST_MEM_H
#define LP_ARCH_X86_SELFTEST_MEM_H
#include "core/facility.h"

/*
 * Live self test of facility @f (pebs or ibs) on this thread: SKIP with the
 * probe's reason when unusable (arch/x86/selftest-mem.c).
 */
struct lp_test_ctx;
int mem_selftest(const struct lp_facility_ops *f, struct lp_test_ctx *ctx);

#endif
