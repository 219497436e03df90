#!/usr/bin/env python3
"""Differential test: `cyclefix simulate` against real CPython on random packages.

Generates N packages with gen_packages.py, runs `cyclefix verify --compare`
(every module imported first in a fresh interpreter, both entry modes, compared
with the simulator's prediction) on each, and prints the agreement rate and
every disagreement. Exits 1 when the agreement rate is below --min-agreement.

    compare.py CYCLEFIX_BINARY [--seed S] [--count N] [--min-agreement R] [--out DIR]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--seed", default="ci")
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--min-agreement", type=float, default=1.0)
    ap.add_argument("--out")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()

    out = args.out or tempfile.mkdtemp(prefix="cyclefix-diff-")
    subprocess.run([sys.executable, os.path.join(HERE, "gen_packages.py"), "--seed", args.seed,
                    "--count", str(args.count), "--out", out], check=True)
    cases = json.load(open(os.path.join(out, "cases.json")))["cases"]

    compared = agreed = 0
    real_circular = predicted_circular = 0
    disagreements = []
    for case in cases:
        root = os.path.join(out, case["root"])
        proc = subprocess.run([args.binary, "verify", root, "--root", root, "--entry", "both", "--compare",
                               "-q", "--jobs", str(args.jobs), "--json", "-"],
                              capture_output=True, text=True)
        if proc.returncode not in (0, 1):
            print(f"{case['name']}: cyclefix failed ({proc.returncode}): {proc.stderr.strip()}")
            return 2
        report = json.loads(proc.stdout)
        for run in report["runs"]:
            conf = run["compare"]["confusion"]
            n = sum(conf.values())
            compared += n
            agreed += conf["predicted_circular_real_circular"] + conf["predicted_ok_real_ok"]
            real_circular += conf["predicted_circular_real_circular"] + conf["predicted_ok_real_circular"]
            predicted_circular += conf["predicted_circular_real_circular"] + conf["predicted_circular_real_ok"]
            for d in run["compare"]["disagreements"]:
                disagreements.append((case["name"], run["entry_mode"], d))

    rate = agreed / compared if compared else 0.0
    print(f"differential: {len(cases)} packages, {compared} (module, mode) imports compared, "
          f"{real_circular} really circular, {predicted_circular} predicted circular")
    for name, mode, d in disagreements:
        print(f"  disagree {name} [{mode}] {d['module']}: real {d['real']}, predicted {d['predicted']}"
              f"{' (uncertain)' if d.get('uncertain') else ''}")
        print(f"      real:      {d['real_message'][:160]}")
        print(f"      predicted: {d['predicted_message'][:160]}")
    print(f"agreement: {agreed}/{compared} = {rate:.4f} (required {args.min_agreement:.4f})")
    return 0 if rate >= args.min_agreement else 1


if __name__ == "__main__":
    sys.exit(main())
