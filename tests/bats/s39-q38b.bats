#!/usr/bin/env bats
# Every quantity the allocator reads parsed by the release's rules: the
# 1.38 scheduler decodes slices and claims with apimachinery
# v0.38.0-beta.0, whose ParseQuantity keeps 29 significant digits rounded
# away from zero (resource/quantity.go), so a 30-digit capacity, request,
# counter or selector constant ending in 1 or 2 becomes ...010 there.
# The expectations are upstream-alloc's of 1.37.2 and 1.38.0-beta.0
# (make upstream-1.38, build/upstream/1.38/bin/upstream-alloc).
bats_require_minimum_version 1.5.0
load helpers

setup() {
    T=$BATS_TEST_TMPDIR
}

# A node, the class gpu and, after them, the documents given.
cluster() { # cluster YAML
    yaml_node
    yaml_gpu_class
    printf '%s\n' "$1"
}

slice() { # slice DEVICES-YAML [COUNT]
    yaml_gpu_slice "$@"
}

claim() { # claim EXACTLY-YAML
    cat <<EOF
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c1, namespace: default}
spec:
  devices:
    requests:
    - name: r
      exactly:
        deviceClassName: gpu
$1
EOF
}

# alloc FILE: dra-alloc under 1.37 (no answer) and under 1.38 (gpu-0)
alloc() {
    run "$DRA_BIN/dra-alloc" --kubernetes-version 1.37 --node node-1 -o jsonl "$1"
    assert_failure 1
    run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version 1.38 --node node-1 -o jsonl "$1"
    assert_success
    run jq -c '.status.allocation.devices.results[] | [.device, .consumedCapacity]' <<<"$output"
}

@test "a 30-digit capacity request fits a 30-digit capacity under 1.38 only" {
    dev='  - name: gpu-0
    allowMultipleAllocations: true
    capacity:
      mem: {value: "100000000000000000000000000001"}'
    req='        capacity:
          requests:
            mem: "100000000000000000000000000002"'
    { cluster "$(slice "$dev")"; claim "$req"; } >"$T/in.yaml"
    alloc "$T/in.yaml"
    assert_output '["gpu-0",{"mem":"100000000000000000000000000010"}]'
}

@test "a 30-digit counter consumption fits a 30-digit shared counter under 1.38 only" {
    dev='  - name: gpu-0
    consumesCounters:
    - counterSet: set
      counters:
        mem: {value: "100000000000000000000000000002"}'
    counters='apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: counters}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: p, generation: 1, resourceSliceCount: 2}
  sharedCounters:
  - name: set
    counters:
      mem: {value: "100000000000000000000000000001"}
---'
    { cluster "$(slice "$dev" 2)
$counters"; claim ''; } >"$T/in.yaml"
    alloc "$T/in.yaml"
    assert_output '["gpu-0",null]'
}

@test "a selector sees a 30-digit device capacity as the release parsed it" {
    dev='  - name: gpu-0
    capacity:
      mem: {value: "100000000000000000000000000001"}'
    sel='        selectors:
        - cel: {expression: '\''device.capacity["gpu.example.com"].mem == quantity("100000000000000000000000000010")'\''}'
    { cluster "$(slice "$dev")"; claim "$sel"; } >"$T/in.yaml"
    alloc "$T/in.yaml"
    assert_output '["gpu-0",null]'
}

@test "a duplicate request's value shows its quantities as the release parsed them" {
    req='    - name: r
      exactly:
        deviceClassName: gpu
        capacity:
          requests:
            mem: "100000000000000000000000000002"'
    printf 'apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c1, namespace: default}\nspec:\n  devices:\n    requests:\n%s\n%s\n' \
        "$req" "$req" >"$T/c.yaml"
    # upstream-validate of 1.37.2 and of 1.38.0-beta.0
    for r in 1.37:100000000000000000000000000002 1.38:100000000000000000000000000010; do
        run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version "${r%%:*}" "$T/c.yaml"
        assert_failure 2
        [[ $stderr == *'spec.devices.requests[1]: Duplicate value: {"name":"r",'*'"capacity":{"requests":{"mem":"'"${r#*:}"'"}}}}'* ]]
    done
}

@test "1.38 bounds the scale gap of consumed capacity: 1n and 1e40 exceed a capacity of 1e40" {
    dev='  - name: gpu-0
    allowMultipleAllocations: true
    capacity:
      mem: {value: "1e40"}'
    req() { printf '    - name: %s\n      exactly:\n        deviceClassName: gpu\n        capacity:\n          requests:\n            mem: "%s"\n' "$1" "$2"; }
    { cluster "$(slice "$dev")"
      printf 'apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c1, namespace: default}\nspec:\n  devices:\n    requests:\n'
      req a 1n; req b 1e40; } >"$T/in.yaml"
    # 1e40 + 1n is 1e40 + 1e11 there (amount.go boundScaleGap), and
    # exact (50 digits) under 1.37, past the capacity either way: neither
    # upstream-alloc can allocate
    for r in 1.37 1.38; do
        run "$DRA_BIN/dra-alloc" --kubernetes-version $r --node node-1 -o jsonl "$T/in.yaml"
        assert_failure 1
    done
}

@test "a range's min + step of 50 digits is checked against the capacity" {
    cat >"$T/s.yaml" <<'EOF'
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s1}
spec:
  driver: gpu.example.com
  nodeName: node-a
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  devices:
  - name: d0
    allowMultipleAllocations: true
    capacity:
      mem:
        value: "1e40"
        requestPolicy:
          default: "1e40"
          validRange: {min: "1e40", step: "1n"}
EOF
    # upstream-validate of 1.37.2 (1.38.0-beta.0 stops at the milli check)
    run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version 1.37 "$T/s.yaml"
    assert_failure 2
    [[ $stderr == *'validRange.step: Invalid value: "1n": one step 10000000000000000000000000000000000000000000000001e-9 is larger than capacity value: 10e39'* ]]
}
