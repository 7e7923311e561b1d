#!/usr/bin/env bats
# A first hour that works verbatim: the man pages' examples run as written
# (tests/readme-examples.py, make doc-check), and the checker fails a page
# whose example fails or prints other than what it shows.
load helpers
bats_require_minimum_version 1.5.0

CHECK="$BATS_TEST_DIRNAME/../readme-examples.py"
TOP="$BATS_TEST_DIRNAME/../.."

# a man page NAME whose EXAMPLES section is the rest of the arguments, one line each
man_page() {
    local f=$BATS_TEST_TMPDIR/$1
    shift
    { printf '.TH X 1\n.SH NAME\nx\n.SH EXAMPLES\n.nf\n'; printf '%s\n' "$@"; printf '.fi\n.SH SEE ALSO\n'; } >"$f"
    echo "$f"
}

@test "doc-check: every man page example runs and prints what the page shows" {
    run python3 "$CHECK" "$TOP"/man/*.1 "$DRA_BIN"
    assert_success
    assert_line --regexp '^[1-9][0-9]+ examples checked, 0 differ$'
    # the node-side commands are named with their reason, not dropped
    assert_line --regexp '^man/dra-prepare.1:[0-9]+: dra-prepare sync --node node-a'
    assert_line '  passed over: needs a real node (kubelet plugin registry, CDI directories)'
}

@test "doc-check: an example that exits 2 fails, named by page and line" {
    f=$(man_page bad.1 "cd examples/cluster" \
        "dra-select -e 'device.capacity[\"gpu.example.com\"].memory.isGreaterThan(quantity(\"40Gi\"))' slices.yaml")
    run python3 "$CHECK" "$f" "$DRA_BIN"
    assert_failure 1
    assert_line --regexp "^.*bad.1:7: dra-select -e "
    assert_line '  exit: 2'
    assert_line '2 examples checked, 1 differ'
}

@test "doc-check: shown output must be what the tool prints; ... masks a varying part" {
    f=$(man_page shown.1 '$ dra\-select \-\-class gpu.example.com examples/cluster/*.yaml' \
        'gpu.example.com/node\-a/gpu\-0' 'gpu.example.com/node\-b/gpu\-9')
    run python3 "$CHECK" "$f" "$DRA_BIN"
    assert_failure 1
    assert_line '    gpu.example.com/node-b/gpu-9'
    f=$(man_page masked.1 '$ dra\-select \-\-class gpu.example.com examples/cluster/*.yaml' \
        'gpu.example.com/node\-a/gpu\-0' '\&...' 'gpu.example.com/node\-.../gpu\-0')
    run python3 "$CHECK" "$f" "$DRA_BIN"
    assert_success
    assert_line '1 examples checked, 0 differ'
}

@test "doc-check: a shown error with exit 2 passes; a file no example ships fails" {
    f=$(man_page err.1 '$ dra\-slice validate examples/validate/claim.yaml' \
        'dra\-slice: examples/validate/claim.yaml:13: ResourceClaim/gpu\-demo/three\-gpus: unknown field "spec.devices.requests[0].exactly.countt"' \
        .fi .nf 'dra\-slice build \-\-driver gpu.example.com \-\-node node\-1 devices.yaml')
    run python3 "$CHECK" "$f" "$DRA_BIN"
    assert_failure 1
    assert_line '    dra-slice: devices.yaml: No such file or directory'
    assert_line '2 examples checked, 1 differ'
}

@test "doc-check: kubectl and dra-watch examples run against the test API server with examples/cluster" {
    f=$(man_page cluster.1 '$ kubectl get resourceslices \-o name | sort' \
        'resourceslice.resource.k8s.io/node\-a\-gpu.example.com\-7xk2p' '\&...' \
        '$ dra\-watch get deviceclasses \-o jsonl | jq \-r .metadata.name | sort' \
        'gpu\-partition.example.com' 'gpu.example.com' 'nic.example.com' \
        .fi .nf 'dra\-watch get resourceclaims \-w')
    run python3 "$CHECK" "$f" "$DRA_BIN"
    assert_success
    assert_line '3 examples checked, 0 differ'
}

@test "doc-check: a driver started in the background serves the next command; variables last" {
    f=$(man_page driver.1 '$ d=$(mktemp \-d)' \
        '$ dra\-example\-driver \-\-plugin\-dir $d/drv \-\-registry\-dir $d/reg \-\-cdi\-dir $d/cdi &' \
        '$ dra\-prepare probe \-\-socket $d/drv/dra.sock \-\-count 1 | grep "^prepare "' \
        'prepare ... pass ... 1 device(s) for default/dra\-probe')
    run python3 "$CHECK" "$f" "$DRA_BIN"
    assert_success
    assert_line '3 examples checked, 0 differ'
}

@test "first hour: the README says where the tools are and under which license" {
    run grep -c 'export PATH=$PWD/build/bin:$PATH' "$TOP/README.md"
    assert_output 1
    run grep -c 'Apache License 2.0' "$TOP/README.md"
    assert_output 1
    run head -3 "$TOP/LICENSE"
    assert_line --regexp '^ +Apache License$'
    # make demo and make check stay the first two commands
    run grep -m2 -E '^    [a-z]' "$TOP/README.md"
    assert_line --index 0 --regexp '^    make demo '
    assert_line --index 1 --regexp '^    make check '
}
