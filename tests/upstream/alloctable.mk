# Upstream's own tests run against the tools (included by upstream.mk).
#
#   make upstream-alloctable   upstream's allocator test table through
#                              dra-alloc: "N passed, N failed, N skipped"
#
# Needs Go; the pinned upstream module and what it needs come from the Go
# module cache, else from the module proxy.  Without Go it says so in one
# line and does nothing.  Not part of `make check`.

GO ?= $(UPSTREAM_GO)
UPSTREAM_CHECKS += upstream-alloctable

.PHONY: upstream-alloctable
upstream-alloctable:
	@if ! command -v "$(GO)" >/dev/null 2>&1; then \
	  echo "upstream-alloctable: skipped: no Go toolchain ('$(GO)' not found; set GO=/path/to/go)"; \
	else \
	  $(MAKE) -s --no-print-directory $(BUILD)/bin/dra-alloc && \
	  GO="$(GO)" tests/upstream/alloctable/run.sh $(CURDIR)/$(BUILD)/bin/dra-alloc $(CURDIR)/$(BUILD)/upstream/alloctable; \
	fi
