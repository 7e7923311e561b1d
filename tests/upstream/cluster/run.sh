#!/bin/bash
# The cluster suites against the real control plane (make upstream-check-cluster):
#   client      tests/upstream/cluster/client.bats: dra-watch and kubectl dra;
#               claimfix.bats: doctor's scripts, pipelines of plain release
#   scheduling  tests/upstream/cluster/sched.py on each input below and on
#               random clusters of gen.py: dra-alloc schedule and kube-scheduler,
#               pod by pod
# CLUSTER_SUITES (default "client scheduling") picks the suites; SCHED_INPUTS,
# SCHED_GROUP_INPUTS (set and empty: none), SCHED_SEEDS and SCHED_SECONDS the
# scheduling suite's inputs (below); SCHED_GROUP_VERSION and
# SCHED_GROUP_GATES how the PodGroup inputs are given (below).
# Needs DRA_BIN (the tools) and UPSTREAM_BIN (upstream-cluster, kubectl).
# Prints one line per suite with its counts and time, then "N passed,
# N failed" (bats tests; scheduling inputs, each one case).  Exit 0 when
# both agree everywhere, 1 otherwise.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
: "${DRA_BIN:=$root/build/bin}" "${UPSTREAM_BIN:=$root/build/upstream/bin}"
export DRA_BIN UPSTREAM_BIN
work=${CLUSTER_WORK:-$root/build/upstream/cluster-check}
rc=0
passed=0 failed_all=0

# the inputs that schedule pods: examples/cluster and tests/data/alloc's sched-*
# (each a directory or files joined by '+', relative to the top)
A=tests/data/alloc
SCHED_INPUTS=${SCHED_INPUTS:-"examples/cluster $A/sched-cluster.yaml+$A/sched-pods.yaml
    $A/sched-cluster.yaml+$A/sched-shared.yaml $A/sched-cluster.yaml+$A/sched-first-available.yaml
    $A/sched-cluster.yaml+$A/sched-ext.yaml"}
# the inputs with PodGroups (gang scheduling): a cluster of their own with
# GROUP_GATES on, and dra-alloc given them too (sched.py SCHED_GATES).  They
# are scheduling.k8s.io/v1beta1 (1.37 and 1.38); with SCHED_GROUP_VERSION
# (1.36: v1alpha2, the only version it serves, releases.mk) each is given
# as a copy in that version, the cluster serving it.  SCHED_GROUP_GATES
# replaces GenericWorkload=true (1.36 gang-schedules with GangScheduling on).
C=tests/upstream/cluster/inputs
SCHED_GROUP_INPUTS=${SCHED_GROUP_INPUTS-"$C/sched-gang-fits.yaml $C/sched-gang-devices.yaml $C/sched-gang-count.yaml
    $C/sched-group-basic.yaml"}
GROUP_VERSION=${SCHED_GROUP_VERSION:-v1beta1}
GROUP_GATES=${SCHED_GROUP_GATES:-GenericWorkload=true} GROUP_RUNTIME=scheduling.k8s.io/$GROUP_VERSION=true

t0=$(date +%s)
suites=${CLUSTER_SUITES:-client scheduling}
if [[ " $suites " == *" client "* ]]; then
    echo "== client suite (tests/upstream/cluster/client.bats, claimfix.bats)"
    mkdir -p "$work"
    bats "$here/client.bats" "$here/claimfix.bats" | tee "$work/client.tap"
    [[ ${PIPESTATUS[0]} -eq 0 ]] || rc=1
    cp=$(grep -c '^ok ' "$work/client.tap") cf=$(grep -c '^not ok ' "$work/client.tap")
    [[ $rc -eq 0 || $cf -gt 0 ]] || cf=1
    passed=$((passed + cp)) failed_all=$((failed_all + cf))
    echo "client suite: $cp passed, $cf failed in $(($(date +%s) - t0)) s"
fi
t1=$(date +%s)
if [[ " $suites " != *" scheduling "* ]]; then
    echo "$passed passed, $failed_all failed"
    exit $rc
fi

echo "== scheduling suite (dra-alloc schedule vs kube-scheduler)"
rm -rf "$work/sched"
mkdir -p "$work/sched"
same=0 differ=0 failed=0
# one_input NAME FILE...: a fresh cluster, sched.py, the verdict counted
one_input() {
    local name=$1 r
    shift
    local c=$work/sched/$name
    "$root/tests/upstream/cluster.sh" start "$c" >/dev/null 2>"$c.start.err" ||
        { echo "$name: the cluster did not start"; cat "$c.start.err"; failed=$((failed + 1)); return; }
    python3 "$here/sched.py" "$c" "$DRA_BIN/dra-alloc" "$@" >"$c.out" 2>&1
    r=$?
    "$root/tests/upstream/cluster.sh" stop "$c"
    echo "-- $name"
    cat "$c.out"
    case $r in
    0) same=$((same + 1)) ;;
    1) differ=$((differ + 1)) ;;
    *) failed=$((failed + 1)) ;;
    esac
}
# inputs LIST: one_input on each input of LIST
inputs() {
    local input files
    for input in $1; do
        if [ -d "$root/$input" ]; then
            files=("$root/$input"/*.yaml)
        else
            IFS=+ read -ra files <<<"$input"
            [[ $input == /* ]] || files=("${files[@]/#/$root/}")
        fi
        one_input "$(basename "${input##*+}" .yaml)" "${files[@]}"
    done
}
inputs "$SCHED_INPUTS"
group_inputs=$SCHED_GROUP_INPUTS
if [ "$GROUP_VERSION" != v1beta1 ]; then
    mkdir -p "$work/sched/$GROUP_VERSION"
    group_inputs=
    for input in $SCHED_GROUP_INPUTS; do
        sed "s#^apiVersion: scheduling.k8s.io/v1beta1\$#apiVersion: scheduling.k8s.io/$GROUP_VERSION#" \
            "$root/$input" >"$work/sched/$GROUP_VERSION/${input##*/}"
        group_inputs+=" $work/sched/$GROUP_VERSION/${input##*/}"
    done
fi
CLUSTER_FEATURE_GATES=$GROUP_GATES CLUSTER_RUNTIME_CONFIG=$GROUP_RUNTIME SCHED_GATES=$GROUP_GATES \
    SCHED_GROUP_VERSION=$GROUP_VERSION inputs "$group_inputs"
# random clusters (gen.py SEED): seeds 1, 2, ... while SCHED_SECONDS (default
# 180) last, or exactly the seeds of SCHED_SEEDS
t_gen=$(date +%s) seeds=0
seed=0
for seed in ${SCHED_SEEDS:-$(seq 1 100000)}; do
    if [ -z "${SCHED_SEEDS:-}" ] && [ $(($(date +%s) - t_gen)) -ge "${SCHED_SECONDS:-180}" ]; then
        break
    fi
    python3 "$here/gen.py" "$seed" >"$work/sched/gen-$seed.json"
    one_input "gen-$seed" "$work/sched/gen-$seed.json"
    seeds=$((seeds + 1))
done
echo "random clusters: $seeds seeds in $(($(date +%s) - t_gen)) s"
t2=$(date +%s)
echo "scheduling suite: $same inputs agree, $differ differ, $failed failed in $((t2 - t1)) s"
[ $differ -eq 0 ] && [ $failed -eq 0 ] || rc=1
echo "$((passed + same)) passed, $((failed_all + differ + failed)) failed"
exit $rc
