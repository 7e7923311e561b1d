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
