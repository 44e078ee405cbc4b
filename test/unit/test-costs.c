// SPDX-License-Identifier: GPL-2.0
/* list --costs: the pure parts (the overhead floor and the median). */
#include <math.h>
#include <string.h>

#include "core/tests.h"
#include "core/costs.h"

LP_TEST(test_costs_floor, "costs: a period paying O of P ns runs at P / (P - O) of native")
{
	/* 4 periods of 100 us each paying 20 us: 400 us for 320 us of work */
	double f = costs__floor(100000, 20000);

	TEST_ASSERT(fabs(f * (4 * (100000 - 20000)) - 4 * 100000) < 1e-6, "floor %g", f);
	TEST_ASSERT(costs__floor(100000, 0) == 1, "no overhead: %g", costs__floor(100000, 0));
	TEST_ASSERT(isinf(costs__floor(100000, 100000)), "overhead fills the period");
	TEST_ASSERT(isinf(costs__floor(100000, 250000)), "overhead beyond the period");
	TEST_ASSERT(isnan(costs__floor(0, 10)) && isnan(costs__floor(100, -1)) &&
		    isnan(costs__floor(NAN, 1)) && isnan(costs__floor(100, NAN)), "bad input");
	/* more overhead, never a smaller floor */
	TEST_ASSERT(costs__floor(100000, 45000) > costs__floor(100000, 16000), "monotone");
	return TEST_OK;
}

LP_TEST(test_costs_median, "costs: median of odd, even and empty sets, sorted in place")
{
	double odd[] = { 30, 10, 20 }, even[] = { 4, 1, 3, 2 }, one[] = { 7 };

	TEST_ASSERT(costs__median(odd, 3) == 20, "odd %g", odd[1]);
	TEST_ASSERT(odd[0] == 10 && odd[2] == 30, "sorted: %g %g %g", odd[0], odd[1], odd[2]);
	TEST_ASSERT(costs__median(even, 4) == 2.5, "even");
	TEST_ASSERT(costs__median(one, 1) == 7, "one");
	TEST_ASSERT(isnan(costs__median(one, 0)), "empty");
	return TEST_OK;
}

LP_TEST(test_costs_reuse_floor,
	"costs: a reuse's floor is sample + hold (sync) or arm (async) + trap, unmeasured parts named")
{
	struct lp_costs c;
	char missing[64];
	double ns;

	memset(&c, 0, sizeof(c));
	c.sample.us = 40;
	c.hold.us = 20;
	c.arm.us = 5;
	c.trap.us = 30;
	ns = costs__reuse_floor(&c, 1, missing, sizeof(missing));
	TEST_ASSERT(fabs(ns - 90000) < 1e-6 && !missing[0], "sync %g '%s'", ns, missing);
	ns = costs__reuse_floor(&c, 0, missing, sizeof(missing));
	TEST_ASSERT(fabs(ns - 75000) < 1e-6 && !missing[0], "async %g '%s'", ns, missing);
	c.trap.us = -1;		/* watchpoints that never fire */
	c.hold.us = -1;
	ns = costs__reuse_floor(&c, 1, missing, sizeof(missing));
	TEST_ASSERT(fabs(ns - 40000) < 1e-6 && !strcmp(missing, "hold, trap"), "%g '%s'", ns, missing);
	c.sample.us = -1;
	TEST_ASSERT(costs__reuse_floor(&c, 1, NULL, 0) == 0, "nothing measured");
	return TEST_OK;
}
