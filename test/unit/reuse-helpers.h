/* SPDX-License-Identifier: GPL-2.0 */
/* Event constructors and a tracker factory for the reuse unit tests. */
#ifndef LP_TEST_REUSE_HELPERS_H
#define LP_TEST_REUSE_HELPERS_H
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/reuse.h"
#include "core/session.h"
#include "core/tests.h"
#include "test/unit/events.h"

static inline struct lp_event ev_sample(u32 tid, u32 cpu, u8 kind, u64 addr, u8 size,
				 u64 thread_ns)
{
	struct lp_event ev = { .type = LP_EV_SAMPLE };

	ev.sample.tid = tid;
	ev.sample.cpu = cpu;
	ev.sample.kind = kind;
	ev.sample.addr = addr;
	ev.sample.size = size;
	ev.sample.thread_ns = thread_ns;
	ev.sample.time = thread_ns + 7;
	ev.sample.ip = 0x400000 + tid * 0x100;
	return ev;
}

static inline struct lp_event ev_trap(u32 tid, u32 cpu, u8 slot, u64 cookie,
			       u64 thread_ns)
{
	struct lp_event ev = { .type = LP_EV_TRAP };

	ev.trap.tid = tid;
	ev.trap.cpu = cpu;
	ev.trap.slot = slot;
	ev.trap.cookie = cookie;
	ev.trap.thread_ns = thread_ns;
	ev.trap.time = thread_ns + 7;
	ev.trap.ip = 0x500000 + tid;
	return ev;
}

static inline int feed(struct reuse *ru, struct lp_event ev, struct lp_actions *acts)
{
	lp_actions__reset(acts);
	return reuse__event(ru, &ev, acts);
}

#define FEED(ev) TEST_ASSERT(feed(ru, (ev), &acts) == 0, "event failed")

static inline struct reuse *new_ru(int nslots, int shared, enum reuse_gran gran,
			    u64 seed, const struct lp_topology *topo)
{
	struct reuse_config cfg;

	reuse__config_init(&cfg);
	cfg.nslots = nslots;
	cfg.shared = shared;
	cfg.gran = gran;
	cfg.topo = topo;
	if (seed)
		cfg.seed = seed;
	return reuse__new(&cfg);
}

/* The ARM action for @tid in @acts, or NULL. */
static inline const struct lp_action *arm_of(const struct lp_actions *acts, u32 tid)
{
	int i;

	for (i = 0; i < acts->n; i++)
		if (acts->v[i].op == LP_ACT_ARM && acts->v[i].tid == tid)
			return &acts->v[i];
	return NULL;
}

/*
 * Play lociprof-trace @text through the trace-driven facility at @period
 * with @nslots registers into @ru; 0 or -errno (@err says why).
 */
static inline int trace_reuse_run(const char *text, u64 period, int nslots, struct reuse *ru,
				  char *err, size_t errlen)
{
	char path[] = "/tmp/lp-trace-XXXXXX";
	struct lp_session_opts o;
	struct lp_session *s;
	int fd = mkstemp(path), ret;
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	snprintf(err, errlen, "cannot write a trace: %s", strerror(errno));
	if (!f)
		return -errno;
	fputs(text, f);
	fclose(f);
	memset(&o, 0, sizeof(o));
	o.sampling.period = period;
	o.nslots = nslots;
	ret = session__new_trace(&s, &o, path, err, errlen);
	if (!ret) {
		session__add_analysis(s, reuse__analysis(ru));
		ret = session__run(s);
		session__delete(s);
	}
	unlink(path);
	return ret;
}

/*
 * A tracker with the default configuration (*@rup) fed @text, which is
 * freed, as trace_reuse_run() plays it; 0 or -errno.
 */
static inline int trace_reuse_default(char *text, u64 period, struct reuse **rup,
				      char *err, size_t errlen)
{
	struct reuse_config cfg;
	int ret;

	reuse__config_init(&cfg);
	*rup = reuse__new(&cfg);
	snprintf(err, errlen, "reuse__new failed");
	ret = *rup ? trace_reuse_run(text, period, cfg.nslots, *rup, err, errlen) : -ENOMEM;
	free(text);
	return ret;
}

#endif
