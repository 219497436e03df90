#!/usr/bin/env python3
"""Generate a synthetic Python monorepo for benchmarking cyclefix.

    tests/bench/gen_monorepo.py [--modules N] [--seed S] [--jobs J] [--force] --out DIR

Writes N .py files (default 50,000; __init__.py files count) under DIR, which
becomes the source root: a few hundred top-level packages (about N/180, at
most 300) in layers, each with nested subpackages, ~100 lines per file on
average (lognormal sizes), with functions, classes, methods, annotations,
docstrings, decorators, comprehensions, `if TYPE_CHECKING:` blocks,
function-level imports and try/except ImportError, so the facts collector has
real work.

Imports: 5-15 first-party imports per module (plus 2-7 standard-library ones),
mostly to modules of lower-layer packages (foundation packages are the most
popular) or earlier modules of the same package, so that most of the graph is
acyclic. On top of that, cycle groups whose members import each other in a
ring plus chords:
  - a few large ones (N/16,000, at least one; 200-500 members, fewer on small
    trees) spread over a window of adjacent packages;
  - many small ones (N/200) of 2-5 members, mostly siblings in one directory,
    some across two packages, some through a package __init__ that re-exports
    from a child which imports a name back from the package.
Each cycle import is used in one way: only inside functions (`deferred`),
only in annotations (`annotation`), or at import time (`base` class,
module-level `call` of the target's `*_hook`, `decorator`, `default` argument
value). Most groups are harmless at run time, the way cycles survive in
working code: the members other members need at import time import the group
last (at their bottom, after their definitions) and every other cycle import
is a module object used in functions or lazy annotations, so CPython imports
every module fine whichever comes first. About a quarter (small groups in the
upper half of the layers, where few modules import them) are harmful: they
fail with "partially initialized module" from some entry points, and a tenth
of those have no deferrable edge at all. Every other ring has at least one
deferred edge. The tree compiles and imports under CPython (function bodies
are never meant to run).

The plan is deterministic in --seed and --modules; each file's text comes from
its own seeded RNG, so --jobs does not change the output. The generator checks
its own model of the import-time graph (the executed-modules rules of
docs/architecture.md) and prints its strongly connected components, which must
be exactly the cycle groups; DIR/cyclefix_bench_manifest.json records the
figures (files, lines, edges, SCC sizes) for the benchmark script to compare.
"""

import argparse
import json
import math
import multiprocessing
import os
import random
import shutil
import sys
import time

GENERATOR_VERSION = 2

DOMAIN = """billing catalog checkout inventory ledger payments shipping accounts auth
search analytics reporting notifications messaging scheduling pricing orders
customers vendors warehouse fulfillment returns refunds tax compliance audit
identity profiles sessions media content recommendations ranking ads campaigns
growth experiments monitoring alerting deploy infra gateway routing geo maps
travel booking loyalty rewards coupons subscriptions invoicing treasury risk
fraud kyc onboarding support tickets chat feeds social workflow pipeline etl
ingest exports partners contracts payroll benefits hiring learning forums
reviews ratings listings auctions lending insurance claims""".split()

TECH = """models views utils helpers services handlers serializers schemas validators
forms admin api client clients config constants exceptions errors managers
mixins tasks jobs workers cache caching storage repository queries filters
permissions policies events hooks adapters backends middleware routes urls
rendering formatting parsing encoding transforms builders factories registry
plugins loaders readers writers exporters importers metrics tracing limits
retry store entities commands signals decorators converters mappers
resolvers fields widgets pagination throttling versioning tokens""".split()

NOUN = """invoice order user product cart item line account payment refund shipment
parcel address price quote discount coupon report event message session
profile tenant region currency rate batch record entry ticket review rating
listing bid lot claim policy contract vendor partner employee""".split()

SUBPKG = """core api internal adapters domain infra web cli db io contrib ext common
shared v1 v2 legacy experimental compat backends http grpc batch sync aio
testing_support migrations management integrations""".split()

CLASS_SUFFIX = """Base Manager Service Record Config Handler Store Client Error Mixin
Factory Spec Builder Registry View Schema""".split()

VERBS = """get load build make create parse render validate compute resolve fetch
update apply register normalize merge find convert dispatch collect""".split()

CONST_SUFFIX = "TIMEOUT DEFAULT VERSION LIMIT NAME PREFIX RETRIES".split()

# Locals and parameters: never a module, package or imported name.
LOCALS = """value payload opts ctx count key entries result record_ idx limit_
timeout_s flag label text total acc row obj""".split()

KEYWORDS = set("""False None True and as assert async await break class continue def
del elif else except finally for from global if import in is lambda nonlocal
not or pass raise return try while with yield match case type""".split())

STDLIB = set(getattr(sys, "stdlib_module_names", ())) | {
    "test", "profile", "platform", "signal", "token", "types", "email", "html",
    "queue", "select", "site", "string", "code", "copy", "trace", "parser"}


def camel(name):
    return "".join(p.capitalize() for p in name.strip("_").split("_") if p)


def ok_name(name):
    return name not in KEYWORDS and name not in STDLIB and name.isidentifier()


class Mod:
    __slots__ = ("idx", "name", "parts", "path", "is_init", "top", "anc", "pos",
                 "group", "lines", "exports", "imports", "dir_id", "early_defs", "future")

    def __init__(self, name, path, is_init, top, anc, dir_id):
        self.name = name            # dotted module name
        self.parts = name.split(".")
        self.path = path            # relative path
        self.is_init = is_init
        self.top = top              # top-level package index (layer order)
        self.anc = anc              # ancestor package module indices, outermost first
        self.dir_id = dir_id        # directory (package) the file sits in
        self.idx = -1
        self.pos = -1               # post-order position
        self.group = -1             # cycle group index or -1
        self.lines = 0              # target line count
        self.exports = None         # dict: classes, funcs, consts, modules (submodule names)
        self.imports = []           # [target, mode, style_hint]
        self.early_defs = False     # __init__: own definitions before the imports
        self.future = False         # needs `from __future__ import annotations`


# ---------------------------------------------------------------- the plan

def build_tree(n, rng):
    """Top-level packages and their nested subpackages; returns the modules in post-order."""
    n_top = max(3, min(300, round(n / 180)))
    n_top = min(n_top, max(1, n // 4))
    names, seen = [], set()
    doms = [d for d in DOMAIN if ok_name(d)]
    order = doms[:]
    rng.shuffle(order)
    for d in order:
        if len(names) == n_top:
            break
        names.append(d)
        seen.add(d)
    while len(names) < n_top:
        cand = f"{rng.choice(doms)}_{rng.choice(doms)}"
        a, b = cand.split("_", 1)
        if a != b and cand not in seen:
            names.append(cand)
            seen.add(cand)

    # File budgets: lognormal weights, at least 4 files per top-level package.
    weights = [rng.lognormvariate(0, 0.7) for _ in range(n_top)]
    spare = n - 4 * n_top
    total_w = sum(weights)
    budgets = [4 + int(spare * w / total_w) for w in weights]
    for i in range(n - sum(budgets)):
        budgets[i % n_top] += 1

    mods = []
    dir_counter = [0]

    def module_names(count, taken):
        out = []
        tries = 0
        while len(out) < count:
            tries += 1
            r = rng.random()
            if r < 0.4:
                cand = rng.choice(TECH)
            elif r < 0.8:
                cand = f"{rng.choice(NOUN)}_{rng.choice(TECH)}"
            else:
                cand = f"{rng.choice(TECH)}_{rng.choice(TECH)}"
            if tries > 50 * count:
                cand = f"{cand}_{len(out)}"
            if cand in taken or not ok_name(cand) or cand in seen:
                continue
            taken.add(cand)
            out.append(cand)
        return out

    def build_dir(dotted, relpath, budget, top, anc, depth):
        """Emit modules of this package (post-order) and return nothing."""
        dir_id = dir_counter[0]
        dir_counter[0] += 1
        taken = set()
        budget -= 1  # the __init__.py
        if budget <= 30 or depth >= 3:
            direct, children = budget, []
        else:
            direct = min(budget, rng.randint(4, 15))
            rest = budget - direct
            k = max(1, min(rng.randint(2, 6), rest // 3))
            ws = [rng.lognormvariate(0, 0.6) for _ in range(k)]
            tw = sum(ws)
            children = [int(rest * w / tw) for w in ws]
            for i in range(rest - sum(children)):
                children[i % k] += 1
            children = [c for c in children if c > 0]
            if any(c < 2 for c in children):  # a subpackage needs its __init__ and one module
                direct += sum(c for c in children if c < 2)
                children = [c for c in children if c >= 2]
        init_anc = anc  # ancestors of this package's own __init__ module
        # Reserve the __init__ slot index after the subtree; gather children first.
        self_placeholder = Mod(dotted, os.path.join(relpath, "__init__.py"), True, top, init_anc, dir_id)
        my_anc = anc + [self_placeholder]
        for name in module_names(direct, taken):
            mods.append(Mod(f"{dotted}.{name}", os.path.join(relpath, name + ".py"), False, top, my_anc, dir_id))
        sub_names = []
        while len(sub_names) < len(children):
            cand = rng.choice(SUBPKG)
            if cand in taken:
                cand = f"{cand}_{rng.choice(NOUN)}"
            if cand in taken or not ok_name(cand):
                continue
            taken.add(cand)
            sub_names.append(cand)
        for cname, cb in zip(sub_names, children):
            build_dir(f"{dotted}.{cname}", os.path.join(relpath, cname), cb, top, my_anc, depth + 1)
        mods.append(self_placeholder)

    for t, (name, b) in enumerate(zip(names, budgets)):
        build_dir(name, name, b, t, [], 0)
    for i, m in enumerate(mods):
        m.idx = i
        m.pos = i
    return mods, names


def make_exports(m, rng):
    leaf = m.parts[-1]
    base = camel(leaf) or "Pkg"
    slug = leaf.strip("_")
    if m.is_init:
        return {"classes": [f"{base}Base"] if rng.random() < 0.3 else [],
                "funcs": [f"{rng.choice(VERBS)}_{slug}"],
                "consts": [f"{slug.upper()}_VERSION"],
                "hook": f"{slug}_hook"}
    ncls = rng.choice((1, 1, 2, 2, 3))
    classes = [f"{base}Base"] + [f"{base}{s}" for s in rng.sample(CLASS_SUFFIX[1:], ncls - 1)]
    funcs = [f"{v}_{slug}" for v in rng.sample(VERBS, rng.randint(1, 4))]
    consts = [f"{slug.upper()}_{s}" for s in rng.sample(CONST_SUFFIX, rng.randint(1, 2))]
    # `hook` is what other modules call at import time (decorators, module-level
    # calls): its body calls only the standard library, so no other function
    # body runs at import time and function-level imports stay deferred.
    return {"classes": classes, "funcs": funcs, "consts": consts, "hook": f"{slug}_hook"}


IMPORT_TIME_MODES = ("base", "call", "decorator", "default")


def pick_mode(rng, cuttable):
    if cuttable:
        return "deferred" if rng.random() < 0.85 else "annotation"
    return rng.choice(IMPORT_TIME_MODES)


def plan(n, seed):
    rng = random.Random(seed)
    mods, top_names = build_tree(n, rng)
    n = len(mods)
    by_top = {}
    for m in mods:
        by_top.setdefault(m.top, []).append(m)
    n_top = len(top_names)
    by_dir = {}
    for m in mods:
        by_dir.setdefault(m.dir_id, []).append(m)

    # Lines: the __init__ files are short; regular modules make up the 100/file average.
    n_init = sum(1 for m in mods if m.is_init)
    # A module's imports, constants, one class and one function already take ~70
    # lines, so the lognormal target is set well below the 100-line average the
    # tree ends up with (calibrated: ~103 lines per file over the whole tree).
    init_lines = 8
    mean_mod = 0.35 * (100 * n - init_lines * n_init) / max(1, n - n_init)
    sigma = 0.8
    mu = math.log(mean_mod) - sigma * sigma / 2
    for m in mods:
        m.lines = rng.randint(1, 20) if m.is_init else int(min(900, max(25, rng.lognormvariate(mu, sigma))))
        m.exports = make_exports(m, rng)

    # ---- cycle groups
    groups = []  # each: {"kind", "members": [idx], "edges": [(a, b, mode, style)]}

    def free(m):
        return m.group < 0 and not m.is_init

    n_large = max(1, round(n / 16000))
    for _ in range(n_large):
        size = rng.randint(200, 500) if n >= 20000 else max(20, min(200, n // 25))
        for _attempt in range(20):
            s = rng.randint(n_top // 5, max(n_top // 5, n_top * 4 // 5 - 1))
            window, t = [], s
            while t < n_top and len(window) < 3 * size:
                window.extend(m for m in by_top[t] if free(m))
                t += 1
            if len(window) >= size:
                break
        members = rng.sample(window, min(size, len(window)))
        gi = len(groups)
        for m in members:
            m.group = gi
        groups.append({"kind": "large", "members": [m.idx for m in members], "edges": []})

    n_small = max(2, round(n / 200))
    for k in range(n_small):
        size = rng.choices([2, 3, 4, 5], [40, 30, 20, 10])[0]
        r = rng.random()
        kind = "siblings" if r < 0.65 else ("cross" if r < 0.9 else "init")
        members = None
        for _attempt in range(50):
            if kind == "init":
                d = rng.choice(list(by_dir))
                init = by_dir[d][-1]
                kids = [m for m in by_dir[d] if free(m) and m is not init]
                if not init.is_init or init.group >= 0 or len(kids) < size - 1:
                    continue
                members = [init] + rng.sample(kids, size - 1)
            elif kind == "siblings":
                d = rng.choice(list(by_dir))
                kids = [m for m in by_dir[d] if free(m)]
                if len(kids) < size:
                    continue
                members = rng.sample(kids, size)
            else:
                a = rng.choice(mods)
                if not free(a):
                    continue
                tb = min(n_top - 1, max(0, a.top + rng.randint(-5, 5)))
                if tb == a.top:
                    continue
                others = [m for m in by_top[tb] if free(m)]
                if len(others) < size - 1:
                    continue
                members = [a] + rng.sample(others, size - 1)
            break
        if not members:
            continue
        gi = len(groups)
        for m in members:
            m.group = gi
        groups.append({"kind": kind, "members": [m.idx for m in members], "edges": []})

    # Effective position: a group sits just above its highest member or member's ancestor.
    epos = [float(m.pos) for m in mods]
    for gi, g in enumerate(groups):
        top = max(max(mods[i].pos for i in g["members"]),
                  max((a.pos for i in g["members"] for a in mods[i].anc), default=-1))
        for i in g["members"]:
            epos[i] = top + 0.5

    # Ring (and chord) edges with their modes.
    for gi, g in enumerate(groups):
        members = g["members"]
        ring = members[:] if g["kind"] == "init" else rng.sample(members, len(members))
        pairs = [(ring[j], ring[(j + 1) % len(ring)]) for j in range(len(ring))]
        if g["kind"] == "large":
            for _ in range(int(0.3 * len(ring))):
                a, b = rng.sample(ring, 2)
                pairs.append((a, b))
        # Harmful groups fail when entered at some members (CPython's "partially
        # initialized module"); they sit in the upper half of the layers, where
        # few modules import them. Harmless ones work from every entry point, the
        # way cycles survive in working code: the import-time uses of a member
        # (base classes, module-level calls...) come from members that import it
        # last, and those "providers" import the group at their bottom, after
        # their own definitions; every other group import is a module object
        # used in functions or (lazy) annotations.
        upper = min(mods[i].top for i in members) >= n_top // 2
        harmful = g["kind"] != "large" and upper and rng.random() < 0.5
        all_import_time = harmful and rng.random() < 0.1
        providers = set()
        if not harmful and g["kind"] != "init":
            providers = {i for k, i in enumerate(ring) if k % 2 == 1 and rng.random() < 0.7}
        edges = []
        seen_pairs = set()
        for a, b in pairs:
            if (a, b) in seen_pairs:
                continue
            seen_pairs.add((a, b))
            style, bottom = None, False
            if g["kind"] == "init":
                if mods[a].is_init:          # the package re-exports from its child: import time
                    mode, style = "reexport", "rel_names"
                elif mods[b].is_init:        # the child takes a name back from its package
                    mode, style = pick_mode(rng, rng.random() < 0.8), "from_pkg"
                else:
                    mode = pick_mode(rng, rng.random() < 0.5 or not harmful)
            elif all_import_time:
                mode = pick_mode(rng, False)
            elif harmful:
                mode = pick_mode(rng, rng.random() < 0.45)
            elif a in providers:
                mode, bottom = "deferred", True
            elif b in providers:
                mode = pick_mode(rng, rng.random() < 0.3)
            else:
                mode = pick_mode(rng, True)
            if style is None and mode in ("deferred", "annotation"):
                # A module object, used later: harmless at run time even when
                # the target is still initialising (the usual way cycles survive).
                style = "module"
            if mode == "annotation" and not harmful:
                mods[a].future = True  # lazy annotations: harmless
            edges.append([a, b, mode, style, bottom])
        if not all_import_time and not any(e[2] in ("deferred", "annotation") for e in edges
                                           if not mods[e[0]].is_init):
            cand = [e for e in edges if not mods[e[0]].is_init]
            e = rng.choice(cand)
            e[2] = "deferred"
            if e[3] is None:
                e[3] = "module"
        g["edges"] = edges
        g["all_import_time"] = all_import_time
        g["harmful"] = harmful
        if g["kind"] == "init" and not harmful:
            # The package defines what the child takes back before importing the
            # child: the cycle is harmless at run time (but still a cycle).
            mods[members[0]].early_defs = True
        for a, b, mode, style, bottom in edges:
            mods[a].imports.append([b, mode, style, bottom])

    # ---- first-party DAG imports
    def executed(m, t):
        """Modules that `m` importing `t` executes (architecture.md): t's ancestors and t, minus m's."""
        mine = set(a.idx for a in m.anc)
        mine.add(m.idx)
        out = [a.idx for a in t.anc if a.idx not in mine]
        if t.idx not in mine:
            out.append(t.idx)
        return out

    def allowed(m, t):
        if t is m or t in m.anc:
            return False
        if m.group >= 0 and t.group == m.group:
            return False
        em = epos[m.idx]
        return all(epos[e] < em for e in executed(m, t))

    for m in mods:
        if m.is_init:
            continue
        want = rng.randint(5, 15)
        have = {imp[0] for imp in m.imports}
        same = by_top[m.top]
        j = m.pos - same[0].pos
        attempts = 0
        while len(have) < want and attempts < 60:
            attempts += 1
            if (rng.random() < 0.35 or m.top == 0) and j > 0:
                t = same[j - 1 - int(j * rng.random() ** 2.5)]
            elif m.top > 0:
                tp = int(m.top * rng.random() ** 1.7)
                pk = by_top[tp]
                t = pk[int(len(pk) * rng.random() ** 2)]
                if rng.random() < 0.12:  # the package itself (its __init__ re-exports)
                    t = pk[-1]
            else:
                break
            if t.idx in have or not allowed(m, t):
                continue
            have.add(t.idx)
            r = rng.random()
            mode = "deferred" if r < 0.6 else ("annotation" if r < 0.75 else rng.choice(IMPORT_TIME_MODES))
            m.imports.append([t.idx, mode, None, False])

    # __init__ files: re-export from some of their own children (import time).
    for m in mods:
        if not m.is_init or m.group >= 0:
            continue
        if rng.random() < 0.35:
            kids = [k for k in by_dir.get(m.dir_id, ()) if k is not m and not k.is_init]
            rng.shuffle(kids)
            for k in kids[:rng.randint(1, 3)]:
                if allowed(m, k):
                    m.imports.append([k.idx, "reexport", "rel_names", False])

    # ---- lazy imports that create no import-time edge: anywhere in the tree
    lazy = []
    for m in mods:
        if m.is_init:
            lazy.append([])
            continue
        out = []
        if rng.random() < 0.10:
            for _ in range(rng.randint(1, 2)):
                t = rng.choice(mods)
                if t is not m and not t.is_init and t not in m.anc:
                    out.append([t.idx, "function_import"])
        if rng.random() < 0.10:
            t = rng.choice(mods)
            if t is not m and not t.is_init and t not in m.anc:
                out.append([t.idx, "type_checking"])
        lazy.append(out)

    return mods, top_names, groups, lazy, epos


# ---------------------------------------------------------------- checking

def model_edges(mods):
    """The import-time edges the plan creates, as cyclefix should resolve them."""
    edges = set()
    for m in mods:
        mine = set(a.idx for a in m.anc)
        mine.add(m.idx)
        for t_idx, mode, style, _bottom in m.imports:
            t = mods[t_idx]
            for a in t.anc:
                if a.idx not in mine:
                    edges.add((m.idx, a.idx))
            if style == "from_pkg":          # `from . import name`: a name from the package
                edges.add((m.idx, t.idx))
            elif t.idx not in mine:
                edges.add((m.idx, t.idx))
    return edges


def sccs(n, edges):
    adj = [[] for _ in range(n)]
    for a, b in edges:
        adj[a].append(b)
    index = [-1] * n
    low = [0] * n
    on = [False] * n
    stack, out, counter = [], [], 0
    for root in range(n):
        if index[root] >= 0:
            continue
        work = [(root, 0)]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on[root] = True
        while work:
            v, i = work[-1]
            if i < len(adj[v]):
                work[-1] = (v, i + 1)
                w = adj[v][i]
                if index[w] < 0:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on[w] = True
                    work.append((w, 0))
                elif on[w]:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    u = work[-1][0]
                    low[u] = min(low[u], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on[w] = False
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


# ---------------------------------------------------------------- rendering

MODS = None
LAZY = None
SEED = 0
OUT = None

STD_CHOICES = [
    ("import os", ["os.path.join", "os.environ.get"]),
    ("import re", ["re.compile", "re.escape"]),
    ("import json", ["json.dumps", "json.loads"]),
    ("import itertools", ["itertools.chain", "itertools.islice"]),
    ("import functools", ["functools.partial", "functools.reduce"]),
    ("import collections", ["collections.OrderedDict", "collections.Counter"]),
    ("import datetime", ["datetime.datetime.now", "datetime.timedelta"]),
    ("from pathlib import Path", ["Path"]),
    ("from decimal import Decimal", ["Decimal"]),
    ("import hashlib", ["hashlib.sha256"]),
    ("import threading", ["threading.Lock"]),
    ("import time", ["time.monotonic", "time.sleep"]),
    ("import uuid", ["uuid.uuid4"]),
    ("import enum", []),
    ("import abc", []),
]

DOC_WORDS = """the a this that record value request response handler cache entry
state config tenant batch result error retry request payload user account order
is are returns keeps computes builds resolves validates stores loads checks
for with from into when unless after before each every one all none some""".split()


def sentence(rng, lo=6, hi=14):
    words = [rng.choice(DOC_WORDS) for _ in range(rng.randint(lo, hi))]
    return (" ".join(words)).capitalize() + "."


class Handle:
    """How the importer refers to what an import brings in."""
    __slots__ = ("cls", "func", "const")

    def __init__(self, cls, func, const):
        self.cls, self.func, self.const = cls, func, const


def rel_prefix(m, t):
    """Relative `from` module for importer m and target t in the same top-level package, or None."""
    pkg = m.parts[:-1] if not m.is_init else m.parts
    tp = t.parts[:-1] if not t.is_init else t.parts[:-1]
    common = 0
    while common < min(len(pkg), len(tp)) and pkg[common] == tp[common]:
        common += 1
    if common == 0:
        return None
    level = len(pkg) - common + 1
    if level > 3:
        return None
    rest = ".".join(tp[common:])
    return "." * level + rest


def render_imports(m, rng, bound):
    """Statement lines and (mode, Handle) per first-party import."""
    top_stmts, bottom_stmts, uses = [], [], []

    def bind(name):
        alias = name
        k = 2
        while alias in bound:
            alias = f"{name}_{k}"
            k += 1
        bound.add(alias)
        return alias

    for t_idx, mode, style, bottom in m.imports:
        t = MODS[t_idx]
        stmts = bottom_stmts if bottom else top_stmts
        ex = t.exports
        cls = ex["classes"][0] if ex["classes"] else None
        func = ex["hook"] if mode in ("call", "decorator") else ex["funcs"][0]
        const = ex["consts"][0]
        if style == "from_pkg":  # `from . import func` (a name of the package being loaded)
            prefix = "." * (len(m.parts) - len(t.parts))
            if rng.random() < 0.5 and len(m.parts) - len(t.parts) == 1:
                origin = prefix
            else:
                origin = t.name
            f = bind(func)
            c = bind(const)
            stmts.append(f"from {origin} import {f if f == func else func + ' as ' + f}, "
                         f"{c if c == const else const + ' as ' + c}")
            uses.append((mode, Handle(None, f, c)))
            continue
        if style == "rel_names" or (style is None and mode == "reexport"):
            names = ex["classes"][:1] + ex["funcs"][:1] + ex["consts"][:1]
            parts = []
            for nm in names:
                a = bind(nm)
                parts.append(nm if a == nm else f"{nm} as {a}")
            prefix = rel_prefix(m, t)
            if prefix is None:
                origin = t.name
            else:
                origin = prefix + ("" if prefix.endswith(".") else ".") + t.parts[-1]
            stmts.append(f"from {origin} import {', '.join(parts)}")
            got = [p.split(" as ")[-1] for p in parts]
            uses.append((mode, Handle(got[0] if cls else None, got[-2] if cls else got[0], got[-1])))
            continue
        r = rng.random() * (0.6 if style == "module" else 1.0)
        if mode != "deferred" and r < 0.2:
            # `import a.b.c` then `a.b.c.X` at import time fails while `a.b` is
            # still initialising (CPython: "cannot access submodule"), whatever
            # the cycles: working code uses it for deferred uses only.
            r = 0.2 + rng.random() * (0.4 if style == "module" else 0.8)
        same_top = t.top == m.top
        if r < 0.2 and not t.is_init:
            # import a.b.c  -> a.b.c.func
            stmts.append(f"import {t.name}")
            bound.add(t.parts[0])
            h = t.name
            uses.append((mode, Handle(f"{h}.{cls}" if cls else None, f"{h}.{func}", f"{h}.{const}")))
        elif r < 0.35:
            a = bind(("_" if t.is_init else "") + t.parts[-1] + ("_mod" if rng.random() < 0.5 else ""))
            stmts.append(f"import {t.name} as {a}")
            uses.append((mode, Handle(f"{a}.{cls}" if cls else None, f"{a}.{func}", f"{a}.{const}")))
        elif r < 0.6 and len(t.parts) > 1:
            # from a.b import c  (a submodule)
            a = bind(t.parts[-1])
            prefix = rel_prefix(m, t) if same_top and rng.random() < 0.5 else None
            origin = prefix if prefix else ".".join(t.parts[:-1])
            stmts.append(f"from {origin} import {t.parts[-1] if a == t.parts[-1] else t.parts[-1] + ' as ' + a}")
            uses.append((mode, Handle(f"{a}.{cls}" if cls else None, f"{a}.{func}", f"{a}.{const}")))
        else:
            # from a.b.c import Name, func, CONST
            names = ([cls] if cls else []) + [func, const]
            if len(ex["funcs"]) > 1 and rng.random() < 0.5 and mode not in ("call", "decorator"):
                names.append(ex["funcs"][1])
            parts, got = [], []
            for nm in names:
                a = bind(nm)
                got.append(a)
                parts.append(nm if a == nm else f"{nm} as {a}")
            prefix = None
            if same_top and not t.is_init and rng.random() < 0.5:
                p = rel_prefix(m, t)
                if p is not None:
                    prefix = p + ("" if p.endswith(".") else ".") + t.parts[-1]
            origin = prefix or t.name
            stmt = f"from {origin} import {', '.join(parts)}"
            if len(stmt) > 88:
                stmt = f"from {origin} import (\n" + "".join(f"    {p},\n" for p in parts) + ")"
            stmts.append(stmt)
            uses.append((mode, Handle(got[0] if cls else None, got[1] if cls else got[0],
                                      got[2] if cls else got[1])))
    return top_stmts, bottom_stmts, uses


def func_body(rng, lines, calls, ind, n_lines):
    """Append about n_lines of statements using `calls` (expressions that are callable)."""
    pad = " " * ind
    loc = rng.sample(LOCALS[:], 4)
    start = len(lines)
    lines.append(f"{pad}{loc[0]} = {rng.choice(calls)}({loc[1] if rng.random() < 0.3 else 'None'})"
                 if calls else f"{pad}{loc[0]} = None")
    while len(lines) - start < n_lines - 1:
        r = rng.random()
        c = rng.choice(calls) if calls else "str"
        if r < 0.2:
            lines.append(f"{pad}if {loc[0]} is None:")
            lines.append(f"{pad}    {loc[0]} = {c}({loc[2]!r})".replace("'", '"'))
        elif r < 0.35:
            lines.append(f"{pad}for {loc[3]} in range({rng.randint(2, 40)}):")
            lines.append(f"{pad}    if {loc[3]} % {rng.randint(2, 7)} == 0:")
            lines.append(f"{pad}        continue")
            lines.append(f"{pad}    {loc[0]} = {c}({loc[0]}, {loc[3]})")
        elif r < 0.45:
            lines.append(f"{pad}try:")
            lines.append(f"{pad}    {loc[1]} = {c}({loc[0]})")
            lines.append(f"{pad}except (KeyError, ValueError) as exc:")
            lines.append(f'{pad}    logger.debug("{rng.choice(DOC_WORDS)} failed: %s", exc)')
            lines.append(f"{pad}    {loc[1]} = None")
        elif r < 0.55:
            lines.append(f"{pad}{loc[2]} = [{c}(x) for x in ({loc[0]} or ()) if x]")
        elif r < 0.65:
            lines.append(f"{pad}{loc[2]} = {{k: v for k, v in sorted(({loc[1]} or {{}}).items())}}")
        elif r < 0.75:
            lines.append(f"{pad}with _LOCK:")
            lines.append(f"{pad}    {loc[0]} = {c}({loc[0]})")
        elif r < 0.85:
            lines.append(f"{pad}# {sentence(rng, 4, 10)}")
            lines.append(f"{pad}{loc[3]} = {loc[0]} if {loc[0]} is not None else {rng.randint(0, 99)}")
        else:
            lines.append(f"{pad}{loc[1]} = {c}({loc[0]}, key={loc[2]!r}, retries={rng.randint(1, 5)})".replace("'", '"'))
    lines.append(f"{pad}return {loc[0]}")


def render(i):
    m = MODS[i]
    rng = random.Random(SEED * 1_000_003 + i * 7919 + GENERATOR_VERSION)
    ex = m.exports
    tiny = m.lines < 70
    lines = ['"""' + sentence(rng, 3, 8)]
    if (not m.is_init and not tiny) or rng.random() < 0.3:
        lines.append("")
        for _ in range(rng.randint(1, 4)):
            lines.append(sentence(rng))
    lines.append('"""')
    future = rng.random() < 0.4 or m.future
    if future:
        lines.append("")
        lines.append("from __future__ import annotations")
    lines.append("")

    bound = set(ex["classes"]) | set(ex["funcs"]) | set(ex["consts"]) | set(LOCALS) | {ex["hook"]}
    bound |= {"logger", "_LOCK", "_REGISTRY", "TYPE_CHECKING", "Any", "Optional", "x", "k", "v", "exc"}
    std_calls = []
    std_lines = []
    if not m.is_init:
        std_lines = ["import logging", "import threading"]
        for stmt, calls in rng.sample(STD_CHOICES, rng.randint(1, 2 if tiny else 5)):
            if stmt not in std_lines:
                std_lines.append(stmt)
                std_calls.extend(calls)
        std_lines.append("from typing import TYPE_CHECKING, Any, Optional")
    fp_lines, bottom_lines, uses = render_imports(m, rng, bound)
    lines.extend(sorted(std_lines))
    if std_lines:
        lines.append("")
    if not m.is_init and rng.random() < 0.05:
        lines += ["try:", "    import ujson as _json_impl", "except ImportError:  # pragma: no cover",
                  "    import json as _json_impl", ""]
    lines.extend(fp_lines)
    lazy = LAZY[i]
    tc = [MODS[t] for t, kind in lazy if kind == "type_checking"]
    if tc:
        lines.append("")
        lines.append("if TYPE_CHECKING:")
        for t in tc:
            c = t.exports["classes"][0]
            alias = c if c not in bound else c + "_tc"
            bound.add(alias)
            lines.append(f"    from {t.name} import {c}" + ("" if alias == c else f" as {alias}"))
    lines.append("")

    if m.is_init:
        defs = [f'{ex["consts"][0]} = "{rng.randint(1, 9)}.{rng.randint(0, 30)}"', ""]
        if ex["classes"]:
            defs += ["", f"class {ex['classes'][0]}:", f'    """{sentence(rng, 3, 6)}"""', ""]
        defs += ["", f"def {ex['funcs'][0]}(value=None):", f'    """{sentence(rng, 3, 6)}"""',
                 "    return value", "", "", f"def {ex['hook']}(value=None, *args, **kwargs):",
                 "    return value"]
        if m.early_defs:
            at = len(lines) - len(fp_lines) - 1 - (1 if tc else 0) - len(tc)
            body = lines[at:]
            lines[at:] = defs + ["", ""] + [s + "  # noqa: E402" if s.startswith(("from ", "import ")) else s
                                            for s in body]
        else:
            lines += defs
        while len(lines) < m.lines:
            lines.append(f"# {sentence(rng, 3, 9)}")
        return "\n".join(lines) + "\n"

    lines.append("logger = logging.getLogger(__name__)")
    lines.append("_LOCK = threading.Lock()")
    for c in ex["consts"]:
        lines.append(f"{c} = {rng.choice([repr(rng.randint(1, 600)), repr(sentence(rng, 1, 2).lower()), '(' + str(rng.randint(1, 9)) + ', ' + str(rng.randint(0, 9)) + ')'])}".replace("'", '"'))
    lines.append("")
    lines += ["", f"def {ex['hook']}(value: Any = None, *args: Any, **kwargs: Any) -> Any:",
              f'    """{sentence(rng)}"""']
    # Runs at import time in other modules: plain code that cannot fail.
    lines += ['    registry = kwargs.setdefault("registry", [])', "    registry.append(value)", "    return value", ""]

    deferred_calls = [h.func for mode, h in uses if mode == "deferred"] + [h.cls for mode, h in uses if mode == "deferred" and h.cls]
    annotation_types = [h.cls or "Any" for mode, h in uses if mode == "annotation"]
    calls = deferred_calls + std_calls + ex["funcs"]
    own_classes = list(ex["classes"])
    own_funcs = list(ex["funcs"])
    ann_q = annotation_types[:]
    def_q = deferred_calls[:]

    def pop_calls(k):
        got = [def_q.pop() for _ in range(min(k, len(def_q)))]
        return got + rng.sample(calls, min(len(calls), 2))

    def ann(default="Any"):
        if ann_q:
            return ann_q.pop()
        if annotation_types and rng.random() < 0.3:
            return rng.choice(annotation_types)
        return default

    # import-time uses
    reg_done = False
    for mode, h in uses:
        if mode == "call":
            if not reg_done:
                lines.append("_REGISTRY: dict = {}")
                reg_done = True
            lines.append(f'_REGISTRY["{h.func.split(".")[-1]}"] = {h.func}({h.const})')
        elif mode == "base" and h.cls:
            name = own_classes.pop() if len(own_classes) > 1 else f"_Local{camel(m.parts[-1])}{len(lines)}"
            lines += ["", "", f"class {name}({h.cls}):", f'    """{sentence(rng)}"""', "",
                      f"    kind = {h.const}"]
            if not tiny:
                lines.append("")
                lines.append(f"    def describe(self, value: {ann()}) -> str:")
                func_body(rng, lines, pop_calls(1), 8, rng.randint(3, 8))
        elif mode in ("decorator", "default") or (mode == "base" and not h.cls):
            name = own_funcs.pop() if len(own_funcs) > 1 else f"_hook_{len(lines)}"
            lines += ["", ""]
            if mode == "decorator":
                lines.append(f"@{h.func}")
                lines.append(f"def {name}(value: {ann()}, *args: Any, **kwargs: Any) -> Any:")
            else:
                lines.append(f"def {name}(value: {ann()} = None, limit_={h.const}) -> Any:")
            lines.append(f'    """{sentence(rng)}"""')
            func_body(rng, lines, pop_calls(1), 4, 2 if tiny else rng.randint(3, 9))

    # Body sizes: spread what is left of the target over the methods and functions.
    room = m.lines - len(lines) - 4
    small = room < 90
    methods = [1 if small else rng.randint(1, 4) for _ in own_classes]
    n_bodies = sum(methods) + len(own_funcs)
    overhead = (8 if small else 12) * len(own_classes) + (5 if small else 8) * len(own_funcs) + 3 * sum(methods)
    avg = max(3.0, (m.lines - len(lines) - overhead) / max(1, n_bodies))

    def body_len():
        return max(3, int(avg * rng.uniform(0.5, 1.5)))

    # own classes
    for cname, n_methods in zip(own_classes, methods):
        dataclass = rng.random() < 0.2
        lines += ["", ""]
        lines.append(f"class {cname}:")
        if small:
            lines.append(f'    """{sentence(rng)}"""')
        else:
            lines.append(f'    """{sentence(rng)}')
            lines.append("")
            lines.append(f"    {sentence(rng)}")
            lines.append('    """')
            lines.append("")
            lines.append(f"    name: str = {cname!r}".replace("'", '"'))
            lines.append(f"    retries: int = {rng.randint(0, 5)}")
        if not tiny:
            lines.append("")
            lines.append(f"    def __init__(self, value: {ann()} = None, opts: Optional[dict] = None) -> None:")
            lines.append("        self.value = value")
            lines.append("        self.opts = dict(opts or {})")
        for k in range(n_methods):
            meth = f"{rng.choice(VERBS)}_{rng.choice(NOUN)}"
            if k or not tiny:
                lines.append("")
            if rng.random() < 0.2:
                lines.append("    @property")
                lines.append(f"    def {meth}(self) -> {ann()}:")
            else:
                lines.append(f"    def {meth}(self, key: str, ctx: {ann()} = None) -> {ann('Optional[Any]')}:")
            lines.append(f'        """{sentence(rng)}"""')
            func_body(rng, lines, pop_calls(3), 8, body_len())
        if dataclass and not tiny:
            lines.append("")
            lines.append("    def __repr__(self) -> str:")
            lines.append(f'        return f"{cname}({{self.value!r}})"')

    # own functions
    for fname in own_funcs:
        lines += ["", ""]
        if rng.random() < 0.15:
            if "import functools" in std_lines:
                lines.append("@functools.lru_cache(maxsize=None)")
        lines.append(f"def {fname}(value: {ann()} = None, *, count: int = 0, **opts: Any) -> {ann('Any')}:")
        if small:
            lines.append(f'    """{sentence(rng)}"""')
        else:
            lines.append(f'    """{sentence(rng)}')
            lines.append("")
            lines.append(f"    {sentence(rng)}")
            lines.append('    """')
        for t_idx, kind in lazy:
            if kind == "function_import" and rng.random() < 0.7:
                t = MODS[t_idx]
                lines.append(f"    from {t.name} import {t.exports['funcs'][0]} as _lazy_{t_idx}")
                lines.append(f"    value = _lazy_{t_idx}(value)")
        func_body(rng, lines, pop_calls(3), 4, body_len())

    # filler private helpers up to the target size, draining what is left to use
    k = 0
    while len(lines) < m.lines - 6 or def_q or ann_q:
        k += 1
        lines += ["", ""]
        lines.append(f"def _{rng.choice(VERBS)}_{rng.choice(NOUN)}_{k}(value: {ann()}, ctx: Optional[dict] = None) -> Any:")
        lines.append(f'    """{sentence(rng)}"""')
        func_body(rng, lines, pop_calls(4), 4, rng.randint(4, 16))
    if bottom_lines:
        # Last, so that the modules of the cycle that need this one's names at
        # import time find them defined (used only in functions here).
        lines += ["", "", "# Imported at the end: these modules import this one back."]
        lines += [s_ + "  # noqa: E402" for s_ in bottom_lines]
    exports = ex["classes"] + ex["funcs"]
    if rng.random() < 0.3:
        lines += ["", "", "__all__ = ["] + [f'    "{e}",' for e in exports] + ["]"]
    return "\n".join(lines) + "\n"


def write_range(bounds):
    lo, hi = bounds
    total = 0
    for i in range(lo, hi):
        text = render(i)
        total += text.count("\n")
        path = os.path.join(OUT, MODS[i].path)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return total


def main():
    global MODS, LAZY, SEED, OUT
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--modules", type=int, default=50000, help=".py files to write (default 50000)")
    ap.add_argument("--seed", type=int, default=1, help="RNG seed (default 1)")
    ap.add_argument("--out", required=True, help="output directory (the source root)")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="writer processes")
    ap.add_argument("--force", action="store_true", help="replace DIR if it is not empty")
    args = ap.parse_args()
    if args.modules < 50:
        ap.error("--modules must be at least 50")
    if os.path.exists(args.out) and os.listdir(args.out):
        if not args.force:
            ap.error(f"{args.out} is not empty (use --force to replace it)")
        shutil.rmtree(args.out)
    t0 = time.monotonic()
    mods, top_names, groups, lazy, epos = plan(args.modules, args.seed)
    t_plan = time.monotonic() - t0

    edges = model_edges(mods)
    comps = sccs(len(mods), edges)
    expected = sorted(sorted(g["members"]) for g in groups)
    if sorted(comps) != expected:
        print(f"gen_monorepo: internal error: model SCCs {len(comps)} differ from the {len(groups)} groups",
              file=sys.stderr)
        return 1

    MODS, LAZY, SEED, OUT = mods, lazy, args.seed, args.out
    os.makedirs(args.out, exist_ok=True)
    for d in sorted({os.path.dirname(m.path) for m in mods}):
        os.makedirs(os.path.join(args.out, d), exist_ok=True)
    chunk = 500
    ranges = [(lo, min(len(mods), lo + chunk)) for lo in range(0, len(mods), chunk)]
    if args.jobs > 1:
        with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
            total_lines = sum(pool.map(write_range, ranges))
    else:
        total_lines = sum(map(write_range, ranges))
    elapsed = time.monotonic() - t0

    sizes = sorted((len(c) for c in comps), reverse=True)
    manifest = {
        "generator_version": GENERATOR_VERSION,
        "seed": args.seed,
        "files": len(mods),
        "packages": sum(1 for m in mods if m.is_init),
        "top_level_packages": len(top_names),
        "lines": total_lines,
        "first_party_imports": sum(len(m.imports) for m in mods),
        "import_time_edges": len(edges),
        "cyclic_sccs": len(comps),
        "scc_sizes": sizes,
        "import_time_only_groups": sum(1 for g in groups if g.get("all_import_time")),
        "harmful_groups": sum(1 for g in groups if g.get("harmful")),
        "group_kinds": {k: sum(1 for g in groups if g["kind"] == k) for k in ("large", "siblings", "cross", "init")},
    }
    with open(os.path.join(args.out, "cyclefix_bench_manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    print(f"gen_monorepo: {len(mods)} files ({manifest['packages']} packages, {len(top_names)} top-level), "
          f"{total_lines} lines, {manifest['first_party_imports']} first-party imports, "
          f"{len(edges)} import-time edges, {len(comps)} cyclic SCCs (largest {sizes[:5]}), "
          f"plan {t_plan:.1f} s, total {elapsed:.1f} s -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
