#!/usr/bin/env bats
# Soundness of reading and writing: floods of errors cost linear time and
# print a few of each kind; nested Lists are read as kubectl reads them; a
# failed run leaves no partial document on standard output; long values are
# cut in error lines.
bats_require_minimum_version 1.5.0
load helpers

setup() {
    S="$DRA_BIN/dra-slice"
    T=$BATS_TEST_TMPDIR
}

teardown() {
    if declare -F apiserver_stop >/dev/null; then
        apiserver_stop
    fi
}

# One DeviceClass with N unknown fields under spec, as one JSON line.
unknown_fields() {
    awk -v n="$1" 'BEGIN { printf "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"DeviceClass\",\"metadata\":{\"name\":\"c\"},\"spec\":{"
        for (i = 0; i < n; i++) printf "%s\"x%d\":1", (i ? "," : ""), i
        printf "}}\n" }'
}

# ---- floods of errors ----------------------------------------------------

@test "errors: ten of a kind print, then how many more; another kind after them still prints" {
    unknown_fields 40 >"$T/c.json"
    printf '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"Bad_Name"}}\n' >>"$T/c.json"
    run --separate-stderr "$S" validate "$T/c.json"
    assert_failure 2
    [[ -z $output ]]
    [[ $(grep -c 'DeviceClass/c: unknown field "spec.x' <<<"$stderr") -eq 10 ]]
    [[ $stderr == *'unknown field "spec.x9"'$'\n''dra-slice: ... and 30 more like the one above'$'\n'* ]]
    [[ $stderr == *'c.json:2 (document 2): DeviceClass/Bad_Name: metadata.name: Invalid value: "Bad_Name"'* ]]
    [[ $(wc -l <<<"$stderr") -eq 12 ]]
}

@test "errors: 300,000 unknown fields in one object are read in linear time; 100 reported, as upstream" {
    unknown_fields 300000 >"$T/big.json"
    # CPU seconds, not a clock: appending each error to the end of a growing
    # list took minutes here
    run --separate-stderr bash -c 'ulimit -t 60; exec "$0" validate "$1"' "$S" "$T/big.json"
    assert_failure 2
    # the API server's decoder keeps the first 100 (sigs.k8s.io/json
    # kubernetes_patch.go), ten print, the rest are counted
    [[ $stderr == *"dra-slice: ... and 90 more like the one above" ]]
}

@test "lint: 100,000 objects without a kind are each an error, found in linear time" {
    awk 'BEGIN { for (i = 0; i < 100000; i++) printf "{\"apiVersion\":\"resource.k8s.io/v1\",\"metadata\":{\"name\":\"s%d\"}}\n", i }' >"$T/nokind.jsonl"
    run --separate-stderr bash -c 'ulimit -t 60; exec "$0" lint "$1"' "$S" "$T/nokind.jsonl"
    assert_failure 2
    [[ $stderr == *"object/s9: kind: expected a ResourceSlice, got an object without kind"$'\n'"dra-slice: ... and 99990 more like the one above" ]]
}

@test "cdi: a spec with 1,000,000 unknown keys warns ten times and counts the rest, in linear time" {
    mkdir -p "$T/cdi"
    awk 'BEGIN { printf "{\"cdiVersion\":\"0.6.0\",\"kind\":\"vendor.com/gpu\",\"devices\":[{\"name\":\"a\",\"containerEdits\":{\"env\":[\"A=1\"]}}]"
        for (i = 0; i < 1000000; i++) printf ",\"x%d\":1", i
        printf "}\n" }' >"$T/cdi/big.json"
    run --separate-stderr bash -c 'ulimit -t 120; exec "$0" cdi --cdi-dir "$1"' "$DRA_BIN/dra-prepare" "$T/cdi"
    [[ $(grep -c 'warning: .*big.json:1: x[0-9]*: unknown field' <<<"$stderr") -eq 10 ]]
    [[ $stderr == *'dra-prepare: warning: ... and 999990 more like the one above'* ]]
}

# ---- Lists in Lists ------------------------------------------------------

nested_list_yaml() {
    cat <<'Y'
apiVersion: v1
kind: List
items:
- apiVersion: resource.k8s.io/v1
  kind: DeviceClass
  metadata:
    name: good
- apiVersion: v1
  kind: List
  items:
  - apiVersion: resource.k8s.io/v1
    kind: DeviceClass
    metadata:
      name: Bad_Name
  - apiVersion: v1
    kind: List
  - apiVersion: resource.k8s.io/v1
    kind: DeviceClassList
    items: null
Y
}

@test "lists: an invalid DeviceClass in a List in a List is an error naming file, line, object and field" {
    nested_list_yaml >"$T/nested.yaml"
    run --separate-stderr "$S" validate "$T/nested.yaml"
    assert_failure 2
    [[ $stderr == *'nested.yaml:14: DeviceClass/Bad_Name: metadata.name: Invalid value: "Bad_Name"'* ]]
    # the same as JSON, from a file and from standard input
    cat >"$T/nested.json" <<'J'
{"apiVersion": "v1", "kind": "List", "items": [
  {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "good"}},
  {"apiVersion": "v1", "kind": "List", "items": [
    {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
     "metadata": {
       "name": "Bad_Name"}},
    {"apiVersion": "v1", "kind": "List"},
    {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClassList", "items": null}]}]}
J
    local arg name
    for arg in "$T/nested.json" -; do
        name=$([[ $arg == - ]] && echo '<stdin>' || echo nested.json)
        run --separate-stderr bash -c '"$0" validate "$1" <"$2"' "$S" "$arg" "$T/nested.json"
        assert_failure 2
        [[ $stderr == *"$name:6: DeviceClass/Bad_Name: metadata.name: Invalid value: \"Bad_Name\""* ]]
    done
}

@test "lists: objects of Lists in a List come after the List's own objects, as kubectl flattens them" {
    printf '{"kind":"List","items":[{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"A_a"}},{"kind":"List","items":[{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"C_c"}}]},{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"B_b"}}]}\n' >"$T/order.json"
    run --separate-stderr "$S" validate "$T/order.json"
    assert_failure 2
    [[ $(grep -o 'DeviceClass/[A-C]_[a-c]' <<<"$stderr" | tr '\n' ' ') == "DeviceClass/A_a DeviceClass/B_b DeviceClass/C_c " ]]
}

@test "lists: a List in a List whose items are not a list is an error, at any size" {
    printf 'kind: List\nitems:\n- kind: DeviceClassList\n  items: 5\n' >"$T/bad.yaml"
    run --separate-stderr "$S" validate "$T/bad.yaml"
    assert_failure 2
    [[ $stderr == *'bad.yaml:3: DeviceClassList: items[0].items: must be a list of objects'* ]]
    # a List big enough to be read item by item
    awk 'BEGIN { printf "{\"kind\":\"List\",\"items\":["
        for (i = 0; i < 2000; i++) printf "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"DeviceClass\",\"metadata\":{\"name\":\"c%d\"}},\n", i
        printf "{\"kind\":\"List\",\"items\":[{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"DeviceClass\",\"metadata\":{\"name\":\"Deep_Bad\"}}]},\n"
        printf "{\"kind\":\"List\",\"items\":{}}]}\n" }' >"$T/big.json"
    run --separate-stderr "$S" validate "$T/big.json"
    assert_failure 2
    [[ $stderr == *'big.json:2001: DeviceClass/Deep_Bad: metadata.name: Invalid value'* ]]
    [[ $stderr == *'big.json:2002: List: items[2001].items: must be a list of objects'* ]]
}

# ---- no partial output ------------------------------------------------------

@test "failed runs: no tool writes anything on standard output when its input is invalid" {
    C=$EXAMPLES/cluster
    printf 'apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: Bad_Name\n' >"$T/bad.yaml"
    awk 'BEGIN { for (i = 0; i < 300; i++) printf "{\"name\":\"gpu-%d\"}\n", i; printf "{\"name\":\"Bad_Name\"}\n" }' >"$T/inv.jsonl"
    local o cmd
    for o in yaml json jsonl; do
        for cmd in "dra-slice build --driver gpu.example.com --node n $T/inv.jsonl" \
            "dra-slice pool-status $C/slices.yaml $T/bad.yaml" \
            "dra-select --class gpu.example.com $C/slices.yaml $C/classes.yaml $T/bad.yaml" \
            "dra-alloc --node node-a $C/slices.yaml $C/classes.yaml $C/claims.yaml $T/bad.yaml" \
            "dra-alloc schedule $C/slices.yaml $C/classes.yaml $C/claims.yaml $C/pods.yaml $T/bad.yaml" \
            "dra-alloc capacity $C/slices.yaml $C/classes.yaml $T/bad.yaml" \
            "dra-alloc quota $C/slices.yaml $T/bad.yaml" \
            "dra-alloc diff $C/slices.yaml $T/bad.yaml" \
            "dra-claim generate $C/claims.yaml $C/pods.yaml $T/bad.yaml" \
            "dra-claim status $C/claims.yaml $T/bad.yaml" \
            "dra-claim convert $C/claims.yaml $T/bad.yaml" \
            "dra-evict --now 2026-03-01T11:00:00Z $C/slices.yaml $T/bad.yaml"; do
            # shellcheck disable=SC2086
            run --separate-stderr "$DRA_BIN"/$cmd -o "$o"
            [[ $status -eq 2 ]] || { echo "exit $status: $cmd -o $o"; return 1; }
            [[ -z $output ]] || { echo "stdout of a failed $cmd -o $o: ${output:0:200}"; return 1; }
        done
    done
}

@test "failed runs: a list that fails part way prints nothing, exit 3" {
    source "${APISERVER_HELPERS:-$BATS_TEST_DIRNAME/../apiserver/helpers.bash}"
    jq -c .object "$DATA/watch/finished-pod.rec.jsonl" >"$T/objs.jsonl"
    apiserver_start "$T/api" --load "$T/objs.jsonl" --rbac "$DATA/watch/rbac-users.yaml" \
        --rbac "$BATS_TEST_DIRNAME/../../deploy/evict-rbac.yaml"
    sed 's/token: .*/token: evict-sa-token/' "$KUBECONFIG" >"$T/kc"
    for o in json yaml jsonl; do
        # the role lists claims, not templates: the second kind fails after the first was listed
        run --separate-stderr "$DRA_BIN/dra-watch" get resourceclaims,resourceclaimtemplates -A -o "$o" --kubeconfig "$T/kc"
        assert_failure 3
        [[ $stderr == *'cannot list resource "resourceclaimtemplates"'* ]]
        [[ -z $output ]]
    done
    # the claims alone list
    run --separate-stderr "$DRA_BIN/dra-watch" get resourceclaims -A -o json --kubeconfig "$T/kc"
    assert_success
    [[ -n $output ]]
}

# ---- long values -------------------------------------------------------------

@test "errors: a 1 MiB value is echoed cut in the middle, as upstream cuts what it echoes" {
    awk 'BEGIN { printf "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"DeviceClass\",\"metadata\":{\"name\":\"c\",\"labels\":{\"x\":\"A"
        for (i = 0; i < 1048576; i++) printf "a"
        printf "Z\"}}}\n{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"DeviceClass\",\"metadata\":{\"name\":\"d\"},\"spec\":{\""
        for (i = 0; i < 100000; i++) printf "k"; printf "\":1}}\n"
        printf "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"DeviceClass\",\"metadata\":{\"name\":\"e\",\"labels\":{\"x\":\""
        for (i = 0; i < 100; i++) printf "a"; printf "\"}}}\n" }' >"$T/long.json"
    run --separate-stderr "$S" validate "$T/long.json"
    assert_failure 2
    [[ $(wc -l <<<"$stderr") -eq 3 ]]
    while IFS= read -r line; do
        ((${#line} < 17000)) || { echo "line of ${#line} bytes"; return 1; }
    done <<<"$stderr"
    # first 8191 and last 8190 bytes of the value around "..." (truncateIfTooLong at 16 KiB)
    local a8190 k8190
    a8190=$(printf 'a%.0s' $(seq 1 8190))
    k8190=$(printf 'k%.0s' $(seq 1 8190))
    [[ $stderr == *"metadata.labels: Invalid value: \"A${a8190}...${a8190:1}Z\": "* ]]
    [[ $stderr == *"unknown field \"spec.${k8190:5}k...${k8190}\""* ]]
    # a value of ordinary length is echoed whole, as upstream does
    [[ $stderr == *"DeviceClass/e: metadata.labels: Invalid value: \"${a8190:0:100}\": must be no more than 63 bytes"* ]]
}

# ---- memory ------------------------------------------------------------------

@test "memory: a million invalid documents read as a stream keep a hundred errors of a kind, not a million" {
    if ldd "$DRA_BIN/dra-claim" | grep -q libasan; then
        skip "a sanitizer reserves more address space than the bound"
    fi
    yes '{}' | head -n 1000000 >"$T/empty.jsonl"
    local cmd
    for cmd in "dra-claim status" "dra-evict --now 2026-01-01T00:00:00Z" "dra-select lint"; do
        # 100 MB of address space: each error held cost ~270 bytes (270 MB)
        # shellcheck disable=SC2086
        run --separate-stderr bash -c 'ulimit -v 100000; exec "$@"' _ "$DRA_BIN"/$cmd "$T/empty.jsonl"
        [[ $status -eq 2 ]] || { echo "$cmd: exit $status: ${stderr: -300}"; return 1; }
        [[ $stderr == *"... and 999990 more like the one above" ]]
    done
}

@test "files: a directory of 40,000 manifests is read in time linear in their number" {
    mkdir "$T/many"
    (cd "$T/many" && awk 'BEGIN { for (i = 0; i < 40000; i++) { f = sprintf("f%05d.json", i)
        printf "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"DeviceClass\",\"metadata\":{\"name\":\"c%d\"}}\n", i > f; close(f) } }')
    # CPU seconds, not a clock: each file's name and text were looked for
    # among all the files before it (17 s here)
    run --separate-stderr bash -c 'ulimit -t 8; exec "$0" status -v "$1"' "$DRA_BIN/dra-claim" "$T/many"
    assert_success
}
