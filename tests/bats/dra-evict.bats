#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# dra-evict: eviction records, time steps, rule status, --apply-at, selector safety, bad inputs.
load helpers

setup() {
    # The records below are 1.37's: from 1.38 a toleration without effect
    # tolerates NoExecute taints (pod d's), which s33-k138.bats covers.
    export DRA_KUBERNETES_VERSION=1.37
    D="$DATA/evict"
    IN=("$D/slices.yaml" "$D/rules.yaml" "$D/claims-pods.json")
}

# The WHEN column of the row for pod $1.
when_of() {
    awk -v p="$1" 'NR > 1 && $2 == p { print $7 }' <<<"$output"
}

@test "records: taints from the newest generation and rules, tolerations from the results" {
    run "$DRA_BIN/dra-evict" --now 2026-03-01T10:02:00Z "${IN[@]}"
    assert_success
    assert_line --index 0 --regexp '^NAMESPACE +POD +CLAIM +DEVICE +TAINT +EVICT-AT +WHEN +SOURCE$'
    # d: an effect-less wildcard toleration does not delay eviction
    assert_line --index 1 --regexp '^ml +d +d-gpu +gpu.example.com/node-a/gpu-0 +example.com/overheat=true:NoExecute +2026-03-01T10:00:00Z +due +ResourceSlice node-a-gpu.example.com-x2v9q gpu.example.com/node-a/gpu-0 taint #0$'
    # a: tolerated for 300 s
    assert_line --index 2 --regexp '^ml +a +a-gpu .* 2026-03-01T10:05:00Z +in 3m0s '
    # b: the maintenance rule
    assert_line --index 3 --regexp '^ml +b +b-gpu .*example.com/maintenance:NoExecute +2026-03-01T10:05:00Z .*DeviceTaintRule maintenance-node-b$'
    # x: only an extended-resource claim, which counts as the pod's (PodClaims)
    assert_line --index 4 --regexp '^ml +x +x-extended-resources-k2j4f .*DeviceTaintRule maintenance-node-b$'
    # c: only the stale generation is tainted; e: tolerated forever
    assert_equal "${#lines[@]}" 5
}

@test "time steps: before, at and after tolerationSeconds" {
    run "$DRA_BIN/dra-evict" --now 2026-03-01T09:59:59Z "${IN[@]}"
    assert_equal "$(when_of d)" "in"
    assert_line --index 1 --partial "in 1s"
    run "$DRA_BIN/dra-evict" --now 2026-03-01T10:04:59Z "${IN[@]}"
    assert_line --index 2 --regexp '^ml +a .* in 1s '
    run "$DRA_BIN/dra-evict" --now 2026-03-01T10:05:00Z "${IN[@]}"
    assert_equal "$(when_of a)" "due"
    run "$DRA_BIN/dra-evict" --now 2026-03-01T11:00:00Z -o jsonl "${IN[@]}"
    assert_equal "$(jq -r 'select(.pod.name == "a") | [.evictAt, .due] | @tsv' <<<"$output")" "$(printf '2026-03-01T10:05:00Z\ttrue')"
}

@test "time steps: taint removed, toleration added" {
    yq 'if .metadata.name == "node-a-gpu.example.com-x2v9q" then del(.spec.devices[0].taints) else . end' "$D/slices.yaml" > "$BATS_TEST_TMPDIR/s.yaml"
    run "$DRA_BIN/dra-evict" --now 2026-03-01T10:02:00Z "$BATS_TEST_TMPDIR/s.yaml" "$D/rules.yaml" "$D/claims-pods.json"
    assert_success
    refute_output --partial "overheat"
    assert_equal "${#lines[@]}" 3
    jq '(.items[] | select(.kind == "ResourceClaim" and .metadata.name == "d-gpu") | .status.allocation.devices.results[0].tolerations) |= . + [{"key":"example.com/overheat","operator":"Equal","value":"true","effect":"NoExecute","tolerationSeconds":3600}]' \
        "$D/claims-pods.json" > "$BATS_TEST_TMPDIR/c.json"
    run "$DRA_BIN/dra-evict" --now 2026-03-01T10:02:00Z -o jsonl "$D/slices.yaml" "$D/rules.yaml" "$BATS_TEST_TMPDIR/c.json"
    assert_equal "$(jq -r 'select(.pod.name == "d") | .evictAt' <<<"$output")" "2026-03-01T11:00:00Z"
}

@test "records as objects" {
    run "$DRA_BIN/dra-evict" --now 2026-03-01T10:02:00Z -o json "${IN[@]}"
    assert_success
    assert_equal "$(jq -c '.items[0] | [.kind, .pod.name, .claim.name, .device.device, .taint.key, .source, .taintEvictAt, .evictAt, .due]' <<<"$output")" \
        '["Eviction","d","d-gpu","gpu-0","example.com/overheat","ResourceSlice node-a-gpu.example.com-x2v9q gpu.example.com/node-a/gpu-0 taint #0","2026-03-01T10:00:00Z","2026-03-01T10:00:00Z",true]'
    assert_equal "$(jq -r '.items[3] | [.pod.name, .note // "-"] | @tsv' <<<"$output")" "$(printf 'x\t-')"
}

@test "rule status: pending, None simulation, completed after --apply-at" {
    run "$DRA_BIN/dra-evict" --now 2026-03-01T10:02:00Z --rule-status "${IN[@]}"
    assert_success
    assert_line --regexp '^maintenance-node-b +NoExecute +True +PodsPendingEviction +2 pods need to be evicted in 1 namespace\.$'
    assert_line --regexp '^what-if-all-gpus +None +False +NoEffect +5 published devices selected\. 6 allocated devices selected\. 6 pods would be evicted in 1 namespace if the effect was NoExecute\. This information will not be updated again\. Recreate the DeviceTaintRule to trigger an update\.$'
    run "$DRA_BIN/dra-evict" --apply-at 2026-03-01T10:05:00Z --rule-status -o json "${IN[@]}"
    assert_success
    assert_equal "$(jq -c '.items[0].status.conditions[0]' <<<"$output")" \
        '{"type":"EvictionInProgress","status":"False","observedGeneration":1,"lastTransitionTime":"2026-03-01T10:05:00Z","reason":"Completed","message":"2 pods evicted since starting the controller."}'
    run "$DRA_BIN/dra-evict" --now 2026-03-01T10:02:00Z --rule-status --patch "${IN[@]}"
    assert_success
    assert_equal "$(jq -c 'select(.name == "maintenance-node-b") | [.verb, .subresource, .fieldManager, .body.metadata.uid]' <<<"$output")" \
        '["apply","status","device-taint-eviction-controller","51a0e7c2-0000-4000-8000-0000000000b1"]'
}

@test "--apply-at: DisruptionTarget then delete with a UID precondition, due pods only" {
    run "$DRA_BIN/dra-evict" --apply-at 2026-03-01T10:00:00Z --patch "${IN[@]}"
    assert_success
    assert_equal "${#lines[@]}" 2
    assert_equal "$(jq -c '[.verb, .name, .subresource, .patchType, .body.metadata.uid, .body.status.conditions[0].type, .body.status.conditions[0].reason]' <<<"${lines[0]}")" \
        '["patch","d","status","strategic","u-d","DisruptionTarget","DeletionByDeviceTaintManager"]'
    assert_equal "$(jq -c '[.verb, .name, .body]' <<<"${lines[1]}")" \
        '["delete","d",{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":"u-d"}}]'
    run "$DRA_BIN/dra-evict" --apply-at 2026-03-01T10:05:00Z --patch=kubectl "${IN[@]}"
    assert_success
    assert_line --partial "kubectl delete --raw /api/v1/namespaces/ml/pods/b -f -"
    # x holds only an extended-resource claim: evicted too (PodClaims)
    assert_equal "$(grep -c 'kubectl delete' <<<"$output")" 4
    assert_output --partial "pods/x"
    run "$DRA_BIN/dra-evict" --apply-at 2026-03-01T10:05:00Z -o jsonl "${IN[@]}"
    assert_equal "$(jq -r 'select(.metadata.name == "a") | [.metadata.deletionTimestamp, .status.conditions[-1].message] | @tsv' <<<"$output")" \
        "$(printf '2026-03-01T10:05:30Z\tDevice Taint manager: deleting due to NoExecute taint')"
    run "$DRA_BIN/dra-evict" --apply-at 2026-03-01T09:00:00Z --patch "${IN[@]}"
    assert_success
    assert_output ""
}

@test "a rule without deviceSelector selects nothing unless --all" {
    run "$DRA_BIN/dra-evict" --now 2026-03-01T12:00:00Z "$D/slices.yaml" "$D/noselector.yaml" "$D/claims-pods.json"
    assert_success
    assert_output --partial "DeviceTaintRule everything has no deviceSelector: it selects no device"
    # the library names the parameter, the tool its option
    assert_output --partial "(see --all: treat a DeviceTaintRule without deviceSelector as selecting every device)"
    refute_output --partial "example.com/drain"
    run --separate-stderr "$DRA_BIN/dra-evict" --all --now 2026-03-01T12:00:00Z -o jsonl "$D/slices.yaml" "$D/noselector.yaml" "$D/claims-pods.json"
    assert_success
    [[ $stderr == *"treated as selecting every device (--all)"* ]]
    assert_equal "$(jq -r 'select(.source == "DeviceTaintRule everything") | .pod.name' <<<"$output" | sort | tr '\n' ' ')" "a b c d e x "
}

@test "feature gates: rules off, taints off" {
    run "$DRA_BIN/dra-evict" --feature-gates DRADeviceTaintRules=false --now 2026-03-01T10:02:00Z "${IN[@]}"
    assert_success
    refute_output --partial "maintenance"
    assert_output --partial "DRADeviceTaintRules is disabled"
    # DRADeviceTaintRules depends on DRADeviceTaints
    run "$DRA_BIN/dra-evict" --feature-gates DRADeviceTaints=false,DRADeviceTaintRules=false --now 2026-03-01T10:02:00Z "${IN[@]}"
    assert_success
    assert_output --partial "DRADeviceTaints is disabled"
}

@test "bad inputs: invalid rule selectors, bad times, malformed files" {
    run "$DRA_BIN/dra-evict" "$D/bad-rule.yaml"
    assert_failure 2
    assert_output --partial 'bad-rule.yaml:8: DeviceTaintRule/old-cel-rule: unknown field "spec.deviceSelector.selectors"'
    yq 'del(.spec.deviceSelector.selectors)' "$D/bad-rule.yaml" > "$BATS_TEST_TMPDIR/r.yaml"
    run "$DRA_BIN/dra-evict" "$BATS_TEST_TMPDIR/r.yaml"
    assert_failure 2
    assert_output --partial 'DeviceTaintRule/old-cel-rule: spec.deviceSelector.driver: Invalid value: "Not_A_Driver!"'
    run "$DRA_BIN/dra-evict" --now yesterday "${IN[@]}"
    assert_failure 2
    assert_output --partial 'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"'
    yq '.spec.taint.timeAdded = "soon"' "$D/noselector.yaml" > "$BATS_TEST_TMPDIR/r.yaml"
    run "$DRA_BIN/dra-evict" "$BATS_TEST_TMPDIR/r.yaml"
    assert_failure 2
    assert_output --partial 'DeviceTaintRule/everything: spec.taint.timeAdded: Invalid value: "soon": must be an RFC 3339 date-time'
    run "$DRA_BIN/dra-evict" "$DATA/claim/malformed.yaml"
    assert_failure 2
    run "$DRA_BIN/dra-evict" -o xml "${IN[@]}"
    assert_failure 2
}

@test "rule status across passes: the evicted count goes on from the rule's condition; NoEffect is computed once" {
    # the rules as a pass of the loop left them: 2 pods evicted before, NoEffect already said
    cat >"$BATS_TEST_TMPDIR/rules.jsonl" <<'EOF'
{"apiVersion":"resource.k8s.io/v1","kind":"DeviceTaintRule","metadata":{"name":"maintenance-node-b","uid":"51a0e7c2-0000-4000-8000-0000000000b1","generation":1},"spec":{"deviceSelector":{"driver":"gpu.example.com","pool":"node-b"},"taint":{"key":"example.com/maintenance","effect":"NoExecute","timeAdded":"2026-03-01T10:05:00Z"}},"status":{"conditions":[{"type":"EvictionInProgress","status":"False","observedGeneration":1,"lastTransitionTime":"2026-03-01T09:00:00Z","reason":"Completed","message":"2 pods evicted since starting the controller."}]}}
{"apiVersion":"resource.k8s.io/v1","kind":"DeviceTaintRule","metadata":{"name":"what-if-all-gpus","uid":"51a0e7c2-0000-4000-8000-0000000000b2","generation":3},"spec":{"deviceSelector":{"driver":"gpu.example.com"},"taint":{"key":"example.com/what-if","effect":"None","timeAdded":"2026-03-01T10:00:00Z"}},"status":{"conditions":[{"type":"EvictionInProgress","status":"False","observedGeneration":3,"lastTransitionTime":"2026-03-01T09:00:00Z","reason":"NoEffect","message":"said once"}]}}
EOF
    local in=("$DATA/evict/slices.yaml" "$BATS_TEST_TMPDIR/rules.jsonl" "$DATA/evict/claims-pods.json")
    run "$DRA_BIN/dra-evict" --apply-at 2026-03-01T10:05:00Z --rule-status -o json "${in[@]}"
    assert_success
    assert_equal "$(jq -c '.items[] | .status.conditions[0] | [.reason, .message, .lastTransitionTime]' <<<"$output")" \
        '["Completed","4 pods evicted since starting the controller.","2026-03-01T10:05:00Z"]
["NoEffect","said once","2026-03-01T09:00:00Z"]'
    # nothing new: nothing to write
    run "$DRA_BIN/dra-evict" --now 2026-03-01T10:06:00Z --rule-status --patch "$DATA/evict/slices.yaml" "$BATS_TEST_TMPDIR/rules.jsonl"
    assert_success
    assert_equal "$(jq -c 'select(.kind == "DeviceTaintRule") | .name' <<<"$output")" ""
    # a new generation starts afresh
    jq -c '.metadata.generation = 2' "$BATS_TEST_TMPDIR/rules.jsonl" | head -1 >"$BATS_TEST_TMPDIR/gen2.jsonl"
    run "$DRA_BIN/dra-evict" --now 2026-03-01T10:06:00Z --rule-status -o json "$DATA/evict/slices.yaml" "$BATS_TEST_TMPDIR/gen2.jsonl"
    assert_success
    assert_equal "$(jq -c '(.items // [.])[0].status.conditions[0] | [.reason, .message, .observedGeneration]' <<<"$output")" '["NotStarted","",2]'
}
