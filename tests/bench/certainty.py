#!/usr/bin/env python3
"""Simulator certainty against the real interpreter (issue 16), the helper of
tests/bench/certainty_real_trees.sh. Not a ctest.

  certainty.py row --tree T --verify V.json --simulate S.json [--summary OUT.json]
      one tree, both entry modes: V.json from `cyclefix verify T --entry both
      --compare --json V.json`, S.json from `cyclefix simulate T --entry both --json S.json`
  certainty.py table SUMMARY.json...          the table over trees
  certainty.py compare BEFORE_DIR AFTER_DIR   the two tables side by side (summary-*.json)

Definitions, per entry mode, over the modules verify imported (namespace packages
have no entry): an entry is *certain* when it is not in the simulator's
`uncertain_entry_points`; predicted circular = in `failing_entry_points` with
`circular` true (as `verify --compare` counts it); real outcome from verify
(`ok`, `circular`, `other`). A certain entry whose real outcome is `other`
(missing dependency, settings error, timeout) is counted as `certain_other`,
neither agreeing nor wrong; the others are *agreeing* (prediction matches
ok/circular) or *wrong* (listed, with predicted and real message: simulator
bugs). `uncertain_by_reason` is the simulator's own field when its JSON has it
(newer binaries), otherwise derived here with the same prefixes and marked `*`.
"""
import argparse
import collections
import glob
import json
import os
import re
import sys


def runs(doc):
    return doc["runs"] if "runs" in doc else [doc]


def reason_kind(why):
    # Mirrors reason_kind() in src/simulator.cpp.
    if why.startswith("dynamic import"):
        return "dynamic import"
    if why.startswith("a circular import in a conditional branch"):
        return "conditional branch"
    if why.startswith("star import"):
        return "star import"
    return "other"


def reason_site(why):
    """The reason without its message: 'conditional branch of F() at file:line'."""
    why = re.sub(r"^a circular import in a ", "", why)
    m = re.match(r"(.*? at [^ ]+:\d+)", why)
    site = m.group(1) if m else why[:120]
    return site.replace("/usr/lib/python3/dist-packages/", "")


def measure(tree, vdoc, sdoc):
    sims = {r["entry_mode"]: r for r in runs(sdoc)}
    out = []
    for v in runs(vdoc):
        mode = v["entry_mode"]
        s = sims[mode]
        uncertain = {e["module"]: e["reasons"] for e in s["uncertain_entry_points"]}
        failing = {e["module"]: e for e in s["failing_entry_points"]}
        real = collections.Counter(r["outcome"] for r in v["results"])
        row = {"tree": tree, "mode": mode, "entries": len(v["results"]),
               "sim_entry_points": s["entry_points"],
               "real": {k: real.get(k, 0) for k in ("ok", "circular", "other")},
               "certain": 0, "agreeing": 0, "wrong": 0, "certain_other": 0,
               "uncertain": 0, "uncertain_agreeing": 0, "uncertain_wrong": 0,
               "wrong_entries": [], "mismatch_with_verify": []}
        for r in v["results"]:
            m = r["module"]
            f = failing.get(m)
            predicted = bool(f and f.get("circular"))
            if m in uncertain:
                row["uncertain"] += 1
                if r["outcome"] != "other":
                    row["uncertain_agreeing" if predicted == (r["outcome"] == "circular")
                        else "uncertain_wrong"] += 1
                continue
            row["certain"] += 1
            if r["outcome"] == "other":
                row["certain_other"] += 1
            elif predicted == (r["outcome"] == "circular"):
                row["agreeing"] += 1
            else:
                row["wrong"] += 1
                row["wrong_entries"].append({
                    "module": m, "real": r["outcome"], "real_message": r["message"],
                    "predicted": "circular" if predicted else "ok",
                    "predicted_message": f["message"] if f else "",
                    "chain": [f"{h['file']}:{h['line']}" for h in f["chain"]] if f else []})
        # Cross-check with verify --compare's own disagreement list and uncertain flag.
        mine = {(w["module"]) for w in row["wrong_entries"]}
        for d in v.get("compare", {}).get("disagreements", []):
            flag = d["module"] in uncertain
            if d.get("uncertain") != flag or (not flag and d["module"] not in mine):
                row["mismatch_with_verify"].append(d["module"])
        if "uncertain_by_reason" in s:
            row["uncertain_by_reason"] = s["uncertain_by_reason"]
            row["reasons_derived"] = False
        else:
            kinds = collections.Counter()
            for reasons in uncertain.values():
                for k in {reason_kind(w) for w in reasons}:
                    kinds[k] += 1
            row["uncertain_by_reason"] = dict(kinds)
            row["reasons_derived"] = True
        sites = collections.Counter()
        for reasons in uncertain.values():
            for site in {reason_site(w) for w in reasons}:
                sites[site] += 1
        row["top_sites"] = sites.most_common(5)
        out.append(row)
    return out


def pct(n, d):
    return f"{100.0 * n / d:5.1f}%" if d else "   - "


HEADER = (f"{'tree':<11} {'mode':<6} {'entries':>7} {'ok/circ/other':>15} {'certain':>14} "
          f"{'agree':>6} {'wrong':>5} {'c.other':>7} {'uncert':>6}  uncertain_by_reason")


def line(r):
    real = r["real"]
    reasons = ", ".join(f"{k} {n}" for k, n in sorted(r["uncertain_by_reason"].items())) or "-"
    if r["reasons_derived"]:
        reasons += " *"
    return (f"{r['tree']:<11} {r['mode']:<6} {r['entries']:>7} "
            f"{real['ok']:>5}/{real['circular']:>4}/{real['other']:>4} "
            f"{r['certain']:>6} {pct(r['certain'], r['entries'])} "
            f"{r['agreeing']:>6} {r['wrong']:>5} {r['certain_other']:>7} {r['uncertain']:>6}  {reasons}")


def details(r, show):
    for w in r["wrong_entries"][:show]:
        print(f"    WRONG {r['mode']} {w['module']}: predicted {w['predicted']}"
              f" ({w['predicted_message'][:160]}), real {w['real']} ({w['real_message'][:160]})")
        if w["chain"]:
            print(f"          chain: {' -> '.join(w['chain'])}")
    if len(r["wrong_entries"]) > show:
        print(f"    ... {len(r['wrong_entries']) - show} more certain-but-wrong in the summary JSON")
    if r["uncertain"]:
        print(f"    uncertain {r['mode']}: {r['uncertain_agreeing']} agree, {r['uncertain_wrong']} wrong anyway;"
              f" top sites: " + "; ".join(f"{n} {s}" for s, n in r["top_sites"][:3]))
    if r["mismatch_with_verify"]:
        print(f"    NOTE: verify --compare disagrees with this count for: {r['mismatch_with_verify'][:10]}")


def load_summaries(paths):
    rows = []
    for p in paths:
        with open(p) as f:
            rows.extend(json.load(f))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("row")
    a.add_argument("--tree", required=True)
    a.add_argument("--verify", required=True)
    a.add_argument("--simulate", required=True)
    a.add_argument("--summary")
    a.add_argument("--show", type=int, default=int(os.environ.get("CERTAINTY_SHOW", "30")))
    t = sub.add_parser("table")
    t.add_argument("summaries", nargs="+")
    c = sub.add_parser("compare")
    c.add_argument("before")
    c.add_argument("after")
    args = ap.parse_args()

    if args.cmd == "row":
        with open(args.verify) as f:
            vdoc = json.load(f)
        with open(args.simulate) as f:
            sdoc = json.load(f)
        rows = measure(args.tree, vdoc, sdoc)
        print(HEADER)
        for r in rows:
            print(line(r))
            details(r, args.show)
        if args.summary:
            with open(args.summary, "w") as f:
                json.dump(rows, f, indent=1)
    elif args.cmd == "table":
        print(HEADER)
        for r in load_summaries(args.summaries):
            print(line(r))
    else:
        def index(d):
            rows = load_summaries(sorted(glob.glob(os.path.join(d, "summary-*.json"))))
            return {(r["tree"], r["mode"]): r for r in rows}
        b, af = index(args.before), index(args.after)
        print(f"{'tree':<11} {'mode':<6} {'entries':>7} {'ok/circ/other':>15} | "
              f"{'certain B -> A':>22} | {'agree B -> A':>13} | {'wrong B -> A':>12} | {'uncert B -> A':>13}")
        for key in sorted(set(b) | set(af)):
            rb, ra = b.get(key), af.get(key)
            ref = ra or rb
            real = ref["real"]

            def g(r, k):
                return r[k] if r else "-"

            cb = f"{g(rb, 'certain')} ({pct(rb['certain'], rb['entries']).strip()})" if rb else "-"
            ca = f"{g(ra, 'certain')} ({pct(ra['certain'], ra['entries']).strip()})" if ra else "-"
            print(f"{key[0]:<11} {key[1]:<6} {ref['entries']:>7} "
                  f"{real['ok']:>5}/{real['circular']:>4}/{real['other']:>4} | {cb:>10} -> {ca:<10}|"
                  f" {g(rb, 'agreeing'):>5} -> {g(ra, 'agreeing'):<5}| {g(rb, 'wrong'):>4} -> {g(ra, 'wrong'):<5}|"
                  f" {g(rb, 'uncertain'):>5} -> {g(ra, 'uncertain'):<5}")
            if rb and ra and rb["real"] != ra["real"]:
                print(f"    NOTE: real outcomes differ between the runs: before {rb['real']}, after {ra['real']}")


if __name__ == "__main__":
    sys.exit(main())
