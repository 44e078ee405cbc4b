// SPDX-License-Identifier: GPL-2.0
/*
 * A 5-point Jacobi stencil on two 130 x 130 grids of doubles (132 KiB
 * each): b = average of a's point and its four neighbours, then a from b,
 * SWEEPS times. Ground-truth kernel of test/e2e/kernels.sh.
 * Usage: stencil [SWEEPS] (default 10).
 */
#include <stdlib.h>

#define W 130

static double a[W][W], b[W][W];

static void step(double (*restrict dst)[W], double (*restrict src)[W])
{
	int i, j;

	for (i = 1; i < W - 1; i++)
		for (j = 1; j < W - 1; j++)
			dst[i][j] = 0.2 * (src[i][j] + src[i - 1][j] + src[i + 1][j] +
					   src[i][j - 1] + src[i][j + 1]);
}

int main(int argc, char **argv)
{
	long sweeps = argc > 1 ? atol(argv[1]) : 10, s;

	a[W / 2][W / 2] = 1;
	for (s = 0; s < sweeps; s++) {
		step(b, a);
		step(a, b);
	}
	return a[W / 2][W / 2] > 1;
}
