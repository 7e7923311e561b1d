#!/bin/sh
# Run upstream's allocator test table against dra-alloc (`make
# upstream-alloctable`), or its CEL test table against cel-batch (`make
# upstream-celtable`).
#
#   run.sh DRA_ALLOC WORKDIR
#   run.sh --table cel CEL_BATCH WORKDIR
#
# Copies the pinned k8s.io/dynamic-resource-allocation module (from the Go
# module cache, downloaded through the module proxy when missing) into
# WORKDIR, places dratools_test.go beside its shared table
# (structured/internal/allocatortesting, which only code inside the module
# may import), runs it and prints "N passed, N failed, N skipped" (leaf
# cases), the failing cases above it.  The go test -json log stays in
# WORKDIR/test.json.  Exit 0 when nothing failed, 1 when a case failed, 2
# when the table could not be run.
#
# DRA_VERSION picks another release's module (v0.36.3, v0.38.0-beta.0;
# default v0.37.2): run it with DRA_KUBERNETES_VERSION set to that release
# (and for 1.38 GOFLAGS=-tags=k8s138: dratools_release*_test.go), as
# `make upstream-alloctable-1.N` does.
#
# --table cel: the table is cel/compile_test.go's testcases, the harness
# ../celtable/dratools_cel_test.go (in package cel), run with CEL_BATCH.
set -eu

MODULE=k8s.io/dynamic-resource-allocation
VERSION=${DRA_VERSION:-v0.37.2}
here=$(cd "$(dirname "$0")" && pwd)
table=alloc
if [ "${1:-}" = --table ] && [ $# -ge 2 ]; then
    table=$2
    shift 2
fi
case $table in
alloc)
    PKG=./structured/internal/allocatortesting/ TEST=TestDraAlloc harness=$here tool=DRA_ALLOC ;;
cel)
    PKG=./cel/ TEST=TestDraToolsCEL harness=$here/../celtable tool=CEL_BATCH ;;
*)
    echo "upstream-${table}table: unknown table (alloc or cel)" >&2
    exit 2 ;;
esac
name=upstream-${table}table

GO=${GO:-go}
[ $# -eq 2 ] || { echo "usage: $0 [--table alloc|cel] PROGRAM WORKDIR" >&2; exit 2; }
bin=$1 work=$2
[ -x "$bin" ] || { echo "$name: $bin: not an executable" >&2; exit 2; }

mod="$work/$MODULE@$VERSION"
if [ ! -f "$mod/go.mod" ]; then
    # Outside any module: the download is of the module alone.
    info=$(cd / && "$GO" mod download -json "$MODULE@$VERSION") || {
        echo "$name: cannot download $MODULE@$VERSION" >&2
        exit 2
    }
    dir=$(printf '%s\n' "$info" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
    [ -n "$dir" ] && [ -f "$dir/go.mod" ] || {
        echo "$name: go mod download gave no directory for $MODULE@$VERSION" >&2
        exit 2
    }
    rm -rf "$mod.tmp" && mkdir -p "$(dirname "$mod")"
    # The module cache is read-only, and go -overlay refuses files there.
    cp -R "$dir" "$mod.tmp" && chmod -R u+w "$mod.tmp" && mv "$mod.tmp" "$mod"
fi
cp "$harness"/dratools_*test.go "$mod/$PKG"

log="$work/test.json"
set +e
(cd "$mod" && env "$tool=$bin" "$GO" test -json -count=1 -run "^$TEST\$" "$PKG") >"$log" 2>"$work/test.stderr"
rc=$?
set -e

# Leaf cases: a case whose name no other case extends ("interrupt" is only
# the parent of "interrupt/cancel" and the others).
summary=$(sed -nE 's/.*"Action":"(pass|fail|skip)".*"Test":"'"$TEST"'\/([^"]*)".*/\1 \2/p' "$log" | awk '
    { action[$2] = $1; n = split($2, part, "/"); p = part[1]
      for (i = 2; i <= n; i++) { parent[p] = 1; p = p "/" part[i] } }
    END {
        for (t in action) if (!(t in parent)) { count[action[t]]++; if (action[t] == "fail") print "FAIL " t | "sort" }
        close("sort")
        printf "%d passed, %d failed, %d skipped\n", count["pass"], count["fail"], count["skip"]
    }')

case $summary in
"0 passed, 0 failed, 0 skipped")
    # go test failed before any case ran: it did not build or run.
    echo "$name: go test ran no case (exit $rc), see $log and $work/test.stderr" >&2
    sed -n 's/.*"Action":"build-output","Output":"\(.*\)\\n"}$/\1/p' "$log" | head -n 20 >&2
    tail -n 20 "$work/test.stderr" >&2 || true
    exit 2
    ;;
esac
printf '%s\n' "$summary"
case $summary in
*" 0 failed,"*) ;;
*) exit 1 ;;
esac
if [ "$rc" -ne 0 ]; then
    echo "$name: go test failed (exit $rc) outside the cases, see $log" >&2
    exit 2
fi
