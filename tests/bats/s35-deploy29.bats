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
        ! grep -v -e linux-vdso -e "=> $L/" -e "^[[:space:]]*$L/" <<<"$output"
    done
    [ -s "$L/etc/ssl/certs/ca-certificates.crt" ]
    grep -q '^nonroot:x:65532:65532:' "$L/etc/passwd"
    [ "$(stat -c %a "$L/tmp")" = 1777 ]
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
