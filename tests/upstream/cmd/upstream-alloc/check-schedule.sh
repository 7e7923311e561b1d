#!/usr/bin/env bash
# `dra-alloc schedule` against `upstream-alloc schedule` (upstream's
# allocator driven as the scheduler drives it) on inputs of tests/data and
# examples/cluster and on a generated fleet of 50 nodes x 10 GPUs with 600 pods (and the first 150) from four
# templates (one GPU; two of one model; a CEL selector; firstAvailable of
# four GPUs, else one), pods of three priorities: each pod's node and
# devices must be the same.  Prints one line a case that differs (and the
# first differences), then "N passed, N failed"; exit 1 when one failed.
#
#   check-schedule.sh DRA_BIN UPSTREAM_ALLOC WORKDIR
#
# Left out of tests/data: inputs whose pods have no claims (queue/times,
# classes, missing-class; sweep/node-prepare; alloc/sched-ext's extended
# resources), inputs dra-alloc refuses (the peer validates nothing:
# classic/cluster, sweep/features, s34-pics29/inject), inputs with
# Deployments or Jobs or pods named by generateName (dra-alloc makes their
# pods and names; the peer reads named Pods only), pods whose claim is
# missing (claim/doctor, groups/missing-claim: dra-alloc leaves them out of
# its output) and PodGroups (podgroup/, groups/: the peer places pods one
# by one, as a release without the GenericWorkload gate would; the
# cluster-sched suite compares gangs with kube-scheduler).
set -uo pipefail
[[ $# -eq 3 ]] || { echo "usage: $0 DRA_BIN UPSTREAM_ALLOC WORKDIR" >&2; exit 2; }
B=$1 U=$2 W=$3
mkdir -p "$W"
D=$(cd "$(dirname "$0")/../../../data" && pwd)
NOW=2026-01-01T00:00:00Z

# dra-alloc's output as "ns/name node dev,dev" a pending pod (its claims'
# devices, sorted); pods it did not change are not there.
# shellcheck disable=SC2016 # jq's own variables
CONV='(map(select(.kind == "ResourceClaim"))
       | map({key: "\(.metadata.namespace // "default")/\(.metadata.name)", value: .}) | from_entries) as $c
  | .[] | select(.kind == "Pod") | (.metadata.namespace // "default") as $ns
  | [(.spec.resourceClaims // [])[] as $pc
     | ($pc.resourceClaimName // ((.status.resourceClaimStatuses // [])[] | select(.name == $pc.name) | .resourceClaimName))] as $names
  | "\($ns)/\(.metadata.name) \(.spec.nodeName // "-") \([$names[] | $c["\($ns)/\(.)"].status.allocation.devices.results[]?
      | "\(.driver)/\(.pool)/\(.device)"] | sort | join(","))"'

pass=0 failed=0
check() { # check NAME FILE...
    local name=$1
    shift
    "$B/dra-alloc" schedule --now $NOW -o jsonl "$@" 2>"$W/c.err" | jq -rs "$CONV" | sort >"$W/c.txt"
    "$U" schedule --now $NOW -o jsonl "$@" 2>"$W/u.err" |
        jq -r '"\(.pod) \(.node // "-") \(.devices | join(","))"' | sort >"$W/u.txt"
    if [[ -s $W/u.txt ]] && cmp -s "$W/c.txt" "$W/u.txt"; then
        pass=$((pass + 1))
    else
        failed=$((failed + 1))
        echo "FAIL $name ($(wc -l <"$W/c.txt") pods from dra-alloc, $(wc -l <"$W/u.txt") from upstream-alloc)"
        diff "$W/c.txt" "$W/u.txt" | head -6 | sed 's/^/  /'
        head -3 "$W/u.err" | sed 's/^/  /'
    fi
}

for f in priority bound; do
    check "queue/$f" "$D/queue/one-gpu.yaml" "$D/queue/$f.yaml"
done
for f in explain/two-gpus explain/net-consumable-capacity sweep/shared-selectors alloc/skip-allocated; do
    check "$f" "$D/$f.yaml"
done
for f in sched-pods sched-shared sched-first-available; do
    check "alloc/$f" "$D/alloc/sched-cluster.yaml" "$D/alloc/$f.yaml"
done
check "examples/cluster" "$D"/../../examples/cluster/*.yaml

# the generated fleet
"$B/dra-slice" profile gpu --nodes 50 --devices 10 -o jsonl >"$W/fleet.jsonl" || exit 2
{
    printf '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"gpu"},"spec":{"selectors":[{"cel":{"expression":"device.driver == \\"gpu.example.com\\""}}]}}\n'
    for i in $(seq 0 49); do printf '{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-%d"}}\n' "$i"; done
    t='{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate","metadata":{"name":"%s","namespace":"gen"},"spec":{"spec":{"devices":%s}}}\n'
    # shellcheck disable=SC2059
    {
        printf "$t" one '{"requests":[{"name":"r","exactly":{"deviceClassName":"gpu"}}]}'
        printf "$t" two '{"requests":[{"name":"r","exactly":{"deviceClassName":"gpu","count":2}}],"constraints":[{"matchAttribute":"gpu.example.com/model"}]}'
        printf "$t" cel '{"requests":[{"name":"r","exactly":{"deviceClassName":"gpu","selectors":[{"cel":{"expression":"device.attributes[\"gpu.example.com\"].index >= 5 && device.capacity[\"gpu.example.com\"].memory.compareTo(quantity(\"40Gi\")) >= 0"}}]}}]}'
        printf "$t" pref '{"requests":[{"name":"r","firstAvailable":[{"name":"four","deviceClassName":"gpu","count":4},{"name":"one","deviceClassName":"gpu"}]}]}'
    }
} >"$W/gbase.jsonl"
awk 'BEGIN { split("one two cel pref", t, " ");
    for (i = 0; i < 600; i++)
        printf "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p%03d\",\"namespace\":\"gen\",\"uid\":\"uid-p%d\",\"creationTimestamp\":\"2026-01-01T00:%02d:%02dZ\"},\"spec\":{\"priority\":%d,\"containers\":[{\"name\":\"c\"}],\"resourceClaims\":[{\"name\":\"gpu\",\"resourceClaimTemplateName\":\"%s\"}]}}\n",
            i, i, (i * 7) % 60, i % 60, (i % 3) * 100, t[i % 4 + 1] }' >"$W/gpods.jsonl"
check "generated: 50 nodes x 10 GPUs, 600 pods" "$W/gbase.jsonl" "$W/fleet.jsonl" "$W/gpods.jsonl"
head -n 150 "$W/gpods.jsonl" >"$W/gpods150.jsonl"
check "generated: 50 nodes x 10 GPUs, 150 pods" "$W/gbase.jsonl" "$W/fleet.jsonl" "$W/gpods150.jsonl"

echo "$pass passed, $failed failed"
[[ $failed -eq 0 ]]
