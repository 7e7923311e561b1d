# The pool-status peer: kube-controller-manager's ResourcePoolStatusRequest
# controller (tests/upstream/cmd/upstream-poolstatus) against
# `dra-slice pool-status` (included by upstream.mk).
#
#   make upstream-poolstatus          build/upstream/bin/upstream-poolstatus
#   make upstream-check-poolstatus    the suite (tests/upstream/poolstatus/run.sh):
#                                     every case of tests/upstream/poolstatus/cases
#                                     through both, "N passed, N failed, N skipped"
#
# The controller's computation is unexported, and `go build -overlay` may not
# add a file beneath the module cache: the overlay makes a package
# cmd/upstream-poolstatus/rpsr of the controller's own controller.go and
# views.go, read from the module cache, and cmd/upstream-poolstatus/
# export.go.in, the one entry into it.  Nothing is copied or written there.
# Build: about 1 min warm on a loaded 2-core machine; run: about 3.5 min
# (159 cases: 140 compared, 19 sweep files dra-slice rejects as input).
UPSTREAM_POOLSTATUS := $(UPSTREAM_BIN)/upstream-poolstatus
UPSTREAM_PEERS += upstream-poolstatus
UPSTREAM_CHECKS += upstream-check-poolstatus

.PHONY: upstream-poolstatus upstream-check-poolstatus

ifneq ($(UPSTREAM_HAVE_GO),)
upstream-poolstatus:
	@mkdir -p $(UPSTREAM_BIN) build/upstream/poolstatus
	$(call say,GO,$(UPSTREAM_POOLSTATUS))
	$(Q)cd tests/upstream && pkg=$$($(UPSTREAM_GOENV) $(UPSTREAM_GO) list -f '{{.Dir}}' \
	    k8s.io/kubernetes/pkg/controller/resourcepoolstatusrequest) && dir=$$PWD/cmd/upstream-poolstatus && \
	  printf '{"Replace":{"%s/rpsr/controller.go":"%s/controller.go","%s/rpsr/views.go":"%s/views.go","%s/rpsr/export.go":"%s/export.go.in"}}\n' \
	    "$$dir" "$$pkg" "$$dir" "$$pkg" "$$dir" "$$dir" >$(CURDIR)/build/upstream/poolstatus/overlay.json && \
	  $(UPSTREAM_GOENV) $(UPSTREAM_GO) build -tags poolstatus_overlay -overlay $(CURDIR)/build/upstream/poolstatus/overlay.json \
	    -o $(CURDIR)/$(UPSTREAM_POOLSTATUS) ./cmd/upstream-poolstatus

upstream-check-poolstatus: upstream-poolstatus $(BUILD)/bin/dra-slice
	@DRA_BIN=$(CURDIR)/$(BUILD)/bin UPSTREAM_BIN=$(CURDIR)/$(UPSTREAM_BIN) tests/upstream/poolstatus/run.sh
else
upstream-poolstatus upstream-check-poolstatus:
	@echo "$@: skipped: no Go toolchain ('$(UPSTREAM_GO)' not found)"
endif
