#!/usr/bin/env bash
# The controllers suite: dra-claim (generate, then release) and dra-evict
# against kube-controller-manager's own resourceclaim and device-taint-
# eviction controllers (build/upstream/bin/upstream-controllers, which runs
# them over client-go's fake clientset, no API server).
#
#   DRA_BIN=build/bin UPSTREAM_BIN=build/upstream/bin tests/upstream/controllers/run.sh [SCENARIO...]
#
# Each line of tests/upstream/controllers/scenarios is a scenario:
#   NAME claims [GATES] FILE...    the resourceclaim controller
#   NAME evict [GATES] NOW FILE... the eviction controller at time NOW
# (files relative to the top of the tree; GATES, --feature-gates=G=B,...,
# is given to both sides, the peer and every tool run).  Both sides end in the same
# printed state (cmd/upstream-controllers/state.go): the controller's end
# state, and the tools' --patch=json operations replayed by the peer on the
# same fake clientset.  For claims the tool side is `dra-claim generate`,
# replayed, then `dra-claim release` on the objects that left, replayed.
# For evict it is `dra-evict --now NOW --apply-at NOW --rule-status`
# replayed, plus one Eviction line per pod with its time from
# `dra-evict -o jsonl` ("due" up to NOW-11s, the controller's start; pods
# due after NOW+24h are not listed).  Generated claim names are
# normalised to the generateName (cut to 58) plus "*****".
#
# A scenario named in tests/upstream/controllers/KNOWN (NAME: reason) is
# expected to differ: it counts as skipped while it does, as failed once it
# agrees (so that the entry gets removed); CONTROLLERS_KNOWN=FILE reads
# another release's list instead.  CONTROLLERS_SKIP=FILE (same format)
# names scenarios a release cannot answer at all (an input it does not
# serve, an outcome upstream leaves to a race): they are not run and count
# as skipped.  A scenario that sets a gate the release
# (DRA_KUBERNETES_VERSION) locks is skipped when both sides refuse it.
# CONTROLLERS_KEEP=DIR keeps both
# sides as DIR/NAME.{upstream,tools}.  Prints one line per scenario, the
# differences of failures, then "N passed, N failed, N skipped".
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
DRA_BIN=${DRA_BIN:-$ROOT/build/bin}
UPSTREAM_BIN=${UPSTREAM_BIN:-$ROOT/build/upstream/bin}
PEER=$UPSTREAM_BIN/upstream-controllers
for f in "$DRA_BIN/dra-claim" "$DRA_BIN/dra-evict" "$PEER"; do
    [[ -x $f ]] || { echo "run.sh: $f is missing (make upstream-controllers build/bin/dra-claim build/bin/dra-evict)" >&2; exit 2; }
done
command -v jq >/dev/null || { echo "run.sh: jq is missing" >&2; exit 2; }

T=$(mktemp -d /tmp/dra-controllers.XXXXXX)
trap 'rm -rf "$T"' EXIT
KEEP=${CONTROLLERS_KEEP:-}
KNOWN=${CONTROLLERS_KNOWN:-$HERE/KNOWN}
SKIPS=${CONTROLLERS_SKIP:-}
[[ -z $KEEP ]] || mkdir -p "$KEEP"

# tool_claims FILE...: the tools' end state
tool_claims() {
    local rc
    "$DRA_BIN/dra-claim" generate "${gates[@]}" --patch=json "$@" >"$T/ops1" 2>>"$T/err"; rc=$?
    [[ $rc -eq 0 || $rc -eq 2 ]] || { echo "dra-claim generate: exit $rc" >>"$T/err"; return 1; }
    "$PEER" replay --objects "$T/mid.json" "$T/ops1" "$@" >/dev/null 2>>"$T/err" || return 1
    "$DRA_BIN/dra-claim" release "${gates[@]}" --patch=json "$T/mid.json" >"$T/ops2" 2>>"$T/err" ||
        { echo "dra-claim release: exit $?" >>"$T/err"; return 1; }
    "$PEER" replay "$T/ops2" "$T/mid.json" 2>>"$T/err"
}

# tool_evict NOW FILE...
tool_evict() {
    local now=$1; shift
    "$DRA_BIN/dra-evict" "${gates[@]}" --now "$now" --apply-at "$now" --rule-status --patch=json "$@" >"$T/ops1" 2>>"$T/err" ||
        { echo "dra-evict --apply-at: exit $?" >>"$T/err"; return 1; }
    "$PEER" replay "$T/ops1" "$@" 2>>"$T/err" || return 1
    "$DRA_BIN/dra-evict" "${gates[@]}" --now "$now" -o jsonl "$@" 2>>"$T/err" | jq -c --arg now "$now" '
        select(.pod != null)
        | {pod: .pod, at: (.evictAt | fromdateiso8601)}' |
        jq -sc --arg now "$now" '
        ($now | fromdateiso8601) as $n
        | group_by([.pod.namespace, .pod.name])[]
        | {ns: .[0].pod.namespace, name: .[0].pod.name, at: (map(.at) | min)}
        | select(.at <= $n + 86400)
        | {kind: "Eviction", namespace: .ns, pod: .name,
           at: (if .at <= $n - 11 then "due" else (.at | todateiso8601) end)}'
}

passed=0 failed=0 skipped=0
want=("$@")
while read -r name mode rest; do
    [[ -z $name || $name == \#* ]] && continue
    if [[ ${#want[@]} -gt 0 ]]; then
        hit=0; for w in "${want[@]}"; do [[ $w == "$name" ]] && hit=1; done
        [[ $hit -eq 1 ]] || continue
    fi
    if [[ -n $SKIPS ]] && why=$(sed -n "s/^$name: //p" "$SKIPS") && [[ -n $why ]]; then
        echo "SKIP $name (not run in this release: $why)"; skipped=$((skipped + 1))
        continue
    fi
    read -r -a args <<<"$rest"
    gates=()
    if [[ ${args[0]:-} == --feature-gates=* ]]; then gates=("${args[0]}"); args=("${args[@]:1}"); fi
    : >"$T/err"
    ok=1
    case $mode in
    claims)
        files=("${args[@]/#/$ROOT/}")
        "$PEER" claims "${gates[@]}" "${files[@]}" >"$T/up" 2>>"$T/err" || ok=0
        tool_claims "${files[@]}" | sort >"$T/tools" || ok=0 ;;
    evict)
        now=${args[0]}; files=("${args[@]:1}"); files=("${files[@]/#/$ROOT/}")
        "$PEER" evict "${gates[@]}" --now "$now" "${files[@]}" >"$T/up" 2>>"$T/err" || ok=0
        tool_evict "$now" "${files[@]}" | sort >"$T/tools" || ok=0 ;;
    *) echo "run.sh: $name: unknown mode $mode" >&2; exit 2 ;;
    esac
    sort -o "$T/up" "$T/up"
    [[ -z $KEEP ]] || { cp "$T/up" "$KEEP/$name.upstream"; cp "$T/tools" "$KEEP/$name.tools"; }
    cmp -s "$T/up" "$T/tools" || ok=0
    known=$(sed -n "s/^$name: //p" "$KNOWN" 2>/dev/null)
    if [[ $ok -eq 0 && $(grep -c 'feature is locked to' "$T/err") -ge 2 ]]; then
        # both sides refuse a gate setting this release locks
        echo "SKIP $name (a gate it sets is locked in this release)"; skipped=$((skipped + 1))
    elif [[ -n $known ]]; then
        if [[ $ok -eq 1 ]]; then
            echo "FAIL $name (listed in KNOWN but agrees now: remove the entry)"; failed=$((failed + 1))
        else
            echo "SKIP $name (KNOWN: $known)"; skipped=$((skipped + 1))
        fi
    elif [[ $ok -eq 1 ]]; then
        echo "ok   $name"; passed=$((passed + 1))
    else
        echo "FAIL $name"; failed=$((failed + 1))
        sed 's/^/    /' "$T/err" | tail -n 10
        diff -u "$T/up" "$T/tools" | sed 's/^/    /' | head -n 40
    fi
done <"$HERE/scenarios"
echo "$passed passed, $failed failed, $skipped skipped"
[[ $failed -eq 0 ]]
