/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The --expect printer shared by the characterization benchmarks of
 * pebs-ibs-compare (load-ratio, locked-load, bias-bench, multi-event,
 * exec-mode): exact dynamic counts and each loop instruction's offset.
 */
#ifndef LP_MB_PES_H
#define LP_MB_PES_H
#include <string.h>

#include "microbench/mb.h"


/* One instruction of a measured loop; counts are dynamic executions. */
struct pes_insn {
	const char *name, *text;
	const char *kind;		/* memory access: load, store, atomic, none */
	int branch, call, ret, locked, syscall;
	long long count, taken;
};

/* Prints the common keys and leaves the object open for the caller. */
static inline void pes_expect(struct mb_json *j, const char *bench, const char *sym,
		       const void *addr, const int *offs, struct pes_insn *in,
		       int n, long iters)
{
	long long t[9] = { 0 };
	static const char *const keys[9] = { "instructions", "loads", "stores",
		"locked", "branches", "taken_branches", "calls", "returns", "syscalls" };
	int i;

	for (i = 0; i < n; i++) {
		int ld = !strcmp(in[i].kind, "load") || !strcmp(in[i].kind, "atomic");
		int st = !strcmp(in[i].kind, "store") || !strcmp(in[i].kind, "atomic");

		t[0] += in[i].count;
		t[1] += ld ? in[i].count : 0;
		t[2] += st ? in[i].count : 0;
		t[3] += in[i].locked ? in[i].count : 0;
		t[4] += in[i].branch ? in[i].count : 0;
		t[5] += in[i].taken;
		t[6] += in[i].call ? in[i].count : 0;
		t[7] += in[i].ret ? in[i].count : 0;
		t[8] += in[i].syscall ? in[i].count : 0;
	}
	mb_json_init(j, stdout);
	mb_json_obj(j, NULL);
	mb_json_str(j, "benchmark", bench);
	mb_json_int(j, "iters", iters);
	mb_json_str(j, "symbol", sym);
	mb_json_int(j, "symbol_size", offs[n]);
	mb_json_addr(j, "symbol_address", addr);
	mb_json_str(j, "scope", "the measured loop only (not the program's startup "
		    "nor the function's setup and return)");
	mb_json_obj(j, "counts");
	for (i = 0; i < 9; i++)
		mb_json_int(j, keys[i], t[i]);
	mb_json_obj_end(j);
	mb_json_arr(j, "loop");
	for (i = 0; i < n; i++) {
		mb_json_obj(j, NULL);
		mb_json_int(j, "index", i);
		mb_json_str(j, "name", in[i].name);
		mb_json_str(j, "text", in[i].text);
		mb_json_int(j, "offset", offs[i]);
		mb_json_str(j, "kind", in[i].kind);
		mb_json_int(j, "branch", in[i].branch);
		mb_json_int(j, "call", in[i].call);
		mb_json_int(j, "ret", in[i].ret);
		mb_json_int(j, "locked", in[i].locked);
		mb_json_int(j, "syscall", in[i].syscall);
		mb_json_int(j, "count", in[i].count);
		mb_json_int(j, "taken", in[i].taken);
		mb_json_obj_end(j);
	}
	mb_json_arr_end(j);
}

#endif
