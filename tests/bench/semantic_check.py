#!/usr/bin/env python3
"""Semantic check of a rewrite on a real tree: for every module whose file the
rewrite changed, import it in a fresh interpreter from the tree before and
after, and compare the module's attributes (dunder names aside). The only
attributes allowed to disappear are the names the cuts moved out of that file,
which cyclefix's JSON report lists (cuts[].file, cuts[].names); nothing may
appear (except TYPE_CHECKING where the rewrite added a TYPE_CHECKING block),
and a module that imported before must import after.

usage: semantic_check.py --before DIR --after DIR --report JSON [--python EXE]
                         [--jobs N] [--display-root DIR]

DIR is the directory that holds the top-level package (it goes first on
sys.path); JSON is `cyclefix PKG --json FILE` run in the original tree (file
paths in it are relative to --display-root, default: --before).
Prints one line per module with a difference and a summary; exit 1 when a
module lost an attribute the report does not list, gained one, or stopped
importing.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys

PROBE = r"""
import importlib, json, sys
sys.path.insert(0, sys.argv[1])
name = sys.argv[2]
try:
    m = importlib.import_module(name)
except BaseException as e:  # noqa: BLE001 - any failure is the result
    print(json.dumps({"error": f"{type(e).__name__}: {e}"}))
else:
    print(json.dumps({"file": getattr(m, "__file__", None),
                      "attrs": sorted(n for n in vars(m) if not (n.startswith("__") and n.endswith("__")))}))
"""


def module_name(rel):
    parts = rel[:-3].split("/")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def probe(python, root, name, env):
    p = subprocess.run([python, "-c", PROBE, root, name], capture_output=True, text=True, env=env, timeout=300)
    try:
        return json.loads(p.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return {"error": f"probe failed: {p.stderr.strip()[-300:]}"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--report", required=True)
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--display-root")
    o = ap.parse_args()
    report = json.load(open(o.report))
    display_root = os.path.abspath(o.display_root or o.before)
    moved = {}
    for c in report.get("cuts", []):
        moved.setdefault(c["file"], set()).update(c["names"])
    changed = [f["file"] for f in report.get("rewrite", {}).get("files", [])]
    # A file that got a TYPE_CHECKING block may also gain the name TYPE_CHECKING.
    typing_added = {f["file"] for f in report.get("rewrite", {}).get("files", []) if f.get("type_checking")}
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", DJANGO_SETTINGS_MODULE=os.environ.get(
        "DJANGO_SETTINGS_MODULE", ""))
    jobs = []
    with concurrent.futures.ThreadPoolExecutor(o.jobs) as pool:
        for f in changed:
            rel = os.path.relpath(os.path.abspath(os.path.join(display_root, f)) if not os.path.isabs(f) else f,
                                  display_root)
            name = module_name(rel)
            jobs.append((f, name, pool.submit(probe, o.python, os.path.abspath(o.before), name, env),
                         pool.submit(probe, o.python, os.path.abspath(o.after), name, env)))
        bad = 0
        same = lost_moved = 0
        both_fail = now_imports = 0
        for f, name, fb, fa in jobs:
            b, a = fb.result(), fa.result()
            if "error" in b:
                if "error" not in a:
                    print(f"{name}: failed before ({b['error']}), imports after")
                    now_imports += 1
                else:
                    print(f"{name}: fails before and after ({a['error'][:200]})")
                    both_fail += 1
                continue
            if "error" in a:
                print(f"{name}: FAILS after the rewrite: {a['error']}")
                bad += 1
                continue
            if not a["file"] or not os.path.abspath(a["file"]).startswith(os.path.abspath(o.after)):
                print(f"{name}: imported from {a['file']}, not from the patched tree")
                bad += 1
                continue
            gone = sorted(set(b["attrs"]) - set(a["attrs"]))
            new = sorted(set(a["attrs"]) - set(b["attrs"]) - ({"TYPE_CHECKING"} if f in typing_added else set()))
            unlisted = [n for n in gone if n not in moved.get(f, set())]
            if unlisted or new:
                print(f"{name}: lost {unlisted} (not moved by a cut), gained {new}")
                bad += 1
            elif gone:
                lost_moved += 1
                print(f"{name}: lost only moved names {gone}")
            else:
                same += 1
    print(f"semantic check: {len(jobs)} changed modules; {same} with the same attributes, {lost_moved} that lost "
          f"only names the report lists as moved, {now_imports} that failed before and import after, "
          f"{both_fail} that fail to import both before and after, "
          f"{bad} with an unexplained difference or a new failure")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
