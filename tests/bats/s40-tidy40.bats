#!/usr/bin/env bats
# Carried defects: nodes a snapshot could not list, a JSON file that turns
# into YAML after its first document, dra-slice discover and profile under
# a release.
bats_require_minimum_version 1.5.0
load helpers

# A snapshot whose user may list everything but nodes, of one pending pod
# whose claim asks for class gpu.example.com; $1: "class" adds the class.
no_nodes_snapshot() {
    {
        echo '{"apiVersion":"dra-tools.io/v1alpha1","kind":"Snapshot","metadata":{"name":"snapshot"},"forbidden":["nodes"],"serverVersion":{"major":"1","minor":"37","gitVersion":"v1.37.2"}}'
        echo '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate","metadata":{"name":"single-gpu","namespace":"ml"},"spec":{"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com"}}]}}}}'
        echo '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"pending","namespace":"ml","uid":"3f0a9c1e-0000-4000-8000-00000000a009","creationTimestamp":"2026-12-07T03:37:10Z"},"spec":{"containers":[{"name":"c","image":"i"}],"resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"single-gpu"}]},"status":{"phase":"Pending"}}'
        [ "${1:-}" != class ] || echo '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"gpu.example.com"},"spec":{}}'
    } >"$BATS_TEST_TMPDIR/snap.jsonl"
}

@test "dra-alloc schedule: nodes a snapshot could not list are not readable, not 0/0 available" {
    no_nodes_snapshot
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --explain "$BATS_TEST_TMPDIR/snap.jsonl"
    assert_failure 1
    [[ $stderr == *'pod ml/pending: nodes are not readable (forbidden to list nodes): request gpu: device class gpu.example.com does not exist.'* ]]
    [[ $stderr != *'0/0 nodes'* ]]
    # PreFilter passes: the scheduler's ErrNoNodesAvailable, and why
    no_nodes_snapshot class
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule "$BATS_TEST_TMPDIR/snap.jsonl"
    assert_failure 1
    assert_line "    message: 'no nodes available to schedule pods: nodes are not readable (forbidden to list nodes)'"
    # nodes listed, none there: the scheduler's own words alone
    sed -i 's/"forbidden":\["nodes"\],//' "$BATS_TEST_TMPDIR/snap.jsonl"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule "$BATS_TEST_TMPDIR/snap.jsonl"
    assert_failure 1
    assert_line "    message: no nodes available to schedule pods"
}

@test "dra-alloc schedule: no nodes at all is said before PreFilter's reason, at every release" {
    # k8s.io/kubernetes@v1.37.2 pkg/scheduler/schedule_one.go schedulePod
    # (1.36.3 the same; 1.38.0-beta.0 algorithm.go): ErrNoNodesAvailable
    # when the snapshot has no node, before findNodesThatFitPod's PreFilter
    no_nodes_snapshot
    sed -i 's/"forbidden":\["nodes"\],//' "$BATS_TEST_TMPDIR/snap.jsonl"
    for v in 1.36 1.37 1.38; do
        run --separate-stderr "$DRA_BIN/dra-alloc" schedule --kubernetes-version $v "$BATS_TEST_TMPDIR/snap.jsonl"
        assert_failure 1
        assert_line "    message: no nodes available to schedule pods"
        [[ $output$stderr != *'0/0 nodes'* ]]
    done
}

# A ResourceSlice in JSON on one line named $1, its attribute a the string
# $2 (printf escapes: '\t' is a raw tab).
slice_line() {
    printf '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"%s"},"spec":{"driver":"example.com","nodeName":"node1","pool":{"name":"p%s","generation":1,"resourceSliceCount":1},"devices":[{"name":"d","attributes":{"a":{"string":"%b"}}}]}}\n' "$1" "$1" "$2"
}

@test "a raw tab in a JSON string: read as YAML, as kubectl's decoder reads on after the JSON fails" {
    # k8s.io/apimachinery@v0.37.2 pkg/util/yaml/decoder.go: the JSON
    # decoder refuses the tab; before a second JSON document has been read
    # the stream is YAML from where the last document ended, and YAML takes
    # a tab in a double-quoted scalar (kubectl apply -f creates both)
    slice_line s1 'x\ty' >"$BATS_TEST_TMPDIR/one.json"
    { slice_line s1 xy; slice_line s2 'x\ty'; } >"$BATS_TEST_TMPDIR/two.json"
    for f in one two; do
        run --separate-stderr "$DRA_BIN/dra-slice" validate "$BATS_TEST_TMPDIR/$f.json"
        assert_success
        run --separate-stderr "$DRA_BIN/dra-select" -o json "$BATS_TEST_TMPDIR/$f.json"
        assert_success
        assert_equal "$(jq -c '[.items // [.] | .[] | [.pool, .device.attributes.a.string]]' <<<"$output")" \
            "$([ $f = one ] && echo '[["ps1","x\ty"]]' || echo '[["ps1","xy"],["ps2","x\ty"]]')"
    done
    # the first document JSON, the rest YAML: the lines are the file's
    { slice_line s1 xy; printf 'apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s2}\n'; } >"$BATS_TEST_TMPDIR/mixed.json"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$BATS_TEST_TMPDIR/mixed.json"
    assert_failure 2
    [[ $stderr == *"mixed.json:2 (document 2): ResourceSlice/s2: spec.driver: Required value"* ]]
    # two JSON documents read: the stream is JSON for good, the third refused
    { slice_line s1 xy; slice_line s2 xy; slice_line s3 'x\ty'; } >"$BATS_TEST_TMPDIR/three.json"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$BATS_TEST_TMPDIR/three.json"
    assert_failure 2
    [[ $stderr == *"three.json:3:247 (document 3): invalid JSON: invalid character '\t' in string literal"* ]]
}

@test "dra-slice profile: --kubernetes-version, DRA_KUBERNETES_VERSION and --feature-gates; cpu as each release takes it" {
    local S="$DRA_BIN/dra-slice"
    # 1.38: the capacity unqualified, as build and 1.38's publishing helper want it
    run --separate-stderr "$S" profile cpu --devices 1 --kubernetes-version 1.38 -o json
    assert_success
    assert_equal "$(jq -c '.spec.devices[0] | [(.capacity | keys), .nodeAllocatableResources.cpu.mapping.capacityKey]' <<<"$output")" '[["cpu"],"cpu"]'
    "$S" build --kubernetes-version 1.38 --driver cpu.example.com --node node-0 - <<<"$output" >/dev/null
    DRA_KUBERNETES_VERSION=1.38 run --separate-stderr "$S" profile cpu --devices 1 -o json
    assert_equal "$(jq -c '.spec.devices[0].capacity | keys' <<<"$output")" '["cpu"]'
    # 1.37 (the default): the example driver's own key
    run --separate-stderr "$S" profile cpu --devices 1 -o json
    assert_equal "$(jq -c '.spec.devices[0] | [(.capacity | keys), .nodeAllocatableResources.cpu.mapping.capacityKey]' <<<"$output")" '[["cpu.example.com/cpu"],"cpu.example.com/cpu"]'
    # 1.36 has no nodeAllocatableResources: what it prints, 1.36 validates
    run --separate-stderr "$S" profile cpu --devices 1 --kubernetes-version 1.36 -o json
    assert_success
    assert_equal "$(jq -c '.spec.devices[0].nodeAllocatableResources' <<<"$output")" null
    "$S" validate --kubernetes-version 1.36 - <<<"$output"
    run --separate-stderr "$S" profile gpu --feature-gates NoSuchGate=true
    assert_failure 2
    [[ $stderr == *"unrecognized feature gate: NoSuchGate"* ]]
    run --separate-stderr "$S" profile gpu --kubernetes-version 1.9
    assert_failure 2
    [[ $stderr == *'--kubernetes-version: unknown Kubernetes version "1.9"'* ]]
}

@test "dra-slice discover: --kubernetes-version, DRA_KUBERNETES_VERSION and --feature-gates" {
    local S="$DRA_BIN/dra-slice" D="$DATA/slice"
    run --separate-stderr "$S" discover --sysfs-root "$D/sysfs" --source pci,net --node node-a --kubernetes-version 1.38
    assert_success
    local at138=$output
    run --separate-stderr "$S" discover --sysfs-root "$D/sysfs" --source pci,net --node node-a
    assert_equal "$output" "$at138"
    DRA_KUBERNETES_VERSION=1.9 run --separate-stderr "$S" discover --sysfs-root "$D/sysfs" --node node-a
    assert_failure 2
    [[ $stderr == *'unknown Kubernetes version "1.9"'* ]]
    run --separate-stderr "$S" discover --sysfs-root "$D/sysfs" --node node-a --feature-gates NoSuchGate=true
    assert_failure 2
    [[ $stderr == *"unrecognized feature gate: NoSuchGate"* ]]
    run --separate-stderr "$S" discover --help
    assert_output --partial "--kubernetes-version"
    run --separate-stderr "$S" profile --help
    assert_output --partial "--feature-gates"
}

@test "a file opening with '[' is YAML, as kubectl reads only '{' as JSON" {
    # k8s.io/apimachinery@v0.37.2 pkg/util/yaml/decoder.go GuessJSONStream
    # (hasJSONPrefix: '{' alone): a '[' file is YAML from its start, a
    # sequence at the top, so its errors are YAML's
    printf '["\\q"]\n' >"$BATS_TEST_TMPDIR/esc.json"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$BATS_TEST_TMPDIR/esc.json"
    assert_failure 2
    [[ $stderr == *"esc.json:1:3: invalid YAML: found unknown escape character"* ]]
    # "1 2" is a plain scalar in YAML's flow style, not broken JSON
    printf '[1 2]\n' >"$BATS_TEST_TMPDIR/sp.json"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$BATS_TEST_TMPDIR/sp.json"
    assert_failure 2
    [[ $stderr == *"sp.json:1: document is a list; expected an object or a List"* ]]
    [[ $stderr != *"invalid JSON"* ]]
}

# A ResourceSlice in YAML named $1, as in slice_line.
slice_yaml() {
    printf 'apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata:\n  name: %s\nspec:\n  driver: example.com\n  nodeName: node1\n  pool: {name: p%s, generation: 1, resourceSliceCount: 1}\n  devices: [{name: d}]\n' "$1" "$1"
}

@test "content after a YAML document's end up to the next --- line is ignored with a warning, as kubectl ignores it" {
    # kubectl splits at --- lines (k8s.io/apimachinery@v0.37.2
    # pkg/util/yaml/decoder.go YAMLReader) and decodes each chunk's first
    # document only (sigs.k8s.io/yaml@v1.6.0 Unmarshal): s1 and s3 are
    # created, s2 and the broken brace never read
    { slice_yaml s1; echo '...'; slice_yaml s2; echo '{'; echo '---'; slice_yaml s3; } >"$BATS_TEST_TMPDIR/t.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$BATS_TEST_TMPDIR/t.yaml"
    assert_success
    [[ $stderr == *"warning: $BATS_TEST_TMPDIR/t.yaml:11:1: content after the end of a YAML document ignored, as kubectl ignores it"* ]]
    run --separate-stderr "$DRA_BIN/dra-select" -o json "$BATS_TEST_TMPDIR/t.yaml"
    assert_success
    assert_equal "$(jq -c '[.items // [.] | .[] | .pool]' <<<"$output")" '["ps1","ps3"]'
    # an error in the document itself is still refused, at its own line
    { slice_yaml s1; echo '---'; slice_yaml s2 | sed 's/driver: example.com/driver: [/'; } >"$BATS_TEST_TMPDIR/bad.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$BATS_TEST_TMPDIR/bad.yaml"
    assert_failure 2
    [[ $stderr == *"bad.yaml:18:7 (document 2): invalid YAML: did not find expected"* ]]
}

@test "the validate peer reads on as YAML after one JSON document, as kubectl does" {
    # k8s.io/apimachinery@v0.37.2 pkg/util/yaml/decoder.go: one JSON
    # document, then YAML from its end; the peer went to YAML only when
    # the first document failed
    local peer=${UPSTREAM_BIN:-$BATS_TEST_DIRNAME/../../build/upstream/bin}/upstream-validate
    [ -x "$peer" ] || skip "upstream-validate not built (make upstream-validate-peer)"
    { slice_line s1 xy; printf 'apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s2}\n'; } >"$BATS_TEST_TMPDIR/mixed.json"
    run --separate-stderr "$peer" "$BATS_TEST_TMPDIR/mixed.json"
    [[ $stderr == *"mixed.json:2 (document 2): ResourceSlice/s2: spec.driver: Required value"* ]]
    [[ $stderr != *"invalid JSON"* ]]
    # a raw tab in the second JSON document: YAML takes it
    { slice_line s1 xy; slice_line s2 'x\ty'; } >"$BATS_TEST_TMPDIR/two.json"
    run --separate-stderr "$peer" "$BATS_TEST_TMPDIR/two.json"
    assert_success
}
