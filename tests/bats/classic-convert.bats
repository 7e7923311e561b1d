#!/usr/bin/env bats
# Classic-era Pods and workloads (spec.resourceClaims[].source, Kubernetes
# 1.27-1.30) rewritten to today's flat form by dra-claim convert; classic
# ResourceClaimTemplates found by dra-claim generate.  Fixture shapes: the
# release-1.30 docs' "pod-with-cats" example
# (concepts/scheduling-eviction/dynamic-resource-allocation.md) and
# test/e2e/dra of release-1.30.
bats_require_minimum_version 1.5.0
load helpers

setup() {
    C="$DATA/classic"
    T="$BATS_TEST_TMPDIR"
}

@test "convert: era Pods and workload templates get the flat resourceClaims, each change named" {
    run --separate-stderr "$DRA_BIN/dra-claim" convert -o jsonl "$C/pods.yaml"
    assert_success
    printf '%s\n' "$output" >"$T/out.json"
    run jq -c 'select(.kind == "Pod" and .metadata.name == "pod-with-cats") | .spec.resourceClaims' "$T/out.json"
    assert_output '[{"name":"cat-0","resourceClaimTemplateName":"large-black-cat-claim-template"},{"name":"cat-1","resourceClaimName":"shared-cat"}]'
    run jq -c 'select(.kind == "Deployment") | .spec.template.spec.resourceClaims' "$T/out.json"
    assert_output '[{"name":"cat","resourceClaimTemplateName":"large-black-cat-claim-template"}]'
    # today's form passes unchanged
    run jq -c 'select(.metadata.name == "modern") | .spec.resourceClaims' "$T/out.json"
    assert_output '[{"name":"cat","resourceClaimName":"shared-cat"}]'
    run jq -r '.kind' "$T/out.json"
    assert_output $'DeviceClass\nResourceClaimTemplate\nPod\nDeployment\nPod'
    run --separate-stderr "$DRA_BIN/dra-claim" convert "$C/pods.yaml"
    [[ $stderr == *'pods.yaml:43 (document 3): Pod/cats/pod-with-cats: spec.resourceClaims[0].source.resourceClaimTemplateName: moved to spec.resourceClaims[0].resourceClaimTemplateName'* ]]
    [[ $stderr == *'pods.yaml:46 (document 3): Pod/cats/pod-with-cats: spec.resourceClaims[1].source.resourceClaimName: moved to spec.resourceClaims[1].resourceClaimName'* ]]
    [[ $stderr == *'Deployment/cats/cat-feeder: spec.template.spec.resourceClaims[0].source.resourceClaimTemplateName: moved to spec.template.spec.resourceClaims[0].resourceClaimTemplateName'* ]]
    [[ $stderr != *modern* ]]
}

@test "convert: CronJob and PodTemplate templates too; the converted output reads back" {
    cat >"$T/w.yaml" <<'EOF2'
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, namespace: d}
spec:
  schedule: "0 1 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: c, image: busybox, resources: {claims: [{name: gpu}]}}]
          resourceClaims:
          - name: gpu
            source: {resourceClaimTemplateName: gpu-template}
---
apiVersion: v1
kind: PodTemplate
metadata: {name: pt, namespace: d}
template:
  spec:
    containers: [{name: c, image: busybox}]
    resourceClaims:
    - name: gpu
      source: {resourceClaimName: shared}
EOF2
    run --separate-stderr "$DRA_BIN/dra-claim" convert -o jsonl "$T/w.yaml"
    assert_success
    printf '%s\n' "$output" >"$T/out.json"
    run jq -c 'select(.kind == "CronJob") | .spec.jobTemplate.spec.template.spec.resourceClaims' "$T/out.json"
    assert_output '[{"name":"gpu","resourceClaimTemplateName":"gpu-template"}]'
    run jq -c 'select(.kind == "PodTemplate") | .template.spec.resourceClaims' "$T/out.json"
    assert_output '[{"name":"gpu","resourceClaimName":"shared"}]'
    run --separate-stderr "$DRA_BIN/dra-claim" convert "$T/w.yaml"
    [[ $stderr == *'CronJob/d/nightly: spec.jobTemplate.spec.template.spec.resourceClaims[0].source.resourceClaimTemplateName: moved to'* ]]
    [[ $stderr == *'PodTemplate/d/pt: template.spec.resourceClaims[0].source.resourceClaimName: moved to template.spec.resourceClaims[0].resourceClaimName'* ]]
    "$DRA_BIN/dra-claim" convert "$C/pods.yaml" >"$T/conv.yaml"
    run --separate-stderr "$DRA_BIN/dra-claim" convert "$T/conv.yaml"
    assert_success
    assert_equal "$stderr" ""
}

@test "generate: a classic ResourceClaimTemplate of the input is converted and used, and said so" {
    run --separate-stderr "$DRA_BIN/dra-claim" generate -o jsonl "$C/pods.yaml"
    assert_success
    printf '%s\n' "$output" >"$T/out.json"
    run jq -c 'select(.kind == "ResourceClaim") | [.metadata.generateName, .apiVersion, .spec.devices.requests]' "$T/out.json"
    assert_output - <<'EOF2'
["pod-with-cats-cat-0-","resource.k8s.io/v1",[{"name":"device","exactly":{"deviceClassName":"resource.example.com","allocationMode":"ExactCount","count":1}}]]
["cat-feeder-dgcmfflhlj-ck9xw-cat-","resource.k8s.io/v1",[{"name":"device","exactly":{"deviceClassName":"resource.example.com","allocationMode":"ExactCount","count":1}}]]
EOF2
    # said once for the template, however many pods use it
    [[ $stderr == *'warning: '*'pods.yaml:11 (document 2): ResourceClaimTemplate/cats/large-black-cat-claim-template: resource.k8s.io/v1alpha2 template used, for want of a resource.k8s.io/v1 one: claims are made from it as dra-claim convert converts it' ]]
    # what the conversion loses is said too
    printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: gpu-test, uid: u1}\nspec:\n  containers: [{name: c, image: x}]\n  resourceClaims:\n  - name: g\n    source: {resourceClaimTemplateName: one-gpu}\n' >"$T/pod.yaml"
    run --separate-stderr "$DRA_BIN/dra-claim" generate "$C/cluster.yaml" "$T/pod.yaml"
    assert_success
    [[ $stderr == *'cluster.yaml:24 (document 2): ResourceClaimTemplate/gpu-test/one-gpu: spec.spec.parametersRef: not carried over: '* ]]
    assert_output --partial 'deviceClassName: gpu.example.com'
    # a template in neither version is still not found
    sed -i 's/one-gpu}/none}/' "$T/pod.yaml"
    run --separate-stderr "$DRA_BIN/dra-claim" generate "$C/cluster.yaml" "$T/pod.yaml"
    assert_failure 2
    [[ $stderr == *'resourceclaimtemplate.resource.k8s.io "none" not found'* ]]
}

@test "validate: every v1alpha2 object is still checked, with one warning that no supported release serves it" {
    # k8s.io/api v0.37.2 registers resource.k8s.io v1, v1beta1, v1beta2 and
    # v1alpha3 only (resource/*/register.go); kubectl's words for a version
    # the server does not serve: no matches for kind "K" in version "V"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$C/pods.yaml"
    assert_success
    assert_output ""
    assert_equal "$(grep -c . <<<"$stderr")" 2
    [[ $stderr == *'dra-slice: warning: '*'pods.yaml:5: ResourceClass/resource.example.com: apiVersion: no matches for kind "ResourceClass" in version "resource.k8s.io/v1alpha2": Kubernetes 1.36 to 1.38 serve resource.k8s.io v1, v1beta1, v1beta2 and v1alpha3 only; checked with that version'"'"'s rules'* ]]
    [[ $stderr == *'pods.yaml:11 (document 2): ResourceClaimTemplate/cats/large-black-cat-claim-template: apiVersion: no matches for kind "ResourceClaimTemplate" in version "resource.k8s.io/v1alpha2"'* ]]
    # an invalid one: its errors and the warning, exit 2
    printf 'apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\nmetadata: {name: c, namespace: d}\nspec: {resourceClassName: x, allocationMode: Sometimes}\n' >"$T/bad.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$T/bad.yaml"
    assert_failure 2
    [[ $stderr == *'spec.allocationMode: Unsupported value: "Sometimes"'* ]]
    [[ $stderr == *'warning: '*'ResourceClaim/d/c: apiVersion: no matches for kind "ResourceClaim" in version "resource.k8s.io/v1alpha2"'* ]]
    # served versions: no warning
    "$DRA_BIN/dra-claim" convert "$C/pods.yaml" >"$T/v1.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$T/v1.yaml"
    assert_success
    assert_equal "$stderr" ""
}
