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
