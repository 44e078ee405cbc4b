// SPDX-License-Identifier: GPL-2.0
/* Live PEBS on the user's machine: SKIPs with the probe's reason without it. */
#include "arch/x86-intel/pebs.h"
#include "arch/x86/selftest-mem.h"
#include "core/tests.h"

LP_SELFTEST(test_pebs_live_addresses, "pebs: sampled loads/stores of a loop land in its array")
{
	return mem_selftest(&lp_facility_pebs, ctx);
}
