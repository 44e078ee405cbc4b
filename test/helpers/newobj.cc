// SPDX-License-Identifier: GPL-2.0
/*
 * heapobj.sh's C++ target: main allocates one object with operator new
 * ('new'), new[] ('array') or aligned new[] ('aligned'), each expression on
 * one line, and two threads add to it N times each (true sharing), so it is
 * the top object of comdetect --objects, named by the new expression's line.
 *
 *   newobj HOW 0   prints the site 'newobj.cc:LINE' of HOW and exits
 *   newobj HOW N   runs: 2 threads x N atomic adds
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <pthread.h>

struct counter {
	long v;
	long pad[7];
};

static counter *obj;
static long iters;

static void *worker(void *)
{
	for (long i = 0; i < iters; i++)
		__atomic_fetch_add(&obj->v, 1, __ATOMIC_RELAXED);
	return nullptr;
}

int main(int argc, char **argv)
{
	int line = 0;
	const char *how = argc > 1 ? argv[1] : "";

	iters = argc > 2 ? atol(argv[2]) : 0;
	if (!strcmp(how, "new")) {
		line = __LINE__; obj = new counter();
	} else if (!strcmp(how, "array")) {
		line = __LINE__; obj = new counter[4]();
	} else if (!strcmp(how, "aligned")) {
		line = __LINE__; obj = new (std::align_val_t(256)) counter[4]();
	} else {
		fprintf(stderr, "usage: newobj new|array|aligned N\n");
		return 129;
	}
	if (!iters) {
		printf("newobj.cc:%d\n", line);
		return 0;
	}
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], nullptr, worker, nullptr);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], nullptr);
	int ok = obj->v == 2 * iters;
	if (!strcmp(how, "new"))
		delete obj;
	else if (!strcmp(how, "array"))
		delete[] obj;
	else
		::operator delete[](obj, std::align_val_t(256));
	return ok ? 0 : 1;
}
