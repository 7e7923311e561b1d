#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# What the real control plane (tests/upstream/cluster.sh) showed the tools
# doing wrong, pinned against the test API server (tests/apiserver).
load helpers

setup() {
    source "${APISERVER_HELPERS:-$BATS_TEST_DIRNAME/../apiserver/helpers.bash}"
    W="$BATS_TEST_TMPDIR"
    watch_backoff 50 500
    apiserver_start "$W/api"
    jq -c .object "$DATA/watch/finished-pod.rec.jsonl" | jq -s . >"$W/load.json"
    apiserver_req POST /_test/objects "$(cat "$W/load.json")" >/dev/null
}

teardown() {
    apiserver_stop
}

@test "run: a 422 Invalid on a JSON patch with tests is the server refusing it, not a conflict" {
    # a patch whose precondition holds but whose change the server's validation
    # refuses (kube-apiserver: NewInvalid, details naming the kind and the causes);
    # only a failed test (NewGenericServerResponse(422): no kind, no causes) is a conflict
    cat >"$W/stage" <<'STAGE'
#!/bin/sh
jq -c 'select(.kind == "ResourceClaim") | {verb: "patch", apiVersion, kind, namespace: .metadata.namespace,
    name: .metadata.name, patchType: "json",
    body: [{op: "test", path: "/metadata/resourceVersion", value: .metadata.resourceVersion},
           {op: "replace", path: "/spec/devices/requests/0/name", value: "other"}]}'
STAGE
    chmod +x "$W/stage"
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --stats -- "$W/stage"
    assert_failure 3
    [[ $stderr == *'ResourceClaim.resource.k8s.io "trainer-gpu-hn7g7" is invalid: spec: Invalid value: field is immutable'* ]]
    [[ $stderr != *"re-reading"* ]]
    [[ $stderr == *"conflicts=0"* ]]
}
