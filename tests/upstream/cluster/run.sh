#!/bin/bash
# The cluster suites against the real control plane (make upstream-check-cluster):
#   client      tests/upstream/cluster/client.bats: dra-watch and kubectl dra;
#               claimfix.bats: doctor's scripts, pipelines of plain release
#   scheduling  tests/upstream/cluster/sched.py on each input below: dra-alloc
#               schedule and kube-scheduler, pod by pod
# CLUSTER_SUITES (default "client scheduling") picks the suites.
# Needs DRA_BIN (the tools) and UPSTREAM_BIN (upstream-cluster, kubectl).
# Exit 0 when both agree everywhere, 1 otherwise.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
: "${DRA_BIN:=$root/build/bin}" "${UPSTREAM_BIN:=$root/build/upstream/bin}"
export DRA_BIN UPSTREAM_BIN
work=${CLUSTER_WORK:-$root/build/upstream/cluster-check}
rc=0

# the inputs that schedule pods: examples/cluster and tests/data/alloc's sched-*
# (each a directory or files joined by '+', relative to the top)
A=tests/data/alloc
SCHED_INPUTS=${SCHED_INPUTS:-"examples/cluster $A/sched-cluster.yaml+$A/sched-pods.yaml
    $A/sched-cluster.yaml+$A/sched-shared.yaml $A/sched-cluster.yaml+$A/sched-first-available.yaml
    $A/sched-cluster.yaml+$A/sched-ext.yaml"}

t0=$(date +%s)
suites=${CLUSTER_SUITES:-client scheduling}
if [[ " $suites " == *" client "* ]]; then
    echo "== client suite (tests/upstream/cluster/client.bats, claimfix.bats)"
    bats "$here/client.bats" "$here/claimfix.bats" || rc=1
    echo "client suite: $(($(date +%s) - t0)) s"
fi
t1=$(date +%s)
[[ " $suites " == *" scheduling "* ]] || exit $rc

echo "== scheduling suite (dra-alloc schedule vs kube-scheduler)"
rm -rf "$work"
mkdir -p "$work"
same=0 differ=0 failed=0
for input in $SCHED_INPUTS; do
    if [ -d "$root/$input" ]; then
        files=("$root/$input"/*.yaml)
    else
        IFS=+ read -ra files <<<"$input"
        files=("${files[@]/#/$root/}")
    fi
    c=$work/$(basename "${input##*+}" .yaml)
    "$root/tests/upstream/cluster.sh" start "$c" >/dev/null 2>"$c.start.err" ||
        { echo "$input: the cluster did not start"; cat "$c.start.err"; failed=$((failed + 1)); continue; }
    python3 "$here/sched.py" "$c" "$DRA_BIN/dra-alloc" "${files[@]}" >"$c.out" 2>&1
    r=$?
    "$root/tests/upstream/cluster.sh" stop "$c"
    echo "-- $input"
    cat "$c.out"
    case $r in
    0) same=$((same + 1)) ;;
    1) differ=$((differ + 1)) ;;
    *) failed=$((failed + 1)) ;;
    esac
done
t2=$(date +%s)
echo "scheduling suite: $same inputs agree, $differ differ, $failed failed ($((t2 - t1)) s)"
[ $differ -eq 0 ] && [ $failed -eq 0 ] || rc=1
exit $rc
