#!/usr/bin/env bash
# dra-alloc against upstream-alloc (the scheduler's structured allocator,
# k8s.io/dynamic-resource-allocation v0.37.2) on the same inputs, whole
# processes on the same machine in the same run (`make bench-upstream-alloc`).
#
#   upstream-alloc.sh DRA_ALLOC UPSTREAM_ALLOC WORKDIR
#
# Fleets from `dra-slice profile gpu` of 10, 1,000 and 10,000 devices (10 a
# node); four one-device claims with a CEL selector and a matchAttribute
# constraint.  Rows: `dra-alloc --node` and `upstream-alloc --node` for the
# last node; `dra-alloc schedule` (one pod with the four claims, every node
# tried) and `upstream-alloc --node '*'` (every node in turn until one fits).
# Each figure is the best of RUNS (3) runs: wall time (bash EPOCHREALTIME
# around /usr/bin/time) and max RSS (/usr/bin/time %M), and the ratios
# upstream/dra-alloc.
set -uo pipefail
[[ $# -eq 3 ]] || { echo "usage: $0 DRA_ALLOC UPSTREAM_ALLOC WORKDIR" >&2; exit 2; }
C=$1 U=$2 W=$3
RUNS=${RUNS:-3}
SLICE=$(dirname "$C")/dra-slice
mkdir -p "$W"
[[ -x /usr/bin/time ]] || { echo "bench-upstream-alloc: /usr/bin/time is needed" >&2; exit 2; }

# best WALL-SECONDS MAX-RSS-KB over RUNS runs of a command
best() {
    local w='' r='' i
    for ((i = 0; i < RUNS; i++)); do
        local t0=$EPOCHREALTIME
        /usr/bin/time -f '%M' -o "$W/time" "$@" >/dev/null 2>"$W/err"
        local rc=$? t1=$EPOCHREALTIME
        if [[ $rc -ne 0 ]]; then echo "bench-upstream-alloc: exit $rc: $*" >&2; sed 's/^/  /' "$W/err" | head -3 >&2; fi
        local tw tr
        tw=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.4f", b - a}')
        read -r tr <"$W/time"
        if [[ -z $w ]] || awk -v a="$tw" -v b="$w" 'BEGIN{exit !(a<b)}'; then w=$tw; fi
        if [[ -z $r || $tr -lt $r ]]; then r=$tr; fi
    done
    echo "$w $r"
}

row() { # row LABEL CMD-C... -- CMD-U...
    local label=$1; shift
    local c=() u=()
    while [[ $1 != -- ]]; do c+=("$1"); shift; done
    shift; u=("$@")
    read -r cw cr < <(best "${c[@]}")
    read -r uw ur < <(best "${u[@]}")
    awk -v l="$label" -v cw="$cw" -v cr="$cr" -v uw="$uw" -v ur="$ur" 'BEGIN{
        printf "%-36s %8.4f s %7.1f MB | %8.4f s %7.1f MB | x%6.1f x%5.1f\n", l, cw, cr/1024, uw, ur/1024,
            (cw > 0 ? uw/cw : 0), (cr > 0 ? ur/cr : 0) }'
}

printf '%-36s %21s | %21s | %s\n' "" "dra-alloc" "upstream-alloc" "ratio time, RSS"
for n in 10 1000 10000; do
    nodes=$((n / 10))
    last="node-$((nodes - 1))"
    f=$W/fleet-$n.jsonl
    "$SLICE" profile gpu --nodes "$nodes" --devices 10 -o jsonl >"$f" || exit 2
    {
        printf '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"gpu"},"spec":{"selectors":[{"cel":{"expression":"device.driver == \\"gpu.example.com\\""}}]}}\n'
        for i in $(seq 0 $((nodes - 1))); do printf '{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-%d"}}\n' "$i"; done
    } >"$W/base-$n.jsonl"
    for i in 1 2 3 4; do
        printf '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c%d","namespace":"bench","uid":"uid-c%d"},"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"gpu","selectors":[{"cel":{"expression":"device.capacity[\\"gpu.example.com\\"].memory.compareTo(quantity(\\"1Gi\\")) >= 0"}}]}}],"constraints":[{"matchAttribute":"gpu.example.com/model"}]}}}\n' "$i" "$i"
    done >"$W/claims.jsonl"
    printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"bench","uid":"uid-p"},"spec":{"containers":[{"name":"c","image":"x"}],"resourceClaims":[{"name":"a","resourceClaimName":"c1"},{"name":"b","resourceClaimName":"c2"},{"name":"c","resourceClaimName":"c3"},{"name":"d","resourceClaimName":"c4"}]}}\n' >"$W/pod.jsonl"
    row "$n devices: --node $last" "$C" --node "$last" -o json "$W/base-$n.jsonl" "$f" "$W/claims.jsonl" -- \
        "$U" --node "$last" -o json "$W/base-$n.jsonl" "$f" "$W/claims.jsonl"
    row "$n devices: schedule / --node '*'" "$C" schedule --now 2026-01-01T00:00:00Z -o json "$W/base-$n.jsonl" "$f" "$W/claims.jsonl" "$W/pod.jsonl" -- \
        "$U" --node '*' -o json "$W/base-$n.jsonl" "$f" "$W/claims.jsonl"
done
