/* SPDX-License-Identifier: GPL-2.0 */
/* The software facility, for its tests: core/ finds it by name. */
#ifndef LP_ARCH_SOFT_H
#define LP_ARCH_SOFT_H
#include "core/facility.h"

extern const struct lp_facility_ops lp_facility_soft;

#endif
