#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# dra-watch against the test API server (tests/apiserver): what kubectl sees,
# watches through drops and 410s, the claims job end to end, conflicts,
# credentials, TLS, and 429 storms.
load helpers

setup_file() {
    source "${APISERVER_HELPERS:-$BATS_TEST_DIRNAME/../apiserver/helpers.bash}"
    apiserver_start "$BATS_FILE_TMPDIR/api" --bookmark-interval 1
}

teardown_file() {
    source "${APISERVER_HELPERS:-$BATS_TEST_DIRNAME/../apiserver/helpers.bash}"
    apiserver_stop
}

setup() {
    source "${APISERVER_HELPERS:-$BATS_TEST_DIRNAME/../apiserver/helpers.bash}"
    W="$BATS_TEST_TMPDIR"
    KUBECTL=/usr/lib/google-cloud-sdk/bin/kubectl.1.33
    [[ -x $KUBECTL ]] || KUBECTL=/usr/bin/kubectl
    watch_backoff 50 1000
    apiserver_req POST /_test/reset '{"objects":true}' >/dev/null
    REC="$DATA/watch/finished-pod.rec.jsonl"
}

load_objects() { # FILE (JSON Lines)
    jq -s . "$1" >"$W/load.json"
    apiserver_req POST /_test/objects "$(cat "$W/load.json")" >/dev/null
}

# The recorded scenario (a finished pod, its reserved, allocated, generated claim)
# as plain objects.
load_finished_pod() {
    jq -c .object "$REC" >"$W/objs.jsonl"
    load_objects "$W/objs.jsonl"
}

ns() { # NAME: create the namespace
    apiserver_req POST /api/v1/namespaces "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$1\"}}" >/dev/null
}

pod() { # NS NAME [LABEL]
    printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"%s","labels":{"app":"%s"}},"spec":{"containers":[{"name":"c","image":"i"}]}}' "$2" "$1" "${3:-x}"
}

@test "dra-watch get prints what kubectl get -o json prints, kind by kind" {
    load_finished_pod
    apiserver_req POST /api/v1/namespaces/ml/pods "$(pod ml web serve)" >/dev/null
    "$DRA_BIN/dra-slice" profile gpu --nodes 2 --devices 2 -o jsonl >"$W/slices.jsonl"
    load_objects "$W/slices.jsonl"
    for kind in pods resourceclaims resourceslices namespaces; do
        "$KUBECTL" get "$kind" -A -o json | jq -cS '.items[]' >"$W/kubectl.$kind"
        run "$DRA_BIN/dra-watch" get "$kind" -A
        assert_success
        jq -cS . <<<"$output" >"$W/ours.$kind"
        run diff "$W/kubectl.$kind" "$W/ours.$kind"
        assert_success
        [[ -s $W/ours.$kind ]]
    done
    # namespace from -n, label selectors, small pages
    "$KUBECTL" get pods -n ml -l app=serve -o json | jq -cS '.items[]' >"$W/k.sel"
    run "$DRA_BIN/dra-watch" get po -n ml -l app=serve
    assert_success
    assert_equal "$(jq -cS . <<<"$output")" "$(cat "$W/k.sel")"
    assert_equal "${#lines[@]}" 1
    # -o json is kubectl's List
    run "$DRA_BIN/dra-watch" get resourceslices -o json
    assert_success
    assert_equal "$(jq -r '.kind + " " + (.items | length | tostring)' <<<"$output")" "List 2"
}

@test "dra-watch get reads a v1beta2 server and prints v1 objects" {
    local d="$BATS_TEST_TMPDIR/beta"
    (
        apiserver_start "$d" --dra-versions v1beta2
        "$DRA_BIN/dra-slice" profile gpu --nodes 1 --devices 1 -o jsonl |
            jq -c '.apiVersion = "resource.k8s.io/v1beta2"' >"$d/beta.jsonl"
        apiserver_req POST /_test/objects "$(jq -s . "$d/beta.jsonl")" >/dev/null
        "$DRA_BIN/dra-watch" get resourceslices >"$d/out"
        echo $? >"$d/rc"
        apiserver_stop
    )
    assert_equal "$(cat "$d/rc")" 0
    assert_equal "$(jq -r '.apiVersion + " " + .kind' "$d/out")" "resource.k8s.io/v1 ResourceSlice"
}

@test "dra-watch get -w: the list as ADDED, then one line per event, like kubectl get -w" {
    apiserver_req POST /api/v1/namespaces/default/pods "$(pod default a)" >/dev/null
    "$DRA_BIN/dra-watch" get pods -n default -w --max-events 4 >"$W/ev" 2>"$W/err" &
    local pid=$!
    wait_lines "$W/ev" 1
    "$KUBECTL" label pod -n default a tier=gold >/dev/null
    apiserver_req POST /api/v1/namespaces/default/pods "$(pod default b)" >/dev/null
    "$KUBECTL" delete pod -n default a --wait=false >/dev/null
    wait "$pid"
    run jq -r '.type + " " + .object.metadata.name + " " + (.object.metadata.labels.tier // "-")' "$W/ev"
    assert_output "$(printf 'ADDED a -\nMODIFIED a gold\nADDED b -\nDELETED a gold')"
}

@test "dra-watch run --once --job claims: release, deallocate, unfinalize, delete, in upstream's order" {
    load_finished_pod
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job claims -v --stats
    assert_success
    # the status update (reservedFor + allocation), then the finalizer, then the delete
    run grep -E '^dra-watch: (patch|delete) ' <<<"$stderr"
    assert_line --index 0 --partial "patch ResourceClaim ml/trainer-gpu-hn7g7 status: "
    assert_line --index 1 --partial "patch ResourceClaim ml/trainer-gpu-hn7g7: "
    assert_line --index 1 --partial "remove finalizer"
    assert_line --index 2 --partial "delete ResourceClaim ml/trainer-gpu-hn7g7: "
    [[ $stderr == *"writes=3 conflicts=0"* ]]
    run "$KUBECTL" get resourceclaims -A -o name
    assert_output ""
    # a second pass has nothing to do
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job claims --stats
    assert_success
    [[ $stderr == *"writes=0"* ]]
}

@test "dra-watch run --dry-run prints the patch list and writes nothing" {
    load_finished_pod
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --dry-run --job claims
    assert_success
    assert_equal "${#lines[@]}" 3
    assert_equal "$(jq -r .verb <<<"${lines[2]}")" "delete"
    run "$KUBECTL" get resourceclaims -n ml -o name
    assert_output "resourceclaim.resource.k8s.io/trainer-gpu-hn7g7"
}

@test "dra-watch run: a concurrent writer between our read and our write loses nothing" {
    load_finished_pod
    apiserver_req POST /_test/faults '{"concurrentWriter":{"path":"/apis/resource.k8s.io/v1/namespaces/ml/resourceclaims/trainer-gpu-hn7g7","patch":{"metadata":{"labels":{"other":"writer"}}},"count":1}}' >/dev/null
    # object mode: the pipeline prints the claim with one more label
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --stats -v -- \
        'jq -c "select(.kind == \"ResourceClaim\") | .metadata.labels.seen = \"yes\""'
    assert_success
    [[ $stderr == *"conflict on update ResourceClaim ml/trainer-gpu-hn7g7"* ]]
    [[ $stderr == *"conflicts=1"* ]]
    run "$KUBECTL" get resourceclaim -n ml trainer-gpu-hn7g7 -o json
    assert_equal "$(jq -c '.metadata.labels | {other, seen}' <<<"$output")" '{"other":"writer","seen":"yes"}'
    # the claims job: another scheduler reserves the claim for pod web just before our
    # status patch; the patch's resourceVersion test fails, the pass re-reads and keeps web
    apiserver_req POST /_test/objects '[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"ml","uid":"3f0a9c1e-0000-4000-8000-00000000a002"},"spec":{"nodeName":"node-a","containers":[{"name":"c","image":"i"}],"resourceClaims":[{"name":"gpu","resourceClaimName":"trainer-gpu-hn7g7"}]},"status":{"phase":"Running"}}]' >/dev/null
    apiserver_req POST /_test/faults '{"concurrentWriter":{"path":"/apis/resource.k8s.io/v1/namespaces/ml/resourceclaims/trainer-gpu-hn7g7/status","patch":{"status":{"reservedFor":[{"resource":"pods","name":"trainer","uid":"3f0a9c1e-0000-4000-8000-00000000a001"},{"resource":"pods","name":"web","uid":"3f0a9c1e-0000-4000-8000-00000000a002"}]}},"count":1}}' >/dev/null
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job claims --stats
    assert_success
    [[ $stderr == *"conflicts=1"* ]]
    run "$KUBECTL" get resourceclaim -n ml trainer-gpu-hn7g7 -o json
    assert_success
    assert_equal "$(jq -c '[[.status.reservedFor[].name], (.status.allocation != null), .metadata.finalizers]' <<<"$output")" \
        '[["web"],true,["resource.kubernetes.io/delete-protection"]]'
}

@test "dra-watch get -w: watches dropped every second miss nothing and repeat nothing" {
    ns drops
    apiserver_req POST /_test/faults '{"dropWatchAfter":{"seconds":1}}' >/dev/null
    "$DRA_BIN/dra-watch" get pods -n drops -w --stats >"$W/ev" 2>"$W/err" &
    local pid=$! i
    sleep 0.5
    for ((i = 0; i < 40; i++)); do
        apiserver_req POST /api/v1/namespaces/drops/pods "$(pod drops "p$i")" >/dev/null
        ((i % 10 == 9)) && sleep 1
    done
    wait_lines "$W/ev" 40
    sleep 1.5 # one more drop and resume after the last pod
    kill -TERM "$pid"
    wait "$pid"
    run jq -r '.type + " " + .object.metadata.name' "$W/ev"
    assert_equal "${#lines[@]}" 40
    assert_equal "$(sort -u "$W/ev" | wc -l)" 40
    grep -qE 'resumes=[1-9]' "$W/err"
}

@test "dra-watch get -w: 410 mid-watch relists without repeating events" {
    ns gone
    apiserver_req POST /api/v1/namespaces/gone/pods "$(pod gone a)" >/dev/null
    "$DRA_BIN/dra-watch" get pods -n gone -w --stats -v >"$W/ev" 2>"$W/err" &
    local pid=$!
    wait_lines "$W/ev" 1
    # compact history, add b, then cut the watch: the resume finds its version expired
    apiserver_req POST /_test/faults '{"dropWatchAfter":{"events":1}}' >/dev/null
    apiserver_req POST /api/v1/namespaces/gone/pods "$(pod gone b)" >/dev/null
    apiserver_req POST /_test/faults '{"dropWatchAfter":null}' >/dev/null
    apiserver_req POST /api/v1/namespaces/gone/pods "$(pod gone c)" >/dev/null
    apiserver_req POST /_test/compact '{}' >/dev/null
    apiserver_req POST /api/v1/namespaces/gone/pods "$(pod gone d)" >/dev/null
    wait_lines "$W/ev" 4
    sleep 0.5
    kill -TERM "$pid"
    wait "$pid"
    run jq -r '.type + " " + .object.metadata.name' "$W/ev"
    assert_output "$(printf 'ADDED a\nADDED b\nADDED c\nADDED d')"
}

@test "dra-watch get -w: an object a relist finds gone is DELETED with the metadata it had" {
    ns gone2
    apiserver_req POST /api/v1/namespaces/gone2/pods "$(pod gone2 a)" >/dev/null
    "$KUBECTL" label pod -n gone2 a tier=gold >/dev/null
    "$DRA_BIN/dra-watch" get pods -n gone2 -w >"$W/ev" 2>"$W/err" &
    local pid=$!
    wait_lines "$W/ev" 1
    # b's event cuts the watch and the resumes fail until a is gone and the
    # history compacted: only the relist can tell
    apiserver_req POST /_test/faults '{"status":{"code":503,"count":100,"path":"/api/v1/namespaces/gone2/pods","verb":"watch"}}' >/dev/null
    apiserver_req POST /_test/faults '{"dropWatchAfter":{"events":1}}' >/dev/null
    apiserver_req POST /api/v1/namespaces/gone2/pods "$(pod gone2 b)" >/dev/null
    wait_lines "$W/ev" 2
    "$KUBECTL" delete pod -n gone2 a --wait=false >/dev/null
    apiserver_req POST /_test/compact '{}' >/dev/null
    apiserver_req POST /_test/reset '{}' >/dev/null
    apiserver_req POST /api/v1/namespaces/gone2/pods "$(pod gone2 d)" >/dev/null
    wait_lines "$W/ev" 4
    kill -TERM "$pid"
    wait "$pid"
    run jq -r '.type + " " + .object.metadata.name + " " + (.object.metadata.labels.tier // "-") + " " + (.object | has("spec") | tostring)' "$W/ev"
    assert_line --index 0 "ADDED a gold true"
    assert_line "ADDED b - true"
    assert_line "DELETED a gold false"
    assert_line "ADDED d - true"
}

@test "dra-watch: an exec credential plugin runs once, again when expired, and again on 401" {
    local tok
    tok=$(cat "$APISERVER_DIR/admin.token")
    cat >"$W/plugin" <<EOF
#!/bin/bash
n=\$(( \$(cat "$W/count" 2>/dev/null || echo 0) + 1 )); echo \$n >"$W/count"
[[ \$KUBERNETES_EXEC_INFO == *'"interactive":false'* ]] || exit 9
tok=$tok; [[ -e $W/bad-first && \$n == 1 ]] && tok=wrong
echo "{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"\$tok\",\"expirationTimestamp\":\"\$(cat $W/expiry)\"}}"
EOF
    chmod +x "$W/plugin"
    sed -e "/^users:/,\$d" "$KUBECONFIG" >"$W/kc"
    printf 'users:\n- name: admin\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: %s\n      interactiveMode: Never\n' "$W/plugin" >>"$W/kc"
    echo 2200-01-01T00:00:00Z >"$W/expiry"
    run "$DRA_BIN/dra-watch" get resourceclaims,pods,nodes -A --kubeconfig "$W/kc"
    assert_success
    assert_equal "$(cat "$W/count")" 1
    echo 2000-01-01T00:00:00Z >"$W/expiry" # expired at once: every request runs it
    rm "$W/count"
    run "$DRA_BIN/dra-watch" get resourceclaims,pods,nodes -A --kubeconfig "$W/kc"
    assert_success
    (($(cat "$W/count") >= 3))
    echo 2200-01-01T00:00:00Z >"$W/expiry"
    rm "$W/count"
    touch "$W/bad-first"
    run --separate-stderr "$DRA_BIN/dra-watch" get pods -A --stats --kubeconfig "$W/kc"
    assert_success
    assert_equal "$(cat "$W/count")" 2
    [[ $stderr == *"reauths=1"* ]]
    [[ $stderr != *"$tok"* ]]
}

@test "dra-watch: a client certificate from the kubeconfig authenticates" {
    run "$DRA_BIN/dra-watch" get namespaces --kubeconfig "$APISERVER_DIR/kubeconfig-cert"
    assert_success
}

@test "dra-watch: TLS with a wrong CA is refused and the token is not printed" {
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$W/k" -out "$W/other-ca.crt" -days 1 -subj /CN=other >/dev/null 2>&1
    sed "s|certificate-authority: .*|certificate-authority: $W/other-ca.crt|" "$KUBECONFIG" >"$W/kc"
    run --separate-stderr "$DRA_BIN/dra-watch" get pods -A -v -v --kubeconfig "$W/kc"
    assert_failure 3
    [[ $stderr == *"unable to connect to the server"*"certificate"* ]]
    [[ $stderr != *"$APISERVER_TOKEN"* && $output != *"$APISERVER_TOKEN"* ]]
    # insecure-skip-tls-verify (without a CA) is the only way around it
    sed -e "s|certificate-authority: .*|insecure-skip-tls-verify: true|" "$KUBECONFIG" >"$W/kc2"
    run "$DRA_BIN/dra-watch" get pods -A --kubeconfig "$W/kc2"
    assert_success
}

@test "dra-watch: a 429 storm is ridden out with Retry-After, and API errors carry reason and code" {
    apiserver_req POST /_test/faults '{"status":{"code":429,"retryAfter":1,"count":2,"path":"/api/v1/pods"}}' >/dev/null
    run --separate-stderr "$DRA_BIN/dra-watch" get pods -A -v --stats
    assert_success
    [[ $stderr == *"HTTP 429; retrying in 1000 ms"* ]]
    [[ $stderr == *"retries=2"* ]]
    apiserver_req POST /_test/faults '{"status":{"code":503,"count":50,"path":"/api/v1/nodes"}}' >/dev/null
    run --separate-stderr "$DRA_BIN/dra-watch" get nodes
    assert_failure 3
    [[ $stderr == *"Error from server (ServiceUnavailable): "*"(HTTP 503)"* ]]
}

@test "dra-watch: SIGTERM ends a watch cleanly: whole lines, exit 0" {
    "$DRA_BIN/dra-watch" get pods -A -w >"$W/ev" &
    local pid=$!
    sleep 0.5
    kill -TERM "$pid"
    local rc=0
    wait "$pid" || rc=$?
    assert_equal "$rc" 0
}

@test "dra-watch snapshot: the DRA objects, and --for-pod trims to one pod's" {
    load_finished_pod
    ns other
    apiserver_req POST /api/v1/namespaces/other/pods "$(pod other plain)" >/dev/null
    run "$DRA_BIN/dra-watch" snapshot -A -o jsonl
    assert_success
    run jq -r '.kind + "/" + .metadata.name' <<<"$output"
    assert_output "$(printf 'Snapshot/snapshot\nNamespace/ml\nResourceClaimTemplate/single-gpu\nResourceClaim/trainer-gpu-hn7g7\nPod/trainer')"
    run "$DRA_BIN/dra-watch" snapshot --for-pod ml/nope
    assert_failure 1
}

@test "run --job claims: a claim from the template, the pod's status by server-side apply as upstream's controller" {
    jq -c 'select(.object.kind == "ResourceClaimTemplate") | .object' "$REC" >"$W/t.jsonl"
    load_objects "$W/t.jsonl"
    apiserver_req POST /_test/objects '[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"ml","uid":"3f0a9c1e-0000-4000-8000-00000000a00b"},"spec":{"containers":[{"name":"c","image":"i"}],"resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"single-gpu"}]},"status":{"phase":"Pending"}}]' >/dev/null
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job claims --stats -v
    assert_success
    [[ $stderr == *"writes=2"* ]]
    [[ $stderr == *"apply Pod ml/web status"* ]]
    claim=$("$DRA_BIN/dra-watch" get resourceclaims -n ml | jq -r .metadata.name)
    [[ $claim == web-gpu-?????* ]]
    run apiserver_req GET /api/v1/namespaces/ml/pods/web
    assert_equal "$(jq -c .status.resourceClaimStatuses <<<"$output")" "[{\"name\":\"gpu\",\"resourceClaimName\":\"$claim\"}]"
    assert_equal "$(jq -c '.metadata.managedFields[] | [.manager, .operation, .subresource]' <<<"$output")" '["ResourceClaimController","Apply","status"]'
    # dra-watch shows objects as kubectl does: without managedFields
    run "$DRA_BIN/dra-watch" get pods -n ml
    assert_equal "$(jq -c .metadata.managedFields <<<"$output")" null
    # done: a second pass writes nothing
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job claims --stats
    assert_success
    [[ $stderr == *"writes=0"* ]]
}

@test "dra-watch snapshot --for-pod: the slices the scheduler could use on the pod's node" {
    load_finished_pod
    sl() { # NAME SPEC-FRAGMENT (jq object merged into spec)
        jq -nc --arg n "$1" "{apiVersion: \"resource.k8s.io/v1\", kind: \"ResourceSlice\", metadata: {name: \$n},
            spec: ({driver: \"gpu.example.com\", pool: {name: \$n, generation: 1, resourceSliceCount: 1},
                    devices: [{name: \"gpu-0\"}]} + $2)}"
    }
    zone() { echo "{nodeSelectorTerms: [{matchExpressions: [{key: \"zone\", operator: \"In\", values: [\"$1\"]}]}]}"; }
    {
        echo '{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-a","labels":{"zone":"a"}}}'
        echo '{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-b","labels":{"zone":"b"}}}'
        sl on-a '{nodeName: "node-a"}'
        sl on-b '{nodeName: "node-b"}'
        sl everywhere '{allNodes: true}'
        sl zone-a "{nodeSelector: $(zone a)}"
        sl zone-b "{nodeSelector: $(zone b)}"
        sl field-a '{nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: "metadata.name", operator: "In", values: ["node-a"]}]}]}}'
        sl per-device-a "{perDeviceNodeSelection: true, devices: [{name: \"d0\", nodeName: \"node-b\"}, {name: \"d1\", nodeSelector: $(zone a)}]}"
        sl per-device-b '{perDeviceNodeSelection: true, devices: [{name: "d0", nodeName: "node-b"}, {name: "d1", allNodes: false, nodeName: "node-c"}]}'
    } >"$W/cluster.jsonl"
    load_objects "$W/cluster.jsonl"
    run --separate-stderr "$DRA_BIN/dra-watch" snapshot --for-pod ml/trainer -o jsonl
    assert_success
    run jq -r 'select(.kind == "ResourceSlice" or .kind == "Node") | .kind + "/" + .metadata.name' <<<"$output"
    assert_output "$(printf 'Node/node-a\nResourceSlice/everywhere\nResourceSlice/field-a\nResourceSlice/on-a\nResourceSlice/per-device-a\nResourceSlice/zone-a')"
    # a pod not scheduled yet could go anywhere: every slice and node
    apiserver_req POST /_test/objects '[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"pending","namespace":"ml","uid":"3f0a9c1e-0000-4000-8000-00000000a009"},"spec":{"containers":[{"name":"c","image":"i"}],"resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"single-gpu"}]},"status":{"phase":"Pending"}}]' >/dev/null
    run --separate-stderr "$DRA_BIN/dra-watch" snapshot --for-pod ml/pending -o jsonl
    assert_success
    assert_equal "$(jq -r 'select(.kind == "ResourceSlice") | .metadata.name' <<<"$output" | wc -l)" 8
    assert_equal "$(jq -r 'select(.kind == "Node") | .metadata.name' <<<"$output" | wc -l)" 2
}

@test "kubectl dra: a kubectl plugin on PATH, with kubectl's flags" {
    load_finished_pod
    apiserver_req POST /_test/objects '[{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-a"}},{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"gpu.example.com"},"spec":{"selectors":[{"cel":{"expression":"device.driver == \"gpu.example.com\""}}]}},{"apiVersion":"v1","kind":"Pod","metadata":{"name":"pending","namespace":"ml","uid":"3f0a9c1e-0000-4000-8000-00000000a009"},"spec":{"containers":[{"name":"c","image":"i"}],"resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"single-gpu"}]},"status":{"phase":"Pending"}}]' >/dev/null
    export PATH="$DRA_BIN:$BATS_TEST_DIRNAME/../../scripts:$PATH"
    cp "$KUBECONFIG" "$W/kc"
    run --separate-stderr "$KUBECTL" dra status -A --kubeconfig "$W/kc" --context test
    assert_success
    assert_line --regexp '^ml +trainer-gpu-hn7g7 +reserved +gpu.example.com/node-a/gpu-1 +node-a +trainer$'
    run --separate-stderr "$KUBECTL" dra why ml/pending -n ml
    assert_failure 1
    [[ $output == *"pod ml/pending: 0/1 nodes are available: 1 cannot allocate all claims."* ]]
    run --separate-stderr "$KUBECTL" dra doctor -A
    assert_failure 1
    assert_output --partial "reservedFor names pod trainer which is done (Succeeded)"
    run --separate-stderr "$KUBECTL" dra snapshot --namespace=ml -o jsonl
    assert_success
    run --separate-stderr "$KUBECTL" dra snapshot --context nope
    assert_failure 2
    [[ $stderr == *'context "nope" does not exist'* ]]
    run --separate-stderr "$KUBECTL" dra bogus
    assert_failure 2
}
