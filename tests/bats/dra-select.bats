#!/usr/bin/env bats
# dra-select: matching, explain, output formats, eval, check, lint.
load helpers
bats_require_minimum_version 1.5.0

S() { "$DRA_BIN/dra-select" "$@"; }

@test "select: every device of the newest pool generations, driver/pool/device lines" {
    run S "$DATA/select/slices.yaml"
    assert_success
    assert_output --partial 'gpu.example.com/node-a/gpu-0
gpu.example.com/node-a/gpu-1
gpu.example.com/node-b/gpu-0
net.example.com/node-a/eth0'
    refute_output --partial 'gpu-old'
}

@test "select: an incomplete pool is listed with a note on stderr" {
    run --separate-stderr S "$DATA/select/slices.yaml"
    assert_success
    [[ $stderr == *"pool gpu.example.com/node-b is incomplete (1 of 2 slices at generation 1)"* ]]
}

@test "select: --class applies the class selectors" {
    run --separate-stderr S --class big-gpu "$DATA"/select/{slices,classes}.yaml
    assert_success
    assert_output 'gpu.example.com/node-a/gpu-1'
}

@test "select: -e expressions are ANDed; nothing matching exits 1" {
    run --separate-stderr S --class gpu -e 'device.attributes["gpu.example.com"].model == "A100"' \
        -e 'device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.1.0"))' "$DATA"/select/{slices,classes}.yaml
    assert_success
    assert_output 'gpu.example.com/node-a/gpu-0'
    run --separate-stderr S -e 'device.driver == "nope"' "$DATA/select/slices.yaml"
    assert_failure 1
    assert_output ''
}

@test "select: --claim uses the request's class and selectors" {
    run --separate-stderr S --claim default/a100 "$DATA"/select/{slices,classes,claims}.yaml
    assert_success
    assert_output 'gpu.example.com/node-a/gpu-0
gpu.example.com/node-b/gpu-0'
}

@test "select: --claim on a template with a firstAvailable subrequest" {
    run S --claim default/flexible --request gpu/any "$DATA"/select/{slices,classes,claims}.yaml
    assert_success
    assert_line 'gpu.example.com/node-b/gpu-0'
    run S --claim default/flexible --request gpu "$DATA"/select/{slices,classes,claims}.yaml
    assert_failure 2
    assert_output --partial 'request gpu has subrequests: name one as gpu/SUB'
    run S --claim default/flexible --request gpu/nope "$DATA"/select/{slices,classes,claims}.yaml
    assert_failure 2
    assert_output --partial 'has no subrequest "nope"'
}

@test "select: a CEL runtime error is reported as upstream words it, exit 2" {
    run --separate-stderr S --claim default/flexible --request gpu/fast "$DATA"/select/{slices,classes,claims}.yaml
    assert_failure 2
    assert_output 'gpu.example.com/node-a/gpu-1'
    [[ $stderr == *'claim default/flexible: selector #0 on device gpu.example.com/node-a/gpu-0: CEL runtime error: no such key: fast. consider using CEL optional chaining (.? followed by orValue()) or guarding the check with has() for optional fields'* ]]
    [[ $stderr == *'CEL runtime errors on 2 devices'* ]]
}

@test "select: --explain names the failing selector and why" {
    run --separate-stderr S --explain --claim default/a100 -e 'device.attributes["gpu.example.com"].index == 0' \
        "$DATA"/select/{slices,classes,claims}.yaml
    assert_success
    [[ $stderr == *'gpu.example.com/node-a/gpu-1: request gpu selector #0: false'* ]]
    [[ $stderr == *'net.example.com/node-a/eth0: class gpu selector #0: false'* ]]
    run --separate-stderr S --explain -e 'true' -e 'device.attributes["gpu.example.com"].model == "H100"' "$DATA/select/slices.yaml"
    [[ $stderr == *'net.example.com/node-a/eth0: -e #1: CEL runtime error: no such key: model. consider using CEL optional chaining'* ]]
    [[ $stderr == *'gpu.example.com/node-a/gpu-0: -e #1: false'* ]]
}

@test "select: --explain=json gives one object per rejected device" {
    run --separate-stderr S --explain=json --class big-gpu "$DATA"/select/{slices,classes}.yaml
    assert_success
    echo "$stderr" | grep -v '^dra-select: note' | head -n1 | jq -e '.device == "gpu.example.com/node-a/gpu-0" and .selector == "class big-gpu selector #1" and .result == false'
}

@test "select: -o json, jsonl and yaml write {driver, pool, node, device}" {
    run --separate-stderr S -o jsonl -e 'device.driver == "net.example.com"' "$DATA/select/slices.yaml"
    assert_success
    echo "$output" | jq -e '.driver == "net.example.com" and .pool == "node-a" and .node == "node-a" and .device.name == "eth0"'
    run --separate-stderr S -o json "$DATA/select/slices.yaml"
    echo "$output" | jq -e '.kind == "List" and (.items | length) == 4'
    run S -o yaml -e 'device.driver == "net.example.com"' "$DATA/select/slices.yaml"
    assert_line 'driver: net.example.com'
}

@test "select: unknown class and unknown claim are input errors" {
    run S --class nope "$DATA"/select/{slices,classes}.yaml
    assert_failure 2
    assert_output --partial 'device class "nope" not found'
    run S --claim default/nope "$DATA"/select/{slices,classes,claims}.yaml
    assert_failure 2
    assert_output --partial 'resource claim "default/nope" not found'
    run S --claim nope "$DATA"/select/{slices,classes,claims}.yaml
    assert_failure 2
    run S --request x "$DATA/select/slices.yaml"
    assert_failure 2
    assert_output --partial '--request needs --claim'
}

@test "select: a class selector that does not compile is upstream's compile error" {
    run S --class broken "$DATA"/select/{slices,lint-bad}.yaml
    assert_failure 2
    assert_output --partial 'class broken: selector #0: CEL compile error: compilation failed: ERROR: <input>:1:17: Syntax error'
    assert_output --partial ' | ................^'
}

@test "eval: values print in CEL literal syntax" {
    run S eval '[1u, 2u]'
    assert_output '[1u, 2u]'
    run S eval '{"k": 1.5}'
    assert_output '{"k": 1.5}'
    run S eval 'b"\x00a"'
    assert_output 'b"\x00a"'
    run S eval 'null'
    assert_output 'null'
    run S eval 'type(1)'
    assert_output 'int'
    run S eval 'quantity("1Gi").add(quantity("1Gi"))'
    assert_success
}

@test "eval: --var and --device" {
    run S eval --var x=40 --var 'ys=[1, 2]' 'x + ys.size()'
    assert_success
    assert_output '42'
    run S eval --device gpu.example.com/node-a/gpu-1 'device.attributes["gpu.example.com"].model + "/" + string(device.attributes["example.com"].fast)' "$DATA/select/slices.yaml"
    assert_success
    assert_output '"H100/true"'
    run S eval --device gpu.example.com/node-a/gpu-9 'true' "$DATA/select/slices.yaml"
    assert_failure 2
    assert_output --partial 'no device gpu.example.com/node-a/gpu-9'
}

@test "eval: a runtime error prints the error and exits 2" {
    run S eval '1 / 0'
    assert_failure 2
    assert_output 'dra-select: division by zero'
    run S eval --device net.example.com/node-a/eth0 'device.attributes["net.example.com"].model' "$DATA/select/slices.yaml"
    assert_failure 2
    assert_output --partial 'no such key: model. consider using CEL optional chaining'
    run S eval --var 'x=1/0' 'x'
    assert_failure 2
}

@test "check: result type and estimated cost" {
    run S check 'device.driver == "x"'
    assert_success
    assert_output 'type bool, estimated cost 3..3'
    run S check 'device.driver == "a"' 'device.capacity["d"].memory.isGreaterThan(quantity("1Gi"))'
    assert_success
    assert_line --index 0 '#0: type bool, estimated cost 3..3'
    assert_line --index 1 --regexp '^#1: type bool, estimated cost [0-9]+\.\.[0-9]+$'
}

@test "lint: clean input exits 0 with no output" {
    run S lint "$EXAMPLES"/cluster/{slices,classes}.yaml
    assert_success
    assert_output ''
}

@test "lint: finds no such key, empty matches, version strings, costs, missing classes" {
    run --separate-stderr S lint "$DATA/select/slices.yaml" "$DATA/select/lint-bad.yaml"
    assert_failure 1
    assert_output --partial 'DeviceClass/by-model: spec.selectors[0].cel.expression: CEL runtime error on 1 of 4 devices (e.g. net.example.com/node-a/eth0): no such key: model'
    assert_output --partial 'DeviceClass/nothing: spec.selectors[0].cel.expression: matches none of the 4 devices that reach it'
    assert_output --partial 'DeviceClass/broken: spec.selectors[0].cel.expression: does not compile: compilation failed'
    assert_output --partial 'compares the version attribute gpu.example.com/driverVersion with the string "1.2.0"'
    assert_output --partial 'requests[1].exactly.selectors[0].cel.expression: too complex, exceeds cost limit (estimated cost'
    assert_output --partial 'requests[2].exactly.selectors[0].cel.expression: estimated cost'
    assert_output --partial 'near the limit of 1000000'
    assert_output --partial 'requests[3].exactly.deviceClassName: device class no-such-class does not exist'
}

@test "lint: request selectors are judged only on devices their class accepts" {
    run S lint "$DATA"/select/{slices,classes,claims}.yaml
    assert_failure 1
    assert_output --partial 'ResourceClaimTemplate/default/flexible: spec.spec.devices.requests[0].firstAvailable[0].selectors[0].cel.expression: CEL runtime error on 2 of 3 devices'
    refute_output --partial 'ResourceClaim/default/a100'
}

@test "help, version and completion scripts" {
    run S --help
    assert_success
    assert_output --partial 'eval'
    run S eval --help
    assert_output --partial '--var'
    run S --completion bash
    assert_success
    diff <(S --completion bash) "$BATS_TEST_DIRNAME/../../completions/dra-select.bash"
    diff <(S --completion zsh) "$BATS_TEST_DIRNAME/../../completions/_dra-select"
    diff <(S --completion fish) "$BATS_TEST_DIRNAME/../../completions/dra-select.fish"
}

@test "includes(): list-type and scalar attributes (DRAListTypeAttributes docs' examples)" {
    # list-type attributes exist only with DRAListTypeAttributes (the API
    # server drops them without it)
    local f="$DATA/select/list-attributes.yaml" g=(--feature-gates DRAListTypeAttributes=true)
    run --separate-stderr "$DRA_BIN/dra-select" "${g[@]}" -e "device.attributes['dra.example.com'].model.includes('model-a')" "$f"
    assert_success
    assert_output "dra.example.com/n1/cpu-0"
    run --separate-stderr "$DRA_BIN/dra-select" "${g[@]}" -e "device.attributes['dra.example.com'].model.includes('model-b')" "$f"
    assert_failure 1
    run --separate-stderr "$DRA_BIN/dra-select" "${g[@]}" -e "device.attributes['dra.example.com'].supportedModels.includes('model-b')" "$f"
    assert_success
    run --separate-stderr "$DRA_BIN/dra-select" "${g[@]}" -e "device.attributes['dra.example.com'].supportedModels.includes('model-c')" "$f"
    assert_failure 1
    run --separate-stderr "$DRA_BIN/dra-select" "${g[@]}" -e "device.attributes['resource.kubernetes.io'].pcieRoot.includes('pci0000:01')" "$f"
    assert_success
    # a class using it (the scheduler compiles stored expressions: always declared)
    run --separate-stderr "$DRA_BIN/dra-select" "${g[@]}" --class model-a "$f"
    assert_success
    assert_output "dra.example.com/n1/cpu-0"
    # check validates a new selector: includes() behind the gate there
    run --separate-stderr "$DRA_BIN/dra-select" check "device.attributes['dra.example.com'].supportedModels.includes('model-b')"
    assert_failure 2
    run --separate-stderr "$DRA_BIN/dra-select" check --feature-gates DRAListTypeAttributes=true "device.attributes['dra.example.com'].supportedModels.includes('model-b')"
    assert_success
    assert_output "type bool, estimated cost 4..68"
}

@test "includes() in a new selector needs DRAListTypeAttributes (NewExpressions)" {
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$DATA/select/list-attributes.yaml"
    assert_failure 2
    [[ $stderr == *"DeviceClass/model-a: spec.selectors[0].cel.expression: Invalid value: "*"compilation failed: ERROR: <input>:1:62: undeclared reference to 'includes' (in container '')"* ]]
    run --separate-stderr "$DRA_BIN/dra-slice" validate --feature-gates DRAListTypeAttributes=true "$DATA/select/list-attributes.yaml"
    assert_success
    run --separate-stderr "$DRA_BIN/dra-slice" validate --feature-gates NoSuchGate=true "$DATA/select/list-attributes.yaml"
    assert_failure 2
    [[ $stderr == *"unrecognized feature gate: NoSuchGate"* ]]
}

@test "comprehension macros over a scalar: cel-go's 'expected iterable type' wording" {
    local f="$DATA/select/list-attributes.yaml" x
    for x in "count.exists(x, true)=types.Int" "flag.all(x, true)=types.Bool" "model.exists_one(x, true)=types.String" \
        "ver.exists(x, true)=cel.Semver" "model.map(x, x).size() > 0=types.String" "count.filter(x, true).size() > 0=types.Int"; do
        run --separate-stderr "$DRA_BIN/dra-select" --feature-gates DRAListTypeAttributes=true -e "device.attributes['dra.example.com'].${x%=*}" "$f"
        assert_failure 2
        [[ $stderr == *"CEL runtime error: got '${x#*=}', expected iterable type"* ]]
    done
    run --separate-stderr "$DRA_BIN/dra-select" eval "dyn(1).exists(x, true)"
    [[ $stderr == *"got 'types.Int', expected iterable type"* ]]
    run --separate-stderr "$DRA_BIN/dra-select" eval "dyn(1.5).all(x, true)"
    [[ $stderr == *"got 'types.Double', expected iterable type"* ]]
    run --separate-stderr "$DRA_BIN/dra-select" eval "dyn(null).all(x, true)"
    [[ $stderr == *"got 'types.Null', expected iterable type"* ]]
}

@test "repl: --validate and -R mean what they mean in the other tools, for :load too" {
    T=$BATS_TEST_TMPDIR
    mkdir -p "$T/fleet/more"
    "$DRA_BIN/dra-slice" profile gpu --devices 2 >"$T/fleet/more/gpus.yaml"
    printf 'apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: c\nspec:\n  selectorz: []\n' >"$T/class.yaml"
    # strict by default: the session does not start, nothing on stdout
    run --separate-stderr bash -c "echo ':devices' | '$DRA_BIN/dra-select' repl '$T/class.yaml'"
    assert_failure 2
    [[ $stderr == *"class.yaml:6: DeviceClass/c: unknown field \"spec.selectorz\""* ]]
    assert_output ""
    # warn: a warning, and the session runs; :load warns the same way
    run --separate-stderr bash -c "printf '%s\n' ':devices' ':load $T/class.yaml' | '$DRA_BIN/dra-select' repl --validate=warn -R '$T/class.yaml' '$T/fleet'"
    assert_success
    [[ $stderr == *"dra-select: warning: $T/class.yaml:6: DeviceClass/c: unknown field \"spec.selectorz\""* ]]
    assert_line "(2 devices)"
    assert_line "warning: $T/class.yaml:6: DeviceClass/c: unknown field \"spec.selectorz\""
    # ignore: silent
    run --separate-stderr bash -c "echo ':devices' | '$DRA_BIN/dra-select' repl --validate=ignore -R '$T/class.yaml' '$T/fleet'"
    assert_success
    assert_equal "$stderr" ""
    # without -R the subdirectory is not read
    run --separate-stderr bash -c "echo ':devices' | '$DRA_BIN/dra-select' repl '$T/fleet'"
    assert_success
    assert_line "(0 devices)"
    # a strict :load reports the error and keeps the session
    run --separate-stderr bash -c "printf '%s\n' ':load $T/class.yaml' '1 + 1' | '$DRA_BIN/dra-select' repl"
    assert_success
    assert_line "error: $T/class.yaml:6: DeviceClass/c: unknown field \"spec.selectorz\""
    assert_line "2"
    run --separate-stderr "$DRA_BIN/dra-select" repl --validate=maybe
    assert_failure 2
    [[ $stderr == *"--validate"* ]]
}
