# The real control plane as a test peer (included by the Makefile after peers.mk).
#
#   make upstream-cluster         build/upstream/bin/upstream-cluster: etcd (embedded),
#                                 kube-apiserver, kube-scheduler, kube-controller-manager
#                                 and kubectl of Kubernetes 1.37.2 in one program (and
#                                 build/upstream/bin/kubectl, a link to it); run it with
#                                 tests/upstream/cluster.sh start|stop DIR
#   make upstream-check-cluster   the client suite (dra-watch, kubectl dra, deploy/)
#                                 and the scheduling suite (dra-alloc schedule against
#                                 kube-scheduler): tests/upstream/cluster/run.sh
#
# Without Go each says in one line that it was skipped.  Not part of `make check`
# nor of `make upstream`: a cold build takes half an hour on two busy cores.
.PHONY: upstream-cluster upstream-check-cluster bench-upstream-watch

upstream-cluster:
ifeq ($(UPSTREAM_HAVE_GO),)
	@echo "upstream-cluster: skipped: no Go toolchain ('$(UPSTREAM_GO)' not found) to build the control plane"
else
	$(call upstream_go_build,$(UPSTREAM_BIN)/upstream-cluster,./cmd/upstream-cluster)
	$(Q)ln -sf upstream-cluster $(UPSTREAM_BIN)/kubectl
endif

upstream-check-cluster: $(BUILD)/bin/dra-watch $(BUILD)/bin/dra-alloc $(BUILD)/bin/dra-claim upstream-cluster
ifeq ($(UPSTREAM_HAVE_GO),)
	@echo "upstream-check-cluster: skipped: no Go toolchain ('$(UPSTREAM_GO)' not found)"
else
	@DRA_BIN=$(CURDIR)/$(BUILD)/bin UPSTREAM_BIN=$(CURDIR)/$(UPSTREAM_BIN) tests/upstream/cluster/run.sh
endif

bench-upstream-watch: $(BUILD)/bin/dra-watch $(BUILD)/bin/dra-slice upstream-cluster
ifeq ($(UPSTREAM_HAVE_GO),)
	@echo "bench-upstream-watch: skipped: no Go toolchain ('$(UPSTREAM_GO)' not found)"
else
	@bench/watch-upstream.sh $(CURDIR)/$(BUILD)/bin $(CURDIR)/$(UPSTREAM_BIN) $(CURDIR)/build/upstream/bench-watch
endif
