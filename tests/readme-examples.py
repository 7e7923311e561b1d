#!/usr/bin/env python3
"""Run the README's examples and check they print what the README shows.

Usage: readme-examples.py README BINDIR

An example is an indented line "$ command" in README (a trailing backslash
continues it), followed by the lines it prints.  "..." (indented as the
output) stands for any number of lines.  Commands run with bash in a copy of
examples/ and tests/data/, from its root; "$ cd DIR" moves there until the
next heading.  Only the project's tools run: commands naming kubectl, a
socket, a REPL or a kubelet or cluster tool (dra-prepare, dra-watch,
dra-example-driver) are passed over.  What a command prints is its standard
output, then its standard error.  Prints one line per mismatch and a count;
exits 1 on a mismatch.
"""
import os
import shutil
import subprocess
import sys
import tempfile

SKIP_WORDS = ("kubectl", "dra-prepare", "dra-watch", "dra-example-driver", " repl", "hostname")


def examples(lines):
    """(heading index, command, expected lines, README line) for each example."""
    out, section, i = [], 0, 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#"):
            section += 1
        if line.startswith("    $ "):
            start = i + 1
            cmd = line[6:]
            while cmd.endswith("\\") and i + 1 < len(lines):
                i += 1
                cmd = cmd[:-1] + " " + lines[i].strip()
            want = []
            while i + 1 < len(lines) and lines[i + 1].startswith("    ") and not lines[i + 1].startswith("    $ "):
                i += 1
                want.append(lines[i][4:])
            out.append((section, cmd, want, start))
        i += 1
    return out


def matches(want, got):
    """Does got fit want, where a "..." line of want stands for any lines?"""
    memo = {}

    def m(a, b):
        if (a, b) in memo:
            return memo[(a, b)]
        if a == len(want):
            r = b == len(got)
        elif want[a].strip() == "...":
            r = any(m(a + 1, k) for k in range(b, len(got) + 1))
        else:
            r = b < len(got) and want[a] == got[b] and m(a + 1, b + 1)
        memo[(a, b)] = r
        return r

    return m(0, 0)


def main():
    readme, bindir = sys.argv[1], os.path.abspath(sys.argv[2])
    top = os.path.dirname(os.path.abspath(readme))
    with open(readme, encoding="utf-8") as f:
        lines = f.read().split("\n")
    work = tempfile.mkdtemp(prefix="readme-")
    shutil.copytree(os.path.join(top, "examples"), os.path.join(work, "examples"), symlinks=True)
    shutil.copytree(os.path.join(top, "tests", "data"), os.path.join(work, "tests", "data"), symlinks=True)
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
    cwd, section, checked, failed = work, None, 0, 0
    for sec, cmd, want, line in examples(lines):
        if sec != section:
            section, cwd = sec, work
        if cmd.startswith("cd "):
            cwd = os.path.normpath(os.path.join(cwd, cmd[3:].strip()))
            continue
        if not cmd.startswith("dra-") or any(w in cmd for w in SKIP_WORDS):
            continue
        if os.path.isdir(cwd):
            p = subprocess.run(["bash", "-c", cmd], cwd=cwd, env=env, capture_output=True, text=True)
            got = p.stdout.splitlines() + p.stderr.splitlines()
        else:
            got = [f"(no directory {os.path.relpath(cwd, work)})"]
        checked += 1
        if not matches(want, got):
            failed += 1
            print(f"{os.path.basename(readme)}:{line}: {cmd}\n  shown:\n" + "".join(f"    {w}\n" for w in want) +
                  "  printed:\n" + "".join(f"    {g}\n" for g in got), end="")
    shutil.rmtree(work)
    print(f"{checked} examples checked, {failed} differ")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
