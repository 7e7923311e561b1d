#!/usr/bin/env bats
# Guards on the tree itself: the first command on a fresh machine, the
# sanitized sweep of every data file through every reader, the fuzz seed
# replay.
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
