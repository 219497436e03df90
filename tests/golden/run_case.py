#!/usr/bin/env python3
"""Runs one golden case: golden/<case>/input is rewritten by cyclefix and the
diff compared with golden/<case>/expected.diff (and, when present, the plan
with expected.plan, and the --output-format github / gitlab reports with
expected.github / expected.gitlab). Then the invariants every case must keep:

  * the diff applies with `git apply` (and `patch -p1 --dry-run` when patch exists),
  * `cyclefix --apply` on a fresh copy gives the same tree byte for byte,
  * every Python file of the result compiles (python3 -m py_compile),
  * a second run on the result prints an empty diff,
  * every module of the result that imported first in a fresh interpreter before
    still does, and every module that failed with a circular import now imports,
    in both entry modes (`cyclefix verify --entry both`); a case lists in
    `still_failing` ("MODE MODULE" lines) the failures on loops no cut may break.
    A case whose --target-version is newer than python3 is checked with
    --python315 (normal, bare and lazy entry: `verify --entry all`) when it is
    3.15 or older, and skipped with a message otherwise.

Expected files are rewritten only with CYCLEFIX_UPDATE_GOLDEN=1; read the
change before committing it.

usage: run_case.py --cyclefix BIN golden/<case>
"""
import argparse
import difflib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

UPDATE = os.environ.get("CYCLEFIX_UPDATE_GOLDEN") == "1"


def run(cmd, cwd, check_rc=None):
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if check_rc is not None and p.returncode not in check_rc:
        fail(f"{shlex.join(cmd)} exited {p.returncode}\nstdout:\n{p.stdout.decode(errors='replace')}\n"
             f"stderr:\n{p.stderr.decode(errors='replace')}")
    return p


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def compare(name, expected_path, actual):
    if UPDATE:
        if actual:
            with open(expected_path, "wb") as f:
                f.write(actual)
        elif os.path.exists(expected_path):
            os.remove(expected_path)
        print(f"updated {expected_path}")
        return
    expected = open(expected_path, "rb").read() if os.path.exists(expected_path) else b""
    if expected != actual:
        d = difflib.unified_diff(expected.decode(errors="replace").splitlines(True),
                                 actual.decode(errors="replace").splitlines(True),
                                 f"expected {name}", f"actual {name}")
        fail(f"{name} differs from {expected_path} (rerun with CYCLEFIX_UPDATE_GOLDEN=1 to accept):\n" + "".join(d))


def tree(root):
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            if "__pycache__" in p:
                continue
            out[os.path.relpath(p, root)] = open(p, "rb").read()
    return out


def circular(cyclefix, cwd, args, entry="both"):
    p = run([cyclefix, "verify", "input", "--entry", entry, "--json", "-"] + args, cwd, check_rc=(0, 1))
    j = json.loads(p.stdout)
    res = {}
    for r in j["runs"]:
        for m in r["results"]:
            res[(r["entry_mode"], m["module"])] = m["outcome"]
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cyclefix", required=True)
    ap.add_argument("--plan", action="store_true", help="with CYCLEFIX_UPDATE_GOLDEN=1: also write expected.plan")
    ap.add_argument("--formats", action="store_true",
                    help="with CYCLEFIX_UPDATE_GOLDEN=1: also write expected.github and expected.gitlab")
    ap.add_argument("--python315", default="", help="a Python 3.15 for cases with --target-version 3.15")
    ap.add_argument("case")
    o = ap.parse_args()
    cyclefix = os.path.abspath(o.cyclefix)
    case = os.path.abspath(o.case)
    args_file = os.path.join(case, "args")
    args = shlex.split(open(args_file).read()) if os.path.exists(args_file) else []

    with tempfile.TemporaryDirectory(prefix="cyclefix-golden-") as tmp:
        work = os.path.join(tmp, "patched")
        fresh = os.path.join(tmp, "applied")
        shutil.copytree(os.path.join(case, "input"), os.path.join(work, "input"), symlinks=True)
        shutil.copytree(os.path.join(case, "input"), os.path.join(fresh, "input"), symlinks=True)
        before = tree(work)

        p = run([cyclefix, "input"] + args, work, check_rc=(0,))
        diff = p.stdout
        compare("diff", os.path.join(case, "expected.diff"), diff)
        if os.path.exists(os.path.join(case, "expected.plan")) or (UPDATE and o.plan):
            plan = run([cyclefix, "--explain", "input"] + args, work, check_rc=(0, 1)).stdout
            plan = re.sub(rb", [0-9.e+-]+ s\)", b", <time> s)", plan)
            compare("plan", os.path.join(case, "expected.plan"), plan)
        # The CI formats (--output-format github|gitlab), where the case has an
        # expected.<format> file (with CYCLEFIX_UPDATE_GOLDEN=1: --formats writes them).
        for fmt in ("github", "gitlab"):
            expected = os.path.join(case, f"expected.{fmt}")
            if os.path.exists(expected) or (UPDATE and o.formats):
                out = run([cyclefix, "input", "--output-format", fmt] + args, work, check_rc=(0,)).stdout
                compare(fmt, expected, out)

        if not diff:
            if before != tree(work):
                fail("an empty diff, yet files changed")
            print("ok (no change)")
            return

        # The diff applies as a patch.
        patch_file = os.path.join(tmp, "change.diff")
        open(patch_file, "wb").write(diff)
        if shutil.which("patch"):
            run(["patch", "-p1", "--dry-run", "--quiet", "-i", patch_file], work, check_rc=(0,))
        run(["git", "apply", "--check", patch_file], work, check_rc=(0,))
        run(["git", "apply", patch_file], work, check_rc=(0,))

        # --apply writes the same bytes.
        run([cyclefix, "input", "--apply"] + args, fresh, check_rc=(0,))
        a, b = tree(work), tree(fresh)
        if a != b:
            fail("--apply and the printed diff disagree on: " +
                 ", ".join(sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))))

        # Every file still compiles (with the case's Python 3.15 when it targets 3.15).
        target = re.search(r"--target-version[ =]3\.(\d+)", " ".join(args))
        needs_315 = bool(target) and int(target.group(1)) >= 15
        python315 = os.path.abspath(o.python315) if o.python315 else ""
        if needs_315 and python315 and os.access(python315, os.X_OK):
            sources = [os.path.join(work, rel) for rel in sorted(a) if rel.endswith(".py")]
            p = run([python315, "-c", "import sys\nfor f in sys.argv[1:]: compile(open(f, 'rb').read(), f, 'exec')"]
                    + sources, tmp)
            if p.returncode != 0:
                fail(f"the rewrite does not compile with {python315}:\n{p.stderr.decode(errors='replace')}")
        for rel in sorted(a):
            if rel.endswith(".py") and not needs_315:
                src = a[rel]
                try:
                    compile(src, rel, "exec", dont_inherit=True)
                except SyntaxError as e:
                    fail(f"{rel} does not compile after the rewrite: {e}")

        # A second run changes nothing.
        again = run([cyclefix, "input"] + args, work, check_rc=(0,)).stdout
        if again:
            fail("a second run is not empty:\n" + again.decode(errors="replace"))

        # Where modules failed with a circular import, none fails now. Only with
        # a python3 at least as new as --target-version: older interpreters
        # evaluate annotations the target leaves unquoted.
        py_minor = None
        python, entry = "python3", "both"
        if needs_315:
            python = python315 if python315 and os.access(python315, os.X_OK) else None
            if python is None:
                print(f"ok (import check skipped: no Python 3.15 given with --python315; tools/install_py315.sh)")
                return
            entry = "all"
        if python and shutil.which(python):
            py_minor = int(run([python, "-c", "import sys; print(sys.version_info[1])"], tmp).stdout)
        if target and py_minor is not None and py_minor < int(target.group(1)):
            print(f"ok (import check skipped: {python} is 3.{py_minor}, target 3.{target.group(1)})")
            return
        if py_minor is not None:
            orig = os.path.join(tmp, "original")
            shutil.copytree(os.path.join(case, "input"), os.path.join(orig, "input"), symlinks=True)
            py_args = [] if python == "python3" else ["--python", python]
            was = circular(cyclefix, orig, py_args, entry)
            now = circular(cyclefix, work, py_args, entry)
            # still_failing: "MODE MODULE" lines, circular failures on a loop no cut may break.
            still_file = os.path.join(case, "still_failing")
            still = set()
            if os.path.exists(still_file):
                still = {tuple(line.split()) for line in open(still_file) if line.strip()}
            bad = [f"{m} ({mode}): {now.get((mode, m))}" for (mode, m), v in sorted(was.items())
                   if now.get((mode, m)) != "ok" and (v == "ok" or now.get((mode, m)) == "circular")
                   and (mode, m) not in still]
            if bad:
                fail("modules that do not import after the rewrite: " + "; ".join(bad))
            fixed = sum(1 for k, v in was.items() if v == "circular" and now.get(k) == "ok")
            print(f"ok ({fixed} circular entry point(s) fixed, nothing newly failing, checked with {python}, "
                  f"entry {entry})")
            return
    print("ok")


if __name__ == "__main__":
    main()
