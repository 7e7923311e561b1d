#!/usr/bin/env bats
# dra-select repl, driven through a real terminal with tmux.
load helpers

setup() {
    command -v tmux >/dev/null || skip "tmux is not installed"
    export DRA_SELECT_HISTORY="$BATS_TEST_TMPDIR/history"
    SESSION="dra-select-$$-$BATS_TEST_NUMBER"
    SOCKET="$BATS_TEST_TMPDIR/tmux.sock"
}

teardown() {
    [[ -n ${SOCKET:-} ]] && tmux -S "$SOCKET" kill-server 2>/dev/null || true
}

t() { tmux -S "$SOCKET" "$@"; }

start_repl() {
    t new-session -d -s "$SESSION" -x 200 -y 50 \
        "env DRA_SELECT_HISTORY='$DRA_SELECT_HISTORY' LC_ALL=C.UTF-8 '$DRA_BIN/dra-select' repl $*; sleep 30"
    wait_for 'cel>'
}

screen() { t capture-pane -p -t "$SESSION"; }

# Wait until the pane shows the text (fixed string; with -x a whole line),
# up to 20 seconds (sanitized builds on a busy machine are slow).
wait_for() {
    local how=-qF
    if [[ $1 == -x ]]; then how=-qxF; shift; fi
    for _ in $(seq 200); do
        screen | grep "$how" -- "$1" && return 0
        sleep 0.1
    done
    echo "timed out waiting for: $1" >&2
    screen >&2
    return 1
}

@test "repl: evaluates an expression and lists a selector's matches" {
    start_repl "$DATA/select/slices.yaml"
    t send-keys -t "$SESSION" '1 + 2 * 3' Enter
    wait_for -x '7'
    t send-keys -t "$SESSION" 'device.driver == "net.example.com"' Enter
    wait_for '(1 of 4 devices match)'
    run screen
    assert_output --partial 'net.example.com/node-a/eth0'
}

@test "repl: tab completes device fields, attribute domains and names" {
    start_repl "$DATA/select/slices.yaml"
    t send-keys -t "$SESSION" 'device.attr' Tab
    wait_for 'cel> device.attributes'
    t send-keys -t "$SESSION" '["gp' Tab
    wait_for 'cel> device.attributes["gpu.example.com"]'
    t send-keys -t "$SESSION" '.mo' Tab
    wait_for 'cel> device.attributes["gpu.example.com"].model'
    t send-keys -t "$SESSION" ' == "H100"' Enter
    wait_for '(1 of 4 devices match)'
    run screen
    assert_output --partial 'gpu.example.com/node-a/gpu-1'
}

@test "repl: tab completes function names and commands" {
    start_repl "$DATA/select/slices.yaml" "$DATA/select/classes.yaml"
    t send-keys -t "$SESSION" 'quan' Tab
    wait_for 'cel> quantity('
    t send-keys -t "$SESSION" '"1Gi").isGreaterThan(quantity("1Mi"))' Enter
    wait_for -x 'true'
    t send-keys -t "$SESSION" ':cl' Tab
    wait_for 'cel> :class'
    t send-keys -t "$SESSION" 'big' Tab Enter
    wait_for 'class big-gpu)'
    run screen
    assert_output --partial 'gpu.example.com/node-a/gpu-1'
}

@test "repl: :load, :devices, :explain, errors with caret, history file" {
    start_repl
    t send-keys -t "$SESSION" ":load $DATA/select/slices.yaml" Enter
    wait_for 'devices in all'
    t send-keys -t "$SESSION" ':devices' Enter
    wait_for '(4 devices)'
    t send-keys -t "$SESSION" ':explain device.attributes["gpu.example.com"].index == 1' Enter
    wait_for 'gpu.example.com/node-a/gpu-0: expression: false'
    wait_for 'no such key: index'
    t send-keys -t "$SESSION" 'device.x ==' Enter
    wait_for '| ...........^'
    t send-keys -t "$SESSION" ':quit' Enter
    for _ in $(seq 50); do grep -qF ':devices' "$DRA_SELECT_HISTORY" 2>/dev/null && break; sleep 0.1; done
    run cat "$DRA_SELECT_HISTORY"
    assert_output --partial ':devices'
    assert_output --partial 'device.x =='
}

@test "repl: history from an earlier session is recalled with Up" {
    printf '40 + 2\n' >"$DRA_SELECT_HISTORY"
    start_repl
    t send-keys -t "$SESSION" Up Enter
    wait_for -x '42'
}

@test "repl: without a terminal it reads commands from stdin" {
    run bash -c "printf '%s\n' '\"a\" + \"b\"' ':bogus' ':quit' | '$DRA_BIN/dra-select' repl"
    assert_success
    assert_line '"ab"'
    assert_line 'error: unknown command :bogus (:help lists them)'
}
