#!/usr/bin/env bats
# dra-prepare cdi: CDI device names resolved against spec directories, the
# merged container edits, and the errors for bad names and bad specs.
bats_require_minimum_version 1.5.0
load helpers

CDI="$DATA/prepare/cdi"

@test "cdi: spec-level edits once, device edits in order, JSON and YAML specs" {
    run --separate-stderr "$DRA_BIN/dra-prepare" cdi --cdi-dir "$CDI/etc" --cdi-dir "$CDI/run" -o json \
        gpu.example.com/gpu=gpu-0 gpu.example.com/gpu=gpu-1 net.example.com/nic=eth1
    assert_success
    [[ -z $stderr ]]
    [[ $(jq -c .env <<<"$output") == '["GPU_DRIVER=1.2","GPU_VISIBLE=1","NIC=eth1"]' ]]
    [[ $(jq -c '[.deviceNodes[] | [.path, .hostPath]]' <<<"$output") == '[["/dev/gpu0","/dev/gpu0"],["/dev/gpu1","/dev/gpu1"]]' ]]
    [[ $(jq -c '[.mounts[].containerPath]' <<<"$output") == '["/usr/lib/gpu","/sys/class/net/eth1/x"]' ]]
    [[ $(jq -r '.hooks[0].hookName' <<<"$output") == createContainer ]]
}

@test "cdi: mounts are ordered by depth, a later directory overrides an earlier one" {
    mkdir -p "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
    cat >"$BATS_TEST_TMPDIR/a/x.yaml" <<'YAML'
cdiVersion: 0.6.0
kind: example.com/x
devices:
- name: d
  containerEdits:
    env: [FROM=a]
    mounts:
    - {hostPath: /h1, containerPath: /a/b/c}
    - {hostPath: /h2, containerPath: /z}
YAML
    cat >"$BATS_TEST_TMPDIR/b/x.json" <<'JSON'
{"cdiVersion": "1.0.0", "kind": "example.com/x", "devices": [{"name": "d", "containerEdits": {"env": ["FROM=b"], "mounts": [{"hostPath": "/h1", "containerPath": "/a/b/c"}, {"hostPath": "/h2", "containerPath": "/z"}]}}]}
JSON
    run "$DRA_BIN/dra-prepare" cdi --cdi-dir "$BATS_TEST_TMPDIR/a" -o json example.com/x=d
    assert_success
    [[ $(jq -c '[.mounts[].containerPath]' <<<"$output") == '["/z","/a/b/c"]' ]]
    run "$DRA_BIN/dra-prepare" cdi --cdi-dir "$BATS_TEST_TMPDIR/a" --cdi-dir "$BATS_TEST_TMPDIR/b" -o jsonl example.com/x=d
    assert_success
    [[ $(jq -c .env <<<"$output") == '["FROM=b"]' ]]
}

@test "cdi: the same device twice in one directory is a conflict, not a guess" {
    mkdir -p "$BATS_TEST_TMPDIR/d"
    for f in one two; do
        printf 'cdiVersion: 0.6.0\nkind: example.com/x\ndevices:\n- name: d\n  containerEdits: {env: [F=%s]}\n' "$f" >"$BATS_TEST_TMPDIR/d/$f.yaml"
    done
    run --separate-stderr "$DRA_BIN/dra-prepare" cdi --cdi-dir "$BATS_TEST_TMPDIR/d" example.com/x=d
    assert_failure 2
    [[ -z $output ]]
    [[ $stderr == *'unresolvable CDI devices example.com/x=d: conflicting device "example.com/x=d" (specs "'*'/d/two.yaml", "'*'/d/one.yaml")'* ]]
}

@test "cdi: unknown and malformed device names are errors naming each" {
    run --separate-stderr "$DRA_BIN/dra-prepare" cdi --cdi-dir "$CDI/etc" gpu.example.com/gpu=gpu-9 nope 1x/y=z
    assert_failure 2
    [[ -z $output ]]
    [[ $stderr == *'no CDI spec defines "gpu.example.com/gpu=gpu-9"'* ]]
    [[ $stderr == *'unqualified device "nope", missing vendor'* ]]
    [[ $stderr == *'invalid device "1x/y=z": invalid vendor. "1x", should start with letter'* ]]
}

@test "cdi: a malformed spec is reported with file and field path; other specs still work" {
    mkdir -p "$BATS_TEST_TMPDIR/d"
    cp "$CDI/etc/gpu.yaml" "$BATS_TEST_TMPDIR/d/"
    printf 'cdiVersion: 0.6.0\nkind: example.com/x\ndevices:\n- name: d\n  containerEdits:\n    deviceNodes: [{path: /dev/x, type: q}]\n    mounts: [{containerPath: /m}]\n    hooks: [{hookName: later, path: /h}]\n    env: [NOVALUE]\n  extra: 1\n' >"$BATS_TEST_TMPDIR/d/bad.yaml"
    printf 'cdiVersion: "0.6.0"\nkind: example.com/y\ndevices:\n- name: e\n' >"$BATS_TEST_TMPDIR/d/empty.yaml"
    printf '{"cdiVersion": ' >"$BATS_TEST_TMPDIR/d/broken.json"
    printf 'not a spec' >"$BATS_TEST_TMPDIR/d/README"
    run --separate-stderr "$DRA_BIN/dra-prepare" cdi --cdi-dir "$BATS_TEST_TMPDIR/d" gpu.example.com/gpu=gpu-0
    assert_success
    [[ $output == *"GPU_VISIBLE=0"* ]]
    [[ $stderr == *'bad.yaml:1: devices[0].extra: unknown field "extra"'* ]]
    [[ $stderr == *'bad.yaml:1: devices[0].containerEdits.env[0]: invalid container edits: invalid environment variable "NOVALUE"'* ]]
    [[ $stderr == *'devices[0].containerEdits.deviceNodes[0]: device "/dev/x": invalid type "q"'* ]]
    [[ $stderr == *'devices[0].containerEdits.mounts[0]: invalid mount, empty host path'* ]]
    [[ $stderr == *'devices[0].containerEdits.hooks[0]: invalid hook name "later"'* ]]
    [[ $stderr == *'empty.yaml:1: devices[0].containerEdits: invalid device "e": empty container edits'* ]]
    [[ $stderr == *'broken.json'* ]]
    [[ $stderr != *README* ]]
    run --separate-stderr "$DRA_BIN/dra-prepare" cdi --cdi-dir "$BATS_TEST_TMPDIR/d" example.com/x=d
    assert_failure 2
    [[ -z $output ]]
}

@test "cdi: reads prepare's output on stdin and answers per container" {
    printf '%s\n' '{"namespace":"ns","pod":"p","container":"a","cdiDevices":["gpu.example.com/gpu=gpu-1"]}' \
        '{"namespace":"ns","pod":"p","container":"b","cdiDevices":[]}' \
        '{"action":"prepare","namespace":"ns","pod":"q","containers":[{"container":"c","cdiDevices":["net.example.com/nic=eth1"]}]}' \
        '{"action":"unprepare","namespace":"ns","claim":"x","uid":"u","pods":["u"]}' >"$BATS_TEST_TMPDIR/in.jsonl"
    run --separate-stderr bash -c "'$DRA_BIN/dra-prepare' cdi --cdi-dir '$CDI/etc' --cdi-dir '$CDI/run' -o jsonl < '$BATS_TEST_TMPDIR/in.jsonl'"
    assert_success
    [[ ${#lines[@]} -eq 3 ]]
    [[ $(jq -r -s '.[] | "\(.pod)/\(.container) \(.env | join(","))"' <<<"$output" | tr '\n' ';') == "p/a GPU_DRIVER=1.2,GPU_VISIBLE=1;p/b ;q/c NIC=eth1;" ]]
    printf '%s\n' '{"namespace":"ns","pod":"p","container":"a","cdiDevices":["gpu.example.com/gpu=gone"]}' >"$BATS_TEST_TMPDIR/bad.jsonl"
    run --separate-stderr bash -c "'$DRA_BIN/dra-prepare' cdi --cdi-dir '$CDI/etc' < '$BATS_TEST_TMPDIR/bad.jsonl'"
    assert_failure 2
    [[ -z $output ]]
    [[ $stderr == *"Pod/ns/p: container a: unresolvable CDI devices gpu.example.com/gpu=gone"* ]]
}

@test "cdi: missing spec directories are empty; an unreadable one is reported" {
    run --separate-stderr "$DRA_BIN/dra-prepare" cdi --cdi-dir "$BATS_TEST_TMPDIR/none" x.com/y=z
    assert_failure 2
    [[ $stderr == *'no CDI spec defines "x.com/y=z"'* ]]
    touch "$BATS_TEST_TMPDIR/file"
    run --separate-stderr "$DRA_BIN/dra-prepare" cdi --cdi-dir "$BATS_TEST_TMPDIR/file" x.com/y=z
    assert_failure 2
    [[ $stderr == *"$BATS_TEST_TMPDIR/file: Not a directory"* ]]
}
