#!/usr/bin/env python3
"""Import-time truth for the main command's summary (issue 15, point 5).

    check_summary.py --cyclefix BIN --golden DIR [--entry bare|normal|both]
                     [--python EXE] [--jobs N] [--timeout S] [--keep DIR]

`cyclefix input --apply` ends with a summary on stderr,
  cyclefix: 1 import cycle(s); 1 of 1 cut(s) made ...; 0 import cycle(s) left
and its "after" figures must hold under the real interpreter. For every
DIR/*/input (run as tests/golden/run_case.py runs a case: a copy of input in a
work dir, `BIN input [args from the case's args file]` from that work dir):

 1. `BIN input [args]` prints the diff, then `BIN input --apply [args]` rewrites
    the copy; its summary gives N = "import cycle(s) left" and the cut counts.
 2. Every module of the rewritten tree is imported in a fresh interpreter under
    tests/oracle/trace_import.py (bare entry by default; --entry both adds normal).
 3. The traced import-time graph: for each executed import record (its file is
    first-party), an edge from the module charged with it (the one whose <module>
    code ran it, the record's module_file: an import inside a function counts for
    the module that called the function at import time, as in cyclefix's own
    import-time graph, golden/reach_callee_charged) to each first-party module
    the import names: the module itself (for `from M import a, b`: M.a and M.b
    when they are modules, else M, a name taken from it), plus the packages its
    dotted path imports on the way, except the importer's own ancestor packages
    (and the importer itself) unless a name is taken from them. Union over every
    traced entry; its cycles are the strongly connected components with more than
    one module or a self-loop.
 4. Failures: N == 0 while the traced graph has a cycle; or an import the rewrite
    moved into a function (an added line of the diff holding an import statement
    inside a function, mapped to file:line of the rewritten tree) ran while
    modules were being imported. N > 0 with an acyclic traced graph is counted as
    over-reporting (not a failure).

One line per case (`ok ...` or what failed) and a summary. Exit 1 on any
failure, 2 on a usage error.
"""
import argparse
import ast
import collections
import concurrent.futures
import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare_reach  # noqa: E402  (trace_one, rel, fail)

SUMMARY = re.compile(r"cyclefix: (\d+) import cycle\(s\).*?; (\d+) of (\d+) cut\(s\) made.*?"
                     r"; (\d+) import cycle\(s\) left")
HUNK = re.compile(rb"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def run(cmd, cwd):
    return subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


# ---------------------------------------------------------------------------
# The rewritten tree


def module_files(root):
    """module name -> real path of its file, for every importable .py under root."""
    out = {}
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x.isidentifier())
        rel = os.path.relpath(d, root)
        parts = [] if rel == "." else rel.split(os.sep)
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            stem = f[:-3]
            if stem == "__init__":
                if not parts:
                    continue
                name = ".".join(parts)
            elif stem.isidentifier():
                name = ".".join(parts + [stem])
            else:
                continue
            out[name] = os.path.realpath(os.path.join(d, f))
    return out


def added_lines(diff, workdir):
    """{real path of the rewritten file: {new line number of each added line}}."""
    added = collections.defaultdict(set)
    path, line = None, None
    for raw in diff.split(b"\n"):
        if raw.startswith(b"+++ "):
            name = raw[4:].rstrip(b"\r").split(b"\t")[0].decode("utf-8", "surrogateescape")
            path = None if name == "/dev/null" else os.path.realpath(
                os.path.join(workdir, name[2:] if name.startswith("b/") else name))
            line = None
        elif raw.startswith(b"--- ") and line is None:
            continue
        elif raw.startswith(b"@@"):
            m = HUNK.match(raw)
            line = int(m.group(1)) if m else None
        elif line is None or path is None:
            continue
        elif raw.startswith(b"+"):
            added[path].add(line)
            line += 1
        elif raw.startswith(b" ") or raw == b"" or raw == b"\r":
            line += 1
        # '-' lines and '\ No newline at end of file' do not count in the new file
    return added


def moved_imports(diff, workdir):
    """Imports the rewrite added inside a function: [(file, first line, last line, text)]."""
    out = []
    for path, lines in sorted(added_lines(diff, workdir).items()):
        try:
            with open(path, "rb") as f:
                src = f.read()
        except OSError as e:
            print("check_summary: warning: cannot read %s (%s)" % (path, e))
            continue
        try:
            tree = ast.parse(src, path)
        except (SyntaxError, ValueError) as e:
            print("check_summary: warning: cannot parse %s (%s); moved imports there found by text" % (path, e))
            text = src.decode("utf-8", "replace").splitlines()
            for n in sorted(lines):
                t = text[n - 1] if 0 < n <= len(text) else ""
                if re.match(r"[ \t]+(import|from)\s", t):
                    out.append((path, n, n, t.strip()))
            continue
        text = src.decode("utf-8", "replace").splitlines()

        def visit(node, in_function):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.Import, ast.ImportFrom)) and in_function and child.lineno in lines:
                    first, last = child.lineno, getattr(child, "end_lineno", None) or child.lineno
                    out.append((path, first, last, text[first - 1].strip() if first <= len(text) else ""))
                visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                ast.Lambda)))
        visit(tree, False)
    return out


# ---------------------------------------------------------------------------
# The traced graph


def ancestors(name):
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def import_targets(rec, own, importer, own_is_package, modules):
    """The first-party modules one import record names, as [(module, name_taken)]:
    own is the module of the file holding the import, importer the module charged."""
    base = rec.get("resolved")
    level = rec.get("level") or 0
    if base is None and level:
        package = own if own_is_package else own.rpartition(".")[0]
        try:
            base = importlib.util.resolve_name("." * level + rec["module"], package)
        except Exception:
            base = None
    if not base:
        return []
    named = []  # (module, a name is taken from it)
    fromlist = [x for x in rec.get("fromlist") or [] if x]
    if fromlist:
        for name in fromlist:
            sub = base + "." + name
            if name != "*" and sub in modules:
                named.append((sub, False))
            else:
                named.append((base, True))
    else:
        named.append((base, False))
    own = set(ancestors(importer)) | {importer}
    out = []
    for target, taken in named:
        for t in ancestors(target) + [target]:
            if t not in modules:
                continue
            if t in own and not (taken and t == target):
                continue
            out.append((t, taken and t == target))
    return out


def sccs(nodes, edges):
    """Tarjan, iterative: the components with more than one node or a self-loop."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            pushed = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    pushed = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if pushed:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1 or v in edges.get(v, ()):
                    out.append(sorted(comp))
    return out


def one_cycle(comp, edges):
    """A shortest cycle through comp[0] inside the component, as a list of modules."""
    inside = set(comp)
    start = comp[0]
    prev = {start: None}
    queue = collections.deque([start])
    while queue:
        v = queue.popleft()
        for w in sorted(edges.get(v, ())):
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w in inside and w not in prev:
                prev[w] = v
                queue.append(w)
    return comp


def call_path(rec, bodies, root):
    """How a function-local import came to run: from the <module> code down to it."""
    chain = []
    qual, f = rec.get("in_function"), rec["file"]
    seen = set()
    while qual and qual != "<module>" and (f, qual) not in seen:
        seen.add((f, qual))
        body = bodies.get((f, qual))
        if body is None:
            chain.append("%s %s" % (compare_reach.rel(f, root), qual))
            break
        caller = body.get("caller") or {}
        chain.append("%s:%s %s" % (compare_reach.rel(f, root), body["line"], qual))
        if not caller:
            break
        f, qual = caller.get("file"), caller.get("qualname")
        if qual == "<module>" or not f or not f.startswith(root + os.sep):
            chain.append("%s:%s %s" % (compare_reach.rel(f, root), caller.get("line"), qual))
            break
    chain.reverse()
    return " -> ".join(chain)


# ---------------------------------------------------------------------------
# One case


def prepare(binary, case_dir, work):
    """Copy, diff, apply; the facts the check needs."""
    name = os.path.basename(case_dir)
    args_file = os.path.join(case_dir, "args")
    args = shlex.split(open(args_file).read()) if os.path.exists(args_file) else []
    workdir = os.path.realpath(os.path.join(work, name))
    shutil.copytree(os.path.join(case_dir, "input"), os.path.join(workdir, "input"), symlinks=True,
                    ignore=shutil.ignore_patterns("__pycache__"))
    case = {"name": name, "args": args, "workdir": workdir, "root": os.path.join(workdir, "input"),
            "error": None}
    p = run([binary, "input"] + args, workdir)
    if p.returncode != 0:
        case["error"] = "`cyclefix input %s` exited %d: %s" % (
            " ".join(args), p.returncode, p.stderr.decode(errors="replace").strip()[-500:])
        return case
    diff = p.stdout
    p = run([binary, "input", "--apply"] + args, workdir)
    text = (p.stderr + b"\n" + p.stdout).decode(errors="replace")
    m = SUMMARY.search(text)
    if p.returncode != 0 or m is None:
        case["error"] = "`cyclefix input --apply %s` exited %d%s: %s" % (
            " ".join(args), p.returncode, "" if m else " with no summary line", text.strip()[-500:])
        return case
    case["summary"] = m.group(0)
    case["cycles_before"], case["cuts_made"], case["cuts_planned"], case["left"] = map(int, m.groups())
    case["moved"] = moved_imports(diff, workdir)
    case["modules"] = module_files(case["root"])
    return case


def check_case(case, runs):
    """Builds the traced graph and checks the summary; (failures, facts)."""
    root = case["root"]
    modules = case["modules"]
    by_file = {f: m for m, f in modules.items()}
    edges = collections.defaultdict(set)
    evidence = {}  # (a, b) -> "file:line [mode entry]"
    bodies = {}
    ran_moved = []
    errors = collections.Counter()  # "circular ImportError" or the error type, of traces not ok
    moved = collections.defaultdict(list)
    for path, first, last, text in case["moved"]:
        moved[path].append((first, last, text))
    for r in runs:
        end = r["end"]
        if end["outcome"] != "ok":
            kind = end.get("error_type") or end["outcome"]
            if "circular import" in (end.get("message") or ""):
                kind = "circular " + kind
            errors[kind] += 1
        run_bodies = {}
        for rec in r["records"]:
            if rec.get("kind") == "body":
                run_bodies.setdefault((rec["file"], rec["qualname"]), rec)
        for rec in r["records"]:
            if rec.get("kind") != "import":
                continue
            own = by_file.get(rec["file"])
            if own is None:
                continue
            # Charged to the module whose <module> code ran it (cyclefix's import-time
            # edge): a function-local import counts for the module that called it.
            importer = by_file.get(rec.get("module_file"), own)
            is_pkg = os.path.basename(rec["file"]) == "__init__.py"
            for t, _ in import_targets(rec, own, importer, is_pkg, modules):
                edges[importer].add(t)
                evidence.setdefault((importer, t), "%s:%s [%s %s]" % (
                    compare_reach.rel(rec["file"], root), rec["line"], r["mode"], r["module"]))
            for first, last, text in moved.get(rec["file"], ()):
                if first <= rec["line"] <= last:
                    ran_moved.append("%s:%d `%s` ran while importing %s (%s entry; imports %s; in %s; "
                                     "module code %s; call path %s)" % (
                                         compare_reach.rel(rec["file"], root), rec["line"], text, r["module"],
                                         r["mode"], rec.get("resolved") or rec["module"],
                                         rec.get("in_function"),
                                         compare_reach.rel(rec.get("module_file"), root),
                                         call_path(rec, run_bodies, root) or "?"))
        bodies.update(run_bodies)
    comps = sccs(set(modules), edges)
    failures = []
    if case["left"] == 0 and comps:
        for comp in comps:
            cyc = one_cycle(comp, edges)
            steps = "; ".join("%s -> %s at %s" % (a, b, evidence.get((a, b), "?")) for a, b in zip(cyc, cyc[1:]))
            failures.append("summary says 0 import cycle(s) left, traced cycle %s (%s)" % (
                " -> ".join(cyc), steps))
    # one line per distinct moved import that ran (the first trace that shows it)
    seen = set()
    for line in ran_moved:
        key = line.split(" ran while ")[0]
        if key not in seen:
            seen.add(key)
            failures.append("moved import " + line)
    facts = {"components": comps, "edges": sum(len(v) for v in edges.values()), "errors": errors,
             "moved_ran": len(seen), "over_report": case["left"] > 0 and not comps}
    return failures, facts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cyclefix", required=True, metavar="BIN")
    ap.add_argument("--golden", required=True, metavar="DIR")
    ap.add_argument("--entry", choices=("normal", "bare", "both"), default="bare")
    ap.add_argument("--python", default=sys.executable, help="interpreter that imports (default: this one)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per traced import")
    ap.add_argument("--keep", metavar="DIR", help="keep the rewritten trees and traces in DIR")
    args = ap.parse_args()

    binary = os.path.abspath(args.cyclefix)
    if not os.access(binary, os.X_OK):
        compare_reach.fail("%s is not an executable" % args.cyclefix)
    if not os.path.isdir(args.golden):
        compare_reach.fail("%s is not a directory" % args.golden)
    case_dirs = [os.path.join(args.golden, n) for n in sorted(os.listdir(args.golden))
                 if os.path.isdir(os.path.join(args.golden, n, "input"))]
    minor = compare_reach.python_minor(args.python)
    for d in [d for d in case_dirs if compare_reach.target_too_new(d, minor)]:
        print("%s: skipped (its --target-version is newer than %s)" % (os.path.basename(d), args.python))
        case_dirs.remove(d)
    if not case_dirs:
        compare_reach.fail("no DIR/*/input in %s" % args.golden)
    modes = ["bare", "normal"] if args.entry == "both" else [args.entry]
    started = time.monotonic()
    work = os.path.realpath(args.keep or tempfile.mkdtemp(prefix="cyclefix-summary-"))
    os.makedirs(work, exist_ok=True)
    jobs = max(1, args.jobs)
    try:
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            cases = list(pool.map(lambda d: prepare(binary, d, work), case_dirs))
            traces = os.path.join(work, "traces")
            os.makedirs(traces, exist_ok=True)
            futures = {}
            for i, case in enumerate(cases):
                if case["error"]:
                    continue
                for mode in modes:
                    for j, module in enumerate(sorted(case["modules"])):
                        out = os.path.join(traces, "c%03d-%s-%04d.jsonl" % (i, mode, j))
                        fut = pool.submit(compare_reach.trace_one, args.python, case["root"], case["root"],
                                          mode, module, out, args.timeout)
                        futures[fut] = i
            runs = collections.defaultdict(list)
            for fut in concurrent.futures.as_completed(futures):
                runs[futures[fut]].append(fut.result())
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    failed = zero = cycles = cycles_zero = moved_total = moved_ran = over = traced_imports = 0
    for i, case in enumerate(cases):
        name = case["name"]
        if case["error"]:
            failed += 1
            print("%s: FAIL: %s" % (name, case["error"]))
            continue
        case_runs = sorted(runs[i], key=lambda r: (r["mode"], r["module"]))
        traced_imports += len(case_runs)
        failures, facts = check_case(case, case_runs)
        zero += case["left"] == 0
        cycles += len(facts["components"])
        cycles_zero += len(facts["components"]) if case["left"] == 0 else 0
        moved_total += len(case["moved"])
        moved_ran += facts["moved_ran"]
        over += facts["over_report"]
        errors = ", ".join("%s %d" % kv for kv in sorted(facts["errors"].items()))
        info = "left %d, cuts %d/%d, %d moved import(s), %d trace(s)%s, traced cycles %d%s" % (
            case["left"], case["cuts_made"], case["cuts_planned"], len(case["moved"]), len(case_runs),
            " (not ok: %s)" % errors if errors else "", len(facts["components"]),
            (": " + ", ".join("{%s}" % " ".join(c) for c in facts["components"])) if facts["components"] else "")
        if facts["over_report"]:
            info += "; over-reported: summary says %d left, traced graph acyclic" % case["left"]
        if failures:
            failed += 1
            print("%s: FAIL (%s)" % (name, info))
            for f in failures:
                print("    " + f)
        else:
            print("%s: ok (%s)" % (name, info))
    wall = time.monotonic() - started
    print("check_summary: %d case(s), %d failed; %d with 0 import cycle(s) left; traced cycles found %d "
          "(%d in cases claiming 0 left); moved imports %d, of which ran at import time %d; "
          "over-reported (left > 0, traced acyclic) %d; %d traced import(s) (%s entry); %.1f s" % (
              len(cases), failed, zero, cycles, cycles_zero, moved_total, moved_ran, over, traced_imports,
              "/".join(modes), wall))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
