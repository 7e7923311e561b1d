# The node peer: the published DRA example driver's kubelet plugin
# (sigs.k8s.io/dra-example-driver, built with upstream's kubeletplugin
# library) against dra-prepare, beside the project's C example driver.
#
#   make upstream-driver         build build/upstream/bin/dra-example-kubeletplugin
#                                (tests/upstream/driver/build.sh: the module of
#                                tests/upstream/go.mod, patched for 1.37)
#   make upstream-check-driver   the node suite (tests/upstream/node/run.sh):
#                                dra-prepare against both drivers, "N passed, N failed"
#
# Needs Go (one line saying it was skipped without it).  Not part of `make check`.
.PHONY: upstream-driver upstream-check-driver
UPSTREAM_PEERS += upstream-driver
UPSTREAM_CHECKS += upstream-check-driver

upstream-driver:
ifeq ($(UPSTREAM_HAVE_GO),)
	@echo "upstream-driver: skipped: no Go toolchain ('$(UPSTREAM_GO)' not found) to build the example driver"
else
	$(call say,GO,$(UPSTREAM_BIN)/dra-example-kubeletplugin)
	$(Q)GO=$(UPSTREAM_GO) tests/upstream/driver/build.sh $(CURDIR)/$(UPSTREAM_BIN)/dra-example-kubeletplugin $(CURDIR)/build/upstream/driver
endif

ifeq ($(UPSTREAM_HAVE_GO),)
upstream-check-driver:
	@echo "upstream-check-driver: skipped: no Go toolchain ('$(UPSTREAM_GO)' not found)"
else
upstream-check-driver: $(BUILD)/bin/dra-prepare $(BUILD)/bin/dra-example-driver upstream-driver
	@DRA_BIN=$(CURDIR)/$(BUILD)/bin UPSTREAM_BIN=$(CURDIR)/$(UPSTREAM_BIN) tests/upstream/node/run.sh
endif
