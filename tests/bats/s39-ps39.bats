#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# dra-slice pool-status under 1.36: its ResourcePoolStatusRequest controller
# (k8s.io/kubernetes@v1.36.3 pkg/controller/resourcepoolstatusrequest/
# controller.go) counts every allocation result, reads no taint, prefixes no
# validationError, has no views and no spec.defaultPartitionTypeAttribute.
load helpers

setup() {
    W="$BATS_TEST_TMPDIR"
    unset DRA_KUBERNETES_VERSION
    cat >"$W/in.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s-a}
spec:
  driver: gpu.example.com
  nodeName: node-a
  pool: {name: node-a, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    taints: [{key: broken, effect: NoSchedule}]
  - name: gpu-1
  - name: gpu-2
  - name: gpu-3
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s-b}
spec:
  driver: gpu.example.com
  nodeName: node-b
  pool: {name: node-b, generation: 1, resourceSliceCount: 2}
  devices:
  - name: gpu-0
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c1, namespace: ns}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu}
status:
  allocation:
    devices:
      results:
      - {request: gpu, driver: gpu.example.com, pool: node-a, device: gpu-1}
      - {request: gpu, driver: gpu.example.com, pool: node-a, device: gpu-2}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c2, namespace: ns}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu, adminAccess: true}
status:
  allocation:
    devices:
      results:
      - {request: gpu, driver: gpu.example.com, pool: node-a, device: gpu-1, adminAccess: true}
---
apiVersion: resource.k8s.io/v1alpha3
kind: ResourcePoolStatusRequest
metadata: {name: req}
spec: {driver: gpu.example.com, defaultPartitionTypeAttribute: gpu.example.com/shape}
YAML
}

# pool-status of in.yaml under release $1: the spec and the pools
pools() {
    run --separate-stderr "$DRA_BIN/dra-slice" pool-status --kubernetes-version "$1" -o json --now 2026-01-01T00:00:00Z "$W/in.yaml"
    assert_success
    output=$(jq -c '{spec, pools: [.status.pools[] | del(.driver, .nodeName, .generation)]}' <<<"$output")
}

@test "pool-status 1.36: every result counted, no taint, no prefix, no views" {
    pools 1.36
    assert_output '{"spec":{"driver":"gpu.example.com"},"pools":[{"poolName":"node-a","resourceSliceCount":1,"totalDevices":4,"allocatedDevices":3,"availableDevices":1,"unavailableDevices":0},{"poolName":"node-b","validationError":"pool gpu.example.com/node-b is incomplete: observed 1/2 slices at generation 1"}]}'
}

@test "pool-status 1.37: distinct devices, admin access left out, taints, prefix, views" {
    pools 1.37
    assert_output '{"spec":{"driver":"gpu.example.com","defaultPartitionTypeAttribute":"gpu.example.com/shape"},"pools":[{"poolName":"node-a","resourceSliceCount":1,"totalDevices":4,"allocatedDevices":2,"availableDevices":1,"unavailableDevices":1,"validationError":"PartitionTypeMissing: pool gpu.example.com/node-a declares partitionTypeAttribute but publishes no sharedCounters"},{"poolName":"node-b","validationError":"PoolIncomplete: pool gpu.example.com/node-b is incomplete: observed 1/2 slices at generation 1"}]}'
}
