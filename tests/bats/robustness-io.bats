#!/usr/bin/env bats
# Robustness of reading and writing: odd paths, stdin named twice, stdout
# that is full, closed or a broken pipe, hostile discovery sources.  A failed
# write is an error (exit 3), said once; nothing is left hanging.
bats_require_minimum_version 1.5.0
load helpers

R="$BATS_TEST_DIRNAME/../data/robustness"
C="$EXAMPLES/cluster"

no_sanitizer_report() {
    if [[ $stderr =~ (Sanitizer|\.c:[0-9]+:[0-9]+:\ runtime\ error) ]]; then
        echo "sanitizer report: $stderr"
        return 1
    fi
}

# Commands that write something to stdout on the example cluster.
WRITERS=(
    "dra-slice profile gpu --nodes 50"
    "dra-slice build --driver gpu.example.com --node n $EXAMPLES/inventory/node-c-gpus.yaml"
    "dra-select --class gpu.example.com $C/slices.yaml $C/classes.yaml"
    "dra-select check true"
    "dra-select eval 1+1"
    "dra-claim status $C/claims.yaml $C/pods.yaml"
    "dra-claim generate $C/claims.yaml $C/pods.yaml"
    "dra-evict --now 2026-03-01T11:00:00Z $C/slices.yaml $BATS_TEST_DIRNAME/../data/evict/rules.yaml"
    "dra-slice --help"
    "dra-select --completion bash"
)

@test "a full disk on stdout is exit 3 with one message, for every tool" {
    for w in "${WRITERS[@]}"; do
        # shellcheck disable=SC2086
        run --separate-stderr bash -c '"$0" "$@" >/dev/full' "$DRA_BIN/"$w
        no_sanitizer_report
        [[ $status -eq 3 ]] || { echo "$w: exit $status: $stderr"; false; }
        [[ $stderr == *"No space left on device"* ]] || { echo "$w: $stderr"; false; }
        [[ $(grep -c "error writing" <<<"$stderr") -eq 1 ]] || { echo "$w: said more than once: $stderr"; false; }
    done
}

@test "dra-alloc schedule on a full disk is exit 3" {
    run --separate-stderr bash -c '"$0" schedule "$@" >/dev/full' "$DRA_BIN/dra-alloc" "$C"/*.yaml
    assert_failure 3
    [[ $stderr == *"No space left on device"* ]]
}

@test "a closed stdout is exit 3 (Bad file descriptor), not output thrown away" {
    for w in "${WRITERS[@]}"; do
        # shellcheck disable=SC2086
        run --separate-stderr bash -c '"$0" "$@" >&-' "$DRA_BIN/"$w
        no_sanitizer_report
        [[ $status -eq 3 ]] || { echo "$w: exit $status: $stderr"; false; }
        [[ $stderr == *"error writing"*"Bad file descriptor"* ]] || { echo "$w: $stderr"; false; }
    done
}

@test "a closed stdout is fine for a command that prints nothing" {
    run --separate-stderr bash -c '"$0" validate "$1" >&-' "$DRA_BIN/dra-slice" "$C/slices.yaml"
    assert_success
    [[ -z $stderr ]]
}

@test "--version to a full disk says why it failed" {
    for t in dra-slice dra-select dra-alloc dra-claim dra-evict; do
        run --separate-stderr bash -c '"$0" --version >/dev/full' "$DRA_BIN/$t"
        assert_failure 3
        [[ $stderr == "$t: error writing to standard output: No space left on device" ]]
    done
}

@test "SIGPIPE (| head -1) ends a writer quietly" {
    run --separate-stderr bash -c 'set -o pipefail; "$0" profile gpu --nodes 3000 | head -1' "$DRA_BIN/dra-slice"
    assert_output "apiVersion: resource.k8s.io/v1"
    [[ -z $stderr ]]
    assert_success
}

@test "with SIGPIPE ignored, a broken pipe still ends quietly with 0" {
    run --separate-stderr bash -c 'trap "" PIPE; "$0" profile gpu --nodes 3000 -o json | head -c 10 >/dev/null; echo "rc=${PIPESTATUS[0]}"' "$DRA_BIN/dra-slice"
    assert_output "rc=0"
    [[ -z $stderr ]]
}

@test "standard input named twice is a usage error, before anything is read" {
    for r in "dra-slice validate" "dra-slice lint" "dra-select lint" "dra-alloc schedule" "dra-claim status" "dra-evict"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$DRA_BIN/"$r - "$C/classes.yaml" - <"$C/slices.yaml"
        [[ $status -eq 2 ]] || { echo "$r: exit $status"; false; }
        [[ -z $output ]]
        [[ $stderr == *"standard input ('-') is named 2 times; it can be read only once"* ]]
    done
}

@test "standard input once, among files, is read" {
    run --separate-stderr "$DRA_BIN/dra-select" --class gpu.example.com - "$C/classes.yaml" <"$C/slices.yaml"
    assert_success
    assert_line "gpu.example.com/node-a/gpu-0"
}

@test "an empty directory as input is read as no objects" {
    mkdir "$BATS_TEST_TMPDIR/empty"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$BATS_TEST_TMPDIR/empty"
    assert_success
}

@test "unreadable /proc files are input errors" {
    run --separate-stderr "$DRA_BIN/dra-slice" validate /proc/self/mem
    assert_failure 2
    [[ $stderr == "dra-slice: /proc/self/mem: read error: Input/output error" ]]
    run --separate-stderr "$DRA_BIN/dra-select" lint /proc/self/status
    assert_failure 2
    [[ $stderr == *"/proc/self/status:1: <unnamed object>: apiVersion: Required value"* ]]
}

@test "a missing file and an empty file name are input errors" {
    run --separate-stderr "$DRA_BIN/dra-claim" status "$BATS_TEST_TMPDIR/nope.yaml"
    assert_failure 2
    [[ $stderr == "dra-claim: $BATS_TEST_TMPDIR/nope.yaml: No such file or directory" ]]
    run --separate-stderr "$DRA_BIN/dra-slice" validate ''
    assert_failure 2
    [[ $stderr == "dra-slice: '' (empty file name): No such file or directory" ]]
}

@test "an error in one file means no output at all, even when other files are fine" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule "$C"/*.yaml "$R/truncated.yaml"
    assert_failure 2
    [[ -z $output ]]
    run --separate-stderr "$DRA_BIN/dra-claim" generate "$C"/*.yaml "$R/garbage.bin"
    assert_failure 2
    [[ -z $output ]]
}

@test "repl refuses '-' as a file: stdin carries its commands" {
    run --separate-stderr "$DRA_BIN/dra-select" repl - </dev/null
    assert_failure 2
    [[ $stderr == *"repl reads its commands from standard input"* ]]
}

@test "repl ':load -' is refused, and later lines still run" {
    run --separate-stderr "$DRA_BIN/dra-select" repl <<<$':load -\n:load '"$C/slices.yaml"$'\n:devices'
    assert_success
    assert_line --index 0 "error: cannot load standard input ('-') in a session: name a file"
    assert_line "(7 devices)"
}

@test "repl without a terminal keeps no history file" {
    HOME=$BATS_TEST_TMPDIR run --separate-stderr "$DRA_BIN/dra-select" repl <<<'1 + 1'
    assert_success
    assert_output "2"
    [[ ! -e $BATS_TEST_TMPDIR/.dra_select_history ]]
}

@test "repl survives garbage lines" {
    { printf 'device.driver\n:bogus\n'; head -c 3000 /dev/urandom | tr '\0' x; printf '\n%s\n' "$(head -c 400 /dev/zero | tr '\0' '(')"; } >"$BATS_TEST_TMPDIR/in"
    run --separate-stderr "$DRA_BIN/dra-select" repl "$C/slices.yaml" <"$BATS_TEST_TMPDIR/in"
    no_sanitizer_report
    assert_success
    assert_line "error: unknown command :bogus (:help lists them)"
}

@test "discover: a FIFO in a made-up sysfs tree does not hang" {
    cp -a "$DATA/slice/sysfs" "$BATS_TEST_TMPDIR/sys"
    rm "$BATS_TEST_TMPDIR/sys/devices/virtual/net/veth_a1/operstate"
    mkfifo "$BATS_TEST_TMPDIR/sys/devices/virtual/net/veth_a1/operstate"
    run --separate-stderr timeout 20 "$DRA_BIN/dra-slice" discover --sysfs-root "$BATS_TEST_TMPDIR/sys" --source net --node n
    assert_success
    assert_output --partial "ifName:"
}

@test "discover: garbage sysfs attributes are skipped, not fatal" {
    cp -a "$DATA/slice/sysfs" "$BATS_TEST_TMPDIR/sys"
    g="$BATS_TEST_TMPDIR/sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0"
    head -c 10000 /dev/urandom >"$g/vendor"
    printf '\0\0\0' >"$g/device"
    echo 99999999999999999999 >"$g/numa_node"
    rm "$g/iommu_group" && ln -s iommu_group "$g/iommu_group"
    ln -s loop1 "$BATS_TEST_TMPDIR/sys/bus/pci/devices/loop2"
    ln -s loop2 "$BATS_TEST_TMPDIR/sys/bus/pci/devices/loop1"
    run --separate-stderr "$DRA_BIN/dra-slice" discover --sysfs-root "$BATS_TEST_TMPDIR/sys" --source pci --node n
    no_sanitizer_report
    assert_success
    assert_output --partial "name: pci-0000-3b-00-0"
}

fake_smi() {
    printf '#!/bin/sh\n%s\n' "$2" >"$BATS_TEST_TMPDIR/$1"
    chmod +x "$BATS_TEST_TMPDIR/$1"
}

@test "discover: a hanging nvidia-smi is killed after the timeout" {
    fake_smi hang 'exec sleep 30'
    SECONDS=0
    DRA_NVIDIA_SMI_TIMEOUT_MS=300 run --separate-stderr "$DRA_BIN/dra-slice" discover --source nvidia --nvidia-smi "$BATS_TEST_TMPDIR/hang" --node n
    assert_failure 3
    [[ -z $output ]]
    [[ $stderr == *"hang -q -x did not finish within 300 ms; killed it"* ]]
    ((SECONDS < 10))
}

@test "discover: a bad DRA_NVIDIA_SMI_TIMEOUT_MS is an input error" {
    DRA_NVIDIA_SMI_TIMEOUT_MS=soon run --separate-stderr "$DRA_BIN/dra-slice" discover --source nvidia --nvidia-smi "$DATA/slice/fake-nvidia-smi" --node n
    assert_failure 2
    [[ $stderr == *"DRA_NVIDIA_SMI_TIMEOUT_MS: must be milliseconds between 1 and 3600000, not 'soon'"* ]]
}

@test "discover: nvidia-smi printing garbage, nothing, or failing is exit 3" {
    fake_smi garbage 'head -c 20000 /dev/urandom'
    fake_smi empty 'exit 0'
    fake_smi fail 'echo boom >&2; exit 4'
    run --separate-stderr "$DRA_BIN/dra-slice" discover --source nvidia --nvidia-smi "$BATS_TEST_TMPDIR/garbage" --node n
    assert_failure 3
    [[ $stderr == *"garbage: not nvidia-smi XML output"* ]]
    run --separate-stderr "$DRA_BIN/dra-slice" discover --source nvidia --nvidia-smi "$BATS_TEST_TMPDIR/empty" --node n
    assert_failure 3
    [[ $stderr == *"empty: not nvidia-smi XML output: no root element"* ]]
    run --separate-stderr "$DRA_BIN/dra-slice" discover --source nvidia --nvidia-smi "$BATS_TEST_TMPDIR/fail" --node n
    assert_failure 3
    [[ $stderr == *"fail -q -x failed (exit status 4)"* ]]
}

@test "discover: deeply nested or oversized nvidia-smi output is refused" {
    fake_smi deep "awk 'BEGIN { printf \"<nvidia_smi_log>\"; for (i = 0; i < 100000; i++) printf \"<a>\"; for (i = 0; i < 100000; i++) printf \"</a>\"; print \"</nvidia_smi_log>\" }'"
    fake_smi huge 'head -c 70000000 /dev/zero | tr "\\0" a'
    run --separate-stderr "$DRA_BIN/dra-slice" discover --source nvidia --nvidia-smi "$BATS_TEST_TMPDIR/deep" --node n
    no_sanitizer_report
    assert_failure 3
    [[ $stderr == *"nesting too deep"* ]]
    run --separate-stderr "$DRA_BIN/dra-slice" discover --source nvidia --nvidia-smi "$BATS_TEST_TMPDIR/huge" --node n
    assert_failure 3
    [[ $stderr == *"huge: output larger than the limit of 67108864 bytes"* ]]
}

@test "discover: XML entities from nvidia-smi are not expanded" {
    fake_smi ent 'printf "<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">]><nvidia_smi_log><gpu id=\"00000000:3B:00.0\"><product_name>&b;</product_name><uuid>GPU-1</uuid><compute_cap>8.0</compute_cap></gpu></nvidia_smi_log>"'
    run --separate-stderr "$DRA_BIN/dra-slice" discover --source nvidia --nvidia-smi "$BATS_TEST_TMPDIR/ent" --node n
    assert_success
    assert_output --partial "string: '&b;'"
}
