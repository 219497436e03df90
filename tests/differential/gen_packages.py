#!/usr/bin/env python3
"""Random small Python packages full of import cycles, for differential tests.

    gen_packages.py --seed S --count N --out DIR [--check]

writes DIR/case_000/ ... DIR/case_{N-1}/, each a source root holding one
top-level package `p` of 3-6 modules (sometimes with a subpackage `p.s`), and
DIR/cases.json listing each case's root (relative to DIR) and its modules. The
same seed gives the same files, byte for byte; case i does not depend on N.

Only the standard library is imported. Every name is bound once per module.
When an import succeeds, everything the module then uses is defined, so the
only way a module can fail to import is a circular-import error: ImportError
"cannot import name ... from partially initialized module ...", or
AttributeError "partially initialized module ... has no attribute ..." /
"cannot access submodule ... (most likely due to a circular import)".

--check imports every module first in fresh interpreters, in normal and bare
entry mode (see README.md), prints how many failed, and exits 1 if anything
failed for another reason (a generator bug).
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

PKG = "p"
SUB = "s"


class Module:
    def __init__(self, name, is_package):
        self.name = name  # "p", "p.a", "p.s", "p.s.m"
        self.is_package = is_package
        self.short = name.rsplit(".", 1)[-1]
        # The package relative imports start from.
        self.package = name if is_package else name.rsplit(".", 1)[0]
        self.exports = []  # (name, kind): kind "V" value, "F" function (also a decorator), "C" class
        self.bound = []  # names bound at module level
        self.body = []  # chunks of code, in order
        self.counter = 0
        self.future = False  # from __future__ import annotations
        self.type_checking = None  # "from" (from typing import TYPE_CHECKING) or "typing" (import typing)

    def fresh(self):
        self.counter += 1
        return self.counter

    def bind(self, name):
        assert name not in self.bound, (self.name, name)
        self.bound.append(name)

    @property
    def path(self):
        parts = self.name.split(".")
        if self.is_package:
            return os.path.join(*parts, "__init__.py")
        return os.path.join(*parts[:-1], parts[-1] + ".py")


def indent(text, n=1):
    pad = "    " * n
    return "\n".join(pad + line if line else line for line in text.split("\n"))


class Case:
    def __init__(self, rng):
        self.rng = rng
        self.modules = []
        n_leaves = rng.randint(3, 6)
        n_sub = rng.choice([0, 0, 0, 1, 2]) if n_leaves >= 4 else rng.choice([0, 0, 1])
        n_top = n_leaves - n_sub
        self.root_pkg = Module(PKG, True)
        self.modules.append(self.root_pkg)
        self.leaves = []
        for short in "abcdef"[:n_top]:
            self.leaves.append(Module(PKG + "." + short, False))
        self.sub_pkg = None
        if n_sub:
            self.sub_pkg = Module(PKG + "." + SUB, True)
            self.modules.append(self.sub_pkg)
            for short in "mn"[:n_sub]:
                self.leaves.append(Module(PKG + "." + SUB + "." + short, False))
        self.modules.extend(self.leaves)
        self.modules.sort(key=lambda m: m.name)

    # ---- how one module refers to another ------------------------------------

    def relative(self, importer, target):
        """(from-part, name) for `from <from-part> import <name>` naming target relatively, or None."""
        base = importer.package
        parent, short = target.name.rsplit(".", 1)
        if parent == base:
            return ".", short
        if parent + "." + SUB == base:  # from the subpackage up to p
            return "..", short
        return None

    def import_form(self, importer, target, local, allow_plain, taken):
        """An import statement that binds something through which `target` is
        reached, and how to refer to target's export through it.

        Returns (statement, bound_name, ref(export) -> expression) or None."""
        rng = self.rng
        forms = ["from_name"] * 4 + ["alias"] * 2 + ["from_pkg"] * 2 + ["from_rel"] + ["plain"]
        rng.shuffle(forms)
        for form in forms:
            if form == "from_name":
                free = [e for e in target.exports if e[0] not in taken]
                if not free:
                    continue
                export = rng.choice(free)
                rel = self.relative(importer, target) if rng.random() < 0.35 else None
                module_part = rel[0] + rel[1] if rel else target.name
                return ("from %s import %s" % (module_part, export[0]), export[0],
                        lambda e, x=export: x[0] if e == x else None)
            if form == "alias":
                alias = "mod_" + target.short
                if alias in taken:
                    continue
                return ("import %s as %s" % (target.name, alias), alias, lambda e, a=alias: a + "." + e[0])
            if form == "from_pkg":
                if target.short in taken:
                    continue
                parent = target.name.rsplit(".", 1)[0]
                return ("from %s import %s" % (parent, target.short), target.short,
                        lambda e, s=target.short: s + "." + e[0])
            if form == "from_rel":
                rel = self.relative(importer, target)
                if rel is None or target.short in taken:
                    continue
                return ("from %s import %s" % rel, target.short, lambda e, s=target.short: s + "." + e[0])
            if form == "plain":
                if not allow_plain or PKG in taken:
                    continue
                return ("import %s" % target.name, PKG, lambda e, n=target.name: n + "." + e[0])
        return None

    # ---- module-level uses of an imported export -----------------------------

    def uses(self, m, ref, export):
        """Chunks that use `ref` (an expression for `export`) at import time."""
        rng = self.rng
        name, kind = export
        out = []
        for _ in range(rng.choice([0, 1, 1, 1, 2])):
            k = m.fresh()
            options = ["read", "annotation", "default"]
            if kind == "F":
                options += ["call", "decorator", "decorator"]
            if kind == "C":
                options += ["base", "base", "instance"]
            use = rng.choice(options)
            if use == "read":
                out.append(("_u%d = %s\n" % (k, ref), ["_u%d" % k]))
            elif use == "call" or use == "instance":
                out.append(("_u%d = %s()\n" % (k, ref), ["_u%d" % k]))
            elif use == "annotation":
                # Evaluated at import time unless the module has `from __future__ import annotations`.
                out.append(("def _an%d(arg: %s) -> None:\n    return None\n" % (k, ref), ["_an%d" % k]))
            elif use == "default":
                out.append(("def _df%d(arg=%s):\n    return arg\n" % (k, ref), ["_df%d" % k]))
            elif use == "decorator":
                out.append(("@%s\ndef _dec%d():\n    return %d\n" % (ref, k, k), ["_dec%d" % k]))
            elif use == "base":
                out.append(("class _K%d(%s):\n    pass\n" % (k, ref), ["_K%d" % k]))
        return out

    # ---- one import of `target` by `m`, somewhere ------------------------------

    def add_import(self, m, target, placement):
        rng = self.rng
        k = m.fresh()
        if placement == "module":
            form = self.import_form(m, target, False, True, m.bound)
            if form is None:
                return
            stmt, bound, ref = form
            m.bind(bound)
            parts = [(stmt + "\n", [])]
            if target.exports:
                export = rng.choice(target.exports)
                expr = ref(export)
                if expr is None:  # from-import of one name: use that one
                    export = next(e for e in target.exports if ref(e) is not None)
                    expr = ref(export)
                parts += self.uses(m, expr, export)
                if rng.random() < 0.3:  # and a use inside a function nobody calls
                    j = m.fresh()
                    parts.append(("def _later%d():\n    return %s\n" % (j, expr), ["_later%d" % j]))
            self.place(m, parts)
            return

        if placement == "type_checking":
            free = [e for e in target.exports if e[0] not in m.bound]
            if not free:
                return
            export = rng.choice(free)
            if m.type_checking is None:
                m.type_checking = rng.choice(["from", "from", "typing"])
                m.bind("TYPE_CHECKING" if m.type_checking == "from" else "typing")
            cond = "TYPE_CHECKING" if m.type_checking == "from" else "typing.TYPE_CHECKING"
            m.bind(export[0])
            ann = export[0] if m.future else '"%s"' % export[0]
            self.place(m, [
                ("if %s:\n    from %s import %s\n" % (cond, target.name, export[0]), []),
                ("def _tc%d(arg: %s) -> %s:\n    return arg\n" % (k, ann, ann), ["_tc%d" % k]),
            ])
            return

        # A function-level import: in a function never called, or in one that
        # runs while the module loads (called, instantiated, or a decorator).
        form = self.import_form(m, target, True, True, [])
        if form is None or not target.exports:
            return
        stmt, _, ref = form
        export = next(e for e in rng.sample(target.exports, len(target.exports)) if ref(e) is not None)
        expr = ref(export)
        if placement == "never":
            self.place(m, [("def _lazy%d():\n    %s\n    return %s\n" % (k, stmt, expr), ["_lazy%d" % k])])
            return
        trigger = rng.choice(["call", "call", "class_body", "init", "init", "decorator"])
        if trigger == "call":
            self.place(m, [
                ("def _load%d():\n    %s\n    return %s\n" % (k, stmt, expr), ["_load%d" % k]),
                ("_r%d = _load%d()\n" % (k, k), ["_r%d" % k]),
            ])
        elif trigger == "class_body":
            self.place(m, [
                ("def _load%d():\n    %s\n    return %s\n" % (k, stmt, expr), ["_load%d" % k]),
                ("class _Holder%d:\n    value = _load%d()\n" % (k, k), ["_Holder%d" % k]),
            ])
        elif trigger == "init":
            self.place(m, [
                ("class _Init%d:\n    def __init__(self):\n        %s\n        self.value = %s\n" % (k, stmt, expr),
                 ["_Init%d" % k]),
                ("_inst%d = _Init%d()\n" % (k, k), ["_inst%d" % k]),
            ])
        else:
            self.place(m, [
                ("def _reg%d(fn):\n    %s\n    %s\n    return fn\n" % (k, stmt, expr), ["_reg%d" % k]),
                ("@_reg%d\ndef _registered%d():\n    return %d\n" % (k, k, k), ["_registered%d" % k]),
            ])

    def place(self, m, parts):
        """Puts the first part at a random position and every later part after it."""
        rng = self.rng
        first_text, first_names = parts[0]
        for n in first_names:
            m.bind(n)
        i = rng.randint(0, len(m.body))
        m.body.insert(i, first_text)
        lo = i + 1
        for text, names in parts[1:]:
            for n in names:
                m.bind(n)
            j = rng.randint(lo, len(m.body))
            m.body.insert(j, text)
            # Later parts only need to follow the first.

    # ---- the whole case ---------------------------------------------------------

    def generate(self):
        rng = self.rng
        for m in self.leaves:
            m.future = rng.random() < 0.2
            n = rng.randint(2, 4)
            kinds = [rng.choice("VVFFC") for _ in range(n)]
            for i, kind in enumerate(kinds):
                prefix = {"V": "V", "F": "f", "C": "C"}[kind]
                m.exports.append(("%s_%s_%d" % (prefix, m.short, i), kind))
        for m in self.leaves:
            for name, kind in m.exports:
                m.bind(name)
                if kind == "V":
                    m.body.insert(rng.randint(0, len(m.body)), "%s = %d\n" % (name, rng.randint(1, 99)))
                elif kind == "F":
                    m.body.insert(rng.randint(0, len(m.body)), "def %s(arg=None):\n    return arg\n" % name)
                else:
                    m.body.insert(rng.randint(0, len(m.body)), "class %s:\n    pass\n" % name)
        placements = ["module"] * 8 + ["never"] * 4 + ["called"] * 4 + ["type_checking"] * 3
        for m in self.leaves:
            others = [t for t in self.leaves if t is not m]
            for _ in range(rng.choice([1, 1, 2, 2, 3])):
                self.add_import(m, rng.choice(others), rng.choice(placements))
        # Package __init__ files import some of their submodules (and p its subpackage).
        for pkg in [self.root_pkg] + ([self.sub_pkg] if self.sub_pkg else []):
            pkg.future = rng.random() < 0.2
            children = [t for t in self.leaves if t.name.rsplit(".", 1)[0] == pkg.name]
            if rng.random() < 0.6:
                k = pkg.fresh()
                pkg.bind("_init_value%d" % k)
                pkg.body.append("_init_value%d = %d\n" % (k, k))
            for target in rng.sample(children, rng.randint(0, min(3, len(children)))):
                placement = rng.choice(["module"] * 6 + ["called", "never", "type_checking"])
                self.add_import(pkg, target, placement)
            if pkg is self.root_pkg and self.sub_pkg and rng.random() < 0.4:
                if SUB not in pkg.bound:
                    pkg.bind(SUB)
                    pkg.body.insert(rng.randint(0, len(pkg.body)), "from . import %s\n" % SUB)

    def render(self, m):
        out = ['"""%s: generated by tests/differential/gen_packages.py."""\n' % m.name]
        if m.future:
            out.append("from __future__ import annotations\n")
        if m.type_checking == "from":
            out.append("from typing import TYPE_CHECKING\n")
        elif m.type_checking == "typing":
            out.append("import typing\n")
        text = "".join(out)
        for chunk in m.body:
            text += "\n" + chunk
        return text

    def write(self, root):
        for m in self.modules:
            path = os.path.join(root, m.path)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8", newline="\n") as f:
                f.write(self.render(m))


def generate(seed, count, out):
    os.makedirs(out, exist_ok=True)
    cases = []
    for i in range(count):
        name = "case_%03d" % i
        root = os.path.join(out, name)
        if os.path.exists(root):
            shutil.rmtree(root)
        case = Case(random.Random("%s/%d" % (seed, i)))
        case.generate()
        case.write(root)
        cases.append({"name": name, "root": name, "modules": [m.name for m in case.modules]})
    with open(os.path.join(out, "cases.json"), "w", encoding="utf-8", newline="\n") as f:
        json.dump({"seed": seed, "count": count, "package": PKG, "cases": cases}, f, indent=2)
        f.write("\n")
    return cases


# ---- --check: import every module first, in fresh interpreters ----------------

CHILD = r"""
import importlib, importlib.machinery, importlib.util, json, os, sys
mode, module, root = sys.argv[1:4]
out = os.dup(1)
null = os.open(os.devnull, os.O_RDWR)
os.dup2(null, 1)
os.dup2(null, 2)
del sys.path[0]
sys.path.insert(0, root)
try:
    if mode == "bare":
        parts = module.split(".")
        parent = None
        for i in range(1, len(parts)):
            name = ".".join(parts[:i])
            spec = importlib.machinery.PathFinder.find_spec(name, None if parent is None else parent.__path__)
            pkg = importlib.util.module_from_spec(spec)
            sys.modules[name] = pkg
            if parent is not None:
                setattr(parent, parts[i - 1], pkg)
            parent = pkg
    importlib.import_module(module)
    r = ["ok", "", ""]
except BaseException as e:
    r = ["error", type(e).__name__, str(e)]
os.write(out, (json.dumps(r) + "\n").encode())
os._exit(0)
"""


def is_circular(error_type, message):
    return error_type in ("ImportError", "AttributeError") and (
        "partially initialized module" in message or "(most likely due to a circular import)" in message)


def check(out, cases, jobs):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    runs = [(c["name"], os.path.abspath(os.path.join(out, c["root"])), m, mode)
            for c in cases for m in c["modules"] for mode in ("normal", "bare")]

    def run(item):
        _, root, module, mode = item
        p = subprocess.run([sys.executable, "-c", CHILD, mode, module, root], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=60)
        try:
            return json.loads(p.stdout.decode().splitlines()[0])
        except (IndexError, ValueError):
            return ["error", "InterpreterExit", "status %d" % p.returncode]

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(run, runs))
    by_module = {}
    bad = []
    counts = {"normal": [0, 0], "bare": [0, 0]}  # [circular, total]
    for (case, _, module, mode), (outcome, error_type, message) in zip(runs, results):
        circular = outcome == "error" and is_circular(error_type, message)
        if outcome == "error" and not circular:
            bad.append("%s %s (%s): %s: %s" % (case, module, mode, error_type, message))
        counts[mode][0] += circular
        counts[mode][1] += 1
        by_module.setdefault((case, module), []).append(circular)
    either = sum(any(v) for v in by_module.values())
    cases_with = len({case for (case, _), v in by_module.items() if any(v)})
    print("modules: %d in %d cases" % (len(by_module), len(cases)))
    for mode, (c, t) in counts.items():
        print("circular, %s entry: %d of %d (%.0f%%)" % (mode, c, t, 100.0 * c / max(t, 1)))
    print("circular in at least one mode: %d of %d modules (%.0f%%), in %d of %d cases"
          % (either, len(by_module), 100.0 * either / max(len(by_module), 1), cases_with, len(cases)))
    only = {"normal": 0, "bare": 0}
    for v in by_module.values():
        if v[0] != v[1]:
            only["normal" if v[0] else "bare"] += 1
    print("circular in one mode only: normal %d, bare %d" % (only["normal"], only["bare"]))
    print("other errors (generator bugs): %d" % len(bad))
    for line in bad[:20]:
        print("  " + line)
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", required=True, help="any string; the same seed gives the same packages")
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--check", action="store_true", help="import every module in fresh interpreters")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    cases = generate(args.seed, args.count, args.out)
    if args.check:
        return check(args.out, cases, args.jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
