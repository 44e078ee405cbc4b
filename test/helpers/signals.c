// SPDX-License-Identifier: GPL-2.0
/*
 * A target with signal handling of its own: it must keep working under
 * lociprof. Exits 0 when its SIGTRAP, SIGSEGV and SIGCHLD handlers all ran
 * (and a blocked signal stayed pending), else the number of what failed.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t got_trap, got_segv, got_chld, got_usr1;
static sigjmp_buf env;

static void on_trap(int sig) { (void)sig; got_trap++; }
static void on_chld(int sig) { (void)sig; got_chld++; }
static void on_usr1(int sig) { (void)sig; got_usr1++; }
static void on_segv(int sig)
{
	(void)sig;
	got_segv++;
	siglongjmp(env, 1);
}

int main(void)
{
	struct sigaction sa;
	sigset_t set, old;
	volatile long spin = 0;
	volatile int fails = 0;
	int status;
	pid_t pid;
	long i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_trap;
	sigaction(SIGTRAP, &sa, NULL);
	sa.sa_handler = on_segv;
	sigaction(SIGSEGV, &sa, NULL);
	sa.sa_handler = on_chld;
	sigaction(SIGCHLD, &sa, NULL);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);

	for (i = 0; i < 20000000; i++)	/* let some samples happen */
		spin += i;
	raise(SIGTRAP);
	if (sigsetjmp(env, 1) == 0)
		*(volatile int *)16 = 1;	/* fault, handler jumps back */
	pid = fork();
	if (pid == 0)
		_exit(7);
	waitpid(pid, &status, 0);
	/* a blocked signal stays pending until unblocked */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, &old);
	raise(SIGUSR1);
	if (got_usr1)
		fails |= 8;
	sigprocmask(SIG_SETMASK, &old, NULL);

	if (got_trap != 1)
		fails |= 1;
	if (got_segv != 1)
		fails |= 2;
	if (!got_chld || !WIFEXITED(status) || WEXITSTATUS(status) != 7)
		fails |= 4;
	if (got_usr1 != 1)
		fails |= 16;
	printf("trap %d segv %d chld %d usr1 %d child-status %d\n", (int)got_trap,
	       (int)got_segv, (int)got_chld, (int)got_usr1, WEXITSTATUS(status));
	return fails;
}
