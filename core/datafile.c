// SPDX-License-Identifier: GPL-2.0
/*
 * lociprof.data writer and reader (format: lociprof-datafile(5)).
 *
 * Writer: records are serialized field by field into a 128 KiB chunk; a
 * full chunk goes through ZSTD_compressStream2 and the compressed bytes are
 * written when the output buffer fills, so the hot path is a few stores per
 * event. Reader: a decoded window that grows to hold the largest record;
 * every length is checked against LP_DATA_MAX_RECORD and the window before
 * a byte is read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "core/datafile-codec.h"

/* Record types outside the event range (events use enum lp_event_type). */
#define REC_HEADER	0x8000
#define REC_END		0x8001

#define PREAMBLE_SIZE	16
#define REC_HDR_SIZE	8
#define CHUNK		(128 * 1024)
#define ZSTD_LEVEL	1	/* fast: this runs while the target runs */

struct lp_datafile {
	int writing;
	int fd;
	int err;			/* sticky */
	u32 flags;
	u64 counts[LP_EV__MAX];
	u64 nevents;
	/* writer */
	u64 off;			/* bytes written to fd */
	u64 good_off, good_events;	/* at the last successful flush */
	ZSTD_CCtx *cctx;
	unsigned char *ibuf;		/* serialized, not yet compressed */
	size_t ilen;
	unsigned char *obuf;		/* compressed, not yet written */
	size_t ocap;
	/* reader input: memory, or a buffer refilled from fd */
	ZSTD_DCtx *dctx;
	const unsigned char *in;
	size_t in_len, in_pos;
	unsigned char *inbuf;
	size_t inbuf_cap;
	int in_eof;			/* no more input will come */
	int frame_done;			/* last zstd call ended a frame */
	int verify;			/* 1.3+: records come only from checked frames */
	size_t vpos;			/* buf up to here is in frames whose checksum held */
	/* reader output: decoded stream window [rpos, wpos) of buf */
	unsigned char *buf;
	size_t rpos, wpos, cap;
	u64 unknown;			/* records of unknown type skipped */
	int done;			/* end record verified */
};

/* ---- writer ---- */

static int write_all(struct lp_datafile *f, const void *p, size_t len)
{
	const unsigned char *b = p;

	while (len) {
		ssize_t n = write(f->fd, b, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		b += n;
		len -= n;
		f->off += n;
	}
	return 0;
}

/* Compress (or copy) the pending chunk; @mode ZSTD_e_continue/flush/end. */
static int drain(struct lp_datafile *f, ZSTD_EndDirective mode)
{
	ZSTD_inBuffer in = { f->ibuf, f->ilen, 0 };
	int err = 0;

	if (f->err)
		return f->err;
	if (!(f->flags & LP_DATA_F_ZSTD)) {
		err = write_all(f, f->ibuf, f->ilen);
	} else {
		for (;;) {
			ZSTD_outBuffer out = { f->obuf, f->ocap, 0 };
			size_t ret = ZSTD_compressStream2(f->cctx, &out, &in, mode);

			if (ZSTD_isError(ret)) {
				err = -EIO;
				break;
			}
			err = write_all(f, f->obuf, out.pos);
			if (err)
				break;
			if (mode == ZSTD_e_continue ? in.pos == in.size : ret == 0)
				break;
		}
	}
	f->ilen = 0;
	if (err)
		f->err = err;
	return err;
}

static int stream_put(struct lp_datafile *f, const void *p, size_t len)
{
	const unsigned char *b = p;

	while (len) {
		size_t n = CHUNK - f->ilen;

		if (n > len)
			n = len;
		memcpy(f->ibuf + f->ilen, b, n);
		f->ilen += n;
		b += n;
		len -= n;
		/* a frame per chunk: its checksum catches damage where it starts */
		if (f->ilen == CHUNK && drain(f, ZSTD_e_end))
			return f->err;
	}
	return 0;
}

/* Frame the payload in w->p[REC_HDR_SIZE..w->n) and queue it. */
static int put_record(struct lp_datafile *f, struct wb *w, u16 type)
{
	u32 len = w->n - REC_HDR_SIZE;
	struct wb h = { w->p, 0, REC_HDR_SIZE, 0 };

	if (w->overflow)
		return -E2BIG;
	wb_u16(&h, type);
	wb_u16(&h, 0);
	wb_u32(&h, len);
	return stream_put(f, w->p, w->n);
}

static void datafile_free(struct lp_datafile *f)
{
	if (f->fd >= 0)
		close(f->fd);
	ZSTD_freeCCtx(f->cctx);
	ZSTD_freeDCtx(f->dctx);
	free(f->ibuf);
	free(f->obuf);
	free(f->inbuf);
	free(f->buf);
	free(f);
}

int datafile__create_flags(struct lp_datafile **out, const char *path,
			   const struct lp_data_header *h, u32 flags)
{
	unsigned char pre[PREAMBLE_SIZE];
	struct wb w = { pre, 0, sizeof(pre), 0 };
	struct lp_datafile *f;
	struct wb hw = { NULL, REC_HDR_SIZE, 64 * 1024, 0 };
	struct stat st;
	int err;

	*out = NULL;
	if (flags & ~LP_DATA_F_ZSTD)
		return -EINVAL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->writing = 1;
	f->flags = flags;
	f->fd = -1;
	f->ibuf = malloc(CHUNK);
	hw.p = malloc(hw.cap);
	if (flags & LP_DATA_F_ZSTD) {
		f->ocap = ZSTD_CStreamOutSize();
		f->obuf = malloc(f->ocap);
		f->cctx = ZSTD_createCCtx();
	}
	if (!f->ibuf || !hw.p || ((flags & LP_DATA_F_ZSTD) && (!f->obuf || !f->cctx))) {
		err = -ENOMEM;
		goto out_free;
	}
	if (f->cctx) {
		/* The checksum lets a reader tell corrupt data from a bad writer. */
		if (ZSTD_isError(ZSTD_CCtx_setParameter(f->cctx, ZSTD_c_compressionLevel,
							ZSTD_LEVEL)) ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(f->cctx, ZSTD_c_checksumFlag, 1))) {
			err = -EINVAL;
			goto out_free;
		}
	}

	/* an existing file, or a symlink (the link itself, not its target), becomes .old */
	if (lstat(path, &st) == 0 && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))) {
		char *old;

		if (asprintf(&old, "%s.old", path) < 0) {
			err = -ENOMEM;
			goto out_free;
		}
		err = rename(path, old) ? -errno : 0;
		free(old);
		if (err)
			goto out_free;
	}
	/* a new file of ours, 0600, never through a link; or a device such as /dev/null */
	f->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (f->fd < 0 && errno == EEXIST && lstat(path, &st) == 0 &&
	    (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)))
		f->fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (f->fd < 0) {
		err = -errno;
		goto out_free;
	}

	wb_bytes(&w, LP_DATA_MAGIC, 8);
	wb_u32(&w, LP_DATA_VERSION);
	wb_u32(&w, flags);
	err = write_all(f, pre, w.n);
	if (err)
		goto out_free;
	datafile__put_header(&hw, h);
	err = put_record(f, &hw, REC_HEADER);
	if (!err)	/* the header reads back whatever happens next */
		err = datafile__flush(f);
	if (err)
		goto out_free;
	free(hw.p);
	*out = f;
	return 0;

out_free:
	free(hw.p);
	datafile_free(f);
	return err;
}

int datafile__create(struct lp_datafile **out, const char *path,
		     const struct lp_data_header *h)
{
	return datafile__create_flags(out, path, h, LP_DATA_F_ZSTD);
}

int datafile__write(struct lp_datafile *f, const struct lp_event *ev)
{
	unsigned char b[512];
	struct wb w = { b, REC_HDR_SIZE, sizeof(b), 0 };
	int err;

	if (!f->writing)
		return -EBADF;
	if (f->err)
		return f->err;
	err = datafile__put_event(&w, ev);
	if (err)
		return err;
	err = put_record(f, &w, ev->type);
	if (err)
		return err;
	f->counts[ev->type]++;
	f->nevents++;
	return 0;
}

int datafile__flush(struct lp_datafile *f)
{
	int err;

	if (!f->writing)
		return -EBADF;
	err = f->ilen ? drain(f, ZSTD_e_end) : f->err;	/* every frame is closed */
	if (!err) {		/* a reader gets every event up to here */
		f->good_off = f->off;
		f->good_events = f->nevents;
	}
	return err;
}

u64 datafile__nr_flushed(const struct lp_datafile *f)
{
	return f->good_events;
}

static int write_end(struct lp_datafile *f)
{
	unsigned char b[REC_HDR_SIZE + 12 + 8 * LP_EV__MAX];
	struct wb w = { b, REC_HDR_SIZE, sizeof(b), 0 };
	int t, err;

	wb_u64(&w, f->nevents);
	wb_u32(&w, LP_EV__MAX - 1);
	for (t = 1; t < LP_EV__MAX; t++)
		wb_u64(&w, f->counts[t]);
	err = put_record(f, &w, REC_END);
	if (err)
		return err;
	return drain(f, ZSTD_e_end);
}

int datafile__close(struct lp_datafile *f)
{
	int err = 0;

	if (!f)
		return 0;
	if (f->writing) {
		err = f->err ? f->err : write_end(f);
		/* a failed write (disk full) leaves a cut block: end at the last flush */
		if (f->err && ftruncate(f->fd, (off_t)f->good_off) == 0)
			f->off = f->good_off;
		if (close(f->fd) && !err)
			err = -errno;
		f->fd = -1;
	}
	datafile_free(f);
	return err;
}

u64 datafile__nr_events(const struct lp_datafile *f)
{
	return f->nevents;
}

/* ---- reader ---- */

/* Get more input into f->in. 0: none left. */
static int input_refill(struct lp_datafile *f)
{
	ssize_t n;

	if (f->in_eof || f->fd < 0) {
		f->in_eof = 1;
		return 0;
	}
	for (;;) {
		n = read(f->fd, f->inbuf, f->inbuf_cap);
		if (n < 0 && errno == EINTR)
			continue;
		break;
	}
	if (n < 0)
		return -errno;
	if (n == 0) {
		f->in_eof = 1;
		return 0;
	}
	f->in = f->inbuf;
	f->in_len = n;
	f->in_pos = 0;
	return 1;
}

/* Decode more of the stream into buf[wpos, cap). >0 progress, 0 end, <0 error. */
static int fill(struct lp_datafile *f)
{
	size_t space = f->cap - f->wpos;
	int ret;

	for (;;) {
		if (f->in_pos == f->in_len) {
			ret = input_refill(f);
			if (ret < 0)
				return ret;
		}
		if (!(f->flags & LP_DATA_F_ZSTD)) {
			size_t n = f->in_len - f->in_pos;

			if (!n)
				return 0;
			if (n > space)
				n = space;
			memcpy(f->buf + f->wpos, f->in + f->in_pos, n);
			f->in_pos += n;
			f->wpos += n;
			return 1;
		} else {
			ZSTD_inBuffer in = { f->in, f->in_len, f->in_pos };
			ZSTD_outBuffer out = { f->buf + f->wpos, space, 0 };
			size_t zr = ZSTD_decompressStream(f->dctx, &out, &in);

			if (ZSTD_isError(zr))
				return -EBADMSG;
			/* an empty call after a frame ends asks for the next one */
			if (in.pos != f->in_pos || out.pos)
				f->frame_done = zr == 0;
			f->in_pos = in.pos;
			f->wpos += out.pos;
			if (zr == 0)	/* the frame ended and its checksum held */
				f->vpos = f->wpos;
			if (out.pos)
				return 1;
			/* No output: zstd needs input; stop if there is none. */
			if (in.pos == in.size && f->in_eof)
				return 0;
		}
	}
}

/* Decoded bytes a record may come from: in 1.3+ files, checked frames only. */
static size_t avail(const struct lp_datafile *f)
{
	return (f->verify ? f->vpos : f->wpos) - f->rpos;
}

/*
 * Make @n bytes available at buf + rpos. -ENODATA if the stream ends first
 * (see stream_complete), -EBADMSG/-errno on errors.
 */
static int need(struct lp_datafile *f, size_t n)
{
	int ret;

	while (avail(f) < n) {
		/* room to decode into: at least a page beyond wpos, n beyond rpos */
		if (f->rpos && (f->cap - f->rpos < n + 4096 || f->cap - f->wpos < 4096)) {
			memmove(f->buf, f->buf + f->rpos, f->wpos - f->rpos);
			f->wpos -= f->rpos;
			f->vpos = f->vpos > f->rpos ? f->vpos - f->rpos : 0;
			f->rpos = 0;
		}
		if (f->cap - f->rpos < n || f->cap - f->wpos < 4096) {
			size_t cap = f->cap * 2;
			unsigned char *b;

			while (cap - f->rpos < n || cap - f->wpos < 4096)
				cap *= 2;
			b = realloc(f->buf, cap);
			if (!b)
				return -ENOMEM;
			f->buf = b;
			f->cap = cap;
		}
		ret = fill(f);
		if (ret < 0)
			return ret;
		if (ret == 0)
			return -ENODATA;
	}
	return 0;
}

/* The input ended where a writer's stream could end (no cut frame). */
static int stream_complete(const struct lp_datafile *f)
{
	return f->in_eof && f->in_pos == f->in_len &&
	       (!(f->flags & LP_DATA_F_ZSTD) || f->frame_done);
}

/*
 * Next record: *type, *payload, *len; the window is advanced past it.
 * A record cut by the end of a cut stream is -ENODATA; one that overruns
 * a complete stream has a lying length: -EBADMSG.
 */
static int next_record(struct lp_datafile *f, u16 *type, const unsigned char **p,
		       u32 *len)
{
	struct rd r;
	int ret;

	ret = need(f, REC_HDR_SIZE);
	if (ret == -ENODATA && f->wpos != f->rpos && stream_complete(f))
		return -EBADMSG;
	if (ret)
		return ret;
	r.p = f->buf + f->rpos;
	r.end = r.p + REC_HDR_SIZE;
	r.bad = 0;
	*type = rd_u16(&r);
	rd_le(&r, 2);		/* reserved: written as 0, ignored */
	*len = rd_u32(&r);
	if (*len > LP_DATA_MAX_RECORD)
		return -EBADMSG;
	ret = need(f, REC_HDR_SIZE + (size_t)*len);
	if (ret == -ENODATA && stream_complete(f))
		return -EBADMSG;
	if (ret)
		return ret;
	*p = f->buf + f->rpos + REC_HDR_SIZE;
	f->rpos += REC_HDR_SIZE + *len;
	return 0;
}

static int read_preamble(struct lp_datafile *f, const unsigned char *p, size_t len)
{
	struct rd r = { p, p + len, 0 };
	u32 version, flags;

	if (len == 0)
		return -ENODATA;
	if (len < PREAMBLE_SIZE) {
		/* a prefix of the magic is a cut file, anything else is not ours */
		return memcmp(p, LP_DATA_MAGIC, len < 8 ? len : 8) ? -EMEDIUMTYPE
								  : -ENODATA;
	}
	if (memcmp(p, LP_DATA_MAGIC, 8))
		return -EMEDIUMTYPE;
	r.p += 8;
	version = rd_u32(&r);
	flags = rd_u32(&r);
	if (version >> 16 != LP_DATA_VERSION_MAJOR)
		return -EPROTONOSUPPORT;
	if (flags & LP_DATA_F_INCOMPAT_MASK & ~LP_DATA_F_ZSTD)
		return -EPROTONOSUPPORT;
	f->flags = flags;
	return version;
}

static int reader_start(struct lp_datafile *f, struct lp_data_header *h)
{
	const unsigned char *p;
	struct rd r;
	u16 type;
	u32 len;
	int ret;

	f->cap = 64 * 1024;
	f->buf = malloc(f->cap);
	if (!f->buf)
		return -ENOMEM;
	if (f->flags & LP_DATA_F_ZSTD) {
		f->dctx = ZSTD_createDCtx();
		if (!f->dctx)
			return -ENOMEM;
	}
	ret = next_record(f, &type, &p, &len);
	if (ret)
		return ret;
	if (type != REC_HEADER)
		return -EBADMSG;
	r.p = p;
	r.end = p + len;
	r.bad = 0;
	return datafile__get_header(&r, h);
}

static int reader_new(struct lp_datafile **out)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	(*out)->fd = -1;
	return 0;
}

static int open_finish(struct lp_datafile *f, struct lp_data_header *h, u32 version,
		       struct lp_datafile **out)
{
	struct lp_data_header *tmp = NULL;
	int err;

	if (!h) {
		tmp = malloc(sizeof(*tmp));
		if (!tmp) {
			datafile_free(f);
			return -ENOMEM;
		}
		h = tmp;
	}
	memset(h, 0, sizeof(*h));
	f->verify = (f->flags & LP_DATA_F_ZSTD) && (version & 0xffff) >= 3;
	err = reader_start(f, h);
	h->version = version;
	h->flags = f->flags;
	free(tmp);
	if (err) {
		datafile_free(f);
		return err;
	}
	*out = f;
	return 0;
}

int datafile__open_mem(struct lp_datafile **out, const void *buf, size_t len,
		       struct lp_data_header *h)
{
	struct lp_datafile *f;
	int ret;

	ret = reader_new(&f);
	if (ret)
		return ret;
	*out = NULL;
	ret = read_preamble(f, buf, len);
	if (ret < 0) {
		datafile_free(f);
		return ret;
	}
	f->in = (const unsigned char *)buf + PREAMBLE_SIZE;
	f->in_len = len - PREAMBLE_SIZE;
	f->in_eof = 1;
	return open_finish(f, h, ret, out);
}

int datafile__open(struct lp_datafile **out, const char *path,
		   struct lp_data_header *h)
{
	unsigned char pre[PREAMBLE_SIZE];
	struct lp_datafile *f;
	size_t got = 0;
	ssize_t n;
	int ret;

	*out = NULL;
	ret = reader_new(&f);
	if (ret)
		return ret;
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0) {
		ret = -errno;
		datafile_free(f);
		return ret;
	}
	while (got < sizeof(pre)) {
		n = read(f->fd, pre + got, sizeof(pre) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			datafile_free(f);
			return ret;
		}
		if (n == 0)
			break;
		got += n;
	}
	ret = read_preamble(f, pre, got);
	if (ret < 0) {
		datafile_free(f);
		return ret;
	}
	f->inbuf_cap = ZSTD_DStreamInSize();
	f->inbuf = malloc(f->inbuf_cap);
	if (!f->inbuf) {
		datafile_free(f);
		return -ENOMEM;
	}
	f->in = f->inbuf;
	return open_finish(f, h, ret, out);
}

static int check_end(struct lp_datafile *f, const unsigned char *p, u32 len)
{
	struct rd r = { p, p + len, 0 };
	u64 total = rd_u64(&r);
	u32 ntypes = rd_u32(&r), t;
	int ret;

	if (r.bad || ntypes > 0xffff)
		return -EBADMSG;
	if (total != f->nevents + f->unknown)
		return -EBADMSG;
	for (t = 1; t <= ntypes; t++) {
		u64 c = rd_u64(&r);

		if (r.bad)
			return -EBADMSG;
		if (t < LP_EV__MAX && c != f->counts[t])
			return -EBADMSG;
	}
	/* Nothing may follow the end record, and the frame must be whole. */
	ret = need(f, 1);
	if (ret == 0)
		return -EBADMSG;
	if (ret != -ENODATA)
		return ret;
	return stream_complete(f) ? 0 : -ENODATA;
}

int datafile__read(struct lp_datafile *f, struct lp_event *ev)
{
	const unsigned char *p;
	struct rd r;
	u16 type;
	u32 len;
	int ret;

	if (f->writing)
		return -EBADF;
	if (f->err)
		return f->err;
	if (f->done)
		return 0;
	for (;;) {
		ret = next_record(f, &type, &p, &len);
		if (ret)
			break;
		if (type == REC_END) {
			ret = check_end(f, p, len);
			if (!ret)
				f->done = 1;
			break;
		}
		if (type == REC_HEADER) {
			ret = -EBADMSG;
			break;
		}
		r.p = p;
		r.end = p + len;
		r.bad = 0;
		ret = datafile__get_event(&r, type, ev);
		if (ret == -ENOENT) {
			f->unknown++;
			continue;
		}
		if (ret)
			break;
		f->counts[type]++;
		f->nevents++;
		return 1;
	}
	if (ret)
		f->err = ret;
	return ret;
}

const char *datafile__strerror(int err)
{
	switch (err) {
	case 0:
		return "success";
	case -EBADMSG:
		return "corrupt data file (a record or the compressed stream is damaged)";
	case -ENODATA:
		return "truncated data file (no end record; the recording was cut short)";
	case -EPROTONOSUPPORT:
		return "data file format version or flag not supported by this lociprof";
	case -EMEDIUMTYPE:
		return "not a lociprof data file (bad magic)";
	case -E2BIG:
		return "record too large for the data file format";
	default:
		return strerror(err < 0 ? -err : err);
	}
}
