// SPDX-License-Identifier: GPL-2.0
/*
 * Target for the symbol-resolution tests (test/unit/test-symbols.c): known
 * static objects, a noinline function with an always_inline callee, a thread,
 * a heap block. It prints the runtime addresses the test needs as
 * "key=0x..." lines, then "ready", and stays alive until stdin reaches EOF,
 * so the test can read /proc/PID/maps while it runs.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

long lp_sym_array[64];
static int lp_sym_small;
/* relocated pointers: .data.rel.ro, mprotected read-only after relocation */
const char *const lp_sym_relro[4] = { "a", "b", "c", "d" };
static void *volatile lp_sym_ret;
static int lp_sym_pipe[2];

/* Records its return address: an instruction inside the inlined caller. */
static __attribute__((noinline)) void lp_sym_record(void)
{
	lp_sym_ret = __builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

static inline __attribute__((always_inline)) int lp_sym_inlined(int x)
{
	int r = x * 3;

	lp_sym_record(); /* LINE-MARKER */
	lp_sym_array[x & 63] += r;
	return r;
}

/* gcc gives the function's first instruction the line of its brace */
__attribute__((noinline)) int lp_sym_func(int x)
{ /* FUNC-MARKER */
	int y = lp_sym_inlined(x); /* CALL-MARKER */

	lp_sym_small += y;
	return y + 1;
}

/* Blocks until main closes the pipe; its stack lives in an anonymous mapping. */
static void *lp_sym_thread(void *arg)
{
	volatile long local = 42;
	char c;

	printf("thread_stack=%p\n", (void *)&local);
	fflush(stdout);
	*(int *)arg = 1;
	while (read(lp_sym_pipe[0], &c, 1) > 0)
		;
	return NULL;
}

int main(void)
{
	int (*volatile pf)(const char *, ...) = printf;
	volatile int started = 0;
	volatile long stack_local = 7;
	pthread_t th;
	char *heap;
	char buf[64];

	heap = malloc(100);
	if (!heap || pipe(lp_sym_pipe))
		return 1;
	lp_sym_func(5);
	printf("func=%p\n", (void *)lp_sym_func);
	printf("inline_ret=%p\n", lp_sym_ret);
	printf("array=%p\n", (void *)lp_sym_array);
	printf("small=%p\n", (void *)&lp_sym_small);
	printf("relro=%p\n", (void *)lp_sym_relro);
	printf("printf=%p\n", (void *)pf);
	printf("heap=%p\n", (void *)heap);
	printf("stack=%p\n", (void *)&stack_local);
	fflush(stdout);
	if (pthread_create(&th, NULL, lp_sym_thread, (void *)&started))
		return 1;
	while (!started)
		usleep(1000);
	printf("ready\n");
	fflush(stdout);
	while (read(0, buf, sizeof(buf)) > 0)
		;
	close(lp_sym_pipe[1]);
	pthread_join(th, NULL);
	free(heap);
	return lp_sym_small == 0;
}
