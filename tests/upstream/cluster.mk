# The real control plane as a test peer (included by upstream.mk).
#
#   make upstream-cluster         build/upstream/bin/upstream-cluster: etcd (embedded),
#                                 kube-apiserver, kube-scheduler, kube-controller-manager
#                                 and kubectl of Kubernetes 1.37.2 in one program (and
#                                 build/upstream/bin/kubectl, a link to it); run it with
#                                 tests/upstream/cluster.sh start|stop DIR
#   make upstream-check-cluster-client
#                                 the client suite (dra-watch, kubectl dra, deploy/)
#   make upstream-check-cluster-sched
#                                 the scheduling suite (dra-alloc schedule against
#                                 kube-scheduler) on the inputs of tests/ and examples/,
#                                 the PodGroup inputs of tests/upstream/cluster/inputs
#                                 (GenericWorkload on) and the random clusters of gen.py
#                                 seeds 1 to CLUSTER_SCHED_SEEDS (4; 40 in
#                                 `make upstream-check-full`)
#   make upstream-check-cluster   both (tests/upstream/cluster/run.sh)
#
# Both suites are part of `make upstream-check`, and so of CI.  Without Go each
# says in one line that it was skipped.  Cost: upstream-cluster is 2,493
# packages of 174 modules; its cold build took 800 CPU seconds (user+sys;
# every other peer then adds 26), a warm one (link only) 20; the client suite
# ran in 136 s (21 tests; 23 CPU s, the control plane 19 more), the scheduling
# suite in 159 s (9 inputs, a fresh cluster each; 24 + 33 CPU s; its 4 PodGroup
# inputs add 102 s, 12 CPU s, at load average 10): both mostly
# wait on the control plane (2 cores at load average 15-23).
CLUSTER_SCHED_SEEDS ?= 4
UPSTREAM_CHECKS += upstream-check-cluster-client upstream-check-cluster-sched
UPSTREAM_FULL_FLAGS += CLUSTER_SCHED_SEEDS=40
CLUSTER_RUN = DRA_BIN=$(CURDIR)/$(BUILD)/bin UPSTREAM_BIN=$(CURDIR)/$(UPSTREAM_BIN) tests/upstream/cluster/run.sh
CLUSTER_TOOLS = $(BUILD)/bin/dra-watch $(BUILD)/bin/dra-alloc $(BUILD)/bin/dra-claim $(BUILD)/bin/dra-prepare \
                $(BUILD)/bin/dra-example-driver

.PHONY: upstream-cluster upstream-check-cluster upstream-check-cluster-client upstream-check-cluster-sched \
        bench-upstream-watch

upstream-cluster:
ifeq ($(UPSTREAM_HAVE_GO),)
	@echo "upstream-cluster: skipped: no Go toolchain ('$(UPSTREAM_GO)' not found) to build the control plane"
else
	$(call upstream_go_build,$(UPSTREAM_BIN)/upstream-cluster,./cmd/upstream-cluster)
	$(Q)ln -sf upstream-cluster $(UPSTREAM_BIN)/kubectl
endif

ifeq ($(UPSTREAM_HAVE_GO),)
upstream-check-cluster upstream-check-cluster-client upstream-check-cluster-sched:
	@echo "$@: skipped: no Go toolchain ('$(UPSTREAM_GO)' not found)"
else
upstream-check-cluster: $(CLUSTER_TOOLS) upstream-cluster
	@SCHED_SEEDS="$(shell seq 1 $(CLUSTER_SCHED_SEEDS))" $(CLUSTER_RUN)

upstream-check-cluster-client: $(CLUSTER_TOOLS) upstream-cluster
	@CLUSTER_SUITES=client $(CLUSTER_RUN)

upstream-check-cluster-sched: $(BUILD)/bin/dra-alloc upstream-cluster
	@CLUSTER_SUITES=scheduling SCHED_SEEDS="$(shell seq 1 $(CLUSTER_SCHED_SEEDS))" $(CLUSTER_RUN)
endif

bench-upstream-watch: $(BUILD)/bin/dra-watch $(BUILD)/bin/dra-slice upstream-cluster
ifeq ($(UPSTREAM_HAVE_GO),)
	@echo "bench-upstream-watch: skipped: no Go toolchain ('$(UPSTREAM_GO)' not found)"
else
	@bench/watch-upstream.sh $(CURDIR)/$(BUILD)/bin $(CURDIR)/$(UPSTREAM_BIN) $(CURDIR)/build/upstream/bench-watch
endif
