#!/usr/bin/env python3
"""Runs one simulator case: tests/simulate_cases/<case>/ is a tree whose every
module the simulator must decide (no uncertain entry point, in either entry
mode) and decide as CPython does (`cyclefix verify --compare`: no
disagreement over modules whose real outcome is ok or a circular import).

A case may list compiled extension modules to place in its tree in
`extensions.txt` ("pkg/_json" lines): the stdlib extension of the same last
name (`_json`) is copied there with this interpreter's suffix, so the tree
really holds a `.so` that CPython imports.

usage: run_case.py --cyclefix BIN tests/simulate_cases/<case>
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def run_json(cmd, cwd):
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 1):
        fail(f"{' '.join(cmd)} exited {p.returncode}\n{p.stderr}")
    try:
        return json.loads(p.stdout)
    except json.JSONDecodeError:
        fail(f"{' '.join(cmd)} printed no JSON:\n{p.stdout}\n{p.stderr}")


def check_agreement(ver, interpreter):
    """Fails on any disagreement in a `verify --compare` report; returns how many
    imports were compared (ok or circular on both sides)."""
    problems, counted = [], 0
    for r in ver["runs"]:
        c = r["compare"]["confusion"]
        counted += sum(c.values())
        for d in r["compare"]["disagreements"]:
            problems.append(f"  {r['entry_mode']} {d['module']}: real {d['real']} ({d['real_message']}), "
                            f"predicted {d['predicted']} ({d['predicted_message']})")
    if problems:
        fail(f"the simulator disagrees with {interpreter}:\n" + "\n".join(problems))
    if counted == 0:
        fail("no module imported with an ok or circular outcome: nothing was compared")
    return counted


def place_extensions(case, tree):
    listing = os.path.join(case, "extensions.txt")
    if not os.path.exists(listing):
        return
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    dynload = sysconfig.get_path("platstdlib") + "/lib-dynload"
    for line in open(listing):
        target = line.strip()
        if not target:
            continue
        name = os.path.basename(target)
        source = os.path.join(dynload, name + suffix)
        if not os.path.exists(source):
            print(f"SKIP: no stdlib extension {source} to copy")
            sys.exit(77)
        shutil.copy(source, os.path.join(tree, target + suffix))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cyclefix", required=True)
    ap.add_argument("case")
    o = ap.parse_args()
    case = os.path.abspath(o.case)
    o.cyclefix = os.path.abspath(o.cyclefix)
    with tempfile.TemporaryDirectory() as tmp:
        tree = os.path.join(tmp, "tree")
        shutil.copytree(case, tree, ignore=shutil.ignore_patterns("extensions.txt", "__pycache__"))
        place_extensions(case, tree)
        sim = run_json([o.cyclefix, "simulate", ".", "--entry", "both", "--no-cache", "--json", "-"], tree)
        uncertain = [(r["entry_mode"], u["module"], u["reasons"]) for r in sim["runs"]
                     for u in r["uncertain_entry_points"]]
        if uncertain:
            fail("uncertain entry points:\n" + "\n".join(f"  {m} {mod}: {why}" for m, mod, why in uncertain))
        ver = run_json([o.cyclefix, "verify", ".", "--entry", "both", "--compare", "--no-cache",
                        "--python", sys.executable, "--json", "-"], tree)
        counted = check_agreement(ver, "CPython")
        entries = sum(len(r.get("results", [])) for r in ver["runs"])
        print(f"ok ({entries} imports in both entry modes, {counted} compared, all certain and agreeing)")


if __name__ == "__main__":
    main()
