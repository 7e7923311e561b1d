#!/usr/bin/env bats
# Guards on the tree itself: the first command on a fresh machine, the fuzz
# seed replay, the sweep of every data file through every reader.
bats_require_minimum_version 1.5.0
load helpers

TOP="$BATS_TEST_DIRNAME/../.."

# fresh_make MODE ARGS...: `make ARGS` as on a machine without the packages.
# MODE libdir: pkg-config searches an empty directory; MODE fake: a
# pkg-config that fails is first on PATH.  The outer make's flags (make
# check runs this file) are not passed on.
fresh_make() {
    local mode=$1
    shift
    local empty=$BATS_TEST_TMPDIR/empty
    mkdir -p "$empty/bin"
    printf '#!/bin/sh\nexit 1\n' >"$empty/bin/pkg-config"
    chmod +x "$empty/bin/pkg-config"
    case $mode in
    libdir) run env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL PKG_CONFIG_LIBDIR="$empty" PKG_CONFIG_PATH= \
        make -C "$TOP" --no-print-directory "$@" ;;
    fake) run env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL PATH="$empty/bin:$PATH" \
        make -C "$TOP" --no-print-directory "$@" ;;
    esac
}

@test "fresh machine: make demo and make check install the packages first, then build and run" {
    local mode goal last
    for mode in libdir fake; do
        for goal in demo check; do
            case $goal in
            demo) last=examples/demo.sh ;;
            check) last=tests/run-tests.sh ;;
            esac
            fresh_make "$mode" -n -B "$goal"
            [[ $status -eq 0 ]] || { echo "$mode make -n $goal: exit $status: $output"; return 1; }
            [[ $output != *"pkg-config cannot find"* ]] || { echo "$mode make -n $goal: $output"; return 1; }
            # the dependency step, then the build, then the goal's own work
            [[ $output == *"scripts/install-deps.sh"*"-c src/common/"*"$last"* ]] ||
                { echo "$mode make -n $goal: not install, build, $last in: $output"; return 1; }
        done
    done
}

@test "fresh machine: other goals still stop naming the missing packages" {
    fresh_make libdir -n all
    assert_failure
    assert_output --partial "pkg-config cannot find: yaml-0.1 jansson"
    assert_output --partial "make deps"
}

@test "with the packages present, make check does not run the package installer" {
    run env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$TOP" --no-print-directory -n check
    assert_success
    refute_output --partial "install-deps.sh"
}

@test "fresh machine: make demo really installs, then builds and runs the demo" {
    [[ -x $TOP/build/bin/dra-slice ]] || skip "plain build not present"
    local d=$BATS_TEST_TMPDIR/fresh
    mkdir -p "$d/bin"
    # pkg-config finds nothing until the installer has run
    printf '#!/bin/sh\n[ -e %q ] || exit 1\nexec %q "$@"\n' "$d/installed" "$(command -v pkg-config)" >"$d/bin/pkg-config"
    printf '#!/bin/sh\necho fake installer ran\ntouch %q\n' "$d/installed" >"$d/install"
    chmod +x "$d/bin/pkg-config" "$d/install"
    run env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL PATH="$d/bin:$PATH" \
        make -C "$TOP" --no-print-directory demo INSTALL_DEPS="$d/install"
    assert_success
    assert_line "fake installer ran"
    assert_output --partial "1. Validate every object of the example cluster"
}

# ---- the fuzz seed replay -----------------------------------------------------------

@test "replay: every fuzz target has seeds and a replay binary in this build" {
    local f name
    for f in "$TOP"/tests/fuzz/fuzz_*.c; do
        name=$(basename "$f" .c)
        compgen -G "$TOP/tests/fuzz/seeds/${name#fuzz_}/*" >/dev/null ||
            { echo "$name has no seeds in tests/fuzz/seeds/${name#fuzz_}/"; return 1; }
        [[ -x $DRA_BIN/../fuzz-replay/$name ]] || { echo "$DRA_BIN/../fuzz-replay/$name is not built"; return 1; }
    done
}

@test "replay: the driver calls LLVMFuzzerInitialize first, then each input in a block of its exact size" {
    local lib=$DRA_BIN/../lib/libdra.a san=
    [[ -e $lib ]] || skip "no libdra.a beside $DRA_BIN"
    [[ $DRA_BIN == */san/* ]] && san=-fsanitize=address,undefined
    cat >"$BATS_TEST_TMPDIR/t.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include "fuzz.h"
static int ready;
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    printf("init %d\n", *argc);
    ready = 1;
    return 0;
}
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!ready)
        abort();
    printf("input %zu", size);
    if (getenv("READ_PAST_END") && data[size] == 0x7f) /* a sanitizer must stop this */
        printf(" (past the end)");
    if (size)
        printf(" last %c", data[size - 1]); /* the last byte is the file's */
    printf("\n");
    return 0;
}
C
    # shellcheck disable=SC2046 # pkg-config's flags are words
    run cc -std=c17 $san -I"$TOP/src/common" -I"$TOP/tests/fuzz" -o "$BATS_TEST_TMPDIR/t" \
        "$TOP/tests/fuzz/replay.c" "$BATS_TEST_TMPDIR/t.c" "$lib" $(pkg-config --libs jansson yaml-0.1 libpcre2-8) -lm
    assert_success
    printf 'abc' >"$BATS_TEST_TMPDIR/a"
    : >"$BATS_TEST_TMPDIR/empty"
    run --separate-stderr "$BATS_TEST_TMPDIR/t" "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/empty"
    assert_success
    assert_equal "$output" $'init 3\ninput 3 last c\ninput 0\n2 inputs'
    [[ $stderr == *"input $BATS_TEST_TMPDIR/a (3 bytes)"* ]]
    run --separate-stderr "$BATS_TEST_TMPDIR/t" "$BATS_TEST_TMPDIR/no-such"
    assert_failure 2
    [[ $stderr == *"no-such"* ]]
    if [[ -n $san ]]; then
        run --separate-stderr env READ_PAST_END=1 "$BATS_TEST_TMPDIR/t" "$BATS_TEST_TMPDIR/a"
        assert_failure
        [[ $stderr == *heap-buffer-overflow* ]]
    fi
}

@test "replay: a target without seeds and a crashing input fail, named, in the closing count" {
    local d=$BATS_TEST_TMPDIR/replay
    mkdir -p "$d"
    printf '#!/bin/sh\necho "$# inputs"\n' >"$d/fuzz_dra_no_such_target"
    # a stand-in for fuzz_cdi that crashes on its second seed
    printf '#!/bin/sh\necho "input $1" >&2\necho "input $2" >&2\nkill -SEGV $$\n' >"$d/fuzz_cdi"
    chmod +x "$d"/fuzz_*
    run env DRA_FUZZ_REPLAY="$d" "$TOP/tests/run-tests.sh" --replay-only
    assert_failure 1
    assert_line "FAIL replay fuzz_dra_no_such_target: no seeds in tests/fuzz/seeds/dra_no_such_target/"
    assert_line --regexp '^FAIL replay fuzz_cdi \(exit 139\):$'
    assert_line --regexp '^input tests/fuzz/seeds/cdi/'
    assert_line "0 passed, 2 failed"
}

# ---- the sweep ------------------------------------------------------------------------

# A tree of files and a table of stand-in commands, one per way a run can end.
sweep_fixture() {
    local d=$BATS_TEST_TMPDIR/sw
    mkdir -p "$d/bin" "$d/data/sub"
    ln -sf "$DRA_BIN/dra-example-driver" "$d/bin/dra-example-driver"
    cat >"$d/bin/tool" <<'SH'
#!/bin/sh
log=$(printf '%s' "$ASAN_OPTIONS" | sed -n 's/.*log_path=\([^:]*\).*/\1/p')
case $1 in
code) exit "$2" ;;
segv) kill -SEGV $$ ;;
san) echo "ERROR: AddressSanitizer: heap-use-after-free (stand-in)" >"$log.$$"; exit 97 ;;
sanlog) echo "runtime error: stand-in" >"$log.$$"; exit 0 ;;
hang) exec sleep 30 ;;
esac
SH
    chmod +x "$d/bin/tool"
    for f in a.ok b.crash c.code d.san e.sanlog f.hang; do echo x >"$d/data/$f"; done
    cat >"$d/table" <<'T'
# stand-ins
@all = *
%codes = 0 | 3
@all       tool code {%codes} {}
*.crash    tool segv {}
*.code     tool code 7 {}
*.san      tool san {}
*.sanlog   tool sanlog {}
*.hang     tool hang {}
*/         tool code 1 {}
*.ok       tool code 2 {} | cat
T
}

@test "sweep: exit statuses 0-3 pass; a signal, another status, a sanitizer report or a time-out fails, named" {
    sweep_fixture
    local d=$BATS_TEST_TMPDIR/sw
    run "$TOP/tests/sweep/run.sh" --bin "$d/bin" --table "$d/table" --root "$d/data" --timeout 2 -j 2
    assert_failure 1
    assert_line "sweep: 6 files and 1 directories x 9 commands = 19 runs (${d#"$TOP"/}/bin, 2 at a time)"
    assert_line "FAIL sweep ($d/table:5): tool segv $d/data/b.crash: killed by signal 11 (SIGSEGV)"
    assert_line "FAIL sweep ($d/table:6): tool code 7 $d/data/c.code: exit 7 (outside 0-3)"
    assert_line "FAIL sweep ($d/table:7): tool san $d/data/d.san: sanitizer report (exit 97)"
    assert_line "    ERROR: AddressSanitizer: heap-use-after-free (stand-in)"
    assert_line "FAIL sweep ($d/table:8): tool sanlog $d/data/e.sanlog: sanitizer report (exit 0)"
    assert_line "FAIL sweep ($d/table:9): tool hang $d/data/f.hang: no answer within 2 s"
    refute_output --partial "a.ok"
    refute_output --partial "data/sub"
    refute_output --partial "Segmentation fault"
    assert_line --regexp '^sweep: 19 runs in [0-9]+ s, 5 failed$'
    # code 0, code 3, the directory and the pipeline pass, and the shared driver
    assert_line "5 passed, 5 failed"
}

@test "sweep: --list prints each run's command line, the path quoted" {
    sweep_fixture
    local d=$BATS_TEST_TMPDIR/sw
    mkdir -p "$d/data/with space"
    echo x >"$d/data/with space/g.code"
    run "$TOP/tests/sweep/run.sh" --bin "$d/bin" --table "$d/table" --root "$d/data" --list --only 'code 7'
    assert_success
    assert_output "tool code 7 $d/data/c.code
tool code 7 $d/data/with\\ space/g.code"
    run "$TOP/tests/sweep/run.sh" --table "$d/no-such-table"
    assert_failure 2
    printf '@all = *\nbad-line-without-command\n' >"$d/bad"
    run "$TOP/tests/sweep/run.sh" --table "$d/bad" --root "$d/data" --list
    assert_failure 2
    assert_output --partial "$d/bad:2: want SCOPE COMMAND"
}

@test "sweep: the table has a line for every subcommand and file option the tools' --help lists" {
    # the table, and the script it runs the example driver with
    local table=$BATS_TEST_TMPDIR/table t c o cmds
    cat "$TOP/tests/sweep/commands" "$TOP/tests/sweep/driver-probe" >"$table"
    # readers of nothing but the command line, a server or a socket
    local -A none=([dra-slice profile]=generates [dra-select check]="expressions only"
        [dra-prepare health]="a socket's stream" [dra-watch snapshot]="a server"
        [dra-watch record]="a server; writes FILE")
    local -A not_files=([--socket]=socket [--reg-socket]=socket [--plugins-dir]=sockets [--registry-dir]=sockets
        ["dra-example-driver --plugin-dir"]=written ["dra-example-driver --cdi-dir"]=written)
    for t in dra-slice dra-select dra-alloc dra-claim dra-evict dra-prepare dra-watch dra-example-driver; do
        cmds=$("$DRA_BIN/$t" --help | awk '/^Commands:/ { f = 1; next } /^$/ { f = 0 } f { print $1 }')
        grep -qE "(^|[ |;&(])$t( |$)" "$table" || { echo "no line runs $t"; return 1; }
        for c in $cmds; do
            [[ -n ${none[$t $c]+x} ]] && continue
            grep -qE "(^|[ |;&(])$t $c( |$)" "$table" || { echo "no line runs $t $c"; return 1; }
        done
        for c in "" $cmds; do
            for o in $("$DRA_BIN/$t" $c --help | grep -oE -- '--[a-z-]+ (FILE|DIR|PATH)' | awk '{ print $1 }'); do
                [[ -n ${not_files[$o]+x} || -n ${not_files[$t $o]+x} ]] && continue
                grep -qE -- "(^|[ |;&(])$t( [^|;&]*)? $o( |$)" "$table" ||
                    { echo "no line gives $t${c:+ $c} $o a file"; return 1; }
            done
        done
    done
}

# ---- make fuzz ------------------------------------------------------------------------

@test "make fuzz: each target's time and executions, printed and as a table in summary.md" {
    local d=$BATS_TEST_TMPDIR/fz
    mkdir -p "$d"
    # stand-ins printing what libFuzzer prints with -print_final_stats=1
    printf '#!/bin/sh\necho "#4096 DONE cov: 812 ft: 900 corp: 40/2Kb exec/s: 2048"\necho "stat::number_of_executed_units: 4096"\necho "stat::average_exec_per_sec:     2048"\n' >"$d/fuzz_semver"
    printf '#!/bin/sh\necho "stat::number_of_executed_units: 17"\nexit 77\n' >"$d/fuzz_cdi"
    chmod +x "$d"/fuzz_*
    run env FUZZ_OUT="$d/out" FUZZ_SECONDS=1 "$TOP/tests/fuzz/run.sh" "$d/fuzz_semver" "$d/fuzz_cdi"
    assert_failure 1
    assert_line --regexp '^fuzz_semver: 4096 executions in [0-9.]+ s \(2048/s\), corpus [0-9]+, coverage 812, no crashes$'
    assert_line --regexp "^fuzz_cdi: CRASH after 17 executions in [0-9.]+ s \\(see $d/out/fuzz_cdi.log\\)$"
    assert_line --regexp "^fuzz: 2 targets, 4113 executions in [0-9.]+ s; table in $d/out/summary.md$"
    run cat "$d/out/summary.md"
    assert_line "| target | seconds | executions | exec/s | corpus | coverage | result |"
    assert_line --regexp '^\| fuzz_semver \| [0-9.]+ \| 4096 \| 2048 \| [0-9]+ \| 812 \| no crashes \|$'
    assert_line --regexp '^\| fuzz_cdi \| [0-9.]+ \| 17 \| \? \| [0-9]+ \| \? \| CRASH'
    assert_line --regexp '^\| all 2 targets \| [0-9.]+ \| 4113 \|'
    # the tree is only read: the seeds went to the copy
    assert_file_exists "$d/out/corpus/fuzz_semver/1_2_3"
}
