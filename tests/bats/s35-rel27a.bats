#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# What differs between the releases' validation, case by case, with the
# answers of each release's API server (upstream-validate built for it).
load helpers

@test "1.38 reports a claim's declarative errors as its API server does; 1.37 keeps its own" {
    f="$DATA/release/claim-138-declarative.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version 1.38 "$f"
    assert_failure 2
    p="ResourceClaim/default/c1:"
    [ "$(sed -E 's/^dra-slice: [^ ]+:[0-9]+: //' <<<"$stderr")" = "$p metadata.ownerReferences[0].uid: Required value
$p spec.devices.constraints[0].matchAttribute: Invalid value: \"a/b/c\": must not contain more than one slash
$p status.devices[0].conditions[1]: Duplicate value: {\"type\":\"Ready\",\"status\":\"False\",\"lastTransitionTime\":\"2026-01-01T00:00:00Z\",\"reason\":\"R\",\"message\":\"\"}
$p status.devices[0].conditions[2].type: Required value
$p status.devices[0].conditions[2].observedGeneration: Invalid value: -1: must be greater than or equal to 0" ]
    run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version 1.37 "$f"
    assert_failure 2
    [ "$(sed -E 's/^dra-slice: [^ ]+:[0-9]+: //' <<<"$stderr")" = "$p metadata.ownerReferences[0].uid: Required value: must not be empty
$p status.devices[0].conditions[1]: Duplicate value: \"Ready\"
$p status.devices[0].conditions[2].type: Required value: is required
$p status.devices[0].conditions[2].observedGeneration: Invalid value: -1: must be greater than or equal to zero" ]
}

@test "1.36 reports an attribute's values and a repeated reservedFor uid as its handwritten validation does" {
    f="$DATA/release/slice-claim-136-handwritten.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version 1.36 "$f"
    assert_failure 2
    [ "$(sed -E 's/^dra-slice: [^ ]+:[0-9]+( \(document [0-9]+\))?: //' <<<"$stderr" | sort)" = 'ResourceClaim/default/c2: status.reservedFor[1]: Duplicate value: "u-1"
ResourceSlice/slice-1: spec.devices[0].attributes[both]: Invalid value: {"IntValue":1,"BoolValue":null,"StringValue":"x","VersionValue":null,"IntValues":null,"BoolValues":null,"StringValues":null,"VersionValues":null}: exactly one value must be specified
ResourceSlice/slice-1: spec.devices[0].attributes[empty]: Invalid value: "": exactly one value must be specified' ]
    run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version 1.37 "$f"
    assert_failure 2
    [[ $stderr == *'status.reservedFor[1]: Duplicate value: {"resource":"pods","name":"b","uid":"u-1"}'* ]]
    [[ $stderr == *'attributes[empty]: Invalid value: "": must specify one of: `int`'* ]]
}
