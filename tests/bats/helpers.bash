# Shared set-up for every bats file: `load helpers`.
bats_load_library bats-support
bats_load_library bats-assert
bats_load_library bats-file

: "${DRA_BIN:=$BATS_TEST_DIRNAME/../../build/bin}"
export DRA_BIN
# shellcheck disable=SC2034 # for the bats files that load this one
DATA="$BATS_TEST_DIRNAME/../data"
# shellcheck disable=SC2034
EXAMPLES="$BATS_TEST_DIRNAME/../../examples"

# The tools never print ANSI escapes or use a pager; keep locale stable.
export LC_ALL=C.UTF-8

# watch_backoff BASE_MS CAP_MS: from here on the test's dra-watch retries
# after BASE_MS (doubling, jittered) up to CAP_MS instead of client-go's
# waits.  DRA_BIN becomes a folder of the test with links to the tools and a
# dra-watch that passes its hidden --test-backoff-* options after the
# subcommand (the tools themselves read no environment for it).
watch_backoff() {
    local real=${DRA_REAL_BIN:-$DRA_BIN} d="$BATS_TEST_TMPDIR/watch-bin" t
    mkdir -p "$d"
    for t in "$real"/*; do ln -sfn "$t" "$d/"; done
    rm -f "$d/dra-watch"
    cat >"$d/dra-watch" <<SH
#!/bin/sh
case "\$1" in
get | snapshot | record | run)
    c=\$1
    shift
    exec "$real/dra-watch" "\$c" --test-backoff-base-ms $1 --test-backoff-cap-ms $2 "\$@"
    ;;
esac
exec "$real/dra-watch" "\$@"
SH
    chmod +x "$d/dra-watch"
    DRA_REAL_BIN=$real DRA_BIN=$d
    export DRA_BIN DRA_REAL_BIN
}
