#!/usr/bin/env bash
# Regenerate NAME.expected for every NAME.jsonl here (or the names given)
# from the API server's own code: upstream-validate (tests/upstream/cmd,
# built by `make upstream`) with the arguments in NAME.args, if any.
# The fixture's path is written as FILE; warnings are left out; sorted,
# since upstream ranges over maps.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
peer=${UPSTREAM_BIN:-$here/../../../build/upstream/bin}/upstream-validate
cd "$here"
names=("$@")
[[ ${#names[@]} -gt 0 ]] || for f in *.jsonl; do names+=("${f%.jsonl}"); done
for n in "${names[@]}"; do
    args=()
    [[ -f $n.args ]] && read -ra args <"$n.args"
    "$peer" "${args[@]}" "$n.jsonl" 2>&1 >/dev/null | grep -v '^upstream-validate: warning: ' |
        sed "s|^upstream-validate: $n.jsonl:|dra-slice: FILE:|" | LC_ALL=C sort >"$n.expected" || true
done
