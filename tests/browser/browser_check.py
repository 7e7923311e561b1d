#!/usr/bin/env python3
"""make browser-check: the HTML pages of dra-alloc, opened from file:// URLs
in a headless Chromium with the network off.  Each page must load with no
console message, exception, warning or request beyond itself, and show the
figures of -o json / --explain=json (read back from the DOM as a person
would see them).  Screenshots go to OUT/*.png.  A control page that logs
and fetches must be caught, so a silent checker cannot pass.

Usage: browser_check.py --bin build/bin --out build/browser [--chromium PATH]
Ends with "N passed, N failed"; exit 1 when any failed.
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "cluster"
FLEET = ROOT / "tests" / "data" / "capacity" / "cluster.yaml"
INJECT = ROOT / "tests" / "data" / "s34-pics29" / "inject.yaml"
NOW = ["--now", "2026-01-01T00:00:00Z"]

passed = failed = 0


def check(name, got, want):
    global passed, failed
    if got == want:
        passed += 1
        print("ok   %s" % name)
    else:
        failed += 1
        print("FAIL %s\n     got:  %r\n     want: %r" % (name, got, want))


def run(tool, args, out=None, ok=(0, 1)):
    """Run dra-alloc; its stdout (or the file it writes the page to) as text."""
    p = subprocess.run([tool] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode not in ok:
        raise SystemExit("dra-alloc %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr))
    return p.stdout


def text(sel):
    return "(() => { const e = document.querySelector(%s); return e ? e.textContent.trim() : null })()" % json.dumps(sel)


def count(sel):
    return "document.querySelectorAll(%s).length" % json.dumps(sel)


def drawn(sel):
    """How many elements matching sel have a box on screen (width and height > 0)."""
    return ("Array.from(document.querySelectorAll(%s)).filter(e => { const r = e.getBoundingClientRect(); "
            "return r.width > 0 && r.height > 0 }).length" % json.dumps(sel))


def clean(page, name):
    check("%s: no console message, exception, warning or request" % name, page.problems(), [])
    check("%s: no script element" % name, page.evaluate(count("script")), 0)


def capacity_page(b, tool, out, src, stem):
    html = out / (stem + ".html")
    html.write_text(run(tool, ["capacity", "-o", "html"] + NOW + [str(src)]))
    rep = json.loads(run(tool, ["capacity", "-o", "json", "--by", "node"] + NOW + [str(src)]))
    pools = json.loads(run(tool, ["capacity", "-o", "json", "--by", "pool"] + NOW + [str(src)]))
    page = b.load(html.as_uri())
    clean(page, stem)
    for c in rep["classes"]:
        row = 'tr[data-class="%s"] ' % c["name"]
        got = [page.evaluate(text(row + 'td[data-k="%s"]' % k)) for k in ("total", "allocated", "tainted", "free")]
        check("%s: %s row shows -o json's figures" % (stem, c["name"]), got,
              [str(c[k]) for k in ("total", "allocated", "tainted", "free")])
        for n in c["nodes"]:
            if n["total"]:
                cell = 'td.cell[data-class="%s"][data-node="%s"]' % (c["name"], n["name"])
                check("%s: %s on %s reads %d/%d free" % (stem, c["name"], n["name"], n["free"], n["total"]),
                      (page.evaluate(text(cell + " span")) or "").split(",")[0], "%d/%d free" % (n["free"], n["total"]))
                check("%s: %s on %s draws %d squares" % (stem, c["name"], n["name"], n["total"]),
                      page.evaluate(drawn(cell + " svg rect")), n["total"])
        spread = len([n for n in c["nodes"] if n["free"] > 0])
        frag = page.evaluate(text('div.frag[data-class="%s"] p' % c["name"]))
        check("%s: %s fragmentation sentence" % (stem, c["name"]), (frag or "").split(";")[0],
              "%d free device%s on %d node%s" % (c["free"], "" if c["free"] == 1 else "s", spread,
                                                 "" if spread == 1 else "s"))
    seen = {}  # a pool serves several classes: its counters once
    for c in pools["classes"]:
        for p in c["pools"]:
            seen[(p["driver"], p["pool"])] = sum(len(s["counters"]) for s in p["counterSets"]) + \
                sum(len(d["capacity"]) for d in p["consumable"])
    bars = sum(seen.values())
    check("%s: %d counter rows" % (stem, bars), page.evaluate(count("table.counters tr[data-counter]")), bars)
    check("%s: a bar drawn on each" % stem, page.evaluate(drawn("table.counters svg rect.track")), bars)
    page.screenshot(str(out / (stem + ".png")))
    return page


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    a = ap.parse_args()
    tool = os.path.join(os.path.abspath(a.bin), "dra-alloc")
    out = pathlib.Path(a.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    b = cdp.Browser(a.chromium)
    try:
        # the control: a page that logs and fetches must be caught
        bad = out / "control.html"
        bad.write_text('<!DOCTYPE html><title>control</title><script>console.error("boom")</script>'
                       '<img src="http://example.invalid/x.png">')
        probs = b.load(bad.as_uri()).problems()
        check("control: console.error is caught", any(p.startswith("console.error: boom") for p in probs), True)
        check("control: a request off the machine is caught", any("example.invalid" in p for p in probs), True)

        # the known cluster: every figure as the examples' README gives it
        page = capacity_page(b, tool, out, EXAMPLES, "capacity-examples")
        check("capacity-examples: gpu.example.com row",
              [page.evaluate(text('tr[data-class="gpu.example.com"] td[data-k="%s"]' % k)) for k in ("total", "free")]
              + [page.evaluate(text('tr[data-class="gpu.example.com"] td[data-k="largestFit"]'))],
              ["3", "3", "2 on node-a"])
        check("capacity-examples: free squares drawn", page.evaluate(drawn("table.heatmap rect.free")), 7)
        check("capacity-examples: gpu-0-counters memory bar", page.evaluate(
            text('tr[data-counter-set="gpu-0-counters"][data-counter="memory"] td:last-child')), "0 of 80Gi")
        check("capacity-examples: fragmentation of gpu.example.com",
              page.evaluate(text('div.frag[data-class="gpu.example.com"] p')),
              "3 free devices on 2 nodes; the largest block one claim gets on one node: 2 (node-a).")

        # a fleet half in use: used, tainted and other squares
        page = capacity_page(b, tool, out, FLEET, "capacity-fleet")
        check("capacity-fleet: squares by state (free, used, tainted, other)",
              [page.evaluate(drawn("table.heatmap rect." + k)) for k in ("free", "used", "tainted", "other")],
              [6, 3, 1, 1])

        # one pod's explanation
        html = out / "explain-examples.html"
        run(tool, ["schedule", "--explain=html", "--explain-file", str(html), str(EXAMPLES)])
        trace = [json.loads(l) for l in subprocess.run([tool, "schedule", "--explain=json", str(EXAMPLES)],
                                                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                                       text=True).stderr.splitlines() if l.startswith("{")]
        pod = next(t for t in trace if t["outcome"] == "unschedulable")
        page = b.load(html.as_uri())
        clean(page, "explain-examples")
        check("explain-examples: heading", page.evaluate(text("h1")), "dra-alloc schedule: pod " + pod["pod"])
        check("explain-examples: outcome", page.evaluate(text("p.outcome b")), "unschedulable")
        for n in pod["nodes"]:
            for cl in n.get("allocator", {}).get("claims", []):
                for r in cl["requests"]:
                    cell = 'td.cell[data-node="%s"][data-request="%s / %s"]' % (n["node"], cl["claim"], r["request"])
                    check("explain-examples: %s %s refuses %d devices" % (n["node"], r["request"], len(r["rejected"])),
                          page.evaluate(drawn(cell + " li.refused code")), len(r["rejected"]))
        page.screenshot(str(out / "explain-examples.png"))

        # markup in the input stays text
        for stem, args in (("capacity-inject", ["capacity", "--no-validate", "-o", "html", str(INJECT)]),
                           ("explain-inject", ["schedule", "--no-validate", "--explain=html", "--explain-file",
                                               str(out / "explain-inject.html"), str(INJECT)])):
            html = out / (stem + ".html")
            page_text = run(tool, args)
            if stem.startswith("capacity"):
                html.write_text(page_text)
            page = b.load(html.as_uri())
            clean(page, stem)
            check("%s: the markup shows as text" % stem,
                  "<script>alert(" in page.evaluate("document.body.textContent"), True)
            page.screenshot(str(out / (stem + ".png")))
    finally:
        b.close()
    print("browser-check: screenshots in %s (%.1f s)" % (out, time.monotonic() - start))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
