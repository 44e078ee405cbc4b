// SPDX-License-Identifier: GPL-2.0
/*
 * wptarget FILE: writes the addresses of two variables to FILE, then in a
 * second thread spins, storing to the first variable every 2^16 iterations
 * and to the second every 2^16 iterations (offset by half a period), for a
 * bounded time. Watchpoint tests arm on these addresses.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

volatile long wp_first[8] __attribute__((aligned(64)));
volatile long wp_second[8] __attribute__((aligned(64)));
static volatile long sink;

static void *work(void *arg)
{
	long i, n = (long)arg;

	for (i = 0; i < n; i++) {
		sink += i;
		if ((i & 0xffff) == 0)
			wp_first[0] = i;
		if ((i & 0xffff) == 0x8000)
			wp_second[0] = i;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	long n = argc > 2 ? atol(argv[2]) : 300000000L;
	FILE *f;

	if (argc < 2)
		return 2;
	f = fopen(argv[1], "w");
	if (!f)
		return 2;
	fprintf(f, "%p %p\n", (void *)wp_first, (void *)wp_second);
	fclose(f);
	pthread_create(&t, NULL, work, (void *)n);
	pthread_join(t, NULL);
	return 0;
}
