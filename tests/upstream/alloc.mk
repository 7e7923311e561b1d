# upstream-alloc, the scheduler's structured allocator as a peer of
# `dra-alloc --node`, and the differential suite that runs both (included
# by the Makefile; see tests/upstream/allocdiff/run.sh).
#
#   make upstream-alloc            build/upstream/bin/upstream-alloc and
#                                  build/upstream/bin/upstream-allocdiff
#   make upstream-check-alloc      every input of tests/data and examples/
#                                  and SEEDS (2000) generated cases through
#                                  both allocators: "N passed, N failed"
#   make fuzz-upstream-alloc       generated cases until stopped (or SEEDS=N)
#   make bench-upstream-alloc      dra-alloc vs upstream-alloc, wall time and
#                                  max RSS, 10 / 1,000 / 10,000 devices
#   make upstream-check-schedule-peer  `dra-alloc schedule` and
#                                  `upstream-alloc schedule`: each pod's node
#                                  and devices on inputs of tests/data and
#                                  generated 50-node fleets (and -1.36,
#                                  -1.38 with those releases' peers:
#                                  releases.mk)
#
# Without Go each says in one line that it was skipped.
# Go, the bin directory and the build recipe are upstream.mk's.
SEEDS ?= 2000
SEED0 ?= 1

.PHONY: upstream-alloc upstream-check-alloc fuzz-upstream-alloc bench-upstream-alloc upstream-check-schedule-peer
UPSTREAM_PEERS += upstream-alloc
UPSTREAM_CHECKS += upstream-check-alloc upstream-check-schedule-peer

# $(call alloc_with_go,TARGET,COMMAND): COMMAND, or one line saying TARGET
# was skipped when there is no Go.
alloc_with_go = $(if $(UPSTREAM_HAVE_GO),$(2),@echo "$(1): skipped: no Go toolchain ('$(UPSTREAM_GO)' not found)")
ALLOC_DIFF = $(UPSTREAM_BIN)/upstream-allocdiff -dra-alloc $(BUILD)/bin/dra-alloc -keep build/upstream/allocdiff -seed0 $(SEED0)

upstream-alloc:
ifeq ($(UPSTREAM_HAVE_GO),)
	@echo "upstream-alloc: skipped: no Go toolchain (go not found) to build the peer"
else
	$(call upstream_go_build,$(UPSTREAM_BIN)/upstream-alloc,./cmd/upstream-alloc)
	$(call upstream_go_build,$(UPSTREAM_BIN)/upstream-allocdiff,./allocdiff)
endif

upstream-check-alloc: $(BUILD)/bin/dra-alloc upstream-alloc
	$(call alloc_with_go,$@,@$(ALLOC_DIFF) -seeds $(SEEDS) tests/data examples)

# unbounded unless SEEDS is given on the command line
fuzz-upstream-alloc: $(BUILD)/bin/dra-alloc upstream-alloc
	$(call alloc_with_go,$@,@$(ALLOC_DIFF) -seeds $(if $(filter command line,$(origin SEEDS)),$(SEEDS),0))

bench-upstream-alloc: $(BUILD)/bin/dra-alloc upstream-alloc
	$(call alloc_with_go,$@,@bench/upstream-alloc.sh $(BUILD)/bin/dra-alloc $(UPSTREAM_BIN)/upstream-alloc build/upstream/bench)

upstream-check-schedule-peer: $(BUILD)/bin/dra-alloc $(BUILD)/bin/dra-slice upstream-alloc
	$(call alloc_with_go,$@,@tests/upstream/cmd/upstream-alloc/check-schedule.sh $(BUILD)/bin $(UPSTREAM_BIN)/upstream-alloc build/upstream/schedule-peer)
