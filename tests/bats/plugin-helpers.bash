# Shared by the kubectl plugin's bats files (load plugin-helpers): the test
# API server with the finished-pod scenario in namespace ml, a Role-only
# user, and the kubectl that runs the plugin.
setup() {
    source "${APISERVER_HELPERS:-$BATS_TEST_DIRNAME/../apiserver/helpers.bash}"
    W="$BATS_TEST_TMPDIR"
    REC="$DATA/watch/finished-pod.rec.jsonl"
}

teardown() {
    apiserver_stop
    [[ -z ${HANG_PID:-} ]] || kill "$HANG_PID" 2>/dev/null || true
}

kc_to() { # SERVER: a kubeconfig for SERVER with a token
    cat <<KC
apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "$1", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u, namespace: ml}}]
current-context: x
KC
}

# The finished-pod scenario (namespace ml), a node, a class, a pending pod.
start() {
    jq -c .object "$REC" >"$W/objs.jsonl"
    cat >"$W/users.yaml" <<'Y'
apiVersion: dra-tools.test/v1
kind: TestUsers
users:
- name: ml-dev
  token: ml-dev-token
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: reader, namespace: ml}
rules:
- {apiGroups: ["", resource.k8s.io], resources: ["*"], verbs: [get, list, watch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: ml-dev, namespace: ml}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}
subjects: [{kind: User, name: ml-dev}]
Y
    apiserver_start "$W/api" --load "$W/objs.jsonl" --rbac "$W/users.yaml"
    apiserver_req POST /_test/objects '[{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-a"}},{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"gpu.example.com"},"spec":{"selectors":[{"cel":{"expression":"device.driver == \"gpu.example.com\""}}]}},{"apiVersion":"v1","kind":"Pod","metadata":{"name":"pending","namespace":"ml","uid":"3f0a9c1e-0000-4000-8000-00000000a009"},"spec":{"containers":[{"name":"c","image":"i"}],"resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"single-gpu"}]},"status":{"phase":"Pending"}}]' >/dev/null
    # the admin's kubeconfig with the context's namespace ml, and the Role-only user's
    sed 's/^\(    cluster: test\)$/\1\n    namespace: ml/' "$KUBECONFIG" >"$W/kc-ml"
    grep -q 'namespace: ml' "$W/kc-ml"
    sed 's/token: .*/token: ml-dev-token/' "$W/kc-ml" >"$W/kc-dev"
}

kubectl_bin() {
    KUBECTL=/usr/lib/google-cloud-sdk/bin/kubectl.1.33
    [[ -x $KUBECTL ]] || KUBECTL=/usr/bin/kubectl
    [[ -x $KUBECTL ]] || skip "kubectl is not installed"
    export PATH="$DRA_BIN:$BATS_TEST_DIRNAME/../../scripts:$PATH"
}
