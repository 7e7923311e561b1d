# The controllers peer: kube-controller-manager's resourceclaim and
# device-taint-eviction controllers, run in-process over client-go's fake
# clientset (tests/upstream/cmd/upstream-controllers), against dra-claim
# generate/release and dra-evict (included by upstream.mk).
#
#   make upstream-controllers          build/upstream/bin/upstream-controllers
#   make upstream-check-controllers    the suite (tests/upstream/controllers/run.sh):
#                                      every scenario of tests/upstream/controllers/
#                                      scenarios through both, "N passed, N failed,
#                                      N skipped" (skipped: listed in KNOWN)
#
# Needs Go and jq (one line saying it was skipped without Go).  Part of
# `make upstream-check`.  Build: about 3.5 min cold on a loaded 2-core
# machine, 30 s warm; run: about 2 min (33 scenarios) on a loaded one.
UPSTREAM_CONTROLLERS := $(UPSTREAM_BIN)/upstream-controllers
UPSTREAM_PEERS += upstream-controllers
UPSTREAM_CHECKS += upstream-check-controllers

.PHONY: upstream-controllers upstream-check-controllers

ifneq ($(UPSTREAM_HAVE_GO),)
upstream-controllers:
	$(call upstream_go_build,$(UPSTREAM_CONTROLLERS),./cmd/upstream-controllers)

upstream-check-controllers: upstream-controllers $(BUILD)/bin/dra-claim $(BUILD)/bin/dra-evict
	@DRA_BIN=$(CURDIR)/$(BUILD)/bin UPSTREAM_BIN=$(CURDIR)/$(UPSTREAM_BIN) tests/upstream/controllers/run.sh
else
upstream-controllers upstream-check-controllers:
	@echo "$@: skipped: no Go toolchain ('$(UPSTREAM_GO)' not found)"
endif
