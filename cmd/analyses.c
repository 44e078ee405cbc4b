// SPDX-License-Identifier: GPL-2.0
/*
 * The analysis table and what every analysis command shares: options,
 * the live run, the report header and the printers (cmd/analyses.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/analyses.h"
#include "cmd/builtin.h"
#include "cmd/profile.h"
#include "core/datafile.h"
#include "core/json.h"
#include "core/probe.h"
#include "core/session.h"
#include "core/symbols.h"

extern const struct lp_analysis_desc comdetect_desc, reuse_desc;

/* One row per analysis. The first is what `report` replays a `record` file with. */
const struct lp_analysis_desc *const lp_analyses[] = {
	&comdetect_desc,
	&reuse_desc,
	NULL,
};

const struct lp_analysis_desc *analysis__find(const char *name)
{
	int i;

	for (i = 0; lp_analyses[i]; i++)
		if (!strcmp(lp_analyses[i]->name, name))
			return lp_analyses[i];
	return NULL;
}

#define OUT(f) offsetof(struct lp_output, f)
static const struct lp_opt output_opts[] = {
	{ "top", 0, "N", NULL, LP_OPT_INT, OUT(top), 0, 1000000, .flags = LP_OPT_RPT },
	{ "json", 0, "FILE", "write the result as JSON ('-': stdout only)", LP_OPT_STR, OUT(json),
	  .flags = LP_OPT_RPT },
	{ "csv", 0, "DIR", "write the matrices as CSV files", LP_OPT_STR, OUT(csv), .flags = LP_OPT_RPT },
	{ "svg", 0, "DIR", NULL, LP_OPT_STR, OUT(svg), .flags = LP_OPT_RPT },
	{ "stdio", 0, NULL, "plain text, no colours", LP_OPT_CLEAR, OUT(color), .flags = LP_OPT_RPT },
	{ "report", 0, "FILE", "write the text report to FILE, not to stdout (which\n"
	  "the program shares)", LP_OPT_STR, OUT(report), .flags = LP_OPT_RPT },
	{ NULL },
};

const struct lp_opt *analysis__output_opts(const char *top_help, int csv, const char *svg_help,
					   struct lp_opt *buf)
{
	int i, n = 0;

	for (i = 0; output_opts[i].name; i++) {
		struct lp_opt o = output_opts[i];

		if ((!strcmp(o.name, "csv") && !csv) || (!strcmp(o.name, "svg") && !svg_help))
			continue;
		if (!strcmp(o.name, "top"))
			o.help = top_help;
		if (!strcmp(o.name, "svg"))
			o.help = svg_help;
		buf[n++] = o;
	}
	buf[n] = (struct lp_opt){ NULL };
	return buf;
}

void analysis__output_init(struct lp_output *out)
{
	memset(out, 0, sizeof(*out));
	out->top = -1;
	out->color = isatty(STDOUT_FILENO);
}

int analysis__output(const struct lp_analysis_desc *d, void *opts, const struct lp_run *run,
		     const struct lp_output *o)
{
	struct lp_output out = *o;
	const void *view;
	int err, ret = 0;

	if (out.top < 0)
		out.top = d->default_top;
	err = d->result(opts, run);
	if (err) {
		lp_err("cannot build the %s result: %s", d->name, strerror(-err));
		return 128;
	}
	view = d->view(opts, run, &out);
	if (out.report) {
		FILE *f = fopen(out.report, "w");

		if (f) {
			d->print(view, f);
			err = fclose(f) ? -errno : 0;
		} else {
			err = -errno;
		}
		if (err) {
			lp_err("cannot write '%s': %s", out.report, strerror(-err));
			ret = 128;
		}
	} else if (!out.quiet && (!out.json || strcmp(out.json, "-"))) {
		d->print(view, out.report_stderr ? stderr : stdout);
	}
	if (out.json && (err = d->json(view, out.json))) {
		lp_err("cannot write '%s': %s", out.json, strerror(-err));
		ret = 128;
	}
	if (out.csv && (err = d->csv(view, out.csv))) {
		lp_err("cannot write CSV files to '%s': %s", out.csv, strerror(-err));
		ret = 128;
	}
	if (out.svg && (err = d->svg(view, out.svg))) {
		lp_err("cannot write SVG files to '%s': %s", out.svg, strerror(-err));
		ret = 128;
	}
	return ret;
}

void analysis__object_label(const struct lp_run *run, u64 addr, char *buf, size_t len)
{
	struct lp_dataobj obj;

	if (run->syms && symbols__data(run->syms, run->pid, addr, &obj) == 0) {
		symbols__data_label(&obj, buf, len);
	} else {
		snprintf(buf, len, "unknown");
	}
}

int analysis__heap_site(const struct lp_run *run, const struct lp_object *b, char *buf,
			size_t len, struct lp_srcloc *loc)
{
	const char *f;

	if (!b || !run->syms || symbols__alloc_site(run->syms, b, loc))
		return -ENOENT;
	if (!loc->function) {	/* a stripped program's frame: "sort+0x1a2b" */
		symbols__code_unnamed(loc, 0, buf, len);
		return 0;
	}
	if (!loc->file)
		return -ENOENT;
	f = strrchr(loc->file, '/');
	snprintf(buf, len, "%s:%u", f ? f + 1 : loc->file, loc->line);
	return 0;
}

void analysis__frame_name(const struct lp_run *run, u32 pid, u64 ret_addr, char *buf,
			  size_t len)
{
	struct lp_srcloc loc = { 0 };

	if (run->syms && symbols__code(run->syms, pid, ret_addr - 1, &loc) == 0) {
		const char *f = loc.file ? strrchr(loc.file, '/') : NULL;

		snprintf(buf, len, "%s %s:%u", loc.function, f ? f + 1 : loc.file ? loc.file : "??",
			 loc.line);
	} else {
		/* the call instruction, as addr2line takes it */
		symbols__code_unnamed(&loc, ret_addr, buf, len);
	}
}

void analysis__json_object(const struct lp_run *run, struct json_writer *w, const char *label,
			   const char *kind, u64 start, u64 size, const struct lp_object *b)
{
	struct lp_srcloc loc;
	char buf[300];
	int k;

	json__str(w, "object", label);
	json__str(w, "kind", kind);
	snprintf(buf, sizeof(buf), "%#" PRIx64, start);
	json__str(w, "address", buf);
	json__u64(w, "size", size);
	if (analysis__heap_site(run, b, buf, sizeof(buf), &loc) == 0) {
		json__str(w, "site", buf);
		json__str(w, "function", loc.function);
	}
	json__arr_begin(w, "callpath");
	for (k = 0; b && k < b->nframes; k++) {
		analysis__frame_name(run, b->pid, b->frames[k], buf, sizeof(buf));
		json__str(w, NULL, buf);
	}
	json__arr_end(w);
}

int analysis__make_dir(const char *dir)
{
	if (mkdir(dir, 0777) && errno != EEXIST)
		return -errno;
	return 0;
}

int analysis__encode(const struct lp_analysis_desc *d, void *opts, char *buf, size_t len)
{
	struct lp_optgroup g = { .opts = d->opts, .obj = opts };

	return lp_opts__encode(&g, buf, len);
}

int analysis__decode(const struct lp_analysis_desc *d, void *opts, const char *text)
{
	struct lp_optgroup g = { .opts = d->opts, .obj = opts };

	return lp_opts__decode(&g, text);
}

static const struct lp_opt save_opt[] = {
	{ "output", 'o', "FILE", "also save the event stream (see lociprof report)",
	  LP_OPT_STR, offsetof(struct profile_opts, output) },
	{ NULL },
};

/* The groups of a live analysis command: its own, the outputs, profiling. */
static int live_groups(const struct lp_analysis_desc *d, void *opts, struct lp_output *out,
		       struct profile_opts *po, struct lp_opt *outbuf, struct lp_optgroup *g)
{
	g[0] = (struct lp_optgroup){ .opts = d->opts, .obj = opts };
	g[1] = (struct lp_optgroup){ .opts = analysis__output_opts(d->top_help, !!d->csv, d->svg ? d->svg_help : NULL,
								   outbuf), .obj = out };
	g[2] = (struct lp_optgroup){ .opts = save_opt, .obj = po };
	g[3] = (struct lp_optgroup){ .opts = profile_options, .obj = po };
	return 4;
}

void analysis__usage(const struct lp_analysis_desc *d, FILE *f)
{
	struct profile_opts po;
	struct lp_output out;
	struct lp_opt outbuf[8];
	struct lp_optgroup g[4];
	int ng = live_groups(d, NULL, &out, &po, outbuf, g);

	lp_opts__usage(f, g, ng, d->head, d->tail);
}

/* The report header of a run, for live runs and replays alike. */
void analysis__run_info(struct lp_run *run, struct lp_session *s, const char *command)
{
	const struct lp_session_stats *st = session__stats(s);

	run->pid = session__pid(s);
	run->sampler = session__facility(s)->name;
	run->period_unit = session__facility(s)->period_unit;
	run->period = session__period(s);
	run->command = command;
	run->samples = st->samples;
	run->samples_addr = st->samples_addr;
	run->cpu_ns = st->cpu_ns;
	run->sync = session__is_sync(s);
	run->threads_unmonitored = st->threads_unmonitored;
}

void analysis__run_warning(const struct lp_run *run, FILE *f)
{
	if (run->threads_unmonitored)
		fprintf(f, "# WARNING: %" PRIu64 " threads could not be monitored: their accesses "
			"are missing from what follows\n", run->threads_unmonitored);
	if (run->traps_dead)
		fprintf(f, "# WARNING: watchpoints open on this machine but never fire (its "
			"hypervisor does not deliver debug exceptions; `lociprof list`): nothing "
			"below comes from a watchpoint trap\n");
}

/*
 * A machine whose watchpoints open but never trap (seen under bhyve)
 * would give an analysis that needs traps an empty or all-cold result:
 * refuse it, or mark the run so the report says what is missing.
 */
static void check_traps(const struct lp_analysis_desc *d, int nslots, int quiet, struct lp_run *run)
{
	struct lp_debugreg_probe bp;

	if (nslots <= 0)
		return;
	probe__debug_registers(&bp);
	if (!bp.count || bp.fires)
		return;	/* no registers at all: the session says so when it arms */
	if (d->needs_traps)
		lp_die("%s needs watchpoints that trap, and this machine's never do: %s. "
		       "Measure a trace instead (`lociprof %s --trace FILE`, e.g. from valgrind "
		       "--tool=lackey --trace-mem=yes), or run on a machine whose hypervisor "
		       "delivers debug exceptions", d->name, bp.fire_reason, d->name);
	if (!quiet)	/* the report says it too */
		lp_warn("watchpoints never fire on this machine (%s): %s detects by sampling only",
		bp.fire_reason, d->name);
	run->traps_dead = 1;
}

/* Where stdout is in a regular file, -1 for a terminal, a pipe or anything else. */
static off_t stdout_offset(void)
{
	struct stat st;

	fflush(stdout);
	if (fstat(STDOUT_FILENO, &st) || !S_ISREG(st.st_mode))
		return -1;
	return lseek(STDOUT_FILENO, 0, SEEK_CUR);
}

int analysis__cmd(const struct lp_analysis_desc *d, int argc, char **argv)
{
	struct lp_opt outbuf[8];
	struct lp_optgroup g[4];
	struct profile_opts po;
	struct lp_output out;
	struct lp_topology *topo;
	struct lp_analysis *an;
	struct recorder rec;
	struct lp_run run;
	struct lp_session *s;
	char pidbuf[4200], *command;
	off_t stdout_at;
	void *opts;
	int ng, code, ret;

	opts = calloc(1, d->opts_size);
	topo = calloc(1, sizeof(*topo));
	if (!opts || !topo)
		lp_die("out of memory");
	d->opts_init(opts);
	profile_opts__init(&po);
	analysis__output_init(&out);
	ng = live_groups(d, opts, &out, &po, outbuf, g);
	optind = lp_opts__parse(argc, argv, g, ng, d->head, d->tail);
	out.quiet = po.quiet;
	if (d->run_alone) {
		ret = d->run_alone(opts, &out, argc - optind, argv + optind);
		if (ret >= 0)
			return ret;
		if (po.pid > 0 && argc > optind) {
			lp_err("give either -p PID or a program, not both");
			exit(129);
		}
	}
	memset(&run, 0, sizeof(run));
	if (topology__read(topo, NULL) == 0)
		run.topo = topo;
	po.nslots = d->nslots(opts);
	if (!profile__trace_path(&po)) {	/* its watchpoints are simulated */
		check_traps(d, po.nslots, po.quiet, &run);
		/*
		 * Arming what never traps only costs: every move of a running
		 * thread's breakpoint is an IPI (0.36 s of 1.2 s on the README's
		 * false-sharing example here, and 7-20% of its records lost)
		 */
		po.no_watchpoints = run.traps_dead;
		/*
		 * --sync holds a sampled thread until its watchpoints are armed:
		 * with none armed, each hold only stops the program (8,915 holds,
		 * 1.26 s of wall time on the false-sharing example)
		 */
		if (run.traps_dead && po.sync > 0) {
			if (!po.quiet)
				lp_warn("--sync holds a sampled thread until its watchpoints "
					"are armed; none are here, so samples are not held");
			po.sync = 0;
		}
		if (d->measure)
			d->measure(opts, po.sync >= 0 ? po.sync : d->default_sync, po.quiet);
	}
	stdout_at = stdout_offset();
	s = profile__start(&po, argc - optind, argv + optind, d->default_sync);
	run.syms = symbols__new();
	an = d->new(opts, &run);
	if (!an || !run.syms)
		lp_die("cannot set up the analysis: %s", strerror(errno));
	session__add_sink(s, profile__symbols_sink, run.syms);
	session__add_analysis(s, an);
	if (po.output) {
		char cfg[LP_DATA_CONFIG_MAX];

		if (analysis__encode(d, opts, cfg, sizeof(cfg)))
			lp_die("cannot record the %s settings", d->name);
		recorder__open(&rec, po.output, s, argc - optind, argv + optind, d->name, cfg,
			      run.traps_dead ? LP_DATA_SAMPLING_NO_TRAPS : 0);
		session__add_sink(s, recorder__sink, &rec);
	}
	if (profile__run(s) == -ENOEXEC)
		return 127;
	profile__print_stats(s, &po);
	code = profile__exit_code(s, &po);
	if (po.output && recorder__close(&rec, po.quiet))
		code = code ? code : 128;
	snprintf(pidbuf, sizeof(pidbuf), "pid %d", po.pid);
	if (profile__trace_path(&po))
		snprintf(pidbuf, sizeof(pidbuf), "trace %.4096s", profile__trace_path(&po));
	command = po.pid > 0 || profile__trace_path(&po) ? strdup(pidbuf) :
		  profile__join_args(argc - optind, argv + optind);
	analysis__run_info(&run, s, command);
	if (!out.report && !out.quiet && po.pid <= 0 && stdout_at >= 0 &&
	    stdout_offset() > stdout_at) {
		/* the program's output is in that file: appending the report would spoil it */
		if (!po.quiet)
			fprintf(stderr, "[ lociprof: the program wrote to stdout (a file): the report "
				"follows on stderr; --report FILE puts it in a file ]\n");
		out.report_stderr = 1;
	}
	ret = analysis__output(d, opts, &run, &out);
	d->delete(opts);
	symbols__delete(run.syms);
	session__delete(s);
	free(command);
	free(topo);
	free(opts);
	return code ? code : ret;
}
