# The validate peer (included by upstream.mk, which defines UPSTREAM_GO,
# UPSTREAM_BIN, UPSTREAM_GOENV):
#
#   make upstream-validate-peer    build upstream-validate (the API server's
#                                  validation) and the suite's runner
#   make upstream-check-validate   dra-slice validate against it
#                                  (tests/upstream/validate/run.sh)
UPSTREAM_PEERS += upstream-validate-peer
UPSTREAM_CHECKS += upstream-check-validate

.PHONY: upstream-validate-peer upstream-check-validate

upstream-validate-peer:
ifeq ($(UPSTREAM_HAVE_GO),)
	@echo "$(UPSTREAM_NO_GO)"
else
	$(call upstream_go_build,$(UPSTREAM_BIN)/upstream-validate,./cmd/upstream-validate)
	$(call upstream_go_build,$(UPSTREAM_BIN)/upstream-validate-diff,./validate)
endif

upstream-check-validate: $(BUILD)/bin/dra-slice $(if $(UPSTREAM_HAVE_GO),upstream-validate-peer)
ifeq ($(UPSTREAM_HAVE_GO),)
	@echo "$(UPSTREAM_NO_GO)"
else
	@DRA_BIN=$(CURDIR)/$(BUILD)/bin UPSTREAM_BIN=$(CURDIR)/$(UPSTREAM_BIN) tests/upstream/validate/run.sh
endif
