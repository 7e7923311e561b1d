#!/usr/bin/env bash
# Resident memory (issue 11): tools that hold the whole input, on 100,000
# devices (dra-slice profile gpu --nodes 10000 --devices 10; 27 MB of JSON
# Lines), peak RSS and time beside a peer holding the same objects: Python's
# json.loads of every line kept in a list (/usr/bin/python3).  The profile's
# devices repeat model, driver version and capacities (shared when read) and
# have a unique uuid each; the "unique" fleet gives every device a unique
# model and memory too, as a fleet that shares little would.  Target: every
# tool under 128 MiB.  DRA_BENCH_MILLION=1 adds 1,000,000 devices (under 1 GiB).
set -uo pipefail
cd "$(dirname "$0")/.." || exit
B=${DRA_BIN:-$PWD/build/bin}
PY=/usr/bin/python3
NOW=2026-01-01T00:00:00Z
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

measure() { # "elapsed cpu peakKiB" of one command, output discarded
    /usr/bin/time -f '%e %U %S %M' -o "$T/time" "$@" >/dev/null 2>"$T/err"
    awk '{ printf "%.2f %.2f %d", $1, $2 + $3, $4 }' "$T/time"
}
row() {
    awk -v l="$1" -v a="$2" -v p="$3" 'BEGIN {
        split(a, x, " "); split(p, y, " ")
        printf "%-40s %7.2f s %8.1f MiB%s | python holding it %.1f MiB, ratio %.2f\n", l, x[1], x[3] / 1024,
            (x[3] / 1024 < 128 ? "" : " (over 128)"), y[3] / 1024, (y[3] > 0 ? x[3] / y[3] : 0) }'
}
cat >"$T/hold.py" <<'PY'
import json, sys
objs = []
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        objs.extend(json.loads(l) for l in f if l.strip())
print(len(objs))
PY

"$B/dra-slice" profile gpu --nodes 10000 --devices 10 -o jsonl >"$T/fleet.jsonl"
"$PY" -c '
import itertools, re, sys
c = itertools.count()
for line in open(sys.argv[1]):
    line = re.sub("\"LATEST-GPU-MODEL\"", lambda m: "\"model-%d\"" % next(c), line)
    sys.stdout.write(re.sub("\"80Gi\"", lambda m: "\"%dMi\"" % (80000 + next(c)), line))
' "$T/fleet.jsonl" >"$T/unique.jsonl"
{
    printf '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"gpu"},"spec":{"selectors":[{"cel":{"expression":"device.driver == \\"gpu.example.com\\""}}]}}\n'
    awk 'BEGIN { for (i = 0; i < 10000; i++) printf "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"node-%d\"}}\n", i }'
    printf '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate","metadata":{"name":"one","namespace":"bench"},"spec":{"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"gpu"}}]}}}}\n'
} >"$T/base.jsonl"
printf '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"bench"},"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"gpu"}}]}}}\n' >"$T/claim.jsonl"
# The same pods through a class that reads an attribute: every device a pod
# looks at is parsed for CEL (at most 256 held at once).
sed -e 's/device.driver == \\"gpu.example.com\\"/device.attributes[\\"gpu.example.com\\"].model == \\"LATEST-GPU-MODEL\\"/' \
    "$T/base.jsonl" >"$T/base-attr.jsonl"
awk 'BEGIN { for (i = 0; i < 5000; i++) printf "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p%d\",\"namespace\":\"bench\",\"uid\":\"uid-p%d\"},\"spec\":{\"containers\":[{\"name\":\"c\"}],\"resourceClaims\":[{\"name\":\"gpu\",\"resourceClaimTemplateName\":\"one\"}]}}\n", i, i }' >"$T/pods.jsonl"

for f in fleet unique; do
    echo "== 100,000 devices, $f fleet ($(($(stat -c %s "$T/$f.jsonl") / 1000000)) MB)"
    peer=$(measure "$PY" "$T/hold.py" "$T/base.jsonl" "$T/$f.jsonl")
    peerp=$(measure "$PY" "$T/hold.py" "$T/base.jsonl" "$T/$f.jsonl" "$T/pods.jsonl")
    row "dra-slice validate (streams)" "$(measure "$B/dra-slice" validate "$T/$f.jsonl")" "$peer"
    row "dra-slice lint" "$(measure "$B/dra-slice" lint "$T/$f.jsonl")" "$peer"
    row "dra-claim status" "$(measure "$B/dra-claim" status "$T/base.jsonl" "$T/$f.jsonl")" "$peer"
    row "dra-select --class gpu" "$(measure "$B/dra-select" --class gpu "$T/base.jsonl" "$T/$f.jsonl")" "$peer"
    row "dra-evict (no taints)" "$(measure "$B/dra-evict" --now "$NOW" "$T/base.jsonl" "$T/$f.jsonl")" "$peer"
    row "dra-alloc schedule, 5,000 pods" \
        "$(measure "$B/dra-alloc" schedule --now "$NOW" -o jsonl "$T/base.jsonl" "$T/$f.jsonl" "$T/pods.jsonl")" "$peerp"
    # the fleet alone, and (profile fleet: its model matches) through a class
    # that reads an attribute
    row "dra-alloc --node (one claim)" "$(measure "$B/dra-alloc" --node node-77 -o jsonl "$T/base.jsonl" "$T/claim.jsonl" "$T/$f.jsonl")" "$peer"
    row "dra-alloc schedule, no pods" "$(measure "$B/dra-alloc" schedule --now "$NOW" -o jsonl "$T/base.jsonl" "$T/$f.jsonl")" "$peer"
    [ "$f" = fleet ] && row "dra-alloc schedule, 5,000 pods, attribute" \
        "$(measure "$B/dra-alloc" schedule --now "$NOW" -o jsonl "$T/base-attr.jsonl" "$T/$f.jsonl" "$T/pods.jsonl")" "$peerp"
    # every device of the fleet re-sliced into one pool (names made unique per slice)
    awk '{ gsub(/"name":"gpu-/, "\"name\":\"g" NR "-"); print }' "$T/$f.jsonl" >"$T/pool.jsonl"
    row "dra-slice build (one pool of them all)" \
        "$(measure "$B/dra-slice" build --driver gpu.example.com --all-nodes --pool all -o jsonl "$T/pool.jsonl")" "$peer"
done

# The million: 1,000,000 devices (100,000 nodes of 10; 276 MB of JSON Lines)
# and dra-alloc schedule of 10,000 pods, targets under 1 GiB and 30 s.  Takes
# minutes and GiBs: only with DRA_BENCH_MILLION=1.
if [ "${DRA_BENCH_MILLION:-0}" = 1 ]; then
    "$B/dra-slice" profile gpu --nodes 100000 --devices 10 -o jsonl >"$T/m.jsonl"
    {
        head -1 "$T/base.jsonl"
        awk 'BEGIN { for (i = 0; i < 100000; i++) printf "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"node-%d\"}}\n", i }'
        tail -1 "$T/base.jsonl"
    } >"$T/mbase.jsonl"
    awk 'BEGIN { for (i = 0; i < 10000; i++) printf "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p%d\",\"namespace\":\"bench\",\"uid\":\"uid-p%d\"},\"spec\":{\"containers\":[{\"name\":\"c\"}],\"resourceClaims\":[{\"name\":\"gpu\",\"resourceClaimTemplateName\":\"one\"}]}}\n", i, i }' >"$T/mpods.jsonl"
    echo "== 1,000,000 devices ($(($(stat -c %s "$T/m.jsonl") / 1000000)) MB; target under 1024 MiB)"
    mrow() {
        awk -v l="$1" -v a="$2" 'BEGIN { split(a, x, " ");
            printf "%-40s %7.2f s %8.1f MiB%s\n", l, x[1], x[3] / 1024, (x[3] / 1024 < 1024 ? "" : " (over 1 GiB)") }'
    }
    mrow "dra-slice validate (streams)" "$(measure "$B/dra-slice" validate "$T/m.jsonl")"
    mrow "dra-slice lint" "$(measure "$B/dra-slice" lint "$T/m.jsonl")"
    mrow "dra-claim status" "$(measure "$B/dra-claim" status "$T/mbase.jsonl" "$T/m.jsonl")"
    mrow "dra-select --class gpu" "$(measure "$B/dra-select" --class gpu "$T/mbase.jsonl" "$T/m.jsonl")"
    mrow "dra-evict (no taints)" "$(measure "$B/dra-evict" --now "$NOW" "$T/mbase.jsonl" "$T/m.jsonl")"
    mrow "dra-alloc schedule, 10,000 pods (< 30 s)" \
        "$(measure "$B/dra-alloc" schedule --now "$NOW" -o jsonl "$T/mbase.jsonl" "$T/m.jsonl" "$T/mpods.jsonl")"
fi
