#!/bin/sh
# A Kubernetes 1.37.2 control plane on loopback for testing the tools against
# the real API server, scheduler and controllers (build/upstream/bin/upstream-cluster,
# built by `make upstream-cluster`).
#
#   tests/upstream/cluster.sh start DIR   start etcd, kube-apiserver, kube-scheduler
#                                         and kube-controller-manager; return when
#                                         /readyz answers and deploy/'s roles exist
#   tests/upstream/cluster.sh stop DIR    stop them all (their process group)
#
# Everything is on 127.0.0.1 at free ports chosen on the first start and kept
# in DIR/ports, so a stop and a start on the same DIR bring back the same
# server with the same etcd data (DIR/etcd).  DIR gets:
#   kubeconfig              the admin (O=system:masters), client certificate
#   kubeconfig-ROLE         one per deploy/ role (claims, node, evict): the
#                           service account dra-ROLE's token, deploy/'s RBAC
#   ca.crt, pki/            a CA made with openssl; serving and client certificates
#   server                  https://127.0.0.1:PORT
#   pid                     the process group's leader; *.log each component's log
#
# Nodes are plain Node objects: there is no kubelet and the scheduler only
# binds.  TaintNodesByCondition is disabled so that new Nodes are not tainted
# not-ready (no node lifecycle controller would ever lift the taint).
# Environment: UPSTREAM_BIN (default build/upstream/bin), DEPLOY (default deploy),
# CLUSTER_CONTROLLERS (kube-controller-manager's --controllers; default the
# resourceclaim, device-taint-eviction, resourcequota, serviceaccount,
# namespace and garbage-collector controllers, each with its own service
# account, as kubeadm runs them), CLUSTER_FEATURE_GATES (--feature-gates of the
# API server, scheduler and controller-manager, e.g. GenericWorkload=true;
# default none) and CLUSTER_RUNTIME_CONFIG (the API server's --runtime-config,
# e.g. scheduling.k8s.io/v1beta1=true; default none).
set -eu
command -v curl >/dev/null || { echo "cluster.sh: needs curl" >&2; exit 3; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${UPSTREAM_BIN:-$root/build/upstream/bin}
uc=$bin/upstream-cluster
deploy=${DEPLOY:-$root/deploy}
die() { echo "cluster.sh: $*" >&2; exit 3; }

[ $# -eq 2 ] || { echo "usage: cluster.sh start|stop DIR" >&2; exit 2; }
cmd=$1
mkdir -p "$2"
dir=$(cd "$2" && pwd)

stop() {
    [ -f "$dir/pid" ] || return 0
    pid=$(cat "$dir/pid")
    # the leader stops the components in order; what is left after 10 s is killed
    if kill -TERM "$pid" 2>/dev/null; then
        i=0
        while kill -0 "-$pid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
        kill -KILL "-$pid" 2>/dev/null || true
        while kill -0 "-$pid" 2>/dev/null; do sleep 0.1; done
    fi
    rm -f "$dir/pid"
}

# cert NAME SUBJECT [EXT]: a key and a certificate signed by the CA
cert() {
    openssl req -newkey rsa:2048 -nodes -keyout "$pki/$1.key" -subj "$2" \
        -out "$pki/$1.csr" 2>/dev/null
    if [ $# -ge 3 ]; then printf '%s\n' "$3" >"$pki/$1.ext"; else : >"$pki/$1.ext"; fi
    openssl x509 -req -in "$pki/$1.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" \
        -CAcreateserial -days 3650 -extfile "$pki/$1.ext" -out "$pki/$1.crt" 2>/dev/null
}

# kubeconfig FILE USER (client certificate pki/USER) | kubeconfig FILE USER TOKEN
kubeconfig() {
    {
        printf 'apiVersion: v1\nkind: Config\nclusters:\n- name: upstream\n  cluster:\n'
        printf '    server: %s\n    certificate-authority: %s\n' "$server" "$dir/ca.crt"
        printf 'users:\n- name: %s\n  user:\n' "$2"
        if [ $# -ge 3 ]; then
            printf '    token: %s\n' "$3"
        else
            printf '    client-certificate: %s\n    client-key: %s\n' "$pki/$2.crt" "$pki/$2.key"
        fi
        printf 'contexts:\n- name: upstream\n  context: {cluster: upstream, user: %s}\n' "$2"
        printf 'current-context: upstream\n'
    } >"$1.tmp"
    mv "$1.tmp" "$1"
}

start() {
    [ -x "$uc" ] || die "$uc is missing: run 'make upstream-cluster'"
    if [ -f "$dir/pid" ] && kill -0 "-$(cat "$dir/pid")" 2>/dev/null; then
        die "already running in $dir (pid $(cat "$dir/pid"))"
    fi
    pki=$dir/pki
    if [ ! -f "$pki/ca.crt" ]; then
        mkdir -p "$pki"
        openssl req -x509 -newkey rsa:2048 -nodes -keyout "$pki/ca.key" -out "$pki/ca.crt" \
            -days 3650 -subj /CN=upstream-cluster-ca 2>/dev/null
        cert apiserver /CN=kube-apiserver "subjectAltName=IP:127.0.0.1,DNS:localhost"
        cert admin "/O=system:masters/CN=admin"
        cert kube-scheduler /CN=system:kube-scheduler
        cert kube-controller-manager /CN=system:kube-controller-manager
        openssl genrsa -out "$pki/sa.key" 2048 2>/dev/null
        openssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
        cp "$pki/ca.crt" "$dir/ca.crt"
    fi
    [ -s "$dir/ports" ] || "$uc" ports 5 >"$dir/ports"
    controllers=${CLUSTER_CONTROLLERS:-resourceclaim-controller,device-taint-eviction-controller,resourcequota-controller,serviceaccount-controller,namespace-controller,garbage-collector-controller}
    gates=${CLUSTER_FEATURE_GATES:-} runtime=${CLUSTER_RUNTIME_CONFIG:-}
    # shellcheck disable=SC2046 # five port numbers
    set -- $(cat "$dir/ports")
    etcd_port=$1 peer_port=$2 api_port=$3 sched_port=$4 cm_port=$5
    server=https://127.0.0.1:$api_port
    printf '%s\n' "$server" >"$dir/server"
    kubeconfig "$dir/kubeconfig" admin
    kubeconfig "$pki/kubeconfig-scheduler" kube-scheduler
    kubeconfig "$pki/kubeconfig-controller-manager" kube-controller-manager

    for f in etcd kube-apiserver kube-scheduler kube-controller-manager; do
        [ ! -f "$dir/$f.log" ] || mv "$dir/$f.log" "$dir/$f.log.old"
    done
    # One process group: setsid makes the shell its leader, stop kills the group.
    # shellcheck disable=SC2016 # expanded by the inner sh
    setsid sh -c '
        uc=$1 dir=$2 pki=$3 etcd_port=$4 peer_port=$5 api_port=$6 sched_port=$7 cm_port=$8 controllers=$9
        gates=${10} runtime=${11}
        "$uc" etcd "$dir/etcd" "http://127.0.0.1:$etcd_port" "http://127.0.0.1:$peer_port" \
            >"$dir/etcd.log" 2>&1 &
        etcd=$!
        "$uc" kube-apiserver --etcd-servers="http://127.0.0.1:$etcd_port" \
            --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$api_port" \
            --cert-dir="$dir/apiserver-certs" \
            --tls-cert-file="$pki/apiserver.crt" --tls-private-key-file="$pki/apiserver.key" \
            --client-ca-file="$pki/ca.crt" \
            --service-account-issuer=https://kubernetes.default.svc.cluster.local \
            --service-account-key-file="$pki/sa.pub" \
            --service-account-signing-key-file="$pki/sa.key" \
            --service-cluster-ip-range=10.0.0.0/24 --endpoint-reconciler-type=none \
            --authorization-mode=Node,RBAC \
            --disable-admission-plugins=TaintNodesByCondition \
            ${gates:+--feature-gates="$gates"} ${runtime:+--runtime-config="$runtime"} \
            --profiling=false >"$dir/kube-apiserver.log" 2>&1 &
        api=$!
        # on TERM: the API server and its clients first, etcd last
        trap "kill \$api \$sched \$cm 2>/dev/null; wait \$api \$sched \$cm; kill \$etcd; wait \$etcd; exit 0" TERM
        sched= cm=
        # the scheduler and controller-manager read the RBAC bootstrap has made
        until [ "$(curl -s --max-time 2 --cacert "$pki/ca.crt" --cert "$pki/admin.crt" \
            --key "$pki/admin.key" "https://127.0.0.1:$api_port/readyz")" = ok ]; do
            sleep 0.1
        done
        "$uc" kube-scheduler --kubeconfig="$pki/kubeconfig-scheduler" \
            --authentication-kubeconfig="$pki/kubeconfig-scheduler" \
            --authorization-kubeconfig="$pki/kubeconfig-scheduler" \
            --bind-address=127.0.0.1 --secure-port="$sched_port" \
            --leader-elect=false ${gates:+--feature-gates="$gates"} \
            --profiling=false >"$dir/kube-scheduler.log" 2>&1 &
        sched=$!
        "$uc" kube-controller-manager --kubeconfig="$pki/kubeconfig-controller-manager" \
            --authentication-kubeconfig="$pki/kubeconfig-controller-manager" \
            --authorization-kubeconfig="$pki/kubeconfig-controller-manager" \
            --bind-address=127.0.0.1 --secure-port="$cm_port" --leader-elect=false \
            --use-service-account-credentials=true \
            --controllers="$controllers" ${gates:+--feature-gates="$gates"} \
            --profiling=false >"$dir/kube-controller-manager.log" 2>&1 &
        cm=$!
        wait
    ' upstream-cluster "$uc" "$dir" "$pki" "$etcd_port" "$peer_port" "$api_port" \
        "$sched_port" "$cm_port" "$controllers" "$gates" "$runtime" </dev/null >/dev/null 2>&1 &
    echo $! >"$dir/pid"

    k="$uc kubectl --kubeconfig=$dir/kubeconfig"
    t0=$(date +%s)
    until [ "$(curl -s --max-time 2 --cacert "$pki/ca.crt" --cert "$pki/admin.crt" --key "$pki/admin.key" \
        "$server/readyz" 2>/dev/null)" = ok ]; do
        if [ $(($(date +%s) - t0)) -gt 120 ] || grep -q '"command failed"' "$dir"/*.log; then
            grep -h '"command failed"' "$dir"/*.log >&2 || tail -n 20 "$dir/kube-apiserver.log" >&2 || true
            stop
            die "not ready after $(($(date +%s) - t0)) s (logs in $dir)"
        fi
        sleep 0.1
    done
    # deploy/'s namespace and roles, and a token for each role's service account
    for f in "$deploy"/namespace.yaml "$deploy"/*-rbac.yaml; do
        $k apply --server-side -f "$f" >/dev/null || die "applying $f failed"
    done
    for f in "$deploy"/*-rbac.yaml; do
        role=$(basename "$f" -rbac.yaml)
        ns=$(sed -n 's/^  namespace: //p' "$f" | head -n 1) # the service account's
        if [ ! -s "$pki/token-$role" ]; then
            $k create token "dra-$role" -n "$ns" --duration=8760h >"$pki/token-$role" \
                || die "no token for $ns/dra-$role"
        fi
        kubeconfig "$dir/kubeconfig-$role" "dra-$role" "$(cat "$pki/token-$role")"
    done
}

case $cmd in
start) start ;;
stop) stop ;;
*) echo "usage: cluster.sh start|stop DIR" >&2; exit 2 ;;
esac
