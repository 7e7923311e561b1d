#!/usr/bin/env bash
# The node suite: dra-prepare (the kubelet side) against two DRA drivers on
# the same claims, the published example driver (sigs.k8s.io/dra-example-driver,
# upstream's kubeletplugin library; `make upstream-driver`) and the project's
# C dra-example-driver.  Every scenario runs once per driver; it passes when
# both runs pass their checks and leave the same transcript (what dra-prepare
# printed and exited with, what the checkpoints and CDI directory hold).
#
#   DRA_BIN=build/bin UPSTREAM_BIN=build/upstream/bin tests/upstream/node/run.sh [SCENARIO...]
#
# NODE_KEEP=DIR keeps each run's transcript and stderr as DIR/SCENARIO.{go,c}[.err].
#
# The Go driver reads ResourceClaims and publishes ResourceSlices through the
# test API server (tests/apiserver/apiserver.py); the C driver reads the same
# claims from the snapshot file (--claims).  Prints one line per scenario,
# the transcripts' differences for failures, then "N passed, N failed".
# Exit 0 when all pass, 1 otherwise, 2 when something is missing.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
DRA_BIN=${DRA_BIN:-$ROOT/build/bin}
UPSTREAM_BIN=${UPSTREAM_BIN:-$ROOT/build/upstream/bin}
GO_DRIVER=$UPSTREAM_BIN/dra-example-kubeletplugin
for f in "$DRA_BIN/dra-prepare" "$DRA_BIN/dra-example-driver" "$GO_DRIVER"; do
    [[ -x $f ]] || { echo "run.sh: $f is missing (make upstream-driver build/bin/dra-prepare build/bin/dra-example-driver)" >&2; exit 2; }
done
# shellcheck source=../../apiserver/helpers.bash
source "$ROOT/tests/apiserver/helpers.bash"
BATS_TEST_DIRNAME=$ROOT/tests/bats source "$ROOT/tests/bats/rpc-helpers.bash"
source "$HERE/scenarios.bash"

T=$(mktemp -d /tmp/dra-node.XXXXXX) # short: unix socket paths are limited
DRV_PID=
cleanup() {
    stop_driver
    apiserver_stop
    rm -rf "$T"
}
trap cleanup EXIT

snapshot >"$T/snap.yaml"
{ printf 'apiVersion: v1\nkind: Node\nmetadata: {name: node-1}\n'; cat "$T/snap.yaml"; } >"$T/load.yaml"
apiserver_start "$T/api" --load "$T/load.yaml" || exit 3

passed=0 failed=0
want=("$@")
[[ ${#want[@]} -gt 0 ]] || want=("${SCENARIOS[@]}")
for s in "${want[@]}"; do
    ok=1
    for k in go c; do
        D=$T/$k
        rm -rf "$D"
        mkdir -p "$D/reg" "$D/plugins" "$D/cdi"
        KIND=$k
        if ! ( "sc_$s" ) >"$D/transcript" 2>"$D/stderr" || [[ -e $D/failed ]]; then
            ok=0
            echo "  $s: the $k driver's run failed its checks:"
            sed 's/^/    /' "$D/stderr" | tail -n 20
        fi
        stop_driver
        [[ -n ${NODE_KEEP:-} ]] && mkdir -p "$NODE_KEEP" && cp "$D/transcript" "$NODE_KEEP/$s.$k" && cp "$D/stderr" "$NODE_KEEP/$s.$k.err"
    done
    if ! diff -u --label "go driver" --label "C driver" "$T/go/transcript" "$T/c/transcript" >"$T/diff"; then
        ok=0
        echo "  $s: the drivers disagree:"
        sed 's/^/    /' "$T/diff" | head -n 40
    fi
    if ((ok)); then
        passed=$((passed + 1))
        echo "ok   $s"
    else
        failed=$((failed + 1))
        echo "FAIL $s"
    fi
done
echo "$passed passed, $failed failed"
((failed == 0))
