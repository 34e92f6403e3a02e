# regtrack — one top-level Makefile (after git's and redis's).
#
#   make                      build bin/regtrack-server, bin/regtrack, bin/regtrack-worker
#   make check                every test tier, under ASan + UBSan (SANITIZE=none to skip)
#   make SANITIZE=address,undefined check
#   make bench                performance figures beside same-run baselines
#   make bench-scale          costs against the history's size, 10^6 and 10^7 values (opt-in)
#   make bench-detect         one detection pass of a setup of 14,000 runs x 200 metrics (opt-in)
#   make install PREFIX=/usr/local DESTDIR=
#   make demo / make demo-stop

PREFIX   ?= /usr/local
DESTDIR  ?=
CC       ?= gcc
ifeq ($(CC),cc)
CC := gcc
endif
PKGS     := libmicrohttpd jansson libpq libcurl uuid libcrypto gsl libelf
WARN     := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-nonliteral
CFLAGS   ?= -O2 -g
# lib/banned.h is forced into every object (C and C++, the cases and the
# guest /init too): a call of strcpy, sprintf, atoi, gmtime, ... does not compile
BANNED_FLAGS := -include lib/banned.h
BASE_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) $(BANNED_FLAGS) -Ilib -I. -MMD -MP \
	$(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# libdouble-conversion (C++, lib/dtoa.cc) needs libstdc++; --as-needed
# (Debian's default) keeps both off the programs that do not use it
LDLIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -ldouble-conversion -lstdc++ \
	-lpthread -lm

# Sanitized builds live in their own tree so plain and sanitized objects
# never mix: build/plain or build/san-address-undefined.
comma := ,
SANITIZE ?=
ifneq ($(filter-out none,$(SANITIZE)),)
SAN_FLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=undefined
VARIANT   := san-$(subst $(comma),-,$(SANITIZE))
else
SAN_FLAGS :=
VARIANT   := plain
endif
B   ?= build/$(VARIANT)
# plain binaries go to bin/, sanitized ones stay under build/
ifeq ($(VARIANT),plain)
BIN ?= bin
else
BIN ?= $(B)/bin
endif

ALL_CFLAGS  = $(BASE_CFLAGS) $(SAN_FLAGS) $(CFLAGS)
# lib/dtoa.cc, the one C++ file (a wrapper of libdouble-conversion)
ALL_CXXFLAGS = -std=c++17 -D_GNU_SOURCE $(WARN) $(BANNED_FLAGS) -Ilib -I. -MMD -MP $(SAN_FLAGS) $(CFLAGS)
ALL_LDFLAGS = $(SAN_FLAGS) $(LDFLAGS)

LIB_SRC    := $(wildcard lib/*.c lib/*/*.c)
LIB_CXX    := $(wildcard lib/*.cc)
SERVER_SRC := $(filter-out server/main.c,$(wildcard server/*.c server/*/*.c))
WORKER_SRC := $(filter-out worker/main.c,$(wildcard worker/*.c))
CLI_SRC    := $(wildcard cli/*.c)
TEST_SRC   := $(wildcard tests/unit/test_*.c)

obj = $(patsubst %.c,$(B)/%.o,$(1))
LIB_A    := $(B)/libregtrack.a
SERVER_A := $(B)/libserver.a
WORKER_A := $(B)/libworker.a
TESTS    := $(patsubst tests/unit/%.c,$(B)/tests/%,$(TEST_SRC))

PROGRAMS := $(BIN)/regtrack-server $(BIN)/regtrack $(BIN)/regtrack-worker

.PHONY: all check check-unit check-integration check-cases check-worker check-web check-kernel bench bench-scale \
	bench-detect \
	install clean demo demo-stop deps fuzz check-faults lint cases
.DEFAULT_GOAL := all

all: $(PROGRAMS) cases

deps:
	@deploy/install-deps

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(B)/%.o: %.cc
	@mkdir -p $(dir $@)
	$(CXX) $(ALL_CXXFLAGS) -c -o $@ $<

$(LIB_A): $(call obj,$(LIB_SRC)) $(patsubst %.cc,$(B)/%.o,$(LIB_CXX))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
MIGRATIONS := $(sort $(wildcard sql/[0-9]*.sql))
$(B)/gen/migrations.c: $(MIGRATIONS) tools/embed-sql
	@mkdir -p $(dir $@)
	tools/embed-sql $(MIGRATIONS) > $@.tmp && mv $@.tmp $@
$(B)/gen/migrations.o: $(B)/gen/migrations.c
	$(CC) $(ALL_CFLAGS) -c -o $@ $<
# the OpenAPI document served at /api/v1/openapi.json (server/api/openapi.c)
$(B)/gen/openapi.c: docs/openapi.json tools/embed-file
	@mkdir -p $(dir $@)
	tools/embed-file openapi_json docs/openapi.json > $@.tmp && mv $@.tmp $@
$(B)/gen/openapi.o: $(B)/gen/openapi.c
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(SERVER_A): $(call obj,$(SERVER_SRC)) $(B)/gen/migrations.o $(B)/gen/openapi.o
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
$(WORKER_A): $(call obj,$(WORKER_SRC))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BIN)/regtrack-server: $(call obj,server/main.c) $(SERVER_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)
$(BIN)/regtrack-worker: $(call obj,worker/main.c) $(WORKER_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)
$(BIN)/regtrack: $(call obj,$(CLI_SRC)) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/tests/%: $(B)/tests/unit/%.o $(SERVER_A) $(WORKER_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS) -lcmocka

# --- benchmark cases: static binaries per arch (worker/cases/*.c) ---------
CASE_SRC   := $(wildcard worker/cases/*.c)
# casecommon.c and casetasks.c are linked into every case, not cases themselves
CASE_COMMON := worker/cases/casecommon.c worker/cases/casetasks.c
CASE_NAMES := $(filter-out casecommon casetasks,$(basename $(notdir $(CASE_SRC))))
# -fno-omit-frame-pointer: perf record -g walks user stacks by frame
# pointer; without it (x86_64's -O2 default) a case's callers are garbage
# (aarch64 keeps frame records anyway). -static without -static-pie is
# ET_EXEC on Debian's gcc; worker/usersyms.c works by file offset, PIE or not
CASE_CFLAGS := -std=gnu11 -D_GNU_SOURCE -O2 -fno-omit-frame-pointer -Wall -Wextra -Werror \
	$(BANNED_FLAGS) -static -pthread
CASES_X86  := $(addprefix bin/cases/x86_64/,$(CASE_NAMES))
CASES_ARM  := $(addprefix bin/cases/aarch64/,$(CASE_NAMES))
AARCH64_CC ?= aarch64-linux-gnu-gcc
HOST_ARCH  := $(shell uname -m)
cases: $(CASES_X86) $(if $(shell command -v $(AARCH64_CC) 2>/dev/null),$(CASES_ARM))
# the cases and /init are standalone static binaries: of lib/ they take only
# the headers and CASE_LIB (compiled into each)
CASE_LIB := lib/clock.c
# a stamp named by the flags' hash: the cases are rebuilt when CASE_CFLAGS change
CASE_STAMP := bin/cases/.flags-$(shell printf '%s' '$(CASE_CFLAGS)' | md5sum | cut -c1-12)
CASE_DEPS := $(wildcard worker/cases/*.h) $(CASE_COMMON) lib/banned.h lib/clock.h $(CASE_LIB) \
	$(CASE_STAMP)
$(CASE_STAMP):
	@mkdir -p $(dir $@)
	@rm -f bin/cases/.flags-*
	@touch $@
bin/cases/x86_64/%: worker/cases/%.c $(CASE_DEPS)
	@mkdir -p $(dir $@)
	$(if $(filter x86_64,$(HOST_ARCH)),$(CC),x86_64-linux-gnu-gcc) $(CASE_CFLAGS) -Ilib -o $@ $< $(CASE_COMMON) $(CASE_LIB) -lm
bin/cases/aarch64/%: worker/cases/%.c $(CASE_DEPS)
	@mkdir -p $(dir $@)
	$(if $(filter aarch64,$(HOST_ARCH)),$(CC),$(AARCH64_CC)) $(CASE_CFLAGS) -Ilib -o $@ $< $(CASE_COMMON) $(CASE_LIB) -lm

# --- guest /init for the worker's initramfs (worker/init/init.c) ---------
# Built beside the cases (bin/cases/ARCH/init); execute.c packs it as /init.
# /init also folds perf's stacks in the guest: lib/parse/perf_fold.c
INIT_LIB := $(CASE_LIB) lib/parse/perf_fold.c lib/buf.c lib/xalloc.c lib/kexecrec.c
INIT_DEPS := worker/init/init.c lib/banned.h lib/clock.h lib/parse/perf_fold.h lib/buf.h lib/xalloc.h lib/kexecrec.h $(INIT_LIB)
INIT_BINS := bin/cases/x86_64/init $(if $(shell command -v $(AARCH64_CC) 2>/dev/null),bin/cases/aarch64/init)
cases: $(INIT_BINS)
bin/cases/x86_64/init: $(INIT_DEPS)
	@mkdir -p $(dir $@)
	$(if $(filter x86_64,$(HOST_ARCH)),$(CC),x86_64-linux-gnu-gcc) $(CASE_CFLAGS) -Ilib -o $@ $< $(filter-out $<,$(INIT_LIB))
bin/cases/aarch64/init: $(INIT_DEPS)
	@mkdir -p $(dir $@)
	$(if $(filter aarch64,$(HOST_ARCH)),$(CC),$(AARCH64_CC)) $(CASE_CFLAGS) -Ilib -o $@ $< $(filter-out $<,$(INIT_LIB))

# kconfig fragments for installed workers (worker/kernel.c looks in
# PREFIX/share/regtrack/kconfig for /usr/local and /usr)
.PHONY: install-kconfig
install: install-kconfig
install-kconfig:
	install -d $(DESTDIR)$(PREFIX)/share/regtrack/kconfig
	install -m 644 worker/kconfig/*.config $(DESTDIR)$(PREFIX)/share/regtrack/kconfig/

# test driver of job_execute() for tests/kernel/run.sh
$(B)/tests/kernel/exec_job: $(B)/tests/kernel/exec_job.o $(WORKER_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)
check-kernel: $(B)/tests/kernel/exec_job cases

# --- tests --------------------------------------------------------------
# `make check` runs under ASan+UBSan unless SANITIZE is given (SANITIZE=none
# for a plain run).
CHECK_SANITIZE := $(if $(filter command line environment,$(origin SANITIZE)),$(SANITIZE),address,undefined)
export ASAN_OPTIONS  ?= detect_leaks=1:abort_on_error=1:halt_on_error=1
export UBSAN_OPTIONS ?= print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS  ?= suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0

check: lint
	@deploy/install-deps
	$(MAKE) SANITIZE=$(CHECK_SANITIZE) check-unit check-integration
	$(MAKE) check-cases
	$(MAKE) SANITIZE=$(CHECK_SANITIZE) check-worker check-web check-kernel

lint:
	@tests/lint.sh

# test_usersyms reads the small-allocs binaries the cases' rules build
check-unit: $(TESTS) bin/cases/x86_64/small-allocs $(filter $(CASES_ARM),$(if $(shell command -v $(AARCH64_CC) 2>/dev/null),bin/cases/aarch64/small-allocs))
	@set -e; for t in $(TESTS); do echo "== $$t"; $$t; done

check-integration: $(PROGRAMS) $(CASES_X86)
	REGTRACK_BIN=$(CURDIR)/$(BIN) tests/integration/run.sh

# Each tier is a tests/TIER/run.sh script: the script gets REGTRACK_BIN.
# A tier that cannot run fails: no "if the script exists" guards.
check-cases: cases
	tests/cases/run.sh

check-worker: $(PROGRAMS)
	REGTRACK_BIN=$(CURDIR)/$(BIN) tests/worker/run.sh

check-web: $(PROGRAMS)
	REGTRACK_BIN=$(CURDIR)/$(BIN) tests/web/run.sh

check-kernel: $(PROGRAMS)
	REGTRACK_BIN=$(CURDIR)/$(BIN) REGTRACK_EXEC_JOB=$(CURDIR)/$(B)/tests/kernel/exec_job \
		tests/kernel/run.sh

# libFuzzer targets (fuzz/): each runs FUZZ_SECONDS (default 30), prints executions
fuzz:
	fuzz/run.sh

# the long fault tests (tests/faults/): kills, restarts, load; figures printed
check-faults: $(PROGRAMS) $(B)/tests/faults/loadmix
	REGTRACK_BIN=$(CURDIR)/$(BIN) REGTRACK_LOADMIX=$(CURDIR)/$(B)/tests/faults/loadmix \
		tests/faults/run.sh
# the load client of the "load" and "nginx-failover" fault scenarios
$(B)/tests/faults/loadmix: $(B)/tests/faults/loadmix.o $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

bench: all
	REGTRACK_BIN=$(CURDIR)/$(BIN) bench/run.sh

# SCALE_SIZES="1e6 1e7 1e8" for the largest (hours, about 15 GB of disk)
bench-scale: all
	REGTRACK_BIN=$(CURDIR)/$(BIN) timeout 21600 python3 bench/scale.py

# DP_BINS="DIR DIR" compares two builds on the same data, DP_DUMP=DIR keeps what each stored
bench-detect: all
	REGTRACK_BIN=$(CURDIR)/$(BIN) timeout 3600 python3 bench/detect_pass.py

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/regtrack/sql \
		$(DESTDIR)$(PREFIX)/share/regtrack/web $(DESTDIR)$(PREFIX)/share/regtrack/cases
	install -m 755 $(PROGRAMS) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 sql/*.sql $(DESTDIR)$(PREFIX)/share/regtrack/sql/
	cp -r web/. $(DESTDIR)$(PREFIX)/share/regtrack/web/
	cp -r bin/cases/. $(DESTDIR)$(PREFIX)/share/regtrack/cases/ 2>/dev/null || true

# systemd units and the nginx site (README "Production setup"); units use
# /usr/local/bin: with another PREFIX the ExecStart lines are rewritten
.PHONY: install-deploy
install: install-deploy
install-deploy:
	install -d $(DESTDIR)$(PREFIX)/lib/systemd/system $(DESTDIR)$(PREFIX)/share/regtrack/nginx
	for u in deploy/systemd/*.service; do \
		sed 's|/usr/local/bin/|$(PREFIX)/bin/|g' $$u > $(DESTDIR)$(PREFIX)/lib/systemd/system/$$(basename $$u); \
		chmod 644 $(DESTDIR)$(PREFIX)/lib/systemd/system/$$(basename $$u); done
	install -m 644 deploy/nginx/regtrack.conf $(DESTDIR)$(PREFIX)/share/regtrack/nginx/

demo:
	@deploy/install-deps
	$(MAKE) all
	deploy/fetch-tools
	deploy/demo start

demo-stop:
	deploy/demo stop

clean:
	rm -rf build bin

-include $(shell find build -name '*.d' 2>/dev/null)
