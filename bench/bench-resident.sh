#!/usr/bin/env bash
# Resident memory: tools that hold the whole input, on 100,000
# devices (dra-slice profile gpu --nodes 10000 --devices 10; 27 MB of JSON
# Lines), peak RSS and time beside a peer holding the same objects: Python's
# json.loads of every line kept in a list (/usr/bin/python3).  The profile's
# devices repeat model, driver version and capacities (shared when read) and
# have a unique uuid each; the "unique" fleet gives every device a unique
# model and memory too, as a fleet that shares little would.  Target: every
# tool under 128 MiB.  Then the fleet in use (claims and pods on half of it),
# every tool that reads them.  Then 1,000,000 devices (under 1 GiB), in
# use too; DRA_BENCH_MILLION=0 leaves them out.
#
# Where the memory goes: heaptrack (or valgrind --tool=massif) on a build
# without the recycling allocator of jansson's blocks (src/common/io/jalloc.c):
#   CPPFLAGS=-DDRA_JALLOC_OFF make BUILD=build/prof build/prof/bin/dra-claim
# With it, a block freed by one tree and handed to the next is charged to the
# site that first allocated it: the deep copy that dra_cluster_read_input
# validates and drops then seems to hold the claims and pods read after it.
set -uo pipefail
cd "$(dirname "$0")/.." || exit
B=${DRA_BIN:-$PWD/build/bin}
PY=/usr/bin/python3
NOW=2026-01-01T00:00:00Z
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# shellcheck disable=SC1091 # bench/table.sh, read from the top of the tree
. bench/table.sh
measure() { bench_measure "$@"; }
# prow CASE NOW PEER MiB [ROW]: now against Python holding the same objects
# (peak memory, the ratio ours over Python's), target MiB
prow() {
    bench_row "$1" "$(bench_cell "$2")" "python holding it $(bench_cell "$3")" "$(bench_ratio "$2" "$3" 3)" \
        "<= $4 MiB" "$(bench_mem_verdict "$2" "$4")" "${5:-}"
}
row() { prow "$1" "$2" "$3" 128; } # row CASE NOW PEER: target 128 MiB
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

bench_header
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
    perl -pe 's/"name":"gpu-/"name":"g$.-/g' "$T/$f.jsonl" >"$T/pool.jsonl"
    row "dra-slice build (one pool of them all)" \
        "$(measure "$B/dra-slice" build --driver gpu.example.com --all-nodes --pool all -o jsonl "$T/pool.jsonl")" "$peer"
done

# A fleet in use: half of every node's devices allocated, one claim and one
# bound pod each (bench/gen-held.py; 50,000 claims and 50,000 pods on
# 100,000 devices), every tool that reads claims and pods against Python
# holding the same objects.  held NODES TARGET-MIB [CAPACITY POOL CLAIM
# [ONLY]] (10 devices a node): the issue's cases (bench/table.sh) that its
# capacity, pool-status and dra-claim status rows measure, "" for none;
# ONLY=issue: those rows alone (the million, where the others take GiBs
# and minutes).
held() {
    local n=$1 target=$2 d="$T/held" capacity=${3:-} pool=${4:-} claim=${5:-} only=${6:-}
    rm -rf "$d"
    mkdir -p "$d"
    "$B/dra-slice" profile gpu --nodes "$n" --devices 10 -o jsonl >"$d/fleet.jsonl"
    "$PY" bench/gen-held.py "$d/fleet.jsonl" "$d" >/dev/null || { echo "gen-held.py failed"; return 1; }
    local in=("$d/base.jsonl" "$d/fleet.jsonl" "$d/held.jsonl")
    echo "== $((n * 10)) devices, half allocated: $((n * 5)) claims and $((n * 5)) pods" \
        "($(($(cat "${in[@]}" | wc -c) / 1000000)) MB)"
    local peer peerd peerp
    peer=$(measure "$PY" "$T/hold.py" "${in[@]}")
    # hrow CASE NOW PEER [ROW]
    hrow() { prow "$1" "$2" "$3" "$target" "${4:-}"; }
    hrow "dra-alloc capacity" "$(measure "$B/dra-alloc" capacity "${in[@]}")" "$peer" "$capacity"
    hrow "dra-slice pool-status --driver (1,000 pools)" \
        "$(measure "$B/dra-slice" pool-status --driver gpu.example.com --limit 1000 "${in[@]}")" "$peer" "$pool"
    if [[ $only == issue ]]; then
        rm -rf "$d"
        return
    fi
    hrow "dra-claim status" "$(measure "$B/dra-claim" status "${in[@]}")" "$peer" "$claim"
    peerd=$(measure "$PY" "$T/hold.py" "$d/held.jsonl" "$d/moved.jsonl")
    peerp=$(measure "$PY" "$T/hold.py" "${in[@]}" "$d/pending.jsonl")
    # a ResourceQuota where the claims are: its use counted from every claim
    printf '{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"q","namespace":"bench"},"spec":{"hard":{"count/resourceclaims.resource.k8s.io":"%d","gpu.deviceclass.resource.k8s.io/devices":"%d"}}}\n' \
        $((n * 10)) $((n * 10)) >"$d/quota.jsonl"
    hrow "dra-alloc capacity, a ResourceQuota" "$(measure "$B/dra-alloc" capacity "${in[@]}" "$d/quota.jsonl")" "$peer"
    # the same quota's admission of every claim, one at a time from their
    # texts (the pods as text too, but those an extended-resource claim names)
    hrow "dra-alloc quota" "$(measure "$B/dra-alloc" quota "${in[@]}" "$d/quota.jsonl")" "$peer"
    hrow "dra-alloc diff (1% of claims moved)" "$(measure "$B/dra-alloc" diff "$d/held.jsonl" "$d/moved.jsonl")" "$peerd"
    hrow "dra-alloc schedule --what-if --drain node-0" \
        "$(measure "$B/dra-alloc" schedule --what-if --drain node-0 --now "$NOW" "${in[@]}")" "$peer"
    # doctor once looked up every allocated device's pool by indexing all
    # slices again (minutes at 20,000 devices; 7 s of CPU at 100,000 now):
    # bounded all the same, its cell says exit 124 when it runs over
    hrow "dra-claim doctor (at most 300 s)" \
        "$(measure timeout 300 "$B/dra-claim" doctor --now "$NOW" "${in[@]}")" "$peer"
    hrow "dra-evict (no taints)" "$(measure "$B/dra-evict" --now "$NOW" "${in[@]}")" "$peer"
    hrow "dra-alloc schedule, 1,000 pending pods" \
        "$(measure "$B/dra-alloc" schedule --now "$NOW" -o jsonl "${in[@]}" "$d/pending.jsonl")" "$peerp"
    rm -rf "$d"
}
# at 100,000 devices the capacity row is the issue's capacity at 10k nodes
# and its capacity at 100k half allocated
held 10000 128 capacity-10k,pool-status-1m pool-status-1m claim-status

# The million: 1,000,000 devices (100,000 nodes of 10; 276 MB of JSON Lines)
# and dra-alloc schedule of 100,000 pods, every row under 1 GiB, against
# Python holding the same objects; then the fleet half allocated, the
# issue's capacity and pool-status rows alone.  Takes minutes, and GiBs
# (Python holding the fleet in use: about 8 GiB): DRA_BENCH_MILLION=0
# leaves it out.
if [ "${DRA_BENCH_MILLION:-1}" = 1 ]; then
    "$B/dra-slice" profile gpu --nodes 100000 --devices 10 -o jsonl >"$T/m.jsonl"
    {
        head -1 "$T/base.jsonl"
        awk 'BEGIN { for (i = 0; i < 100000; i++) printf "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"node-%d\"}}\n", i }'
        tail -1 "$T/base.jsonl"
    } >"$T/mbase.jsonl"
    awk 'BEGIN { for (i = 0; i < 100000; i++) printf "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p%d\",\"namespace\":\"bench\",\"uid\":\"uid-p%d\"},\"spec\":{\"containers\":[{\"name\":\"c\"}],\"resourceClaims\":[{\"name\":\"gpu\",\"resourceClaimTemplateName\":\"one\"}]}}\n", i, i }' >"$T/mpods.jsonl"
    echo "== 1,000,000 devices ($(($(stat -c %s "$T/m.jsonl") / 1000000)) MB; target under 1024 MiB)"
    mpeer=$(measure "$PY" "$T/hold.py" "$T/mbase.jsonl" "$T/m.jsonl")
    mrow() { prow "$1" "$2" "$mpeer" 1024 "${3:-}"; } # CASE NOW [ROW]
    mrow "dra-slice validate (streams)" "$(measure "$B/dra-slice" validate "$T/m.jsonl")"
    mrow "dra-slice lint" "$(measure "$B/dra-slice" lint "$T/m.jsonl")"
    mrow "dra-claim status" "$(measure "$B/dra-claim" status "$T/mbase.jsonl" "$T/m.jsonl")"
    mrow "dra-select --class gpu" "$(measure "$B/dra-select" --class gpu "$T/mbase.jsonl" "$T/m.jsonl")"
    mrow "dra-evict (no taints)" "$(measure "$B/dra-evict" --now "$NOW" "$T/mbase.jsonl" "$T/m.jsonl")"
    mpeer=$(measure "$PY" "$T/hold.py" "$T/mbase.jsonl" "$T/m.jsonl" "$T/mpods.jsonl")
    mrow "dra-alloc schedule, 100,000 pods" \
        "$(measure "$B/dra-alloc" schedule --now "$NOW" -o jsonl "$T/mbase.jsonl" "$T/m.jsonl" "$T/mpods.jsonl")" schedule-1m
    rm -f "$T/m.jsonl" "$T/mbase.jsonl" "$T/mpods.jsonl"
    held 100000 1024 pool-status-1m pool-status-1m "" issue
fi
