#!/usr/bin/env bats
# The interface every tool shares: --help, --version, usage errors, output
# write failures, completions generated from the same option tables.
bats_require_minimum_version 1.5.0
load helpers

TOOLS="dra-slice dra-select dra-alloc dra-claim dra-evict dra-prepare dra-watch"

@test "every tool answers --help and --version with exit 0" {
    for t in $TOOLS; do
        run "$DRA_BIN/$t" --help
        assert_success
        assert_output --partial "Exit status"
        run "$DRA_BIN/$t" --version
        assert_success
        assert_output --regexp "^$t [0-9]+\.[0-9]+\.[0-9]+$"
    done
}

@test "unknown options are usage errors (exit 2) that name the option" {
    for t in $TOOLS; do
        run --separate-stderr "$DRA_BIN/$t" --no-such-option
        assert_failure 2
        [[ $stderr == *"unknown option '--no-such-option'"* ]]
        [[ -z $output ]]
    done
}

@test "an unknown option with a value is named without the value" {
    run --separate-stderr "$DRA_BIN/dra-slice" lint --bogus=1 x.yaml
    assert_failure 2
    [[ $stderr == *"unknown option '--bogus'"* ]]
}

@test "the committed completions are what the binaries generate" {
    for t in dra-slice dra-select dra-alloc dra-claim dra-evict dra-watch; do
        for sh in bash zsh fish; do
            case $sh in
            bash) f="$BATS_TEST_DIRNAME/../../completions/$t.bash" ;;
            zsh) f="$BATS_TEST_DIRNAME/../../completions/_$t" ;;
            fish) f="$BATS_TEST_DIRNAME/../../completions/$t.fish" ;;
            esac
            assert_file_exists "$f"
            run "$DRA_BIN/$t" --completion "$sh"
            assert_success
            [[ $output == "$(cat "$f")" ]] || { echo "$f is stale: regenerate with '$t --completion $sh'"; false; }
        done
    done
}

@test "bash completion scripts load and complete subcommands" {
    run bash -c "source '$BATS_TEST_DIRNAME/../../completions/dra-slice.bash'; COMP_WORDS=(dra-slice l); COMP_CWORD=1; _dra_slice; echo \"\${COMPREPLY[*]}\""
    assert_success
    assert_output "lint"
}

@test "an unknown shell for --completion is a usage error" {
    run "$DRA_BIN/dra-slice" --completion tcsh
    assert_failure 2
    assert_output --partial "unknown shell 'tcsh'"
}

@test "a failed write to stdout is an error (exit 3), not silent success" {
    [[ -w /dev/full ]] || skip "no /dev/full"
    run --separate-stderr bash -c "'$DRA_BIN/dra-slice' profile gpu --nodes 2 --devices 2 > /dev/full"
    assert_failure 3
    [[ $stderr == *"writing"* ]]
    run --separate-stderr bash -c "'$DRA_BIN/dra-slice' --help > /dev/full"
    assert_failure 3
}

@test "every man page is valid roff with NAME and EXIT STATUS" {
    command -v groff >/dev/null || skip "groff is not installed"
    for t in dra-slice dra-select dra-alloc dra-claim dra-evict dra-watch; do
        f="$BATS_TEST_DIRNAME/../../man/$t.1"
        assert_file_exists "$f"
        run --separate-stderr groff -man -Tutf8 -ww -z "$f"
        assert_success
        [[ -z $stderr ]] || { echo "$f: $stderr"; false; }
        run grep -c '^\.SH \(NAME\|SYNOPSIS\|DESCRIPTION\|EXIT STATUS\|EXAMPLES\)' "$f"
        assert_output 5
    done
}

@test "input formats: YAML stream, JSON List, JSON Lines and stdin give the same objects" {
    cd "$EXAMPLES/cluster"
    run "$DRA_BIN/dra-slice" validate slices.yaml
    assert_success
    "$DRA_BIN/dra-slice" build --driver gpu.example.com --node n1 ../inventory/node-c-gpus.yaml -o json >"$BATS_TEST_TMPDIR/list.json"
    "$DRA_BIN/dra-slice" build --driver gpu.example.com --node n1 ../inventory/node-c-gpus.yaml -o jsonl >"$BATS_TEST_TMPDIR/lines.jsonl"
    "$DRA_BIN/dra-slice" build --driver gpu.example.com --node n1 ../inventory/node-c-gpus.yaml -o yaml >"$BATS_TEST_TMPDIR/docs.yaml"
    for f in list.json lines.jsonl docs.yaml; do
        run "$DRA_BIN/dra-slice" validate "$BATS_TEST_TMPDIR/$f"
        assert_success
        "$DRA_BIN/dra-slice" build --driver gpu.example.com --node n1 "$BATS_TEST_TMPDIR/$f" -o jsonl >"$BATS_TEST_TMPDIR/$f.again"
        run diff "$BATS_TEST_TMPDIR/lines.jsonl" "$BATS_TEST_TMPDIR/$f.again"
        assert_success
    done
    run bash -c "'$DRA_BIN/dra-slice' validate - < '$BATS_TEST_TMPDIR/lines.jsonl'"
    assert_success
}

@test "a missing input file is an input error naming the file" {
    run --separate-stderr "$DRA_BIN/dra-slice" validate /no/such/file.yaml
    assert_failure 2
    [[ $stderr == *"/no/such/file.yaml: No such file or directory"* ]]
}

@test "malformed YAML names file and line; nothing reaches stdout" {
    printf 'apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: x\n spec: {}\n' >"$BATS_TEST_TMPDIR/bad.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$BATS_TEST_TMPDIR/bad.yaml"
    assert_failure 2
    [[ $stderr == *"bad.yaml:5"* ]]
    [[ -z $output ]]
}

@test "YAML alias bombs are refused" {
    {
        echo 'a: &a [x, x, x, x, x, x, x, x, x, x]'
        p=a
        for i in 1 2 3 4 5 6 7 8; do
            echo "b$i: &b$i [*$p, *$p, *$p, *$p, *$p, *$p, *$p, *$p, *$p, *$p]"
            p=b$i
        done
    } >"$BATS_TEST_TMPDIR/bomb.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$BATS_TEST_TMPDIR/bomb.yaml"
    assert_failure 2
    [[ $stderr == *"aliases expand to more than"* ]]
}

@test "make install puts binaries, man pages and completions under DESTDIR" {
    cd "$BATS_TEST_DIRNAME/../.."
    [[ -x build/bin/dra-slice ]] || skip "plain build not present"
    run make --no-print-directory install PREFIX=/usr DESTDIR="$BATS_TEST_TMPDIR/root"
    assert_success
    assert_file_executable "$BATS_TEST_TMPDIR/root/usr/bin/dra-slice"
    assert_file_exists "$BATS_TEST_TMPDIR/root/usr/share/man/man1/dra-slice.1"
    assert_file_exists "$BATS_TEST_TMPDIR/root/usr/share/bash-completion/completions/dra-slice"
    assert_file_exists "$BATS_TEST_TMPDIR/root/usr/share/zsh/site-functions/_dra-slice"
    assert_file_exists "$BATS_TEST_TMPDIR/root/usr/share/fish/vendor_completions.d/dra-slice.fish"
}

@test "the tree holds no fuzz corpus: files named by hash stay under build/" {
    cd "$BATS_TEST_DIRNAME/.."
    run find . -path ./cel-conformance/node -prune -o -type f -regextype posix-extended -regex '.*/[0-9a-f]{40}' -print
    assert_success
    assert_output ""
}

@test "a package pkg-config cannot find stops the build with its name" {
    cd "$BATS_TEST_DIRNAME/../.."
    run make -n --no-print-directory PKGS="jansson dra-no-such-package"
    assert_failure
    assert_output --partial "pkg-config cannot find: dra-no-such-package"
    run make -n --no-print-directory clean PKGS="dra-no-such-package"
    assert_success
}

@test "house rules the compiler cannot see: no extern declarations or (void)x; in .c files" {
    cd "$BATS_TEST_DIRNAME/../.."
    # prototypes belong in headers (-Wmissing-prototypes checks the rest)
    run grep -rnE '^[[:space:]]*extern[[:space:]]' src --include='*.c'
    assert_output ""
    # an unused parameter needs no cast (-Wno-unused-parameter); anything
    # else kept alive by one is dead code
    run grep -rnE '^[[:space:]]*\(void\)[[:space:]]*[A-Za-z_][A-Za-z0-9_]*[;,]' src --include='*.c'
    assert_output ""
}
