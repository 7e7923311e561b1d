#!/usr/bin/env bash
# make upstream-check-validate: the differential suite of `dra-slice
# validate` against the Kubernetes 1.37.2 API server's own validation
# (tests/upstream/cmd/upstream-validate).  Needs build/bin/dra-slice (or
# $DRA_BIN/dra-slice) and the peers built by `make upstream` (or
# $UPSTREAM_BIN).  Extra arguments go to the suite (-seed N, -mutations N,
# -show N, -jobs N ...); scratch files and the full report go to
# build/upstream/validate/.
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 2
bin=${DRA_BIN:-$PWD/build/bin}
ubin=${UPSTREAM_BIN:-$PWD/build/upstream/bin}
for f in "$bin/dra-slice" "$ubin/upstream-validate" "$ubin/upstream-validate-diff"; do
    if [[ ! -x $f ]]; then
        echo "upstream-check-validate: $f is missing (make && make upstream)" >&2
        exit 2
    fi
done
exec "$ubin/upstream-validate-diff" -root . -dra-slice "$bin/dra-slice" -peer "$ubin/upstream-validate" \
    -work build/upstream/validate "$@"
