#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# CEL of Kubernetes 1.38 (cel-go v0.33) where it differs from 1.37's.
load helpers

setup() {
    T="$BATS_TEST_TMPDIR"
    unset DRA_KUBERNETES_VERSION
}

@test "1.38 suggests the nearest symbol for an undeclared reference in a DeviceClass" {
    cat > "$T/class.yaml" <<'Y'
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu
spec:
  selectors:
  - cel:
      expression: device.attributes['dra.example.com'].Exists(x, true)
Y
    run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version 1.38 "$T/class.yaml"
    [ "$status" -eq 2 ]
    [ -z "$output" ]
    [[ "$stderr" == *"class.yaml:8: DeviceClass/gpu: spec.selectors[0].cel.expression: Invalid value:"* ]]
    [[ "$stderr" == *"<input>:1:44: undeclared reference to 'Exists' (did you mean 'exists'?)"* ]]
    [[ "$stderr" == *"<input>:1:45: undeclared reference to 'x'"$'\n'* ]]
    run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version 1.37 "$T/class.yaml"
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"undeclared reference to 'Exists' (in container '')"$'\n'* ]]
    [[ "$stderr" != *"did you mean"* ]]
}

@test "1.38 answers false for a relation with a NaN operand; 1.36 and 1.37 fail it" {
    run --separate-stderr "$DRA_BIN/dra-select" eval --kubernetes-version 1.38 "0.0/0.0 < 1.0 || dyn(double('NaN')) >= 'a'"
    [ "$status" -eq 0 ]
    [ "$output" = "false" ]
    for r in 1.36 1.37; do
        run --separate-stderr "$DRA_BIN/dra-select" eval --kubernetes-version $r "0.0/0.0 < 1.0"
        [ "$status" -eq 2 ]
        [ -z "$output" ]
        [[ "$stderr" == *"NaN values cannot be ordered"* ]]
    done
}
