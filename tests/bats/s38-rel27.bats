#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# Kubernetes 1.38's publishing helper refuses attribute and capacity names
# qualified with the driver's own domain (k8s.io/dynamic-resource-allocation
# @v0.38.0-beta.0 resourceslice/validation.go validatePool and
# validateUnqualifiedName; kubeletplugin ValidateQualifiedNames, on by
# default): dra-slice build refuses them and lint warns about them under
# --kubernetes-version 1.38, not under 1.37, which has no such check.
load helpers

setup() {
    T=$BATS_TEST_TMPDIR
    unset DRA_KUBERNETES_VERSION
    S=$DRA_BIN/dra-slice
    TOP="$BATS_TEST_DIRNAME/../.."
    cat >"$T/inv.yaml" <<'EOF'
devices:
- name: gpu-0
  attributes:
    gpu.example.com/model: {string: h100}
    other.example.com/x: {int: 1}
    index: {int: 0}
  capacity:
    gpu.example.com/memory: {value: 80Gi}
    cores: {value: "8"}
EOF
}

@test "build 1.38: a name qualified with the driver's domain is refused in upstream's words" {
    run --separate-stderr "$S" build --kubernetes-version 1.38 --driver gpu.example.com --node node-1 "$T/inv.yaml"
    assert_failure 2
    assert_output ""
    [ "${#stderr_lines[@]}" -eq 2 ]
    [ "${stderr_lines[0]}" = "dra-slice: $T/inv.yaml:4: Device/gpu-0: devices[0].attributes[gpu.example.com/model]: pool \"node-1\": device \"gpu-0\": attribute \"gpu.example.com/model\": use unqualified \"model\", the driver name is added implicitly" ]
    [ "${stderr_lines[1]}" = "dra-slice: $T/inv.yaml:8: Device/gpu-0: devices[0].capacity[gpu.example.com/memory]: pool \"node-1\": device \"gpu-0\": capacity \"gpu.example.com/memory\": use unqualified \"memory\", the driver name is added implicitly" ]
}

@test "build: the environment names the release; --pool names the pool in the message" {
    DRA_KUBERNETES_VERSION=1.38 run --separate-stderr "$S" build --driver gpu.example.com --all-nodes --pool shared "$T/inv.yaml"
    assert_failure 2
    [[ $stderr == *'pool "shared": device "gpu-0": attribute "gpu.example.com/model": use unqualified "model"'* ]]
}

@test "build: 1.37 and 1.36 take the qualified names, 1.38 with --no-validate-qualified-names too" {
    for v in 1.36 1.37; do
        run --separate-stderr "$S" build --kubernetes-version "$v" --driver gpu.example.com --node node-1 "$T/inv.yaml"
        assert_success
        assert_output --partial "gpu.example.com/model:"
    done
    run --separate-stderr "$S" build --driver gpu.example.com --node node-1 "$T/inv.yaml"
    assert_success
    first=$output
    run --separate-stderr "$S" build --kubernetes-version 1.38 --no-validate-qualified-names --driver gpu.example.com --node node-1 "$T/inv.yaml"
    assert_success
    assert_equal "$output" "$first"
    # another driver's domain is not the driver's own
    run --separate-stderr "$S" build --kubernetes-version 1.38 --driver net.example.com --node node-1 "$T/inv.yaml"
    assert_success
}

@test "build: --feature-gates adjusts the release's table; a gate 1.38 locks keeps upstream's wording" {
    run --separate-stderr "$S" build --kubernetes-version 1.38 --feature-gates NoSuchGate=true --driver gpu.example.com --node node-1 "$T/inv.yaml"
    assert_failure 2
    [[ $stderr == *"unrecognized feature gate: NoSuchGate"* ]]
}

@test "build: slices are validated at the release given (1.38: one slash at most)" {
    printf 'devices:\n- name: d\n  attributes:\n    a.example.com/b/c: {int: 1}\n' >"$T/slash.yaml"
    run --separate-stderr "$S" build --kubernetes-version 1.38 --driver gpu.example.com --node node-1 "$T/slash.yaml"
    assert_failure 2
    [[ $stderr == *"must not contain more than one slash"* ]]
}

@test "lint 1.38: qualified names are warnings, not problems; none under 1.37 or with the opt-out" {
    "$S" build --driver gpu.example.com --node node-1 "$T/inv.yaml" >"$T/s.yaml"
    run --separate-stderr "$S" lint "$T/s.yaml"
    assert_success
    assert_output ""
    run --separate-stderr "$S" lint --kubernetes-version 1.38 "$T/s.yaml"
    assert_success
    assert_line --index 0 --regexp '^pool gpu.example.com/node-1: ResourceSlice/[^:]+: warning: spec.devices\[0\].attributes\[gpu.example.com/model\]: pool "node-1": device "gpu-0": attribute "gpu.example.com/model": use unqualified "model", the driver name is added implicitly$'
    assert_line --index 1 --partial 'warning: spec.devices[0].capacity[gpu.example.com/memory]: pool "node-1": device "gpu-0": capacity "gpu.example.com/memory": use unqualified "memory"'
    [ "${#lines[@]}" -eq 2 ]
    DRA_KUBERNETES_VERSION=1.38 run --separate-stderr "$S" lint --no-validate-qualified-names "$T/s.yaml"
    assert_success
    assert_output ""
    DRA_KUBERNETES_VERSION=1.38 run --separate-stderr "$S" lint -o jsonl "$T/s.yaml"
    assert_success
    [ "$(grep -c '"severity":"warning"' <<<"$output")" -eq 2 ]
}

@test "build and lint --help name the release and the opt-out" {
    for c in build lint; do
        run "$S" "$c" --help
        assert_success
        assert_output --partial "--kubernetes-version"
        assert_output --partial "--no-validate-qualified-names"
        assert_output --partial "--feature-gates"
    done
}

@test "build read whole (stdin) refuses the names as the streamed build does" {
    run --separate-stderr "$S" build --kubernetes-version 1.38 --driver gpu.example.com --node node-1 <"$T/inv.yaml"
    assert_failure 2
    assert_output ""
    [[ ${stderr_lines[0]} == *'Device/gpu-0: devices[0].attributes[gpu.example.com/model]: pool "node-1": device "gpu-0": attribute "gpu.example.com/model": use unqualified "model", the driver name is added implicitly' ]]
    [ "${#stderr_lines[@]}" -eq 2 ]
}

@test "lint takes the release from a snapshot of a 1.38 server; a bad release is a usage error" {
    "$S" build --driver gpu.example.com --node node-1 -o jsonl "$T/inv.yaml" >"$T/s.jsonl"
    { jq -nc '{apiVersion: "dra-tools.io/v1alpha1", kind: "Snapshot", metadata: {name: "snapshot"},
        serverVersion: {major: "1", minor: "38", gitVersion: "v1.38.0", platform: "linux/amd64"}}'
      cat "$T/s.jsonl"; } >"$T/snap.jsonl"
    run --separate-stderr "$S" lint "$T/snap.jsonl"
    assert_success
    [ "${#lines[@]}" -eq 2 ]
    assert_line --index 0 --partial 'warning: spec.devices[0].attributes[gpu.example.com/model]: pool "node-1"'
    run --separate-stderr "$S" lint --kubernetes-version 1.37 "$T/snap.jsonl"
    assert_success
    assert_output ""
    for c in "build --driver gpu.example.com --node node-1" lint; do
        run --separate-stderr "$S" $c --kubernetes-version 1.35 "$T/s.jsonl"
        assert_failure 2
        assert_equal "$stderr" 'dra-slice: --kubernetes-version: unknown Kubernetes version "1.35" (known: 1.36, 1.37, 1.38)'
    done
}

@test "every tool whose completion offers --feature-gates has the gate lists of 1.36, 1.37 and 1.38 in its page" {
    local n=0
    for bin in "$DRA_BIN"/dra-*; do
        "$bin" --completion bash 2>/dev/null | grep -q -- '--feature-gates' || continue
        page=$TOP/man/$(basename "$bin").1
        [ -f "$page" ] || { echo "$page: missing"; false; }
        for r in 1.36 1.37 1.38; do
            # one list per release, between the generated markers
            run awk -v r="$r" '/^\.\\" BEGIN gates/ { on = 1 } /^\.\\" END gates/ { on = 0 }
                on && $0 == ".B Kubernetes " r { c++ } END { print c + 0 }' "$page"
            [ "$output" = 1 ] || { echo "$page: $output lists of $r"; false; }
        done
        n=$((n + 1))
    done
    [ "$n" -ge 6 ] # dra-alloc, -claim, -evict, -prepare, -select, -slice
    # their rows are what `dra-slice gates` prints: s34-rel27.bats
}
