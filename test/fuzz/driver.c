// SPDX-License-Identifier: GPL-2.0
/*
 * Stand-alone driver for the fuzz targets when libFuzzer is not available:
 * runs every file given, then random mutations of them (bit flips, byte
 * sets, truncation, insertion, deletion, splices) for FUZZ_TIME seconds or
 * FUZZ_RUNS inputs. Build it with -fsanitize=address; a crash is a finding.
 * A crashing input is saved to $FUZZ_ARTIFACT by the sanitizer's death
 * callback (run with ASAN_OPTIONS=handle_sigill=1:handle_abort=1 so that
 * traps reach it too).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
void __sanitizer_set_death_callback(void (*cb)(void));

static const char *art;
static const unsigned char *cur;
static size_t cur_len;

struct input {
	unsigned char *b;
	size_t n;
};

static unsigned long long rng = 88172645463325252ULL;

static unsigned long long rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int load(const char *path, struct input *in)
{
	struct stat st;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	in->n = st.st_size;
	in->b = malloc(in->n + 1);
	if (!in->b || read(fd, in->b, in->n) != (ssize_t)in->n) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static void save(const char *path, const unsigned char *b, size_t n)
{
	if (!path)
		return;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return;
	if (write(fd, b, n) < 0)
		perror(path);
	close(fd);
}

static void on_death(void)
{
	save(art, cur, cur_len);
}

int main(int argc, char **argv)
{
	long secs = getenv("FUZZ_TIME") ? atol(getenv("FUZZ_TIME")) : 60;
	long long runs = getenv("FUZZ_RUNS") ? atoll(getenv("FUZZ_RUNS")) : -1, done = 0;
	struct input *ins = calloc(argc, sizeof(*ins));
	int nin = 0, i;
	time_t end = time(NULL) + secs;
	unsigned char *buf;
	size_t cap = 1 << 20;

	art = getenv("FUZZ_ARTIFACT");
	__sanitizer_set_death_callback(on_death);
	if (getenv("FUZZ_SEED"))
		rng = strtoull(getenv("FUZZ_SEED"), NULL, 0) | 1;
	for (i = 1; i < argc; i++) {
		if (load(argv[i], &ins[nin]))
			continue;
		cur = ins[nin].b;
		cur_len = ins[nin].n;
		LLVMFuzzerTestOneInput(cur, cur_len);
		nin++;
		done++;
	}
	if (!nin) {
		fprintf(stderr, "driver: no input files\n");
		return 2;
	}
	buf = malloc(cap);
	while ((runs < 0 || done < runs) && time(NULL) < end) {
		for (int k = 0; k < 256; k++, done++) {
			struct input *s = &ins[rnd() % nin];
			size_t n = s->n < cap ? s->n : cap, pos, len;
			int m, nmut = 1 + rnd() % 4;
			unsigned char *copy;

			memcpy(buf, s->b, n);
			for (m = 0; m < nmut; m++) {
				pos = n ? rnd() % n : 0;
				switch (rnd() % 8) {
				case 0:		/* bit flip */
					if (n)
						buf[pos] ^= 1 << (rnd() % 8);
					break;
				case 1:		/* interesting byte */
					if (n)
						buf[pos] = (unsigned char[]){ 0, 1, 0x7f, 0x80, 0xff,
									      0x10, 0x40 }[rnd() % 7];
					break;
				case 2:		/* truncate */
					n = pos;
					break;
				case 3:		/* delete a run */
					len = rnd() % 16;
					if (pos + len <= n) {
						memmove(buf + pos, buf + pos + len, n - pos - len);
						n -= len;
					}
					break;
				case 4:		/* insert random bytes */
					len = rnd() % 16;
					if (n + len < cap) {
						memmove(buf + pos + len, buf + pos, n - pos);
						for (size_t j = 0; j < len; j++)
							buf[pos + j] = rnd();
						n += len;
					}
					break;
				case 5:		/* splice from another input */
				{
					struct input *o = &ins[rnd() % nin];
					size_t from = o->n ? rnd() % o->n : 0;

					len = o->n - from;
					if (len > 64)
						len = rnd() % 64;
					if (pos + len < cap) {
						memcpy(buf + pos, o->b + from, len);
						if (pos + len > n)
							n = pos + len;
					}
					break;
				}
				case 7:		/* small arithmetic on a byte */
					if (n)
						buf[pos] += (int)(rnd() % 64) - 32;
					break;
				case 6:		/* random u32 (lengths) */
					if (pos + 4 <= n) {
						unsigned v = rnd() % 3 ? rnd() % 512 : (unsigned)rnd();

						memcpy(buf + pos, &v, 4);
					}
					break;
				}
			}
			/* exact-size copy so ASan sees reads past the end */
			copy = malloc(n ? n : 1);
			memcpy(copy, buf, n);
			cur = copy;
			cur_len = n;
			LLVMFuzzerTestOneInput(copy, n);
			free(copy);
		}
	}
	for (i = 0; i < nin; i++)
		free(ins[i].b);
	free(ins);
	free(buf);
	printf("driver: %lld executions, %d seeds, no crash\n", done, nin);
	return 0;
}
