#!/usr/bin/env bats
# Devices converted for CEL lazily: a selector's compiled plan reads only the
# attributes and capacities it names, and answers as the general evaluator
# does on the device converted in full (values off the quick paths: a
# pre-release version, a decimal quantity; a qualified attribute of the
# driver's own domain; a missing capacity).
load helpers
bats_require_minimum_version 1.5.0

setup() {
    cat >"$BATS_TEST_TMPDIR/slice.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: s1
spec:
  driver: gpu.example.com
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  allNodes: true
  devices:
  - name: ok
    attributes:
      model: {string: a100}
      driverVersion: {version: 1.2.3}
    capacity:
      memory: {value: 80Gi}
  - name: nocap
    attributes:
      model: {string: a100}
      gpu.example.com/driverVersion: {version: 1.0.0}
  - name: pre
    attributes:
      model: {string: h100}
      driverVersion: {version: 2.0.0-rc.1}
    capacity:
      memory: {value: 1.5Gi}
YAML
}

S() { "$DRA_BIN/dra-select" "$@"; }

# plan and general evaluator (the same test inside a macro) on the slice
both() {
    run --separate-stderr S -e "$1" "$BATS_TEST_TMPDIR/slice.yaml"
    plan_status=$status plan_out=$output plan_err=$stderr
    run --separate-stderr S -e "[device].exists(d, ${1//device./d.})" "$BATS_TEST_TMPDIR/slice.yaml"
    [[ $status == "$plan_status" && $output == "$plan_out" ]]
}

@test "lazy30: a version attribute, pre-release included, through a plan and the evaluator" {
    both 'device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.5.0"))'
    [[ $plan_status == 0 && $plan_out == gpu.example.com/p/pre ]]
    both 'device.attributes["gpu.example.com"].driverVersion.major() == 1'
    [[ $plan_status == 0 && $plan_out == $'gpu.example.com/p/ok\ngpu.example.com/p/nocap' ]]
}

@test "lazy30: a capacity compareTo, a decimal quantity and a missing one" {
    both 'device.capacity["gpu.example.com"].memory.compareTo(quantity("2Gi")) < 0'
    [[ $plan_status == 2 && $plan_out == gpu.example.com/p/pre ]]
    [[ $plan_err == *"on device gpu.example.com/p/nocap: CEL runtime error: no such key: memory."* ]]
}

@test "lazy30: driver, string attribute and has() agree with the evaluator" {
    both 'device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].model == "a100"'
    [[ $plan_status == 0 && $plan_out == $'gpu.example.com/p/ok\ngpu.example.com/p/nocap' ]]
    both 'has(device.capacity["gpu.example.com"].memory)'
    [[ $plan_status == 0 && $plan_out == $'gpu.example.com/p/ok\ngpu.example.com/p/pre' ]]
}
