# lociprof — see README. `make` builds ./lociprof (static) and microbench/*.
# `make deps` installs the Debian packages (root); `make check` runs every
# test; `make bench` the benchmarks; `make install PREFIX=...`.

CC       ?= gcc
PREFIX   ?= /usr/local
VERSION  := $(shell git describe --always --dirty 2>/dev/null || echo 0.1)
OPT      ?= -O2
CFLAGS   ?= $(OPT) -g
CFLAGS   += -std=gnu11 -Wall -Wextra -Wno-missing-field-initializers \
            -D_GNU_SOURCE -I. -MMD -MP
LDFLAGS  += -static
LIBS     := -lpfm -ldw -lelf -lzstd -lcapstone -ljansson -lz -llzma -lbz2 -lpthread -lm

DEB_PKGS := build-essential libpfm4-dev libdw-dev libelf-dev libzstd-dev \
            libcapstone-dev libjansson-dev zlib1g-dev liblzma-dev libbz2-dev man-db file \
            python3 bc

CORE_SRC := $(wildcard core/*.c) $(wildcard arch/*/*.c)
# the experiments of pebs-ibs-compare: one command's, not the engine's
PESBENCH_SRC := $(wildcard pesbench/*.c)
CMD_SRC  := $(wildcard cmd/*.c)
UNIT_SRC := $(wildcard test/unit/*.c)
MB_SRC   := $(wildcard microbench/*.c)
MB_BIN   := $(MB_SRC:.c=)
TEST_HELPER_SRC := $(wildcard test/helpers/*.c)
TEST_HELPER_BIN := $(TEST_HELPER_SRC:.c=)

CORE_OBJ := $(CORE_SRC:.c=.o) $(PESBENCH_SRC:.c=.o)
CMD_OBJ  := $(CMD_SRC:.c=.o)
UNIT_OBJ := $(UNIT_SRC:.c=.o)

all: lociprof $(MB_BIN)

cmd/lociprof.o: CFLAGS += -DLP_VERSION='"$(VERSION)"'
# rebuilt when the version changes (a commit, a merge), not only its source:
# --version and the bench headers named the commit the file was last built at
$(shell echo '$(VERSION)' | cmp -s - .version 2>/dev/null || echo '$(VERSION)' > .version)
cmd/lociprof.o: .version

lociprof: $(CMD_OBJ) $(CORE_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

test/unit-tests: $(UNIT_OBJ) $(CORE_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

# Microbenchmarks: plain pthread programs with known answers, kept simple
# (-O2, frame pointers, debug info so lociprof can name their lines).
microbench/%: microbench/%.c microbench/mb.h microbench/pes.h
	$(CC) -O2 -g -fno-omit-frame-pointer -Wall -Wextra -D_GNU_SOURCE -I. \
	      -o $@ $< -lpthread -lm

# make bench: the engines fed from memory, optimized as lociprof is
test/bench/reuse-engine: test/bench/reuse-engine.o $(CORE_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

# an allocation site without frame pointers: the DWARF unwind's test
test/helpers/nofp-alloc: test/helpers/nofp-alloc.c
	$(CC) -O2 -g -fomit-frame-pointer -Wall -Wextra -o $@ $<

test/helpers/%: test/helpers/%.c
	$(CC) -O1 -g -Wall -Wextra -D_GNU_SOURCE -I. -o $@ $< -lpthread -lm

check: all test/unit-tests $(TEST_HELPER_BIN)
	./test/run.sh

bench: all test/bench/reuse-engine test/helpers/crdgen
	./test/bench.sh

fuzz:
	./test/fuzz.sh

deps:
	@if [ "$$(id -u)" != 0 ]; then echo "make deps: needs root (apt-get install)"; exit 1; fi
	@missing=$$(for p in $(DEB_PKGS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	else echo "make deps: all packages present"; fi

install: lociprof $(MB_BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 lociprof $(DESTDIR)$(PREFIX)/bin/lociprof
	# pebs-ibs-compare runs them: ../libexec/lociprof/microbench from the binary
	install -d $(DESTDIR)$(PREFIX)/libexec/lociprof/microbench
	install -m 755 $(MB_BIN) $(DESTDIR)$(PREFIX)/libexec/lociprof/microbench/
	install -m 644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -d $(DESTDIR)$(PREFIX)/share/man/man5
	install -m 644 man/*.5 $(DESTDIR)$(PREFIX)/share/man/man5/

clean:
	rm -f lociprof test/unit-tests test/bench/reuse-engine $(MB_BIN) $(TEST_HELPER_BIN)
	find . -name '*.o' -o -name '*.d' | xargs rm -f

.PHONY: all check bench fuzz deps install clean

-include $(shell find . -name '*.d' 2>/dev/null)
