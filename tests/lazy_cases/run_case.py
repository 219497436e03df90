#!/usr/bin/env python3
"""Runs one PEP 810 case against a real CPython 3.15: tests/lazy_cases/<case>/
is a tree whose every module `cyclefix simulate` must decide (no uncertain
entry point) in normal, bare and lazy entry (`-X lazy_imports=all`), and decide
as python3.15 does (`cyclefix verify --entry all --compare --python PY`: no
disagreement over modules whose real outcome is ok or a circular import).

The interpreter is --python, else $CYCLEFIX_PYTHON315. Without one that runs a
3.15 (tools/install_py315.sh installs it), the case is skipped (exit 77) with
the reason.

usage: run_case.py --cyclefix BIN [--python PY] tests/lazy_cases/<case>
(the seed shape runs from golden/seed_shape/input the same way)
"""
import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile


# fail(), run_json() and check_agreement() as the 3.11 simulator cases have them.
_spec = importlib.util.spec_from_file_location(
    "simulate_case", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "simulate_cases", "run_case.py"))
_simulate_case = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_simulate_case)
fail, run_json, check_agreement = _simulate_case.fail, _simulate_case.run_json, _simulate_case.check_agreement


def skip(msg):
    print(f"SKIP: {msg}")
    sys.exit(77)


def python315(path):
    if not path:
        skip("no Python 3.15 (run tools/install_py315.sh, or set CYCLEFIX_PYTHON315 / -DCYCLEFIX_PYTHON315)")
    try:
        v = subprocess.run([path, "-c", "import sys; print(*sys.version_info[:2])"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        skip(f"{path} does not run: {e}")
    if v.returncode != 0 or v.stdout.split() != ["3", "15"]:
        skip(f"{path} is not a working Python 3.15: {v.stdout.strip()} {v.stderr.strip()[:200]}")
    return path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cyclefix", required=True)
    ap.add_argument("--python", default=os.environ.get("CYCLEFIX_PYTHON315", ""))
    ap.add_argument("case")
    o = ap.parse_args()
    case = os.path.abspath(o.case)
    o.cyclefix = os.path.abspath(o.cyclefix)
    py = python315(os.path.abspath(o.python) if os.sep in o.python else o.python)
    with tempfile.TemporaryDirectory() as tmp:
        tree = os.path.join(tmp, "tree")
        shutil.copytree(case, tree, ignore=shutil.ignore_patterns("__pycache__"))
        sim = run_json([o.cyclefix, "simulate", ".", "--entry", "all", "--no-cache", "--json", "-"], tree)
        uncertain = [(r["entry_mode"], u["module"], u["reasons"]) for r in sim["runs"]
                     for u in r["uncertain_entry_points"]]
        if uncertain:
            fail("uncertain entry points:\n" + "\n".join(f"  {m} {mod}: {why}" for m, mod, why in uncertain))
        ver = run_json([o.cyclefix, "verify", ".", "--entry", "all", "--compare", "--no-cache",
                        "--python", py, "--json", "-"], tree)
        check_agreement(ver, "python3.15")
        summary = [f"{r['entry_mode']} {len(r['results'])} imports, "
                   f"{sum(1 for x in r['results'] if x['outcome'] == 'circular')} circular" for r in ver["runs"]]
        print(f"ok: {'; '.join(summary)}; all certain and agreeing with python3.15")


if __name__ == "__main__":
    main()
