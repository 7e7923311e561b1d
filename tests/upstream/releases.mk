# The upstream peers of the other releases the tools know, beside 1.37's
# (included by upstream.mk).  The Go code is the same; each release builds
# it with its own module file, tests/upstream/go-1.N.mod and go-1.N.sum
# (`go build -modfile`): k8s.io/kubernetes v1.36.3 with its staging modules
# at v0.36.3, and v1.38.0-beta.0 with v0.38.0-beta.0.  1.38's modules need
# Go 1.27 (its go.mod says `go 1.27.0`), so its builds alone run with
# GOTOOLCHAIN=$(REL_GO138) (the go command fetches that toolchain from the
# module proxy once).  Where upstream's Go API differs, a file has a twin
# for one release, chosen by the build tag k8s136 or k8s138: 1.36 has its
# DeviceTaintRule in v1beta2 and no derivedAttributes (allocdiff/peer/
# rules*.go), 1.38 hands the allocator its own ResourceSlice (allocdiff/
# peer/newalloc*.go, alloctable/dratools_release*_test.go) and moved
# cel-go to cel.dev/cel-go (celgo/).
#
#   make upstream-1.36          build/upstream/1.36/bin: upstream-alloc,
#                               upstream-allocdiff, upstream-cel, cel-diff
#   make upstream-check-1.36    the alloc and CEL suites against them, the
#                               tools given --kubernetes-version 1.36
#                               (DRA_KUBERNETES_VERSION): "N passed, N failed"
#   make upstream-validate-1.36, upstream-check-validate-1.36
#                               the validation peer and its suite
#   make upstream-alloctable-1.38
#                               1.38.0-beta.0's allocator test table through
#                               dra-alloc --kubernetes-version 1.38
#   make upstream-check-schedule-peer-1.36
#                               `dra-alloc schedule` against that release's
#                               `upstream-alloc schedule` (alloc.mk's check)
#   (and the same with 1.38)
#   make upstream-check-releases-ci
#                               the subset CI runs (.ci/run): each release's
#                               peers, REL_CI_SEEDS allocator seeds, its
#                               allocator table, its scheduling peer check,
#                               REL_CI_CEL expressions, the compile errors of
#                               malformed selectors (cel.mk's
#                               upstream-check-cel-syntax-1.N) and the
#                               validation seeds with REL_CI_VALIDATE
#                               mutations;
#                               "N passed, N failed"
#
# Not part of `make check`; each target without Go says so in one line.

REL_RELEASES := 1.36 1.38
REL_GO138 ?= go1.27.3
REL_1.36_GOENV := GOTOOLCHAIN=local GOFLAGS="-mod=mod -tags=k8s136"
REL_1.38_GOENV := GOTOOLCHAIN=$(REL_GO138) GOFLAGS="-mod=mod -tags=k8s138"
# the k8s.io/dynamic-resource-allocation of each release (allocator table)
REL_1.36_DRA := v0.36.3
REL_1.38_DRA := v0.38.0-beta.0
# BINARY:PACKAGE, built from tests/upstream
REL_PEERS := upstream-alloc:./cmd/upstream-alloc upstream-allocdiff:./allocdiff \
	upstream-cel:./cmd/upstream-cel cel-diff:./cel/diff
REL_VALIDATE := upstream-validate:./cmd/upstream-validate upstream-validate-diff:./validate
# extra arguments of the validation suite (tests/upstream/validate/run.sh)
REL_VALIDATE_FLAGS ?=
# the CI subset's share of each suite
REL_CI_SEEDS ?= 300
REL_CI_CEL ?= -count 2000
REL_CI_VALIDATE ?= -mutations 1 -limits 1 -gate-share 64
REL_CI_CHECKS := $(foreach r,$(REL_RELEASES),upstream-check-alloc-$(r) \
	upstream-alloctable-$(r) upstream-check-schedule-peer-$(r) upstream-check-cel-$(r) upstream-check-cel-syntax-$(r) \
	upstream-check-validate-$(r))

# $(call rel_goflags,RELEASE): UPSTREAM_GOBUILDFLAGS with the release's
# version stamp (upstream.mk), unless they are set from outside
rel_goflags = $(if $(filter file,$(origin UPSTREAM_GOBUILDFLAGS)),$(call upstream_goflags,go-$(1).mod),$(UPSTREAM_GOBUILDFLAGS))

# $(call rel_build,RELEASE,BINARY:PACKAGE...): one `go build` for all the
# packages (one load of the module graph, their compiles scheduled
# together, no symbol table nor DWARF as upstream.mk's peers), into
# build/upstream/RELEASE/pkg/ where each binary is named by its package's
# last element, then linked into bin/ under its own name (the files in
# pkg/ stay: an up-to-date binary is not linked again).
rel_build = @mkdir -p build/upstream/$(1)/bin build/upstream/$(1)/pkg; \
	echo "  GO     build/upstream/$(1)/bin: $(foreach p,$(2),$(firstword $(subst :, ,$(p))))"; \
	cd tests/upstream && $(REL_$(1)_GOENV) $(UPSTREAM_GO) build -modfile=go-$(1).mod \
	  $(call rel_goflags,$(1)) -o $(CURDIR)/build/upstream/$(1)/pkg/ \
	  $(foreach p,$(2),$(lastword $(subst :, ,$(p)))) || exit 1; \
	cd $(CURDIR)/build/upstream/$(1) && for p in $(2); do \
	  ln -f pkg/$$(basename $${p\#*:}) bin/$${p%%:*} || exit 1; \
	done

# The targets of each suite (before -1.N): its check and the builds it
# needs.  A suite of REL_1.N_UNPORTED (one whose peer is not ported to that
# release's Go API) has its check, and its own peer's build where it has
# one, say so in one line and fail.
REL_TARGETS_alloc := upstream upstream-peers upstream-check upstream-check-alloc
REL_TARGETS_cel := upstream upstream-peers upstream-check upstream-check-cel
REL_TARGETS_validate := upstream-validate upstream-peers upstream-check-validate
REL_TARGETS_alloctable := upstream-alloctable
REL_TARGETS_cluster-client := upstream-cluster upstream-check-cluster-client
REL_TARGETS_cluster-sched := upstream-cluster upstream-check-cluster-sched
REL_TARGETS_controllers := upstream-cluster upstream-check-controllers
REL_TARGETS_poolstatus := upstream-poolstatus upstream-check-poolstatus
REL_TARGETS_driver := upstream-driver upstream-check-driver
REL_SUITES := alloc cel validate alloctable
# what every suite's script is given: the release's peers and the tools
rel_env = DRA_KUBERNETES_VERSION=$(1) DRA_BIN=$(CURDIR)/$(BUILD)/bin UPSTREAM_BIN=$(CURDIR)/build/upstream/$(1)/bin
# $(call rel_peer_name,SUITE): what its peer is called in messages
rel_peer_name = $(if $(filter poolstatus,$(1)),pool-status,$(1))
# $(call rel_ported,SUITE...,RELEASE): those of the suites ported to it
rel_ported = $(filter-out $(REL_$(2)_UNPORTED),$(1))
# $(call rel_unported,SUITE...,RELEASE): the targets of those that are not
rel_unported = $(foreach s,$(filter $(REL_$(2)_UNPORTED),$(1)),upstream-check-$(s)-$(2) \
	$(addsuffix -$(2),$(filter upstream-$(s),$(REL_TARGETS_$(s)))))

# $(call rel_rules,RELEASE,SUITE...): the rules of those suites for RELEASE
# (eval'd once with REL_SUITES, once with REL_CLUSTER_SUITES)
define rel_rules
.PHONY: $(sort $(foreach s,$(2),$(REL_TARGETS_$(s):%=%-$(1))))
ifeq ($(UPSTREAM_HAVE_GO),)
$(sort $(foreach s,$(2),$(REL_TARGETS_$(s):%=%-$(1)))):
	@echo "$$@: $(UPSTREAM_NO_GO)"
else
ifneq ($(strip $(call rel_unported,$(2),$(1))),)
$(call rel_unported,$(2),$(1)):
	@echo "$$@: the $$(call rel_peer_name,$$(patsubst upstream-%-$(1),%,$$(patsubst upstream-check-%,upstream-%,$$@))) peer is not ported to $(1)'s Go API (releases.mk)"; exit 1
endif

ifneq ($(filter alloc cel,$(call rel_ported,$(2),$(1))),)
upstream-$(1):
	$$(call rel_build,$(1),$(REL_PEERS))

# both sets in one command (what CI builds)
upstream-peers-$(1):
	$$(call rel_build,$(1),$(REL_PEERS) $(REL_VALIDATE))

# each suite as `make upstream-check` runs them: its time, then the sum
upstream-check-$(1):
	@$$(MAKE) --no-print-directory upstream-check \
	  UPSTREAM_CHECKS="upstream-check-alloc-$(1) upstream-check-cel-$(1)"
endif

ifneq ($(filter alloc,$(call rel_ported,$(2),$(1))),)
upstream-check-alloc-$(1): $(BUILD)/bin/dra-alloc upstream-$(1)
	@DRA_KUBERNETES_VERSION=$(1) build/upstream/$(1)/bin/upstream-allocdiff \
	  -dra-alloc $(BUILD)/bin/dra-alloc -keep build/upstream/$(1)/allocdiff -seed0 $(SEED0) \
	  -known tests/upstream/allocdiff/KNOWN -seeds $(SEEDS) tests/data examples
endif

ifneq ($(filter cel,$(call rel_ported,$(2),$(1))),)
upstream-check-cel-$(1): upstream-$(1) $(CEL_BATCH)
	@DRA_KUBERNETES_VERSION=$(1) build/upstream/$(1)/bin/cel-diff \
	  -peer build/upstream/$(1)/bin/upstream-cel -c $(CEL_BATCH) -root $(CURDIR) $(CEL_DIFF_FLAGS)
endif

ifneq ($(filter validate,$(call rel_ported,$(2),$(1))),)
upstream-validate-$(1):
	$$(call rel_build,$(1),$(REL_VALIDATE))

upstream-check-validate-$(1): $(BUILD)/bin/dra-slice upstream-validate-$(1)
	@DRA_KUBERNETES_VERSION=$(1) DRA_BIN=$(CURDIR)/$(BUILD)/bin \
	  UPSTREAM_BIN=$(CURDIR)/build/upstream/$(1)/bin tests/upstream/validate/run.sh \
	  -work build/upstream/$(1)/validate $(REL_VALIDATE_FLAGS)
endif

ifneq ($(filter alloctable,$(call rel_ported,$(2),$(1))),)
upstream-alloctable-$(1): $(BUILD)/bin/dra-alloc
	@$(REL_$(1)_GOENV) DRA_KUBERNETES_VERSION=$(1) GO="$(UPSTREAM_GO)" \
	  DRA_VERSION=$(REL_$(1)_DRA) tests/upstream/alloctable/run.sh \
	  $(CURDIR)/$(BUILD)/bin/dra-alloc $(CURDIR)/$(BUILD)/upstream/$(1)/alloctable
endif

ifneq ($(filter cluster-client cluster-sched controllers,$(call rel_ported,$(2),$(1))),)
upstream-cluster-$(1):
	$$(call rel_build,$(1),$(or $(REL_$(1)_CLUSTER),$(REL_CLUSTER)))
	@ln -sf upstream-cluster build/upstream/$(1)/bin/kubectl
endif

ifneq ($(filter cluster-client,$(call rel_ported,$(2),$(1))),)
upstream-check-cluster-client-$(1): $(CLUSTER_TOOLS) upstream-cluster-$(1)
	@$(call rel_env,$(1)) CLUSTER_WORK=$(CURDIR)/build/upstream/$(1)/cluster-check \
	  CLUSTER_SUITES=client tests/upstream/cluster/run.sh
endif

ifneq ($(filter cluster-sched,$(call rel_ported,$(2),$(1))),)
upstream-check-cluster-sched-$(1): $(BUILD)/bin/dra-alloc upstream-cluster-$(1)
	@$(call rel_env,$(1)) CLUSTER_WORK=$(CURDIR)/build/upstream/$(1)/cluster-check \
	  CLUSTER_SUITES=scheduling SCHED_SEEDS="$$(shell seq 1 $$(CLUSTER_SCHED_SEEDS))" $(REL_$(1)_SCHED_ENV) \
	  tests/upstream/cluster/run.sh
endif

ifneq ($(filter controllers,$(call rel_ported,$(2),$(1))),)
upstream-check-controllers-$(1): upstream-cluster-$(1) $(BUILD)/bin/dra-claim $(BUILD)/bin/dra-evict
	@$(call rel_env,$(1)) $$(if $$(wildcard tests/upstream/controllers/KNOWN-$(1)),CONTROLLERS_KNOWN=$(CURDIR)/tests/upstream/controllers/KNOWN-$(1)) \
	  $$(if $$(wildcard tests/upstream/controllers/SKIP-$(1)),CONTROLLERS_SKIP=$(CURDIR)/tests/upstream/controllers/SKIP-$(1)) \
	  tests/upstream/controllers/run.sh
endif

ifneq ($(filter poolstatus,$(call rel_ported,$(2),$(1))),)
upstream-poolstatus-$(1):
	@mkdir -p build/upstream/$(1)/bin build/upstream/$(1)/poolstatus
	@echo "  GO     build/upstream/$(1)/bin/upstream-poolstatus"
	@cd tests/upstream && pkg=$$$$($(REL_$(1)_GOENV) $(UPSTREAM_GO) list -modfile=go-$(1).mod -f '{{.Dir}}' \
	    k8s.io/kubernetes/pkg/controller/resourcepoolstatusrequest) && dir=$$$$PWD/cmd/upstream-poolstatus && \
	  views=$$$$pkg/views.go && { [ -f "$$$$views" ] || views=; } && \
	  printf '{"Replace":{"%s/rpsr/controller.go":"%s/controller.go","%s/rpsr/views.go":"%s","%s/rpsr/export.go":"%s/$(or $(REL_$(1)_POOLSTATUS),export.go.in)"}}\n' \
	    "$$$$dir" "$$$$pkg" "$$$$dir" "$$$$views" "$$$$dir" "$$$$dir" \
	    >$(CURDIR)/build/upstream/$(1)/poolstatus/overlay.json && \
	  $(REL_$(1)_GOENV) $(UPSTREAM_GO) build -modfile=go-$(1).mod $(call rel_goflags,$(1)) \
	    -tags k8s$(subst .,,$(1)),poolstatus_overlay -overlay $(CURDIR)/build/upstream/$(1)/poolstatus/overlay.json \
	    -o $(CURDIR)/build/upstream/$(1)/bin/upstream-poolstatus ./cmd/upstream-poolstatus

upstream-check-poolstatus-$(1): upstream-poolstatus-$(1) $(BUILD)/bin/dra-slice
	@$(call rel_env,$(1)) tests/upstream/poolstatus/run.sh
endif

ifneq ($(filter driver,$(call rel_ported,$(2),$(1))),)
upstream-driver-$(1):
	@echo "  GO     build/upstream/$(1)/bin/dra-example-kubeletplugin"
	@$(REL_$(1)_GOENV) GO=$(UPSTREAM_GO) DRIVER_RELEASE=$(1) tests/upstream/driver/build.sh \
	  $(CURDIR)/build/upstream/$(1)/bin/dra-example-kubeletplugin $(CURDIR)/build/upstream/$(1)/driver

upstream-check-driver-$(1): $(BUILD)/bin/dra-prepare $(BUILD)/bin/dra-example-driver upstream-driver-$(1)
	@$(call rel_env,$(1)) tests/upstream/node/run.sh
endif
endif
endef
$(foreach r,$(REL_RELEASES),$(eval $(call rel_rules,$(r),$(REL_SUITES))))

# $(call rel_schedule_rule,RELEASE): upstream-check-schedule-peer-RELEASE,
# alloc.mk's scheduling peer check (cmd/upstream-alloc/check-schedule.sh)
# with the release's upstream-alloc, the tools given
# DRA_KUBERNETES_VERSION.  Its peer is the alloc suite's: where that is in
# REL_1.N_UNPORTED, the check says so in one line and fails.  Measured on
# 2026-12-07 on 2 cores, the peers built: 12 passed, 0 failed at each
# release, in 7.4 s (1.36) and 8.6 s (1.38) at load average 9-13 with
# make's up-to-date `go build` of the peers (the script alone 5.5 s and
# 5.9 s; 2-3 s at load average 3-4).
define rel_schedule_rule
.PHONY: upstream-check-schedule-peer-$(1)
ifeq ($(UPSTREAM_HAVE_GO),)
upstream-check-schedule-peer-$(1):
	@echo "$$@: $(UPSTREAM_NO_GO)"
else ifeq ($(call rel_ported,alloc,$(1)),)
upstream-check-schedule-peer-$(1):
	@echo "$$@: the alloc peer is not ported to $(1)'s Go API (releases.mk)"; exit 1
else
upstream-check-schedule-peer-$(1): $(BUILD)/bin/dra-alloc $(BUILD)/bin/dra-slice upstream-$(1)
	@$(call rel_env,$(1)) tests/upstream/cmd/upstream-alloc/check-schedule.sh \
	  $(BUILD)/bin build/upstream/$(1)/bin/upstream-alloc build/upstream/$(1)/schedule-peer
endif
endef
$(foreach r,$(REL_RELEASES),$(eval $(call rel_schedule_rule,$(r))))

.PHONY: upstream-check-releases-ci
ifeq ($(UPSTREAM_HAVE_GO),)
upstream-check-releases-ci:
	@echo "$@: $(UPSTREAM_NO_GO)"
else
# the peers first, one release after the other, then each suite timed
upstream-check-releases-ci: $(BUILD)/bin/dra-alloc $(BUILD)/bin/dra-slice $(CEL_BATCH)
	@$(MAKE) --no-print-directory $(foreach r,$(REL_RELEASES),upstream-peers-$(r))
	@$(MAKE) --no-print-directory upstream-check UPSTREAM_CHECKS="$(REL_CI_CHECKS)" \
	  SEEDS=$(REL_CI_SEEDS) CEL_DIFF_FLAGS="$(REL_CI_CEL)" REL_VALIDATE_FLAGS="$(REL_CI_VALIDATE)"
endif

# The control-plane suites of each release (not in CI: run them with
# `make upstream-check-cluster-releases`):
#
#   make upstream-cluster-1.N   build/upstream/1.N/bin: upstream-cluster (and
#                               its kubectl link), upstream-controllers
#   make upstream-poolstatus-1.N, upstream-driver-1.N
#                               the pool-status peer (poolstatus.mk's overlay
#                               of that release's controller) and the example
#                               driver (driver/build.sh on go-1.N.mod)
#   make upstream-check-{cluster-client,cluster-sched,controllers,poolstatus,
#        driver}-1.N            each suite against them, the tools given
#                               DRA_KUBERNETES_VERSION=1.N; the controllers
#                               suite reads controllers/KNOWN-1.N and
#                               SKIP-1.N when there are
#   make upstream-check-cluster-releases
#                               all of them for each release, then
#                               upstream-celtable-1.N; each suite timed, then
#                               "N passed, N failed" (upstream-check-gates
#                               checks every release's gates at once)
#
# The controllers peer is written against 1.37's Go API, which 1.38 keeps;
# where 1.36's differs, cmd/upstream-controllers/api_136.go stands in for
# api.go (tag k8s136): resourceclaim.NewController takes a Features value,
# devicetainteviction.New a v1beta2 DeviceTaintRuleInformer and the
# WorkloadResourceClaims gate, PodGroups are scheduling.k8s.io/v1alpha2 and
# DeviceTaintRule has no resource.k8s.io/v1 (the peer reads a v1 one of the
# input as v1beta2).  A suite a release's Go API is not ported to is named
# in REL_1.N_UNPORTED (its targets say so in one line and fail); none is.
# 1.36's ResourcePoolStatusRequest controller reads no DeviceTaintRules:
# its pool-status peer is built with export_136.go.in (REL_1.36_POOLSTATUS)
# and without views.go, which 1.36 does not have.
#
# Measured on 2026-12-07 at load average 7-15 on 2 cores, builds at nice
# 10 with the Go build cache warm: upstream-cluster-1.36 (with
# upstream-controllers) 54 s, upstream-cluster-1.38 72 s.  Suites at 1.36:
# cluster-client 25 passed, 0 failed in 118 s; controllers 32 passed,
# 0 failed, 5 skipped (controllers/KNOWN's three, SKIP-1.36's two) in
# 25-48 s.  At 1.38: cluster-client 25 passed, 0 failed in 121 s;
# controllers 34 passed, 0 failed, 3 skipped (gates 1.38 locks) in 48 s.
# Driver at 1.36: 18 passed, 0 failed (registration compares the services
# but DRAResourceHealth under 1.36, node/scenarios.bash).  poolstatus: 144
# passed, 0 failed, 19 skipped at 1.36; 121 passed, 0 failed, 42 skipped at
# 1.38 (the gates it locks, inputs it rejects).  cluster-sched at 1.36,
# seeds 1-4, with the v1alpha2 PodGroup inputs: 13 agree, 0 differ in
# 204 s (sched-gang-devices follows the members' InitialAttemptTimestamp,
# an informer race in the cluster: one earlier run tried gang-1 first).
# Cold builds were not measured with these peers.
REL_CLUSTER := upstream-cluster:./cmd/upstream-cluster upstream-controllers:./cmd/upstream-controllers
REL_1.36_POOLSTATUS := export_136.go.in
REL_CLUSTER_SUITES := cluster-client cluster-sched controllers poolstatus driver
REL_CLUSTER_CHECKS := $(foreach r,$(REL_RELEASES),$(REL_CLUSTER_SUITES:%=upstream-check-%-$(r)) \
	upstream-celtable-$(r))
REL_CLUSTER_CHECKS := $(filter-out $(foreach r,$(REL_RELEASES),$(REL_$(r)_UNPORTED:%=upstream-check-%-$(r))),$(REL_CLUSTER_CHECKS))
# The scheduling suite's PodGroup inputs are scheduling.k8s.io/v1beta1, which
# 1.37 added: 1.36 serves PodGroups as v1alpha2 only, so its suite writes
# v1alpha2 copies of them, with 1.36's GangScheduling gate on.
REL_1.36_SCHED_ENV := SCHED_GROUP_VERSION=v1alpha2 SCHED_GROUP_GATES=GenericWorkload=true,GangScheduling=true
$(foreach r,$(REL_RELEASES),$(eval $(call rel_rules,$(r),$(REL_CLUSTER_SUITES))))

.PHONY: upstream-check-cluster-releases
ifeq ($(UPSTREAM_HAVE_GO),)
upstream-check-cluster-releases:
	@echo "$@: $(UPSTREAM_NO_GO)"
else
# each release's peers first (one go build at a time), then each suite timed
upstream-check-cluster-releases:
	@$(MAKE) --no-print-directory -j1 $(foreach r,$(REL_RELEASES),upstream-cluster-$(r) \
	  $(if $(filter poolstatus,$(REL_$(r)_UNPORTED)),,upstream-poolstatus-$(r)) upstream-driver-$(r))
	@$(MAKE) --no-print-directory upstream-check UPSTREAM_CHECKS="$(REL_CLUSTER_CHECKS)"
endif
