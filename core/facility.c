// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "core/facility.h"

#define LP_MAX_FACILITIES 16

/* The section LP_FACILITY fills (the linker defines its bounds). */
extern const struct lp_facility_ops *const __start_lp_facilities[] __attribute__((weak));
extern const struct lp_facility_ops *const __stop_lp_facilities[] __attribute__((weak));

const struct lp_facility_ops *const *lp_facility__list(int *n)
{
	static const struct lp_facility_ops *list[LP_MAX_FACILITIES];
	static int nlist = -1;
	const struct lp_facility_ops *const *it;
	int i;

	if (nlist < 0) {
		nlist = 0;
		for (it = __start_lp_facilities; it < __stop_lp_facilities &&
		     nlist < LP_MAX_FACILITIES; it++) {
			/* insertion by auto_order, then name: link order does not matter */
			for (i = nlist; i > 0 && (list[i - 1]->auto_order > (*it)->auto_order ||
				(list[i - 1]->auto_order == (*it)->auto_order &&
				 strcmp(list[i - 1]->name, (*it)->name) > 0)); i--)
				list[i] = list[i - 1];
			list[i] = *it;
			nlist++;
		}
	}
	*n = nlist;
	return list;
}

const struct lp_facility_ops *lp_facility__find(const char *name)
{
	const struct lp_facility_ops *const *all;
	int i, n;

	all = lp_facility__list(&n);
	for (i = 0; i < n; i++)
		if (!strcmp(all[i]->name, name))
			return all[i];
	return NULL;
}

int lp_facility__setup_by_layout(const struct lp_facility_ops *f, const struct lp_sampling_opts *opts,
				 struct perf_event_attr *attrs, int *nattrs)
{
	struct lp_attr_layout lay;
	char err[256];
	int ret;

	ret = f->setup_layout(NULL, opts, attrs, &lay, err, sizeof(err));
	if (ret)
		return ret;
	*nattrs = lay.nattrs;
	return 0;
}
