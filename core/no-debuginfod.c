// SPDX-License-Identifier: GPL-2.0
/*
 * libdwfl's debuginfod client reaches the network through a dlopen'ed
 * libdebuginfod. A static lociprof cannot dlopen safely (glibc warns at link
 * time) and a profiler should not download debug info behind the user's
 * back, so these definitions stand in for libdw.a's debuginfod-client.o:
 * the linker then never pulls that member in. Debug info is found locally
 * (the file itself, .gnu_debuglink, /usr/lib/debug/.build-id).
 */
#include <errno.h>
#include <stddef.h>

struct Dwfl;
struct debuginfod_client;

int __libdwfl_debuginfod_find_executable(struct Dwfl *dwfl, const unsigned char *id,
					 size_t id_len);
int __libdwfl_debuginfod_find_debuginfo(struct Dwfl *dwfl, const unsigned char *id,
					size_t id_len);
void __libdwfl_debuginfod_end(struct debuginfod_client *c);
struct debuginfod_client *dwfl_get_debuginfod_client(struct Dwfl *dwfl);

int __libdwfl_debuginfod_find_executable(struct Dwfl *dwfl, const unsigned char *id,
					 size_t id_len)
{
	(void)dwfl; (void)id; (void)id_len;
	return -ENOSYS;
}

int __libdwfl_debuginfod_find_debuginfo(struct Dwfl *dwfl, const unsigned char *id,
					size_t id_len)
{
	(void)dwfl; (void)id; (void)id_len;
	return -ENOSYS;
}

void __libdwfl_debuginfod_end(struct debuginfod_client *c)
{
	(void)c;
}

struct debuginfod_client *dwfl_get_debuginfod_client(struct Dwfl *dwfl)
{
	(void)dwfl;
	return NULL;
}
