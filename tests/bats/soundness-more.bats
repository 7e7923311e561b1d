#!/usr/bin/env bats
# Soundness, second round: whom a server client acts as (impersonation),
# memory that follows what a command uses, capped warnings, linear CDI
# lookups, capacity that agrees with the allocator.
bats_require_minimum_version 1.5.0
load helpers

HELPERS="${APISERVER_HELPERS:-$BATS_TEST_DIRNAME/../apiserver/helpers.bash}"

setup() {
    T=$BATS_TEST_TMPDIR
}

teardown() {
    if declare -F apiserver_stop >/dev/null; then
        apiserver_stop
    fi
}

# ---- impersonation -------------------------------------------------------

# A kubeconfig for SERVER whose user has USERLINES (YAML, indented 4).
kc() { # SERVER USERLINES
    printf 'apiVersion: v1\nkind: Config\ncurrent-context: t\nclusters:\n- name: c\n  cluster:\n    server: "%s"\nusers:\n- name: u\n  user:\n%s\ncontexts:\n- name: t\n  context: {cluster: c, user: u}\n' \
        "$1" "$2"
}

rbac() {
    cat >"$T/rbac.yaml" <<'EOF'
apiVersion: dra-tools.test/v1
kind: TestUsers
users:
- name: viewer
  token: viewer-token
  rules:
  - {apiGroups: [""], resources: [pods], verbs: [list, watch, get]}
- name: impersonator
  token: impersonator-token
  rules:
  - {apiGroups: [""], resources: [users], verbs: [impersonate], resourceNames: [viewer]}
EOF
}

# The Impersonate-* headers of the last request on the plain http port, one
# "Name: value" line each, sorted.
impersonate_headers() {
    tail -n 1 "$APISERVER_DIR/http-requests.jsonl" |
        jq -r '.headers[] | select(.[0] | test("^Impersonate-")) | "\(.[0]): \(.[1])"' | LC_ALL=C sort
}

@test "impersonation: the kubeconfig user's as, as-uid, as-groups, as-user-extra go as kubectl sends them" {
    source "$HELPERS"
    apiserver_start "$T/api" --plain-http
    kc "http://127.0.0.1:$(cat "$APISERVER_DIR/http-port")" '    token: t
    as: alice
    as-uid: "1234"
    as-groups: [team-a, "", " spaced "]
    as-user-extra:
      scopes.example.com/x: [a, b]
      "ké y": ["v"]' >"$T/kc"
    # the server acts as alice, who may not list pods
    run --separate-stderr "$DRA_BIN/dra-watch" get pods -A --kubeconfig "$T/kc"
    assert_failure 3
    [[ $stderr == *'pods is forbidden: User "alice" cannot list resource "pods"'* ]]
    # kubectl v1.32 sends exactly these (its headers recorded the same way)
    run impersonate_headers
    assert_output "Impersonate-Extra-K%c3%a9%20y: v
Impersonate-Extra-Scopes.example.com%2fx: a
Impersonate-Extra-Scopes.example.com%2fx: b
Impersonate-Group: 
Impersonate-Group: spaced
Impersonate-Group: team-a
Impersonate-Uid: 1234
Impersonate-User: alice"
    # no credential over plain http, but whom to act as all the same
    run jq -r '.headers[][0]' "$APISERVER_DIR/http-requests.jsonl"
    refute_line Authorization
}

@test "impersonation: --as, --as-group, --as-uid, --as-user-extra win over the kubeconfig as kubectl's flags do" {
    source "$HELPERS"
    apiserver_start "$T/api" --plain-http
    kc "http://127.0.0.1:$(cat "$APISERVER_DIR/http-port")" '    as: alice
    as-uid: "1"
    as-groups: [g0]
    as-user-extra: {k: [a, b], j: [c]}' >"$T/kc"
    run "$DRA_BIN/dra-watch" get pods -A --kubeconfig "$T/kc" --as bob --as-group g1 --as-group g2 --as-uid 2 \
        --as-user-extra k=z --as-user-extra n=1 --as-user-extra n=2
    assert_failure 3
    assert_output --partial 'User "bob" cannot list resource "pods"'
    run impersonate_headers
    assert_output "Impersonate-Extra-J: c
Impersonate-Extra-K: z
Impersonate-Extra-N: 1
Impersonate-Extra-N: 2
Impersonate-Group: g1
Impersonate-Group: g2
Impersonate-Uid: 2
Impersonate-User: bob"
    # an empty --as leaves the kubeconfig's
    run "$DRA_BIN/dra-watch" get pods -A --kubeconfig "$T/kc" --as=
    assert_failure 3
    assert_output --partial 'User "alice" cannot list resource "pods"'
    run impersonate_headers
    assert_line "Impersonate-User: alice"
    assert_line "Impersonate-Group: g0"
}

@test "impersonation over https: the server acts as the user asked for, and refuses an impersonator without the right" {
    source "$HELPERS"
    rbac
    apiserver_start "$T/api" --rbac "$T/rbac.yaml"
    run --separate-stderr "$DRA_BIN/dra-watch" get resourceclaims -A
    assert_success
    run --separate-stderr "$DRA_BIN/dra-watch" get resourceclaims -A --as viewer
    assert_failure 3
    assert_equal "$stderr" 'dra-watch: Error from server (Forbidden): resourceclaims.resource.k8s.io is forbidden: User "viewer" cannot list resource "resourceclaims" in API group "resource.k8s.io" at the cluster scope (HTTP 403)'
    run --separate-stderr "$DRA_BIN/dra-watch" get pods -A --as viewer
    assert_success
    # the same from the kubeconfig's user
    sed 's/^    token: \(.*\)$/    token: \1\n    as: viewer/' "$KUBECONFIG" >"$T/kc"
    grep -q '    as: viewer' "$T/kc"
    run --separate-stderr "$DRA_BIN/dra-watch" get resourceclaims -A --kubeconfig "$T/kc"
    assert_failure 3
    [[ $stderr == *'User "viewer" cannot list resource "resourceclaims"'* ]]
    run --separate-stderr "$DRA_BIN/dra-watch" get pods -A --kubeconfig "$APISERVER_DIR/kubeconfig-impersonator" --as viewer
    assert_success
    run --separate-stderr "$DRA_BIN/dra-watch" get pods -A --kubeconfig "$APISERVER_DIR/kubeconfig-impersonator" --as bob
    assert_failure 3
    assert_equal "$stderr" 'dra-watch: Error from server (Forbidden): users "bob" is forbidden: User "impersonator" cannot impersonate resource "users" in API group "" at the cluster scope (HTTP 403)'
}

@test "impersonation: groups, uid or extras without a user, and values no header can hold, are input errors" {
    kc "https://127.0.0.1:1" '    token: t' >"$T/kc"
    run --separate-stderr "$DRA_BIN/dra-watch" get pods --kubeconfig "$T/kc" --as-group g
    assert_failure 2
    assert_equal "$stderr" "dra-watch: invalid configuration: requesting uid, groups or user-extra for u without impersonating a user"
    kc "https://127.0.0.1:1" '    as-uid: "7"' >"$T/kc"
    run --separate-stderr "$DRA_BIN/dra-watch" get pods --kubeconfig "$T/kc"
    assert_failure 2
    [[ $stderr == *"requesting uid, groups or user-extra for u without impersonating a user" ]]
    kc "https://127.0.0.1:1" '    as: "alice\r\nX-Injected: 1"' >"$T/kc"
    run --separate-stderr "$DRA_BIN/dra-watch" get pods --kubeconfig "$T/kc"
    assert_failure 2
    assert_equal "$stderr" 'dra-watch: net/http: invalid header field value for "Impersonate-User"'
    run --separate-stderr "$DRA_BIN/dra-watch" get pods --kubeconfig "$T/kc" --as "$(printf 'bob\nX: 1')"
    assert_failure 2
    [[ $stderr == *'invalid header field value for "Impersonate-User"' ]]
    kc "https://127.0.0.1:1" '    as: 5' >"$T/kc"
    run --separate-stderr "$DRA_BIN/dra-watch" get pods --kubeconfig "$T/kc"
    assert_failure 2
    [[ $stderr == *'as of user "u" must be a string (quote it)' ]]
    run --separate-stderr "$DRA_BIN/dra-watch" get pods --kubeconfig "$T/kc" --as a --as-user-extra novalue
    assert_failure 2
}

# ---- capped warnings -----------------------------------------------------

@test "schedule: a flood of warnings prints ten of a kind, then how many more" {
    local i
    for ((i = 0; i < 300; i++)); do
        printf -- '---\napiVersion: v1\nkind: Pod\nmetadata: {name: p%d, namespace: default, uid: uid-%d}\nspec:\n  containers: [{name: c}]\n  resourceClaims: [{name: g, resourceClaimTemplateName: nowhere}]\n' "$i" "$i"
    done >"$T/pods.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --now 2025-01-01T00:00:00Z "$DATA/alloc/sched-cluster.yaml" "$T/pods.yaml"
    assert_failure 1
    assert_equal "$(grep -c '^dra-alloc: warning: .*PodResourceClaim g: resource claim template "nowhere"' <<<"$stderr")" 10
    [[ $stderr == *"dra-alloc: warning: ... and 290 more like the one above"* ]]
    # with the place of the pod
    [[ $stderr == *"dra-alloc: warning: $T/pods.yaml:2: pod default/p0, PodResourceClaim g:"* ]]
    # --what-if prints the same way
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --what-if --drain node-a --now 2025-01-01T00:00:00Z "$DATA/alloc/sched-cluster.yaml" "$T/pods.yaml"
    assert_equal "$(grep -c '^dra-alloc: warning: .*resource claim template "nowhere"' <<<"$stderr")" 10
}

@test "dra-evict: a flood of warnings prints ten of a kind, then how many more" {
    # 1.37's: DeviceTaintRules are off by default in 1.36
    export DRA_KUBERNETES_VERSION=1.37
    local i
    for ((i = 0; i < 30; i++)); do
        printf -- '---\napiVersion: resource.k8s.io/v1alpha3\nkind: DeviceTaintRule\nmetadata: {name: r%d}\nspec:\n  taint: {key: k, value: v, effect: NoExecute}\n' "$i"
    done >"$T/rules.yaml"
    run --separate-stderr "$DRA_BIN/dra-evict" --now 2025-01-01T00:00:00Z "$T/rules.yaml"
    assert_success
    assert_equal "$(grep -c '^dra-evict: warning: DeviceTaintRule r[0-9]* has no deviceSelector' <<<"$stderr")" 10
    [[ $stderr == *"dra-evict: warning: ... and 20 more like the one above"* ]]
}

# ---- CDI: lookups by name --------------------------------------------------

@test "cdi: 200 specs of 500 devices load in linear time" {
    mkdir "$T/cdi"
    python3 - "$T/cdi" <<'PY'
import json, sys
for s in range(200):
    devs = [{"name": "d%d-%d" % (s, i), "containerEdits": {"deviceNodes": [{"path": "/dev/x%d-%d" % (s, i)}]}}
            for i in range(500)]
    json.dump({"cdiVersion": "0.6.0", "kind": "vendor%d.example.com/gpu" % (s % 4), "devices": devs},
              open("%s/spec%03d.json" % (sys.argv[1], s), "w"))
PY
    # 29.9 s of CPU before (every device's name compared with every one before it)
    run bash -c 'ulimit -t 10; "$1" cdi -o json --cdi-dir "$2" vendor1.example.com/gpu=d1-0 vendor3.example.com/gpu=d199-499' _ "$DRA_BIN/dra-prepare" "$T/cdi"
    assert_success
    assert_equal "$(jq -c '[.deviceNodes[].path]' <<<"$output")" '["/dev/x1-0","/dev/x199-499"]'
}

@test "cdi: 20,000 devices of one spec resolve together in linear time, replacing as upstream does" {
    mkdir "$T/cdi"
    python3 - "$T/cdi" "$T/ids" <<'PY'
import json, sys
n = 20000
devs = [{"name": "d%d" % i, "containerEdits": {"env": ["E%d=%d" % (i, i), "A=%d" % i],
         "deviceNodes": [{"path": "/dev/x%d" % i}, {"path": "/dev/shared"}],
         "mounts": [{"hostPath": "/h%d" % i, "containerPath": "/c/%d" % (i % 500)}],
         "additionalGids": [i % 1000 + 1]}} for i in range(n)]
json.dump({"cdiVersion": "0.6.0", "kind": "v.example.com/gpu", "containerEdits": {"env": ["A=1"]}, "devices": devs},
          open(sys.argv[1] + "/spec.json", "w"))
open(sys.argv[2], "w").write("\n".join("v.example.com/gpu=d%d" % i for i in range(n)))
PY
    # 38 s of CPU before (each name checked against every device before it,
    # each device looked up by a scan, each edit compared with every one so far)
    run bash -c 'ulimit -t 10; "$1" cdi -o json --cdi-dir "$2" $(cat "$3")' _ "$DRA_BIN/dra-prepare" "$T/cdi" "$T/ids"
    assert_success
    # env: A keeps its first place with the last value; a replaced device
    # node or mount moves to the end (removed, then appended)
    assert_equal "$(jq -c '[.env[0], .env[1], (.env | length)]' <<<"$output")" '["A=19999","E0=0",20001]'
    assert_equal "$(jq -c '[(.deviceNodes | length), .deviceNodes[-1].path, .deviceNodes[-2].path]' <<<"$output")" '[20001,"/dev/shared","/dev/x19999"]'
    assert_equal "$(jq -c '[(.mounts | length), .mounts[0].containerPath, .mounts[0].hostPath]' <<<"$output")" '[500,"/c/0","/h19500"]'
    assert_equal "$(jq -c '[(.additionalGids | length), .additionalGids[0], .additionalGids[-1]]' <<<"$output")" '[1000,1,1000]'
}

# ---- capacity agrees with the allocator ------------------------------------

incomplete_pool() {
    yaml_gpu_class
    yaml_node node-a
    cat <<'EOF2'
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-a-gpu-1}
spec:
  driver: gpu.example.com
  nodeName: node-a
  pool: {name: node-a, generation: 1, resourceSliceCount: 2}
  devices:
  - name: gpu-0
EOF2
}

@test "capacity: devices of an incomplete pool are unusable, not free, and the table says why" {
    incomplete_pool >"$T/c.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" capacity "$T/c.yaml"
    assert_success
    assert_line --index 0 --regexp '^CLASS +TOTAL +ALLOCATED +SHARED +TAINTED +UNHEALTHY +BLOCKED +UNUSABLE +FREE +LARGEST-FIT$'
    assert_line --index 1 --regexp '^gpu +1 +0 +0 +0 +0 +0 +1 +0 +0$'
    assert_line --index 2 "gpu: 1 device unusable: pool gpu.example.com/node-a: incomplete: 1 of 2 ResourceSlices at generation 1"
    run --separate-stderr "$DRA_BIN/dra-alloc" capacity -o json "$T/c.yaml"
    assert_equal "$(jq -c '.classes[0] | [.total, .unusable, .free, .largestFit.devices, .unusablePools]' <<<"$output")" \
        '[1,1,0,0,[{"driver":"gpu.example.com","pool":"node-a","reason":"incomplete: 1 of 2 ResourceSlices at generation 1","devices":1}]]'
    run --separate-stderr "$DRA_BIN/dra-alloc" capacity --by pool -o json "$T/c.yaml"
    assert_equal "$(jq -c '.classes[0].pools[0] | [.unusable, .free, .unusableReason]' <<<"$output")" \
        '[1,0,"incomplete: 1 of 2 ResourceSlices at generation 1"]'
    # --fail-below counts what the allocator can use
    run --separate-stderr "$DRA_BIN/dra-alloc" capacity --fail-below gpu=1 "$T/c.yaml"
    assert_failure 1
    assert_equal "$stderr" "dra-alloc: class gpu: 0 free devices, fewer than 1"
    # the allocator agrees: nothing to allocate on node-a
    printf -- '---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: default}\nspec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}\n' >>"$T/c.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-a "$T/c.yaml"
    assert_failure 1
    # pool-status reports the pool incomplete, without counts, as upstream does
    run --separate-stderr "$DRA_BIN/dra-slice" pool-status --driver gpu.example.com "$T/c.yaml"
    assert_success
    assert_line "    validationError: 'PoolIncomplete: pool gpu.example.com/node-a is incomplete: observed 1/2 slices at generation 1'"
    [[ $output != *availableDevices* ]]
}

@test "capacity: many unusable pools name ten, then how many more" {
    incomplete_pool >"$T/c.yaml"
    local i
    for ((i = 0; i < 25; i++)); do
        printf -- '---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s%d}\nspec:\n  driver: gpu.example.com\n  nodeName: node-a\n  pool: {name: p%02d, generation: 0, resourceSliceCount: 3}\n  devices: [{name: gpu-0}]\n' "$i" "$i"
    done >>"$T/c.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" capacity "$T/c.yaml"
    assert_success
    assert_line --index 1 --regexp '^gpu +26 +0 +0 +0 +0 +0 +26 +0 +0$'
    assert_equal "$(grep -c '^gpu: 1 device unusable: pool' <<<"$output")" 10
    assert_line "gpu: ... and 16 more unusable pools"
}

# ---- memory that follows what a command uses -------------------------------

@test "lint: a million documents that are not slices keep what is printed and the counts, not the objects" {
    if ldd "$DRA_BIN/dra-slice" | grep -q libasan; then
        skip "a sanitizer reserves more address space than the bound"
    fi
    yes '{}' | head -n 1000000 >"$T/empty.jsonl"
    # 591 MB before: every such object and every error kept
    run --separate-stderr bash -c 'ulimit -v 100000; exec "$@"' _ "$DRA_BIN/dra-slice" lint "$T/empty.jsonl"
    assert_failure 2
    assert_equal "$(grep -c 'got an object without kind' <<<"$stderr")" 10
    [[ $stderr == *"dra-slice: ... and 999990 more like the one above" ]]
    assert_output ""
    # from stdin the same
    run --separate-stderr bash -c 'ulimit -v 100000; exec "$@" <"$0"' "$T/empty.jsonl" "$DRA_BIN/dra-slice" lint -
    assert_failure 2
    [[ $stderr == *"dra-slice: ... and 999990 more like the one above" ]]
}

@test "lint: each kind of input error prints ten, then how many more, in one run" {
    local i
    for ((i = 0; i < 300; i++)); do
        printf '{"apiVersion":"resource.k8s.io/v1","kind":"Kind%d","metadata":{"name":"x"}}\n{"kind":"K","metadata":{"name":"y%d"}}\n{}\n' "$i" "$i"
    done >"$T/kinds.jsonl"
    printf '%s\n' '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s"},"spec":{"driver":"d.example.com","pool":{"name":"p","generation":1,"resourceSliceCount":1},"nodeName":"n","devices":[{"name":"a"}]}}' >>"$T/kinds.jsonl"
    run --separate-stderr "$DRA_BIN/dra-slice" lint "$T/kinds.jsonl"
    assert_failure 2
    assert_equal "$(grep -c 'no matches for kind "Kind[0-9]*" in version "resource.k8s.io/v1"' <<<"$stderr")" 10
    assert_equal "$(grep -c 'Required value: object has no apiVersion' <<<"$stderr")" 10
    assert_equal "$(grep -c 'got an object without kind' <<<"$stderr")" 10
    assert_equal "$(grep -c '^dra-slice: ... and 290 more like the one above$' <<<"$stderr")" 3
    assert_output ""
}

# The commands that read a whole dump, with what they need besides the input.
WHOLE_READERS=(
    "dra-slice pool-status --driver gpu.example.com"
    "dra-alloc capacity"
    "dra-alloc quota"
    "dra-alloc schedule"
    "dra-alloc schedule --what-if --add /dev/null"
    "dra-alloc --node n1"
    "dra-claim generate"
)

@test "whole dumps: a million documents that are errors cost what is printed, not an object each" {
    if ldd "$DRA_BIN/dra-alloc" | grep -q libasan; then
        skip "a sanitizer reserves more address space than the bound"
    fi
    yes '{}' | head -n 1000000 >"$T/empty.jsonl"
    local cmd
    for cmd in "${WHOLE_READERS[@]}"; do
        # 100 MB of address space: 311 MB before (pool-status, capacity, quota), 381 MB (generate)
        # shellcheck disable=SC2086
        run --separate-stderr bash -c 'ulimit -v 100000; exec "$@"' _ "$DRA_BIN"/$cmd "$T/empty.jsonl"
        [[ $status -eq 2 ]] || { echo "$cmd: exit $status: ${stderr: -300}"; return 1; }
        [[ $stderr == *"... and 999990 more like the one above" ]] || { echo "$cmd: ${stderr: -300}"; return 1; }
        assert_output ""
    done
    # from stdin the same
    run --separate-stderr bash -c 'ulimit -v 100000; exec "$@" <"$0"' "$T/empty.jsonl" "$DRA_BIN/dra-alloc" capacity -
    assert_failure 2
    [[ $stderr == *"... and 999990 more like the one above" ]]
}

@test "whole dumps: a million objects of kinds a command does not read are counted and dropped as they are read" {
    if ldd "$DRA_BIN/dra-alloc" | grep -q libasan; then
        skip "a sanitizer reserves more address space than the bound"
    fi
    awk 'BEGIN { for (i = 0; i < 1000000; i++) printf "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cm-%d\",\"namespace\":\"default\"}}\n", i }' >"$T/cm.jsonl"
    printf '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"gpu"}}\n{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"}}\n' >"$T/class.jsonl"
    local cmd
    for cmd in "${WHOLE_READERS[@]}"; do
        # 1.38 GB before (pool-status, capacity, quota, generate): jansson's trees of objects never used
        # shellcheck disable=SC2086
        run --separate-stderr bash -c 'ulimit -v 100000; exec "$@"' _ "$DRA_BIN"/$cmd -v "$T/cm.jsonl" "$T/class.jsonl"
        [[ $status -eq 0 ]] || { echo "$cmd: exit $status: ${stderr: -300}"; return 1; }
        [[ $stderr =~ :\ skipped\ 100000[0-2]\ objects\ of\ kinds\ .*\ does\ not\ use ]] || { echo "$cmd: ${stderr: -300}"; return 1; }
    done
}

@test "whole dumps: kept objects read from stdin keep their fields' lines" {
    cat >"$T/q.yaml" <<'EOF2'
apiVersion: v1
kind: ConfigMap
metadata: {name: x}
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: q, namespace: default}
spec:
  hard:
    count/resourceclaims.resource.k8s.io: "2"
    gpu.deviceclass.resource.k8s.io/devices: bogus
EOF2
    run --separate-stderr "$DRA_BIN/dra-alloc" quota -v - <"$T/q.yaml"
    assert_failure 2
    [[ $stderr == *"dra-alloc: <stdin>:11 (document 2): ResourceQuota/default/q: spec.hard[gpu.deviceclass.resource.k8s.io/devices]: Invalid value: \"bogus\": quantities must match"* ]]
    # the ConfigMap is skipped; the quota, read from the set, is not
    [[ $stderr == *"dra-alloc: skipped 1 object of kinds dra-alloc does not use"* ]]
    run --separate-stderr "$DRA_BIN/dra-alloc" quota "$T/q.yaml"
    [[ $stderr == *"dra-alloc: $T/q.yaml:11 (document 2): ResourceQuota/default/q: spec.hard["* ]]
}

@test "schedule: two alike pods with generateName are two pods, as the API server makes them" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --now 2026-01-01T00:00:00Z "$DATA/manifests/generatename-pods.yaml"
    assert_failure 1
    # before, both got the same name and were taken for one pod given twice
    assert_equal "$(grep -cE '^dra-alloc: pod ml/notebook-[a-z0-9]{5}: no nodes available to schedule pods$' <<<"$stderr")" 2
    assert_equal "$(grep -oE 'pod ml/notebook-[a-z0-9]{5}:' <<<"$stderr" | sort -u | wc -l)" 2
}

@test "quota: each claim is charged to its namespace's quotas, found by name, not by a scan of all" {
    python3 - "$T/q.jsonl" <<'PY'
import json, sys
with open(sys.argv[1], "w") as out:
    out.write(json.dumps({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"}}) + "\n")
    for n in range(20000):
        out.write(json.dumps({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q", "namespace": "ns%d" % n},
                              "spec": {"hard": {"count/resourceclaims.resource.k8s.io": "2"}}}) + "\n")
    for i in range(50000):
        out.write(json.dumps({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                              "metadata": {"name": "c%d" % i, "namespace": "ns%d" % (i % 20000)},
                              "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu"}}]}}}) + "\n")
PY
    # 16.0 s of CPU before (every claim compared with every quota), 1.6 s after
    run --separate-stderr bash -c 'ulimit -t 10; exec "$@"' _ "$DRA_BIN/dra-alloc" quota -o json "$T/q.jsonl"
    assert_failure 1
    # ns0..ns9999 hold 3 claims each: the third is refused; the others 2
    assert_equal "$(jq '.refused | length' <<<"$output")" 10000
    assert_equal "$(jq -c '[.quotas[0].resources["count/resourceclaims.resource.k8s.io"], .quotas[19999].resources["count/resourceclaims.resource.k8s.io"]]' <<<"$output")" \
        '[{"used":2,"hard":2,"start":0,"fromStatus":false},{"used":2,"hard":2,"start":0,"fromStatus":false}]'
    # on stderr as every flood: ten, then how many more (10,000 lines before)
    assert_equal "$(grep -c 'exceeded quota: q, requested: count/resourceclaims.resource.k8s.io=1' <<<"$stderr")" 10
    assert_equal "$(tail -n 1 <<<"$stderr")" "dra-alloc: ... and 9990 more like the one above"
}
