#!/usr/bin/env bats
# The house rules: which folder of src/common may include which
# (scripts/layers.txt), checked by scripts/check-layers.
bats_require_minimum_version 1.5.0
load helpers

ROOT="$BATS_TEST_DIRNAME/../.."

# A copy of the library and the rules to break on purpose.
copy_tree() {
    T="$BATS_TEST_TMPDIR/tree"
    mkdir -p "$T/src" "$T/scripts"
    cp -r "$ROOT/src/common" "$T/src/common"
    cp "$ROOT/scripts/layers.txt" "$T/scripts/"
}

@test "src/common follows the layer rules and has no include circle" {
    run "$ROOT/scripts/check-layers"
    assert_success
    assert_line --regexp '^layers: [0-9]+ files, [0-9]+ includes, [0-9]+ rooms: ok '
}

@test "an engine including a client fails, naming file, line and rule" {
    copy_tree
    mkdir -p "$T/src/common/kube"
    printf '#pragma once\n' >"$T/src/common/kube/client.h"
    printf '#include "internal.h"\n#include "../kube/client.h"\n' >"$T/src/common/alloc/bad.c"
    run "$ROOT/scripts/check-layers" "$T"
    assert_failure 1
    assert_line 'src/common/alloc/bad.c:2: alloc may not include kube ("../kube/client.h"; see scripts/layers.txt)'
    assert_line --partial 'layers: 1 problem'
}

@test "an arrow pointing up fails, in either include style" {
    copy_tree
    printf '#include "alloc/alloc.h"\n' >"$T/src/common/model/bad.c"
    run "$ROOT/scripts/check-layers" "$T"
    assert_failure 1
    assert_line --partial 'src/common/model/bad.c:1: model may not include alloc'
}

@test "a folder that is not a room fails" {
    copy_tree
    mkdir -p "$T/src/common/misc"
    printf 'int x;\n' >"$T/src/common/misc/x.c"
    run "$ROOT/scripts/check-layers" "$T"
    assert_failure 1
    assert_line 'src/common/misc/: folder is not a room of scripts/layers.txt'
}

@test "rules that would allow a circle between folders are refused" {
    copy_tree
    sed -i 's/^base:.*/base: io/' "$T/scripts/layers.txt"
    run "$ROOT/scripts/check-layers" "$T"
    assert_failure 1
    assert_output --partial 'base may include io, which is not defined above it'
}

@test "an include circle between files of one folder fails" {
    copy_tree
    printf '#include "b.h"\n' >"$T/src/common/io/a.h"
    printf '#include "a.h"\n' >"$T/src/common/io/b.c"
    printf 'int b;\n' >"$T/src/common/io/b.h"
    run "$ROOT/scripts/check-layers" "$T"
    assert_failure 1
    assert_line 'src/common/io/: include circle between a.[ch], b.[ch]'
}
