// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_RECORD_* body parsing. Every read goes through a cursor that checks
 * the remaining length first, so a short or lying record gives -EINVAL and
 * never reads past header.size.
 */
#include <errno.h>
#include <string.h>

#include "core/event.h"
#include "core/perf-record.h"

struct cursor {
	const unsigned char *p, *end;
};

static int get_u64(struct cursor *c, u64 *v)
{
	if ((size_t)(c->end - c->p) < sizeof(*v))
		return -EINVAL;
	memcpy(v, c->p, sizeof(*v));
	c->p += sizeof(*v);
	return 0;
}

static int get_u32(struct cursor *c, u32 *v)
{
	if ((size_t)(c->end - c->p) < sizeof(*v))
		return -EINVAL;
	memcpy(v, c->p, sizeof(*v));
	c->p += sizeof(*v);
	return 0;
}

static int skip(struct cursor *c, u64 n)
{
	if ((u64)(c->end - c->p) < n)
		return -EINVAL;
	c->p += n;
	return 0;
}

/* Check the header and set @c to the body. */
static int cursor_init(struct cursor *c, const void *rec, size_t len,
		       u32 type1, u32 type2)
{
	struct perf_event_header hdr;

	if (!rec || len < sizeof(hdr))
		return -EINVAL;
	memcpy(&hdr, rec, sizeof(hdr));
	if (hdr.type != type1 && hdr.type != type2)
		return -EINVAL;
	if (hdr.size < sizeof(hdr) || hdr.size > len)
		return -EINVAL;
	c->p = (const unsigned char *)rec + sizeof(hdr);
	c->end = (const unsigned char *)rec + hdr.size;
	return 0;
}

#define UNSUPPORTED (PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_AUX)

#define READ_FORMATS (PERF_FORMAT_TOTAL_TIME_ENABLED |			\
		      PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID |	\
		      PERF_FORMAT_GROUP | PERF_FORMAT_LOST)

/* One counter of a READ: value, [id], [lost]. */
static int get_read_value(struct cursor *c, u64 rf, struct lp_perf_sample *out)
{
	u64 value, id = 0, lost;
	u32 i = out->read_nr;

	if (get_u64(c, &value) || ((rf & PERF_FORMAT_ID) && get_u64(c, &id)) ||
	    ((rf & PERF_FORMAT_LOST) && get_u64(c, &lost)))
		return -EINVAL;
	if (i < LP_PERF_MAX_READ) {
		out->read_value[i] = value;
		out->read_id[i] = id;
	}
	out->read_nr++;
	return 0;
}

/* struct read_format of perf_event_open(2), by @rf. */
static int get_read(struct cursor *c, u64 rf, struct lp_perf_sample *out)
{
	u64 nr = 1, i;

	if (rf & ~(u64)READ_FORMATS)
		return -EINVAL;
	if ((rf & PERF_FORMAT_GROUP) && get_u64(c, &nr))
		return -EINVAL;
	if (nr > 4096)
		return -EINVAL;
	if ((rf & PERF_FORMAT_TOTAL_TIME_ENABLED) && get_u64(c, &out->time_enabled))
		return -EINVAL;
	if ((rf & PERF_FORMAT_TOTAL_TIME_RUNNING) && get_u64(c, &out->time_running))
		return -EINVAL;
	if (!(rf & PERF_FORMAT_GROUP))
		return get_read_value(c, rf, out);
	for (i = 0; i < nr; i++)
		if (get_read_value(c, rf, out))
			return -EINVAL;
	return 0;
}

int perf_sample__parse(const void *rec, size_t len, u64 sample_type,
		       u64 regs_mask, struct lp_perf_sample *out)
{
	return perf_sample__parse_read(rec, len, sample_type, 0, regs_mask, out);
}

int perf_sample__parse_read(const void *rec, size_t len, u64 sample_type,
			    u64 read_format, u64 regs_mask,
			    struct lp_perf_sample *out)
{
	u64 st = sample_type, v;
	struct cursor c;
	u32 u;
	int err;

	memset(out, 0, sizeof(*out));
	err = cursor_init(&c, rec, len, PERF_RECORD_SAMPLE, PERF_RECORD_SAMPLE);
	if (err)
		return err;
	if ((st & UNSUPPORTED) || st >= PERF_SAMPLE_MAX)
		return -EINVAL;
	/* The kernel refuses both: the fields share one slot. */
	if ((st & PERF_SAMPLE_WEIGHT_TYPE) == PERF_SAMPLE_WEIGHT_TYPE)
		return -EINVAL;
	out->sample_type = st;
	out->misc = ((const struct perf_event_header *)rec)->misc;

#define GET64(bit, dst)							\
	do {								\
		if ((st & (bit)) && get_u64(&c, &(dst)))		\
			return -EINVAL;					\
	} while (0)
#define GET32(bit, dst)							\
	do {								\
		if ((st & (bit)) && get_u32(&c, &(dst)))		\
			return -EINVAL;					\
	} while (0)

	GET64(PERF_SAMPLE_IDENTIFIER, out->id);
	GET64(PERF_SAMPLE_IP, out->ip);
	GET32(PERF_SAMPLE_TID, out->pid);
	GET32(PERF_SAMPLE_TID, out->tid);
	GET64(PERF_SAMPLE_TIME, out->time);
	GET64(PERF_SAMPLE_ADDR, out->addr);
	GET64(PERF_SAMPLE_ID, out->id);
	GET64(PERF_SAMPLE_STREAM_ID, out->stream_id);
	GET32(PERF_SAMPLE_CPU, out->cpu);
	GET32(PERF_SAMPLE_CPU, u);		/* res */
	GET64(PERF_SAMPLE_PERIOD, out->period);
	if ((st & PERF_SAMPLE_READ) && get_read(&c, read_format, out))
		return -EINVAL;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (get_u64(&c, &v) || v > 0xffff)
			return -EINVAL;
		out->callchain_nr = v;
		out->callchain = c.p;
		if (skip(&c, v * 8))
			return -EINVAL;
	}
	if (st & PERF_SAMPLE_RAW) {
		if (get_u32(&c, &out->raw_size))
			return -EINVAL;
		out->raw = c.p;
		if (skip(&c, out->raw_size))
			return -EINVAL;
	}
	/* BRANCH_STACK refused */
	if (st & PERF_SAMPLE_REGS_USER) {
		int bit;

		if (get_u64(&c, &out->regs_abi))
			return -EINVAL;
		if (out->regs_abi != PERF_SAMPLE_REGS_ABI_NONE) {
			for (bit = 0; bit < 64; bit++) {
				if (!(regs_mask & (1ULL << bit)))
					continue;
				if (get_u64(&c, &v))
					return -EINVAL;
				if (bit < LP_REG__MAX)
					out->regs[bit] = v;
			}
			out->regs_mask = regs_mask & ((1ULL << LP_REG__MAX) - 1);
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {	/* u64 size, data[size], u64 dyn_size */
		u64 size, dyn;

		if (get_u64(&c, &size))
			return -EINVAL;
		out->stack = c.p;
		out->stack_size = 0;
		if (size) {
			if (skip(&c, size) || get_u64(&c, &dyn))
				return -EINVAL;
			out->stack_size = dyn < size ? dyn : size;
		}
	}
	if (st & PERF_SAMPLE_WEIGHT) {
		if (get_u64(&c, &out->weight))
			return -EINVAL;
	} else if (st & PERF_SAMPLE_WEIGHT_STRUCT) {
		/* little endian: u32 var1_dw, u16 var2_w, u16 var3_w */
		if (get_u64(&c, &v))
			return -EINVAL;
		out->weight = (u32)v;
		out->weight_var2 = (u16)(v >> 32);
		out->weight_var3 = (u16)(v >> 48);
	}
	GET64(PERF_SAMPLE_DATA_SRC, out->data_src);
	GET64(PERF_SAMPLE_TRANSACTION, out->transaction);
	/* REGS_INTR refused */
	GET64(PERF_SAMPLE_PHYS_ADDR, out->phys_addr);
	GET64(PERF_SAMPLE_CGROUP, out->cgroup);
	GET64(PERF_SAMPLE_DATA_PAGE_SIZE, out->data_page_size);
	GET64(PERF_SAMPLE_CODE_PAGE_SIZE, out->code_page_size);
	/* AUX refused */
#undef GET64
#undef GET32
	return 0;
}

int perf_lost__parse(const void *rec, size_t len, struct lp_perf_lost *out)
{
	struct cursor c;
	int err;

	memset(out, 0, sizeof(*out));
	err = cursor_init(&c, rec, len, PERF_RECORD_LOST, PERF_RECORD_LOST);
	if (err)
		return err;
	if (get_u64(&c, &out->id) || get_u64(&c, &out->lost))
		return -EINVAL;
	return 0;
}

int perf_throttle__parse(const void *rec, size_t len,
			 struct lp_perf_throttle *out)
{
	struct cursor c;
	int err;

	memset(out, 0, sizeof(*out));
	err = cursor_init(&c, rec, len, PERF_RECORD_THROTTLE,
			  PERF_RECORD_UNTHROTTLE);
	if (err)
		return err;
	if (get_u64(&c, &out->time) || get_u64(&c, &out->id) ||
	    get_u64(&c, &out->stream_id))
		return -EINVAL;
	return 0;
}

/* The sample_id_all trailer's TIME, 0 if absent or cut. */
static u64 sample_id_time(const unsigned char *rec, size_t len, u64 sample_type)
{
	static const u64 order[] = { PERF_SAMPLE_TID, PERF_SAMPLE_TIME,
				     PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID,
				     PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER };
	const unsigned char *p;
	size_t n = 0, i;
	u64 time = 0;

	for (i = 0; i < ARRAY_SIZE(order); i++)
		n += !!(sample_type & order[i]);
	if (len < sizeof(struct perf_event_header) + n * 8)
		return 0;
	p = rec + len - n * 8;
	for (i = 0; i < ARRAY_SIZE(order); i++) {
		if (!(sample_type & order[i]))
			continue;
		if (order[i] == PERF_SAMPLE_TIME)
			memcpy(&time, p, 8);
		p += 8;
	}
	return time;
}

int perf_mmap2__parse(const void *rec, size_t len, u64 sample_type, struct lp_mmap *out)
{
	const struct perf_event_header *h = rec;
	const unsigned char *p = (const unsigned char *)(h + 1);
	/* pid, tid, addr, len, pgoff, maj/min/ino/gen (24), prot, flags */
	const size_t fixed = 4 + 4 + 8 + 8 + 8 + 24 + 4 + 4;
	size_t body, flen;

	memset(out, 0, sizeof(*out));
	if (len < sizeof(*h) || h->type != PERF_RECORD_MMAP2 || h->size > len ||
	    h->size < sizeof(*h) + fixed + 1)
		return -EINVAL;
	body = h->size - sizeof(*h);
	memcpy(&out->pid, p, 4);
	memcpy(&out->start, p + 8, 8);
	memcpy(&out->len, p + 16, 8);
	memcpy(&out->pgoff, p + 24, 8);
	memcpy(&out->prot, p + 56, 4);
	flen = strnlen((const char *)p + fixed, body - fixed);
	if (flen >= sizeof(out->filename))
		flen = sizeof(out->filename) - 1;
	memcpy(out->filename, p + fixed, flen);
	out->time = sample_id_time(rec, h->size, sample_type);
	return 0;
}
