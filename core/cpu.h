/* SPDX-License-Identifier: GPL-2.0 */
/* What CPU this is: CPUID identification and libpfm4's name for its PMU. */
#ifndef LP_CPU_H
#define LP_CPU_H
#include <stddef.h>
#include "core/types.h"

struct lp_cpu_info {
	char vendor[13];	/* "GenuineIntel", "AuthenticAMD", ... */
	unsigned int family;	/* display family (base + extended) */
	unsigned int model;	/* display model (extended model folded in) */
	unsigned int stepping;
	char name[49];		/* brand string, leading blanks removed */
	int hypervisor;		/* CPUID.1:ECX[31] */
	char hv_vendor[13];	/* CPUID 0x40000000 signature, "" if none */
	/* libpfm4 core PMU(s) present on this machine, "none" if none */
	char pfm_pmu[64];
	char pfm_pmu_desc[128];
};

/* Fill @ci. 0, or -ENOTSUP when CPUID is not available (not x86). */
int cpu__read(struct lp_cpu_info *ci);

/*
 * Decode a CPUID.1:EAX signature into display family/model/stepping
 * (Intel SDM vol. 2A, CPUID; AMD uses the same rule for family 0xf).
 */
void cpu__decode_signature(u32 eax, unsigned int *family, unsigned int *model,
			   unsigned int *stepping);

/*
 * libpfm4's core PMU(s) present on this machine (hybrids: "adl_glc,adl_grt"),
 * and the description of the first. "none" if libpfm4 knows none. 0 or
 * -errno (libpfm4 failed to initialize).
 */
int cpu__pfm_pmu(char *name, size_t name_len, char *desc, size_t desc_len);

int cpu__is_intel(const struct lp_cpu_info *ci);
int cpu__is_amd(const struct lp_cpu_info *ci);	/* AMD or Hygon */

#endif
