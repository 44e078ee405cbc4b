// SPDX-License-Identifier: GPL-2.0
/*
 * Two threads sweep a thread-local array: every sampled access of theirs
 * is to tls_buf in their own static TLS block (below the thread pointer).
 * Then the first thread sweeps its own (main_sweep).
 */
#include <pthread.h>
#include <stdlib.h>

__thread long tls_pad;			/* first in the block: tls_buf is at an offset */
__thread volatile long tls_buf[512];

static void *worker(void *arg)
{
	long i, n = (long)arg;

	tls_pad = n;
	for (i = 0; i < n; i++)
		tls_buf[i & 511] += i;
	return NULL;
}

static int __attribute__((noinline)) main_sweep(long n)
{
	long i;

	for (i = 0; i < n; i++)
		tls_buf[i & 511] += i;
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000000;
	pthread_t t[2];
	int i;

	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)n))
			return 1;
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return main_sweep(n);
}
