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

@test "kubectl get -w streams changes until its timeout" {
    need_kubectl
    (sleep 1.5; apiserver_req PATCH /apis/resource.k8s.io/v1/namespaces/team-a/resourceclaims/claim-a \
        '{"metadata":{"labels":{"watched":"yes"}}}' application/merge-patch+json >/dev/null) 3>&- &
    run timeout 6 "$KUBECTL" get resourceclaims -n team-a -w -o custom-columns=NAME:.metadata.name,W:.metadata.labels.watched --request-timeout=4s
    wait
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
        "{\"metadata\":{\"name\":\"claim-a\",\"namespace\":\"team-a\",\"resourceVersion\":\"$rv\",\"labels\":{\"ignored\":\"1\"}},\"status\":{\"reservedFor\":[{\"resource\":\"pods\",\"name\":\"trainer\",\"uid\":\"u1\"}]}}"
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
    run req GET "/apis/resource.k8s.io/v1/resourceslices?watch=1&resourceVersion=$rv&allowWatchBookmarks=true&timeoutSeconds=1"
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
