#!/usr/bin/env python3
"""Run the examples of the README and of the man pages, and check that they
print what the text shows.

Usage: readme-examples.py [-v] DOC... BINDIR

DOC is README.md or another Markdown page such as doc/running-in-a-cluster.md
(its indented blocks) or a man page man/*.1 (the .EX/.EE
and .nf/.fi blocks of its EXAMPLES section, roff escapes undone).  In a
block, "$ command" lines are commands (a trailing backslash continues one)
and the lines after one are what it prints: its standard output, then its
standard error; a line "..." stands for any number of lines and "..." in a
line for any text (times, versions, paths).  A block without "$" lines runs
every line whose first word is a command (dra-*, kubectl, make, cd, export
or an assignment; "#" lines are comments) and shows no output.

Commands run with bash in a scratch copy of examples/ and tests/data/, one
shell per README section and per man page, starting at the copy's root (a
"cd" moves until the section ends; variables and background jobs last as
long), with the tools of BINDIR first in PATH, "set -o pipefail", and
KUBECONFIG naming the test API server (tests/apiserver) loaded with
examples/cluster, so kubectl and dra-watch examples talk to it.  A command
passes when it prints what is shown (when something is) and exits 0 or 1
(1 is a negative answer of the tools, so not with kubectl); one that runs until stopped (a watch, a loop, a
health stream) passes when it is still running after a few seconds.
Commands that need a real node or the build itself are passed over, each
named with the reason.  Prints one line per mismatch (with -v, one
"ok FILE:LINE: exit N" line per command that passed too), the commands passed
over, "N examples checked, N differ" and "N passed, N failed, N skipped";
exits 1 on a mismatch.
"""
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

# What a stand-in cannot provide: (pattern, reason).  Checked in order.
SKIPS = (
    (r"^make\b", "the build itself (make doc-check runs make demo's script first; CI runs make check)"),
    (r"/var/lib/kubelet|/var/lib/dra-prepare|/var/run/cdi|/etc/cdi|\bNODE_NAME\b",
     "needs a real node (kubelet plugin registry, CDI directories)"),
    (r"\bdra-prepare cdi\b(?!.*--cdi-dir)", "reads the node's CDI specs (/etc/cdi, /var/run/cdi)"),
    (r"\brepl\b", "interactive (tests/bats/dra-select-repl.bats runs it in a terminal)"),
    (r"--source [a-z,]*nvidia(?![^|]*--nvidia-smi)", "needs nvidia-smi and NVIDIA GPUs"),
    (r"\bmail\b", "a cron job that mails its report"),
    (r"\bkubectl\b.*(-k deploy/|-n dra-(system|node)\b)",
     "deploy/ on a real API server (make upstream-check-cluster-client applies it to kube-apiserver)"),
)
# Commands that run until stopped: (pattern).
LONG = (r"\bdra-watch get\b.* -w\b", r"\bdra-watch run\b(?!.*--once)", r"\bdra-prepare health\b")
COMMAND = re.compile(r"^(dra-[a-z-]+|kubectl|make|cd|export|[A-Za-z_][A-Za-z_0-9]*=\S*)(\s|$)")
WAIT = 180  # seconds a command may take (sanitized builds on a busy machine)
LONG_WAIT = 3  # seconds a long-running command runs before it is stopped


def readme_blocks(lines):
    """(section, first line number, lines) of each indented block."""
    out, section, i = [], 0, 0
    while i < len(lines):
        if lines[i].startswith("#"):
            section += 1
        if lines[i].startswith("    ") and (i == 0 or not lines[i - 1].strip()):
            start, block = i + 1, []
            while i < len(lines) and (lines[i].startswith("    ") or
                                      (not lines[i].strip() and i + 1 < len(lines) and
                                       lines[i + 1].startswith("    "))):
                block.append(lines[i][4:])
                i += 1
            out.append((section, start, block))
            continue
        i += 1
    return out


def unroff(s):
    s = s.replace("\\\\", "\x00").replace("\\e", "\\").replace("\\-", "-").replace("\\&", "")
    s = s.replace("\\(aq", "'").replace("\\(dq", '"').replace("\\(ti", "~").replace("\\(ha", "^")
    return s.replace("\x00", "\\")


def man_blocks(lines):
    """(0, first line number, lines) of each .EX/.EE or .nf/.fi block of EXAMPLES."""
    out, inside, block, start = [], False, None, 0
    for n, line in enumerate(lines, 1):
        if line.startswith(".SH"):
            inside = line.split(None, 1)[1:] in (["EXAMPLES"], ["EXAMPLE"])
            continue
        if not inside:
            continue
        if line.startswith((".EX", ".nf")):
            block, start = [], n + 1
        elif line.startswith((".EE", ".fi")) and block is not None:
            while block and not block[-1].strip():
                block.pop()
            out.append((0, start, block))
            block = None
        elif block is not None and not line.startswith((".", "'")):
            block.append(unroff(line))
    # a common indent is not part of the commands
    res = []
    for sec, start, block in out:
        ind = min((len(b) - len(b.lstrip()) for b in block if b.strip()), default=0)
        res.append((sec, start, [b[ind:] for b in block]))
    return res


def joined(block, i):
    """The command starting at block[i] with its continuation lines (after a
    backslash, a pipe or && / ||), and the next index."""
    cmd = block[i]
    while re.search(r"(\\|\||&&)$", cmd.rstrip()) and i + 1 < len(block):
        i += 1
        cmd += "\n" + block[i]
    return cmd, i + 1


def examples(block, start):
    """(command, expected lines or None, line number) of one block."""
    out = []
    if any(b.startswith("$ ") for b in block):
        i = 0
        while i < len(block):
            if not block[i].startswith("$ "):
                i += 1
                continue
            line = start + i
            block[i] = block[i][2:]
            cmd, i = joined(block, i)
            want = []
            while i < len(block) and not block[i].startswith("$ "):
                want.append(block[i])
                i += 1
            while want and not want[-1].strip():
                want.pop()
            out.append((cmd, want, line))
        return out
    if block and block[0].startswith("#!"):
        return [("\n".join(block), None, start)]  # a script, run (or passed over) whole
    i = 0
    while i < len(block):
        if COMMAND.match(block[i]):
            line = start + i
            cmd, i = joined(block, i)
            out.append((cmd, None, line))
        else:
            i += 1
    return out


def show(cmd):
    return cmd.replace("\n", "\n    ")


def line_fits(want, got):
    if "..." not in want:
        return want == got
    return re.fullmatch(".*".join(re.escape(p) for p in want.split("...")), got, re.S) is not None


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
            r = b < len(got) and line_fits(want[a], got[b]) and m(a + 1, b + 1)
        memo[(a, b)] = r
        return r

    return m(0, 0)


class Shell:
    """One bash for a section: commands run in it one at a time."""

    def __init__(self, root, env, scratch):
        self.scratch, self.n = scratch, 0
        self.p = subprocess.Popen(["bash", "--norc", "--noprofile"], cwd=root, env=env, text=True,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  start_new_session=True)
        self.send("set -o pipefail\n")

    def send(self, text):
        self.p.stdin.write(text)
        self.p.stdin.flush()

    def run(self, cmd, long):
        """(exit status or None when it did not end, stdout+stderr lines)."""
        self.n += 1
        out, err = (os.path.join(self.scratch, f"{self.n}.{x}") for x in ("out", "err"))
        if long:
            # run it in the background for a while, then stop it
            self.send(f"{{ {cmd}\n}} >{out} 2>{err} </dev/null & __p=$!; sleep {LONG_WAIT}; "
                      f"if kill -0 $__p 2>/dev/null; then kill -INT $__p; __rc=running; "
                      # up to 2 s to end on SIGINT (a loaded machine is slow), then
                      # SIGKILL; reaped here, so the shell's "Killed" notice never
                      # lands in a later command's output
                      f"for __i in 1 2 3 4 5 6 7 8 9 10; do kill -0 $__p 2>/dev/null || break; sleep 0.2; done; "
                      f"{{ kill -KILL $__p; wait $__p; }} 2>/dev/null; else wait $__p; __rc=$?; fi; "
                      f"echo \"__done $__rc\"\n")
        else:
            pre = pause = ""
            if re.search(r"[^&]&\s*(#.*)?$", cmd):
                # a job put in the background (a driver) gets up to 20 s to
                # make its two sockets (plugin and registration) under TMPDIR
                pre = "__n=$(find \"$TMPDIR\" -type s | wc -l); "
                pause = ("; for __i in $(seq 200); do [ $(find \"$TMPDIR\" -type s | wc -l) -ge $((__n + 2)) ] "
                         "&& break; sleep 0.1; done")
            self.send(f"{pre}{{ {cmd}\n}} >{out} 2>{err} </dev/null; __rc=$?{pause}; echo \"__done $__rc\"\n")
        deadline, line = time.monotonic() + WAIT + LONG_WAIT, ""
        while time.monotonic() < deadline:
            r, _, _ = select.select([self.p.stdout], [], [], 1)
            if r:
                line = self.p.stdout.readline()
                if not line or line.startswith("__done"):
                    break
        text = []
        for f in (out, err):
            if os.path.exists(f):
                with open(f, encoding="utf-8", errors="replace") as fh:
                    text += fh.read().splitlines()
        if not line.startswith("__done"):
            self.close()
            return "timeout", text
        rc = line.split()[1]
        return rc, text

    def close(self):
        try:
            os.killpg(self.p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.p.wait()


def start_apiserver(top, work, env):
    """Start the test API server with examples/cluster loaded; KUBECONFIG, or None and why."""
    d = os.path.join(work, ".apiserver")
    args = [sys.executable, os.path.join(top, "tests", "apiserver", "apiserver.py"), "--dir", d]
    for f in sorted(os.listdir(os.path.join(top, "examples", "cluster"))):
        if f.endswith(".yaml"):
            args += ["--load", os.path.join(top, "examples", "cluster", f)]
    os.makedirs(d)
    log = open(os.path.join(d, "log"), "w")
    p = subprocess.Popen(args, stdout=log, stderr=log, env=env, start_new_session=True)
    for _ in range(300):
        if os.path.exists(os.path.join(d, "port")) and os.path.getsize(os.path.join(d, "port")):
            return p, os.path.join(d, "kubeconfig"), None
        if p.poll() is not None:
            break
        time.sleep(0.1)
    p.kill()
    with open(os.path.join(d, "log"), encoding="utf-8", errors="replace") as fh:
        return None, None, "the test API server did not start: " + fh.read().strip()[-200:]


def main():
    args = sys.argv[1:]
    verbose = bool(args) and args[0] == "-v"
    if verbose:
        args = args[1:]
    if len(args) < 2:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    docs, bindir = args[:-1], os.path.abspath(args[-1])
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    work = tempfile.mkdtemp(prefix="doc-examples-")
    root = os.path.join(work, "root")
    shutil.copytree(os.path.join(top, "examples"), os.path.join(root, "examples"), symlinks=True)
    shutil.copytree(os.path.join(top, "tests", "data"), os.path.join(root, "tests", "data"), symlinks=True)
    scratch = os.path.join(work, ".out")
    os.makedirs(scratch)
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""), LC_ALL="C.UTF-8")
    env.pop("KUBECONFIG", None)
    env["TMPDIR"] = os.path.join(work, ".tmp")  # mktemp -d of the examples, removed at the end
    os.makedirs(env["TMPDIR"])
    api, kubeconfig, api_why = start_apiserver(top, work, env)
    if kubeconfig:
        env.update(KUBECONFIG=kubeconfig, KUBECACHEDIR=os.path.join(work, ".kubecache"))
    checked = failed = 0
    skipped = []
    kubectl = shutil.which("kubectl", path=env["PATH"])
    try:
        for doc in docs:
            name = os.path.relpath(os.path.abspath(doc), top)
            with open(doc, encoding="utf-8") as f:
                lines = f.read().split("\n")
            blocks = man_blocks(lines) if re.search(r"\.[1-9]$", doc) else readme_blocks(lines)
            shell, section = None, None
            for sec, start, block in blocks:
                for cmd, want, line in examples(list(block), start):
                    if sec != section or shell is None:
                        if shell:
                            shell.close()
                        shell, section, after = Shell(root, env, scratch), sec, set()
                    why = next((r for p, r in SKIPS if re.search(p, cmd)), None)
                    cluster_why = None
                    if re.search(r"\bkubectl\b|\bdra-watch\b", cmd) and not kubeconfig:
                        cluster_why = api_why
                    elif re.search(r"\bkubectl\b", cmd) and not kubectl:
                        cluster_why = "kubectl is not installed"
                    why = why or cluster_why
                    if why:
                        # what the section runs next may read what this one writes
                        after.update(re.findall(r">\s*([\w./-]+)", cmd))
                    elif any(re.search(r"(^|[\s/])" + re.escape(f) + r"\b", cmd) for f in after):
                        why = "reads what a command passed over would have written"
                    if why:
                        skipped.append(f"{name}:{line}: {show(cmd)}\n  passed over: {why}")
                        continue
                    long = any(re.search(p, cmd) for p in LONG)
                    rc, got = shell.run(cmd, long)
                    if rc == "timeout":
                        shell = None
                    checked += 1
                    # 0 or 1; 2 only where the text shows the tool's error message
                    tool = cmd.split()[0] + ":"
                    # kubectl's 1 is an error, not a negative answer
                    ok_rc = rc == "0" or (rc == "1" and not re.search(r"\bkubectl\b", cmd)) or \
                        (long and rc == "running") or \
                        (rc == "2" and any(w.startswith(tool) for w in want or ()))
                    if ok_rc and (want is None or matches(want, got)):
                        if verbose:
                            print(f"ok {name}:{line}: exit {rc}")
                        continue
                    failed += 1
                    print(f"{name}:{line}: {show(cmd)}\n  exit: {rc}")
                    if want is not None:
                        print("  shown:\n" + "".join(f"    {w}\n" for w in want), end="")
                    print("  printed:\n" + "".join(f"    {g}\n" for g in got), end="")
            if shell:
                shell.close()
    finally:
        if api:
            api.terminate()
            try:
                api.wait(5)
            except subprocess.TimeoutExpired:
                api.kill()
        shutil.rmtree(work, ignore_errors=True)
    for s in skipped:
        print(s)
    print(f"{len(skipped)} examples passed over")
    print(f"{checked} examples checked, {failed} differ")
    print(f"{checked - failed} passed, {failed} failed, {len(skipped)} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
