/* SPDX-License-Identifier: GPL-2.0 */
#ifndef LP_TYPES_H
#define LP_TYPES_H
#include <stdint.h>
#include <stddef.h>

typedef uint64_t u64;
typedef uint32_t u32;
typedef uint16_t u16;
typedef uint8_t u8;
typedef int64_t s64;
typedef int32_t s32;

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define LP_CACHE_LINE 64

#endif
