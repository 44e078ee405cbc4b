/* SPDX-License-Identifier: GPL-2.0 */
/* Synthetic thread events for the analyses' unit tests. */
#ifndef LP_TEST_EVENTS_H
#define LP_TEST_EVENTS_H
#include "core/event.h"

static inline struct lp_event ev_start(u32 tid, u32 index, u32 cpu)
{
	struct lp_event ev = { .type = LP_EV_THREAD_START };

	ev.thread.pid = 100;
	ev.thread.tid = tid;
	ev.thread.index = index;
	ev.thread.cpu = cpu;
	return ev;
}

static inline struct lp_event ev_exit(u32 tid)
{
	struct lp_event ev = { .type = LP_EV_THREAD_EXIT };

	ev.thread.tid = tid;
	return ev;
}

#endif
