// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "core/facility.h"

const struct lp_facility_ops *const lp_facilities[] = {
	&lp_facility_pebs,
	&lp_facility_ibs,
	&lp_facility_soft,
};
const int lp_nfacilities = ARRAY_SIZE(lp_facilities);

const struct lp_facility_ops *lp_facility__find(const char *name)
{
	int i;

	for (i = 0; i < lp_nfacilities; i++)
		if (!strcmp(lp_facilities[i]->name, name))
			return lp_facilities[i];
	return NULL;
}
