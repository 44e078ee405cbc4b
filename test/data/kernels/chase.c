// SPDX-License-Identifier: GPL-2.0
/*
 * A pointer chase: 8192 nodes of one 64-byte line each (512 KiB) linked in
 * one random cycle (Sattolo's shuffle, fixed seed), followed STEPS times.
 * Ground-truth kernel of test/e2e/kernels.sh.
 * Usage: chase [STEPS] (default 1000000).
 */
#include <stdlib.h>

#define N 8192

struct node {
	struct node *next;
	long pad[7];
};

static struct node nodes[N];
static unsigned perm[N];

int main(int argc, char **argv)
{
	long steps = argc > 1 ? atol(argv[1]) : 1000000, i;
	unsigned long x = 88172645463325252ul;
	struct node *p;

	for (i = 0; i < N; i++)
		perm[i] = (unsigned)i;
	for (i = N - 1; i > 0; i--) {	/* Sattolo: one cycle through all */
		unsigned j, t;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		j = (unsigned)(x % (unsigned long)i);
		t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (i = 0; i < N; i++)
		nodes[i].next = &nodes[perm[i]];
	p = &nodes[0];
	for (i = 0; i < steps; i++)
		p = p->next;
	return p == NULL;
}
