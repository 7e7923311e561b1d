# bats helpers for the test API server (tests/apiserver/apiserver.py).
#   setup_file()    { apiserver_start "$BATS_FILE_TMPDIR/api" [--load FILE]... [--rbac FILE]...; }
#   teardown_file() { apiserver_stop; }
# apiserver_start exports APISERVER_DIR, APISERVER_PID, APISERVER_URL, APISERVER_TOKEN and
# KUBECONFIG=$APISERVER_DIR/kubeconfig (context "test", admin bearer token), plus KUBECACHEDIR so
# kubectl keeps its discovery cache inside the test directory.
# apiserver_req METHOD PATH [BODY [CONTENT-TYPE]] sends one admin request (for /_test/ endpoints).
# wait_lines FILE N waits until a watch's output FILE has N lines (at most ~15 s).

APISERVER_PY="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/apiserver.py"
APISERVER_REQ="$(dirname "$APISERVER_PY")/kreq.py"

apiserver_start() {
    local dir=$1
    shift
    mkdir -p "$dir"
    rm -f "$dir/port"
    # Own stdout/stderr and no fd 3, so bats does not wait for the server to end.
    /usr/bin/python3 "$APISERVER_PY" --dir "$dir" "$@" >"$dir/log" 2>&1 3>&- &
    local pid=$! i
    for ((i = 0; i < 300; i++)); do
        [[ -s $dir/port ]] && break
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "apiserver failed to start:" >&2
            cat "$dir/log" >&2
            return 1
        fi
        sleep 0.1
    done
    if [[ ! -s $dir/port ]]; then
        echo "apiserver did not start within 30 s" >&2
        kill "$pid" 2>/dev/null
        return 1
    fi
    APISERVER_DIR=$(cd "$dir" && pwd)
    APISERVER_PID=$pid
    APISERVER_URL="https://127.0.0.1:$(cat "$dir/port")"
    APISERVER_TOKEN=$(cat "$dir/admin.token")
    KUBECONFIG=$APISERVER_DIR/kubeconfig
    KUBECACHEDIR=$APISERVER_DIR/kubecache
    export APISERVER_DIR APISERVER_PID APISERVER_URL APISERVER_TOKEN KUBECONFIG KUBECACHEDIR
}

apiserver_stop() {
    local pid=${APISERVER_PID:-}
    [[ -n $pid ]] || return 0
    kill -TERM "$pid" 2>/dev/null || return 0
    local i
    for ((i = 0; i < 50; i++)); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null
    return 0
}

apiserver_req() {
    /usr/bin/python3 "$APISERVER_REQ" "$APISERVER_DIR" "$@"
}

# Wait until FILE has N lines (at most ~15 s).
wait_lines() {
    local i
    for ((i = 0; i < 150; i++)); do
        [[ -f $1 && $(wc -l <"$1") -ge $2 ]] && return 0
        sleep 0.1
    done
    echo "only $(wc -l <"$1") of $2 lines in $1" >&2
    return 1
}
