// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <perfmon/pfmlib.h>

#include "core/cpu.h"

void cpu__decode_signature(u32 eax, unsigned int *family, unsigned int *model,
			   unsigned int *stepping)
{
	unsigned int base_family = (eax >> 8) & 0xf;

	*stepping = eax & 0xf;
	*family = base_family;
	if (base_family == 0xf)
		*family += (eax >> 20) & 0xff;
	*model = (eax >> 4) & 0xf;
	if (base_family == 0x6 || base_family == 0xf)
		*model |= ((eax >> 16) & 0xf) << 4;
}

int cpu__pfm_pmu(char *name, size_t name_len, char *desc, size_t desc_len)
{
	pfm_pmu_info_t info;
	size_t used = 0;
	int ret, pmu, found = 0;

	snprintf(name, name_len, "none");
	snprintf(desc, desc_len, "none");
	ret = pfm_initialize();
	if (ret != PFM_SUCCESS)
		return -ENODEV;
	/* the architecture default first, then any other present core PMU */
	for (int pass = 0; pass < 2; pass++) {
		pfm_for_all_pmus(pmu) {
			memset(&info, 0, sizeof(info));
			info.size = sizeof(info);
			if (pfm_get_pmu_info(pmu, &info) != PFM_SUCCESS)
				continue;
			if (!info.is_present || info.type != PFM_PMU_TYPE_CORE)
				continue;
			if (info.is_dfl != (pass == 0))
				continue;
			if (!found++) {
				used = 0;
				snprintf(desc, desc_len, "%s", info.desc);
			}
			if (used < name_len)
				used += snprintf(name + used, name_len - used, "%s%s",
						 found > 1 ? "," : "", info.name);
		}
	}
	return 0;
}

static void strip(char *s)
{
	size_t n = strspn(s, " ");

	memmove(s, s + n, strlen(s + n) + 1);
	n = strlen(s);
	while (n && s[n - 1] == ' ')
		s[--n] = '\0';
}

int cpu__read(struct lp_cpu_info *ci)
{
	memset(ci, 0, sizeof(*ci));
	cpu__pfm_pmu(ci->pfm_pmu, sizeof(ci->pfm_pmu), ci->pfm_pmu_desc,
		     sizeof(ci->pfm_pmu_desc));
#if defined(__x86_64__) || defined(__i386__)
	{
		unsigned int a, b, c, d, max, i;
		u32 brand[12];

		__cpuid(0, max, b, c, d);
		memcpy(ci->vendor, &b, 4);
		memcpy(ci->vendor + 4, &d, 4);
		memcpy(ci->vendor + 8, &c, 4);
		if (max >= 1) {
			__cpuid(1, a, b, c, d);
			cpu__decode_signature(a, &ci->family, &ci->model, &ci->stepping);
			ci->hypervisor = (c >> 31) & 1;
		}
		if (ci->hypervisor) {
			__cpuid(0x40000000, a, b, c, d);
			memcpy(ci->hv_vendor, &b, 4);
			memcpy(ci->hv_vendor + 4, &c, 4);
			memcpy(ci->hv_vendor + 8, &d, 4);
			/* KVM pads with NULs; keep it printable */
			for (i = 0; i < 12; i++)
				if (ci->hv_vendor[i] && (ci->hv_vendor[i] < 0x20 ||
							 ci->hv_vendor[i] > 0x7e))
					ci->hv_vendor[i] = '?';
		}
		__cpuid(0x80000000, max, b, c, d);
		if (max >= 0x80000004) {
			for (i = 0; i < 3; i++)
				__cpuid(0x80000002 + i, brand[4 * i], brand[4 * i + 1],
					brand[4 * i + 2], brand[4 * i + 3]);
			memcpy(ci->name, brand, 48);
			ci->name[48] = '\0';
			strip(ci->name);
		}
		return 0;
	}
#else
	return -ENOTSUP;
#endif
}

int cpu__is_intel(const struct lp_cpu_info *ci)
{
	return !strcmp(ci->vendor, "GenuineIntel");
}

int cpu__is_amd(const struct lp_cpu_info *ci)
{
	return !strcmp(ci->vendor, "AuthenticAMD") || !strcmp(ci->vendor, "HygonGenuine");
}
