#!/usr/bin/env bats
# Running in a cluster: the image `make image` builds without a daemon
# (scripts/make-image.py), the kustomization, the loop's health endpoints,
# progress and summaries on a terminal.
load helpers
bats_require_minimum_version 1.5.0

ROOT="$BATS_TEST_DIRNAME/../.."
TOOLS="dra-slice dra-select dra-alloc dra-claim dra-prepare dra-evict dra-watch dra-example-driver"

setup() {
    T=$BATS_TEST_TMPDIR
}

# image DIR: the image of $DRA_BIN's tools into DIR, as make image builds it
image() {
    # shellcheck disable=SC2086 # the tool names
    (cd "$ROOT" && SOURCE_DATE_EPOCH=1700000000 python3 scripts/make-image.py --bin "$DRA_BIN" --version 0.1.0 --out "$1" $TOOLS)
}

# verify DIR ARCHIVE: unpack the OCI archive into DIR and check every digest,
# size and diff_id; prints the manifest's digest
verify() {
    mkdir -p "$1" && tar -xf "$2" -C "$1"
    python3 - "$1" <<'PY'
import gzip, hashlib, json, os, sys
d = sys.argv[1]
def blob(desc):
    algo, hexd = desc["digest"].split(":")
    b = open(os.path.join(d, "blobs", algo, hexd), "rb").read()
    assert algo == "sha256" and hashlib.sha256(b).hexdigest() == hexd, desc
    assert len(b) == desc["size"], desc
    return b
assert json.load(open(os.path.join(d, "oci-layout"))) == {"imageLayoutVersion": "1.0.0"}
idx = json.load(open(os.path.join(d, "index.json")))
assert idx["schemaVersion"] == 2 and len(idx["manifests"]) == 1
m = json.loads(blob(idx["manifests"][0]))
assert m["mediaType"] == "application/vnd.oci.image.manifest.v1+json"
cfg = json.loads(blob(m["config"]))
assert cfg["config"]["User"] == "65532:65532" and cfg["os"] == "linux", cfg
diff = ["sha256:" + hashlib.sha256(gzip.decompress(blob(l))).hexdigest() for l in m["layers"]]
assert diff == cfg["rootfs"]["diff_ids"], (diff, cfg["rootfs"])
dm = json.load(open(os.path.join(d, "manifest.json")))
assert dm[0]["Config"] == "blobs/sha256/" + m["config"]["digest"][7:]
assert dm[0]["RepoTags"] == ["dra-tools:0.1.0"]
print(idx["manifests"][0]["digest"])
PY
}

@test "image: the OCI layout's digests verify; the layer runs every tool with its own loader and libraries" {
    run --separate-stderr image "$T/img"
    assert_success
    [[ $output == *"dra-tools.oci.tar: dra-tools:0.1.0, "* ]]
    run verify "$T/oci" "$T/img/dra-tools.oci.tar"
    assert_success
    [[ $output == sha256:* ]]
    # the layer as a runtime unpacks it: the tools, the loader, no host path
    L=$T/img/layer
    lp=$L/lib/x86_64-linux-gnu:$L/usr/lib/x86_64-linux-gnu
    for t in $TOOLS; do
        [ -x "$L/usr/local/bin/$t" ]
        run --separate-stderr "$L/lib64/ld-linux-x86-64.so.2" --library-path "$lp" "$L/usr/local/bin/$t" --version
        assert_success
        [[ $output == "$t 0.1.0"* ]]
        # every library the loader maps comes from the layer
        run env LD_TRACE_LOADED_OBJECTS=1 "$L/lib64/ld-linux-x86-64.so.2" --library-path "$lp" "$L/usr/local/bin/$t"
        assert_success
        run ! grep -v -e linux-vdso -e "=> $L/" -e "^[[:space:]]*$L/" <<<"$output"
    done
    [ -s "$L/etc/ssl/certs/ca-certificates.crt" ]
    grep -q '^nonroot:x:65532:65532:' "$L/etc/passwd"
    [ "$(stat -c %a "$L/tmp")" = 1777 ]
    # what podman's and skopeo's library (containers/image) makes of it, as
    # an OCI archive and as a Docker archive; copying checks every digest
    if command -v skopeo >/dev/null; then
        run skopeo inspect --config "oci-archive:$T/img/dra-tools.oci.tar"
        assert_success
        [ "$(jq -r '.config.User' <<<"$output")" = 65532:65532 ]
        skopeo copy -q "oci-archive:$T/img/dra-tools.oci.tar" "dir:$T/copy-oci"
        skopeo copy -q "docker-archive:$T/img/dra-tools.oci.tar" "dir:$T/copy-docker"
    fi
}

@test "image: built twice, the same bytes (reproducible)" {
    image "$T/a" >/dev/null
    image "$T/b" >/dev/null
    cmp "$T/a/dra-tools.oci.tar" "$T/b/dra-tools.oci.tar"
}

@test "image: a missing tool is an error naming it, and no archive" {
    run --separate-stderr env -C "$ROOT" python3 scripts/make-image.py --bin "$T/none" --version 0.1.0 --out "$T/img" dra-watch
    assert_equal "$status" 2
    [[ $stderr == *"$T/none/dra-watch: no such tool (run make first)"* ]]
    [ ! -e "$T/img/dra-tools.oci.tar" ]
}

# ---- dra-watch run --health-addr

HELPERS="$BATS_TEST_DIRNAME/../apiserver/helpers.bash"

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# get PATH [CURL-ARGS...]: "CODE BODY" of the health endpoint
get() {
    local p=$1
    shift
    curl -s --max-time 5 -o "$T/body" -w '%{http_code}' "$@" "http://127.0.0.1:$PORT$p"
}

# wait_for PATH CODE: until the endpoint answers CODE (10 s at most)
wait_for() {
    local _
    for _ in $(seq 100); do
        [ "$(get "$1")" = "$2" ] && return 0
        sleep 0.1
    done
    echo "$1 never answered $2 (last: $(get "$1"))" >&2
    return 1
}

@test "health: /healthz, /readyz after the first pass, /metrics with --stats' counters; one log line per pass" {
    source "$HELPERS"
    apiserver_start "$T/api"
    PORT=$(free_port)
    "$DRA_BIN/dra-watch" run --job claims --health-addr "127.0.0.1:$PORT" -v >"$T/out" 2>"$T/err" 3>&- &
    pid=$!
    wait_for /healthz 200
    [ "$(cat "$T/body")" = ok ]
    wait_for /readyz 200
    [ "$(get /metrics)" = 200 ]
    grep -qx 'dra_watch_passes_total 1' "$T/body"
    grep -qx 'dra_watch_ready 1' "$T/body"
    grep -qx 'dra_watch_pass_failures_total 0' "$T/body"
    grep -Eqx 'dra_watch_requests_total [1-9][0-9]*' "$T/body"
    grep -qx '# TYPE dra_watch_writes_total counter' "$T/body"
    # every sample has its HELP and TYPE (the Prometheus text format)
    [ "$(grep -c '^dra_watch_' "$T/body")" = "$(grep -c '^# TYPE ' "$T/body")" ]
    # HEAD: the headers (curl -I writes them to the body file), no body
    [ "$(get /metrics -I)" = 200 ]
    grep -q $'^Content-Length: [1-9][0-9]*\r$' "$T/body"
    run ! grep -q dra_watch_ "$T/body"
    [ "$(get /nope)" = 404 ]
    [ "$(get /healthz -X POST)" = 405 ]
    kill -TERM "$pid"
    wait "$pid"
    apiserver_stop
    grep -Eq '^dra-watch: pass 1: done, [0-9]+ objects, 0 writes, 0 conflicts, verdict 0, [0-9]+ ms$' "$T/err"
    [ "$(grep -c ': pass [0-9]*: ' "$T/err")" = 1 ]
    grep -qx "dra-watch: /healthz, /readyz and /metrics on port $PORT" "$T/err"
    # the endpoints end with the loop
    [ "$(get /healthz)" = 000 ]
}

@test "health: not ready while every pass fails; the failures counted" {
    source "$HELPERS"
    apiserver_start "$T/api"
    PORT=$(free_port)
    "$DRA_BIN/dra-watch" run --interval 200ms --health-addr ":$PORT" -- 'cat >/dev/null; exit 3' 2>"$T/err" 3>&- &
    pid=$!
    wait_for /healthz 200
    for _ in $(seq 100); do
        get /metrics >/dev/null
        grep -Eqx 'dra_watch_pass_failures_total [2-9]' "$T/body" && break
        sleep 0.1
    done
    grep -Eqx 'dra_watch_pass_failures_total [2-9]' "$T/body"
    grep -qx 'dra_watch_ready 0' "$T/body"
    [ "$(get /readyz)" = 503 ]
    [ "$(cat "$T/body")" = "not ready: no successful pass yet" ]
    kill -TERM "$pid"
    wait "$pid"
    apiserver_stop
}

@test "health: a bad or busy address is an error before anything runs" {
    source "$HELPERS"
    apiserver_start "$T/api"
    run --separate-stderr "$DRA_BIN/dra-watch" run --job claims --health-addr nonsense
    assert_equal "$status" 2
    [[ $stderr == *'invalid address "nonsense" (want HOST:PORT, :PORT or [IPV6]:PORT)'* ]]
    [[ $stderr == *health-addr* ]]
    run --separate-stderr "$DRA_BIN/dra-watch" run --job claims --health-addr 127.0.0.1:70000
    assert_equal "$status" 2
    python3 -c 'import socket,time; s=socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(); print(s.getsockname()[1], flush=True); time.sleep(30)' >"$T/port" 3>&- &
    holder=$!
    for _ in $(seq 50); do [ -s "$T/port" ] && break; sleep 0.1; done
    run --separate-stderr "$DRA_BIN/dra-watch" run --job claims --health-addr "127.0.0.1:$(cat "$T/port")"
    kill "$holder"
    apiserver_stop
    assert_equal "$status" 3
    [[ $stderr == *"cannot listen on 127.0.0.1:$(cat "$T/port"): Address already in use"* ]]
}

# ---- progress on a terminal, the -v summary

# tty CMD: CMD with its standard error on a terminal (script(1)); prints
# what the terminal showed, carriage returns as "<CR>"
tty() {
    command -v script >/dev/null || skip "script(1) (util-linux) is not installed"
    DRA_PROGRESS_DELAY_MS=0 script -qec "$1" /dev/null | sed 's/\r/<CR>/g'
}

@test "progress: on a terminal, objects read and pods placed, the line wiped; stdout as on a pipe" {
    tty "'$DRA_BIN/dra-alloc' schedule --now 2026-01-01T00:00:00Z '$EXAMPLES'/cluster/*.yaml >'$T/tty.out' </dev/null" >"$T/screen"
    # from the first object (with its rate once time has passed), redrawn
    # in place and wiped when the reading ends; a new step at once
    grep -Eq '^<CR>dra-alloc: 1 object read( \([0-9]+/s\))?<CR>' "$T/screen"
    grep -Eq 'objects? read( \([0-9]+/s\))?<CR> *<CR><CR>dra-alloc: 17 objects read, pods placed' "$T/screen"
    grep -q '<CR>dra-alloc: 17 objects read, pods placed 1/3<CR>' "$T/screen"
    # wiped before the tool's own message, and nothing is left at the end
    grep -q 'pods placed 1/3<CR> *<CR>dra-alloc: pod default/fast-path: 0/2 nodes are available' "$T/screen" ||
        grep -q 'pods placed 1/3<CR> *<CR>' "$T/screen"
    # never an escape sequence
    run ! grep -q $'\e' "$T/screen"
    "$DRA_BIN/dra-alloc" schedule --now 2026-01-01T00:00:00Z "$EXAMPLES"/cluster/*.yaml >"$T/pipe.out" 2>/dev/null || true
    cmp "$T/tty.out" "$T/pipe.out"
}

@test "progress: on a pipe nothing extra, even with no delay" {
    for c in "dra-slice validate" "dra-alloc capacity" "dra-claim status" "dra-claim doctor"; do
        # shellcheck disable=SC2086 # the command and its subcommand
        DRA_PROGRESS_DELAY_MS=0 "$DRA_BIN/"$c "$EXAMPLES"/cluster/*.yaml >/dev/null 2>"$T/err" || true
        # shellcheck disable=SC2086
        "$DRA_BIN/"$c "$EXAMPLES"/cluster/*.yaml >/dev/null 2>"$T/err0" || true
        cmp "$T/err" "$T/err0"
        run ! grep -q 'objects read' "$T/err"
    done
}

@test "progress: -v ends with one summary line: objects, errors, time" {
    run --separate-stderr "$DRA_BIN/dra-slice" validate -v "$EXAMPLES/cluster/slices.yaml"
    assert_success
    [[ ${stderr_lines[-1]} =~ ^dra-slice:\ 5\ objects\ read,\ 0\ errors,\ [0-9]+\.[0-9]{2}\ s$ ]]
    run --separate-stderr "$DRA_BIN/dra-slice" validate -v "$EXAMPLES/validate/bad-name.yaml"
    assert_failure 2
    [[ ${stderr_lines[-1]} =~ ^dra-slice:\ [0-9]+\ objects?\ read,\ [1-9][0-9]*\ errors?,\ [0-9.]+\ s$ ]]
    for c in "dra-alloc schedule" "dra-alloc capacity" "dra-claim status" "dra-claim doctor"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$DRA_BIN/"$c -v "$EXAMPLES"/cluster/*.yaml
        [[ ${stderr_lines[-1]} =~ ^dra-(alloc|claim):\ 17\ objects\ read,\ 0\ errors,\ [0-9.]+\ s$ ]] || {
            echo "$c: ${stderr_lines[-1]}"
            false
        }
    done
    # a run stopped at its options, before reading, has nothing to sum up
    run --separate-stderr "$DRA_BIN/dra-slice" validate -v --feature-gates NoSuchGate=true "$EXAMPLES/cluster/slices.yaml"
    assert_failure 2
    [[ $stderr != *"objects read"* ]]
    # commands without long work keep -v as it was
    run --separate-stderr "$DRA_BIN/dra-select" -v --class gpu.example.com "$EXAMPLES"/cluster/*.yaml
    [[ $stderr != *"objects read"* ]]
}
