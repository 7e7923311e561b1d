#!/usr/bin/env bash
# The pool-status suite: `dra-slice pool-status` against kube-controller-
# manager's own ResourcePoolStatusRequest controller
# (build/upstream/bin/upstream-poolstatus, its calculatePoolStatus over the
# same files).
#
#   DRA_BIN=build/bin UPSTREAM_BIN=build/upstream/bin tests/upstream/poolstatus/run.sh [CASE...]
#
# Each line of tests/upstream/poolstatus/cases is a case:
#   NAME ARG... -- FILE...     both sides get the ARGs (--driver, --pool,
#                              --limit, --feature-gates) and the files
#                              (relative to the top of the tree)
#   NAME gen N SEED ARG...     N generated files (gen.py N SEED), each a case
#                              NAME-K with the ARGs
#   NAME sweep DIR ARG...      every .yaml/.json file F of DIR, once per driver
#                              D of its ResourceSlices: a case NAME-F-D with
#                              --driver D and the ARGs; a file dra-slice
#                              rejects as input (exit 2) is skipped
# A case that sets a gate the release (DRA_KUBERNETES_VERSION) locks is
# skipped when both sides refuse the setting, and so is a case whose input
# dra-slice rejects with a field error under the release (its API server
# would not store the object; e.g. examples/validate under 1.38, where
# DRAFractionalCapacityRange is on and 250m is no multiple of the 100m step
# from 200m).
# Both print every request with its status as JSON, at --now
# 2026-01-01T00:00:00Z; the documents are compared whole after jq -S, the
# spec.limit defaulted to 100 as the API server stores it (a made-up
# request has no default).
# POOLSTATUS_KEEP=DIR keeps both sides (and generated inputs) in DIR.
# Prints one line per case, the differences of failures, then
# "N passed, N failed, N skipped".
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
DRA_BIN=${DRA_BIN:-$ROOT/build/bin}
UPSTREAM_BIN=${UPSTREAM_BIN:-$ROOT/build/upstream/bin}
PEER=$UPSTREAM_BIN/upstream-poolstatus
for f in "$DRA_BIN/dra-slice" "$PEER"; do
    [[ -x $f ]] || { echo "run.sh: $f is missing (make upstream-poolstatus build/bin/dra-slice)" >&2; exit 2; }
done
command -v jq >/dev/null || { echo "run.sh: jq is missing" >&2; exit 2; }
command -v python3 >/dev/null || { echo "run.sh: python3 is missing" >&2; exit 2; }

T=$(mktemp -d /tmp/dra-poolstatus.XXXXXX)
trap 'rm -rf "$T"' EXIT
KEEP=${POOLSTATUS_KEEP:-}
[[ -z $KEEP ]] || mkdir -p "$KEEP"
NOW=2026-01-01T00:00:00Z
pass=0 fail=0 skip=0

# one NAME ARG... -- FILE...
one() {
    local name=$1; shift
    local args=() files=()
    while [[ $# -gt 0 && $1 != -- ]]; do args+=("$1"); shift; done
    shift
    files=("$@")
    local up=$T/$name.upstream tool=$T/$name.tools rc=0 trc
    "$PEER" --now "$NOW" "${args[@]}" "${files[@]}" 2>"$T/err.up" | jq -S '.spec.limit //= 100' >"$up" || rc=1
    "$DRA_BIN/dra-slice" pool-status -o jsonl --now "$NOW" "${args[@]}" "${files[@]}" >"$T/out.tool" 2>"$T/err.tool"
    trc=$?
    if [[ $trc -eq 2 && -n ${SWEEP:-} ]]; then
        echo "skip $name (dra-slice rejects the input)"; skip=$((skip + 1)); return
    fi
    # an object this release's API server refuses (a field error: the
    # peer validates nothing, the validation suite compares these)
    if [[ $trc -eq 2 ]] && grep -qE ': (Invalid|Required|Unsupported|Duplicate) value|: Forbidden: |: Too (long|many)' "$T/err.tool"; then
        echo "skip $name (this release rejects its input: $(grep -m1 -oE '[^ ]+: (Invalid|Required|Unsupported|Duplicate) value|[^ ]+: (Forbidden|Too long|Too many)' "$T/err.tool"))"
        skip=$((skip + 1)); return
    fi
    # a gate the case turns off that this release locks: both refuse it
    if [[ $trc -eq 2 ]] && grep -q 'feature is locked to' "$T/err.up" && grep -q 'feature is locked to' "$T/err.tool"; then
        echo "skip $name (a gate it sets is locked in this release)"; skip=$((skip + 1)); return
    fi
    [[ $trc -eq 0 ]] || rc=1
    jq -S '.spec.limit //= 100' <"$T/out.tool" >"$tool" || rc=1
    if [[ $rc -eq 0 && -s $up ]] && cmp -s "$up" "$tool"; then
        echo "ok   $name"; pass=$((pass + 1))
    else
        echo "FAIL $name"; fail=$((fail + 1))
        cat "$T/err.up" "$T/err.tool" | sed 's/^/    /'
        diff -u "$up" "$tool" | sed 's/^/    /' | head -n 60
    fi
    if [[ -n $KEEP ]]; then cp "$up" "$tool" "$KEEP/"; fi
}

wanted() {
    [[ $# -le 1 ]] && return 0
    local n=$1; shift
    for c in "$@"; do [[ $n == "$c" || $n == "$c"-* ]] && return 0; done
    return 1
}

cd "$ROOT" || exit 2
while read -r name rest; do
    [[ -z $name || $name == \#* ]] && continue
    wanted "$name" "$@" || continue
    read -r -a words <<<"$rest"
    if [[ ${words[0]} == gen ]]; then
        n=${words[1]} seed=${words[2]}
        dir=$T/gen-$name; mkdir -p "$dir"
        python3 "$HERE/gen.py" "$dir" "$n" "$seed" || { echo "FAIL $name (gen.py)"; fail=$((fail + 1)); continue; }
        [[ -z $KEEP ]] || cp -r "$dir" "$KEEP/"
        for f in "$dir"/*.json; do
            k=$(basename "$f" .json)
            one "$name-${k#gen-}" "${words[@]:3}" -- "$f"
        done
    elif [[ ${words[0]} == sweep ]]; then
        for f in "${words[1]}"/*.yaml "${words[1]}"/*.json; do
            [[ -f $f ]] || continue
            k=$(basename "$f"); k=${k%.*}
            for d in $(python3 "$HERE/drivers.py" "$f"); do
                SWEEP=1 one "$name-$k-$d" --driver "$d" "${words[@]:2}" -- "$f"
            done
        done
    else
        one "$name" "${words[@]}"
    fi
done <"$HERE/cases"
echo "$pass passed, $fail failed, $skip skipped"
[[ $fail -eq 0 ]]
