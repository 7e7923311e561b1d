#!/bin/sh
# Run upstream's allocator test table against dra-alloc (`make
# upstream-alloctable`).
#
#   run.sh DRA_ALLOC WORKDIR
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
set -eu

MODULE=k8s.io/dynamic-resource-allocation
VERSION=${DRA_VERSION:-v0.37.2}
PKG=./structured/internal/allocatortesting/

GO=${GO:-go}
[ $# -eq 2 ] || { echo "usage: $0 DRA_ALLOC WORKDIR" >&2; exit 2; }
alloc=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
[ -x "$alloc" ] || { echo "upstream-alloctable: $alloc: not an executable" >&2; exit 2; }

mod="$work/$MODULE@$VERSION"
if [ ! -f "$mod/go.mod" ]; then
    # Outside any module: the download is of the module alone.
    info=$(cd / && "$GO" mod download -json "$MODULE@$VERSION") || {
        echo "upstream-alloctable: cannot download $MODULE@$VERSION" >&2
        exit 2
    }
    dir=$(printf '%s\n' "$info" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
    [ -n "$dir" ] && [ -f "$dir/go.mod" ] || {
        echo "upstream-alloctable: go mod download gave no directory for $MODULE@$VERSION" >&2
        exit 2
    }
    rm -rf "$mod.tmp" && mkdir -p "$(dirname "$mod")"
    # The module cache is read-only, and go -overlay refuses files there.
    cp -R "$dir" "$mod.tmp" && chmod -R u+w "$mod.tmp" && mv "$mod.tmp" "$mod"
fi
cp "$here"/dratools_*test.go "$mod/structured/internal/allocatortesting/"

log="$work/test.json"
set +e
(cd "$mod" && DRA_ALLOC="$alloc" "$GO" test -json -count=1 -run '^TestDraAlloc$' "$PKG") >"$log" 2>"$work/test.stderr"
rc=$?
set -e

# Leaf cases: a case whose name no other case extends ("interrupt" is only
# the parent of "interrupt/cancel" and the others).
summary=$(sed -nE 's/.*"Action":"(pass|fail|skip)".*"Test":"TestDraAlloc\/([^"]*)".*/\1 \2/p' "$log" | awk '
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
    echo "upstream-alloctable: go test ran no case (exit $rc), see $log and $work/test.stderr" >&2
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
    echo "upstream-alloctable: go test failed (exit $rc) outside the cases, see $log" >&2
    exit 2
fi
