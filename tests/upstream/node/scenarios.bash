# Scenarios of the node suite (sourced by run.sh).  Each sc_NAME runs in a
# subshell with KIND (go or c) and D (that driver's empty directory: reg/,
# plugins/, cdi/), prints its transcript on stdout and fails (non-zero) when
# a check of its own fails; the transcripts of both drivers must be equal,
# so they hold only what both drivers must agree on.

SCENARIOS=(registration prepare idempotent shared unknown_unprepare restart
    restart_lost_state sync_after_crash bad_unallocated bad_device
    bad_uid_mismatch other_driver cdi_ids two_devices config_timeslice config_bad admin_access share_id)

# The claims of every scenario, loaded into the API server for the Go driver
# and given to the C driver with --claims (pod and claim: rpc-helpers.bash).
# pod NAME UID NODE [PHASE] [SHARED-CLAIM]: rpc-helpers.bash (one template
# claim "own", ResourceClaim NAME-own)
# claim_on NAME UID DRIVER DEVICE RESERVED-UID...: rpc-helpers.bash's claim
# (a NAME-own claim owned by the first reserving pod) with DEVICE of DRIVER
# allocated ("-": not allocated)
claim_on() {
    local name=$1 uid=$2 drv=$3 dev=$4 owner=
    shift 4
    [[ $name == *-own ]] && owner=$1
    if [[ $dev == - ]]; then
        claim "$name" "$uid" "$owner" "$@" | sed '/^status:/,$d'
    else
        claim "$name" "$uid" "$owner" "$@" |
            sed "s/driver: gpu.example.com, pool: node-1, device: gpu-0}/driver: $drv, pool: node-1, device: $dev}/"
    fi
}
# config JSON: add an opaque config of gpu.example.com from the claim to
# the allocation on stdin
config() {
    sed "s|^      results:\$|      config:\\n      - {source: FromClaim, opaque: {driver: gpu.example.com, parameters: $1}}\\n&|"
}
snapshot() {
    local p
    for p in p1 p2 a b; do
        pod $p u-$p node-1
        claim_on $p-own c-$p gpu.example.com gpu-${#p} u-$p
    done
    pod s1 u-s1 node-1 Running shared
    pod s2 u-s2 node-1 Running shared
    claim_on s1-own c-s1 gpu.example.com gpu-3 u-s1
    claim_on s2-own c-s2 gpu.example.com gpu-4 u-s2
    claim_on shared c-sh gpu.example.com gpu-5 u-s1 u-s2
    pod nodev u-nodev node-1
    claim_on nodev-own c-nodev gpu.example.com gpu-99 u-nodev
    pod other u-other node-1
    claim_on other-own c-other other.example.com dev-0 u-other
    pod unalloc u-unalloc node-1
    claim_on unalloc-own c-unalloc gpu.example.com - u-unalloc
    # two devices of one request
    pod two u-two node-1
    claim_on two-own c-two gpu.example.com gpu-1 u-two | sed 's/^      - {request: gpu, driver: gpu.example.com, pool: node-1, device: gpu-1}$/&\n      - {request: gpu, driver: gpu.example.com, pool: node-1, device: gpu-2}/'
    # opaque configuration of the driver (its GpuConfig), from the claim
    pod cfg u-cfg node-1
    claim_on cfg-own c-cfg gpu.example.com gpu-1 u-cfg | config '{"apiVersion":"gpu.resource.example.com/v1alpha1","kind":"GpuConfig","sharing":{"strategy":"TimeSlicing","timeSlicingConfig":{"interval":"Long"}}}'
    pod badcfg u-badcfg node-1
    claim_on badcfg-own c-badcfg gpu.example.com gpu-1 u-badcfg | config '{"apiVersion":"gpu.resource.example.com/v1alpha1","kind":"GpuConfig","sharing":{"strategy":"Sometimes"}}'
    # an admin-access result; a share of a device (consumable capacity)
    pod adm u-adm node-1
    claim_on adm-own c-adm gpu.example.com gpu-2 u-adm | sed 's/device: gpu-2}/device: gpu-2, adminAccess: true}/'
    pod shr u-shr node-1
    claim_on shr-own c-shr gpu.example.com gpu-2 u-shr | sed 's/device: gpu-2}/device: gpu-2, shareID: 6f1b2c3d-0000-4000-8000-000000000001}/'
    # the snapshot says UID c-mm-new; the API server holds c-mm-old
    pod mm u-mm node-1
    claim_on mm-own c-mm-new gpu.example.com gpu-6 u-mm
}

# start_driver: KIND's driver on $D/plugins/gpu.example.com/dra.sock and
# $D/reg/gpu.example.com-reg.sock; returns when the registration socket is new.
start_driver() {
    local reg=$D/reg/gpu.example.com-reg.sock old i
    old=$(stat -c '%i %z' "$reg" 2>/dev/null || true)
    if [[ $KIND == go ]]; then
        NODE_NAME=node-1 "$GO_DRIVER" --kubeconfig "$APISERVER_DIR/kubeconfig" --cdi-root "$D/cdi" \
            --kubelet-registrar-directory-path "$D/reg" --kubelet-plugins-directory-path "$D/plugins" \
            >>"$D/driver.log" 2>&1 &
    else
        "$DRA_BIN/dra-example-driver" --node node-1 --claims "$T/snap.yaml" --cdi-dir "$D/cdi" \
            --registry-dir "$D/reg" --plugin-dir "$D/plugins/gpu.example.com" >>"$D/driver.log" 2>&1 &
    fi
    echo $! >"$D/driver.pid"
    for ((i = 0; i < 300; i++)); do
        [[ -S $reg && $(stat -c '%i %z' "$reg" 2>/dev/null) != "$old" && -S $D/plugins/gpu.example.com/dra.sock ]] && return 0
        sleep 0.1
    done
    echo "the $KIND driver did not start" >&2
    return 1
}
# stop_driver [SIGNAL]: stop the driver started last (by its PID)
stop_driver() {
    local f=${D:-}/driver.pid pid
    [[ -n ${D:-} && -s $f ]] || return 0
    pid=$(cat "$f")
    kill -"${1:-TERM}" "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    rm -f "$f"
    return 0
}

# prep LABEL WANT COMMAND ARGS...: dra-prepare through the registration
# socket; a check fails unless it exits WANT; prints LABEL, the exit status and stdout with each container's CDI IDs
# replaced by whether they all resolve (dra-prepare cdi) and how many there are
prep() {
    local label=$1 want=$2 rc=0
    shift 2
    "$DRA_BIN/dra-prepare" "$@" --registry-dir "$D/reg" --checkpoint "$D/ck" -o jsonl \
        >"$D/out" 2>"$D/err" || rc=$?
    echo "$label: exit $rc"
    [[ $want == - || $rc == "$want" ]] || fail "$label: exit $rc, want $want"
    local line ids
    while IFS= read -r line; do
        mapfile -t ids < <(jq -r '[.. | .cdiDevices? // empty | .[]] | .[]' <<<"$line")
        if ((${#ids[@]} == 0)); then
            echo "$line"
        elif "$DRA_BIN/dra-prepare" cdi --cdi-dir "$D/cdi" "${ids[@]}" >/dev/null 2>&1; then
            jq -c 'walk(if type == "object" and has("cdiDevices") then .cdiDevices = "resolve" else . end)' <<<"$line"
        else
            jq -c 'walk(if type == "object" and has("cdiDevices") then .cdiDevices = "do not resolve" else . end)' <<<"$line"
        fi
    done <"$D/out"
    [[ -s $D/err ]] && sed "s/^/$label stderr: /" "$D/err" >&2
    return 0
}
# fail MESSAGE: a check of the scenario failed (run.sh looks for $D/failed)
fail() { echo "check failed: $*" >&2; echo "$*" >>"$D/failed"; }

# err_names LABEL WORD: the last dra-prepare's stderr names WORD
err_names() {
    if grep -q -- "$2" "$D/err"; then echo "$1: error names $2"; else echo "$1: error does not name $2"; fail "$1: error does not name $2"; fi
}

# err_kind LABEL: whether the driver failed the whole call (a gRPC status)
# or answered a per-claim error, and the driver's message
err_kind() {
    if grep -q 'NodePrepareResources failed for ResourceClaim\|NodeUnprepareResources failed for ResourceClaim' "$D/err"; then
        echo "$1: per-claim error: $(sed -n 's/.*failed for ResourceClaim //p' "$D/err")"
    elif grep -q 'NodePrepareResources: \|NodeUnprepareResources: ' "$D/err"; then
        echo "$1: the call failed: $(sed -n 's/.*: UNKNOWN: //p' "$D/err")"
    else
        echo "$1: no driver error"
    fi
}

# state: the claims dra-prepare's checkpoint holds, those the driver's own
# checkpoint holds, the claim UIDs the CDI directory has specs for
state() {
    local ck=$D/plugins/gpu.example.com/checkpoint.json
    echo "kubelet checkpoint: $( [[ -s $D/ck ]] && jq -r '.Data | fromjson | [.Entries[] | .ClaimUID + (if .Prepared then "" else "(unprepared)" end)] | sort | join(" ")' "$D/ck")"
    if [[ ! -s $ck ]]; then
        echo "driver checkpoint: none"
    elif [[ $KIND == go ]]; then
        echo "driver checkpoint: $(jq -r '[.preparedClaims[]?.uid] | sort | join(" ")' "$ck")"
    else
        echo "driver checkpoint: $(jq -r '.Data | fromjson | [.Entries[]?.ClaimUID] | sort | join(" ")' "$ck")"
    fi
    echo "cdi specs for claims: $(cdi_claims | sort -u | tr '\n' ' ' | sed 's/ $//')"
}
# the claim UIDs of the CDI spec files (not the driver's common spec)
cdi_claims() {
    local f
    for f in "$D"/cdi/*; do
        [[ -e $f ]] || continue
        case ${f##*/} in
        k8s.gpu.example.com-gpu_common.yaml) ;;
        k8s.gpu.example.com-gpu_*.yaml) f=${f##*/k8s.gpu.example.com-gpu_}; echo "${f%.yaml}" ;;
        *) echo "unexpected:${f##*/}" ;;
        esac
    done
}
# driver_calls: how many NodePrepareResources calls the driver logged
# (dra-prepare -v says which claims it skipped; the transcript holds that)

# The DRAResourceHealth services each driver registers under 1.36 (the rest
# of the list is compared).  k8s.io/dynamic-resource-allocation@v0.36.3
# kubeletplugin/draplugin.go offers v1alpha1 only to a plugin that
# implements DRAResourceHealthServer: the C driver, which does, offers
# v1alpha1 alone under 1.36 (its --services default there); v0.4.0's driver
# does not (build.sh leaves out 0002, 1.37's WatchHealthStatus); 1.37's
# offers v1 and v1alpha1 to the patched driver, as the C driver does, so
# there the whole lists are compared.  A 1.36
# kubelet does the same with either list: k8s.io/kubernetes@v1.36.3
# pkg/kubelet/cm/dra/plugin/dra_plugin_manager.go validateSupportedServices
# picks the first DRAPlugin service it knows (v1.DRAPlugin for both) and
# ignores the others, and add() opens the health stream whenever the
# ResourceHealthStatus gate is on, whatever the list says, on v1alpha1 (which
# the C driver serves; 1.37 opens it only for a driver that lists one,
# pickHealthService).
declare -A REG_HEALTH_136=([go]="" [c]="v1alpha1.DRAResourceHealth")

sc_registration() {
    start_driver || return 1
    local rc=0 health
    "$DRA_BIN/dra-prepare" plugins --registry-dir "$D/reg" -o json >"$D/plugins.json" || rc=$?
    echo "plugins: exit $rc"
    if [[ ${DRA_KUBERNETES_VERSION:-} == 1.36 ]]; then
        health=$(jq -r '[.supportedVersions[] | select(endswith(".DRAResourceHealth"))] | join(" ")' "$D/plugins.json")
        [[ $health == "${REG_HEALTH_136[$KIND]}" ]] ||
            fail "registration: health services \"$health\", want \"${REG_HEALTH_136[$KIND]}\" (1.36)"
        echo "health services: as this driver offers them under 1.36"
        jq -c '{name, service, supportedVersions: [.supportedVersions[] | select(endswith(".DRAResourceHealth") | not)], registered, reachable}' "$D/plugins.json"
    else
        jq -c '{name, service, supportedVersions, registered, reachable}' "$D/plugins.json"
    fi
    rc=0
    "$DRA_BIN/dra-prepare" probe --socket "$D/plugins/gpu.example.com/dra.sock" \
        --reg-socket "$D/reg/gpu.example.com-reg.sock" --claim <(claim_on p1-own c-p1 gpu.example.com gpu-1 u-p1) --count 2 -o json \
        >"$D/probe.json" 2>"$D/err" || rc=$?
    echo "probe: exit $rc"
    jq -c '{service, passed, checks: [.checks[] | {name, result}]}' "$D/probe.json"
}

sc_prepare() {
    start_driver || return 1
    prep prepare 0 prepare --pod ns1/p1 "$T/snap.yaml"
    state
    prep unprepare 0 unprepare --pod ns1/p1
    state
}

sc_idempotent() {
    start_driver || return 1
    prep first 0 prepare --pod ns1/p1 "$T/snap.yaml"
    prep again 0 prepare --pod ns1/p1 "$T/snap.yaml" -v
    grep -c 'is prepared already' "$D/err" | sed 's/^/again: skipped claims: /'
    state
    prep unprepare 0 unprepare --pod ns1/p1
    prep "unprepare again" 0 unprepare --pod ns1/p1 "$T/snap.yaml"
    state
}

sc_shared() {
    start_driver || return 1
    prep s1 0 prepare --pod ns1/s1 "$T/snap.yaml"
    prep s2 0 prepare --pod ns1/s2 "$T/snap.yaml"
    state
    prep "unprepare s1" 0 unprepare --pod ns1/s1
    state
    prep "unprepare s2" 0 unprepare --pod ns1/s2
    state
}

# a kubelet checkpoint naming a claim the driver never prepared: the driver
# must answer its unprepare with success
sc_unknown_unprepare() {
    start_driver || return 1
    prep prepare 0 prepare --pod ns1/p1 "$T/snap.yaml"
    stop_driver
    rm -rf "$D/plugins" "$D/cdi"
    mkdir -p "$D/plugins" "$D/cdi"
    start_driver || return 1
    prep unprepare 0 unprepare --pod ns1/p1
    state
}

sc_restart() {
    start_driver || return 1
    prep prepare 0 prepare --pod ns1/p1 "$T/snap.yaml"
    stop_driver
    start_driver || return 1
    prep "prepare after restart" 0 prepare --pod ns1/p2 "$T/snap.yaml"
    state
    prep unprepare 0 unprepare --pod ns1/p1
    state
}

# the driver restarts with its checkpoint but the kubelet's is lost: the
# claim is prepared again, which must not duplicate anything
sc_restart_lost_state() {
    start_driver || return 1
    prep prepare 0 prepare --pod ns1/p1 "$T/snap.yaml"
    stop_driver KILL
    rm -f "$D/ck"
    start_driver || return 1
    prep "prepare again" 0 prepare --pod ns1/p1 "$T/snap.yaml"
    state
    prep unprepare 0 unprepare --pod ns1/p1
    state
}

sc_sync_after_crash() {
    start_driver || return 1
    { pod a u-a node-1; pod b u-b node-1; claim_on a-own c-a gpu.example.com gpu-1 u-a; claim_on b-own c-b gpu.example.com gpu-1 u-b; } >"$D/snap1.yaml"
    prep sync 0 sync --node node-1 "$D/snap1.yaml"
    stop_driver KILL
    start_driver || return 1
    { pod a u-a node-1; pod b u-b node-1 Succeeded; claim_on a-own c-a gpu.example.com gpu-1 u-a; claim_on b-own c-b gpu.example.com gpu-1 u-b; } >"$D/snap2.yaml"
    prep "sync, b finished" 0 sync --node node-1 "$D/snap2.yaml"
    state
    prep "sync, all gone" 0 sync --node node-1 /dev/null
    state
}

sc_bad_unallocated() {
    start_driver || return 1
    prep prepare - prepare --pod ns1/unalloc "$T/snap.yaml"
    err_names prepare unalloc-own
    err_kind prepare
    state
}

sc_bad_device() {
    start_driver || return 1
    prep prepare - prepare --pod ns1/nodev "$T/snap.yaml"
    err_names prepare nodev-own
    err_names prepare gpu-99
    err_kind prepare
    state
}

sc_bad_uid_mismatch() {
    start_driver || return 1
    # what the kubelet sends is the UID of its snapshot; the driver reads
    # the claim by name and finds another UID
    sed 's/uid: c-mm-new/uid: c-mm-newer/' "$T/snap.yaml" >"$D/snap.yaml"
    prep prepare - prepare --pod ns1/mm "$D/snap.yaml"
    err_names prepare mm-own
    err_kind prepare
    state
}

sc_other_driver() {
    start_driver || return 1
    prep prepare - prepare --pod ns1/other "$T/snap.yaml"
    err_names prepare other.example.com
    err_kind prepare
    state
}

# the raw CDI device IDs and spec files: the C driver is to write what the
# published driver writes
sc_cdi_ids() {
    start_driver || return 1
    "$DRA_BIN/dra-prepare" prepare --pod ns1/p1 "$T/snap.yaml" --registry-dir "$D/reg" --checkpoint "$D/ck" -o jsonl
    (cd "$D/cdi" && ls)
    "$DRA_BIN/dra-prepare" cdi --cdi-dir "$D/cdi" -o jsonl \
        $(jq -r '.cdiDevices[]' < <("$DRA_BIN/dra-prepare" prepare --pod ns1/p1 "$T/snap.yaml" --registry-dir "$D/reg" --checkpoint "$D/ck" -o jsonl))
}

# the env each container gets from its CDI devices
container_env() {
    local ids
    mapfile -t ids < <(jq -r '.cdiDevices[]' "$D/out")
    "$DRA_BIN/dra-prepare" cdi --cdi-dir "$D/cdi" -o json "${ids[@]}" | jq -c '.env'
}

sc_two_devices() {
    start_driver || return 1
    prep prepare 0 prepare --pod ns1/two "$T/snap.yaml"
    jq -c '.cdiDevices | length' "$D/out"
    container_env
    state
}

sc_config_timeslice() {
    start_driver || return 1
    prep prepare 0 prepare --pod ns1/cfg "$T/snap.yaml"
    container_env
}

sc_config_bad() {
    start_driver || return 1
    prep prepare 3 prepare --pod ns1/badcfg "$T/snap.yaml"
    err_kind prepare
    err_names prepare badcfg-own
    state
}

sc_admin_access() {
    start_driver || return 1
    prep prepare 0 prepare --pod ns1/adm "$T/snap.yaml"
    container_env
}

sc_share_id() {
    start_driver || return 1
    prep prepare 0 prepare --pod ns1/shr "$T/snap.yaml"
    jq -c '.cdiDevices' "$D/out"
    container_env
    jq -c '.Data | fromjson | [.Entries[].DriverState[].Devices[] | {DeviceName, ShareID}]' "$D/ck"
}
