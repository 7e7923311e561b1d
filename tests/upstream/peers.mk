# Upstream test peers: tests/upstream/ is a Go module pinned to Kubernetes
# 1.37.2 whose programs run upstream's own code against the tools.
#
#   make upstream                  build the peers into build/upstream/bin/
#                                  (one line saying it was skipped when there is no Go)
#   make upstream-check-validate   dra-slice validate against the API server's
#                                  validation (tests/upstream/validate/run.sh)
#
# Go fetches the modules from the module proxy (GOFLAGS=-mod=mod: go.sum
# pins them); GOTOOLCHAIN=local keeps the installed Go, never a downloaded one.
UPSTREAM_GO  ?= go
UPSTREAM_BIN := build/upstream/bin
UPSTREAM_HAVE_GO := $(shell command -v $(UPSTREAM_GO) 2>/dev/null)
UPSTREAM_GOENV := GOTOOLCHAIN=local GOFLAGS=-mod=mod

.PHONY: upstream upstream-validate-peer upstream-check-validate
upstream: upstream-validate-peer

upstream-validate-peer:
ifeq ($(UPSTREAM_HAVE_GO),)
	@echo "upstream: skipped: no Go toolchain ('$(UPSTREAM_GO)' not found) to build the upstream peers"
else
	@mkdir -p $(UPSTREAM_BIN)
	$(call say,GO,$(UPSTREAM_BIN)/upstream-validate)
	$(Q)cd tests/upstream && $(UPSTREAM_GOENV) $(UPSTREAM_GO) build -o $(CURDIR)/$(UPSTREAM_BIN)/upstream-validate ./cmd/upstream-validate
	$(call say,GO,$(UPSTREAM_BIN)/upstream-validate-diff)
	$(Q)cd tests/upstream && $(UPSTREAM_GOENV) $(UPSTREAM_GO) build -o $(CURDIR)/$(UPSTREAM_BIN)/upstream-validate-diff ./validate
endif

upstream-check-validate: $(BUILD)/bin/dra-slice upstream-validate-peer
ifeq ($(UPSTREAM_HAVE_GO),)
	@echo "upstream-check-validate: skipped: no Go toolchain ('$(UPSTREAM_GO)' not found)"
else
	@DRA_BIN=$(CURDIR)/$(BUILD)/bin UPSTREAM_BIN=$(CURDIR)/$(UPSTREAM_BIN) tests/upstream/validate/run.sh
endif
