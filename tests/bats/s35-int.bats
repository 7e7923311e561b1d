#!/usr/bin/env bats
# Small fixes found while putting the tools together.

load helpers
bats_require_minimum_version 1.5.0

@test "--explain-file - writes the explanation to standard output, no file named -" {
    cd "$BATS_TEST_TMPDIR"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --explain-file - "$EXAMPLES/cluster/"
    [ ! -e ./- ]
    [[ $output == *"pod "* ]]
}
