#!/bin/sh
# Regenerate cases.jsonl: install @bufbuild/cel (package.json pins the
# versions) into tests/cel-diff/node_modules (ignored by git), then generate
# 20,000 cases with the fixed seed.  Same seed and versions, same file.
#
#   tests/cel-diff/regen.sh            (from anywhere; needs node >= 18 and npm)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
npm install --silent --no-audit --no-fund --no-package-lock >&2
node gen.mjs --seed 20250901 --count 20000 > cases.jsonl.tmp
mv cases.jsonl.tmp cases.jsonl
echo "wrote $here/cases.jsonl ($(wc -l < cases.jsonl) cases)" >&2
