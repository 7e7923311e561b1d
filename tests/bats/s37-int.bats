#!/usr/bin/env bats
# Objects read after a workload are held in a set of their own; the
# loader's warnings about them are written after that set is gone.
load helpers

@test "a held claim after a workload is named by its own file in warnings" {
    run "$DRA_BIN/dra-alloc" schedule --now 2026-01-01T00:00:00Z -o jsonl tests/data/load/held-after-workload.yaml
    assert_success
    assert_output --partial "warning: tests/data/load/held-after-workload.yaml:12 (document 2): ResourceClaim/default/admin: spec.devices.requests[0].adminAccess: admin access could not be checked"
    refute_output --partial "AddressSanitizer"
}

@test "past 32 derivedAttributes the names' format is not checked, their constraints are" {
    python3 - "$BATS_TEST_TMPDIR/many.json" <<'PY'
import json, sys
das = [{"name": "n%d" % i, "expression": "device.driver"} for i in range(33)]
obj = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
       "metadata": {"name": "many", "namespace": "default"},
       "spec": {"devices": {"requests": [{"name": "r", "exactly": {
           "deviceClassName": "gpu.example.com", "derivedAttributes": das}}]}}}
json.dump(obj, open(sys.argv[1], "w"))
PY
    run "$DRA_BIN/dra-slice" validate -v --feature-gates DRADerivedAttributes=true "$BATS_TEST_TMPDIR/many.json"
    assert_failure 2
    assert_output --partial "spec.devices.requests[0].exactly.derivedAttributes: Too many: 33: must have at most 32 items"
    assert_output --partial 'derivedAttributes[32].name: Invalid value: "n32": must be referenced by at least one matchAttribute'
    refute_output --partial "a fully qualified name"
}
