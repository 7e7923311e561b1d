# Upstream's CEL test table run against the project's CEL (included by
# upstream.mk, after releases.mk).
#
#   make upstream-celtable       k8s.io/dynamic-resource-allocation
#                                cel/compile_test.go's table (v0.37.2):
#                                "N passed, N failed, N skipped"
#   make upstream-celtable-1.N   the same table of release 1.N (1.36, 1.38),
#                                the tools at --kubernetes-version 1.N
#
# Each case runs through cel-batch (compile error, estimated cost, actual
# cost) and cel-match (the match); tests/upstream/alloctable/run.sh
# --table cel.  Needs Go; without it each target says so in one line.
# Not part of `make check`; `make upstream-check` runs upstream-celtable.

CEL_MATCH := $(BUILD)/upstream/bin/cel-match
UPSTREAM_CHECKS += upstream-celtable

.PHONY: upstream-celtable $(foreach r,$(REL_RELEASES),upstream-celtable-$(r))

$(CEL_MATCH): $(BUILD)/obj/tests/upstream/celtable/cel-match.o $(LIB)
	@mkdir -p $(dir $@)
	$(call say,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

ifeq ($(UPSTREAM_HAVE_GO),)
upstream-celtable $(foreach r,$(REL_RELEASES),upstream-celtable-$(r)):
	@echo "$@: $(UPSTREAM_NO_GO)"
else
upstream-celtable: $(CEL_BATCH) $(CEL_MATCH)
	@GOTOOLCHAIN=local GOFLAGS=-mod=mod DRA_KUBERNETES_VERSION=1.37 GO="$(UPSTREAM_GO)" \
	  CEL_MATCH=$(CURDIR)/$(CEL_MATCH) tests/upstream/alloctable/run.sh --table cel \
	  $(CURDIR)/$(CEL_BATCH) $(CURDIR)/$(BUILD)/upstream/celtable

define celtable_rules
upstream-celtable-$(1): $(CEL_BATCH) $(CEL_MATCH)
	@$(REL_$(1)_GOENV) DRA_KUBERNETES_VERSION=$(1) GO="$(UPSTREAM_GO)" DRA_VERSION=$(REL_$(1)_DRA) \
	  CEL_MATCH=$(CURDIR)/$(CEL_MATCH) tests/upstream/alloctable/run.sh --table cel \
	  $(CURDIR)/$(CEL_BATCH) $(CURDIR)/$(BUILD)/upstream/$(1)/celtable
endef
$(foreach r,$(REL_RELEASES),$(eval $(call celtable_rules,$(r))))
endif
