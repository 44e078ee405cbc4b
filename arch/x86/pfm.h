/* SPDX-License-Identifier: GPL-2.0 */
/* libpfm4 encodings shared by the Intel and AMD facilities. */
#ifndef LP_ARCH_X86_PFM_H
#define LP_ARCH_X86_PFM_H
#include <linux/perf_event.h>
#include "core/types.h"

/*
 * Encode libpfm4 event @name on the PMU libpfm4 was initialized for;
 * 0 with attr.config/config1, or -ENOENT.
 */
int x86_pfm__encode(const char *name, struct perf_event_attr *attr);
/*
 * The same for libpfm4 PMU @pmu (LIBPFM_FORCE_PMU, in a child process),
 * NULL: this machine's. 0, or -ENOENT (unknown PMU or event).
 */
int x86_pfm__encode_on(const char *pmu, const char *name, struct perf_event_attr *attr);
/* 1 if libpfm4 knows PMU @pmu (LIBPFM_FORCE_PMU=@pmu makes it present). */
int x86_pfm__known(const char *pmu);

#endif
