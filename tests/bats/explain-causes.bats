#!/usr/bin/env bats
# Explanations that name the cause: reasons at a bounded-search cut, the
# claim and pod holding a device, capacity names, one-line pod verdicts,
# --explain-file, and pools whose slices disagree.
load helpers
bats_require_minimum_version 1.5.0

A="$DATA/alloc"

setup() {
    T=$BATS_TEST_TMPDIR
    # the node, class and slice of basic.yaml, without its claim
    sed '/^kind: ResourceClaim$/,$d' "$A/basic.yaml" | sed '$d' >"$T/world.yaml"
}

held() { # held CLAIM DEVICE POD: an in-use claim holding DEVICE of node-1, reserved for POD
    printf 'apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: %s, namespace: default, uid: uid-%s}\n' "$1" "$1"
    printf 'spec:\n  devices:\n    requests:\n    - {name: gpu, exactly: {deviceClassName: gpu}}\n'
    printf 'status:\n  allocation:\n    devices:\n      results:\n      - {request: gpu, driver: gpu.example.com, pool: node-1, device: %s}\n' "$2"
    printf '    nodeSelector:\n      nodeSelectorTerms:\n      - matchFields:\n        - {key: metadata.name, operator: In, values: [node-1]}\n'
    printf '  reservedFor:\n  - {resource: pods, name: %s, uid: uid-%s}\n---\n' "$3" "$3"
}

mem_claim() { # a claim asking for capacity gpu.example.com/memory, which the README's GPUs publish as memory
    sed '/^#/d' "$DATA/explain/mem-claim.yaml"
}

want() { # want NAME COUNT: a pending claim for COUNT gpus
    printf 'apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: %s, namespace: default, uid: uid-%s}\n' "$1" "$1"
    printf 'spec:\n  devices:\n    requests:\n    - {name: gpus, exactly: {deviceClassName: gpu, count: %s}}\n---\n' "$2"
}

@test "a cut before any device is tried still gives each device's reason, naming the claim and pod that hold it" {
    { held held gpu-0 trainer; want three 3; } >"$T/claims.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --explain "$T/world.yaml" "$T/claims.yaml"
    assert_failure 1
    [[ $stderr == *"search cut where request gpus needs 3 devices; 2 could serve it"* ]]
    [[ $stderr == *"0 devices tried"* ]]
    [[ $stderr == *"gpu.example.com/node-1/gpu-0: in-use: allocated to claim default/held, reserved for pod default/trainer"* ]]
    # the same reason as the exhaustive search gives
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --explain --no-prune "$T/world.yaml" "$T/claims.yaml"
    assert_failure 1
    [[ $stderr == *"gpu.example.com/node-1/gpu-0: in-use: allocated to claim default/held, reserved for pod default/trainer"* ]]
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --explain=json "$T/world.yaml" "$T/claims.yaml"
    assert_failure 1
    run jq -c '.claims[0].requests[0].rejected' <<<"${stderr%dra-alloc:*}"
    assert_output '[{"device":"gpu.example.com/node-1/gpu-0","reason":"in-use","detail":"allocated to claim default/held, reserved for pod default/trainer"}]'
}

@test "a capacity request names the capacity asked for and what the device publishes (README example cluster)" {
    mem_claim >"$T/mem.yaml"
    C="$EXAMPLES/cluster"
    # 1.37: from 1.38 a capacity named without domain is the driver's
    run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version 1.37 --node node-a --explain "$C/classes.yaml" "$C/nodes.yaml" "$C/slices.yaml" "$T/mem.yaml"
    assert_failure 1
    [[ $stderr == *"gpu.example.com/node-a/gpu-0: capacity: capacity gpu.example.com/memory requested; the device publishes memory"* ]]
    [[ $stderr == *"net.example.com/node-a/eth1: class-selector: class gpu.example.com selector #0 is false"* ]]
    # the name the device publishes is allocated
    sed -i 's|gpu.example.com/memory: 40Gi|memory: 40Gi|' "$T/mem.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-a -o jsonl "$C/classes.yaml" "$C/nodes.yaml" "$C/slices.yaml" "$T/mem.yaml"
    assert_success
}

@test "schedule --explain ends each unschedulable pod with one sentence: what is missing, where, the nearest fix (README example cluster)" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --now 2026-01-01T00:00:00Z --explain "$EXAMPLES/cluster/"*.yaml
    assert_failure 1
    # the pod's verdict is the last line of its block
    run grep -A100 '^pod default/fast-path:' <<<"$stderr"
    assert_line --index $((${#lines[@]} - 1)) --regexp '^  in short: claim default/fast-path-devices-[a-z0-9]+, request gpu finds no device on 2 nodes; nearest: gpu.example.com/node-a/gpu-0 on node-a, allocated to claim default/trainer-gpu-[a-z0-9]+, reserved for pod default/trainer; fix: free it \(delete that claim or end its pod\), or add a device$'
    # a device the request does not select is explained by its selector, not by who holds it
    [[ $stderr == *"request nic: gpu.example.com/node-a/gpu-0: class nic.example.com selector #0 is false"* ]]
    # scheduled pods get no verdict
    [ "$(grep -c 'in short:' <<<"$stderr")" -eq 1 ]
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --now 2026-01-01T00:00:00Z --explain=json "$EXAMPLES/cluster/"*.yaml
    assert_failure 1
    run jq -r 'select(.pod == "default/fast-path") | .summary' <<<"$(grep '^{' <<<"$stderr")"
    assert_output --regexp '^claim default/fast-path-devices-[a-z0-9]+, request gpu finds no device on 2 nodes; nearest: '
}

@test "schedule --explain: a pod whose nodes have too few devices is told so in one sentence" {
    "$DRA_BIN/dra-slice" profile gpu --nodes 2 --devices 1 >"$T/fleet.yaml"
    cp "$DATA/explain/two-gpus.yaml" "$T/pod.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --now 2026-01-01T00:00:00Z --explain "$T/fleet.yaml" "$T/pod.yaml"
    assert_failure 1
    [[ $stderr == *"  in short: 2 nodes refused before allocating: fewer free devices than the claims need; fix: add devices, or free some" ]]
    # two devices a node, one of which the class does not select: the allocator's cut, with the reason
    # (and a node of one device, which the free-device bound refuses)
    "$DRA_BIN/dra-slice" profile gpu --nodes 2 --devices 2 >"$T/fleet.yaml"
    "$DRA_BIN/dra-slice" profile gpu --nodes 1 --devices 1 | sed 's/node-0/node-9/g' >"$T/small.yaml"
    sed -i 's/device.driver == "gpu.example.com"/device.attributes["gpu.example.com"].index == 0/' "$T/pod.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --now 2026-01-01T00:00:00Z --explain "$T/fleet.yaml" "$T/small.yaml" "$T/pod.yaml"
    assert_failure 1
    [[ $stderr == *"  in short: claim default/p-g-"*", request gpus finds no device on 2 nodes; nearest: gpu.example.com/node-0/gpu-1 on node-0, class gpu selector #0 is false; fix: ask for a device class that selects it (1 more node refused before allocating: fewer free devices than the claims need)" ]]
}

@test "dra-select lint reports capacity names no device publishes, in capacity requests and selectors (README example cluster)" {
    {
        mem_claim
        printf '%s\n' '        selectors:' \
            "        - cel: {expression: 'has(device.capacity[\"gpu.example.com\"].vram) || device.capacity[\"gpu.example.com\"].mem.compareTo(quantity(\"40Gi\")) >= 0'}"
    } >"$T/mem.yaml"
    C="$EXAMPLES/cluster"
    run --separate-stderr "$DRA_BIN/dra-select" lint "$C/slices.yaml" "$C/classes.yaml" "$T/mem.yaml"
    assert_failure 1
    assert_line "$T/mem.yaml:12: ResourceClaim/default/mem: spec.devices.requests[0].exactly.capacity.requests[gpu.example.com/memory]: capacity gpu.example.com/memory is published by none of the 3 devices the class selects (they publish: memory)"
    assert_line "$T/mem.yaml:14: ResourceClaim/default/mem: spec.devices.requests[0].exactly.selectors[0].cel.expression: capacity gpu.example.com/mem is published by no device (the devices publish: gpu.example.com/memory, net.example.com/bandwidth)"
    # a has() test is a guard: vram is not reported
    refute_output --partial 'vram'
    # the README's own claims, which ask for bandwidth and read memory, are clean
    run --separate-stderr "$DRA_BIN/dra-select" lint "$C/slices.yaml" "$C/classes.yaml" "$C/claims.yaml"
    assert_success
    assert_output ''
}

@test "--explain-file: the explanation goes to the file, whole; warnings and verdicts stay on stderr" {
    { held held gpu-0 trainer; want three 3; } >"$T/claims.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-2 --explain=json --explain-file "$T/ex.json" "$T/world.yaml" "$T/claims.yaml"
    assert_failure 1
    # stderr has the warning and the verdict, the file one JSON document and nothing else
    [[ $stderr == *"warning: node node-2 is not in the input"* ]]
    [[ $stderr == *"dra-alloc: cannot allocate all claims"* ]]
    [[ $stderr != *'"claims"'* ]]
    run jq -r '.node' "$T/ex.json"
    assert_success
    assert_output 'node-2'
    # --explain-file alone is --explain (text)
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --explain-file "$T/ex.txt" "$T/world.yaml" "$T/claims.yaml"
    assert_failure 1
    [[ $stderr != *"search cut"* ]]
    grep -q 'gpu.example.com/node-1/gpu-0: in-use: allocated to claim default/held, reserved for pod default/trainer' "$T/ex.txt"
    # a file that cannot be written is a runtime failure naming it, after the verdict
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --explain-file "$T/no/such/dir/ex.txt" "$T/world.yaml" "$T/claims.yaml"
    assert_failure 3
    [[ $stderr == *"$T/no/such/dir/ex.txt"* ]]
    # ... and an allocation that succeeds prints no claims then: an error exit prints no objects
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 -o jsonl --explain-file "$T/no/such/dir/ex.txt" "$A/basic.yaml"
    assert_failure 3
    assert_output ''
    # an explanation replaces the file: a successful run leaves its own, not the last one's
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 -o jsonl --explain-file "$T/ex.txt" "$A/basic.yaml"
    assert_success
    grep -q 'allocated gpu -> gpu.example.com/node-1/gpu-0' "$T/ex.txt"
    ! grep -q 'search cut' "$T/ex.txt"
}

@test "--explain-file on schedule and dra-select; not with --what-if" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --now 2026-01-01T00:00:00Z --explain=json --explain-file "$T/pods.jsonl" "$EXAMPLES/cluster/"*.yaml
    assert_failure 1
    # stderr keeps the scheduler's summary of the pod that fits nowhere
    [[ $stderr == *"dra-alloc: pod default/fast-path: 0/2 nodes are available: 2 cannot allocate all claims."* ]]
    [[ $stderr != *'{"pod"'* ]]
    run jq -r '.pod + " " + .outcome' "$T/pods.jsonl"
    assert_line 'default/trainer scheduled'
    assert_line 'default/fast-path unschedulable'
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --what-if --drain node-a --explain-file "$T/x" "$EXAMPLES/cluster/"*.yaml
    assert_failure 2
    [[ $stderr == *"--what-if: --explain-file is not possible here"* ]]
    run --separate-stderr "$DRA_BIN/dra-select" --class gpu.example.com --explain-file "$T/sel.txt" "$EXAMPLES/cluster/"{slices,classes}.yaml
    assert_success
    [ -z "$stderr" ]
    grep -q 'net.example.com/node-a/eth1' "$T/sel.txt"
}

# A second slice of node-a's GPU pool in the README example cluster, at the
# same generation, declaring resourceSliceCount 2 where the first says 1.
late_slice() {
    cat <<'YAML'
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-a-gpu.example.com-late}
spec:
  driver: gpu.example.com
  nodeName: node-a
  pool: {name: node-a, generation: 1, resourceSliceCount: 2}
  devices:
  - name: gpu-2
    attributes:
      type: {string: gpu}
      index: {int: 2}
YAML
}

@test "a pool whose slices disagree on resourceSliceCount is judged by its first slice's count, by one rule" {
    # GatherPools (structured/internal/stable/pools_stable.go, v0.37.2) compares the slices
    # with slicesForPool[0]'s resourceSliceCount; a disagreement is no error by itself
    C="$EXAMPLES/cluster"
    late_slice >"$T/late.yaml"
    printf 'apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: one, namespace: default, uid: uid-one}\nspec:\n  devices:\n    requests:\n    - {name: gpu, exactly: {deviceClassName: gpu.example.com}}\n' >"$T/one.yaml"
    why="incomplete: 2 ResourceSlices at generation 1, but resourceSliceCount is 1"
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-a --explain "$C/classes.yaml" "$C/nodes.yaml" "$C/slices.yaml" "$T/late.yaml" "$T/one.yaml"
    assert_failure 1
    [[ $stderr == *"  pool gpu.example.com/node-a: incomplete, 0 devices"$'\n'* ]]
    [[ $stderr == *"dra-alloc: cannot allocate all claims"* ]]
    # capacity: none of its 3 devices free, the column and the line under the table say why
    run --separate-stderr "$DRA_BIN/dra-alloc" capacity --by pool -o json "$C/classes.yaml" "$C/nodes.yaml" "$C/slices.yaml" "$T/late.yaml"
    assert_success
    run jq -c '.classes[] | select(.name == "gpu.example.com") | .pools[] | select(.pool == "node-a") | [.total, .unusable, .free, .unusableReason]' <<<"$output"
    assert_output "[3,3,0,\"$why\"]"
    # dra-select still lists the devices, and says the allocator does not use the pool
    run --separate-stderr "$DRA_BIN/dra-select" --class gpu.example.com "$C/classes.yaml" "$C/slices.yaml" "$T/late.yaml"
    assert_success
    [[ $stderr == *"dra-select: note: pool gpu.example.com/node-a: $why: the allocator does not use it"* ]]
    assert_line 'gpu.example.com/node-a/gpu-2'
    # a newer generation makes the disagreeing one obsolete: the pool is the newer one
    sed 's/generation: 1, resourceSliceCount: 2/generation: 2, resourceSliceCount: 1/; s/-late}/-newer}/' "$T/late.yaml" >"$T/newer.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-a -o jsonl "$C/classes.yaml" "$C/nodes.yaml" "$C/slices.yaml" "$T/late.yaml" "$T/newer.yaml" "$T/one.yaml"
    assert_success
    run jq -r '.status.allocation.devices.results[0].device' <<<"$output"
    assert_output 'gpu-2'
    run --separate-stderr "$DRA_BIN/dra-select" --class gpu.example.com "$C/classes.yaml" "$C/slices.yaml" "$T/late.yaml" "$T/newer.yaml"
    assert_success
    [ -z "$stderr" ]
}

@test "pool-status answers as the v1.37.2 controller: slices that disagree are no validationError by themselves" {
    # pkg/controller/resourcepoolstatusrequest/controller.go calculatePoolStatus compares the
    # slices observed at the newest generation with the first slice's resourceSliceCount only
    C="$EXAMPLES/cluster"
    late_slice >"$T/late.yaml"
    for order in "$C/slices.yaml $T/late.yaml" "$T/late.yaml $C/slices.yaml"; do
        run --separate-stderr "$DRA_BIN/dra-slice" pool-status --driver gpu.example.com -o json $order
        assert_success
        run jq -c '.status.pools[] | select(.poolName == "node-a") | [.resourceSliceCount, .totalDevices, .validationError]' <<<"$output"
        assert_output '[2,3,null]'
    done
}

@test "the dra-example-driver's consumable capacity demo on the README cluster: each pod's verdict and lint name the capacity" {
    # tests/data/explain/net-consumable-capacity.yaml: kubernetes-sigs/dra-example-driver
    # demo/examples/net-consumable-capacity (asks for ingressBandwidth and egressBandwidth)
    C="$EXAMPLES/cluster"
    M="$DATA/explain/net-consumable-capacity.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --now 2026-01-01T00:00:00Z --explain "$C/"*.yaml "$M"
    assert_failure 1
    [[ $stderr == *"request nic: net.example.com/node-a/eth1: capacity ingressBandwidth requested; the device publishes bandwidth"* ]]
    for pod in pod0 pod1; do
        run grep -A20 "^pod net-consumable-capacity/$pod:" <<<"$stderr"
        assert_line --regexp "^  in short: claim net-consumable-capacity/$pod-nic-[a-z0-9]+, request nic finds no device on 2 nodes; nearest: net.example.com/node-a/eth1 on node-a, capacity ingressBandwidth requested; the device publishes bandwidth; fix: ask for a capacity the device publishes$"
    done
    run --separate-stderr "$DRA_BIN/dra-select" lint "$C/slices.yaml" "$C/classes.yaml" "$M"
    assert_failure 1
    assert_line --partial "ResourceClaimTemplate/net-consumable-capacity/nic-10g-in-5g-out: spec.spec.devices.requests[0].exactly.capacity.requests[ingressBandwidth]: capacity ingressBandwidth is published by none of the 2 devices the class selects (they publish: bandwidth)"
    [ "${#lines[@]}" -eq 4 ]
    # NICs that publish the demo's names: both pods share node-a's NIC, as the demo expects
    sed 's/^      bandwidth:$/      ingressBandwidth: {value: 100G}\n      egressBandwidth:/' "$C/slices.yaml" >"$T/slices.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --now 2026-01-01T00:00:00Z -o jsonl "$C/classes.yaml" "$C/nodes.yaml" "$T/slices.yaml" "$M"
    assert_success
    run jq -r 'select(.kind == "ResourceClaim") | .status.allocation.devices.results[0] | .pool + "/" + .device + " " + .consumedCapacity.ingressBandwidth' <<<"$output"
    assert_output $'node-a/eth1 10G\nnode-a/eth1 5G'
    run --separate-stderr "$DRA_BIN/dra-select" lint "$C/classes.yaml" "$T/slices.yaml" "$M"
    assert_success
}

@test "a claim with nothing allocated says whether its devices were given back or it was never reached" {
    want three 3 >"$T/three.yaml"
    printf 'apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: one, namespace: default, uid: uid-one}\nspec:\n  devices:\n    requests:\n    - {name: gpu, exactly: {deviceClassName: gpu}}\n' >"$T/one.yaml"
    # one takes a GPU, then three cannot have all three: one gives it back
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --explain "$T/world.yaml" "$T/one.yaml" "$T/three.yaml"
    assert_failure 1
    [[ $stderr == *"claim default/one: nothing allocated: its devices were given back when a claim after it could not be served"* ]]
    # a claim for four first, which no node of three GPUs serves: one is never reached
    want four 4 >"$T/four.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --explain "$T/world.yaml" "$T/four.yaml" "$T/one.yaml"
    assert_failure 1
    [[ $stderr == *"claim default/one: nothing allocated: not reached: a claim before it could not be served"* ]]
}

@test "--explain-file is written even when there is nothing to explain, never left stale" {
    echo stale >"$T/explain.txt"
    run --separate-stderr "$DRA_BIN/dra-alloc" allocate --node node-a --explain-file "$T/explain.txt" -o json "$BATS_TEST_DIRNAME/../../examples/classic/cluster.yaml"
    assert_success
    assert_equal "$(cat "$T/explain.txt")" ""
}
