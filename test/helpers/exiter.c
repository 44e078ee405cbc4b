// SPDX-License-Identifier: GPL-2.0
/*
 * exiter CODE: spin a little in two threads, then exit with CODE.
 * exiter -SIG: die of signal SIG (segv: a real invalid access).
 * exiter sleep: spin, then sleep until killed (for -p attach tests).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile long counter[64];

static void *spin(void *arg)
{
	long i, n = (long)arg;

	for (i = 0; i < n; i++)
		counter[(i * 7) & 63] += i;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	const char *what = argc > 1 ? argv[1] : "0";

	if (!strcmp(what, "sleep")) {
		printf("%d\n", getpid());
		fflush(stdout);
		for (;;) {
			pthread_create(&t, NULL, spin, (void *)2000000L);
			spin((void *)2000000L);
			pthread_join(t, NULL);
			usleep(1000);
		}
	}
	pthread_create(&t, NULL, spin, (void *)30000000L);
	spin((void *)30000000L);
	pthread_join(t, NULL);
	if (what[0] == '-') {
		int sig = atoi(what + 1);

		if (sig == SIGSEGV)
			*(volatile int *)8 = 1;
		raise(sig);
	}
	return atoi(what);
}
