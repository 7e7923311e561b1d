#!/usr/bin/env bash
# CEL selector evaluation over many devices: `dra-select select -e EXPR`
# against `upstream-cel select EXPR` (upstream's CompileCELExpression once,
# then DeviceMatches on every device, as the scheduler's allocator does),
# whole processes on the same input in the same run (`make bench-upstream-cel`).
#
#   cel-upstream.sh DRA_SELECT UPSTREAM_CEL WORKDIR
#
# Fleets from `dra-slice profile gpu` of 1,000 and 100,000 devices; three
# selectors (a driver test, an attribute and a capacity comparison, a
# version comparison).  Columns: wall time and max RSS of each (best of
# RUNS, default 3), the marginal cost per device (the difference between the
# two fleets over the difference in devices: reading and evaluating one more
# device), upstream's own figure for DeviceMatches alone, and the ratios
# upstream/ours.  Both must select the same devices.
set -uo pipefail
[[ $# -eq 3 ]] || { echo "usage: $0 DRA_SELECT UPSTREAM_CEL WORKDIR" >&2; exit 2; }
C=$1 U=$2 W=$3
RUNS=${RUNS:-3}
SLICE=$(dirname "$C")/dra-slice
SMALL=${CEL_SMALL:-1000} LARGE=${CEL_LARGE:-100000}
mkdir -p "$W"
[[ -x /usr/bin/time ]] || { echo "bench-upstream-cel: /usr/bin/time is needed" >&2; exit 2; }

# best OUT CMD...: "CPU-SECONDS MAX-RSS-KB" of the best of RUNS runs (user +
# system time: the machine may be shared, wall time would measure the
# neighbours); stdout of the last to OUT, stderr to OUT.err
best() {
    local out=$1 w='' r='' i
    shift
    for ((i = 0; i < RUNS; i++)); do
        /usr/bin/time -f '%U %S %M' -o "$W/time" "$@" >"$out" 2>"$out.err"
        local rc=$?
        if [[ $rc -gt 1 ]]; then echo "bench-upstream-cel: exit $rc: $*" >&2; head -3 "$out.err" >&2; fi
        local tw tr
        read -r tw tr < <(tail -n 1 "$W/time" | awk '{ printf "%.4f %d\n", $1 + $2, $3 }')
        if [[ -z $w ]] || awk -v a="$tw" -v b="$w" 'BEGIN{exit !(a<b)}'; then w=$tw; fi
        if [[ -z $r || $tr -lt $r ]]; then r=$tr; fi
    done
    echo "$w $r"
}

for n in "$SMALL" "$LARGE"; do
    [[ -s $W/fleet-$n.json ]] || "$SLICE" profile gpu --nodes $((n / 4)) --devices 4 -o json >"$W/fleet-$n.json"
done

exprs=(
    'device.driver == "gpu.example.com"'
    'device.attributes["gpu.example.com"].model == "LATEST-GPU-MODEL" && device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0'
    'device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("0.9.0")) && device.attributes["gpu.example.com"].index % 2 == 0'
)
printf '%-12s %9s %8s | %9s %8s | %12s %12s %13s | %6s %6s\n' selector "ours cpu s" "MB" "upstr cpu s" "MB" \
    "ours ns/dev" "upstr ns/dev" "upstr ns/eval" CPU RSS
status=0
for i in "${!exprs[@]}"; do
    e=${exprs[$i]}
    declare -A cw cr uw ur
    for n in "$SMALL" "$LARGE"; do
        read -r "cw[$n]" "cr[$n]" < <(best "$W/c.$n" "$C" select -e "$e" "$W/fleet-$n.json")
        read -r "uw[$n]" "ur[$n]" < <(best "$W/u.$n" "$U" select "$e" "$W/fleet-$n.json")
        if ! cmp -s <(sort "$W/c.$n") <(sort "$W/u.$n"); then
            echo "bench-upstream-cel: selector $((i + 1)) on $n devices: the selected devices differ" >&2
            status=1
        fi
    done
    per=$(sed -n 's/.*, \([0-9.]*\) ns per evaluation/\1/p' "$W/u.$LARGE.err")
    awk -v l="#$((i + 1)) $(wc -l <"$W/c.$LARGE")/$LARGE" -v cw="${cw[$LARGE]}" -v cr="${cr[$LARGE]}" \
        -v uw="${uw[$LARGE]}" -v ur="${ur[$LARGE]}" -v cs="${cw[$SMALL]}" -v us="${uw[$SMALL]}" \
        -v d=$((LARGE - SMALL)) -v per="$per" 'BEGIN{
        cm = (cw - cs) * 1e9 / d; um = (uw - us) * 1e9 / d
        printf "%-12s %9.3f %8.1f | %9.3f %8.1f | %12.0f %12.0f %13s | x%5.1f x%5.1f\n", l, cw, cr/1024, uw, ur/1024,
            cm, um, per, (cw > 0 ? uw/cw : 0), (cr > 0 ? ur/cr : 0) }'
done
echo "(rows: selector, matches/devices; CPU time (user + system) for $LARGE devices; ns/dev: marginal CPU cost"
echo " of one more device, read and evaluated; upstr ns/eval: wall time in DeviceMatches alone)"
exit $status
