#!/usr/bin/env bats
# dra-slice discover: fake sysfs trees, a fake nvidia-smi, and this machine.
bats_require_minimum_version 1.5.0
load helpers

setup() {
    S="$DRA_BIN/dra-slice"
    D="$DATA/slice"
}

@test "discover: PCI and network devices from a fake sysfs" {
    run --separate-stderr "$S" discover --sysfs-root "$D/sysfs" --source pci,net --node node-a
    assert_success
    assert_output --partial "driver: pci.dra-tools.io"
    assert_output --partial "driver: net.dra-tools.io"
    assert_output --partial "- name: pci-0000-3b-00-0"
    assert_output --partial "string: pci0000:3a"
    assert_output --partial "- name: net-eth0"
    refute_output --partial "ifName:
        string: lo"
    "$S" discover --sysfs-root "$D/sysfs" --source pci,net --node node-a >"$BATS_TEST_TMPDIR/d.yaml"
    run "$S" validate "$BATS_TEST_TMPDIR/d.yaml"
    assert_success
}

@test "discover: --inventory prints devices for build" {
    run --separate-stderr "$S" discover --sysfs-root "$D/sysfs" --source net --inventory -o json
    assert_success
    assert_output --partial '"devices": ['
    refute_output --partial 'ResourceSlice'
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/inv.json"
    run --separate-stderr "$S" build --driver net.example.com --node n1 "$BATS_TEST_TMPDIR/inv.json"
    assert_success
    assert_output --partial "- name: net-eth0"
}

@test "discover: nvidia-smi with MIG gives partitionable devices" {
    run --separate-stderr "$S" discover --sysfs-root "$D/sysfs" --source nvidia --nvidia-smi "$D/fake-nvidia-smi" --node node-a
    assert_success
    assert_output --partial "driver: gpu.nvidia.com"
    assert_output --partial "- name: gpu-0-counter-set"
    assert_output --partial "- name: gpu-0-mig-1-0"
    assert_output --partial "counterSet: gpu-0-counter-set"
    assert_output --partial "version: 535.129.3"
    assert_output --partial "string: pci0000:3a"
    "$S" discover --sysfs-root "$D/sysfs" --source nvidia --nvidia-smi "$D/fake-nvidia-smi" --node node-a >"$BATS_TEST_TMPDIR/g.yaml"
    run "$S" lint "$BATS_TEST_TMPDIR/g.yaml"
    assert_success
    run "$S" validate "$BATS_TEST_TMPDIR/g.yaml"
    assert_success
}

@test "discover: --driver puts every source into one pool" {
    run --separate-stderr "$S" discover --sysfs-root "$D/sysfs" --nvidia-smi "$D/fake-nvidia-smi" --driver all.example.com --node node-a -o jsonl
    assert_success
    refute_output --partial "pci.dra-tools.io"
    assert_output --partial '"driver":"all.example.com"'
}

@test "discover: absent sources are skipped with a note; nothing at all exits 1" {
    run --separate-stderr "$S" discover --sysfs-root "$BATS_TEST_TMPDIR" --source pci,net --node n
    assert_failure 1
    [[ $stderr == *"note: no PCI devices:"*"not found"* ]]
    [[ $stderr == *"no devices found"* ]]
    assert_output ""
    run --separate-stderr env PATH=/nonexistent "$S" discover --sysfs-root "$D/sysfs" --source nvidia --node n
    assert_failure 1
    [[ $stderr == *"nvidia-smi not found in PATH"* ]]
}

@test "discover: unknown source and bad nvidia-smi" {
    run --separate-stderr "$S" discover --source pci,usb
    assert_failure 2
    [[ $stderr == *"--source: unknown source 'usb': known sources are pci, net, nvidia"* ]]
    run --separate-stderr "$S" discover --source nvidia --nvidia-smi "$BATS_TEST_TMPDIR/none" --node n
    assert_failure 2
    [[ $stderr == *"--nvidia-smi"* ]]
    printf '#!/bin/sh\necho "<html>"\n' >"$BATS_TEST_TMPDIR/smi"
    chmod +x "$BATS_TEST_TMPDIR/smi"
    run --separate-stderr "$S" discover --source nvidia --nvidia-smi "$BATS_TEST_TMPDIR/smi" --node n
    assert_failure 3
    [[ $stderr == *"not nvidia-smi XML output"* ]]
}

@test "discover: this machine's real /sys" {
    [ -d /sys/bus/pci/devices ] || [ -d /sys/class/net ] || skip "no sysfs here"
    run --separate-stderr "$S" discover --source pci,net --node this-node
    [ "$status" -eq 0 ] || [ "$status" -eq 1 ]
    if [ "$status" -eq 0 ]; then
        printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/real.yaml"
        run "$S" validate "$BATS_TEST_TMPDIR/real.yaml"
        assert_success
        run "$S" lint "$BATS_TEST_TMPDIR/real.yaml"
        [ "$status" -eq 0 ]
    fi
}
