#!/usr/bin/env bats
# Classic DRA (resource.k8s.io/v1alpha2, Kubernetes 1.27-1.30): read
# everywhere, shown by dra-claim status with the scheduling negotiation,
# converted to v1 by dra-claim convert.
bats_require_minimum_version 1.5.0
load helpers

setup() {
    C="$DATA/classic"
    T="$BATS_TEST_TMPDIR"
}

@test "classic objects are read by every tool: no more unknown kinds" {
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$C/cluster.yaml"
    assert_success
    # only the warnings that no supported release serves v1alpha2 (classic-convert.bats)
    assert_equal "$(grep -vc 'warning: .*no matches for kind .* in version "resource.k8s.io/v1alpha2": Kubernetes 1.36 to 1.38' <<<"$stderr")" 0
    "$DRA_BIN/dra-slice" profile gpu --nodes 1 --devices 1 >"$T/fleet.yaml"
    for t in "dra-select" "dra-select lint" "dra-alloc schedule" "dra-claim status" "dra-claim doctor" "dra-evict"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$DRA_BIN/"$t "$C/cluster.yaml" "$T/fleet.yaml"
        [[ $stderr != *"no matches for kind"* && $status -le 1 ]] || { echo "$t: $status $stderr"; false; }
    done
}

@test "classic objects are validated with the v1alpha2 rules, strictly, at the field's line" {
    cat >"$T/bad.yaml" <<'EOF'
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClass
metadata:
  name: gpu.example.com
driverName: GPU_Driver
---
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaim
metadata:
  name: c
  namespace: d
spec:
  resourceClassName: gpu.example.com
  allocationMode: Sometimes
  parametersRef:
    name: p
---
apiVersion: resource.k8s.io/v1alpha2
kind: PodSchedulingContext
metadata:
  name: p
  namespace: d
spec:
  potentialNodes: [node-1, node-1]
  selectdNode: node-1
EOF
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$T/bad.yaml"
    assert_failure 2
    assert_output ""
    [[ $stderr == *'bad.yaml:5: ResourceClass/gpu.example.com: driverName: Invalid value: "GPU_Driver"'* ]]
    [[ $stderr == *'bad.yaml:14 (document 2): ResourceClaim/d/c: spec.allocationMode: Unsupported value: "Sometimes": supported values: "Immediate", "WaitForFirstConsumer"'* ]]
    [[ $stderr == *'bad.yaml:15 (document 2): ResourceClaim/d/c: spec.parametersRef.kind: Required value'* ]]
    [[ $stderr == *'bad.yaml:25 (document 3): PodSchedulingContext/d/p: unknown field "spec.selectdNode"'* ]]
    # an unknown kind of the group is still an error
    printf 'apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaimParameterz\nmetadata: {name: x}\n' >"$T/x.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$T/x.yaml"
    assert_failure 2
    [[ $stderr == *'no matches for kind "ResourceClaimParameterz" in version "resource.k8s.io/v1alpha2"'* ]]
}

@test "era pods: resourceClaims[].source is read as the flat v1 fields" {
    run --separate-stderr "$DRA_BIN/dra-claim" status -o json "$C/cluster.yaml"
    assert_success
    printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: d}\nspec:\n  resourceClaims:\n  - name: gpu\n    source:\n      resourceClaimTemplateName: t\n  - name: x\n    source: {resourceClaimNam: other}\n  containers: [{name: c}]\n' >"$T/pod.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$T/pod.yaml"
    assert_failure 2
    [[ $stderr == *'pod.yaml:10: Pod/d/p: unknown field "spec.resourceClaims[1].source.resourceClaimNam"'* ]]
    sed -i 's/resourceClaimNam:/resourceClaimName:/' "$T/pod.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$T/pod.yaml"
    assert_success
}

@test "dra-claim status: classic claims with their state and PodSchedulingContext negotiation" {
    run --separate-stderr "$DRA_BIN/dra-claim" status "$C/cluster.yaml"
    assert_success
    assert_line --regexp '^NAMESPACE +NAME +STATE +DEVICES +NODE +USERS +NEGOTIATION$'
    assert_line --regexp '^gpu-test +shared-gpu +reserved +gpu.resource.example.com:handle +node-1 +trainer +Immediate$'
    assert_line --regexp '^gpu-test +inference-gpu-7xk2p +pending +class gpu.example.com +- +- +WaitForFirstConsumer; selected node-2; potential 3; unsuitable node-1,node-3$'
    run --separate-stderr "$DRA_BIN/dra-claim" status -o json "$C/cluster.yaml"
    assert_success
    s=$(jq -c '.items[1].classic.scheduling' <<<"$output")
    assert_equal "$s" '{"podSchedulingContext":"inference","selectedNode":"node-2","potentialNodes":["node-1","node-2","node-3"],"unsuitableNodes":["node-1","node-3"]}'
    assert_equal "$(jq -r '.items[0].classic | [.driverName, .allocationMode, .shareable, .deallocationRequested] | map(tostring) | join(" ")' <<<"$output")" "gpu.resource.example.com Immediate true false"
    # deallocation requested: its own state
    sed 's/  reservedFor:/  deallocationRequested: true\n  reservedFor:/' "$C/cluster.yaml" >"$T/dealloc.yaml"
    run --separate-stderr "$DRA_BIN/dra-claim" status "$T/dealloc.yaml"
    assert_line --regexp '^gpu-test +shared-gpu +deallocating .*Immediate; deallocation requested$'
    # v1-only input keeps its six columns
    "$DRA_BIN/dra-slice" profile gpu --nodes 1 --devices 1 >"$T/fleet.yaml"
    run --separate-stderr "$DRA_BIN/dra-claim" status "$T/fleet.yaml"
    refute_output --partial NEGOTIATION
}

@test "dra-claim convert: classic to v1, naming what cannot be carried over" {
    run --separate-stderr "$DRA_BIN/dra-claim" convert -o json "$C/cluster.yaml"
    assert_failure 1
    assert_equal "$(jq -r '[.items[] | .apiVersion + " " + .kind + " " + .metadata.name] | join(",")' <<<"$output")" \
        "resource.k8s.io/v1 DeviceClass gpu.example.com,resource.k8s.io/v1 ResourceClaimTemplate one-gpu,resource.k8s.io/v1 ResourceClaim shared-gpu,resource.k8s.io/v1 ResourceClaim inference-gpu-7xk2p,v1 Pod inference"
    assert_equal "$(jq -r '.items[0].spec.selectors[0].cel.expression' <<<"$output")" 'device.driver == "gpu.resource.example.com"'
    assert_equal "$(jq -c '.items[1].spec.spec.devices.requests' <<<"$output")" '[{"name":"device","exactly":{"deviceClassName":"gpu.example.com","allocationMode":"ExactCount","count":1}}]'
    assert_equal "$(jq -c '.items[3].metadata.ownerReferences[0].name' <<<"$output")" '"inference"'
    [[ $stderr == *'cluster.yaml:6: ResourceClass/gpu.example.com: parametersRef: not carried over: a DeviceClass refers to no parameters object (DeviceClassParameters gpu-defaults); put its content under spec.config[].opaque.parameters for driver gpu.resource.example.com'* ]]
    [[ $stderr == *'cluster.yaml:10: ResourceClass/gpu.example.com: suitableNodes: not carried over: a DeviceClass does not restrict nodes'* ]]
    [[ $stderr == *'cluster.yaml:24 (document 2): ResourceClaimTemplate/gpu-test/one-gpu: spec.spec.parametersRef: not carried over:'*'for driver gpu.resource.example.com'* ]]
    [[ $stderr == *'cluster.yaml:36 (document 3): ResourceClaim/gpu-test/shared-gpu: spec.allocationMode: not carried over: Immediate: structured claims are allocated when their first pod is scheduled'* ]]
    [[ $stderr == *'ResourceClaim/gpu-test/shared-gpu: status: not carried over: the allocation and reservations by gpu.resource.example.com'* ]]
    [[ $stderr == *'PodSchedulingContext/gpu-test/inference: not carried over: a PodSchedulingContext has no v1 counterpart'* ]]
    # what it prints is valid v1, and the era pod's claims still resolve
    jq '.' <<<"$output" >"$T/v1.json"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$T/v1.json"
    assert_success
    # a claim that carries over exactly: exit 0, nothing on stderr
    printf 'apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\nmetadata: {name: c, namespace: d}\nspec: {resourceClassName: gpu.example.com}\n' >"$T/plain.yaml"
    run --separate-stderr "$DRA_BIN/dra-claim" convert "$T/plain.yaml"
    assert_success
    assert_equal "$stderr" ""
    assert_output --partial "deviceClassName: gpu.example.com"
    # bad input: no partial output
    printf 'apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\nmetadata: {name: c, namespace: d}\nspec: {}\n' >"$T/bad.yaml"
    run --separate-stderr "$DRA_BIN/dra-claim" convert "$T/bad.yaml" "$T/plain.yaml"
    assert_failure 2
    assert_output ""
    [[ $stderr == *'bad.yaml:4: ResourceClaim/d/c: spec.resourceClassName: Invalid value: ""'* ]]
}

@test "dra-alloc schedule --classic-driver: the PodSchedulingContext negotiation with a driver command" {
    E="$BATS_TEST_DIRNAME/../../examples/classic"
    run --separate-stderr env FAKE_UNSUITABLE_NODES=node-a "$DRA_BIN/dra-alloc" schedule -o json \
        --classic-driver "gpu.resource.example.com=$E/fake-driver.sh" "$E/cluster.yaml"
    assert_success
    assert_equal "$stderr" ""
    # the Immediate claim first, usable anywhere; the template's claim made for the pod, allocated on
    # the first node the driver found suitable; the negotiation recorded; the pod bound there
    k=$(jq -r '[.items[] | .kind + "/" + .metadata.name] | join(" ")' <<<"$output")
    assert_equal "$k" "ResourceClaim/shared-gpu ResourceClaim/inference-gpu PodSchedulingContext/inference Pod/inference"
    assert_equal "$(jq -r '.items[0].status | [.driverName, .allocation.resourceHandles[0].data] | join(" ")' <<<"$output")" \
        "gpu.resource.example.com gpu-for-shared-gpu"
    assert_equal "$(jq -c '.items[1] | [.metadata.ownerReferences[0].name, .metadata.annotations["resource.kubernetes.io/pod-claim-name"], .status.allocation.availableOnNodes.nodeSelectorTerms[0].matchFields[0].values, .status.reservedFor[0].name]' <<<"$output")" \
        '["inference","gpu",["node-b"],"inference"]'
    assert_equal "$(jq -c '.items[2] | [.spec.selectedNode, .spec.potentialNodes, .status.resourceClaims]' <<<"$output")" \
        '["node-b",["node-a","node-b","node-c"],[{"name":"gpu","unsuitableNodes":["node-a"]}]]'
    assert_equal "$(jq -r '.items[3] | .spec.nodeName + " " + .status.resourceClaimStatuses[0].resourceClaimName' <<<"$output")" "node-b inference-gpu"
    # the result reads back: dra-claim status shows the negotiation
    jq '.' <<<"$output" >"$T/placed.json"
    run --separate-stderr "$DRA_BIN/dra-claim" status "$T/placed.json"
    assert_success
    assert_line --regexp '^default +inference-gpu +reserved +gpu.resource.example.com:handle +node-b +inference +WaitForFirstConsumer; selected node-b; potential 3; unsuitable node-a$'
}

@test "dra-alloc schedule --classic-driver: a selected node the driver refuses, no suitable node, no driver" {
    E="$BATS_TEST_DIRNAME/../../examples/classic"
    # the driver says nothing about potential nodes but refuses node-a once selected: node-b is next
    cat >"$T/picky.sh" <<'EOF'
#!/bin/sh
q=$(cat)
case $q in
*'"selectedNode":"node-a"'*) echo '{"unsuitableNodes":["node-a"]}' ;;
*'"selectedNode":null'*) case $q in *Immediate*) echo '{"allocation":{}}' ;; *) echo '{"unsuitableNodes":[]}' ;; esac ;;
*) sel=$(printf '%s' "$q" | sed 's/.*"selectedNode":"\([^"]*\)".*/\1/')
   echo "{\"allocation\":{\"availableOnNodes\":{\"nodeSelectorTerms\":[{\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":\"In\",\"values\":[\"$sel\"]}]}]}}}" ;;
esac
EOF
    chmod +x "$T/picky.sh"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule -o json --classic-driver "gpu.resource.example.com=$T/picky.sh" "$E/cluster.yaml"
    assert_success
    assert_equal "$(jq -c '[.items[] | select(.kind == "PodSchedulingContext") | .spec.selectedNode, .status.resourceClaims]' <<<"$output")" \
        '["node-b",[{"name":"gpu","unsuitableNodes":["node-a"]}]]'
    # every node unsuitable: the pod stays pending (exit 1), the context says why
    run --separate-stderr env FAKE_UNSUITABLE_NODES="node-a node-b node-c" "$DRA_BIN/dra-alloc" schedule -o json \
        --classic-driver "gpu.resource.example.com=$E/fake-driver.sh" "$E/cluster.yaml"
    assert_failure 1
    [[ $stderr == *"dra-alloc: pod default/inference: 0/3 nodes are available: 3 resourceclaim cannot be allocated for the node (unsuitable)."* ]]
    assert_equal "$(jq -c '[.items[] | select(.kind == "PodSchedulingContext") | .status.resourceClaims[0].unsuitableNodes]' <<<"$output")" '[["node-a","node-b","node-c"]]'
    # no controller for the driver: waiting, said so
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --classic-driver "other.example.com=$E/fake-driver.sh" "$E/cluster.yaml"
    assert_failure 1
    [[ $stderr == *"pod default/inference: waiting for resource driver to allocate resource (resourceclaim inference-gpu: no --classic-driver for gpu.resource.example.com)"* ]]
}

@test "dra-alloc schedule --classic-driver: a failing or lying controller is a runtime error, with no output" {
    E="$BATS_TEST_DIRNAME/../../examples/classic"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --classic-driver "gpu.resource.example.com=exit 4" "$E/cluster.yaml"
    assert_failure 3
    assert_output ""
    [[ $stderr == *"classic driver gpu.resource.example.com: 'exit 4' exited with status 4"* ]]
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --classic-driver "gpu.resource.example.com=echo nonsense" "$E/cluster.yaml"
    assert_failure 3
    assert_output ""
    [[ $stderr == *"classic driver gpu.resource.example.com: 'echo nonsense' printed no JSON answer"* ]]
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --classic-driver "gpu.resource.example.com=echo '{\"allocation\": 3}'" "$E/cluster.yaml"
    assert_failure 3
    [[ $stderr == *'invalid answer: "allocation" is not an object'* ]]
    # an allocation on another node than the selected one
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --classic-driver "gpu.resource.example.com=echo '{\"allocation\":{\"availableOnNodes\":{\"nodeSelectorTerms\":[{\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":\"In\",\"values\":[\"elsewhere\"]}]}]}}}'" "$E/cluster.yaml"
    assert_failure 3
    assert_output ""
    [[ $stderr == *"cannot use it (allocation.availableOnNodes)"* ]]
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --classic-driver "gpu.resource.example.com" "$E/cluster.yaml"
    assert_failure 2
    [[ $stderr == *'--classic-driver: Invalid value: "gpu.resource.example.com": expected DRIVER=COMMAND'* ]]
}

@test "dra-alloc schedule --classic-driver: an allocation no node can use is deallocated (PostFilter)" {
    E="$BATS_TEST_DIRNAME/../../examples/classic"
    cat >"$T/stale.yaml" <<'EOF'
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaim
metadata: {name: stale, namespace: default}
spec: {resourceClassName: gpu.example.com}
status:
  driverName: gpu.resource.example.com
  allocation:
    availableOnNodes:
      nodeSelectorTerms:
      - matchFields: [{key: metadata.name, operator: In, values: [gone-node]}]
---
apiVersion: v1
kind: Pod
metadata: {name: user, namespace: default, uid: 3c1d2a55-7d0b-4e43-a8f2-4b6f5e2d9c10}
spec:
  resourceClaims: [{name: gpu, source: {resourceClaimName: stale}}]
  containers: [{name: c, image: x, resources: {claims: [{name: gpu}]}}]
EOF
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule -o json --classic-driver "gpu.resource.example.com=$E/fake-driver.sh" \
        "$E/cluster.yaml" "$T/stale.yaml"
    assert_failure 1
    [[ $stderr == *"pod default/user: 0/3 nodes are available: 3 resourceclaim not available on the node. (deallocation of resourceclaim stale requested)"* ]]
    assert_equal "$(jq -c '[.items[] | select(.metadata.name == "stale") | .status.deallocationRequested]' <<<"$output")" '[true]'
    # the other pod is placed all the same
    assert_equal "$(jq -r '[.items[] | select(.kind == "Pod" and .spec.nodeName) | .metadata.name] | join(" ")' <<<"$output")" "inference"
}
