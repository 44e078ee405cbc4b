// SPDX-License-Identifier: GPL-2.0
/*
 * A static array of structs, one element's member hammered: argv[1] the
 * element, argv[2] the iterations. lociprof names the sampled address
 * slots[<element>].count+0 from the array's DWARF type
 * (test/e2e/objects.sh); the plain variable 'total' keeps 'total+0'.
 */
#include <stdio.h>
#include <stdlib.h>

struct slot {
	long id;
	long count;
	char name[16];
};

struct slot slots[8];
long total;

int main(int argc, char **argv)
{
	int e = argc > 1 ? atoi(argv[1]) : 3;
	long i, n = argc > 2 ? atol(argv[2]) : 100000000;
	volatile struct slot *s = &slots[e & 7];

	for (i = 0; i < n; i++) {
		s->count++;
		total += i & 1;
	}
	printf("%ld %ld\n", s->count, total);
	return 0;
}
