/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An analysis is a pure event consumer (Documentation/architecture.md, "Events and actions"): it receives typed events
 * and appends actions; it never makes a syscall. The session executes the
 * actions live; a replay or a unit test just observes them.
 */
#ifndef LP_ANALYSIS_H
#define LP_ANALYSIS_H
#include "core/event.h"

struct lp_actions {
	struct lp_action *v;
	int n, cap;
};

/* Append one action; returns 0 or -ENOMEM. */
int lp_actions__push(struct lp_actions *acts, const struct lp_action *a);
void lp_actions__reset(struct lp_actions *acts);
void lp_actions__exit(struct lp_actions *acts);

struct lp_analysis {
	const char *name;
	void *priv;
	/* Consume one event; may push actions. Returns 0 or -errno. */
	int (*event)(struct lp_analysis *an, const struct lp_event *ev,
		     struct lp_actions *out);
	/* End of stream (live run ended or file exhausted). */
	int (*finish)(struct lp_analysis *an);
};

#endif
