/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lociprof.data file: a header describing the machine and the run, then
 * the typed event stream (core/event.h), zstd-compressed, then an end record
 * with event counts so that truncation is detectable. The format is in
 * lociprof-datafile(5); every field is written one by one, little endian,
 * so struct layout never leaks into the file.
 *
 *	datafile__create(&f, "lociprof.data", &hdr);
 *	datafile__write(f, &ev) ...;
 *	err = datafile__close(f);
 *
 *	datafile__open(&f, "lociprof.data", &hdr);
 *	while ((ret = datafile__read(f, &ev)) > 0)
 *		...;
 *	if (ret < 0) lp_err("%s", datafile__strerror(ret));
 *	datafile__close(f);
 */
#ifndef LP_DATAFILE_H
#define LP_DATAFILE_H
#include "core/event.h"
#include "core/topology.h"

#define LP_DATA_MAGIC		"LOCIPROF"
#define LP_DATA_VERSION_MAJOR	1
#define LP_DATA_VERSION_MINOR	4	/* 1.1: lp_thread.cpu_ns, header analysis; 1.2: config; 1.3: EXEC;
					   1.4: ALLOC, FREE */
#define LP_DATA_VERSION		((LP_DATA_VERSION_MAJOR << 16) | LP_DATA_VERSION_MINOR)

/*
 * Preamble flags. The low 16 bits change how the stream is encoded: a
 * reader refuses a file with a low bit it does not know. The high 16 bits
 * are informational and may be ignored.
 */
#define LP_DATA_F_ZSTD		(1u << 0)	/* stream is one zstd frame */
#define LP_DATA_F_INCOMPAT_MASK	0xffffu

/* lp_data_header.sampling_flags */
#define LP_DATA_SAMPLING_FREQ		(1ull << 0)	/* period is a frequency, Hz */
#define LP_DATA_SAMPLING_SIGTRAP	(1ull << 1)	/* synchronous SIGTRAP path */
#define LP_DATA_SAMPLING_WATCHPOINTS	(1ull << 2)	/* watchpoints were armed */
#define LP_DATA_SAMPLING_NO_TRAPS	(1ull << 3)	/* the machine's watchpoints never fire */

#define LP_DATA_CMDLINE_MAX	4096
#define LP_DATA_CONFIG_MAX	1024
/* Largest record payload a reader accepts. */
#define LP_DATA_MAX_RECORD	(1u << 20)

/* Everything about the run that is not an event. Strings are NUL-terminated. */
struct lp_data_header {
	u32 version;			/* set by open: the file's version */
	u32 flags;			/* set by open: preamble flags */
	/* machine */
	char cpu_vendor[32];		/* "GenuineIntel", "AuthenticAMD" */
	u32 cpu_family, cpu_model;
	char cpu_name[128];		/* /proc/cpuinfo "model name" */
	char kernel_release[128];	/* uname -r */
	char hostname[256];
	/* sampling */
	char facility[32];		/* "soft", "pebs", "ibs" */
	u64 period;
	char period_unit[16];		/* "ns" or "events" */
	u64 sampling_flags;		/* LP_DATA_SAMPLING_* */
	/* target: argv strings, each NUL-terminated, back to back */
	u32 argc;
	u32 cmdline_len;		/* bytes used in cmdline */
	char cmdline[LP_DATA_CMDLINE_MAX];
	u64 start_time;			/* wall clock, ns since the epoch */
	u64 start_perf_time;		/* perf clock (CLOCK_MONOTONIC) at start, ns */
	struct lp_topology topo;
	/* the analysis that ran live ("comdetect", "reuse"), "" for record */
	char analysis[32];
	/*
	 * Its settings, "name=value name=value" (the option names of the
	 * analysis), so that report reproduces the run with no flags. Since 1.2.
	 */
	char config[LP_DATA_CONFIG_MAX];
};

/* Fill h->argc/cmdline from @argv. 0, or -E2BIG if it does not fit. */
int datafile__set_cmdline(struct lp_data_header *h, int argc,
			  char *const *argv);

/*
 * Split h->cmdline into at most @max pointers into h->cmdline (valid while
 * @h lives). Returns the number stored.
 */
int datafile__get_argv(const struct lp_data_header *h, const char **argv,
		       int max);

struct lp_datafile;

/*
 * Create @path (mode 0600; an existing regular file is first renamed to
 * @path.old, like perf) and write the preamble and header.
 * 0 or -errno.
 */
int datafile__create(struct lp_datafile **out, const char *path,
		     const struct lp_data_header *h);
/* Same with preamble @flags: LP_DATA_F_ZSTD, or 0 for an uncompressed stream. */
int datafile__create_flags(struct lp_datafile **out, const char *path,
			   const struct lp_data_header *h, u32 flags);

/*
 * Append one event. Buffered: compression and write(2) happen per chunk
 * (128 KiB of records), not per event. 0, -EINVAL for an unknown type, or
 * the first write error (which is sticky).
 */
int datafile__write(struct lp_datafile *f, const struct lp_event *ev);

/*
 * Push everything written so far to the file (zstd flush): a crash after
 * this leaves a file that reads back up to here (then -ENODATA). Create
 * flushes the header. After a failed write, close cuts the file back to
 * the last flush, so that it reads back up to there.
 */
int datafile__flush(struct lp_datafile *f);
/* Writer: the events that read back after a failure (those of the last flush). */
u64 datafile__nr_flushed(const struct lp_datafile *f);

/*
 * Open for reading; fills @h (may be NULL). 0, -errno from open/read,
 * -EMEDIUMTYPE (not a lociprof data file), -EPROTONOSUPPORT (unknown major
 * version or flag), -EBADMSG / -ENODATA (header corrupt / cut short).
 */
int datafile__open(struct lp_datafile **out, const char *path,
		   struct lp_data_header *h);
/* Read from memory (@buf must outlive the reader). As datafile__open. */
int datafile__open_mem(struct lp_datafile **out, const void *buf, size_t len,
		       struct lp_data_header *h);

/*
 * Next event: 1 and *@ev filled, 0 at the end record (counts verified),
 * -EBADMSG corrupt, -ENODATA truncated (the stream stops before the end
 * record; every complete event before the cut was returned first). Errors
 * are sticky. Records of types this reader does not know are skipped.
 */
int datafile__read(struct lp_datafile *f, struct lp_event *ev);

/* Number of events returned (reader) or written (writer) so far. */
u64 datafile__nr_events(const struct lp_datafile *f);

/*
 * Writer: write the end record, flush, close; returns the first error of
 * the whole session (0 if the file is complete). Reader: free, returns 0.
 */
int datafile__close(struct lp_datafile *f);

/* Message for a -errno returned by this module (or strerror for others). */
const char *datafile__strerror(int err);

#endif
