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

@test "discover: an A100 in MIG mode publishes its MIG devices as NVIDIA's driver names them" {
    run --separate-stderr "$S" discover --sysfs-root "$D/sysfs" --source nvidia --nvidia-smi "$D/fake-nvidia-smi" --node node-a
    assert_success
    assert_output --partial "driver: gpu.nvidia.com"
    assert_output --partial "- name: gpu-0-mig-3g20gb-9-4"
    assert_output --partial "- name: gpu-0-mig-1g5gb-19-0"
    refute_line --regexp '^ *- name: gpu-0$'
    assert_output --partial "- name: gpu-1"
    assert_output --partial "version: 535.129.3"
    assert_output --partial "string: pci0000:3a"
    assert_output --partial "memorySlice7:"
    "$S" discover --sysfs-root "$D/sysfs" --source nvidia --nvidia-smi "$D/fake-nvidia-smi" --node node-a >"$BATS_TEST_TMPDIR/g.yaml"
    run "$S" lint "$BATS_TEST_TMPDIR/g.yaml"
    assert_success
    run "$S" validate "$BATS_TEST_TMPDIR/g.yaml"
    assert_success
}

@test "discover: the real H200 capture gives what NVIDIA's driver publishes" {
    run --separate-stderr "$S" discover --source nvidia --nvidia-smi "$D/nvidia/h200/nvidia-smi" --node n1 -o json
    assert_success
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/h.json"
    run jq -c '.spec.devices[0] | [.name, .attributes.brand.string, .attributes.cudaComputeCapability.version,
        .attributes.driverVersion.version, .attributes.cudaDriverVersion.version, .attributes.addressingMode.string,
        .attributes.architecture.string, .attributes.productName.string, .attributes.type.string,
        .attributes["resource.kubernetes.io/pciBusID"].string, .capacity.memory.value]' "$BATS_TEST_TMPDIR/h.json"
    assert_output '["gpu-0","Nvidia","9.0.0","580.159.4","13.0.0","None","Hopper","NVIDIA H200","gpu","0000:00:06.0","143771Mi"]'
    run "$S" validate "$BATS_TEST_TMPDIR/h.json"
    assert_success
    # a selector written against real slices
    run --separate-stderr "$DRA_BIN/dra-select" -e "device.attributes['gpu.nvidia.com'].cudaComputeCapability.isGreaterThan(semver('8.0.0')) && device.attributes['gpu.nvidia.com'].brand == 'Nvidia'" "$BATS_TEST_TMPDIR/h.json"
    assert_success
    assert_output "gpu.nvidia.com/n1/gpu-0"
}

@test "discover --dynamic-mig: H200 placements round-trip through validate, dra-select and dra-alloc" {
    "$S" discover --source nvidia --nvidia-smi "$D/nvidia/h200/nvidia-smi" --node n1 --dynamic-mig >"$BATS_TEST_TMPDIR/h.yaml"
    run "$S" validate "$BATS_TEST_TMPDIR/h.yaml" "$D/nvidia/mig-layouts.yaml"
    assert_success
    run "$S" lint "$BATS_TEST_TMPDIR/h.yaml"
    assert_success
    run --separate-stderr "$DRA_BIN/dra-select" --class mig.nvidia.com -e "device.attributes['gpu.nvidia.com'].profile == '3g.71gb'" "$BATS_TEST_TMPDIR/h.yaml" "$D/nvidia/mig-layouts.yaml"
    assert_success
    assert_output "gpu.nvidia.com/n1/gpu-0-mig-3g71gb-9-0
gpu.nvidia.com/n1/gpu-0-mig-3g71gb-9-4"
    # 3g.71gb + 2 x 2g.35gb fits ...
    run --separate-stderr "$DRA_BIN/dra-alloc" --node n1 "$BATS_TEST_TMPDIR/h.yaml" "$D/nvidia/mig-layouts.yaml"
    assert_success
    assert_output --partial "device: gpu-0-mig-3g71gb-9-4"
    assert_output --partial "device: gpu-0-mig-2g35gb-14-0"
    assert_output --partial "device: gpu-0-mig-2g35gb-14-2"
    # ... 2 x 3g.71gb + 1g.18gb does not: no memory slice is left
    sed '/^---$/,$d' "$D/nvidia/mig-layouts.yaml" >"$BATS_TEST_TMPDIR/class.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --node n1 "$BATS_TEST_TMPDIR/h.yaml" "$BATS_TEST_TMPDIR/class.yaml" "$D/nvidia/mig-layout-too-big.yaml"
    assert_failure 1
}

mig_claim() {
    cat <<EOF
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: default}
spec:
  devices:
    requests:
    - name: r
      exactly:
        deviceClassName: mig.nvidia.com
        count: $1
        selectors:
        - cel: {expression: "device.attributes['gpu.nvidia.com'].profile == '$2'"}
EOF
}

@test "discover: eight H100s in MIG mode, static and --dynamic-mig" {
    run --separate-stderr "$S" discover --source nvidia --nvidia-smi "$D/nvidia/dgx-h100-mig/nvidia-smi" --node dgx -o jsonl
    assert_success
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/s.jsonl"
    run jq -s '[.[].spec.devices[]?] | length' "$BATS_TEST_TMPDIR/s.jsonl"
    assert_output 22
    run jq -rs '[.[].spec.devices[]? | select(.name == "gpu-1-mig-3g40gb-9-4")][0].attributes.profile.string' "$BATS_TEST_TMPDIR/s.jsonl"
    assert_output "3g.40gb"
    run "$S" validate "$BATS_TEST_TMPDIR/s.jsonl"
    assert_success
    "$S" discover --source nvidia --nvidia-smi "$D/nvidia/dgx-h100-mig/nvidia-smi" --node dgx --dynamic-mig -o jsonl >"$BATS_TEST_TMPDIR/d.jsonl"
    run jq -s '[.[].spec.devices[]?] | length' "$BATS_TEST_TMPDIR/d.jsonl"
    assert_output 208
    run jq -s '[.[].spec.sharedCounters[]?] | length' "$BATS_TEST_TMPDIR/d.jsonl"
    assert_output 8
    run "$S" validate "$BATS_TEST_TMPDIR/d.jsonl"
    assert_success
    run "$S" lint "$BATS_TEST_TMPDIR/d.jsonl"
    assert_success
    sed '/^---$/,$d' "$D/nvidia/mig-layouts.yaml" >"$BATS_TEST_TMPDIR/class.yaml"
    mig_claim 16 3g.40gb >"$BATS_TEST_TMPDIR/c16.yaml"
    mig_claim 17 3g.40gb >"$BATS_TEST_TMPDIR/c17.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --node dgx "$BATS_TEST_TMPDIR/d.jsonl" "$BATS_TEST_TMPDIR/class.yaml" "$BATS_TEST_TMPDIR/c16.yaml"
    assert_success
    run --separate-stderr "$DRA_BIN/dra-alloc" --node dgx "$BATS_TEST_TMPDIR/d.jsonl" "$BATS_TEST_TMPDIR/class.yaml" "$BATS_TEST_TMPDIR/c17.yaml"
    assert_failure 1
}

@test "discover: no GPU, a failing or hanging nvidia-smi query, garbage tables" {
    mkdir "$BATS_TEST_TMPDIR/none"
    printf '<?xml version="1.0" ?>\n<nvidia_smi_log>\n<driver_version>580.159.04</driver_version>\n<attached_gpus>0</attached_gpus>\n</nvidia_smi_log>\n' >"$BATS_TEST_TMPDIR/none/nvidia-smi-q.xml"
    printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$D/nvidia/fake-nvidia-smi" "$BATS_TEST_TMPDIR/none" >"$BATS_TEST_TMPDIR/smi0"
    chmod +x "$BATS_TEST_TMPDIR/smi0"
    run --separate-stderr "$S" discover --source nvidia --nvidia-smi "$BATS_TEST_TMPDIR/smi0" --node n --dynamic-mig
    assert_failure 1
    [[ $stderr == *"no NVIDIA GPUs: $BATS_TEST_TMPDIR/smi0 lists none"* ]]
    # mig -lgip fails
    cp -r "$D/nvidia/h200" "$BATS_TEST_TMPDIR/h"
    rm "$BATS_TEST_TMPDIR/h/mig-lgip.txt"
    printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$D/nvidia/fake-nvidia-smi" "$BATS_TEST_TMPDIR/h" >"$BATS_TEST_TMPDIR/h/nvidia-smi"
    run --separate-stderr "$S" discover --source nvidia --nvidia-smi "$BATS_TEST_TMPDIR/h/nvidia-smi" --node n --dynamic-mig
    assert_failure 3
    assert_output ""
    [[ $stderr == *"h/nvidia-smi mig -lgip failed (exit status 9)"* ]]
    # garbage in a table names the command and the line
    cp "$D/nvidia/h200/mig-lgip.txt" "$BATS_TEST_TMPDIR/h/mig-lgip.txt"
    printf 'GPU  0 Profile ID 19 Placements: {0,1,x}:1\n' >"$BATS_TEST_TMPDIR/h/mig-lgipp.txt"
    run --separate-stderr "$S" discover --source nvidia --nvidia-smi "$BATS_TEST_TMPDIR/h/nvidia-smi" --node n --dynamic-mig
    assert_failure 3
    [[ $stderr == *"nvidia-smi mig -lgipp:1: not nvidia-smi output: a placement start is not a number"* ]]
    # the compute-capability query hangs
    printf '#!/bin/sh\ncase "$1" in --query-gpu=*) exec sleep 30 ;; esac\nexec "%s" "$@"\n' "$D/nvidia/h200/nvidia-smi" >"$BATS_TEST_TMPDIR/hang"
    chmod +x "$BATS_TEST_TMPDIR/hang"
    DRA_NVIDIA_SMI_TIMEOUT_MS=300 run --separate-stderr "$S" discover --source nvidia --nvidia-smi "$BATS_TEST_TMPDIR/hang" --node n
    assert_failure 3
    [[ $stderr == *"hang --query-gpu=index,uuid,compute_cap --format=csv did not finish within 300 ms; killed it"* ]]
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
