// SPDX-License-Identifier: GPL-2.0
/* PLACEHOLDER: replaced by the facility implementation. */
#include <errno.h>
#include <stdio.h>
#include "core/facility.h"

static int pebs_probe(struct lp_probe *res)
{
	res->usable = 0;
	snprintf(res->reason, sizeof(res->reason), "not implemented yet");
	return 0;
}

const struct lp_facility_ops lp_facility_pebs = {
	.name = "pebs",
	.probe = pebs_probe,
};
