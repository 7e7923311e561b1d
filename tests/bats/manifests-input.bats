#!/usr/bin/env bats
# Manifests as people have them (issue 9, input side): strict fields, typed
# Lists, limits-only extended resources, ownerReferences, admin access,
# duplicates, directories, templates.
bats_require_minimum_version 1.5.0
load helpers

setup() {
    M="$DATA/manifests"
    T="$BATS_TEST_TMPDIR"
    NOW=(--now 2026-03-01T10:00:00Z)
}

fleet() {
    "$DRA_BIN/dra-slice" profile gpu --nodes "${1:-2}" --devices "${2:-2}" >"$T/fleet.yaml"
}

@test "strict decoding: unknown fields are errors naming their path, as kubectl --validate=strict" {
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$M/slice-v1beta1-shape.yaml" "$M/claim-typo.yaml"
    assert_failure 2
    [[ $stderr == *'slice-v1beta1-shape.yaml:16: ResourceSlice/node-a-gpus: unknown field "spec.devices[0].basic"'* ]]
    [[ $stderr == *'claim-typo.yaml:13: ResourceClaim/gpu-demo/three-gpus: unknown field "spec.devices.requests[0].exactly.countt"'* ]]
    # the same in every tool that reads the claim
    for t in "dra-claim status" "dra-evict" "dra-select lint" "dra-alloc schedule"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$DRA_BIN/"$t "$M/claim-typo.yaml"
        [[ $status -eq 2 && $stderr == *'unknown field "spec.devices.requests[0].exactly.countt"'* ]] || { echo "$t: $status $stderr"; false; }
    done
}

@test "strict decoding: --validate=warn warns and drops, ignore is silent, bad values are usage errors" {
    run --separate-stderr "$DRA_BIN/dra-slice" validate --validate=warn "$M/claim-typo.yaml"
    assert_success
    [[ $stderr == *'dra-slice: warning: '*'claim-typo.yaml:13: ResourceClaim/gpu-demo/three-gpus: unknown field "spec.devices.requests[0].exactly.countt"'* ]]
    run --separate-stderr "$DRA_BIN/dra-claim" status -o json --validate=ignore "$M/claim-typo.yaml"
    assert_success
    [[ -z $stderr ]]
    [[ $output != *countt* ]]
    run --separate-stderr "$DRA_BIN/dra-slice" validate --validate=false "$M/claim-typo.yaml"
    assert_success
    run --separate-stderr "$DRA_BIN/dra-slice" validate --validate=loose "$M/claim-typo.yaml"
    assert_failure 2
    [[ $stderr == *'invalid --validate value "loose": must be one of: strict (or true), warn, ignore (or false)'* ]]
}

@test "strict decoding: duplicate fields are errors; warn keeps the last value" {
    cat >"$T/dup.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selectors:
  - cel:
      expression: "device.driver == 'gpu.example.com'"
      expression: "device.driver == 'other.example.com'"
YAML
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$T/dup.yaml"
    assert_failure 2
    [[ $stderr == *'dup.yaml:9:7: duplicate field "spec.selectors[0].cel.expression"'* ]]
    run --separate-stderr "$DRA_BIN/dra-select" lint --validate=warn "$T/dup.yaml"
    [[ $stderr == *'warning: '*'duplicate field "spec.selectors[0].cel.expression"'* ]]
    printf '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"a","name":"b"}}\n' >"$T/dup.json"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$T/dup.json"
    assert_failure 2
    run --separate-stderr "$DRA_BIN/dra-slice" validate --validate=ignore "$T/dup.json"
    assert_success
}

@test "typed Lists: items take kind and apiVersion from the List" {
    run --separate-stderr "$DRA_BIN/dra-claim" status "$M/claims-typed-list.json"
    assert_success
    assert_line --regexp '^gpu-demo +shared-gpu +pending'
    assert_line --regexp '^gpu-demo +two-gpus +pending'
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$M/claims-typed-list.json"
    assert_success
}

@test "extended resources under limits only are requested, as the API server defaults a Pod" {
    fleet 1 2
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule "${NOW[@]}" -o json "$M/pod-extended-limits.yaml" "$M/deviceclass.yaml" "$T/fleet.yaml"
    assert_success
    [[ $stderr != *"no extended resources backed by DRA"* ]]
    [[ $output == *'"resourceName": "example.com/gpu"'* ]]
    [[ $output == *'"resourceName": "deviceclass.resource.kubernetes.io/gpu.example.com"'* ]]
    [[ $output == *'"nodeName": "node-0"'* ]]
}

@test "ownerReferences are validated as the API server does" {
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$M/claim-bad-owner.yaml"
    assert_failure 2
    [[ $stderr == *'claim-bad-owner.yaml:7: ResourceClaim/gpu-demo/trainer-gpu-x7k2p: metadata.ownerReferences[0].uid: Required value: must not be empty'* ]]
    [[ $stderr == *'Only one reference can have Controller set to true. Found "true" in references for Pod/trainer and Job/trainer'* ]]
}

@test "admin access: refused without the namespace label; said to be unchecked without the Namespace" {
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$M/admin-access.yaml"
    assert_failure 2
    [[ $stderr == *'ResourceClaimTemplate/gpu-monitoring/all-gpus-admin: spec.devices.requests[0].adminAccess: Forbidden: admin access to devices requires the `resource.kubernetes.io/admin-access: true` label on the containing namespace'* ]]
    sed 's/team: observability/resource.kubernetes.io\/admin-access: "true"/' "$M/admin-access.yaml" >"$T/labelled.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$T/labelled.yaml"
    assert_success
    [[ -z $stderr ]]
    sed '1,7d' "$M/admin-access.yaml" >"$T/no-ns.yaml"
    run --separate-stderr "$DRA_BIN/dra-claim" status "$T/no-ns.yaml"
    assert_success
    [[ $stderr == *'warning: '*'admin access could not be checked: Namespace gpu-monitoring is not in the input'* ]]
}

@test "identical duplicates collapse (with -v), conflicting ones are errors" {
    cp "$M/gpu-demo.yaml" "$T/step1.yaml"
    cp "$M/deviceclass.yaml" "$T/step2.yaml"
    { echo "---"; cat "$M/deviceclass.yaml"; } >>"$T/step1.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" validate -v "$T/step1.yaml" "$T/step2.yaml" "$T/step2.yaml"
    assert_success
    [[ $stderr == *"1 object given more than once, identical: counted once"* ]]
    [[ $stderr == *"1 file named more than once: read once"* ]]
    sed 's/example.com\/gpu/example.com\/accelerator/' "$M/deviceclass.yaml" >"$T/changed.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$M/deviceclass.yaml" "$T/changed.yaml"
    assert_failure 2
    [[ $stderr == *"changed.yaml:1: DeviceClass/gpu.example.com: duplicate object DeviceClass/gpu.example.com, first defined at"* ]]
}

@test "directories are read as kubectl reads them; -R recurses" {
    mkdir -p "$T/demo/extra"
    cp "$M/deviceclass.yaml" "$T/demo/"
    cp "$M/claims-typed-list.json" "$T/demo/extra/"
    echo "not a manifest" >"$T/demo/NOTES.txt"
    run --separate-stderr "$DRA_BIN/dra-claim" status "$T/demo"
    assert_success
    refute_output --partial two-gpus
    run --separate-stderr "$DRA_BIN/dra-claim" status -R "$T/demo"
    assert_success
    assert_line --regexp '^gpu-demo +two-gpus'
}

@test "an unrendered Helm template gets a hint instead of a bare syntax error" {
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$M/helm-claim-template.yaml"
    assert_failure 2
    [[ $stderr == *'helm-claim-template.yaml:4:'*'(the file looks like a Helm or Go template: "{{" at line 4; render it first, e.g. with helm template)'* ]]
}

@test "-v says what was skipped, in every tool" {
    printf 'apiVersion: v1\nkind: Service\nmetadata: {name: inference, namespace: gpu-demo}\nspec:\n  selector: {app: inference}\n  ports: [{port: 8080}]\n' >"$T/svc.yaml"
    for t in "dra-slice validate" "dra-slice lint" "dra-claim status" "dra-evict" "dra-select lint" "dra-alloc schedule"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$DRA_BIN/"$t -v "$M/gpu-demo.yaml" "$M/deviceclass.yaml" "$T/svc.yaml"
        [[ $stderr == *"skipped "*" of kinds "*" does not use"* ]] || { echo "$t: $status $stderr"; false; }
    done
}

@test "errors name the line of the offending field, in YAML, JSON Lists and JSON Lines" {
    cat >"$T/multi.yaml" <<'EOF'
# a namespace first, so the slice is document 2
apiVersion: v1
kind: Namespace
metadata:
  name: gpu-demo
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: node-a
spec:
  driver: gpu.example.com
  nodeName: node-a
  pool: {name: node-a, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes:
      model: {string: x}
  - name: gpu-1
    capacity:
      memory:
        value: 80Gi
        valu: 1
EOF
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$T/multi.yaml"
    assert_failure 2
    [[ $stderr == *'multi.yaml:23 (document 2): ResourceSlice/node-a: unknown field "spec.devices[1].capacity.memory.valu"'* ]]
    # validation errors: a v1beta1 claim, its v1 paths found through the missing `exactly`
    cat >"$T/beta.yaml" <<'EOF'
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata:
  name: c
  namespace: gpu-demo
spec:
  devices:
    requests:
    - name: ok
      deviceClassName: gpu.example.com
    - name: bad
      deviceClassName: gpu.example.com
      allocationMode: ExactCount
      count: -2
EOF
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$T/beta.yaml"
    assert_failure 2
    [[ $stderr == *'beta.yaml:14: ResourceClaim/gpu-demo/c: spec.devices.requests[1].exactly.count: Invalid value: -2'* ]]
    # a kubectl -o json List: the item's field, not the List's first line
    cat >"$T/list.json" <<'EOF'
{
  "apiVersion": "v1",
  "kind": "List",
  "items": [
    {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "a"}},
    {
      "apiVersion": "resource.k8s.io/v1",
      "kind": "DeviceClass",
      "metadata": {"name": "b"},
      "spec": {
        "selectors": [
          {"cel": {"expression": "true"}},
          {"cel": {"expresion": "false"}}
        ]
      }
    }
  ]
}
EOF
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$T/list.json"
    assert_failure 2
    [[ $stderr == *'list.json:13: DeviceClass/b: unknown field "spec.selectors[1].cel.expresion"'* ]]
    # JSON Lines from stdin; a warning under --validate=warn has the same line
    printf '%s\n' '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"a"}}' \
        '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"b","labelz":{}}}' >"$T/x.jsonl"
    run --separate-stderr "$DRA_BIN/dra-slice" validate --validate=warn - <"$T/x.jsonl"
    assert_success
    [[ $stderr == *'warning: <stdin>:2 (document 2): DeviceClass/b: unknown field "metadata.labelz"'* ]]
    # a path the text does not have (a defaulted field) falls back to the deepest part that is there
    cat >"$T/sel.yaml" <<'EOF'
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: c
spec:
  selectors:
  - cel:
      expression: >-
        device.attributes["gpu.example.com"].model ==
EOF
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$T/sel.yaml"
    assert_failure 2
    [[ $stderr == *'sel.yaml:8: DeviceClass/c: spec.selectors[0].cel.expression: Invalid value: '* ]]
}
