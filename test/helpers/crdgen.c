// SPDX-License-Identifier: GPL-2.0
/*
 * crdgen: synthetic interleaved access traces (lociprof-trace(5)) for the
 * shared-cache prediction (lociprof reuse --predict-threads), after the
 * generator of Jiang et al. 2010, 4.1: N threads, each with its own data
 * and a share of accesses to a pool of data all threads share.
 *
 *   crdgen THREADS ACCESSES PRIVATE SHARED PSHARED PATTERN TURN [SEED]
 *
 * ACCESSES per thread; PRIVATE lines per thread; SHARED lines in the pool;
 * PSHARED the probability an access goes to the pool (uniform there);
 * PATTERN the private accesses: cyclic (sweeps), random (uniform) or
 * expon (LRU stack depth geometric, mean PRIVATE / 8); TURN accesses per
 * turn, threads round-robin. Each access is one 8-byte load of a line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t state;

static uint64_t next(void)
{
	uint64_t z = (state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double uniform(void)
{
	return (double)(next() >> 11) / 9007199254740992.0;
}

int main(int argc, char **argv)
{
	unsigned long nthr, acc, npriv, nshared, turn, x, i, s;
	unsigned long *pos, **stack;
	double psh;
	const char *pat;

	if (argc < 8 || argc > 9) {
		fprintf(stderr, "usage: crdgen THREADS ACCESSES PRIVATE SHARED PSHARED "
			"cyclic|random|expon TURN [SEED]\n");
		return 2;
	}
	nthr = strtoul(argv[1], NULL, 0);
	acc = strtoul(argv[2], NULL, 0);
	npriv = strtoul(argv[3], NULL, 0);
	nshared = strtoul(argv[4], NULL, 0);
	psh = strtod(argv[5], NULL);
	pat = argv[6];
	turn = strtoul(argv[7], NULL, 0);
	state = argc > 8 ? strtoull(argv[8], NULL, 0) : 1;
	if (!nthr || nthr > 1024 || !npriv || !nshared || !turn ||
	    (strcmp(pat, "cyclic") && strcmp(pat, "random") && strcmp(pat, "expon"))) {
		fprintf(stderr, "crdgen: bad arguments\n");
		return 2;
	}
	pos = calloc(nthr, sizeof(*pos));
	stack = calloc(nthr, sizeof(*stack));
	if (!pos || !stack)
		return 1;
	for (x = 0; x < nthr; x++) {
		stack[x] = malloc(npriv * sizeof(**stack));
		if (!stack[x])
			return 1;
		for (i = 0; i < npriv; i++)
			stack[x][i] = i;
	}
	printf("# lociprof-trace 1\n# crdgen");
	for (i = 1; i < (unsigned long)argc; i++)
		printf(" %s", argv[i]);
	printf("\n");
	for (i = 0; i < acc; i += turn)
		for (x = 0; x < nthr; x++)
			for (s = 0; s < turn && i + s < acc; s++) {
				unsigned long line;

				if (uniform() < psh) {
					line = (1ul << 30) + next() % nshared;
				} else {
					unsigned long k;

					if (!strcmp(pat, "cyclic")) {
						k = pos[x]++ % npriv;
					} else if (!strcmp(pat, "random")) {
						k = next() % npriv;
					} else {
						/* depth d with P = (1-p)^d p, p = 8 / npriv; move to front */
						unsigned long d = 0, j;
						double p = 8.0 / (double)npriv;

						while (d + 1 < npriv && uniform() > p)
							d++;
						k = stack[x][d];
						for (j = d; j > 0; j--)
							stack[x][j] = stack[x][j - 1];
						stack[x][0] = k;
					}
					line = ((x + 1) << 32) + k;
				}
				printf("%lu R %#lx 8\n", 1000 + x, line << 6);
			}
	return 0;
}
