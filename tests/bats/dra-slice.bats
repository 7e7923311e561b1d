#!/usr/bin/env bats
# dra-slice: help, version, profiles.
bats_require_minimum_version 1.5.0
load helpers

setup() {
    S="$DRA_BIN/dra-slice"
}

@test "dra-slice --help and --version" {
    run "$S" --help
    assert_success
    assert_output --partial "dra-slice build --driver NAME"
    run "$S" --version
    assert_success
    assert_output --partial "0."
    for c in build discover profile lint validate; do
        run "$S" "$c" --help
        assert_success
        assert_output --partial "$c"
    done
}

@test "dra-slice: unknown command and option" {
    run --separate-stderr "$S" frobnicate
    assert_failure 2
    run --separate-stderr "$S" build --frob
    assert_failure 2
}

@test "profile gpu: dra-example-driver shape, deterministic" {
    run --separate-stderr "$S" profile gpu --nodes 2 --devices 3
    assert_success
    assert_output --partial "index:"
    assert_output --partial "string: LATEST-GPU-MODEL"
    assert_output --partial "version: 1.0.0"
    assert_output --partial "value: 80Gi"
    assert_output --partial "nodeName: node-1"
    first=$output
    run --separate-stderr "$S" profile gpu --nodes 2 --devices 3
    assert_equal "$output" "$first"
}

@test "profile gpu with partitions, net and mig validate and lint clean" {
    for p in "gpu --partitions 4" "net" "mig"; do
        # shellcheck disable=SC2086
        "$S" profile $p --nodes 2 --devices 10 >"$BATS_TEST_TMPDIR/p.yaml"
        run "$S" validate "$BATS_TEST_TMPDIR/p.yaml"
        assert_success
        run "$S" lint "$BATS_TEST_TMPDIR/p.yaml"
        assert_success
    done
    run "$S" profile net --devices 1 -o json
    assert_output --partial '"allowMultipleAllocations": true'
    assert_output --partial '"validRange"'
    run "$S" profile mig --devices 1 -o jsonl
    assert_output --partial '"name":"gpu-0-mig-3g20gb-9-4"'
    assert_output --partial '"memory-slice-7"'
}

@test "profile: bad arguments" {
    run --separate-stderr "$S" profile tpu
    assert_failure 2
    [[ $stderr == *"unknown profile 'tpu'"* ]]
    run --separate-stderr "$S" profile net --partitions 2
    assert_failure 2
    [[ $stderr == *"--partitions: only the gpu profile has partitions"* ]]
    run --separate-stderr "$S" profile gpu --nodes 0
    assert_failure 2
    run --separate-stderr "$S" profile
    assert_failure 2
}

@test "profile: 100,000 devices stream through build" {
    run bash -c "'$S' profile gpu --nodes 1 --devices 100000 -o jsonl | '$S' build --driver gpu.example.com --all-nodes --pool big -o jsonl | wc -l"
    assert_success
    assert_output "782"
}
