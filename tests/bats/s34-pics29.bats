#!/usr/bin/env bats
# The HTML pages of dra-alloc: capacity -o html (the capacity report drawn:
# per class, per node, per pool, fragmentation) and schedule --explain=html
# (one pod: nodes x requests, why each device was refused).  The figures on
# a page are those -o json / --explain=json print; every input string is
# escaped; bad input is an error with no page.
load helpers
bats_require_minimum_version 1.5.0

C="$DATA/capacity/cluster.yaml"
INJ="$DATA/s34-pics29/inject.yaml"
NOW="--now 2026-01-01T00:00:00Z"

setup() {
    T=$BATS_TEST_TMPDIR
}

# The data-* attributes of the elements of a page matching a tag and one
# attribute present: one JSON object per element (python's html.parser).
attrs() { # file tag attribute
    python3 - "$@" <<'EOF'
import html.parser, json, sys
path, tag, key = sys.argv[1:4]
class P(html.parser.HTMLParser):
    def handle_starttag(self, t, a):
        a = dict(a)
        if t == tag and key in a:
            print(json.dumps({k: v for k, v in a.items() if k.startswith("data-")}, sort_keys=True))
P().feed(open(path, encoding="utf-8").read())
EOF
}

# Text of the summary row cells: "class k=v ..." per class.
summary_rows() { # file
    python3 - "$1" <<'EOF'
import html.parser, sys
class P(html.parser.HTMLParser):
    row = None; k = None; out = []
    def handle_starttag(self, t, a):
        a = dict(a)
        if t == "tr" and "data-class" in a:
            self.row = [a["data-class"]]
        if t == "td" and self.row is not None and "data-k" in a:
            self.k = a["data-k"]
    def handle_data(self, d):
        if self.k:
            self.row.append("%s=%s" % (self.k, d.split()[0])); self.k = None
    def handle_endtag(self, t):
        if t == "tr" and self.row:
            print(" ".join(self.row)); self.row = None
P().feed(open(sys.argv[1], encoding="utf-8").read())
EOF
}

@test "capacity -o html: one self-contained page: no script, nothing from a network" {
    run "$DRA_BIN/dra-alloc" capacity $NOW -o html "$C"
    assert_success
    assert_line --index 0 '<!DOCTYPE html>'
    assert_equal "$(grep -c '</html>' <<<"$output")" 1
    assert_output --partial "Content-Security-Policy\" content=\"default-src 'none'"
    refute_output --partial '<script'
    refute_output --regexp 'https?:'
    refute_output --partial '<link'
    for id in classes heatmap counters fragmentation; do
        assert_output --partial "<h2 id=\"$id\">"
    done
}

@test "capacity -o html: the class rows are the figures of -o json" {
    "$DRA_BIN/dra-alloc" capacity $NOW -o html "$C" >"$T/p.html"
    run summary_rows "$T/p.html"
    assert_success
    want=$("$DRA_BIN/dra-alloc" capacity $NOW -o json "$C" |
        jq -r '.classes[] | "\(.name) total=\(.total) allocated=\(.allocated) shared=\(.shared) tainted=\(.tainted) unhealthy=\(.unhealthy) blocked=\(.blocked) unusable=\(.unusable) free=\(.free) largestFit=\(.largestFit.devices)"')
    assert_output "$want"
    assert_line 'gpu total=10 allocated=3 shared=0 tainted=1 unhealthy=1 blocked=1 unusable=0 free=5 largestFit=3'
}

@test "capacity -o html: heat map cells are the rows of --by node, parts adding up to the total" {
    "$DRA_BIN/dra-alloc" capacity $NOW -o html "$C" >"$T/p.html"
    got=$(attrs "$T/p.html" td data-total | jq -c 'select(."data-total" != "0") | [."data-class", ."data-node", (."data-free"|tonumber), (."data-total"|tonumber)]')
    want=$("$DRA_BIN/dra-alloc" capacity $NOW -o json --by node "$C" |
        jq -c '.classes[] | .name as $c | .nodes[] | select(.total > 0) | [$c, .name, .free, .total]')
    assert_equal "$(sort <<<"$got")" "$(sort <<<"$want")"
    assert_equal "$(wc -l <<<"$got")" 3
    # every cell: free + used + tainted + other = total; one square per device
    attrs "$T/p.html" td data-total | jq -s -e 'map(select(."data-total" != "0")) | length == 3 and all(.[];
        ((."data-free"|tonumber) + (."data-used"|tonumber) + (."data-tainted"|tonumber) + (."data-other"|tonumber)) == (."data-total"|tonumber))' >/dev/null
    squares=$(grep -o '<rect class="\(free\|used\|tainted\|other\)" x=' "$T/p.html" | wc -l)
    total=$("$DRA_BIN/dra-alloc" capacity $NOW -o json --by node "$C" | jq '[.classes[].nodes[].total] | add')
    assert_equal "$squares" "$total"
}

@test "capacity -o html: one bar per shared counter, consumed = total - left of --by pool" {
    "$DRA_BIN/dra-alloc" capacity $NOW -o html "$C" >"$T/p.html"
    attrs "$T/p.html" tr data-counter | jq -r '[."data-counter-set", ."data-counter", ."data-consumed", ."data-capacity"] | join(" ")' >"$T/out"
    run cat "$T/out"
    assert_line 'gpu-0-cs memory 40Gi 80Gi'
    assert_line 'eth0 bandwidth 40G 100G'
    # every counter of every pool of --by pool, once (pools serve several classes)
    n=$("$DRA_BIN/dra-alloc" capacity $NOW -o json --by pool "$C" |
        jq '[.classes[].pools[] | {k: "\(.driver)/\(.pool)", c: ([.counterSets[] | .counters | length] + [.consumable[] | .capacity | length] | add // 0)}] | unique_by(.k) | map(.c) | add')
    assert_equal "${#lines[@]}" "$n"
}

@test "capacity -o html: fragmentation per class: free, nodes with free devices, the largest block" {
    "$DRA_BIN/dra-alloc" capacity $NOW -o html "$C" >"$T/p.html"
    attrs "$T/p.html" div data-largest | jq -r '[."data-class", ."data-free", ."data-nodes", ."data-largest"] | join(" ")' >"$T/out"
    run cat "$T/out"
    want=$("$DRA_BIN/dra-alloc" capacity $NOW -o json --by node "$C" |
        jq -r '.classes[] | "\(.name) \(.free) \([.nodes[] | select(.free > 0)] | length) \(.largestFit.devices)"')
    assert_output "$want"
    assert_line 'gpu 5 2 3'
}

@test "capacity -o html: every string from the input is escaped" {
    run "$DRA_BIN/dra-alloc" capacity --no-validate -o html "$INJ"
    assert_success
    refute_output --partial '<script'
    assert_output --partial '&lt;script&gt;alert(3)&lt;/script&gt;' # a DeviceClass
    assert_output --partial '&lt;script&gt;alert(4)&lt;/script&gt;' # a pool
    assert_output --partial '&lt;script&gt;alert(5)&lt;/script&gt;' # a counter set
    assert_output --partial 'data-class="&lt;script&gt;alert(3)&lt;/script&gt;"'
}

@test "capacity -o html: --fail-below still decides the exit code; a failed write is an error" {
    run --separate-stderr "$DRA_BIN/dra-alloc" capacity $NOW -o html --fail-below gpu=6 "$C"
    assert_failure 1
    assert_output --partial '</html>'
    run "$DRA_BIN/dra-alloc" capacity $NOW -o html "$C"
    assert_success
    run bash -c "'$DRA_BIN/dra-alloc' capacity $NOW -o html '$C' >/dev/full"
    assert_failure 3
    assert_output --partial 'error writing output'
}

@test "capacity: -o html is offered by --help and the completions" {
    run "$DRA_BIN/dra-alloc" capacity --help
    assert_success
    assert_output --partial 'html'
    run "$DRA_BIN/dra-alloc" --completion bash
    assert_output --partial 'table yaml json jsonl html'
}

@test "schedule --explain=html: the first unschedulable pod, nodes x requests, the refusals of --explain=json" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --explain=html --explain-file "$T/e.html" "$EXAMPLES/cluster"
    assert_failure 1
    # the verdicts stay on stderr when the page goes to a file
    [[ $stderr == *"pod default/fast-path: 0/2 nodes are available"* ]]
    run grep -c '<title>dra-alloc schedule: pod default/fast-path</title>' "$T/e.html"
    assert_output 1
    attrs "$T/e.html" td data-refused | jq -r 'select(."data-refused" != "0") | [."data-node", ."data-request", ."data-refused"] | join(" ")' >"$T/out"
    run sort "$T/out"
    # per node and request, the devices --explain=json lists as rejected
    want=$("$DRA_BIN/dra-alloc" schedule --explain=json "$EXAMPLES/cluster" 2>&1 >/dev/null |
        jq -r 'select(.pod == "default/fast-path") | .nodes[] | .node as $n | .allocator.claims[] | .claim as $c |
            .requests[] | select(.rejected | length > 0) | "\($n) \($c) / \(.request) \(.rejected | length)"' | sort)
    assert_output "$want"
    assert_equal "${#lines[@]}" 3
    assert_line --regexp '^node-a default/fast-path-devices-[a-z0-9]+ / gpu 2$'
    attrs "$T/e.html" tr data-verdict | jq -r '[."data-node", ."data-verdict"] | join(" ")' >"$T/out"
    run cat "$T/out"
    assert_output $'node-a refused\nnode-b refused'
    run grep -c 'not reached: the search stopped at an earlier request' "$T/e.html"
    assert_output 1
    grep -q '<b>in-use</b>: allocated to claim default/trainer-gpu-' "$T/e.html"
}

@test "schedule --explain=html: on stderr alone by default; --pod picks the pod" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --explain=html --pod default/inference "$EXAMPLES/cluster"
    assert_failure 1 # fast-path still fits nowhere
    [[ $stderr == '<!DOCTYPE html>'* ]]
    [[ $stderr == *'<title>dra-alloc schedule: pod default/inference</title>'* ]]
    [[ $stderr != *'dra-alloc: pod'* ]]
    [[ $stderr == *'data-node="node-a" data-verdict="fits"'* ]]
    [[ $output == *'kind: ResourceClaim'* ]]
}

@test "schedule --explain=html: every string from the input is escaped" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --no-validate --explain=html "$INJ"
    assert_failure 1
    [[ $stderr != *'<script'* ]]
    [[ $stderr == *'&lt;script&gt;alert(1)&lt;/script&gt;'* ]]
    [[ $stderr == *'&lt;script&gt;alert(4)&lt;/script&gt;'* ]]
}

@test "schedule --explain=html: a pod that is not there is an input error, with no page and no objects" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --explain=html --explain-file "$T/e.html" --pod default/nope "$EXAMPLES/cluster"
    assert_failure 2
    assert_output ''
    [[ $stderr == *"dra-alloc: --pod default/nope: no pending pod of that namespace/name in the input (3 pending pods)"* ]]
    assert_file_not_exists "$T/e.html"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --explain=html --pod nope "$EXAMPLES/cluster"
    assert_failure 2
    assert_output ''
    [[ $stderr != *'<html'* ]]
}

@test "schedule --explain=html: no unschedulable pod and no --pod is an input error" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --explain=html "$C"
    assert_failure 2
    assert_output ''
    [[ $stderr == *'--explain=html: no pod is unschedulable (0 pending pods); name one with --pod NS/NAME'* ]]
}

@test "schedule: --pod without --explain=html, and allocate --explain=html, are refused" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --pod default/trainer "$EXAMPLES/cluster"
    assert_failure 2
    [[ $stderr == *'--pod: only with --explain=html'* ]]
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --explain=json --pod default/trainer "$EXAMPLES/cluster"
    assert_failure 2
    run --separate-stderr "$DRA_BIN/dra-alloc" allocate --node node-a --explain=html "$EXAMPLES/cluster"
    assert_failure 2
    [[ $stderr == *'unknown format html'* ]]
}
