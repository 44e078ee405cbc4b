// SPDX-License-Identifier: GPL-2.0
/* PLACEHOLDER: replaced by the list implementation. */
#include "cmd/builtin.h"

const char list_usage[] = "usage: lociprof list [--json]\n";

int cmd_list(int argc, char **argv)
{
	(void)argc; (void)argv;
	return 1;
}
