// SPDX-License-Identifier: GPL-2.0
/* Live IBS on the user's machine: SKIPs with the probe's reason without it. */
#include "arch/x86-amd/ibs.h"
#include "arch/x86/selftest-mem.h"
#include "core/tests.h"

LP_SELFTEST(test_ibs_live_addresses, "ibs: sampled loads/stores of a loop land in its array")
{
	return mem_selftest(&lp_facility_ibs, ctx);
}
