#!/usr/bin/env bats
# Option edge cases: empty values (--opt=, -o ''), repeated options, options
# after --, missing values, numbers out of range, and hostile CEL on the
# command line.  Usage errors are exit 2 with one line naming the option and
# nothing on stdout.
bats_require_minimum_version 1.5.0
load helpers

C="$EXAMPLES/cluster"

no_sanitizer_report() {
    if [[ $stderr =~ (Sanitizer|\.c:[0-9]+:[0-9]+:\ runtime\ error) ]]; then
        echo "sanitizer report: $stderr"
        return 1
    fi
}

# usage_error WANT CMD...: exit 2, nothing on stdout, stderr is WANT (a glob).
usage_error() {
    local want=$1
    shift
    run --separate-stderr "$@" </dev/null
    no_sanitizer_report
    [[ $status -eq 2 ]] || { echo "$*: exit $status; stderr: $stderr"; return 1; }
    [[ -z $output ]] || { echo "$*: stdout: $output"; return 1; }
    # shellcheck disable=SC2053
    [[ $stderr == $want ]] || { echo "$*: stderr: $stderr; want: $want"; return 1; }
}

@test "-o '' and --output= are usage errors listing the formats" {
    usage_error "dra-slice: unknown output format '' (yaml, json, jsonl)" "$DRA_BIN/dra-slice" profile gpu -o ''
    usage_error "dra-select: unknown output format '' (yaml, json, jsonl)" "$DRA_BIN/dra-select" --output= --class gpu.example.com "$C/slices.yaml"
    usage_error "dra-alloc: unknown output format '' (yaml, json, jsonl)" "$DRA_BIN/dra-alloc" -o '' --node a
    usage_error "dra-claim: unknown output format '' (*" "$DRA_BIN/dra-claim" status --output= "$C/claims.yaml"
}

@test "dra-evict's format error lists table too" {
    usage_error "dra-evict: unknown output format '' (table, yaml, json, jsonl)" "$DRA_BIN/dra-evict" -o '' "$C/slices.yaml"
}

@test "-o= is the format '='" {
    usage_error "dra-select: unknown output format '=' (yaml, json, jsonl)" "$DRA_BIN/dra-select" -o= --class gpu.example.com "$C/slices.yaml"
}

@test "a repeated -o: the last one wins" {
    run --separate-stderr "$DRA_BIN/dra-select" -o json -o yaml --class gpu.example.com "$C/slices.yaml" "$C/classes.yaml"
    assert_success
    assert_line --index 0 "driver: gpu.example.com"
}

@test "after --, arguments that look like options are files" {
    usage_error "dra-slice: -x: No such file or directory" "$DRA_BIN/dra-slice" validate -- -x
    usage_error "dra-slice: --help: No such file or directory" "$DRA_BIN/dra-slice" validate -- --help
    run --separate-stderr "$DRA_BIN/dra-select" eval -- '-9223372036854775808 / -1'
    assert_failure 2
    [[ $stderr == "dra-select: integer overflow" ]]
}

@test "an option missing its value names the option" {
    usage_error "dra-select: option '--expr' needs a value (see 'dra-select select --help')" "$DRA_BIN/dra-select" -e
    usage_error "dra-alloc: option '--node' needs a value (see 'dra-alloc allocate --help')" "$DRA_BIN/dra-alloc" --node
    usage_error "dra-select: option '--request' needs a value (see 'dra-select select --help')" "$DRA_BIN/dra-select" --claim a/b --request
}

@test "empty values for names and times are refused" {
    usage_error 'dra-select: device class "" not found' "$DRA_BIN/dra-select" --class= "$C/slices.yaml"
    usage_error 'dra-evict: --now: parsing time "" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "2006"' "$DRA_BIN/dra-evict" --now= "$C/slices.yaml"
    usage_error 'dra-evict: --apply-at: parsing time "" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "2006"' "$DRA_BIN/dra-evict" --apply-at= "$C/slices.yaml"
    usage_error "dra-slice: --driver: Required value" "$DRA_BIN/dra-slice" build --driver '' --node n
    usage_error "dra-slice: --source: no source given: known sources are pci, net, nvidia" "$DRA_BIN/dra-slice" discover --source ''
}

@test "dra-alloc --node '' is a usage error" {
    usage_error "dra-alloc: --node*" "$DRA_BIN/dra-alloc" --node '' "$C/slices.yaml"
}

@test "numbers out of range in options are refused with the range" {
    for n in -1 0 9223372036854775807 99999999999999999999999 1x ''; do
        usage_error "dra-slice: --nodes: must be an integer between 1 and 1000000, not '$n'" "$DRA_BIN/dra-slice" profile gpu --nodes "$n"
    done
    usage_error "dra-slice: --partitions: must be an integer between 0 and 1024, not '100000'" "$DRA_BIN/dra-slice" profile gpu --partitions 100000
}

@test "times out of range or malformed are refused" {
    for t in yesterday 9999-99-99T99:99:99Z 292277026596-12-04T15:30:07Z -292277022657-01-27T08:29:52Z '2026-03-01T10:00:00Z trailing'; do
        usage_error "dra-evict: --now: parsing time \"$t\"*" "$DRA_BIN/dra-evict" --now "$t" "$C/slices.yaml"
    done
}

@test "malformed NAMESPACE/NAME values are refused" {
    usage_error "dra-claim: reserve needs --pod NAMESPACE/NAME" "$DRA_BIN/dra-claim" reserve --pod x "$C/pods.yaml"
    usage_error "dra-claim: reserve needs --pod NAMESPACE/NAME" "$DRA_BIN/dra-claim" reserve --pod /x "$C/pods.yaml"
    usage_error 'dra-select: --claim: want NAMESPACE/NAME, not "/x"' "$DRA_BIN/dra-select" --claim /x "$C/slices.yaml"
    usage_error "dra-select: --request needs --claim" "$DRA_BIN/dra-select" --request r "$C/slices.yaml"
}

@test "feature gate values are checked" {
    usage_error "dra-alloc: unrecognized feature gate: Bogus" "$DRA_BIN/dra-alloc" --feature-gates=Bogus=true --node n
    usage_error 'dra-alloc: invalid value of DRAConsumableCapacity=maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax' \
        "$DRA_BIN/dra-alloc" --feature-gates=DRAConsumableCapacity=maybe --node n
}

@test "--explain and --patch values are checked" {
    usage_error "dra-select: --explain: unknown format xml (want text or json)" "$DRA_BIN/dra-select" --explain=xml -e true
    usage_error "dra-alloc: --explain: unknown format xml (want text, json or html)" "$DRA_BIN/dra-alloc" schedule --explain=xml
    usage_error "dra-alloc: --explain: unknown format xml (want text or json)" "$DRA_BIN/dra-alloc" allocate --explain=xml
    usage_error 'dra-evict: --patch: unknown format "bogus" (want json or kubectl)' "$DRA_BIN/dra-evict" --patch=bogus --apply-at 2026-03-01T11:00:00Z "$C/slices.yaml"
}

@test "node selection options are exclusive and well formed" {
    usage_error "dra-slice: exactly one of --node, --all-nodes, --node-selector is required" "$DRA_BIN/dra-slice" build --driver d.com --node n --all-nodes
    usage_error "dra-slice: --node-selector: expected KEY=VALUE, not '='" "$DRA_BIN/dra-slice" build --driver d.com --node-selector =
    usage_error "dra-slice: --node-selector: expected KEY=VALUE, not 'c'" "$DRA_BIN/dra-slice" build --driver d.com --node-selector a=b,,c
}

@test "eval --var: malformed names and values name the variable" {
    usage_error 'dra-select: --var: want NAME=CEL with NAME an identifier, not "=1"' "$DRA_BIN/dra-select" eval --var =1 x
    usage_error "dra-select: --var x: ERROR: <input>:1:2: Syntax error*" "$DRA_BIN/dra-select" eval --var 'x=(' x
}

@test "CEL on the command line: NUL, invalid UTF-8, empty" {
    usage_error "dra-select: compilation failed: ERROR: <input>:1:19: Syntax error: invalid UTF-8 input*" "$DRA_BIN/dra-select" check "$(printf 'device.driver == "\xff\xfe"')"
    usage_error "dra-select: compilation failed: ERROR: <input>:1:0: Syntax error: mismatched input '<EOF>' expecting {*IDENTIFIER}" "$DRA_BIN/dra-select" check ''
    usage_error "dra-select: -e #0: CEL compile error: compilation failed*" "$DRA_BIN/dra-select" -e '' "$C/slices.yaml"
}

@test "CEL on the command line: nesting and size limits" {
    usage_error "dra-select: compilation failed: ERROR: <input>:-1:0: expression recursion limit exceeded: 250" \
        "$DRA_BIN/dra-select" check "$(head -c 5000 /dev/zero | tr '\0' '(')true$(head -c 5000 /dev/zero | tr '\0' ')')"
    usage_error "dra-select: compilation failed: ERROR: <input>:-1:0: expression code point size exceeds limit: size: 100004, limit 100000" \
        "$DRA_BIN/dra-select" check "$(head -c 100000 /dev/zero | tr '\0' '!')true"
}

@test "CEL arithmetic overflow is an error, not a wrong number" {
    for e in '9223372036854775807 + 1' '-9223372036854775808 / -1' '-9223372036854775808 % -1' '-(-9223372036854775808)'; do
        usage_error "dra-select: integer overflow" "$DRA_BIN/dra-select" eval -- "$e"
    done
    # a conversion of a constant runs when the program is made (OptOptimize)
    usage_error "dra-select: program instantiation failed: integer overflow" "$DRA_BIN/dra-select" eval -- 'int(1e300)'
    usage_error "dra-select: unsigned integer overflow" "$DRA_BIN/dra-select" eval '18446744073709551615u + 1u'
    usage_error "dra-select: timestamp overflow" "$DRA_BIN/dra-select" eval "timestamp('9999-12-31T23:59:59Z') + duration('1s')"
}

@test "CEL indexes out of range are errors" {
    usage_error "dra-select: index out of bounds: 9223372036854775807" "$DRA_BIN/dra-select" eval '[1,2][9223372036854775807]'
    usage_error "dra-select: index out of range: 9223372036854775807" "$DRA_BIN/dra-select" eval "'abc'.charAt(9223372036854775807)"
    usage_error "dra-select: lists.range: size 9223372036854775807 exceeds maximum allowed (1000000)" "$DRA_BIN/dra-select" eval 'lists.range(9223372036854775807)'
}

@test "a regex that backtracks exponentially elsewhere answers as RE2 does" {
    # Go's regexp (RE2) matches in linear time: false, not an error
    run --separate-stderr "$DRA_BIN/dra-select" eval "'$(head -c 60 /dev/zero | tr '\0' a)!'.matches('^(a+)+\$')"
    assert_success
    assert_output false
}

@test "huge quantities compare correctly" {
    # decimal SI stays exact far beyond int64
    run --separate-stderr "$DRA_BIN/dra-select" eval "quantity('1e30').isGreaterThan(quantity('999999999999999999999999999'))"
    assert_success
    assert_output "true"
    # binary SI is capped at 2^63-1 on parse, as upstream resource.ParseQuantity does (quantity.go maxAllowed)
    run --separate-stderr "$DRA_BIN/dra-select" eval "quantity('999999999999999999999999Ei').isGreaterThan(quantity('9223372036854775807'))"
    assert_success
    assert_output "false"
}

@test "every tool's --help lists --help and --version once" {
    for t in "dra-evict" "dra-claim doctor" "dra-slice lint" "dra-select eval" "dra-alloc schedule"; do
        # shellcheck disable=SC2086
        run "$DRA_BIN/"$t --help
        assert_success
        [[ $(grep -c -- '--help ' <<<"$output") -eq 1 ]] || { echo "$t: $output"; false; }
        [[ $(grep -c -- '--version ' <<<"$output") -eq 1 ]] || { echo "$t: $output"; false; }
    done
}

@test "unknown commands and a missing command are usage errors" {
    usage_error "dra-slice: a command is required (see 'dra-slice --help')" "$DRA_BIN/dra-slice"
    usage_error "dra-slice: unknown command 'bogus' (see 'dra-slice --help')" "$DRA_BIN/dra-slice" bogus
    usage_error "dra-slice: profile needs exactly one NAME (gpu, net, cpu, mig)" "$DRA_BIN/dra-slice" profile
    usage_error "dra-select: eval: missing the expression (see 'dra-select eval --help')" "$DRA_BIN/dra-select" eval
}
