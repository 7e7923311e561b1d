#!/usr/bin/env bash
# The dra-tools demo: the tools, one after another, on the bundled example
# cluster (examples/cluster: two nodes, whole and partitionable GPUs, NICs,
# DeviceClasses with CEL selectors, claim templates, three pending pods).
# DRA_BIN points at the built binaries (make demo sets it).
set -uo pipefail
cd "$(dirname "$0")"
BIN=${DRA_BIN:-../build/bin}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ -t 1 ]]; then bold=$'\033[1m' off=$'\033[0m'; else bold= off=; fi
step() { printf '\n%s== %s%s\n$ %s\n' "$bold" "$1" "$off" "$2"; }

step "1. Validate every object of the example cluster" \
    "dra-slice validate cluster/*.yaml"
"$BIN/dra-slice" validate cluster/*.yaml && echo "(all valid)"

step "2. Check the published pools: complete generations, no duplicate devices, counters that exist" \
    "dra-slice lint cluster/slices.yaml"
"$BIN/dra-slice" lint cluster/slices.yaml && echo "(no problems)"

step "3. Which devices does the DeviceClass gpu.example.com select (CEL)?" \
    "dra-select --class gpu.example.com cluster/*.yaml"
"$BIN/dra-select" --class gpu.example.com cluster/*.yaml

step "4. ... and which does the half-gpu template's first choice take?" \
    "dra-select --claim default/half-gpu --request gpu/partition cluster/*.yaml"
"$BIN/dra-select" --claim default/half-gpu --request gpu/partition cluster/*.yaml

step "5. Claims before scheduling" "dra-claim status cluster/*.yaml"
"$BIN/dra-claim" status cluster/*.yaml

step "6. Schedule the pending pods: claims from templates, allocation, reservation, node choice" \
    "dra-alloc schedule --explain cluster/*.yaml > placed.yaml"
"$BIN/dra-alloc" schedule --explain cluster/*.yaml >"$work/placed.yaml"
echo "(exit $?: 1 means some pod fits nowhere — the trace above says why)"

step "7. The claims afterwards" \
    "dra-claim status placed.yaml cluster/{claims,classes,slices,nodes}.yaml"
"$BIN/dra-claim" status "$work/placed.yaml" cluster/{claims,classes,slices,nodes}.yaml

cat >"$work/overheat.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata:
  name: gpu-0-overheating
spec:
  deviceSelector:
    driver: gpu.example.com
    pool: node-a
    device: gpu-0
  taint:
    key: example.com/overheating
    effect: NoExecute
    timeAdded: "2026-03-01T10:00:00Z"
YAML
step "8. gpu-0 on node-a overheats: a NoExecute DeviceTaintRule. Which pods must go, and when?" \
    "dra-evict --now 2026-03-01T10:00:05Z placed.yaml overheat.yaml cluster/{claims,slices}.yaml"
"$BIN/dra-evict" --now 2026-03-01T10:00:05Z "$work/placed.yaml" "$work/overheat.yaml" cluster/{claims,slices}.yaml

step "9. Publish another node's inventory as ResourceSlices (devices and shared counters in separate slices)" \
    "dra-slice build --driver gpu.example.com --node node-c inventory/node-c-gpus.yaml -o jsonl | cut -c1-110"
"$BIN/dra-slice" build --driver gpu.example.com --node node-c inventory/node-c-gpus.yaml -o jsonl | cut -c1-110

step "10. A synthetic fleet for what-if work: 500 nodes x 10 GPUs, then 5,000 single-GPU pods" \
    "dra-slice profile gpu --nodes 500 --devices 10 > fleet.yaml; dra-alloc schedule fleet.yaml pods.yaml -o jsonl"
"$BIN/dra-slice" profile gpu --nodes 500 --devices 10 >"$work/fleet.yaml"
{
    for n in $(seq 0 499); do
        printf -- '---\napiVersion: v1\nkind: Node\nmetadata:\n  name: node-%d\n' "$n"
    done
    printf -- '---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: gpu.example.com\nspec:\n  selectors:\n  - cel:\n      expression: device.driver == "gpu.example.com"\n'
    printf -- '---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata:\n  name: one-gpu\n  namespace: default\nspec:\n  spec:\n    devices:\n      requests:\n      - name: gpu\n        exactly:\n          deviceClassName: gpu.example.com\n'
    for p in $(seq 1 5000); do
        printf -- '---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: job-%d\n  namespace: default\n  uid: 00000000-0000-4000-8000-%012d\nspec:\n  containers:\n  - name: c\n    image: busybox\n    resources:\n      claims:\n      - name: gpu\n  resourceClaims:\n  - name: gpu\n    resourceClaimTemplateName: one-gpu\n' "$p" "$p"
    done
} >"$work/pods.yaml"
start=$(date +%s.%N)
"$BIN/dra-alloc" schedule "$work/fleet.yaml" "$work/pods.yaml" -o jsonl >"$work/out.jsonl"
rc=$?
end=$(date +%s.%N)
placed=$(grep -c '^{"apiVersion":"v1","kind":"Pod"' "$work/out.jsonl")
awk -v s="$start" -v e="$end" -v n="$placed" -v rc="$rc" \
    'BEGIN { t = e - s; printf "%d pods placed in %.2f s (%.0f pods/s, whole process), exit %d\n", n, t, n / t, rc }'

# The kubelet side: node-a runs the example driver; its kubelet would prepare
# trainer's claim before starting the container.  (The API server gives every
# object a UID; the offline claims get theirs here.)
awk '/^---$/ { k = "" } /^kind: / { k = $2 } { print } k == "ResourceClaim" && /^  name: / { print "  uid: demo-" $2 }' \
    "$work/placed.yaml" >"$work/node.yaml"
mkdir -p "$work/registry"
"$BIN/dra-example-driver" --plugin-dir "$work/plugins/gpu.example.com" --registry-dir "$work/registry" \
    --cdi-dir "$work/cdi" --node node-a --claims "$work/node.yaml" 2>/dev/null &
driver=$!
trap 'kill "$driver" 2>/dev/null; wait "$driver" 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do [[ -S $work/registry/gpu.example.com-reg.sock ]] && break; sleep 0.1; done
step "11. node-a's kubelet side: find the driver through registration, prepare what runs there" \
    "dra-prepare sync --node node-a --registry-dir registry --checkpoint state node.yaml"
"$BIN/dra-prepare" sync --node node-a --registry-dir "$work/registry" --checkpoint "$work/state" "$work/node.yaml"

step "12. What the container gets: the driver's CDI specs, merged as a container runtime applies them" \
    "dra-prepare prepare --pod default/trainer ... -o jsonl | dra-prepare cdi --cdi-dir cdi"
"$BIN/dra-prepare" prepare --pod default/trainer --registry-dir "$work/registry" --checkpoint "$work/state" \
    -o jsonl "$work/node.yaml" | "$BIN/dra-prepare" cdi --cdi-dir "$work/cdi"

step "13. trainer finished: the next sync unprepares its claim" \
    "dra-prepare sync --node node-a ... (trainer Succeeded)"
sed '/^  name: trainer$/,/^---$/ s/^status:$/status:\n  phase: Succeeded/' "$work/node.yaml" >"$work/node2.yaml"
"$BIN/dra-prepare" sync --node node-a --registry-dir "$work/registry" --checkpoint "$work/state" "$work/node2.yaml"

step "14. Against a live API server (the test server in tests/apiserver): a finished pod still holds its claim" \
    "dra-watch get resourceclaims -A | jq -c '[.metadata.name, .metadata.finalizers, [.status.reservedFor[].name]]'"
source ../tests/apiserver/helpers.bash
jq -c .object ../tests/data/watch/finished-pod.rec.jsonl >"$work/finished.jsonl"
if apiserver_start "$work/api" --load "$work/finished.jsonl" >/dev/null; then
    "$BIN/dra-watch" get resourceclaims -A | jq -c '[.metadata.name, .metadata.finalizers, [.status.reservedFor[].name]]'

    step "15. One reconcile pass, as the cron job runs it: what would be written, then the writes" \
        "dra-watch run --once --dry-run --job claims; dra-watch run --once --job claims -v --stats"
    "$BIN/dra-watch" run --once --dry-run --job claims | jq -c '[.verb, .kind, .name, .subresource, .reason]'
    "$BIN/dra-watch" run --once --job claims -v --stats
    echo "(exit $?)"
    "$BIN/dra-watch" get resourceclaims -A | wc -l | sed 's/$/ claims left/'
    apiserver_stop
else
    echo "(the test server did not start; skipped)"
fi

step "16. Classic DRA (Kubernetes 1.27-1.30): the PodSchedulingContext negotiation with a fake driver's controller" \
    "dra-alloc schedule --classic-driver gpu.resource.example.com=classic/fake-driver.sh classic/cluster.yaml > classic.yaml"
FAKE_UNSUITABLE_NODES=node-a "$BIN/dra-alloc" schedule --classic-driver gpu.resource.example.com=classic/fake-driver.sh \
    classic/cluster.yaml >"$work/classic.yaml"
echo "(exit $?)"
"$BIN/dra-claim" status "$work/classic.yaml"

step "17. ... and what of it carries over to structured parameters (v1)" \
    "dra-claim convert classic/cluster.yaml"
"$BIN/dra-claim" convert classic/cluster.yaml >"$work/v1.yaml"
rc=$?
grep -E '^(kind|  name| +deviceClassName| +expression)' "$work/v1.yaml"
echo "(exit $rc: 1 means something could not be carried over, named above)"
