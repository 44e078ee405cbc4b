// SPDX-License-Identifier: GPL-2.0
/*
 * Allocations three calls deep in code built without frame pointers
 * (-O2 -fomit-frame-pointer, see the Makefile): main -> build_list ->
 * add_node -> new_node -> malloc. The frame-pointer chain of malloc's
 * return cannot name the callers; lociprof's DWARF unwind of the stack
 * copy must (test/e2e/heapobj.sh). Prints the number of nodes made.
 */
#include <stdio.h>
#include <stdlib.h>

struct node {
	long v[6];
	struct node *next;
};

static struct node *volatile head;

__attribute__((noinline)) static struct node *new_node(long v)
{
	struct node *n = malloc(sizeof(*n));

	if (!n)
		exit(1);
	n->v[0] = v;
	return n;
}

/* work around the call keeps it a call (no tail call) and rbp in use */
__attribute__((noinline)) static struct node *add_node(struct node *prev, long v)
{
	struct node *n = new_node(v * 3 + 1);

	n->v[1] = v ^ (long)prev;
	n->next = prev;
	return n;
}

__attribute__((noinline)) static long build_list(int count)
{
	struct node *l = NULL;
	long sum = 0;
	int i;

	for (i = 0; i < count; i++) {
		l = add_node(l, i);
		sum += l->v[0];
	}
	head = l;
	return sum;
}

int main(int argc, char **argv)
{
	int count = argc > 1 ? atoi(argv[1]) : 16;
	long sum = build_list(count);

	printf("%d nodes (%ld)\n", count, sum);
	return 0;
}
