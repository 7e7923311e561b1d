#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# dra-watch where servers and inputs misbehave (tests/apiserver): credentials
# over plain http, passwords in server URLs, control characters in
# kubeconfigs, a server restored from an etcd backup, events of another kind,
# and concurrent writers.
load helpers

HELPERS="${APISERVER_HELPERS:-$BATS_TEST_DIRNAME/../apiserver/helpers.bash}"
setup_file() { source "$HELPERS" && apiserver_start "$BATS_FILE_TMPDIR/api" --bookmark-interval 1 --plain-http; }
teardown_file() { source "$HELPERS" && apiserver_stop; }

setup() {
    source "$HELPERS"
    W="$BATS_TEST_TMPDIR"
    watch_backoff 50 1000
    apiserver_req POST /_test/reset '{"objects":true}' >/dev/null
    : >"$APISERVER_DIR/http-requests.jsonl"
    HTTP_URL="http://127.0.0.1:$(cat "$APISERVER_DIR/http-port")"
}

teardown() {
    # a watch left running by a failed test would keep bats waiting
    local pid
    for pid in ${BG_PIDS:-}; do
        kill -TERM "$pid" 2>/dev/null || true
    done
}

# Run a command in the background, away from bats' output; its pid in $!.
bg() {
    "$@" 3>&- &
    BG_PIDS="${BG_PIDS:-} $!"
}

ns() { # NAME
    apiserver_req POST /api/v1/namespaces "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$1\"}}" >/dev/null
}

pod() { # NS NAME
    apiserver_req POST "/api/v1/namespaces/$1/pods" \
        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"$2\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}" >/dev/null
}

server_rv() {
    apiserver_req GET /_test/stats | jq -r .resourceVersion
}

# A kubeconfig for SERVER with the user's fields USERLINES (YAML, indented 4).
kc() { # SERVER USERLINES [CLUSTER-NAME]
    printf 'apiVersion: v1\nkind: Config\ncurrent-context: t\nclusters:\n- name: "%s"\n  cluster:\n    server: "%s"\nusers:\n- name: u\n  user:\n%s\ncontexts:\n- name: t\n  context: {cluster: "%s", user: u}\n' \
        "${3:-c}" "$1" "$2" "${3:-c}"
}

@test "plain http: no credential of any kind is sent, as kubectl does, and stderr says so once" {
    local tok
    tok=$(cat "$APISERVER_DIR/admin.token")
    echo "$tok" >"$W/token"
    cat >"$W/plugin" <<EOF
#!/bin/sh
touch "$W/plugin-ran"
echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"$tok"}}'
EOF
    chmod +x "$W/plugin"
    kc "$HTTP_URL" "    token: $tok" >"$W/kc.token"
    kc "$HTTP_URL" "    tokenFile: $W/token" >"$W/kc.tokenfile"
    kc "$HTTP_URL" "    username: admin
    password: PLAIN-PASSWORD" >"$W/kc.basic"
    kc "$HTTP_URL" "    client-certificate: $APISERVER_DIR/admin.crt
    client-key: $APISERVER_DIR/admin.key" >"$W/kc.cert"
    kc "$HTTP_URL" "    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: $W/plugin" >"$W/kc.exec"
    # no scheme: client-go takes host:port as http://host:port
    kc "${HTTP_URL#http://}" "    token: $tok" >"$W/kc.noscheme"
    local k
    for k in token tokenfile basic cert exec noscheme; do
        run --separate-stderr "$DRA_BIN/dra-watch" get pods,nodes,namespaces -A --kubeconfig "$W/kc.$k"
        assert_success
        assert_equal "$(grep -c 'is not https' <<<"$stderr")" 1
        [[ $stderr == *"not sending the credentials of user \"u\""* ]]
        [[ $stderr != *"$tok"* && $stderr != *PLAIN-PASSWORD* ]]
    done
    (($(wc -l <"$APISERVER_DIR/http-requests.jsonl") >= 18))
    run jq -r '.headers[][0]' "$APISERVER_DIR/http-requests.jsonl"
    assert_success
    refute_line --regexp '^(Authorization|Proxy-Authorization|Impersonate-.*)$'
    run grep -c "$tok" "$APISERVER_DIR/http-requests.jsonl"
    assert_output 0
    [[ ! -e $W/plugin-ran ]]
    # over https the same token is sent and works
    run "$DRA_BIN/dra-watch" get pods -A
    assert_success
}

@test "plain http: a watch and its resumes send no credentials either" {
    ns plainw
    bg "$DRA_BIN/dra-watch" get pods -n plainw -w --max-events 2 --kubeconfig "$APISERVER_DIR/kubeconfig-http" >"$W/ev" 2>"$W/err"
    local pid=$!
    sleep 1
    pod plainw a
    pod plainw b
    wait "$pid"
    assert_equal "$(jq -r .object.metadata.name "$W/ev" | tr '\n' ' ')" "a b "
    run grep -c 'watch=1' "$APISERVER_DIR/http-requests.jsonl"
    (( output >= 1 ))
    run jq -r '.headers[][0]' "$APISERVER_DIR/http-requests.jsonl"
    refute_line Authorization
}

@test "a password in the server URL is shown as user:***@ in every message" {
    kc "https://alice:PW-IN-URL@127.0.0.1:1" "    token: t" >"$W/kc"
    run --separate-stderr "$DRA_BIN/dra-watch" get pods -v -v --kubeconfig "$W/kc"
    assert_failure 3
    [[ $stderr == *"The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?"* ]]
    [[ $stderr != *PW-IN-URL* && $output != *PW-IN-URL* ]]
    # the loop, which retries a refused connection: the same
    kc "https://alice:PW-IN-URL@127.0.0.1:1" "    token: t" >"$W/kc"
    # (the retries shortened so that the run ends with its error)
    run --separate-stderr timeout 60 "$DRA_BIN/dra-watch" run --once --job claims -v -v --kubeconfig "$W/kc" --test-backoff-base-ms 5 --test-backoff-cap-ms 20
    assert_failure 3
    [[ $stderr == *"retrying in"*"The connection to the server 127.0.0.1:1 was refused"* ]]
    [[ $stderr != *PW-IN-URL* ]]
}

@test "control characters from a kubeconfig or the command line are escaped as Go's %q, never echoed" {
    kc 'https://127.0.0.1:1\r\nX-Injected: 1' "    token: t" >"$W/kc" # YAML's escapes: CR LF
    run --separate-stderr "$DRA_BIN/dra-watch" get pods --kubeconfig "$W/kc"
    assert_failure 2
    [[ $stderr == *'parse "https://127.0.0.1:1\r\nX-Injected: 1": net/url: invalid control character in URL'* ]]
    [[ $stderr != *$'\r'* ]]
    assert_equal "$(wc -l <<<"$stderr")" 1
    # a context named on the command line
    kc "https://127.0.0.1:1" "    token: t" >"$W/kc2"
    run --separate-stderr "$DRA_BIN/dra-watch" get pods --kubeconfig "$W/kc2" --context $'x\ny'
    assert_failure 2
    [[ $stderr == *'context "x\ny" does not exist'* ]]
    assert_equal "$(wc -l <<<"$stderr")" 1
    # a cluster name with an escape sequence, in a message about that cluster
    printf 'apiVersion: v1\nkind: Config\ncurrent-context: t\nclusters:\n- name: "\\e[31mred"\n  cluster: {insecure-skip-tls-verify: true}\ncontexts:\n- name: t\n  context: {cluster: "\\e[31mred"}\n' >"$W/kc3"
    run --separate-stderr "$DRA_BIN/dra-watch" get pods --kubeconfig "$W/kc3"
    assert_failure 2
    [[ $stderr == *'no server found for cluster "\x1b[31mred"'* ]]
    [[ $stderr != *$'\e'* ]]
    # a token file named with a newline, which cannot be read
    kc "https://127.0.0.1:1" '    tokenFile: "/nonexistent/a\nb"' >"$W/kc4"
    run --separate-stderr "$DRA_BIN/dra-watch" get pods --kubeconfig "$W/kc4"
    assert_failure 3
    [[ $stderr == *'cannot read token file "/nonexistent/a\nb"'* ]]
    assert_equal "$(wc -l <<<"$stderr")" 1
}

@test "an oversized certificate-authority file is named as such, not with a stale errno" {
    truncate -s 17M "$W/huge-ca.crt"
    kc "https://127.0.0.1:1" "    token: t" >"$W/kc"
    sed -i "s|    server: .*|&\n    certificate-authority: $W/huge-ca.crt|" "$W/kc"
    run --separate-stderr "$DRA_BIN/dra-watch" get pods --kubeconfig "$W/kc"
    assert_failure 2
    [[ $stderr == *"unable to read certificate-authority $W/huge-ca.crt for c due to "*"larger than the limit of 16777216 bytes"* ]]
    [[ $stderr != *"No such file"* && $stderr != *"no such file"* ]]
    # a missing one says so, in client-go's words
    sed -i "s|huge-ca.crt|missing-ca.crt|" "$W/kc"
    run --separate-stderr "$DRA_BIN/dra-watch" get pods --kubeconfig "$W/kc"
    assert_failure 3
    [[ $stderr == *"unable to read certificate-authority $W/missing-ca.crt for c due to open $W/missing-ca.crt: no such file or directory"* ]]
}

@test "an exec plugin that cannot start is reported as client-go words it, not as exit code 126" {
    local big
    big=$(head -c 200000 /dev/zero | tr '\0' a)
    kc "https://127.0.0.1:1" "    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: /bin/true
      args: [\"$big\"]" >"$W/kc"
    run --separate-stderr "$DRA_BIN/dra-watch" get pods --kubeconfig "$W/kc"
    assert_failure 3
    [[ $stderr == *"exec: fork/exec /bin/true: argument list too long"* ]]
    [[ $stderr != *"exit code 126"* ]]
    # not executable
    printf '#!/bin/sh\n' >"$W/noexec"
    kc "https://127.0.0.1:1" "    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: $W/noexec" >"$W/kc"
    run --separate-stderr "$DRA_BIN/dra-watch" get pods --kubeconfig "$W/kc"
    assert_failure 3
    [[ $stderr == *"exec: fork/exec $W/noexec: permission denied"* ]]
}

# After an etcd restore the server's resourceVersion is behind the client's.
restore_scenario() { # tooLargeMode
    apiserver_req POST /_test/faults "{\"tooLargeMode\":\"$1\"}" >/dev/null
    ns restore
    pod restore a
    local rv0
    rv0=$(server_rv)
    bg "$DRA_BIN/dra-watch" get pods -n restore -w -v --stats >"$W/ev" 2>"$W/err"
    local pid=$!
    wait_lines "$W/ev" 1
    pod restore b
    pod restore c
    wait_lines "$W/ev" 3
    sleep 1.2 # a bookmark at c's version
    apiserver_req POST /_test/restore "{\"resourceVersion\": $rv0}" >/dev/null
    pod restore d # the version b had
    wait_lines "$W/ev" 6
    pod restore e
    wait_lines "$W/ev" 7
    kill -TERM "$pid"
    wait "$pid"
    run jq -r '.type + " " + .object.metadata.name' "$W/ev"
    assert_line --index 0 "ADDED a"
    assert_line --index 1 "ADDED b"
    assert_line --index 2 "ADDED c"
    assert_equal "$(sed -n 4,6p <<<"$output" | sort | tr '\n' ' ')" "ADDED d DELETED b DELETED c "
    assert_line --index 6 "ADDED e"
    assert_equal "${#lines[@]}" 7
    grep -q 'Too large resource version' "$W/err"
    grep -q 'relists=1' "$W/err"
}

@test "etcd restore: a watch resumed past the server's version relists (ERROR event 504 ResourceVersionTooLarge)" {
    restore_scenario event
}

@test "etcd restore: a watch resumed past the server's version relists (HTTP 504 ResourceVersionTooLarge)" {
    restore_scenario http
}

# A watch of pods in NS whose first event is OBJECT, of another kind; a pod
# made before and one after.  Leaves the events in $W/ev, stderr in $W/err.
foreign_event() { # NS OBJECT
    ns "$1"
    pod "$1" a
    apiserver_req POST /_test/faults "{\"foreignEvent\":{\"object\":$2,\"path\":\"/api/v1/namespaces/$1/pods\",\"count\":1}}" >/dev/null
    bg "$DRA_BIN/dra-watch" get pods -n "$1" -w -v --stats >"$W/ev" 2>"$W/err"
    local pid=$!
    wait_lines "$W/ev" 1
    sleep 1
    pod "$1" b
    wait_lines "$W/ev" 2
    kill -TERM "$pid"
    wait "$pid"
    run jq -r '.type + " " + .object.kind + " " + .object.metadata.name' "$W/ev"
    assert_output "$(printf 'ADDED Pod a\nADDED Pod b')"
}

@test "a watch event of another known kind is dropped; the watch goes on" {
    foreign_event wk '{"apiVersion":"v1","kind":"Node","metadata":{"name":"intruder","resourceVersion":"999999"}}'
    grep -q 'an event of another kind (v1 Node intruder)' "$W/err"
    grep -q 'relists=0' "$W/err"
}

@test "a watch event of a kind nobody knows ends the watch, which relists" {
    foreign_event wk2 '{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","resourceVersion":"999999"}}'
    grep -q 'unable to decode an event from the watch stream: unable to decode watch event: no kind "Widget" is registered for version "example.com/v1"' "$W/err"
    grep -q 'relists=1' "$W/err"
}

# N finished pods, each with its generated, allocated and reserved claim.
finished_pods() { # N
    local rec="$DATA/watch/finished-pod.rec.jsonl" i h
    {
        jq -c 'select(.object.kind == "ResourceClaimTemplate") | .object' "$rec"
        for ((i = 0; i < $1; i++)); do
            h=$(printf '%04d' "$i")
            jq -c --arg i "$i" --arg h "$h" '.object
              | if .kind == "Pod" then .metadata.name = "trainer-\($i)" | .metadata.uid = "3f0a9c1e-0000-4000-8000-00000000\($h)"
                  | .status.resourceClaimStatuses[0].resourceClaimName = "trainer-\($i)-gpu"
                elif .kind == "ResourceClaim" then .metadata.name = "trainer-\($i)-gpu" | .metadata.uid = "9b2e6f10-0000-4000-8000-00000000\($h)"
                  | .metadata.ownerReferences[0] |= (.name = "trainer-\($i)" | .uid = "3f0a9c1e-0000-4000-8000-00000000\($h)")
                  | .status.reservedFor[0] |= (.name = "trainer-\($i)" | .uid = "3f0a9c1e-0000-4000-8000-00000000\($h)")
                else empty end' "$rec"
        done
    } | jq -s . >"$W/load.json"
    apiserver_req POST /_test/objects "$(cat "$W/load.json")" >/dev/null
}

@test "run --once: conflicts with a busy writer are re-read with backoff until they pass" {
    finished_pods 1
    # another writer changes the claim before each of our writes for 4 s: longer
    # than six passes right after each other, shorter than the backoff's 7.8 s
    apiserver_req POST /_test/faults '{"concurrentWriter":{"path":"/apis/resource.k8s.io/v1/namespaces/ml/resourceclaims/trainer-0-gpu","patch":{"metadata":{"labels":{"other":"writer"}}},"seconds":4}}' >/dev/null
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --stats -v -- \
        'jq -c "select(.kind == \"ResourceClaim\") | .metadata.labels.seen = \"yes\""'
    assert_success
    [[ $stderr == *"re-reading in "*" ms"* ]]
    [[ $stderr =~ conflicts=([2-5]) ]]
    run "$DRA_BIN/dra-watch" get resourceclaims -n ml
    assert_equal "$(jq -c '.metadata.labels | {other, seen}' <<<"$output")" '{"other":"writer","seen":"yes"}'
}

@test "two run --once --job claims at the same time both succeed and the cluster ends right" {
    finished_pods 10
    bg "$DRA_BIN/dra-watch" run --once --job claims --stats >"$W/o1" 2>"$W/e1"
    local p1=$!
    bg "$DRA_BIN/dra-watch" run --once --job claims --stats >"$W/o2" 2>"$W/e2"
    local p2=$!
    local r1=0 r2=0
    wait "$p1" || r1=$?
    wait "$p2" || r2=$?
    assert_equal "$r1 $r2" "0 0"
    # every claim released, deallocated and deleted; the pods are still there
    run "$DRA_BIN/dra-watch" get resourceclaims -A
    assert_success
    assert_output ""
    run "$DRA_BIN/dra-watch" get pods -n ml
    assert_equal "${#lines[@]}" 10
    cat "$W/e1" "$W/e2" | grep -q 'conflicts=[1-9]'
}
