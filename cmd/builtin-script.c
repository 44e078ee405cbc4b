// SPDX-License-Identifier: GPL-2.0
/* lociprof script: one line per recorded event, like perf script. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "arch/x86/data-src.h"
#include "cmd/builtin.h"
#include "cmd/options.h"
#include "cmd/profile.h"
#include "core/datafile.h"
#include "core/symbols.h"

const char script_usage[] =
	"usage: lociprof script [-i FILE] [--header] [--no-symbols]\n"
	"\n"
	"Print a data file written by 'lociprof record' (or -o of a profiling\n"
	"command), one line per event: time, tid, cpu, event, and for samples and\n"
	"watchpoint traps the instruction (function+offset, file:line, inlined\n"
	"frames) and the data address with the object it falls in, size and kind.\n"
	"\n"
	"    -i, --input FILE      data file (default lociprof.data)\n"
	"        --header          print the file's header first\n"
	"        --no-symbols      do not resolve addresses\n"
	"    -h, --help            show this help\n";

static const char *const kind_names[] = { "-", "load", "store", "atomic" };

static void print_time(u64 t)
{
	printf("%6" PRIu64 ".%06" PRIu64, t / 1000000000, (t % 1000000000) / 1000);
}

static void print_code(struct lp_symbols *syms, u32 pid, u64 ip)
{
	struct lp_srcloc loc;
	u32 i;

	printf(" %#" PRIx64, ip);
	if (!syms)
		return;
	if (symbols__code(syms, pid, ip, &loc)) {
		char buf[200];

		/* "sort+0x1a2b" where a file holds it, as perf script names it */
		if (symbols__code_unnamed(&loc, ip, buf, sizeof(buf)))
			printf(" [unknown] (%s)", buf);
		else
			printf(" [unknown]");
		return;
	}
	printf(" %s+%#" PRIx64, loc.function, loc.offset);
	if (loc.file)
		printf(" (%s:%u)", loc.file, loc.line);
	/* frames[0] is ip's own line; the rest are the calls it was inlined into */
	for (i = 1; i < loc.nframes; i++)
		printf(" inlined-in %s:%u", loc.frames[i].function ? loc.frames[i].function : "?",
		       loc.frames[i].line);
}

static void print_data(struct lp_symbols *syms, u32 pid, u64 addr)
{
	struct lp_dataobj obj;
	char buf[512];

	printf(" => %#" PRIx64, addr);
	if (!syms)
		return;
	if (symbols__data(syms, pid, addr, &obj)) {
		printf(" [unknown]");
	} else {
		symbols__data_label(&obj, buf, sizeof(buf));
		printf(" %s", buf);
	}
}

static void print_header(const struct lp_data_header *h)
{
	const char *argv[64];
	int i, n = datafile__get_argv(h, argv, 64);

	printf("# lociprof data version %u.%u\n", h->version >> 16, h->version & 0xffff);
	printf("# machine: %s (%s family %u model %u), kernel %s, host %s\n",
	       h->cpu_name, h->cpu_vendor, h->cpu_family, h->cpu_model,
	       h->kernel_release, h->hostname);
	printf("# sampler: %s, period %" PRIu64 " %s%s\n", h->facility, h->period,
	       h->period_unit, h->sampling_flags & LP_DATA_SAMPLING_SIGTRAP ?
	       ", synchronous" : "");
	printf("# cpus: %d, cores: %d, sockets: %d\n", h->topo.ncpus, h->topo.ncores,
	       h->topo.nsockets);
	printf("# command:");
	for (i = 0; i < n; i++)
		printf(" %s", argv[i]);
	printf("\n");
}

static void print_event(struct lp_symbols *syms, const struct lp_event *ev)
{
	const char *name = ev->type < LP_EV__MAX ? lp_event_names[ev->type] : "?";

	switch (ev->type) {
	case LP_EV_SAMPLE: {
		const struct lp_sample *x = &ev->sample;

		printf("%7u/%-7u [%03u] ", x->pid, x->tid, x->cpu);
		print_time(x->time);
		printf(": %-12s", name);
		print_code(syms, x->pid, x->ip);
		if (x->noaddr == LP_NOADDR_NONE) {
			printf(" %s %u%s", x->kind < 4 ? kind_names[x->kind] : "?", x->size,
			       x->flags & LP_SAMPLE_PREV_INSN ? " (prev insn)" : "");
			print_data(syms, x->pid, x->addr);
		} else {
			printf(" no address: %s",
			       x->noaddr < LP_NOADDR__MAX ? lp_noaddr_names[x->noaddr] : "?");
		}
		if (x->data_src) {	/* pebs, ibs: where the data came from */
			char src[160];

			printf(" [%s]", lp_data_src__str(x->data_src, src, sizeof(src)));
		}
		if (x->thread_ns)
			printf(" [thread cpu %.6fs]", x->thread_ns / 1e9);
		break;
	}
	case LP_EV_TRAP: {
		const struct lp_trap *x = &ev->trap;

		printf("%7u/%-7u [%03u] ", x->pid, x->tid, x->cpu);
		print_time(x->time);
		printf(": %-12s slot %u %s/%u", name, x->slot, x->mode == LP_WP_RW ? "rw" : "w",
		       x->len);
		print_code(syms, x->pid, x->ip);
		print_data(syms, x->pid, x->addr);
		if (x->thread_ns)
			printf(" [thread cpu %.6fs]", x->thread_ns / 1e9);
		break;
	}
	case LP_EV_THREAD_START:
	case LP_EV_THREAD_EXIT:
	case LP_EV_THREAD_TLS: {
		const struct lp_thread *x = &ev->thread;

		printf("%7u/%-7u       %14s: %-12s index %u", x->pid, x->tid, "", name, x->index);
		if (ev->type == LP_EV_THREAD_TLS)
			printf(" fs_base %#" PRIx64, x->fs_base);
		if (ev->type == LP_EV_THREAD_START && x->parent_tid)
			printf(" parent %u", x->parent_tid);
		if (ev->type == LP_EV_THREAD_EXIT)
			printf(" status %d cpu %.6fs", x->status, x->cpu_ns / 1e9);
		break;
	}
	case LP_EV_MMAP: {
		const struct lp_mmap *x = &ev->mmap;

		printf("%7u/%-7s       ", x->pid, "");
		print_time(x->time);
		printf(": %-12s %#" PRIx64 "-%#" PRIx64 " %c%c%c pgoff %#" PRIx64 " %s", name,
		       x->start, x->start + x->len, x->prot & PROT_READ ? 'r' : '-',
		       x->prot & PROT_WRITE ? 'w' : '-', x->prot & PROT_EXEC ? 'x' : '-',
		       x->pgoff, x->filename[0] ? x->filename : "//anon");
		break;
	}
	case LP_EV_ACTION: {
		const struct lp_action *x = &ev->action;

		printf("%7s/%-7u       ", "", x->tid);
		print_time(x->time);
		printf(": %-12s %s slot %u", name, x->op == LP_ACT_ARM ? "arm" : "disarm", x->slot);
		if (x->op == LP_ACT_ARM)
			printf(" %s/%u %#" PRIx64, x->mode == LP_WP_RW ? "rw" : "w", x->len, x->addr);
		break;
	}
	case LP_EV_LOST:
		printf("%7u/%-7u       %14s: %-12s %" PRIu64 " records lost, throttled %" PRIu64,
		       ev->lost.pid, ev->lost.tid, "", name, ev->lost.lost, ev->lost.throttled);
		break;
	case LP_EV_COUNTER:
		printf("%7u/%-7u       ", ev->counter.pid, ev->counter.tid);
		print_time(ev->counter.time);
		printf(": %-12s %" PRIu64, name, ev->counter.value);
		break;
	case LP_EV_EXEC:
		printf("%7u/%-7u       ", ev->exec.pid, ev->exec.tid);
		print_time(ev->exec.time);
		printf(": %-12s %s", name, ev->exec.filename[0] ? ev->exec.filename : "?");
		break;
	case LP_EV_ALLOC:
	case LP_EV_FREE: {
		const struct lp_alloc *x = &ev->alloc;
		u8 i;

		printf("%7u/%-7u       ", x->pid, x->tid);
		print_time(x->time);
		printf(": %-12s %s %#" PRIx64, name, lp_alloc_fn_names[x->fn], x->addr);
		if (ev->type == LP_EV_ALLOC)
			printf(" size %" PRIu64, x->size);
		/* return addresses: the call is the instruction before each */
		for (i = 0; i < x->nframes; i++) {
			printf("\n%38s<-", "");
			print_code(syms, x->pid, x->frames[i] - 1);
		}
		break;
	}
	default:
		printf("unknown event type %u", ev->type);
		break;
	}
	putchar('\n');
}

int cmd_script(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "header", no_argument, NULL, 0x100 },
		{ "no-symbols", no_argument, NULL, 0x101 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *input = "lociprof.data";
	struct lp_data_header *h;
	struct lp_symbols *syms = NULL;
	struct lp_datafile *f;
	struct lp_event ev;
	int c, ret, header = 0, nosyms = 0;

	while ((c = getopt_long(argc, argv, "+i:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i': input = optarg; break;
		case 0x100: header = 1; break;
		case 0x101: nosyms = 1; break;
		case 'h': usage_exit(script_usage, 0);
		default: usage_exit(script_usage, 1);
		}
	}
	if (optind < argc)
		usage_exit(script_usage, 1);
	h = calloc(1, sizeof(*h));
	if (!h)
		lp_die("out of memory");
	ret = datafile__open(&f, input, h);
	if (ret) {
		lp_err("cannot read '%s': %s", input, datafile__strerror(ret));
		free(h);
		return 1;
	}
	if (header)
		print_header(h);
	if (!nosyms)
		syms = symbols__new();
	while ((ret = datafile__read(f, &ev)) > 0) {
		if (syms)
			profile__symbols_sink(syms, &ev, NULL);
		print_event(syms, &ev);
	}
	fflush(stdout);
	if (ret < 0)
		lp_err("'%s': %s after %llu events; the events above are intact", input,
		      datafile__strerror(ret), (unsigned long long)datafile__nr_events(f));
	datafile__close(f);
	symbols__delete(syms);
	free(h);
	return ret < 0 ? 1 : 0;
}
