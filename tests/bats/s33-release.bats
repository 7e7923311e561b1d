#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# --kubernetes-version 1.36|1.37|1.38: each release's feature gate table,
# the variable, the release a snapshot records, dra-slice gates, and the
# gate tables of the man pages.
load helpers

setup() {
    W="$BATS_TEST_TMPDIR"
    unset DRA_KUBERNETES_VERSION
    printf 'apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\n' >"$W/class.yaml"
}

snapshot() { # GITVERSION: a snapshot as dra-watch writes it, with one class
    jq -nc --arg v "$1" '{apiVersion: "dra-tools.io/v1alpha1", kind: "Snapshot", metadata: {name: "snapshot"},
        serverVersion: {major: "1", minor: "37", gitVersion: $v, platform: "linux/amd64"}}'
    echo '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"gpu"}}'
}

@test "every gated command takes --kubernetes-version; a bad one is a usage error listing the releases" {
    local cmds=("dra-slice validate" "dra-slice pool-status --driver gpu.example.com" "dra-select" "dra-select lint" "dra-alloc schedule"
        "dra-alloc capacity" "dra-claim status" "dra-claim generate" "dra-evict")
    for c in "${cmds[@]}"; do
        run --separate-stderr $DRA_BIN/$c --kubernetes-version 1.36 "$W/class.yaml"
        [[ $status -le 1 ]] || { echo "$c: $status $stderr"; false; }
        run --separate-stderr $DRA_BIN/$c --kubernetes-version 1.35 "$W/class.yaml"
        assert_failure 2
        assert_equal "$stderr" "${c%% *}: --kubernetes-version: unknown Kubernetes version \"1.35\" (known: 1.36, 1.37, 1.38)"
        assert_output ""
    done
    run --separate-stderr "$DRA_BIN/dra-select" check --kubernetes-version 1.38 'device.driver == "x"'
    assert_success
    run --separate-stderr "$DRA_BIN/dra-prepare" sync --help
    assert_output --partial "--kubernetes-version 1.N"
}

@test "DRA_KUBERNETES_VERSION: the release when no option names one; the option wins" {
    DRA_KUBERNETES_VERSION=1.38 run --separate-stderr "$DRA_BIN/dra-slice" validate --feature-gates DRADeviceTaints=false "$W/class.yaml"
    assert_failure 2
    assert_equal "$stderr" "dra-slice: cannot set feature gate DRADeviceTaints to false, feature is locked to true"
    DRA_KUBERNETES_VERSION=1.38 run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version 1.37 \
        --feature-gates DRADeviceTaints=false,DRADeviceTaintRules=false "$W/class.yaml"
    assert_success
    DRA_KUBERNETES_VERSION=v1.99 run --separate-stderr "$DRA_BIN/dra-evict" "$W/class.yaml"
    assert_failure 2
    assert_equal "$stderr" 'dra-evict: DRA_KUBERNETES_VERSION: unknown Kubernetes version "v1.99" (known: 1.36, 1.37, 1.38)'
    DRA_KUBERNETES_VERSION=v1.36.3 run --separate-stderr "$DRA_BIN/dra-alloc" schedule -v "$W/class.yaml"
    assert_success
    [[ $stderr == *"dra-alloc: Kubernetes 1.36's feature gates (DRA_KUBERNETES_VERSION)"* ]]
}

@test "gates a release does not have are unrecognized there, as upstream says it; locks follow the release" {
    run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version 1.38 --feature-gates DynamicResourceAllocation=true "$W/class.yaml"
    assert_failure 2
    assert_equal "$stderr" "dra-slice: unrecognized feature gate: DynamicResourceAllocation"
    run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version 1.37 --feature-gates DynamicResourceAllocation=true "$W/class.yaml"
    assert_success
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --kubernetes-version 1.36 --feature-gates DRADerivedAttributes=true "$W/class.yaml"
    assert_failure 2
    assert_equal "$stderr" "dra-alloc: unrecognized feature gate: DRADerivedAttributes"
    run --separate-stderr "$DRA_BIN/dra-evict" --kubernetes-version 1.38 --feature-gates DRAPartitionableDevices=false "$W/class.yaml"
    assert_failure 2
    assert_equal "$stderr" "dra-evict: cannot set feature gate DRAPartitionableDevices to false, feature is locked to true"
    # beta in 1.36, locked in 1.37
    run --separate-stderr "$DRA_BIN/dra-claim" status --kubernetes-version 1.36 --feature-gates DRAResourceClaimDeviceStatus=false,DRADeviceBindingConditions=false,DRAResourceClaimGranularStatusAuthorization=false "$W/class.yaml"
    assert_success
    run --separate-stderr "$DRA_BIN/dra-claim" status --feature-gates DRAResourceClaimDeviceStatus=false "$W/class.yaml"
    assert_failure 2
    assert_equal "$stderr" "dra-claim: cannot set feature gate DRAResourceClaimDeviceStatus to false, feature is locked to true"
}

@test "DRAResourceClaimGranularStatusAuthorization is a gate of every release" {
    for v in 1.36 1.37 1.38; do
        run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version $v --feature-gates DRAResourceClaimGranularStatusAuthorization=false "$W/class.yaml"
        assert_success
    done
}

@test "dra-claim and dra-evict apply every --feature-gates, as the other tools do" {
    for c in "dra-claim status" "dra-evict"; do
        run --separate-stderr $DRA_BIN/$c --feature-gates DRADeviceTaints=false --feature-gates DRADeviceTaintRules=true "$W/class.yaml"
        assert_failure 2
        assert_equal "$stderr" "${c%% *}: DRADeviceTaintRules is enabled, but depends on features that are disabled: [DRADeviceTaints]"
    done
}

@test "a snapshot's server version picks the release when neither option nor variable does" {
    snapshot v1.38.0-beta.0 >"$W/snap.jsonl"
    run --separate-stderr "$DRA_BIN/dra-slice" validate -v --feature-gates DRADeviceTaints=false "$W/snap.jsonl"
    assert_failure 2
    assert_equal "$stderr" "$(printf '%s\n%s' "dra-slice: Kubernetes 1.38's feature gates (the snapshot $W/snap.jsonl is of a v1.38.0-beta.0 server)" \
        "dra-slice: cannot set feature gate DRADeviceTaints to false, feature is locked to true")"
    run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version 1.37 --feature-gates DRADeviceTaints=false,DRADeviceTaintRules=false "$W/snap.jsonl"
    assert_success
    DRA_KUBERNETES_VERSION=1.36 run --separate-stderr "$DRA_BIN/dra-alloc" schedule --feature-gates DRADeviceTaints=false,DRADeviceTaintRules=false "$W/snap.jsonl"
    assert_success
    # as YAML too, and among other files
    yq -P '.' "$W/snap.jsonl" 2>/dev/null >"$W/snap.yaml" || jq -s -r '.[] | "---", (. | tojson)' "$W/snap.jsonl" >"$W/snap.yaml"
    run --separate-stderr "$DRA_BIN/dra-evict" -v "$W/class.yaml" "$W/snap.yaml"
    assert_success
    [[ $stderr == *"dra-evict: Kubernetes 1.38's feature gates (the snapshot $W/snap.yaml is of a v1.38.0-beta.0 server)"* ]]
    # a server of a release the tools do not know: a warning, then the default
    snapshot v1.34.0 >"$W/old.jsonl"
    run --separate-stderr "$DRA_BIN/dra-claim" status "$W/old.jsonl"
    assert_success
    assert_equal "$stderr" "dra-claim: warning: $W/old.jsonl: the snapshot's server is Kubernetes v1.34.0, not a release the tools know (1.36, 1.37, 1.38); using 1.37's feature gates (see --kubernetes-version)"
    # standard input is not looked at
    run --separate-stderr "$DRA_BIN/dra-slice" validate -v - <"$W/snap.jsonl"
    assert_success
    [[ $stderr != *"feature gates"* ]]
}

@test "dra-slice gates: a release's table; several releases; the default" {
    run --separate-stderr "$DRA_BIN/dra-slice" gates --kubernetes-version 1.38
    assert_success
    assert_line --index 0 "RELEASE GATE DEFAULT STAGE LOCKED DEPENDS-ON"
    assert_line "1.38 DRADeviceTaints true GA true -"
    assert_line "1.38 DRAFractionalCapacityRange true GA false DRAConsumableCapacity"
    refute_output --partial "DynamicResourceAllocation"
    run --separate-stderr "$DRA_BIN/dra-slice" gates
    assert_line "1.37 DRADeviceTaints true GA false DynamicResourceAllocation"
    run --separate-stderr "$DRA_BIN/dra-slice" gates 1.36 1.38
    assert_line "1.36 DRAPrioritizedList true GA false DynamicResourceAllocation"
    assert_line "1.38 DRAPrioritizedList true GA true -"
    run --separate-stderr "$DRA_BIN/dra-slice" gates 1.39
    assert_failure 2
    assert_equal "$stderr" 'dra-slice: unknown Kubernetes version "1.39" (known: 1.36, 1.37, 1.38)'
    run --separate-stderr "$DRA_BIN/dra-slice" gates 1.36 --kubernetes-version 1.37
    assert_failure 2
}

@test "dra-watch snapshot records the server's /version first; the tools read it from the file" {
    source "${APISERVER_HELPERS:-$BATS_TEST_DIRNAME/../apiserver/helpers.bash}"
    apiserver_start "$W/api" --server-version v1.34.0
    run --separate-stderr "$DRA_BIN/dra-watch" snapshot -o jsonl
    local out=$output
    apiserver_stop
    assert_success
    # the test server says v1.34.0, as asked
    assert_equal "$(head -n 1 <<<"$out" | jq -c '[.apiVersion, .kind, .metadata.name, .serverVersion.gitVersion]')" \
        '["dra-tools.io/v1alpha1","Snapshot","snapshot","v1.34.0"]'
    jq -c '.serverVersion.gitVersion = "v1.36.3"' <<<"$out" >"$W/snap.jsonl"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule -v "$W/snap.jsonl"
    assert_success
    [[ $stderr == *"dra-alloc: Kubernetes 1.36's feature gates (the snapshot $W/snap.jsonl is of a v1.36.3 server)"* ]]
}

@test "dra-watch run: the jobs get --kubernetes-version, else the variable, else the server's release" {
    source "${APISERVER_HELPERS:-$BATS_TEST_DIRNAME/../apiserver/helpers.bash}"
    mkdir -p "$W/bin"
    cp "$DRA_BIN/dra-watch" "$W/bin/"
    printf '#!/bin/sh\necho "$* env=$DRA_KUBERNETES_VERSION" >>"%s"\ncat >/dev/null\n' "$W/args" >"$W/bin/dra-claim"
    chmod +x "$W/bin/dra-claim"
    apiserver_start "$W/api" --server-version v1.34.0
    run --separate-stderr "$W/bin/dra-watch" run --once --job claims --kubernetes-version v1.36.3
    local s1=$status
    run --separate-stderr "$W/bin/dra-watch" run --once --job claims --kubernetes-version 1.35
    local s2=$status e2=$stderr
    DRA_KUBERNETES_VERSION=1.38 run --separate-stderr "$W/bin/dra-watch" run --once --job claims
    local s3=$status
    # the test server says v1.34.0 (as asked): a release the tools do not know
    run --separate-stderr "$W/bin/dra-watch" run --once --job claims -v
    apiserver_stop
    assert_equal "$s1 $s2 $s3" "0 2 0"
    assert_equal "$e2" 'dra-watch: --kubernetes-version: unknown Kubernetes version "1.35" (known: 1.36, 1.37, 1.38)'
    assert_success
    [[ $stderr == *'the jobs use Kubernetes 1.37'"'"'s feature gates: unknown Kubernetes version "v1.34.0"'* ]]
    run cat "$W/args"
    assert_output "$(printf '%s\n' 'release --patch --kubernetes-version 1.36 env=' 'generate --patch --kubernetes-version 1.36 env=' \
        'release --patch env=1.38' 'generate --patch env=1.38' 'release --patch env=' 'generate --patch env=')"
}

@test "dra-slice(1) has one gate table per release, as dra-slice gates prints them" {
    run --separate-stderr "$BATS_TEST_DIRNAME/../../scripts/gen-man-gates" --check "$DRA_BIN/dra-slice"
    assert_success
    assert_output ''
    for r in 1.36 1.37 1.38; do grep -qx ".B Kubernetes $r" "$BATS_TEST_DIRNAME/../../man/dra-slice.1"; done
    # every page of a tool with the option says it, and the completions offer the releases
    for t in dra-alloc dra-claim dra-evict dra-prepare dra-select dra-slice; do
        grep -q 'kubernetes\\-version' "$BATS_TEST_DIRNAME/../../man/$t.1"
        grep -q 'DRA_KUBERNETES_VERSION' "$BATS_TEST_DIRNAME/../../man/$t.1"
        grep -q '1.36 1.37 1.38' "$BATS_TEST_DIRNAME/../../completions/$t.bash"
    done
}
