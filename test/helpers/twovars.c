// SPDX-License-Identifier: GPL-2.0
/*
 * Two threads write one variable that shares its cache line with another:
 * the line starts at first, every access hits second (+8).
 */
#include <pthread.h>
#include <stdlib.h>

/* laid out by hand: the compiler may order globals as it likes */
__asm__(".data\n.balign 64\n"
	".globl first\n.type first, @object\n.size first, 8\nfirst: .quad 0\n"
	".globl second\n.type second, @object\n.size second, 8\nsecond: .quad 0\n"
	".text\n");
extern long first, second;

static void *worker(void *arg)
{
	long i, n = (long)arg;

	for (i = 0; i < n; i++)
		__atomic_fetch_add(&second, 1, __ATOMIC_RELAXED);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000000;
	pthread_t t[2];
	int i;

	for (i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)n);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return second == 2 * n && first == 0 ? 0 : 1;
}
