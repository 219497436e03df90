#!/usr/bin/env python3
"""Import-time truth: what CPython runs at import against `cyclefix reach`.

    compare_reach.py --cyclefix BIN ROOT [ROOT...] [--golden DIR [--golden-fixed]]
                     [--package PKG] [--modules M1,M2 | --all] [--entry normal|bare|both]
                     [--min-recall 1.0] [--jobs N] [--timeout 120] [--report FILE.json]
                     [--show N] [--python PY] [--keep DIR [--reuse]] [--quiet-cases]

Each ROOT (a directory holding top-level packages, as on sys.path) is one case;
--golden DIR adds every DIR/*/input as a case named after its folder (and with
--golden-fixed the same tree with expected.diff applied, NAME+fix). For a case,
`BIN reach ROOT --root ROOT --json -` gives the model: per module, the function
bodies its import-time code runs. Then tests/oracle/trace_import.py imports each
module in a fresh interpreter per entry mode (in parallel) and records every
first-party code object that really ran, attributed to the module whose
<module> code caused it (the nearest first-party <module> frame below it).

  recall    = traced (module, function body) pairs found in the model's bodies
              of that module / traced pairs. A traced body matches a model body of
              the same file by qualified name with every <locals> dropped, or else
              by its first line lying in [first_line, line] of the model body
              (counted apart). Lambdas and comprehensions count as their enclosing
              def; inside a class body or at module level they are dropped.
              Class bodies and <module> code are not function bodies.
  precision = the model's (module, body) pairs whose body ran anywhere in that
              mode's imports / all model pairs, over the modules whose code ran
              (and, second figure, over those that finished importing).

Imports executed inside a function at import time are counted, and checked
against the model: such an import is "known" when its function is one of the
model's bodies for that module.

Each miss gets a guessed cause (operator dunder, property, self/cls dispatch,
callback, ...) from its name, decorator line and calling line; a miss called by
another miss of the same module is a cascade, charged to the first miss up the
chain. Each body is recorded once per interpreter (its first run), so a body that
runs for several modules of one import counts only for the first: recall is
measured on what that leaves.

--package PKG restricts the modules to PKG and its submodules, the analysed tree
and the first-party code to ROOT/PKG (so ROOT can be dist-packages). Exit status:
1 when the recall of some case in some mode is below --min-recall, 2 on a usage or
cyclefix failure, else 0.
"""
import argparse
import collections
import concurrent.futures
import json
import linecache
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TRACE = os.path.join(HERE, "trace_import.py")
ANONYMOUS = {"<lambda>", "<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>"}
OPERATOR_DUNDERS = {
    "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__", "__bool__",
    "__len__", "__contains__", "__iter__", "__next__", "__reversed__", "__getitem__",
    "__setitem__", "__delitem__", "__missing__", "__str__", "__repr__", "__format__",
    "__bytes__", "__int__", "__float__", "__index__", "__complex__", "__round__",
    "__neg__", "__pos__", "__abs__", "__invert__", "__add__", "__radd__", "__iadd__",
    "__sub__", "__rsub__", "__isub__", "__mul__", "__rmul__", "__imul__", "__matmul__",
    "__rmatmul__", "__truediv__", "__rtruediv__", "__itruediv__", "__floordiv__",
    "__rfloordiv__", "__mod__", "__rmod__", "__divmod__", "__rdivmod__", "__pow__",
    "__rpow__", "__ipow__", "__lshift__", "__rlshift__", "__rshift__", "__rrshift__",
    "__and__", "__rand__", "__iand__", "__or__", "__ror__", "__ior__", "__xor__",
    "__rxor__", "__ixor__", "__copy__", "__deepcopy__", "__reduce__", "__reduce_ex__",
    "__getstate__", "__setstate__", "__sizeof__", "__dir__", "__fspath__"}
CLASS_HOOKS = {"__init_subclass__", "__set_name__", "__class_getitem__", "__prepare__",
               "__mro_entries__", "__instancecheck__", "__subclasscheck__",
               "__subclasshook__"}


def fail(msg):
    print("compare_reach: " + msg, file=sys.stderr)
    sys.exit(2)


def real(path, base):
    return os.path.realpath(os.path.join(base, path))


def drop_locals(qualname):
    return ".".join(p for p in qualname.split(".") if p != "<locals>")


def enclosing_def(qualname):
    """A traced qualname as a def: lambdas and comprehensions become their
    enclosing def; None when that is a class body or the module."""
    parts = qualname.split(".")
    if parts[-1] not in ANONYMOUS:
        return drop_locals(qualname), False
    last = None
    while parts and (parts[-1] in ANONYMOUS or parts[-1] == "<locals>"):
        last = parts.pop()
    if not parts or last != "<locals>":
        return None, True
    return drop_locals(".".join(parts)), True


# ---------------------------------------------------------------------------
# The model


class Model:
    """`cyclefix reach` for one case: bodies per module file."""

    def __init__(self, report, base):
        self.modules = {}  # module file -> module name
        self.files = {}  # module name -> module file
        self.bodies = {}  # module file -> [body dict]
        self.names = {}  # module file -> {(body file, normalised name)}
        self.anywhere = collections.defaultdict(set)  # (body file, name) -> {module file}
        self.def_lines = collections.defaultdict(set)  # (body file, name) -> {line}
        for m in report["modules"]:
            f = real(m["file"], base)
            self.modules[f] = m["module"]
            self.files[m["module"]] = f
            bodies = []
            for b in m["bodies"]:
                body = {"file": real(b["file"], base), "function": b["function"],
                        "name": drop_locals(b["function"]), "line": b["line"],
                        "first_line": b.get("first_line", b["line"]),
                        "assumed": bool(b.get("assumed"))}
                bodies.append(body)
                self.anywhere[(body["file"], body["name"])].add(f)
                self.def_lines[(body["file"], body["name"])].add(body["line"])
            self.bodies[f] = bodies
            self.names[f] = {(b["file"], b["name"]) for b in bodies}

    def match(self, module_file, body_file, name, line):
        """How a traced body (its first line, or None for a lambda standing for
        its def) matches one of module_file's bodies: 'name' (same name, and the
        line in the body's [first_line, line]), 'line' (other name, line in range),
        'name_only' (same name, line outside every such range), or None."""
        bodies = [b for b in self.bodies.get(module_file, ()) if b["file"] == body_file]
        in_range = [b for b in bodies if line is not None and b["first_line"] <= line <= b["line"]]
        same = [b for b in bodies if b["name"] == name]
        if any(b["name"] == name for b in in_range) or (same and line is None):
            return "name"
        if in_range:
            return "line"
        if same:
            return "name_only"
        return None

    def unique_name(self, body):
        """True when no other def in the model has body's file and name."""
        return len(self.def_lines[(body["file"], body["name"])]) == 1


def run_reach(binary, root, package):
    target = os.path.join(root, package) if package else root
    cmd = [binary, "reach", target, "--root", root, "--json", "-", "-q", "--no-cache"]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=os.getcwd())
    if proc.returncode != 0:
        fail("%s exited with %d: %s" % (" ".join(cmd), proc.returncode, proc.stderr.strip()[-2000:]))
    try:
        return json.loads(proc.stdout)
    except ValueError as e:
        fail("%s: not JSON (%s)" % (" ".join(cmd), e))


# ---------------------------------------------------------------------------
# Tracing


def read_trace(out):
    records = []
    try:
        with open(out, encoding="utf-8", errors="surrogateescape") as f:
            for line in f:
                try:
                    records.append(json.loads(line))
                except ValueError:
                    break  # the line a crash cut short
    except OSError:
        pass
    return records


def trace_one(python, root, first_party, mode, module, out, timeout, reuse=False):
    if reuse:
        records = read_trace(out)
        if records and records[-1].get("kind") == "end":
            return {"module": module, "mode": mode, "records": records, "end": records[-1], "seconds": 0.0}
    cmd = [python, "-B", TRACE, "--mode", mode, "--root", root, "--first-party", first_party,
           "--out", out, module]
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONPATH", None)
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env, cwd=os.path.dirname(out), start_new_session=True)
    status = None
    try:
        _, err = proc.communicate(timeout=timeout)
        status = proc.returncode
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        _, err = proc.communicate()
        status = "timeout"
    records = read_trace(out)
    end = records[-1] if records and records[-1].get("kind") == "end" else None
    if end is None:
        outcome = "timeout" if status == "timeout" else "crash"
        message = "exit status %s: %s" % (status, (err or b"").decode("utf-8", "replace").strip()[-500:])
        end = {"kind": "end", "outcome": outcome, "error_type": None, "message": message}
        records.append(end)
    return {"module": module, "mode": mode, "records": records, "end": end,
            "seconds": time.monotonic() - start}


# ---------------------------------------------------------------------------
# Comparison


def source_line(path, line):
    return linecache.getline(path, line).strip() if line else ""


def called_from(caller, first_party_dir):
    """The kind of frame that called a traced body."""
    cfile = caller.get("file") or ""
    if not cfile.startswith(first_party_dir.rstrip(os.sep) + os.sep):
        return "non-first-party"
    if caller.get("qualname") == "<module>":
        return "module code"
    if caller.get("class_body"):
        return "a class body"
    return "a function"


def classify_miss(miss, model, first_party_dir):
    """A best guess at the mechanism by which a body the model lacks was run."""
    last = miss["qualname"].split(".")[-1]
    if last in ("__annotate__", "__annotate_func__"):
        return "annotations evaluated at import (PEP 649 __annotate__, 3.14+)"
    if last in OPERATOR_DUNDERS:
        return "operator/protocol dunder"
    if last in ("__get__", "__set__", "__delete__"):
        return "descriptor __get__/__set__"
    if last in ("__getattr__", "__getattribute__", "__setattr__", "__delattr__"):
        return "attribute hook " + last
    if last in CLASS_HOOKS:
        return "class-creation hook " + last
    if last in ("__enter__", "__exit__", "__aenter__", "__aexit__"):
        return "context manager"
    deco = source_line(miss["file"], miss["line"])
    if deco.startswith("@"):
        name = deco[1:].split("(")[0].strip()
        if name.endswith(("property", ".setter", ".getter", ".deleter")):
            return "property/cached_property"
    caller = miss.get("caller") or {}
    cfile = caller.get("file") or ""
    where = called_from(caller, first_party_dir)
    if where == "non-first-party":
        base = os.path.basename(cfile)
        if base == "__init__.py":
            base = os.path.basename(os.path.dirname(cfile)) + "/__init__.py"
        return "called back from non-first-party " + base
    if last in ("__init__", "__new__", "__call__", "__post_init__"):
        return "constructor/%s from %s" % ("__call__" if last == "__call__" else "__init__", where)
    # How does the calling line name the callee? Not at all: a builtin called it
    # back (sorted(key=f), reduce, a C-level protocol) or it was called through a
    # variable, a parameter or a decorator's wrapper.
    text = source_line(cfile, caller.get("line"))
    name = re.escape(last)
    if re.search(r"\b(self|cls|mcs|mcls|metacls)\.%s\s*\(" % name, text):
        how = "self/cls method call (an override reached by dispatch)"
    elif re.search(r"\.%s\s*\(" % name, text):
        how = "method call on another object"
    elif re.search(r"\b%s\s*\(" % name, text):
        how = "plain call by name"
    elif "<locals>" in caller.get("qualname", "") and where == "a function":
        how = "implicit call from a closure (decorator wrapper, factory result)"
    else:
        how = "implicit call (callback, variable, alias)"
    return "%s from %s" % (how, where)


def compare_mode(case, model, runs, show):
    """Figures for one case and one entry mode."""
    root, fp_dir = case["root"], case["first_party"]
    outcomes = collections.Counter()
    errors = collections.Counter()
    started, completed = set(), set()
    traced = {}  # (module file, body file, name, line or None) -> record
    ran = []  # (body file, name, line) of every function body that ran
    imports = {}
    for run in runs:
        end = run["end"]
        outcomes[end["outcome"]] += 1
        if end["outcome"] != "ok":
            errors[end.get("error_type") or end["outcome"]] += 1
        mods, loaded = set(), set()
        for r in run["records"]:
            kind = r.get("kind")
            if kind == "module":
                mods.add(r["file"])
            elif kind == "loaded":
                loaded = set(r["files"])
            elif kind == "body" and not r["class_body"]:
                name, anonymous = enclosing_def(r["qualname"])
                if name is None:
                    continue
                ran.append((r["file"], name, None if anonymous else r["line"]))
                if r["module_file"] is None:
                    continue
                key = (r["module_file"], r["file"], name, None if anonymous else r["line"])
                if key not in traced:
                    traced[key] = dict(r, name=name, anonymous=anonymous, run=run["module"])
            elif kind == "import" and r.get("in_function") and not r.get("in_class_body"):
                key = (r["file"], r["line"], r["in_function"], r.get("resolved") or r["module"],
                       r.get("module_file"))
                imports.setdefault(key, r)
        started |= mods
        completed |= mods & loaded
    # A lambda or comprehension stands for its def only when the def itself was not traced.
    named = {(k[0], k[1], k[2]) for k in traced if k[3] is not None}
    for k in [k for k in traced if k[3] is None and (k[0], k[1], k[2]) in named]:
        del traced[k]

    by_name, by_line, name_only, misses = 0, 0, 0, []
    for key, r in sorted(traced.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[1]["line"])):
        how = model.match(key[0], key[1], key[2], key[3])
        if how == "name":
            by_name += 1
        elif how == "line":
            by_line += 1
        elif how == "name_only":
            name_only += 1
        else:
            miss = {"module_file": key[0], "module": model.modules.get(key[0], rel(key[0], root)),
                    "file": r["file"], "line": r["line"], "qualname": r["qualname"],
                    "name": key[2], "caller": r.get("caller"), "entry": r.get("entry"),
                    "traced_in": r["run"]}
            miss["cause"] = classify_miss(miss, model, fp_dir)
            miss["listed_elsewhere"] = bool(model.anywhere.get((r["file"], key[2])))
            misses.append(miss)

    ran_names = {(f, n) for f, n, _ in ran}
    ran_lines = collections.defaultdict(set)
    for f, _, line in ran:
        if line is not None:
            ran_lines[f].add(line)

    def body_ran(b):
        # By line; by name only when no other def of the model shares it (overloads,
        # property setters and conditional defs share a qualified name).
        if any(b["first_line"] <= line <= b["line"] for line in ran_lines.get(b["file"], ())):
            return True
        return (b["file"], b["name"]) in ran_names and model.unique_name(b)

    model_pairs = {"exact": 0, "assumed": 0}
    hits = {"exact": 0, "assumed": 0}
    completed_pairs = completed_hits = 0
    unrun = []
    for mf in sorted(started):
        for b in model.bodies.get(mf, ()):
            kind = "assumed" if b["assumed"] else "exact"
            model_pairs[kind] += 1
            ok = body_ran(b)
            hits[kind] += ok
            if mf in completed:
                completed_pairs += 1
                completed_hits += ok
            if not ok and not b["assumed"]:
                unrun.append({"module": model.modules[mf], "file": b["file"], "line": b["line"],
                              "function": b["function"]})

    known_imports, unknown_imports = 0, []
    for key, r in sorted(imports.items()):
        mf = r.get("module_file")
        if mf is not None and (r["file"], drop_locals(r["in_function"])) in model.names.get(mf, ()):
            known_imports += 1
        else:
            unknown_imports.append({"file": r["file"], "line": r["line"], "in_function": r["in_function"],
                                    "module": key[3], "via": r["via"],
                                    "module_of_import_time": model.modules.get(mf, mf)})

    # A miss whose caller is itself a miss (same module) is a cascade: charge it to
    # the first miss up its chain of callers (the root), whose caller the model
    # does list (or is module code, a class body, or not first-party).
    by_body = {(m["module_file"], m["file"], m["name"]): m for m in misses}
    for m in misses:
        root, seen = m, {id(m)}
        while True:
            c = root.get("caller") or {}
            cname = enclosing_def(c.get("qualname", ""))[0] if c.get("qualname") else None
            up = by_body.get((root["module_file"], c.get("file"), cname))
            if up is None or id(up) in seen:
                break
            seen.add(id(up))
            root = up
        c = m.get("caller") or {}
        m["caller_listed"] = bool(c.get("qualname") and called_from(c, fp_dir) == "a function" and model.match(
            m["module_file"], c.get("file"), enclosing_def(c["qualname"])[0], None))
        m["root"] = "%s:%s %s" % (root["file"], root["line"], root["qualname"])
        m["root_cause"] = root["cause"]
        m["cascade"] = root is not m

    n_traced = len(traced)
    n_model = model_pairs["exact"] + model_pairs["assumed"]
    return {
        "modules_run": len(runs),
        "outcomes": dict(outcomes),
        "error_types": dict(errors.most_common()),
        "modules_started": len(started),
        "modules_completed": len(completed),
        "traced_bodies": n_traced,
        "matched_by_name": by_name,
        "matched_by_line_only": by_line,
        "matched_by_name_only": name_only,
        "recall": (by_name + by_line + name_only) / n_traced if n_traced else 1.0,
        "model_bodies": n_model,
        "model_bodies_exact": model_pairs["exact"],
        "model_bodies_assumed": model_pairs["assumed"],
        "model_bodies_traced": hits["exact"] + hits["assumed"],
        "model_bodies_traced_exact": hits["exact"],
        "precision": (hits["exact"] + hits["assumed"]) / n_model if n_model else 1.0,
        "precision_exact": hits["exact"] / model_pairs["exact"] if model_pairs["exact"] else 1.0,
        "model_bodies_finished": completed_pairs,
        "model_bodies_finished_traced": completed_hits,
        "precision_completed": completed_hits / completed_pairs if completed_pairs else 1.0,
        "in_function_imports": len(imports),
        "in_function_imports_known": known_imports,
        "misses": misses,
        "miss_causes": dict(collections.Counter(m["cause"] for m in misses).most_common()),
        "miss_root_causes": dict(collections.Counter(
            m["cause"] for m in misses if not m["cascade"]).most_common()),
        "miss_cascade_causes": dict(collections.Counter(m["root_cause"] for m in misses).most_common()),
        "misses_cascaded": sum(m["cascade"] for m in misses),
        "misses_listed_elsewhere": sum(m["listed_elsewhere"] for m in misses),
        "misses_first_caller_listed": sum(m["caller_listed"] for m in misses if not m["cascade"]),
        "exact_bodies_not_run": unrun,
        "unknown_in_function_imports": unknown_imports,
    }


def python_minor(python):
    """The minor version of interpreter `python` (3.<minor>)."""
    if python == sys.executable:
        return sys.version_info[1]
    out = subprocess.run([python, "-c", "import sys; print(sys.version_info[1])"], capture_output=True, text=True)
    return int(out.stdout)


def target_too_new(case_dir, python_minor):
    """Whether the case's --target-version (its args file) is newer than Python
    3.<python_minor>: its rewritten tree may use syntax that interpreter rejects
    (`lazy import`, 3.15). The case's input tree is still traced."""
    args_file = os.path.join(case_dir, "args")
    if not os.path.exists(args_file):
        return False
    m = re.search(r"--target-version[ =]3\.(\d+)", open(args_file).read())
    return bool(m) and int(m.group(1)) > python_minor


def apply_expected_diff(case_dir, dest):
    """dest/input = case_dir/input with case_dir/expected.diff applied; its path, or
    None when the case has no diff."""
    diff = os.path.join(case_dir, "expected.diff")
    if not os.path.exists(diff) or os.path.getsize(diff) == 0:
        return None
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(os.path.join(case_dir, "input"), os.path.join(dest, "input"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    for cmd in (["git", "apply", os.path.abspath(diff)], ["patch", "-s", "-p1", "-i", os.path.abspath(diff)]):
        try:
            p = subprocess.run(cmd, cwd=dest, capture_output=True, text=True)
        except OSError:
            continue
        if p.returncode == 0:
            return os.path.join(dest, "input")
    fail("cannot apply %s: %s" % (diff, p.stderr.strip()))


def rel(path, root):
    if path and path.startswith(root + os.sep):
        return path[len(root) + 1:]
    return path


def format_miss(m, root):
    text = "%s:%s %s (module %s" % (rel(m["file"], root), m["line"], m["qualname"], m["module"])
    e = m.get("entry")
    if e:
        text += "; first frame %s:%s -> %s" % (rel(e["file"], root), e["line"], e["callee"])
    c = m.get("caller")
    if c and not (e and c["qualname"] == "<module>"):
        text += "; caller %s:%s %s" % (rel(c["file"], root), c["line"], c["qualname"])
    text += ") [" + m["cause"]
    if m.get("cascade"):
        text += "; after " + rel(m["root"], root)
    if m.get("listed_elsewhere"):
        text += "; listed for another module"
    return text + "]"


def print_mode(name, mode, fig, root, show, seconds=None):
    outcomes = ", ".join("%s %d" % kv for kv in sorted(fig["outcomes"].items()))
    print("%s [%s]: %d modules run (%s), %d modules' code ran, %d finished%s" % (
        name, mode, fig["modules_run"], outcomes, fig["modules_started"], fig["modules_completed"],
        "" if seconds is None else ", %.1f s" % seconds))
    print("  traced bodies %d, matched %d (%d by line only, %d by name only): recall %.4f" % (
        fig["traced_bodies"], matched(fig), fig["matched_by_line_only"],
        fig["matched_by_name_only"], fig["recall"]))
    print("  model bodies %d (%d exact, %d assumed), traced %d: precision %.4f (exact %.4f, "
          "finished modules %.4f)" % (
              fig["model_bodies"], fig["model_bodies_exact"], fig["model_bodies_assumed"],
              fig["model_bodies_traced"], fig["precision"], fig["precision_exact"],
              fig["precision_completed"]))
    print("  in-function imports at import time %d, inside a model body %d" % (
        fig["in_function_imports"], fig["in_function_imports_known"]))
    if fig["error_types"]:
        top = ", ".join("%s %d" % kv for kv in list(fig["error_types"].items())[:6])
        print("  import errors: " + top)
    if fig["misses"]:
        roots = ", ".join("%s %d" % kv for kv in fig["miss_root_causes"].items())
        print("  misses: %d, %d of them called by another miss, %d listed for another module" % (
            len(fig["misses"]), fig["misses_cascaded"], fig["misses_listed_elsewhere"]))
        print("  first misses (%d; %d called by a function the model lists for the module) by cause: %s" % (
            len(fig["misses"]) - fig["misses_cascaded"], fig["misses_first_caller_listed"], roots))
        for m in fig["misses"][:show]:
            print("    miss " + format_miss(m, root))
        if len(fig["misses"]) > show:
            print("    ... %d more misses" % (len(fig["misses"]) - show))
    unrun = fig["exact_bodies_not_run"]
    if unrun:
        print("  listed (exact) but never ran: %d" % len(unrun))
        for u in unrun[:show]:
            print("    not run %s:%s %s (module %s)" % (rel(u["file"], root), u["line"], u["function"], u["module"]))
        if len(unrun) > show:
            print("    ... %d more" % (len(unrun) - show))


def matched(fig):
    return (fig.get("matched_by_name", 0) + fig.get("matched_by_line_only", 0)
            + fig.get("matched_by_name_only", 0))


def merge(figs):
    """Overall figures: sums over cases."""
    total = collections.Counter()
    outcomes = collections.Counter()
    causes = collections.Counter()
    root_causes = collections.Counter()
    cascade_causes = collections.Counter()
    for f in figs:
        root_causes.update(f["miss_root_causes"])
        cascade_causes.update(f["miss_cascade_causes"])
        for k, v in f.items():
            if isinstance(v, int) and not isinstance(v, bool):
                total[k] += v
        outcomes.update(f["outcomes"])
        causes.update(f["miss_causes"])
    t = dict(total)
    t["recall"] = matched(t) / t["traced_bodies"] if t.get("traced_bodies") else 1.0
    t["precision"] = (t["model_bodies_traced"] / t["model_bodies"]) if t.get("model_bodies") else 1.0
    t["precision_exact"] = (t["model_bodies_traced_exact"] / t["model_bodies_exact"]
                            if t.get("model_bodies_exact") else 1.0)
    t["precision_completed"] = (t["model_bodies_finished_traced"] / t["model_bodies_finished"]
                                if t.get("model_bodies_finished") else 1.0)
    t["outcomes"] = dict(outcomes)
    t["miss_causes"] = dict(causes.most_common())
    t["miss_root_causes"] = dict(root_causes.most_common())
    t["miss_cascade_causes"] = dict(cascade_causes.most_common())
    return t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("roots", nargs="*", metavar="ROOT")
    ap.add_argument("--cyclefix", required=True, metavar="BIN")
    ap.add_argument("--golden", metavar="DIR", help="add every DIR/*/input as a case")
    ap.add_argument("--golden-fixed", action="store_true",
                    help="with --golden, also each case's input with its expected.diff applied "
                         "(case NAME+fix): the cycles cut, so the import-time code runs to the end")
    ap.add_argument("--package", metavar="PKG")
    sel = ap.add_mutually_exclusive_group()
    sel.add_argument("--modules", metavar="M1,M2")
    sel.add_argument("--all", action="store_true", help="every module the model lists (default)")
    ap.add_argument("--entry", choices=("normal", "bare", "both"), default="both")
    ap.add_argument("--min-recall", type=float, default=1.0)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per traced import")
    ap.add_argument("--report", metavar="FILE.json")
    ap.add_argument("--show", type=int, default=20, help="misses to print per case and mode")
    ap.add_argument("--python", default=sys.executable, help="interpreter that imports (default: this one)")
    ap.add_argument("--keep", metavar="DIR", help="keep the traces (JSON lines) in DIR")
    ap.add_argument("--reuse", action="store_true",
                    help="with --keep, read the complete traces already in DIR instead of importing again "
                         "(same ROOTs, options and model)")
    ap.add_argument("--quiet-cases", action="store_true",
                    help="print only cases below --min-recall or with misses, and the totals")
    args = ap.parse_args()

    binary = os.path.abspath(args.cyclefix)
    if not os.access(binary, os.X_OK):
        fail("%s is not an executable" % args.cyclefix)
    cases = []
    for r in args.roots:
        if not os.path.isdir(r):
            fail("%s is not a directory" % r)
        cases.append({"name": r, "root": os.path.realpath(r)})
    work = args.keep or tempfile.mkdtemp(prefix="cyclefix-oracle-")
    os.makedirs(work, exist_ok=True)
    if args.golden:
        for name in sorted(os.listdir(args.golden)):
            inp = os.path.join(args.golden, name, "input")
            if os.path.isdir(inp):
                cases.append({"name": name, "root": os.path.realpath(inp)})
                too_new = target_too_new(os.path.join(args.golden, name), python_minor(args.python))
                if args.golden_fixed and too_new:
                    print("%s+fix: skipped (its --target-version is newer than %s)" % (name, args.python))
                fixed = args.golden_fixed and not too_new and apply_expected_diff(
                    os.path.join(args.golden, name), os.path.join(work, "fixed", name))
                if fixed:
                    cases.append({"name": name + "+fix", "root": os.path.realpath(fixed)})
    if not cases:
        fail("no ROOT and no --golden cases")
    modes = ["normal", "bare"] if args.entry == "both" else [args.entry]
    wanted = [m for m in args.modules.split(",") if m] if args.modules else None

    jobs = []
    for i, case in enumerate(cases):
        pkg = args.package
        case["first_party"] = os.path.join(case["root"], pkg) if pkg else case["root"]
        case["model"] = Model(run_reach(binary, case["root"], pkg), os.getcwd())
        names = sorted(case["model"].files)
        if pkg:
            names = [n for n in names if n == pkg or n.startswith(pkg + ".")]
        if wanted is not None:
            names = wanted
        case["modules"] = names
        for mode in modes:
            for j, module in enumerate(names):
                out = os.path.join(work, "c%03d-%s-%05d.jsonl" % (i, mode, j))
                jobs.append((case, mode, module, out))

    results = collections.defaultdict(list)
    seconds = collections.Counter()
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        futures = {pool.submit(trace_one, args.python, case["root"], case["first_party"], mode,
                               module, out, args.timeout, args.reuse and bool(args.keep)):
                   (case["name"], mode)
                   for case, mode, module, out in jobs}
        for fut in concurrent.futures.as_completed(futures):
            key = futures[fut]
            res = fut.result()
            results[key].append(res)
            seconds[key[1]] += res["seconds"]
    wall = time.monotonic() - started
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)

    report = {"cyclefix": binary, "python": args.python, "entry": modes, "cases": [],
              "overall": {}, "wall_seconds": wall, "cpu_seconds_per_mode": dict(seconds)}
    below = []
    per_mode = collections.defaultdict(list)
    for case in cases:
        entry = {"name": case["name"], "root": case["root"], "modules": case["modules"], "modes": {}}
        for mode in modes:
            runs = sorted(results[(case["name"], mode)], key=lambda r: r["module"])
            fig = compare_mode(case, case["model"], runs, args.show)
            entry["modes"][mode] = fig
            per_mode[mode].append(fig)
            bad = fig["recall"] < args.min_recall
            if bad:
                below.append("%s [%s] recall %.4f" % (case["name"], mode, fig["recall"]))
            if not args.quiet_cases or bad or fig["misses"] or (
                    fig["exact_bodies_not_run"] and fig["precision_completed"] < 1.0):
                print_mode(case["name"], mode, fig, case["root"], args.show)
        report["cases"].append(entry)
    if len(cases) > 1:
        print("overall (%d cases, %.1f s wall):" % (len(cases), wall))
        for mode in modes:
            t = merge(per_mode[mode])
            report["overall"][mode] = t
            print("  [%s] %d modules run (%s); traced %d, matched %d (%d by line only, %d by name only): "
                  "recall %.4f; "
                  "model %d (%d exact, %d assumed), traced %d: precision %.4f (exact %.4f, "
                  "finished modules %.4f); "
                  "in-function imports %d, inside a model body %d" % (
                      mode, t.get("modules_run", 0),
                      ", ".join("%s %d" % kv for kv in sorted(t["outcomes"].items())),
                      t.get("traced_bodies", 0), matched(t), t.get("matched_by_line_only", 0),
                      t.get("matched_by_name_only", 0), t["recall"], t.get("model_bodies", 0),
                      t.get("model_bodies_exact", 0), t.get("model_bodies_assumed", 0),
                      t.get("model_bodies_traced", 0), t["precision"], t["precision_exact"],
                      t["precision_completed"],
                      t.get("in_function_imports", 0), t.get("in_function_imports_known", 0)))
    else:
        for mode in modes:
            report["overall"][mode] = per_mode[mode][0]
        print("wall %.1f s; interpreter seconds per mode: %s" % (
            wall, ", ".join("%s %.1f" % kv for kv in sorted(seconds.items()))))
    if args.report:
        with open(args.report, "w") as f:
            json.dump(report, f, indent=1, sort_keys=True)
    if below:
        print("compare_reach: recall below %g: %s" % (args.min_recall, "; ".join(below)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
