# Upstream's DRA CEL as the test peer of the project's C CEL (included
# from the Makefile).
#
#   make upstream-cel         build/upstream/bin/upstream-cel (Go; skipped,
#                             with one line, when `go` is missing)
#   make upstream-check-cel   the differential suite: every selector of
#                             tests/, examples/ and man/ and seeded random
#                             expressions, the C CEL against upstream's;
#                             CEL_DIFF_FLAGS="-count 100000 -seed 7" or
#                             "-count 0" (unbounded) to change the run
#   make upstream-check-cel-syntax
#                             the compile errors of malformed selectors
#                             (cel-diff -syntax: the written ones and
#                             CEL_SYNTAX_FLAGS' generated ones), byte for
#                             byte; upstream-check-cel-syntax-1.N against
#                             that release's peer (releases.mk builds it)
#   make bench-upstream-cel   dra-select select against upstream-cel select
#                             (DeviceMatches) over 1,000 and 100,000 devices:
#                             bench/cel-upstream.sh

UPSTREAM_CEL   := $(UPSTREAM_BIN)/upstream-cel
CEL_DIFF       := $(UPSTREAM_BIN)/cel-diff
CEL_BATCH      := $(BUILD)/upstream/bin/cel-batch
CEL_DIFF_FLAGS ?=
CEL_SYNTAX_FLAGS ?= -count 2000
# Go, the bin directory and its environment are upstream.mk's.
UPSTREAM_PEERS += upstream-cel
UPSTREAM_CHECKS += upstream-check-cel upstream-check-cel-syntax

.PHONY: upstream-cel upstream-check-cel upstream-check-cel-syntax bench-upstream-cel

$(CEL_BATCH): $(BUILD)/obj/tests/upstream/cel/cel-batch.o $(LIB)
	@mkdir -p $(dir $@)
	$(call say,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

ifneq ($(UPSTREAM_HAVE_GO),)
upstream-cel:
	$(call upstream_go_build,$(UPSTREAM_CEL),./cmd/upstream-cel)
	$(call upstream_go_build,$(CEL_DIFF),./cel/diff)

upstream-check-cel: upstream-cel $(CEL_BATCH)
	@$(CEL_DIFF) -peer $(UPSTREAM_CEL) -c $(CEL_BATCH) -root $(CURDIR) $(CEL_DIFF_FLAGS)

upstream-check-cel-syntax: upstream-cel $(CEL_BATCH)
	@$(CEL_DIFF) -peer $(UPSTREAM_CEL) -c $(CEL_BATCH) -root $(CURDIR) -syntax $(CEL_SYNTAX_FLAGS)

# upstream-check-cel-syntax-1.36, -1.38: upstream-1.N is releases.mk's
upstream-check-cel-syntax-%: upstream-% $(CEL_BATCH)
	@DRA_KUBERNETES_VERSION=$* build/upstream/$*/bin/cel-diff -peer build/upstream/$*/bin/upstream-cel \
	  -c $(CEL_BATCH) -root $(CURDIR) -syntax $(CEL_SYNTAX_FLAGS)

bench-upstream-cel: upstream-cel $(BUILD)/bin/dra-select $(BUILD)/bin/dra-slice
	@bench/cel-upstream.sh $(BUILD)/bin/dra-select $(UPSTREAM_CEL) build/upstream/bench-cel
else
upstream-cel upstream-check-cel upstream-check-cel-syntax bench-upstream-cel:
	@echo "$@: skipped: no Go toolchain ('$(UPSTREAM_GO)' not found)"
upstream-check-cel-syntax-%:
	@echo "$@: skipped: no Go toolchain ('$(UPSTREAM_GO)' not found)"
endif
