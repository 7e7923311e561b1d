#!/bin/sh
# Regenerate simple-tests.jsonl from the npm package @bufbuild/cel-spec.
#
#   tests/cel-conformance/regen.sh            (from anywhere; needs node and npm)
#
# The package is installed into a scratch folder (never into the tree) and
# removed afterwards; only the converted file is kept under version control.
set -eu
VERSION=0.6.1
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/dra-cel-spec.XXXXXX")
trap 'rm -rf "$scratch"' EXIT INT TERM
npm install --silent --no-audit --no-fund --prefix "$scratch" "@bufbuild/cel-spec@$VERSION" >&2
node "$here/convert.mjs" "$scratch/node_modules/@bufbuild/cel-spec" > "$here/simple-tests.jsonl.tmp"
mv "$here/simple-tests.jsonl.tmp" "$here/simple-tests.jsonl"
echo "wrote $here/simple-tests.jsonl ($(wc -l < "$here/simple-tests.jsonl") cases, cel-spec $VERSION)" >&2
