// SPDX-License-Identifier: GPL-2.0
/*
 * A sweep over an array: PASSES passes of loads over 12288 longs (96 KiB,
 * twice a 48 KiB L1d, a tenth of a 1 MiB last level). Ground-truth kernel
 * of test/e2e/kernels.sh: its accesses are traced by valgrind lackey and
 * simulated by cachegrind. Usage: sweep [PASSES] (default 80).
 */
#include <stdlib.h>

#define N 12288

static long a[N];

int main(int argc, char **argv)
{
	long passes = argc > 1 ? atol(argv[1]) : 80, p, i, s = 0;

	for (p = 0; p < passes; p++)
		for (i = 0; i < N; i++)
			s += ((volatile long *)a)[i];
	return (int)(s & 1);
}
