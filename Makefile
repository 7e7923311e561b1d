# dra-tools — build, test, benchmark, install.
#
#   make                      build every tool into build/bin/
#   make check                C unit tests, the fuzz seed replay, bats and the
#                             sweep (tests/sweep/: every data file through
#                             every reader); prints "N passed, N failed"
#   make check SANITIZE=address,undefined   the same under ASan+UBSan (build/san/)
#   make unit | replay | bats | sweep       one part of make check
#   make lint                 layer rules, man pages vs completions, shellcheck,
#                             the clang-format figure, thin mains and function
#                             length (scripts/lint)
#   make bench | demo | fuzz | install PREFIX=/usr/local DESTDIR=
#   make doc-check            run the README's and man pages' examples
#   make image                build/image/dra-tools.oci.tar, no daemon needed
#                             (scripts/image.mk; doc/running-in-a-cluster.md)
#
# Dependencies come from pkg-config; `make deps` installs the Debian packages
# (and `make demo` or `make check` does first on a machine without them).
#   make WERROR=0             warnings are not errors (default with compilers
#                             other than the developers' GCC 12; see WARN)

VERSION  := 0.1.0
PREFIX   ?= /usr/local
DESTDIR  ?=
CC       ?= cc
SANITIZE ?=

PKGS     := yaml-0.1 jansson libprotobuf-c libnghttp2 libcurl readline re2
# A missing package stops the build naming it (one failed lookup would
# otherwise empty every flag); goals that need no compiler skip the check.
# The first commands on a fresh machine, `make demo` and `make check`,
# install the packages instead (scripts/install-deps.sh) and then run again
# in a new make that finds them (DEPS_DONE=1 marks it); `make -n` there shows
# the whole plan.
NO_PKG_GOALS := deps clean
FRESH_GOALS  := demo check
FRESH        :=
INSTALL_DEPS ?= scripts/install-deps.sh
ifneq ($(filter-out $(NO_PKG_GOALS),$(or $(MAKECMDGOALS),all)),)
PKG_MISSING := $(strip $(foreach p,$(PKGS),$(if $(shell pkg-config --exists $(p) && echo y),,$(p))))
ifneq ($(PKG_MISSING),)
ifneq ($(and $(filter $(FRESH_GOALS),$(MAKECMDGOALS)),$(if $(DEPS_DONE),,y)),)
FRESH := y
else ifeq ($(DEPS_DONE)$(findstring n,$(firstword -$(MAKEFLAGS))),1n)
# a dry run after the (not run) dependency step: show the rest
else ifneq ($(DEPS_DONE),)
$(error pkg-config still cannot find: $(PKG_MISSING) after scripts/install-deps.sh)
else
$(error pkg-config cannot find: $(PKG_MISSING) (run `make deps` or scripts/install-deps.sh))
endif
else
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   := $(shell pkg-config --libs $(PKGS))
endif
endif

ifneq ($(FRESH),)
.PHONY: $(MAKECMDGOALS) fresh-machine
$(MAKECMDGOALS): fresh-machine
	@:
fresh-machine:
	@echo "missing packages ($(PKG_MISSING)): installing them first"
	$(INSTALL_DEPS)
	+@$(MAKE) --no-print-directory DEPS_DONE=1 $(MAKECMDGOALS)
else

ifeq ($(SANITIZE),)
BUILD    := build
OPTFLAGS := -O2 -g
else
BUILD    := build/san
OPTFLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=$(SANITIZE) -fno-sanitize-recover=all
endif

# Quiet by default; V=1 shows the commands.
ifeq ($(V),1)
Q :=
say = @true
else
Q := @
say = @printf '  %-6s %s\n' $(1) $(2)
endif

# Warnings are errors for developers and CI (WERROR=1), not for a user whose
# newer compiler warns about something new: WERROR defaults to 1 only with
# the compiler the tree is developed and tested with (GCC 12, Debian 12);
# `make WERROR=1` or `WERROR=0` overrides, .ci/run sets WERROR=1.
# The rules: every external function has a prototype in a header
# (-Wmissing-prototypes; no `extern` declarations inside .c files), and a
# returned dra_err * must be used (DRA_MUST_USE, base/error.h).
DEV_CC_MAJOR := 12
CC_MAJOR := $(shell $(CC) -dumpversion 2>/dev/null | cut -d. -f1)
WERROR   ?= $(if $(filter $(DEV_CC_MAJOR),$(CC_MAJOR)),1,0)
WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla -Wno-unused-parameter \
            $(if $(filter 1,$(WERROR)),-Werror)
CPPFLAGS += -D_GNU_SOURCE -DDRA_VERSION='"$(VERSION)"' -Isrc/common -Ibuild/gen
CFLAGS   += -std=c17 $(WARN) $(OPTFLAGS) $(filter-out -D_XOPEN_SOURCE=%,$(PKG_CFLAGS))
LDFLAGS  += $(if $(SANITIZE),-fsanitize=$(SANITIZE))
LDLIBS   += $(PKG_LIBS) -lm

TOOLS    := dra-slice dra-select dra-alloc dra-claim dra-prepare dra-evict dra-watch dra-example-driver

LIB_SRC  := $(sort $(shell find src/common -name '*.c'))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)

# C++ in the library: the RE2 shim (src/common/cel/re2.cc), C++17, the
# same warnings; the tools, tests and fuzzers link libstdc++ for it.
CXX      ?= g++
LIB_CXX  := $(sort $(shell find src/common -name '*.cc'))
LIB_OBJ  += $(LIB_CXX:%.cc=$(BUILD)/obj/%.o)
CXXFLAGS += -std=c++17 -Wall -Wextra -Wshadow -Wno-unused-parameter $(if $(filter 1,$(WERROR)),-Werror) \
            $(OPTFLAGS) $(PKG_CFLAGS)
LDLIBS   += -lstdc++
$(BUILD)/obj/%.o: %.cc
	@mkdir -p $(dir $@)
	$(call say,CXX,$<)
	$(Q)$(CXX) $(CPPFLAGS) $(CXXFLAGS) -MMD -MP -c $< -o $@
FUZZ_CXX_OBJ := $(LIB_CXX:%.cc=build/fuzz/obj/%.o)
# fuzz_regex also compares with PCRE2 when that is installed (tests only).
FUZZ_PCRE2 := $(shell pkg-config --exists libpcre2-8 2>/dev/null && echo -DFUZZ_PCRE2 `pkg-config --cflags --libs libpcre2-8`)
build/fuzz/fuzz_regex: FUZZ_EXTRA := $(FUZZ_PCRE2)
build/fuzz/obj/%.o: %.cc
	@mkdir -p $(dir $@)
	$(call say,CLANG++,$<)
	$(Q)clang++ -std=c++17 -g -O1 -fsanitize=fuzzer-no-link,address,undefined -Isrc/common $(PKG_CFLAGS) -MMD -MP -c $< -o $@

# protobuf-c code generated from proto/*.proto into build/gen (only
# src/common/kubelet/ includes it).
PROTO    := $(sort $(wildcard proto/*.proto))
GEN_C    := $(PROTO:proto/%.proto=build/gen/%.pb-c.c)
GEN_H    := $(GEN_C:.c=.h)
LIB_OBJ  += $(GEN_C:%.c=$(BUILD)/obj/%.o)
LIB      := $(BUILD)/lib/libdra.a

UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
# Test-only code (tests/unit/*.c that are not test_*.c): linked into the
# unit-test binaries, never into libdra.a.
TEST_SUPPORT_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(filter-out $(UNIT_SRC),$(wildcard tests/unit/*.c)))

BINS     := $(TOOLS:%=$(BUILD)/bin/%)
# The kubectl plugin and its completion, next to the tools they run.
PLUGIN   := $(BUILD)/bin/kubectl-dra $(BUILD)/bin/kubectl_complete-dra

.PHONY: all check unit replay bats sweep bench demo doc-check fuzz install clean deps tools browser-check lint
.SECONDARY:
all: $(BINS) $(PLUGIN)
tools: $(BINS) $(PLUGIN)

build/gen/%.pb-c.c build/gen/%.pb-c.h: proto/%.proto
	@mkdir -p build/gen
	$(call say,PROTOC,$<)
	$(Q)protoc-c -Iproto --c_out=build/gen $<
$(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard src/common/kubelet/*.c)): $(GEN_H)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(call say,AR,$@)
	$(Q)rm -f $@
	$(Q)ar rcs $@ $^

# One folder per tool; every .c in it is part of that tool.
define tool_rule
$(BUILD)/bin/$(1): $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard src/$(1)/*.c)) $(LIB)
	@mkdir -p $$(dir $$@)
	$$(call say,LINK,$$@)
	$$(Q)$$(CC) $$(LDFLAGS) -o $$@ $$^ $$(LDLIBS)
endef
$(foreach t,$(TOOLS),$(eval $(call tool_rule,$(t))))

$(PLUGIN): $(BUILD)/bin/%: scripts/%
	@mkdir -p $(dir $@)
	$(Q)install -m 755 $< $@

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(TEST_SUPPORT_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(call say,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Fuzz seed replay (part of make check): every libFuzzer target
# tests/fuzz/fuzz_NAME.c, built with this build's compiler and flags
# (sanitizers included) and linked with tests/fuzz/replay.c into
# $(BUILD)/fuzz-replay/fuzz_NAME; tests/run-tests.sh runs it on
# tests/fuzz/seeds/NAME/.  New targets are picked up by the wildcard.
FUZZ_SRC   := $(sort $(wildcard tests/fuzz/fuzz_*.c))
REPLAY_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz-replay/%)
$(BUILD)/obj/tests/fuzz/%.o: CPPFLAGS += -include tests/fuzz/fuzz.h
$(BUILD)/fuzz-replay/%: $(BUILD)/obj/tests/fuzz/%.o $(BUILD)/obj/tests/fuzz/replay.o $(LIB)
	@mkdir -p $(dir $@)
	$(call say,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Bats files that run none of the tools' C code (the layer and function
# length scripts, the test API server with the real kubectl): the sanitized
# pass leaves them to the plain one, where they run the same
# (tests/bats/s37-relci.bats keeps this list true).
CHECK_PLAIN_ONLY := tests/bats/apiserver.bats tests/bats/layers.bats tests/bats/s36-house.bats
CHECK_SKIP := $(if $(SANITIZE),$(CHECK_PLAIN_ONLY))

check: $(BINS) $(PLUGIN) $(UNIT_BIN) $(REPLAY_BIN)
	$(UPSTREAM_CHECK_NOTE)
	@DRA_BIN=$(CURDIR)/$(BUILD)/bin DRA_UNIT=$(CURDIR)/$(BUILD)/tests DRA_FUZZ_REPLAY=$(CURDIR)/$(BUILD)/fuzz-replay \
	  DRA_BATS_SKIP="$(CHECK_SKIP)" tests/run-tests.sh

# The checks that keep the house (needs shellcheck and clang-format).
lint: $(BINS) $(PLUGIN)
	@scripts/lint $(CURDIR)/$(BUILD)/bin

unit: $(UNIT_BIN)
	@DRA_UNIT=$(CURDIR)/$(BUILD)/tests tests/run-tests.sh --unit-only

replay: $(REPLAY_BIN)
	@DRA_FUZZ_REPLAY=$(CURDIR)/$(BUILD)/fuzz-replay tests/run-tests.sh --replay-only

sweep: $(BINS)
	@DRA_BIN=$(CURDIR)/$(BUILD)/bin tests/run-tests.sh --sweep-only

bats: $(BINS)
	@DRA_BIN=$(CURDIR)/$(BUILD)/bin DRA_BATS_SKIP="$(CHECK_SKIP)" tests/run-tests.sh --bats-only

# bench/run.sh; upstream-alloc is the schedule row's peer (a line saying it
# was skipped without Go).  Not part of check: CI never runs it.
bench: $(BINS) upstream-alloc
	@DRA_BIN=$(CURDIR)/$(BUILD)/bin bench/run.sh

demo: $(BINS)
	@DRA_BIN=$(CURDIR)/$(BUILD)/bin examples/demo.sh

# The HTML pages of dra-alloc in a headless Chromium (Debian's chromium),
# offline, from file:// URLs: no console message, exception or request, the
# figures of -o json on screen.  Screenshots: $(BUILD)/browser/*.png.
CHROMIUM ?= /usr/bin/chromium
browser-check: $(BUILD)/bin/dra-alloc
	@python3 tests/browser/browser_check.py --bin $(BUILD)/bin --out $(BUILD)/browser --chromium $(CHROMIUM)

deps:
	@$(INSTALL_DEPS)

# The examples of the README, doc/running-in-a-cluster.md and the man
# pages, run as written
# (tests/readme-examples.py), after make demo's script.
doc-check: $(BINS) $(PLUGIN)
	@DRA_BIN=$(CURDIR)/$(BUILD)/bin examples/demo.sh >/dev/null 2>&1 || { echo "make demo failed"; echo "0 passed, 1 failed"; exit 1; }
	@python3 tests/readme-examples.py README.md doc/running-in-a-cluster.md $(sort $(wildcard man/*.1)) $(BUILD)/bin

# libFuzzer targets: tests/fuzz/fuzz_*.c, built with clang into build/fuzz/.
# `make fuzz` runs each for FUZZ_SECONDS (default 60) and documents every
# run: tests/fuzz/run.sh prints each target's time, executions, corpus and
# coverage, and writes them as a table to build/fuzz/summary.md.
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=build/fuzz/%)
FUZZ_CFLAGS := -std=c17 -g -O1 -fsanitize=fuzzer-no-link,address,undefined -D_GNU_SOURCE -DDRA_VERSION='"$(VERSION)"' -Isrc/common -Ibuild/gen $(filter-out -D_XOPEN_SOURCE=%,$(PKG_CFLAGS))
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=build/fuzz/obj/%.o) $(GEN_C:%.c=build/fuzz/obj/%.o) $(FUZZ_CXX_OBJ)
$(patsubst %.c,build/fuzz/obj/%.o,$(wildcard src/common/kubelet/*.c)): $(GEN_H)
build/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,CLANG,$<)
	$(Q)clang $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@
build/fuzz/%: tests/fuzz/%.c $(FUZZ_LIB_OBJ)
	@mkdir -p $(dir $@)
	$(call say,FUZZ,$@)
	$(Q)clang $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(PKG_LIBS) $(FUZZ_EXTRA) -lstdc++ -lm
fuzz: $(FUZZ_BIN)
	@tests/fuzz/run.sh $(FUZZ_BIN)

install: $(BINS)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	  $(DESTDIR)$(PREFIX)/share/zsh/site-functions \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 755 $(BINS) $(DESTDIR)$(PREFIX)/bin/
	install -m 755 scripts/kubectl-dra scripts/kubectl_complete-dra $(DESTDIR)$(PREFIX)/bin/
	for m in man/*.1; do [ -e "$$m" ] && install -m 644 "$$m" $(DESTDIR)$(PREFIX)/share/man/man1/; done; true
	for t in $(TOOLS); do \
	  [ -e completions/$$t.bash ] && install -m 644 completions/$$t.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/$$t; \
	  [ -e completions/_$$t ] && install -m 644 completions/_$$t $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_$$t; \
	  [ -e completions/$$t.fish ] && install -m 644 completions/$$t.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/$$t.fish; \
	done; true

clean:
	rm -rf build

include tests/upstream/upstream.mk
include scripts/image.mk

-include $(shell find $(BUILD)/obj build/fuzz/obj -name '*.d' 2>/dev/null)
endif # FRESH
