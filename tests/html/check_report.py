#!/usr/bin/env python3
"""Renders `cyclefix report --html` for a tree and opens it in headless Chromium.

Checks, from the page's own load-time self-check (written into #selfcheck and
read back with --dump-dom): every cycle's SVG is there and laid out with a
non-zero box, and every cut edge (class `cut`) carries the highlight (computed
stroke colour and width). Takes a screenshot, and with --max-load-ms fails when
the page takes longer than that from navigation start to the load event.

Exit 77 (ctest SKIP_RETURN_CODE) with a message when chromium or Graphviz's
dot is missing, or the tree is not there.

usage: check_report.py --cyclefix BIN [--cwd DIR] [--screenshot PNG]
                       [--max-load-ms N] [--expect-cuts] [--keep FILE] PATH...
"""
import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

SKIP = 77
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def skip(msg):
    print(f"SKIP: {msg}")
    sys.exit(SKIP)


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def run_chromium(chromium, profile, url, extra, timeout=120):
    cmd = [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--no-first-run",
           "--hide-scrollbars", *extra, url]
    start = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    return p, time.monotonic() - start


def selfcheck(dom):
    m = re.search(r'<pre id="selfcheck">(.*?)</pre>', dom, re.S)
    if not m or not m.group(1).strip():
        return None
    return json.loads(html.unescape(m.group(1)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cyclefix", required=True)
    ap.add_argument("--cwd", default=None, help="run cyclefix here (paths in the report are relative to it)")
    ap.add_argument("--screenshot", default=None, help="write the screenshot here (default: a temp file)")
    ap.add_argument("--max-load-ms", type=float, default=None)
    ap.add_argument("--expect-cuts", action="store_true", help="fail unless some cut edge is drawn")
    ap.add_argument("--keep", default=None, help="also copy the report here")
    ap.add_argument("paths", nargs="+")
    args = ap.parse_args()
    args.cyclefix = os.path.abspath(args.cyclefix)

    chromium = find_chromium()
    if not chromium:
        skip("chromium not found (Debian package chromium)")
    if not shutil.which("dot"):
        skip("Graphviz's dot not found (Debian package graphviz)")
    cwd = args.cwd or os.getcwd()
    for p in args.paths:
        if not os.path.exists(os.path.join(cwd, p)):
            skip(f"{p} not found")

    with tempfile.TemporaryDirectory(prefix="cyclefix-html-") as tmp:
        out = os.path.join(tmp, "report.html")
        start = time.monotonic()
        p = subprocess.run([args.cyclefix, "report", *args.paths, "--html", out, "-q", "--no-cache"], cwd=cwd,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        render_s = time.monotonic() - start
        if p.returncode != 0 or not os.path.exists(out):
            fail(f"cyclefix report exited {p.returncode}\n{p.stderr.decode(errors='replace')}")
        size = os.path.getsize(out)
        if args.keep:
            shutil.copyfile(out, args.keep)
        page = open(out, encoding="utf-8").read()
        if re.search(r'(src|href)\s*=\s*"(https?:)?//', page):
            fail("the report refers to a network resource")
        sections = page.count('<section class="component"')
        url = "file://" + os.path.abspath(out)
        profile = os.path.join(tmp, "profile")

        # 1. The page's self-check, with time to finish layout.
        r, _ = run_chromium(chromium, profile, url, ["--dump-dom", "--virtual-time-budget=5000"])
        check = selfcheck(r.stdout.decode(errors="replace"))
        if check is None:
            fail(f"no self-check result in the DOM (chromium exited {r.returncode})\n"
                 f"{r.stderr.decode(errors='replace')[-2000:]}")
        problems = list(check.get("failures", []))
        if check["components"] != sections:
            problems.append(f"{sections} component sections in the file, {check['components']} in the DOM")
        if check["svgs"] != check["components"] or check["visible"] != check["components"]:
            problems.append(f"{check['components']} components, {check['svgs']} SVGs, {check['visible']} visible")
        if check["cut_edges"] != check["cut_expected"]:
            problems.append(f"{check['cut_expected']} cut edges drawn, {check['cut_edges']} with class cut in the DOM")
        if check["cut_highlighted"] != check["cut_edges"]:
            problems.append(f"{check['cut_edges']} cut edges, {check['cut_highlighted']} highlighted")
        if args.expect_cuts and check["cut_edges"] == 0:
            problems.append("no cut edge drawn")

        # 2. Load time in real time (no virtual time budget): navigation start to the
        # load event with every drawing laid out, the median of three runs.
        loads = []
        for _ in range(3):
            r, wall = run_chromium(chromium, profile, url, ["--dump-dom"])
            c = selfcheck(r.stdout.decode(errors="replace"))
            if c is None:
                problems.append("no self-check result in the timing run")
                break
            loads.append((c["laid_out_ms"], c.get("dom_content_loaded_ms"), wall))
        load_ms = sorted(l[0] for l in loads)[len(loads) // 2] if loads else None  # the median
        if args.max_load_ms is not None and load_ms is not None and load_ms > args.max_load_ms:
            problems.append(f"page load took {load_ms} ms (limit {args.max_load_ms} ms)")

        # 3. The screenshot.
        shot = args.screenshot or os.path.join(tmp, "report.png")
        # The whole page when it is not too long (the window is what headless captures).
        height = max(800, min(int(check.get("height", 1000)), 3000))
        r, _ = run_chromium(chromium, profile, url, [f"--screenshot={os.path.abspath(shot)}",
                                                     f"--window-size=1400,{height}", "--virtual-time-budget=5000"])
        if not os.path.exists(shot) or open(shot, "rb").read(8) != b"\x89PNG\r\n\x1a\n":
            problems.append(f"no screenshot written (chromium exited {r.returncode})")

        print(f"report: {' '.join(args.paths)}: {size} bytes, rendered in {render_s:.1f} s; "
              f"{check['components']} components, {check['visible']} SVGs visible, "
              f"{check['cut_highlighted']}/{check['cut_edges']} cut edges highlighted; "
              f"load (navigation start -> load event, laid out) median {load_ms} ms, runs (load, DOMContentLoaded, "
              f"browser wall s): {[(l[0], l[1], round(l[2], 2)) for l in loads]}; screenshot {shot}")
        if problems:
            fail("\n  ".join(problems))
        print("PASS")


if __name__ == "__main__":
    main()
