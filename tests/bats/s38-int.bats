#!/usr/bin/env bats
# Found by the validate suite (tests/upstream/validate against
# k8s.io/kubernetes v1.37.2) on mutations the corpus of this release gave.
bats_require_minimum_version 1.5.0
load helpers

@test "past 32 derivedAttributes an empty name or expression is not Required" {
    python3 - "$BATS_TEST_TMPDIR/many.json" <<'PY'
import json, sys
das = [{"name": "n%d" % i, "expression": "device.driver"} for i in range(33)]
das[1]["expression"] = None
das[2]["name"] = ""
obj = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
       "metadata": {"name": "many", "namespace": "default"},
       "spec": {"devices": {"requests": [{"name": "r", "exactly": {
           "deviceClassName": "gpu.example.com", "derivedAttributes": das}}]}}}
json.dump(obj, open(sys.argv[1], "w"))
PY
    run "$DRA_BIN/dra-slice" validate --feature-gates DRADerivedAttributes=true "$BATS_TEST_TMPDIR/many.json"
    assert_failure 2
    assert_output --partial "derivedAttributes: Too many: 33: must have at most 32 items"
    refute_output --partial "Required value"
}

@test "a PodGroup's schedulingPolicy.basic that is not an object is refused" {
    printf '%s\n' '{"apiVersion":"scheduling.k8s.io/v1beta1","kind":"PodGroup","metadata":{"name":"train","namespace":"default"},"spec":{"schedulingPolicy":{"basic":1}}}' >"$BATS_TEST_TMPDIR/pg.json"
    run "$DRA_BIN/dra-slice" validate --feature-gates GenericWorkload=true "$BATS_TEST_TMPDIR/pg.json"
    assert_failure 2
    assert_output --partial "PodGroup/default/train: spec.schedulingPolicy.basic: Invalid value: 1: must be of type object"
    printf '%s\n' '{"apiVersion":"scheduling.k8s.io/v1beta1","kind":"PodGroup","metadata":{"name":"train","namespace":"default"},"spec":{"schedulingPolicy":{"basic":{}}}}' >"$BATS_TEST_TMPDIR/ok.json"
    run "$DRA_BIN/dra-slice" validate --feature-gates GenericWorkload=true "$BATS_TEST_TMPDIR/ok.json"
    assert_success
}
