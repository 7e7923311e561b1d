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
