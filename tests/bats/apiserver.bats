#!/usr/bin/env bats
# The test API server (tests/apiserver/) speaks real Kubernetes: the real kubectl works against it,
# and its raw answers (Status bodies, watch streams, preconditions, faults) are upstream's.
bats_require_minimum_version 1.5.0
load helpers
load ../apiserver/helpers

TD="$BATS_TEST_DIRNAME/../apiserver/testdata"

setup_file() {
    apiserver_start "$BATS_FILE_TMPDIR/api" --load "$TD/objects.yaml" --rbac "$TD/rbac.yaml" --bookmark-interval 0.5
}

teardown_file() {
    apiserver_stop
}

setup() {
    KUBECTL=
    for k in /usr/lib/google-cloud-sdk/bin/kubectl.1.33 /usr/bin/kubectl; do
        if [[ -x $k ]] && "$k" version --client >/dev/null 2>&1; then
            KUBECTL=$k
            break
        fi
    done
}

# Run a shell condition every 0.1 s, for at most 30 s.
wait_until() {
    local i
    for ((i = 0; i < 300; i++)); do
        eval "$1" && return 0
        sleep 0.1
    done
    echo "timed out waiting for: $1" >&2
    return 1
}

need_kubectl() {
    [[ -n $KUBECTL ]] || skip "no kubectl on this machine"
}

k() {
    "$KUBECTL" "$@"
}

# A raw request as admin; prints the body.
req() {
    apiserver_req "$@"
}

jqr() { # FILTER: read JSON on stdin
    /usr/bin/python3 -c '
import json, sys
v = json.load(sys.stdin)
for p in sys.argv[1].split("."):
    if p == "":
        continue
    v = v[int(p)] if isinstance(v, list) else v.get(p)
print(v if isinstance(v, str) else json.dumps(v))' "$1"
}

@test "start: files, loopback only, kubeconfig with context test" {
    assert_file_exists "$APISERVER_DIR/ca.crt"
    assert_file_exists "$APISERVER_DIR/kubeconfig-cert"
    grep -q '^current-context: test$' "$KUBECONFIG"
    grep -q "server: https://127.0.0.1:$(cat "$APISERVER_DIR/port")\$" "$KUBECONFIG"
    run ss -Htlnp
    if [[ $status -eq 0 ]]; then
        # every socket of the server listens on 127.0.0.1
        run bash -c "ss -Htlnp | grep 'pid=$APISERVER_PID,' | awk '{print \$4}'"
        assert_output "127.0.0.1:$(cat "$APISERVER_DIR/port")"
    fi
}

@test "kubectl get: plain table, -o json, -o yaml" {
    need_kubectl
    run k get resourceslices
    assert_success
    assert_line --regexp '^NAME +NODE +DRIVER +POOL +AGE$'
    assert_line --regexp '^node-1-gpu +node-1 +gpu.example.com +node-1 +'
    run k get resourceclaims -n team-a
    assert_success
    assert_line --regexp '^claim-a +pending +'
    run k get resourceclaim claim-a -n team-a -o json
    assert_success
    assert_equal "$(jqr .spec.devices.requests.0.exactly.deviceClassName <<<"$output")" gpu.example.com
    assert_equal "$(jqr .metadata.generation <<<"$output")" 1
    run k get nodes -o yaml
    assert_success
    assert_line '    name: node-1'
    assert_line '- apiVersion: v1'
    run k get pods -A -o wide
    assert_success
    assert_line --regexp '^team-a +trainer +0/1 +Running +0 +[0-9]+s +<none> +node-1 '
}

@test "kubectl api-resources: the DRA kinds with scope and kind" {
    need_kubectl
    run k api-resources --api-group=resource.k8s.io
    assert_success
    assert_line --regexp '^resourceclaims +resource.k8s.io/v1 +true +ResourceClaim$'
    assert_line --regexp '^resourceslices +resource.k8s.io/v1 +false +ResourceSlice$'
    assert_line --regexp '^devicetaintrules +resource.k8s.io/v1 +false +DeviceTaintRule$'
    run k api-resources
    assert_line --regexp '^pods +po +v1 +true +Pod$'
}

@test "kubectl create -f, generateName, and AlreadyExists" {
    need_kubectl
    cat >"$BATS_TEST_TMPDIR/t.yaml" <<'EOF'
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: tmpl
  namespace: team-a
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
EOF
    run k create -f "$BATS_TEST_TMPDIR/t.yaml"
    assert_success
    assert_output 'resourceclaimtemplate.resource.k8s.io/tmpl created'
    run k create -f "$BATS_TEST_TMPDIR/t.yaml"
    assert_failure
    assert_output --partial 'Error from server (AlreadyExists): error when creating'
    assert_output --partial 'resourceclaimtemplates.resource.k8s.io "tmpl" already exists'
    sed -e 's/  name: tmpl/  generateName: tmpl-/' "$BATS_TEST_TMPDIR/t.yaml" >"$BATS_TEST_TMPDIR/g.yaml"
    run k create -f "$BATS_TEST_TMPDIR/g.yaml" -o name
    assert_success
    assert_output --regexp '^resourceclaimtemplate.resource.k8s.io/tmpl-[bcdfghjklmnpqrstvwxz2456789]{5}$'
}

@test "kubectl label, then label and field selectors" {
    need_kubectl
    run k label resourceclaim claim-b -n team-a tier=cpu
    assert_success
    assert_output 'resourceclaim.resource.k8s.io/claim-b labeled'
    run k get resourceclaims -n team-a -l 'tier in (cpu,gpu),app!=train' -o name
    assert_output 'resourceclaim.resource.k8s.io/claim-b'
    run k get resourceclaims -n team-a -l '!tier' -o name
    assert_output ''
    run k get resourceclaims -A -l 'app notin (serve),tier' -o name
    assert_output 'resourceclaim.resource.k8s.io/claim-a'
    run k get resourceslices --field-selector spec.nodeName=node-1,spec.driver=gpu.example.com -o name
    assert_output 'resourceslice.resource.k8s.io/node-1-gpu'
    run k get resourceslices --field-selector spec.nodeName=node-2 -o name
    assert_output ''
    run k get resourceslices --field-selector spec.pool.name=node-1
    assert_failure
    assert_output --partial '"spec.pool.name" is not a known field selector'
    run k label resourceclaim claim-b -n team-a tier-
    assert_success
}

@test "kubectl get --chunk-size pages with limit and continue" {
    need_kubectl
    for i in 1 2 3 4 5; do
        req POST /api/v1/namespaces/team-a/events "{\"metadata\":{\"name\":\"ev$i\"},\"involvedObject\":{\"kind\":\"Pod\",\"name\":\"trainer\"},\"reason\":\"R$i\",\"message\":\"m\",\"type\":\"Normal\"}" >/dev/null
    done
    run k get events -n team-a --chunk-size=2 -o name -v=6
    assert_success
    assert_equal "$(grep -c '^event/ev' <<<"$output")" 5
    assert_equal "$(grep -c 'limit=2' <<<"$output")" 3
    assert_equal "$(grep -c 'continue=' <<<"$output")" 2
}

@test "kubectl get -w streams changes as they happen" {
    need_kubectl
    out=$BATS_TEST_TMPDIR/w.out
    "$KUBECTL" get resourceclaims -n team-a -w -o custom-columns=NAME:.metadata.name,W:.metadata.labels.watched >"$out" 2>&1 3>&- &
    pid=$!
    wait_until 'grep -q "^claim-b" "$out"'
    apiserver_req PATCH /apis/resource.k8s.io/v1/namespaces/team-a/resourceclaims/claim-a \
        '{"metadata":{"labels":{"watched":"yes"}}}' application/merge-patch+json >/dev/null
    wait_until 'grep -qE "^claim-a +yes$" "$out"' || true
    kill "$pid"
    wait "$pid" || true
    run cat "$out"
    assert_line --regexp '^claim-a +<none>$'
    assert_line --regexp '^claim-a +yes$'
}

@test "kubectl delete: gone afterwards; a finalizer keeps the object with deletionTimestamp" {
    need_kubectl
    req POST /apis/resource.k8s.io/v1/deviceclasses '{"metadata":{"name":"tmp.example.com"}}' >/dev/null
    run k delete deviceclass tmp.example.com
    assert_success
    assert_output 'deviceclass.resource.k8s.io "tmp.example.com" deleted'
    run k get deviceclass tmp.example.com
    assert_failure
    assert_output 'Error from server (NotFound): deviceclasses.resource.k8s.io "tmp.example.com" not found'
    req POST /apis/resource.k8s.io/v1/deviceclasses '{"metadata":{"name":"fin.example.com","finalizers":["example.com/keep"]}}' >/dev/null
    run k delete deviceclass fin.example.com --wait=false
    assert_success
    run k get deviceclass fin.example.com -o json
    assert_success
    [[ $(jqr .metadata.deletionTimestamp <<<"$output") == 20* ]]
    assert_equal "$(jqr .metadata.generation <<<"$output")" 2
    run k patch deviceclass fin.example.com --type=json -p '[{"op":"remove","path":"/metadata/finalizers"}]'
    assert_success
    run k get deviceclass fin.example.com
    assert_failure
}

@test "RBAC: a restricted token gets upstream's 403; bindings by user, group, service account and cert" {
    need_kubectl
    run k --kubeconfig "$APISERVER_DIR/kubeconfig-viewer" get resourceclaims -A
    assert_failure
    assert_output 'Error from server (Forbidden): resourceclaims.resource.k8s.io is forbidden: User "viewer" cannot list resource "resourceclaims" in API group "resource.k8s.io" at the cluster scope'
    run k --kubeconfig "$APISERVER_DIR/kubeconfig-viewer" get resourceslices -o name
    assert_success
    assert_output 'resourceslice.resource.k8s.io/node-1-gpu'
    run k --kubeconfig "$APISERVER_DIR/kubeconfig-viewer-cert" get nodes -o name
    assert_output 'node/node-1'
    run k --kubeconfig "$APISERVER_DIR/kubeconfig-claims-reader" delete resourceclaim claim-a -n team-a
    assert_failure
    assert_output --partial 'resourceclaims.resource.k8s.io "claim-a" is forbidden: User "claims-reader" cannot delete resource "resourceclaims" in API group "resource.k8s.io" in the namespace "team-a"'
    run k --kubeconfig "$APISERVER_DIR/kubeconfig-system_serviceaccount_dra-system_claims" get resourceclaims -n team-a
    assert_failure
    assert_output --partial 'in the namespace "team-a"'
    run k --kubeconfig "$APISERVER_DIR/kubeconfig-system_serviceaccount_dra-system_claims" get resourceclaims -n default
    assert_success
    run k --kubeconfig "$APISERVER_DIR/kubeconfig-cert" auth whoami -o jsonpath='{.status.userInfo.username}' 2>/dev/null
    run k --kubeconfig "$APISERVER_DIR/kubeconfig-cert" get ns default -o name
    assert_output 'namespace/default'
}

@test "raw: 401 for an unknown token, Status bodies for 404, 405, 415, 400" {
    echo bogus >"$BATS_TEST_TMPDIR/tok"
    run -1 /usr/bin/python3 "$APISERVER_REQ" --token-file "$BATS_TEST_TMPDIR/tok" "$APISERVER_DIR" GET /api/v1/pods
    assert_line '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}'
    run -1 req GET /apis/resource.k8s.io/v1/namespaces/team-a/resourceclaims/nope
    assert_line '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"resourceclaims.resource.k8s.io \"nope\" not found","reason":"NotFound","details":{"name":"nope","group":"resource.k8s.io","kind":"resourceclaims"},"code":404}'
    run -1 req POST /apis/resource.k8s.io/v1/namespaces/team-a/resourceclaims/claim-a '{}'
    assert_line --partial '"reason":"MethodNotAllowed"'
    run -1 req POST /apis/resource.k8s.io/v1/deviceclasses 'metadata: {name: x}' text/plain
    assert_line --partial '"code":415'
    run -1 req POST /apis/resource.k8s.io/v1/deviceclasses '{"metadata":'
    assert_line --partial '"reason":"BadRequest"'
    run -1 req POST /apis/resource.k8s.io/v1/deviceclasses '{"apiVersion":"v1","kind":"DeviceClass","metadata":{"name":"x"}}'
    assert_line --partial 'the API version in the data (v1) does not match the expected API version (resource.k8s.io/v1)'
    run -1 req POST /apis/resource.k8s.io/v1/namespaces/nowhere/resourceclaims '{"metadata":{"name":"x"}}'
    assert_line --partial 'namespaces \"nowhere\" not found'
    run -1 req POST /apis/resource.k8s.io/v1/deviceclasses '{"metadata":{"name":"Bad_Name"}}'
    assert_line --partial '"code":422'
}

@test "raw: list items carry no kind, resourceVersion preconditions give upstream's 409" {
    run req GET /apis/resource.k8s.io/v1/namespaces/team-a/resourceclaims
    assert_success
    assert_equal "$(jqr .kind <<<"$output")" ResourceClaimList
    assert_equal "$(jqr .items.0.kind <<<"$output")" null
    claim=$(req GET /apis/resource.k8s.io/v1/namespaces/team-a/resourceclaims/claim-b)
    req PATCH /apis/resource.k8s.io/v1/namespaces/team-a/resourceclaims/claim-b '{"metadata":{"annotations":{"a":"1"}}}' application/merge-patch+json >/dev/null
    run -1 req PUT /apis/resource.k8s.io/v1/namespaces/team-a/resourceclaims/claim-b "$claim"
    assert_line '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on resourceclaims.resource.k8s.io \"claim-b\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{"name":"claim-b","group":"resource.k8s.io","kind":"resourceclaims"},"code":409}'
    run -1 req DELETE /apis/resource.k8s.io/v1/namespaces/team-a/resourceclaims/claim-b '{"preconditions":{"uid":"not-the-uid"}}'
    assert_line --partial 'Precondition failed: UID in precondition: not-the-uid, UID in object meta: '
    run -1 req PATCH /apis/resource.k8s.io/v1/namespaces/team-a/resourceclaims/claim-b '[{"op":"test","path":"/metadata/name","value":"other"}]' application/json-patch+json
    assert_line --partial '"code":422'
}

@test "raw: status updates change only status; the main resource keeps status" {
    c=$(req GET /apis/resource.k8s.io/v1/namespaces/team-a/resourceclaims/claim-a)
    rv=$(jqr .metadata.resourceVersion <<<"$c")
    run req PUT /apis/resource.k8s.io/v1/namespaces/team-a/resourceclaims/claim-a/status \
        "{\"metadata\":{\"name\":\"claim-a\",\"namespace\":\"team-a\",\"resourceVersion\":\"$rv\",\"labels\":{\"ignored\":\"1\"}},\"status\":{\"allocation\":{\"devices\":{\"results\":[{\"request\":\"gpu\",\"driver\":\"gpu.example.com\",\"pool\":\"node-1\",\"device\":\"gpu-0\"}]}},\"reservedFor\":[{\"resource\":\"pods\",\"name\":\"trainer\",\"uid\":\"u1\"}]}}"
    assert_success
    assert_equal "$(jqr .status.reservedFor.0.name <<<"$output")" trainer
    assert_equal "$(jqr .metadata.labels.ignored <<<"$output")" null
    run req PATCH /apis/resource.k8s.io/v1/namespaces/team-a/resourceclaims/claim-a '{"status":null,"metadata":{"labels":{"x":"y"}}}' application/merge-patch+json
    assert_success
    assert_equal "$(jqr .status.reservedFor.0.name <<<"$output")" trainer
    assert_equal "$(jqr .metadata.labels.x <<<"$output")" y
}

@test "watch: events from a resourceVersion, bookmarks, 410 after expiry, dropped streams" {
    rv=$(req GET /apis/resource.k8s.io/v1/resourceslices | jqr .metadata.resourceVersion)
    req POST /_test/burst '{"resource":"resourceslices","count":3}' >/dev/null
    run req GET "/apis/resource.k8s.io/v1/resourceslices?watch=1&resourceVersion=$rv&allowWatchBookmarks=true&timeoutSeconds=2"
    assert_success
    assert_equal "$(grep -c '^{"type":"MODIFIED","object":{"kind":"ResourceSlice","apiVersion":"resource.k8s.io/v1"' <<<"$output")" 3
    assert_line --regexp '^\{"type":"BOOKMARK","object":\{"kind":"ResourceSlice","apiVersion":"resource.k8s.io/v1","metadata":\{"resourceVersion":"[0-9]+"'
    req POST /_test/faults "{\"expireBefore\":$((rv + 2))}" >/dev/null
    run req GET "/apis/resource.k8s.io/v1/resourceslices?watch=true&resourceVersion=$rv&timeoutSeconds=1"
    assert_success
    assert_output --regexp '^\{"type":"ERROR","object":\{"kind":"Status","apiVersion":"v1","metadata":\{\},"status":"Failure","message":"too old resource version: [0-9]+ \([0-9]+\)","reason":"Expired","code":410\}\}$'
    req POST /_test/faults '{"expireMode":"http"}' >/dev/null
    run -1 req GET "/apis/resource.k8s.io/v1/resourceslices?watch=true&resourceVersion=$rv"
    assert_line --partial '"reason":"Expired","code":410'
    req POST /_test/reset '{}' >/dev/null
    req POST /_test/faults '{"dropWatchAfter":2}' >/dev/null
    run -3 req GET "/apis/resource.k8s.io/v1/resourceclaims?watch=1"
    assert_equal "$(grep -c '"type":"ADDED"' <<<"$output")" 2
    req POST /_test/reset '{}' >/dev/null
}

@test "faults: 429 with Retry-After for a path, then normal service; stats count verbs" {
    req POST /_test/faults '{"status":{"code":429,"retryAfter":1,"count":1,"path":"/api/v1/nodes"}}' >/dev/null
    run -1 req GET /api/v1/nodes
    assert_line --partial '"reason":"TooManyRequests","details":{"retryAfterSeconds":1},"code":429'
    run req GET /api/v1/nodes
    assert_success
    run req GET /_test/stats
    assert_success
    [[ $(jqr .verbs.list <<<"$output") -ge 2 ]]
}

@test "faults: a concurrent writer changes the object between our read and our write" {
    c=$(req GET /apis/resource.k8s.io/v1/namespaces/team-a/resourceclaims/claim-a)
    req POST /_test/faults '{"concurrentWriter":{"path":"/apis/resource.k8s.io/v1/namespaces/team-a/resourceclaims/claim-a","patch":{"metadata":{"labels":{"other":"writer"}}}}}' >/dev/null
    run -1 req PUT /apis/resource.k8s.io/v1/namespaces/team-a/resourceclaims/claim-a "$c"
    assert_line --partial 'the object has been modified'
    run req GET /apis/resource.k8s.io/v1/namespaces/team-a/resourceclaims/claim-a
    assert_equal "$(jqr .metadata.labels.other <<<"$output")" writer
}

@test "create: fieldValidation Strict refuses unknown fields (kubectl's default), Warn answers with a Warning" {
    run -1 req POST '/apis/resource.k8s.io/v1/deviceclasses?fieldValidation=Strict' '{"metadata":{"name":"s.example.com","lables":{}},"spec":{},"sepc":{}}'
    assert_line --partial '"message":"strict decoding error: unknown field \"sepc\", unknown field \"metadata.lables\"","reason":"BadRequest","code":400'
    run req POST /apis/resource.k8s.io/v1/deviceclasses '{"metadata":{"name":"w.example.com"},"sepc":{}}'
    assert_success
    if [[ -n $KUBECTL ]]; then
        printf 'apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: t.example.com\nsepc: {}\n' >"$BATS_TEST_TMPDIR/c.yaml"
        run k create -f "$BATS_TEST_TMPDIR/c.yaml"
        assert_failure
        assert_output --partial 'strict decoding error: unknown field "sepc"'
    fi
}

@test "create and delete: dryRun=All stores nothing" {
    run req POST '/apis/resource.k8s.io/v1/deviceclasses?dryRun=All' '{"metadata":{"name":"dry.example.com"}}'
    assert_success
    assert_equal "$(jqr .metadata.name <<<"$output")" dry.example.com
    run -1 req GET /apis/resource.k8s.io/v1/deviceclasses/dry.example.com
    run req DELETE '/apis/resource.k8s.io/v1/resourceslices/node-1-gpu?dryRun=All'
    assert_success
    run req GET /apis/resource.k8s.io/v1/resourceslices/node-1-gpu
    assert_success
}

@test "list: an expired continue token is 410 with an inconsistent continuation; Exact lists from history" {
    for i in 1 2 3; do
        req POST /apis/resource.k8s.io/v1/namespaces/team-b/resourceclaims "{\"metadata\":{\"name\":\"p$i\"},\"spec\":{}}" >/dev/null 2>&1 ||
            { req POST /api/v1/namespaces '{"metadata":{"name":"team-b"}}' >/dev/null; req POST /apis/resource.k8s.io/v1/namespaces/team-b/resourceclaims "{\"metadata\":{\"name\":\"p$i\"},\"spec\":{}}" >/dev/null; }
    done
    page=$(req GET '/apis/resource.k8s.io/v1/namespaces/team-b/resourceclaims?limit=1')
    assert_equal "$(jqr .metadata.remainingItemCount <<<"$page")" 2
    cont=$(jqr .metadata.continue <<<"$page")
    rv=$(jqr .metadata.resourceVersion <<<"$page")
    req DELETE /apis/resource.k8s.io/v1/namespaces/team-b/resourceclaims/p2 >/dev/null
    # the next page is the snapshot of the first: p2 is still there
    run req GET "/apis/resource.k8s.io/v1/namespaces/team-b/resourceclaims?limit=1&continue=$cont"
    assert_equal "$(jqr .items.0.metadata.name <<<"$output")" p2
    assert_equal "$(jqr .metadata.resourceVersion <<<"$output")" "$rv"
    run req GET "/apis/resource.k8s.io/v1/namespaces/team-b/resourceclaims?resourceVersion=$rv&resourceVersionMatch=Exact"
    assert_equal "$(jqr .items.1.metadata.name <<<"$output")" p2
    req POST /_test/compact '{}' >/dev/null
    run -1 req GET "/apis/resource.k8s.io/v1/namespaces/team-b/resourceclaims?limit=1&continue=$cont"
    assert_line --partial '"message":"The provided continue parameter is too old to display a consistent list result.'
    assert_line --partial '"reason":"Expired","code":410'
    cont2=$(jqr .metadata.continue <<<"${lines[0]}")
    run req GET "/apis/resource.k8s.io/v1/namespaces/team-b/resourceclaims?limit=5&continue=$cont2"
    assert_success
    assert_equal "$(jqr .items.0.metadata.name <<<"$output")" p3
    run -1 req GET "/apis/resource.k8s.io/v1/namespaces/team-b/resourceclaims?resourceVersion=$rv&resourceVersionMatch=Exact"
    assert_line --partial '"message":"The resourceVersion for the provided list is too old."'
    run -1 req GET "/apis/resource.k8s.io/v1/namespaces/team-b/resourceclaims?resourceVersion=999999999&resourceVersionMatch=Exact"
    assert_line --partial '"code":504'
}

@test "watch: selectors turn objects that stop or start matching into DELETED and ADDED; initial events" {
    rv=$(req GET /apis/resource.k8s.io/v1/namespaces/team-a/resourceclaims | jqr .metadata.resourceVersion)
    P=/apis/resource.k8s.io/v1/namespaces/team-a/resourceclaims/claim-b
    req PATCH $P '{"metadata":{"labels":{"sel":"on"}}}' application/merge-patch+json >/dev/null
    req PATCH $P '{"metadata":{"labels":{"sel":"off"}}}' application/merge-patch+json >/dev/null
    run req GET "/apis/resource.k8s.io/v1/namespaces/team-a/resourceclaims?watch=1&labelSelector=sel%3Don&resourceVersion=$rv&timeoutSeconds=1"
    assert_equal "$(grep -o '^{"type":"[A-Z]*"' <<<"$output" | tr '\n' ' ')" '{"type":"ADDED" {"type":"DELETED" '
    run req GET '/apis/resource.k8s.io/v1/resourceslices?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1'
    assert_line --index 0 --partial '{"type":"ADDED","object":{"kind":"ResourceSlice"'
    assert_line --index 1 --regexp '^\{"type":"BOOKMARK","object":\{"kind":"ResourceSlice","apiVersion":"resource.k8s.io/v1","metadata":\{"resourceVersion":"[0-9]+","creationTimestamp":null,"annotations":\{"k8s.io/initial-events-end":"true"\}\}\}\}$'
}

@test "watch: expireOpenWatches ends open streams with an ERROR 410 event" {
    out=$BATS_TEST_TMPDIR/w.out
    apiserver_req GET '/api/v1/nodes?watch=1&timeoutSeconds=20' >"$out" 3>&- &
    pid=$!
    for _ in $(seq 100); do
        [[ $(req GET /_test/stats | jqr .watchesOpen) -ge 1 ]] && break
        sleep 0.1
    done
    req POST /_test/faults '{"expireNow":true,"expireOpenWatches":true}' >/dev/null
    wait $pid
    run cat "$out"
    assert_line --regexp '^\{"type":"ERROR","object":\{"kind":"Status".*"reason":"Expired","code":410\}\}$'
    req POST /_test/reset '{}' >/dev/null
}

@test "patch: strategic merge patch merges finalizers and conditions by type; json patch ops" {
    P=/api/v1/nodes/node-1
    run req PATCH $P '{"metadata":{"finalizers":["a.example.com/x"]}}' application/strategic-merge-patch+json
    run req PATCH $P '{"metadata":{"finalizers":["a.example.com/y"]}}' application/strategic-merge-patch+json
    assert_equal "$(jqr .metadata.finalizers <<<"$output")" '["a.example.com/x", "a.example.com/y"]'
    run req PATCH $P/status '{"status":{"conditions":[{"type":"DiskPressure","status":"False"}]}}' application/strategic-merge-patch+json
    assert_success
    assert_equal "$(jqr .status.conditions.0.type <<<"$output")" Ready
    assert_equal "$(jqr .status.conditions.1.type <<<"$output")" DiskPressure
    run req PATCH $P '{"$deleteFromPrimitiveList/finalizers":["a.example.com/x"],"metadata":{"$patch":"merge"}}' application/strategic-merge-patch+json
    run req PATCH $P '{"metadata":{"$deleteFromPrimitiveList/finalizers":["a.example.com/x","a.example.com/y"]}}' application/strategic-merge-patch+json
    assert_success
    assert_equal "$(jqr .metadata.finalizers <<<"$output")" null
    run req PATCH $P '[{"op":"add","path":"/metadata/labels/a~1b","value":"1"},{"op":"copy","from":"/metadata/labels/a~1b","path":"/metadata/labels/c"},{"op":"test","path":"/metadata/labels/c","value":"1"}]' application/json-patch+json
    assert_success
    assert_equal "$(jqr .metadata.labels.c <<<"$output")" 1
    run -1 req PATCH "$P?force=true" '{"metadata":{}}' application/merge-patch+json
    assert_line --partial 'PatchOptions.meta.k8s.io \"\" is invalid: force: Forbidden: may not be specified for non-apply patch'
}

@test "apply: server-side apply of pod status as the claim controller does it; owners, conflicts, force" {
    req POST /api/v1/namespaces/default/pods '{"metadata":{"name":"ssa"},"spec":{"containers":[{"name":"c","image":"i"}]}}' >/dev/null
    P=/api/v1/namespaces/default/pods/ssa/status
    body() { # NAME CLAIM: a pod status apply configuration
        printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"ssa","namespace":"default"},"status":{"resourceClaimStatuses":[{"name":"%s","resourceClaimName":"%s"}]}}' "$1" "$2"
    }
    run -1 req PATCH "$P" "$(body gpu ssa-gpu-1)" application/apply-patch+yaml
    assert_line --partial 'PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch'
    run req PATCH "$P?fieldManager=ResourceClaimController&force=true" "$(body gpu ssa-gpu-1)" application/apply-patch+yaml
    assert_success
    assert_equal "$(jq -c .status.resourceClaimStatuses <<<"$output")" '[{"name":"gpu","resourceClaimName":"ssa-gpu-1"}]'
    assert_equal "$(jq -r .status.phase <<<"$output")" Pending
    assert_equal "$(jq -c '.metadata.managedFields[] | [.manager, .operation, .subresource]' <<<"$output")" '["ResourceClaimController","Apply","status"]'
    assert_equal "$(jq -c '.metadata.managedFields[0].fieldsV1' <<<"$output")" \
        '{"f:status":{"f:resourceClaimStatuses":{".":{},"k:{\"name\":\"gpu\"}":{"f:name":{},"f:resourceClaimName":{},".":{}}}}}'
    # another manager changing that field: a conflict naming the owner and the field; YAML bodies work
    run -1 req PATCH "$P?fieldManager=someone" $'apiVersion: v1\nkind: Pod\nmetadata: {name: ssa}\nstatus:\n  resourceClaimStatuses: [{name: gpu, resourceClaimName: other}]\n' application/apply-patch+yaml
    assert_line --partial '"message":"Apply failed with 1 conflict: conflict with \"ResourceClaimController\" using v1: .status.resourceClaimStatuses[name=\"gpu\"].resourceClaimName","reason":"Conflict"'
    assert_line --partial '"causes":[{"reason":"FieldManagerConflict"'
    # a list-map merges by key: another entry of another manager stays beside it
    run req PATCH "$P?fieldManager=someone" "$(body net ssa-net)" application/apply-patch+yaml
    assert_equal "$(jq -c '[.status.resourceClaimStatuses[].name]' <<<"$output")" '["gpu","net"]'
    # applying again without an entry removes what this manager owned, nothing else
    run req PATCH "$P?fieldManager=ResourceClaimController&force=true" '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"ssa"},"status":{}}' application/apply-patch+yaml
    assert_equal "$(jq -c '[.status.resourceClaimStatuses[].name]' <<<"$output")" '["net"]'
    # force takes a field over
    run req PATCH "$P?fieldManager=ResourceClaimController&force=true" "$(body net ssa-net-2)" application/apply-patch+yaml
    assert_success
    assert_equal "$(jq -c '[.status.resourceClaimStatuses[] | .resourceClaimName]' <<<"$output")" '["ssa-net-2"]'
    # wrong name, wrong kind; status of a missing object
    run -1 req PATCH "$P?fieldManager=x" '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"other"}}' application/apply-patch+yaml
    assert_line --partial 'the name of the object (other) does not match the name on the URL (ssa)'
    run -1 req PATCH "$P?fieldManager=x" '{"apiVersion":"v1","kind":"Node","metadata":{"name":"ssa"}}' application/apply-patch+yaml
    assert_line --partial '"code":400'
    run -1 req PATCH "/api/v1/namespaces/default/pods/none/status?fieldManager=x" '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"none"}}' application/apply-patch+yaml
    assert_line --partial '"code":404'
}

@test "apply: kubectl apply --server-side creates, then updates and prunes what it applied" {
    need_kubectl
    printf 'apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: ssa-gpu, labels: {a: "1", b: "2"}}\nspec:\n  selectors: [{cel: {expression: "true"}}]\n' >"$BATS_TEST_TMPDIR/c.yaml"
    run k apply --server-side -f "$BATS_TEST_TMPDIR/c.yaml"
    assert_success
    assert_output "deviceclass.resource.k8s.io/ssa-gpu serverside-applied"
    sed -i 's/, b: "2"//' "$BATS_TEST_TMPDIR/c.yaml"
    run k apply --server-side -f "$BATS_TEST_TMPDIR/c.yaml"
    assert_success
    run req GET /apis/resource.k8s.io/v1/deviceclasses/ssa-gpu
    assert_equal "$(jq -c .metadata.labels <<<"$output")" '{"a":"1"}'
    assert_equal "$(jq -r '.metadata.managedFields[0].manager' <<<"$output")" kubectl
}

@test "deletecollection with a selector; deleting a namespace deletes its contents" {
    req POST /api/v1/namespaces '{"metadata":{"name":"gone"}}' >/dev/null
    for i in 1 2 3; do
        req POST /apis/resource.k8s.io/v1/namespaces/gone/resourceclaims "{\"metadata\":{\"name\":\"c$i\",\"labels\":{\"n\":\"$i\"}},\"spec\":{}}" >/dev/null
    done
    run req DELETE '/apis/resource.k8s.io/v1/namespaces/gone/resourceclaims?labelSelector=n%20in%20(1,2)'
    assert_success
    assert_equal "$(jqr .items.1.metadata.name <<<"$output")" c2
    run req DELETE /api/v1/namespaces/gone
    assert_success
    run req GET /apis/resource.k8s.io/v1/namespaces/gone/resourceclaims
    assert_equal "$(jqr .items <<<"$output")" '[]'
}

@test "Accept: protobuf only is 406; YAML on request" {
    run -1 python3 - "$APISERVER_DIR" <<'PY'
import http.client, ssl, sys, os
d = sys.argv[1]
c = http.client.HTTPSConnection("127.0.0.1", int(open(d + "/port").read()), context=ssl.create_default_context(cafile=d + "/ca.crt"))
tok = open(d + "/admin.token").read().strip()
c.request("GET", "/api/v1/nodes/node-1", headers={"Authorization": "Bearer " + tok, "Accept": "application/yaml"})
r = c.getresponse(); print(r.status, r.getheader("Content-Type")); print(r.read().decode().splitlines()[0])
c.request("GET", "/api/v1/nodes", headers={"Authorization": "Bearer " + tok, "Accept": "application/vnd.kubernetes.protobuf"})
r = c.getresponse(); print(r.status); print(r.read().decode()); sys.exit(1)
PY
    assert_line --index 0 '200 application/yaml'
    assert_line --index 1 'kind: Node'
    assert_line --index 2 '406'
}

@test "a second server: --dra-versions v1beta2 only, SIGTERM removes port and pid" {
    d=$BATS_TEST_TMPDIR/second
    (
        apiserver_start "$d" --dra-versions v1beta2 --load "$TD/objects.yaml"
        apiserver_req GET /apis/resource.k8s.io >"$d/group.json"
        apiserver_req GET /apis/resource.k8s.io/v1beta2/resourceslices/node-1-gpu >"$d/slice.json"
        apiserver_req GET /apis/resource.k8s.io/v1/resourceslices >"$d/v1.json" || true
        echo "$APISERVER_PID" >"$d/server.pid"
        apiserver_stop
    ) 3>&-
    assert_equal "$(jqr .preferredVersion.groupVersion <"$d/group.json")" resource.k8s.io/v1beta2
    assert_equal "$(jqr .apiVersion <"$d/slice.json")" resource.k8s.io/v1beta2
    run cat "$d/v1.json"
    assert_output --partial '"code":404'
    run kill -0 "$(cat "$d/server.pid")"
    assert_failure
    assert_file_not_exists "$d/port"
    assert_file_not_exists "$d/pid"
}

@test "bad input: a --load file with a YAML error names file and line; exit 2" {
    printf 'apiVersion: v1\nkind: Node\nmetadata:\n  name: n\n  labels: {a: [1\n' >"$BATS_TEST_TMPDIR/bad.yaml"
    run -2 /usr/bin/python3 "$APISERVER_PY" --dir "$BATS_TEST_TMPDIR/bad" --load "$BATS_TEST_TMPDIR/bad.yaml"
    assert_output --regexp "bad.yaml: line 5: "
    printf '{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"}}\n{"apiVersion":"v1","kind":\n' >"$BATS_TEST_TMPDIR/bad.jsonl"
    run -2 /usr/bin/python3 "$APISERVER_PY" --dir "$BATS_TEST_TMPDIR/bad" --load "$BATS_TEST_TMPDIR/bad.jsonl"
    assert_output --partial 'bad.jsonl:2: '
    printf '{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"n"}}\n' >"$BATS_TEST_TMPDIR/kind.json"
    run -2 /usr/bin/python3 "$APISERVER_PY" --dir "$BATS_TEST_TMPDIR/bad" --load "$BATS_TEST_TMPDIR/kind.json"
    assert_output --partial 'kind.json: document 1: unknown kind example.com/v1 Widget'
}

@test "YAML loader: block scalars, flow collections, quoting, comments and documents" {
    cat >"$BATS_TEST_TMPDIR/y.yaml" <<'EOF'
# leading comment
apiVersion: v1
kind: ConfigMapLike
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: y.example.com   # trailing comment
  labels: {a: "1", b: 'it''s', c: "x#y"}
  annotations:
    folded: >-
      one
      two
    literal: |
      line 1
        indented
    list: "[1, 2]"
spec:
  selectors:
  - cel:
      expression: >
        device.driver == "y.example.com" &&
        device.attributes["y.example.com"].n >= 0x10
...
EOF
    run /usr/bin/python3 -c 'import sys, json; sys.path.insert(0, sys.argv[1]); import kyaml; print(json.dumps(kyaml.load_all(open(sys.argv[2]).read())[1], sort_keys=True))' \
        "$(dirname "$APISERVER_PY")" "$BATS_TEST_TMPDIR/y.yaml"
    assert_success
    assert_output '{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"annotations": {"folded": "one two", "list": "[1, 2]", "literal": "line 1\n  indented\n"}, "labels": {"a": "1", "b": "it'"'"'s", "c": "x#y"}, "name": "y.example.com"}, "spec": {"selectors": [{"cel": {"expression": "device.driver == \"y.example.com\" && device.attributes[\"y.example.com\"].n >= 0x10\n"}}]}}'
}

@test "tokens: added at run time with the rules of their user, revoked -> 401" {
    echo rotated-1 >"$BATS_TEST_TMPDIR/tok"
    run -1 /usr/bin/python3 "$APISERVER_REQ" --token-file "$BATS_TEST_TMPDIR/tok" "$APISERVER_DIR" GET /api/v1/nodes
    assert_line --partial '"code":401'
    req POST /_test/tokens '{"add":{"token":"rotated-1","user":"viewer"}}' >/dev/null
    run /usr/bin/python3 "$APISERVER_REQ" --token-file "$BATS_TEST_TMPDIR/tok" "$APISERVER_DIR" GET /api/v1/nodes
    assert_success
    run -1 /usr/bin/python3 "$APISERVER_REQ" --token-file "$BATS_TEST_TMPDIR/tok" "$APISERVER_DIR" GET /api/v1/namespaces
    assert_line --partial 'namespaces is forbidden: User \"viewer\" cannot list resource \"namespaces\" in API group \"\" at the cluster scope'
    req POST /_test/tokens '{"revoke":"rotated-1"}' >/dev/null
    run -1 /usr/bin/python3 "$APISERVER_REQ" --token-file "$BATS_TEST_TMPDIR/tok" "$APISERVER_DIR" GET /api/v1/nodes
    assert_line --partial '"code":401'
}

@test "faults: dropWatchAfter seconds also cuts watches that are already open" {
    out=$BATS_TEST_TMPDIR/w.out
    apiserver_req GET '/api/v1/nodes?watch=1&timeoutSeconds=30' >"$out" 2>&1 3>&- &
    pid=$!
    for _ in $(seq 100); do
        [[ $(req GET /_test/stats | jqr .watchesOpen) -ge 1 ]] && break
        sleep 0.1
    done
    req POST /_test/faults '{"dropWatchAfter":{"seconds":0.5}}' >/dev/null
    rc=0
    wait $pid || rc=$?
    assert_equal "$rc" 3
    req POST /_test/reset '{}' >/dev/null
}

@test "claim status: upstream's invariants, and the claim controller's order of release, deallocation, finalizer removal" {
    C=/apis/resource.k8s.io/v1/namespaces/team-a/resourceclaims
    req POST $C '{"metadata":{"name":"sv","finalizers":["resource.kubernetes.io/delete-protection"]},"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com"}}]}}}' >/dev/null
    run -1 req PATCH $C/sv/status '{"status":{"reservedFor":[{"resource":"pods","name":"p","uid":"u1"}]}}' application/merge-patch+json
    assert_line --partial '"message":"ResourceClaim.resource.k8s.io \"sv\" is invalid: status.reservedFor: Forbidden: may not be specified when `allocated` is not set"'
    alloc='{"devices":{"results":[{"request":"gpu","driver":"gpu.example.com","pool":"node-1","device":"gpu-0"}]}}'
    run req PATCH $C/sv/status "{\"status\":{\"allocation\":$alloc,\"reservedFor\":[{\"resource\":\"pods\",\"name\":\"p\",\"uid\":\"u1\"}]}}" application/merge-patch+json
    assert_success
    run -1 req PATCH $C/sv/status '{"status":{"allocation":{"devices":{"results":[{"request":"gpu","driver":"gpu.example.com","pool":"node-1","device":"gpu-1"}]}}}}' application/merge-patch+json
    assert_line --partial 'status.allocation: Invalid value: field is immutable'
    run -1 req PATCH $C/sv/status '{"status":{"reservedFor":[{"resource":"pods","name":"p","uid":"u1"},{"resource":"pods","name":"q","uid":"u1"}]}}' application/merge-patch+json
    assert_line --partial 'status.reservedFor[1]: Duplicate value: \"u1\"'
    run -1 req PATCH $C/sv '{"spec":{"devices":{"requests":[]}}}' application/merge-patch+json
    assert_line --partial 'ResourceClaim.resource.k8s.io \"sv\" is invalid: spec: Invalid value: field is immutable'
    req DELETE $C/sv >/dev/null
    run -1 req PATCH $C/sv/status '{"status":{"reservedFor":[{"resource":"pods","name":"p","uid":"u1"},{"resource":"pods","name":"q","uid":"u2"}]}}' application/merge-patch+json
    assert_line --partial 'new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set'
    uid=$(req GET $C/sv | jqr .metadata.uid)
    run req PATCH $C/sv/status "{\"metadata\":{\"uid\":\"$uid\"},\"status\":{\"reservedFor\":[{\"\$patch\":\"delete\",\"uid\":\"u1\"}]}}" application/strategic-merge-patch+json
    assert_success
    assert_equal "$(jqr .status.reservedFor <<<"$output")" null
    run req PATCH $C/sv/status '{"status":{"allocation":null}}' application/merge-patch+json
    assert_success
    # a status update cannot remove the finalizer; a normal update can, and the object goes
    run req PATCH $C/sv/status '{"metadata":{"finalizers":null}}' application/merge-patch+json
    assert_equal "$(jqr .metadata.finalizers <<<"$output")" '["resource.kubernetes.io/delete-protection"]'
    run req PATCH $C/sv '{"metadata":{"finalizers":null}}' application/merge-patch+json
    assert_success
    run -1 req GET $C/sv
    assert_line --partial '"code":404'
}

@test "--graceful-pods: a running pod keeps deletionTimestamp until a DELETE with gracePeriodSeconds=0" {
    d=$BATS_TEST_TMPDIR/graceful
    (
        apiserver_start "$d" --graceful-pods --load "$TD/objects.yaml" --now 2025-01-01T00:00:00Z
        P=/api/v1/namespaces/team-a/pods/trainer
        apiserver_req DELETE $P >"$d/first.json"
        apiserver_req GET $P >"$d/after.json"
        apiserver_req DELETE "$P?gracePeriodSeconds=0" >/dev/null
        apiserver_req GET $P >"$d/gone.json" 2>&1 || true
        apiserver_stop
    ) 3>&-
    assert_equal "$(jqr .metadata.deletionTimestamp <"$d/first.json")" 2025-01-01T00:00:30Z
    assert_equal "$(jqr .metadata.deletionGracePeriodSeconds <"$d/after.json")" 30
    run cat "$d/gone.json"
    assert_output --partial '"code":404'
}

@test "kubectl auth can-i and auth whoami: SelfSubjectAccessReview (protobuf or JSON) and SelfSubjectReview" {
    run req POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews '{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{"resourceAttributes":{"verb":"delete","group":"resource.k8s.io","resource":"resourceclaims","namespace":"team-a"}}}'
    assert_success
    assert_equal "$(jqr .status.allowed <<<"$output")" true
    need_kubectl
    run k --kubeconfig "$APISERVER_DIR/kubeconfig-viewer" auth can-i list resourceclaims -A
    assert_failure 1
    assert_output no
    run k --kubeconfig "$APISERVER_DIR/kubeconfig-viewer" auth can-i watch resourceslices.resource.k8s.io -A
    assert_output yes
    run k --kubeconfig "$APISERVER_DIR/kubeconfig-system_serviceaccount_dra-system_claims" auth can-i update resourceclaims --subresource=status -n default
    assert_output yes
    run k --kubeconfig "$APISERVER_DIR/kubeconfig-system_serviceaccount_dra-system_claims" auth can-i update resourceclaims --subresource=status -n team-a
    assert_output no
    run k --kubeconfig "$APISERVER_DIR/kubeconfig-viewer-cert" auth whoami -o jsonpath='{.status.userInfo.username}'
    assert_output viewer
}
