# Upstream test peers: tests/upstream/ is a Go module pinned to Kubernetes
# 1.37.2 (go.mod) whose programs run upstream's own code against the tools.
#
#   make upstream          build every peer into build/upstream/bin/
#   make upstream-check    run every differential suite; ends with one line
#                          "N passed, N failed" (all suites summed)
#   make upstream-check-full  the same with the longer runs the fragments
#                          name in UPSTREAM_FULL_FLAGS (more random seeds)
#
# Each peer is one fragment tests/upstream/NAME.mk, included here by
# wildcard: it adds its build target to UPSTREAM_PEERS and its suite to
# UPSTREAM_CHECKS (a target whose output ends with "N passed, N failed",
# maybe ", N skipped", and that fails when anything failed).  Adding a peer
# is adding its fragment.
#
# Without Go every target says in one line that it was skipped and why,
# and so does `make check` (the suites are not part of it; .ci/run runs
# `make upstream-check` after it).  Go is $(UPSTREAM_GO): the one in PATH,
# else /usr/local/go/bin/go.  Modules come from the module cache, else
# the module proxy (GOFLAGS=-mod=mod: go.sum pins them); GOTOOLCHAIN=local
# keeps the installed Go, never a downloaded one.
UPSTREAM_GO ?= $(or $(shell command -v go 2>/dev/null),$(wildcard /usr/local/go/bin/go),go)
UPSTREAM_HAVE_GO := $(shell command -v $(UPSTREAM_GO) 2>/dev/null)
UPSTREAM_NO_GO := upstream suites skipped: no Go toolchain ('$(UPSTREAM_GO)' not found; set UPSTREAM_GO=/path/to/go)
UPSTREAM_BIN := build/upstream/bin
UPSTREAM_GOENV := GOTOOLCHAIN=local GOFLAGS=-mod=mod
# The peers are test programs: no symbol table nor DWARF (a smaller, faster
# link; panics still print their stacks).  Their Kubernetes version is
# stamped as Kubernetes' own build stamps it (hack/lib/version.sh: -X on
# k8s.io/component-base/version and k8s.io/client-go/pkg/version), from the
# k8s.io/kubernetes the module file requires, so that the control plane's
# /version and kubectl's client version name the release (a module build
# says v0.0.0-master): $(call upstream_goflags,MODFILE), each release's
# builds with its own file (releases.mk).
UPSTREAM_LDFLAGS ?= -s -w
upstream_k8s = $(shell sed -n 's,^[[:space:]]*k8s.io/kubernetes \(v[^[:space:]]*\)$$,\1,p' tests/upstream/$(1))
upstream_stamp = $(foreach p,k8s.io/component-base/version k8s.io/client-go/pkg/version,-X $(p).gitVersion=$(1) \
	-X $(p).gitMajor=$(word 1,$(subst ., ,$(1:v%=%))) -X $(p).gitMinor=$(word 2,$(subst ., ,$(1:v%=%))))
upstream_goflags = -ldflags='$(UPSTREAM_LDFLAGS) $(strip $(call upstream_stamp,$(call upstream_k8s,$(1))))'
UPSTREAM_GOBUILDFLAGS ?= $(call upstream_goflags,go.mod)

# $(call upstream_go_build,OUT,PACKAGE): the recipe lines that build PACKAGE
# of the module (relative to tests/upstream, e.g. ./cmd/upstream-alloc) into
# OUT (relative to the top).  Every fragment builds its peers with it.
define upstream_go_build
@mkdir -p $(dir $(1))
$(call say,GO,$(1))
$(Q)cd tests/upstream && $(UPSTREAM_GOENV) $(UPSTREAM_GO) build $(UPSTREAM_GOBUILDFLAGS) -o $(CURDIR)/$(1) $(2)
endef

UPSTREAM_PEERS :=
UPSTREAM_CHECKS :=
UPSTREAM_FULL_FLAGS :=
include $(filter-out tests/upstream/upstream.mk,$(sort $(wildcard tests/upstream/*.mk)))

# The line `make check` prints when the suites cannot run.
UPSTREAM_CHECK_NOTE := $(if $(UPSTREAM_HAVE_GO),,@echo "$(UPSTREAM_NO_GO)")

# make upstream-peers-ci: every peer the CI suites run (`make upstream-check`
# and `make upstream-check-releases-ci`), one after the other, each `go
# build` on all cores (.ci/run builds them while the C suites run): this
# release's but the validation peer (its suite is not in UPSTREAM_CHECKS),
# the control plane, and each other release's (releases.mk).  The suites
# that compile upstream's tests (`go test`, `go run`) are not built ahead.
UPSTREAM_CI_PEERS := $(filter-out upstream-validate-peer,$(UPSTREAM_PEERS)) upstream-cluster \
	$(REL_RELEASES:%=upstream-peers-%)

.PHONY: upstream upstream-check upstream-check-full upstream-peers-ci
ifeq ($(UPSTREAM_HAVE_GO),)
upstream upstream-check upstream-check-full upstream-peers-ci:
	@echo "$(UPSTREAM_NO_GO)"
else
upstream: $(UPSTREAM_PEERS)

upstream-peers-ci:
	@$(MAKE) --no-print-directory -j1 $(UPSTREAM_CI_PEERS)

upstream-check-full:
	@$(MAKE) --no-print-directory upstream-check $(UPSTREAM_FULL_FLAGS)

# Each suite in turn (they are heavy), its time, then the sum of their
# "N passed, N failed" lines; a suite that printed none counts as failed.
upstream-check:
	@p=0; f=0; \
	for t in $(UPSTREAM_CHECKS); do \
	  echo "== upstream: make $$t"; \
	  s=$$(date +%s); out=$$(mktemp); \
	  { $(MAKE) --no-print-directory $$t 2>&1; echo $$? >"$$out.rc"; } | tee "$$out"; rc=$$(cat "$$out.rc"); \
	  line=$$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$$out" | tail -n 1); rm -f "$$out" "$$out.rc"; \
	  echo "== upstream: $$t took $$(( $$(date +%s) - s ))s"; \
	  if [ -z "$$line" ]; then f=$$((f + 1)); continue; fi; \
	  np=$$(echo "$$line" | sed -E 's/^([0-9]+) passed.*/\1/'); \
	  nf=$$(echo "$$line" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/'); \
	  if [ $$rc -ne 0 ] && [ $$nf -eq 0 ]; then nf=1; fi; \
	  p=$$((p + np)); f=$$((f + nf)); \
	done; \
	echo "$$p passed, $$f failed"; [ $$f -eq 0 ]
endif
