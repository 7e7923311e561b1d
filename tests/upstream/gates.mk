# The feature gate tables of every release the tools know, checked against
# upstream (included by upstream.mk).
#
#   make upstream-check-gates   prints upstream's DRA gates of 1.36, 1.37 and
#                               1.38 (tests/upstream/gates: default, stage,
#                               lock, dependencies, read from each release's
#                               pkg/features/kube_features.go) beside
#                               `dra-slice gates 1.36 1.37 1.38`; a differing
#                               row fails: "N passed, N failed" (N rows)
#
# The kube_features.go of 1.36 and 1.38 are read from the module zips that
# `go mod download -json` fetches and verifies into the module cache (the
# go command downloads v1.38.0-beta.0's zip and only then refuses its
# `go 1.27.0` line, so GOTOOLCHAIN=local is enough: no newer toolchain is
# downloaded).  Not part of `make check`.

GO ?= $(UPSTREAM_GO)
UPSTREAM_CHECKS += upstream-check-gates
# RELEASE=VERSION of k8s.io/kubernetes, one per table of model/features.c
GATES_RELEASES := 1.36=v1.36.3 1.37=v1.37.2 1.38=v1.38.0-beta.0
GATES_OUT := $(BUILD)/upstream/gates

.PHONY: upstream-check-gates
upstream-check-gates:
	@if ! command -v "$(GO)" >/dev/null 2>&1; then \
	  echo "upstream-check-gates: skipped: no Go toolchain ('$(GO)' not found; set GO=/path/to/go)"; \
	else \
	  $(MAKE) -s --no-print-directory $(BUILD)/bin/dra-slice && mkdir -p $(GATES_OUT) && \
	  (cd tests/upstream && GO="$(GO)" $(UPSTREAM_GOENV) "$(GO)" run ./gates $(GATES_RELEASES)) >$(GATES_OUT)/upstream.txt && \
	  $(BUILD)/bin/dra-slice gates $(foreach r,$(GATES_RELEASES),$(firstword $(subst =, ,$(r)))) >$(GATES_OUT)/tools.txt && \
	  { diff -u $(GATES_OUT)/upstream.txt $(GATES_OUT)/tools.txt; \
	    f=$$(diff $(GATES_OUT)/upstream.txt $(GATES_OUT)/tools.txt | grep -c '^[<>]'); \
	    p=$$(( $$(tail -n +2 $(GATES_OUT)/upstream.txt | wc -l) - $$(diff $(GATES_OUT)/upstream.txt $(GATES_OUT)/tools.txt | grep -c '^<') )); \
	    echo "$$p passed, $$f failed"; [ $$f -eq 0 ]; }; \
	fi
