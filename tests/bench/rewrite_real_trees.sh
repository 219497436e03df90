#!/usr/bin/env bash
# End-to-end check of the rewrite on real Python trees that Debian packages.
#
#   tests/bench/rewrite_real_trees.sh [BINARY] [TREE...]
#
# BINARY defaults to build/cyclefix; the TREEs default to Debian's Django and
# SymPy (apt-get install python3-django python3-sympy time). Everything about
# the trees runs on /usr/bin/python3 (Debian's interpreter, the one their
# byte-code and dependencies belong to), never on the `python3` of PATH.
#
# For each tree, in a temporary directory holding three copies of it (cp -a,
# so that Debian's __pycache__ stays valid for the files the rewrite leaves
# alone and imports are fast):
#   1. `BINARY NAME --json R` in copy "orig": the diff, timed with /usr/bin/time
#      (wall seconds, peak RSS), exit code, the summary line of stderr; the copy
#      must not be modified;
#   2. files changed, imports moved, TYPE_CHECKING entries (JSON report and
#      diff);
#   3. `patch -p1 --dry-run` then `git apply` of the diff on copy "git";
#      `BINARY --apply NAME` on copy "apply"; both trees must be identical byte
#      for byte; a second `BINARY NAME` on the patched tree must print nothing;
#   4. `/usr/bin/python3 -m py_compile` of every changed file; every docstring
#      is kept; new pycodestyle messages are counted (not failed); pyflakes
#      before/after on them: no new "undefined name" (other new messages are
#      listed, not failed); a name a changed file no longer binds at import time
#      must not be imported from that module anywhere in the tree (even inside a
#      function, which verify cannot see) nor be listed in its __all__;
#   5. `cycles` and `plan` on the patched tree: the plan must need 0 cuts; the
#      cycles that remain are listed with whether the original plan called a
#      loop in them unbreakable; `simulate` before and after: the modules the
#      simulator predicts to fail only after (listed, not failed: verify decides);
#   6. `verify --entry both` before (orig) and after (git), in the background
#      while the other steps run: every module that imported before must import
#      after; the circular failures left are listed;
#   7. smoke tests on the patched and the unpatched copy (the copy's path is
#      checked against the imported package's __file__):
#      django: setup() with a minimal settings module, import the admin and the
#      auth models; then `check`, `migrate` on in-memory SQLite, creating,
#      relating and deleting rows (runs code the rewrite deferred);
#      sympy:  integrate(sin(x), x) == -cos(x), plus a few calls into modules
#      the rewrite changed.
#
# Environment: JOBS (verify interpreters at a time, default 2); VERIFY=full
# (default), changed (only the modules of changed files, both runs) or none;
# TESTS=1 also runs SymPy's own test files of the changed modules on both trees
# (SymPy's runner, slow tests skipped; every file must give the same counts);
# KEEP=1 keeps the temporary directory (its path is printed).
#
# Duration on 2 cores: Django ~10 minutes, SymPy ~30-70 (verify dominates: one
# interpreter per module and entry mode; each tree's before/after verify runs
# as one background chain, so with two trees 2*JOBS interpreters run at once).
# TESTS=1 adds ~25 minutes. Optional: python3-pycodestyle (style counts).
#
# Exit status: 0 when every check passed, 1 when one failed, 2 on a usage error.
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
binary=${1:-$repo/build/cyclefix}
if [[ $# -gt 0 ]]; then shift; fi
if [[ $# -gt 0 ]]; then
  trees=("$@")
else
  trees=(/usr/lib/python3/dist-packages/django /usr/lib/python3/dist-packages/sympy)
fi
jobs=${JOBS:-2}
verify_mode=${VERIFY:-full}
py=/usr/bin/python3

binary=$(readlink -f "$binary")
for need in "$binary" /usr/bin/time "$py"; do
  if [[ ! -x $need ]]; then
    echo "rewrite_real_trees: $need is missing (build cyclefix; apt-get install time python3)" >&2
    exit 2
  fi
done
for tool in git patch; do
  command -v "$tool" >/dev/null || { echo "rewrite_real_trees: $tool is missing" >&2; exit 2; }
done
case $verify_mode in full | changed | none) ;; *) echo "VERIFY must be full, changed or none" >&2; exit 2 ;; esac

work=$(mktemp -d)
bg_pids=()
cleanup() {
  local p
  for p in "${bg_pids[@]}"; do [[ -n $p ]] && kill -- "-$p" 2>/dev/null; done
  if [[ ${KEEP:-0} == 1 ]]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

failures=()
fail() {  # fail TREE MESSAGE
  failures+=("$1: $2")
  echo "   FAIL: $2"
}

# ---- helpers in Python (run by Debian's interpreter; only the stdlib) -------

# json_counts REPORT DIFF: prints key=value lines about the fix run.
json_counts() {
  "$py" - "$1" "$2" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
rw = r["rewrite"]
files = rw["files"]
s = lambda k: sum(f[k] for f in files)
print("json_files=%d" % len(files))
print("cuts_planned=%d" % len(r["cuts"]))
print("cuts_applied=%d" % rw["cuts_applied"])
print("local_imports=%d" % s("local_imports"))
print("functions=%d" % s("functions"))
print("tc_entries=%d" % s("type_checking"))
print("quoted=%d" % s("quoted_annotations"))
print("problems=%d" % len(rw["problems"]))
print("sccs_before=%d" % len(r["sccs"]))
print("cycles_after_pred=%d" % rw["cycles_after"])
print("pred_fail_before=%d/%d" % (rw["failing_before"]["normal"], rw["failing_before"]["bare"]))
print("pred_fail_after=%d/%d" % (rw["failing_after"]["normal"], rw["failing_after"]["bare"]))
print("unbreakable_before=%d" % len(r["plan"]["unbreakable_loops"]))
print("uncuttable_before=%d" % len(r["uncuttable"]))
# From the diff: removed top-level import statements, added indented ones.
removed = added = 0
for line in open(sys.argv[2], encoding="utf-8"):
    if line.startswith(("---", "+++")):
        continue
    if re.match(r"-(from\s+\S+\s+import\b|import\s)", line):
        removed += 1
    elif re.match(r"\+\s+(from\s+\S+\s+import\b|import\s)", line):
        added += 1
print("diff_removed_imports=%d" % removed)
print("diff_added_imports=%d" % added)
PY
}

# pyflakes_new BEFORE_ROOT AFTER_ROOT FILE...: new pyflakes messages (line
# numbers dropped) per file; exit 1 when one is an "undefined name".
pyflakes_new() {
  "$py" - "$@" <<'PY'
import collections, io, os, re, sys
from pyflakes import api, reporter
before_root, after_root, files = sys.argv[1], sys.argv[2], sys.argv[3:]
def messages(path):
    out = io.StringIO()
    api.checkPath(path, reporter.Reporter(out, out))
    c = collections.Counter()
    for line in out.getvalue().splitlines():
        m = re.match(r"[^:]+:\d+:(?:\d+:)? (.*)", line)
        c[m.group(1) if m else line] += 1
    return c
bad = 0
for f in files:
    new = messages(os.path.join(after_root, f)) - messages(os.path.join(before_root, f))
    for msg, n in sorted(new.items()):
        undefined = msg.startswith("undefined name")
        bad += undefined
        print("   %s %s: %s%s" % ("FAIL" if undefined else "note", f, msg, " (x%d)" % n if n > 1 else ""))
sys.exit(1 if bad else 0)
PY
}

# removed_names BEFORE_ROOT AFTER_ROOT PKG FILE...: names the changed files no
# longer bind at import time must not be imported from them elsewhere in the
# tree (`from mod import name` anywhere, `pkg.mod.name` written out) nor be
# listed in their __all__; exit 1 when one is.
removed_names() {
  "$py" - "$@" <<'PY'
import ast, os, sys
before_root, after_root, pkg = sys.argv[1], sys.argv[2], sys.argv[3]
changed = sys.argv[4:]
def modname(rel):
    parts = rel[:-3].split('/')
    if parts[-1] == '__init__': parts = parts[:-1]
    return '.'.join(parts)
def toplevel_bound(path):
    tree = ast.parse(open(path, encoding='utf-8').read())
    names = set()
    def visit(stmts):
        for s in stmts:
            if isinstance(s, (ast.Import, ast.ImportFrom)):
                for a in s.names:
                    names.add(a.asname or a.name.split('.')[0])
            elif isinstance(s, ast.If):
                # TYPE_CHECKING branches don't bind at run time
                t = s.test
                if (isinstance(t, ast.Name) and t.id == 'TYPE_CHECKING') or (isinstance(t, ast.Attribute) and t.attr == 'TYPE_CHECKING'):
                    visit(s.orelse); continue
                visit(s.body); visit(s.orelse)
            elif isinstance(s, ast.Try):
                visit(s.body); visit(s.orelse); visit(s.finalbody)
                for h in s.handlers: visit(h.body)
    visit(tree.body)
    return names
removed = {}
bad_all = []
for rel in changed:
    gone = toplevel_bound(os.path.join(before_root, rel)) - toplevel_bound(os.path.join(after_root, rel))
    if gone: removed[modname(rel)] = gone
    # a removed name listed in __all__ breaks `from module import *`
    for node in ast.parse(open(os.path.join(after_root, rel), encoding='utf-8').read()).body:
        if isinstance(node, (ast.Assign, ast.AugAssign)) and any(isinstance(t, ast.Name) and t.id == '__all__' for t in (node.targets if isinstance(node, ast.Assign) else [node.target])):
            try: listed = set(ast.literal_eval(node.value))
            except Exception: continue
            for n in sorted(listed & gone):
                print(f"{rel}:{node.lineno}: {n} is in __all__ but no longer bound at import time"); bad_all.append(n)
bad = len(bad_all)
for dp, dn, fn in os.walk(os.path.join(after_root, pkg)):
    dn[:] = [d for d in dn if d != '__pycache__']
    for f in fn:
        if not f.endswith('.py'): continue
        path = os.path.join(dp, f); rel = os.path.relpath(path, after_root)
        me = modname(rel); is_pkg = f == '__init__.py'
        try: tree = ast.parse(open(path, encoding='utf-8').read())
        except Exception: continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = me.split('.') if is_pkg else me.split('.')[:-1]
                    base = base[:len(base) - (node.level - 1)]
                    target = '.'.join(base + ([node.module] if node.module else []))
                else:
                    target = node.module
                for a in node.names:
                    if target in removed and a.name in removed[target]:
                        print(f"{rel}:{node.lineno}: from {target} import {a.name}  (name removed from {target})"); bad += 1
            elif isinstance(node, ast.Attribute):
                # pkg.a.b.NAME written out in full
                parts = []; n = node
                while isinstance(n, ast.Attribute): parts.append(n.attr); n = n.value
                if isinstance(n, ast.Name):
                    parts.append(n.id); dotted = '.'.join(reversed(parts))
                    mod, _, attr = dotted.rpartition('.')
                    if mod in removed and attr in removed[mod]:
                        print(f"{rel}:{node.lineno}: {dotted}  (attribute removed from {mod})"); bad += 1
print(f"{sum(map(len, removed.values()))} names removed from {len(removed)} modules; {bad} uses elsewhere", file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

# docstrings_kept BEFORE_ROOT AFTER_ROOT FILE...: every module, class and
# function of the changed files keeps its docstring (an import placed above it
# would turn it into a plain expression); exit 1 when one is lost.
docstrings_kept() {
  "$py" - "$@" <<'PY'
import ast, os, sys
before_root, after_root = sys.argv[1], sys.argv[2]
def docs(path):
    tree = ast.parse(open(path, encoding='utf-8').read())
    out = {'<module>': ast.get_docstring(tree, clean=False)}
    def walk(node, prefix):
        for ch in ast.iter_child_nodes(node):
            if isinstance(ch, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                q = f"{prefix}{ch.name}@{ch.lineno}"
                key = f"{prefix}{ch.name}"
                k = key; i = 1
                while k in out: i += 1; k = f"{key}#{i}"
                out[k] = ast.get_docstring(ch, clean=False)
                walk(ch, key + '.')
            else:
                walk(ch, prefix)
    walk(tree, '')
    return out
bad = 0
for rel in sys.argv[3:]:
    b, a = docs(os.path.join(before_root, rel)), docs(os.path.join(after_root, rel))
    if set(b) != set(a):
        print(f"{rel}: functions/classes differ: {sorted(set(b) ^ set(a))[:5]}"); bad += 1
    for k in b:
        if k in a and b[k] != a[k]:
            print(f"{rel}: {k}: docstring lost or changed"); bad += 1
print(f"docstrings: {bad} problem(s)", file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

# style_new BEFORE_ROOT AFTER_ROOT FILE...: pycodestyle messages (codes and
# text, line numbers dropped) the rewrite adds; reported, never failed. Needs
# Debian's python3-pycodestyle; prints nothing without it.
style_new() {
  local b=$1 a=$2 f
  shift 2
  "$py" -c 'import pycodestyle' 2>/dev/null || { echo "(pycodestyle not installed: apt-get install python3-pycodestyle)"; return 0; }
  for f in "$@"; do
    diff <("$py" -m pycodestyle --max-line-length=120 "$b/$f" 2>/dev/null | sed 's/^[^:]*:[0-9]*:[0-9]*: //' | sort) \
      <("$py" -m pycodestyle --max-line-length=120 "$a/$f" 2>/dev/null | sed 's/^[^:]*:[0-9]*:[0-9]*: //' | sort) |
      sed -n "s|^> |$f: |p"
  done
}

# sympy_tests ROOT OUT TESTFILE...: runs each SymPy test file with SymPy's own
# runner (no pytest; slow tests skipped), one interpreter per file, and prints
# "FILE rc=N SUMMARY" per file (SUMMARY: the runner's counts, spaces dropped).
sympy_tests() {
  local root=$1 out=$2 t n status
  shift 2
  mkdir -p "$out"
  for t in "$@"; do
    n=${t//\//_}
    (cd "$root" && PYTHONPATH="$root" PYTHONDONTWRITEBYTECODE=1 timeout 1800 "$py" -c '
import sys, sympy
assert sympy.__file__.startswith(sys.argv[2]), sympy.__file__
sys.exit(0 if sympy.test(sys.argv[1], subprocess=False, colors=False, slow=False) else 1)
' "$t" "$root" >"$out/$n.log" 2>&1)
    status=$?
    echo "$t rc=$status $(sed -n 's/.*tests finished: \(.*\) in [0-9.]* seconds.*/\1/p' "$out/$n.log" | tail -n 1 | tr -d ' ')"
  done
}

# sim_new BEFORE_JSON AFTER_JSON: per entry mode, the simulator's entry points
# failing with a circular import before -> after and the modules it predicts to fail only after.
sim_new() {
  "$py" - "$@" <<'PY'
import json, sys
def failing(path):
    j = json.load(open(path))
    return {r["entry_mode"]: {e["module"] for e in r["failing_entry_points"] if e["circular"]}
            for r in j.get("runs", [j])}
b, a = failing(sys.argv[1]), failing(sys.argv[2])
for mode in b:
    new = sorted(a[mode] - b[mode])
    print("simulate (%s entry): %d -> %d failing (circular); %d newly failing%s" % (
        mode, len(b[mode]), len(a[mode]), len(new), (": " + ", ".join(new[:6])) if new else ""))
PY
}

# plan_after BEFORE_JSON CYCLES_AFTER_JSON PLAN_AFTER_JSON: remaining cycles,
# whether the original plan called them unbreakable; exit 1 when the plan of
# the patched tree still wants cuts.
plan_after() {
  "$py" - "$@" <<'PY'
import json, sys
before = json.load(open(sys.argv[1]))
cycles = json.load(open(sys.argv[2]))
plan = json.load(open(sys.argv[3]))
unbreakable = [set(l) for l in before["plan"]["unbreakable_loops"]]
print("sccs_after=%d" % len(cycles["sccs"]))
print("plan_cuts_after=%d" % len(plan["cuts"]))
print("unbreakable_after=%d" % len(plan["plan"]["unbreakable_loops"]))
for i, scc in enumerate(cycles["sccs"], 1):
    mods = set(scc["modules"])
    known = any(l <= mods for l in unbreakable)
    fe = scc.get("failing_entry_points", {})
    print("#   cycle left %d: %d modules (%s%s), failing entries normal %s bare %s; %s" % (
        i, len(mods), ", ".join(sorted(mods)[:4]), ", ..." if len(mods) > 4 else "",
        fe.get("normal", "?"), fe.get("bare", "?"),
        "holds a loop the original plan called unbreakable" if known else "NOT known unbreakable"))
for c in plan["cuts"]:
    print("#   FAIL: still planned: %s:%s %s" % (c["file"], c["line"], c["statement"]))
sys.exit(1 if plan["cuts"] else 0)
PY
}

# verify_compare BEFORE_JSON AFTER_JSON: counts per mode; lists regressions
# (ok before, not ok after) and circular failures left; exit 1 on a regression.
verify_compare() {
  "$py" - "$@" <<'PY'
import collections, json, re, sys
def runs(path):
    j = json.load(open(path))
    return {r["entry_mode"]: r for r in j.get("runs", [j])}
before, after = runs(sys.argv[1]), runs(sys.argv[2])
bad = 0
for mode in before:
    b = {r["module"]: r for r in before[mode]["results"]}
    a = {r["module"]: r for r in after[mode]["results"]}
    cb, ca = before[mode]["counts"], after[mode]["counts"]
    print("verify_%s=%d/%d/%d -> %d/%d/%d" % (mode, cb["ok"], cb["circular"], cb["other"],
                                            ca["ok"], ca["circular"], ca["other"]))
    for m in sorted(b):
        if m not in a:
            print("#   FAIL %s: %s is missing after" % (mode, m)); bad += 1
        elif b[m]["outcome"] == "ok" and a[m]["outcome"] != "ok":
            print("#   FAIL %s: %s imported before, now %s: %s: %s" % (
                mode, m, a[m]["outcome"], a[m]["error_type"], a[m]["message"][:300])); bad += 1
    left = collections.defaultdict(list)  # the error, without the file path -> modules
    for m in sorted(a):
        if a[m]["outcome"] == "circular":
            left[re.sub(r" \((most likely|/).*", "", a[m]["message"])[:160]].append(m)
    for msg, mods in sorted(left.items(), key=lambda kv: -len(kv[1]))[:6]:
        print("#   circular left (%s): %d module(s), e.g. %s: %s" % (mode, len(mods), mods[0], msg))
    if len(left) > 6:
        print("#   circular left (%s): %d more distinct error(s)" % (mode, len(left) - 6))
    fixed = [m for m in b if b[m]["outcome"] == "circular" and a.get(m, {}).get("outcome") == "ok"]
    print("#   %s: %d circular failure(s) fixed%s" % (mode, len(fixed), (": " + ", ".join(fixed[:8])) if fixed else ""))
    other = [m for m in b if b[m]["outcome"] == "other" and a.get(m, {}).get("outcome") == "ok"]
    if other:
        print("#   %s: %d module(s) failing with another error before now import: %s%s" % (
            mode, len(other), ", ".join(other[:6]), ", ..." if len(other) > 6 else ""))
sys.exit(1 if bad else 0)
PY
}

# smoke NAME ROOT OUT: the smoke test of the package NAME imported from ROOT.
smoke() {
  local name=$1 root=$2 out=$3
  case $name in
    django)
      mkdir -p "$work/settings"
      cat >"$work/settings/cf_smoke_settings.py" <<'PY'
SECRET_KEY = "cyclefix-smoke"
INSTALLED_APPS = [
    "django.contrib.contenttypes",
    "django.contrib.auth",
    "django.contrib.admin",
    "django.contrib.sessions",
    "django.contrib.messages",
]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}}
USE_TZ = True
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]
TEMPLATES = [{
    "BACKEND": "django.template.backends.django.DjangoTemplates",
    "APP_DIRS": True,
    "OPTIONS": {"context_processors": [
        "django.template.context_processors.request",
        "django.contrib.auth.context_processors.auth",
        "django.contrib.messages.context_processors.messages",
    ]},
}]
PY
      # The command of the brief, then a longer run through deferred code.
      PYTHONPATH="$root:$work/settings" DJANGO_SETTINGS_MODULE=cf_smoke_settings PYTHONDONTWRITEBYTECODE=1 \
        "$py" -c "import django; django.setup(); from django.contrib import admin; import django.contrib.auth.models; print(django.__file__)" \
        >"$out" 2>&1 || return 1
      grep -qx "$root/django/__init__.py" "$out" || { echo "imported the wrong django" >>"$out"; return 1; }
      PYTHONPATH="$root:$work/settings" DJANGO_SETTINGS_MODULE=cf_smoke_settings PYTHONDONTWRITEBYTECODE=1 \
        "$py" - >>"$out" 2>&1 <<'PY' || return 1
import django
django.setup()
from django.core.management import call_command
from django.contrib import admin
from django.contrib.auth.models import Group, Permission, User
from django.contrib.contenttypes.models import ContentType
from django.db.models import Count, F, Q, Value
from django.db.models.functions import Cast, Log, Mod
from django.db.models import FloatField
call_command("check", verbosity=0)
call_command("migrate", verbosity=0, interactive=False)
u = User.objects.create_user("alice", password="pw")
g = Group.objects.create(name="g")
g.permissions.add(*Permission.objects.all()[:3])
u.groups.add(g)
u.groups.remove(g)
u.groups.set([g])
u.groups.clear()
assert u.has_perm("auth.add_user") is False
assert User.objects.filter(Q(username="alice") | Q(pk=0)).annotate(n=Count("groups")).get().n == 0
assert Group.objects.annotate(p=Cast(F("pk"), FloatField())).exists()
print(list(Group.objects.annotate(l=Log(Value(2.0), Value(8.0)), m=Mod(Value(7.0), Value(3.0))).values("l", "m")))
admin.site.check(None)
g.delete()
u.delete()
ContentType.objects.clear_cache()
print("django smoke ok")
PY
      ;;
    sympy)
      PYTHONPATH="$root" PYTHONDONTWRITEBYTECODE=1 "$py" - >"$out" 2>&1 <<'PY' || return 1
import sympy
print(sympy.__file__)
x = sympy.Symbol("x")
r = sympy.integrate(sympy.sin(x), x)
print(r)
assert r == -sympy.cos(x)
# A few calls into modules the rewrite changed (their deferred imports run).
from sympy import (Matrix, Poly, factor, gcd, limit, oo, series, simplify, solve, sqrt,
                   summation, trigsimp, dsolve, Function, Eq, nsimplify, apart, groebner,
                   minimal_polynomial, factorint, npartitions, continued_fraction_periodic, pretty)
assert solve(x**2 - 4, x) == [-2, 2]
assert Matrix([[1, 2], [3, 4]]).inv() * Matrix([[1, 2], [3, 4]]) == sympy.eye(2)
assert Matrix([[2, 0], [0, 3]]).eigenvals() == {2: 1, 3: 1}
assert Matrix([[1, 2], [3, 4]]).det() == -2
assert factor(x**2 - 1) == (x - 1) * (x + 1)
assert gcd(Poly(x**2 - 1), Poly(x - 1)) == Poly(x - 1)
assert limit(sympy.sin(x) / x, x, 0) == 1
assert summation(x, (x, 1, 10)) == 55
assert trigsimp(sympy.sin(x)**2 + sympy.cos(x)**2) == 1
f = Function("f")
print(dsolve(Eq(f(x).diff(x), f(x))))
print(series(sympy.exp(x), x, 0, 3), simplify((x**2 - 1) / (x - 1)), apart(1 / (x**2 - 1)))
print(groebner([x**2 - 1], x), minimal_polynomial(sqrt(2), x), factorint(360), npartitions(10))
print(continued_fraction_periodic(1, 1, 2), nsimplify(0.5), sympy.sstr(x**2), sympy.srepr(x))
print(pretty(x**2 / 2))
print("sympy smoke ok")
PY
      grep -qx "$root/sympy/__init__.py" "$out" || { echo "imported the wrong sympy" >>"$out"; return 1; }
      ;;
    *)
      echo "no smoke test for $name" >"$out"
      return 0
      ;;
  esac
}

timefmt='%e %M'
declare -A fig

echo "cyclefix: $binary"
echo "python:   $py ($("$py" --version 2>&1)), $(nproc) cores, verify: $verify_mode, --jobs $jobs"
echo "work:     $work"

# ---- phase 1: the timed runs, before anything else loads the machine --------
names=()
for tree in "${trees[@]}"; do
  name=$(basename "$tree")
  if [[ ! -d $tree ]]; then
    echo "== $name: $tree is missing (apt-get install python3-django python3-sympy)"
    failures+=("$name: tree missing")
    continue
  fi
  names+=("$name")
  base=$work/$name
  mkdir -p "$base/orig" "$base/git" "$base/apply"
  for copy in orig git apply; do cp -a "$tree" "$base/$copy/$name"; done
  fig[$name.src]=$tree
  (cd "$base/orig" && /usr/bin/time -f "$timefmt" -o "$base/fix.time" \
    "$binary" "$name" --json "$base/fix.json" >"$base/fix.diff" 2>"$base/fix.err")
  fig[$name.rc]=$?
  read -r fig[$name.wall] fig[$name.rss] < <(tail -n 1 "$base/fix.time")
done

# ---- phase 2: everything else ------------------------------------------------
for name in "${names[@]}"; do
  base=$work/$name
  tree=${fig[$name.src]}
  echo
  echo "== $name ($tree)"
  summary=$(grep '^cyclefix: .*cut(s) made' "$base/fix.err" | tail -n 1)
  nproblems=$(grep -vc '^cyclefix: ' "$base/fix.err")
  echo "   fix: exit ${fig[$name.rc]}, ${fig[$name.wall]} s, $((fig[$name.rss] / 1024)) MB; $nproblems per-file message(s) on stderr"
  echo "   ${summary:-no summary line on stderr}"
  if [[ ${fig[$name.rc]} -ne 0 ]]; then
    fail "$name" "cyclefix exited ${fig[$name.rc]}: $(grep -v 'not importable' "$base/fix.err" | tail -n 3 | tr '\n' ' ')"
  fi
  if ! diff -r -q --no-dereference --exclude=__pycache__ "$tree" "$base/orig/$name" >/dev/null; then
    fail "$name" "printing the diff modified the tree"
  fi
  if [[ ! -s $base/fix.json ]] || ! counts=$(json_counts "$base/fix.json" "$base/fix.diff"); then
    fail "$name" "no readable JSON report"
    continue
  fi
  while IFS='=' read -r k v; do fig[$name.$k]=$v; done <<<"$counts"
  mapfile -t changed < <(sed -n 's|^+++ b/||p' "$base/fix.diff")
  fig[$name.files]=${#changed[@]}
  echo "   ${#changed[@]} files in the diff (JSON: ${fig[$name.json_files]}); cuts ${fig[$name.cuts_applied]}/${fig[$name.cuts_planned]};" \
    "${fig[$name.local_imports]} local imports in ${fig[$name.functions]} functions, ${fig[$name.tc_entries]} TYPE_CHECKING entries," \
    "${fig[$name.quoted]} quoted annotations; diff: -${fig[$name.diff_removed_imports]} top-level import lines, +${fig[$name.diff_added_imports]} indented"
  [[ ${#changed[@]} -eq ${fig[$name.json_files]} ]] || fail "$name" "diff and JSON disagree on the files changed"
  [[ ${fig[$name.problems]} -eq 0 ]] || fail "$name" "${fig[$name.problems]} rewrite problem(s) in the JSON report"
  [[ ${fig[$name.cuts_applied]} -eq ${fig[$name.cuts_planned]} ]] || fail "$name" "not every planned cut was made"

  # -- 3: the diff applies, and equals --apply byte for byte
  if ! (cd "$base/git" && patch -p1 --dry-run --quiet <"$base/fix.diff" >"$base/patch.out" 2>&1); then
    fail "$name" "patch -p1 --dry-run rejects the diff: $(head -n 3 "$base/patch.out" | tr '\n' ' ')"
  fi
  if ! (cd "$base/git" && git apply --whitespace=nowarn "$base/fix.diff" 2>"$base/gitapply.err"); then
    fail "$name" "git apply rejects the diff: $(head -n 3 "$base/gitapply.err" | tr '\n' ' ')"
  fi
  (cd "$base/apply" && "$binary" -q --apply "$name" >"$base/apply.out" 2>"$base/apply.err")
  rc=$?
  [[ $rc -eq 0 ]] || fail "$name" "cyclefix --apply exited $rc"
  written=$(grep -c '^wrote ' "$base/apply.out")
  [[ $written -eq ${#changed[@]} ]] || fail "$name" "--apply wrote $written files, the diff has ${#changed[@]}"
  if diff -r -q --no-dereference --exclude=__pycache__ "$base/git/$name" "$base/apply/$name" >"$base/parity.out"; then
    echo "   patch --dry-run, git apply: ok; git-applied tree == --apply tree (byte for byte)"
  else
    fail "$name" "git-applied tree and --apply tree differ: $(head -n 3 "$base/parity.out" | tr '\n' ' ')"
  fi
  (cd "$base/apply" && "$binary" -q "$name" >"$base/second.diff" 2>/dev/null)
  if [[ -s $base/second.diff ]]; then
    fail "$name" "a second run on the patched tree still changes $(grep -c '^+++ ' "$base/second.diff") file(s)"
  else
    echo "   second run on the patched tree: empty diff"
  fi

  # -- 4: the changed files compile; pyflakes finds no new undefined name
  if (cd "$base/git" && "$py" -m py_compile "${changed[@]}" 2>"$base/compile.err"); then
    fig[$name.compile]=ok
    echo "   py_compile: ${#changed[@]} changed files ok"
  else
    fig[$name.compile]=FAIL
    fail "$name" "py_compile: $(head -n 5 "$base/compile.err" | tr '\n' ' ')"
  fi
  if pyflakes_new "$base/orig" "$base/git" "${changed[@]}" >"$base/pyflakes.out" 2>&1; then
    echo "   pyflakes: no new undefined name; $(grep -c '^   note' "$base/pyflakes.out") other new message(s)"
  else
    fail "$name" "pyflakes reports new undefined names"
  fi
  head -n 20 "$base/pyflakes.out"
  if docstrings_kept "$base/orig" "$base/git" "${changed[@]}" >"$base/docstrings.out" 2>&1; then
    echo "   $(tail -n 1 "$base/docstrings.out")"
  else
    fail "$name" "a docstring was lost"
    head -n 10 "$base/docstrings.out" | sed 's/^/      /'
  fi
  style_new "$base/orig" "$base/git" "${changed[@]}" >"$base/style.out"
  fig[$name.style]=$(grep -c ': [EW][0-9]' "$base/style.out")
  echo "   pycodestyle (max 120 columns): ${fig[$name.style]} new message(s)$( [[ ${fig[$name.style]} -gt 0 ]] && echo ':')"
  sed 's/^[^:]*: //; s/ (.*//' "$base/style.out" | grep '^[EW][0-9]' | sort | uniq -c | sort -rn | head -n 8 | sed 's/^/     /'
  if removed_names "$base/orig" "$base/git" "$name" "${changed[@]}" >"$base/removed.out" 2>&1; then
    echo "   $(tail -n 1 "$base/removed.out")"
  else
    fail "$name" "names the rewrite removed are still imported from their old module"
    head -n 20 "$base/removed.out" | sed 's/^/      /'
  fi

  # -- 6 (started now, collected below): verify before and after
  if [[ $verify_mode != none ]]; then
    if [[ $verify_mode == full ]]; then vpaths=("$name"); else vpaths=("${changed[@]}"); fi
    set -m  # its own process group, so that the EXIT trap can end it and its children
    (
      (cd "$base/orig" && "$binary" verify -q "${vpaths[@]}" --python "$py" --entry both --jobs "$jobs" \
        --json "$base/verify.before.json" >/dev/null 2>"$base/verify.before.err")
      (cd "$base/git" && "$binary" verify -q "${vpaths[@]}" --python "$py" --entry both --jobs "$jobs" \
        --json "$base/verify.after.json" >/dev/null 2>"$base/verify.after.err")
    ) &
    fig[$name.verify_pid]=$!
    set +m
    bg_pids+=("${fig[$name.verify_pid]}")
  fi

  # -- 5: cycles and plan on the patched tree
  (cd "$base/git" && "$binary" cycles -q "$name" --json "$base/cycles.after.json" >/dev/null 2>&1)
  (cd "$base/git" && "$binary" plan -q "$name" --json "$base/plan.after.json" >/dev/null 2>&1)
  if out=$(plan_after "$base/fix.json" "$base/cycles.after.json" "$base/plan.after.json"); then :; else
    fail "$name" "the plan of the patched tree still wants cuts"
  fi
  while IFS='=' read -r k v; do [[ $k == \#* ]] || fig[$name.$k]=$v; done <<<"$out"
  echo "   patched tree: ${fig[$name.sccs_after]:-?} cycle(s) left (before ${fig[$name.sccs_before]}), plan wants ${fig[$name.plan_cuts_after]:-?} cut(s);" \
    "unbreakable loops: before ${fig[$name.unbreakable_before]}, after ${fig[$name.unbreakable_after]:-?}"
  grep '^#' <<<"$out" | sed 's/^#//'

  (cd "$base/orig" && "$binary" simulate -q "$name" --entry both --json "$base/sim.before.json" >/dev/null 2>&1)
  (cd "$base/git" && "$binary" simulate -q "$name" --entry both --json "$base/sim.after.json" >/dev/null 2>&1)
  sim_new "$base/sim.before.json" "$base/sim.after.json" 2>&1 | sed 's/^/   /'

  # -- 7: smoke tests, patched and unpatched
  for which in git orig; do
    if smoke "$name" "$base/$which" "$base/smoke.$which.out"; then
      fig[$name.smoke_$which]=ok
    else
      fig[$name.smoke_$which]=FAIL
    fi
  done
  echo "   smoke: patched ${fig[$name.smoke_git]}, unpatched ${fig[$name.smoke_orig]}"
  if [[ ${fig[$name.smoke_git]} != ok ]]; then
    [[ ${fig[$name.smoke_orig]} == ok ]] && fail "$name" "smoke test fails on the patched tree only" \
      || fail "$name" "smoke test fails on both trees"
    tail -n 8 "$base/smoke.git.out" | sed 's/^/      /'
  fi
done

# ---- phase 3: collect verify --------------------------------------------------
if [[ $verify_mode != none ]]; then
  for name in "${names[@]}"; do
    base=$work/$name
    [[ -n ${fig[$name.verify_pid]:-} ]] || continue
    echo
    echo "== $name: verify ($verify_mode), waiting..."
    start=$SECONDS
    wait "${fig[$name.verify_pid]}"
    bg_pids=("${bg_pids[@]/${fig[$name.verify_pid]}/}")  # finished: not to be killed on exit
    echo "   waited $((SECONDS - start)) s"
    if [[ ! -s $base/verify.before.json || ! -s $base/verify.after.json ]]; then
      fail "$name" "verify did not write its reports: $(tail -n 3 "$base"/verify.*.err | tr '\n' ' ')"
      continue
    fi
    if out=$(verify_compare "$base/verify.before.json" "$base/verify.after.json"); then :; else
      fail "$name" "a module that imported before fails after"
    fi
    while IFS='=' read -r k v; do [[ $k == \#* ]] || fig[$name.$k]=$v; done <<<"$out"
    grep -v '^#' <<<"$out" | sed 's/^verify_\([a-z]*\)=/verify (\1 entry), ok\/circular\/other: /; s/^/   /'
    grep '^#' <<<"$out" | sed 's/^#//' | head -n 40
  done
fi

# ---- optional (TESTS=1): SymPy's own tests of the changed modules -----------
if [[ ${TESTS:-0} == 1 ]]; then
  for name in "${names[@]}"; do
    [[ $name == sympy ]] || continue
    base=$work/$name
    mapfile -t tests < <(sed -n 's|^+++ b/||p' "$base/fix.diff" | while read -r f; do
      t=$(dirname "$f")/tests/test_$(basename "$f"); [[ -f $base/orig/$t ]] && echo "$t"; done)
    echo
    echo "== $name: ${#tests[@]} test files of changed modules, unpatched and patched side by side"
    start=$SECONDS
    sympy_tests "$base/orig" "$base/tests.orig" "${tests[@]}" >"$base/tests.orig.txt" &
    t_pid=$!
    sympy_tests "$base/git" "$base/tests.git" "${tests[@]}" >"$base/tests.git.txt"
    wait "$t_pid"
    echo "   $((SECONDS - start)) s"
    if diff "$base/tests.orig.txt" "$base/tests.git.txt" >"$base/tests.diff"; then
      echo "   every test file gives the same result on both trees"
    else
      fail "$name" "SymPy's tests differ between the unpatched and the patched tree"
      sed 's/^/      /' "$base/tests.diff" | head -n 20
    fi
    fig[$name.tests]="$(grep -c ' rc=0 ' "$base/tests.git.txt")/${#tests[@]} files pass"
  done
fi

# ---- the table ---------------------------------------------------------------
echo
echo "verify columns: ok/circular/other before -> after; time: wall s of 'cyclefix NAME'; rss: peak MB"
row='%-7s %5s %7s %6s %5s %3s %6s %5s %8s %8s %-27s %-27s %-11s %s\n'
printf "$row" tree files imports funcs cuts tc time rss cycles compile "verify normal" "verify bare" smoke problems
for name in "${names[@]}"; do
  printf "$row" "$name" "${fig[$name.files]:-?}" "${fig[$name.local_imports]:-?}" "${fig[$name.functions]:-?}" \
    "${fig[$name.cuts_applied]:-?}" "${fig[$name.tc_entries]:-?}" "${fig[$name.wall]:-?}" \
    "$(( ${fig[$name.rss]:-0} / 1024 ))" "${fig[$name.sccs_before]:-?}->${fig[$name.sccs_after]:-?}" \
    "${fig[$name.compile]:-?}" "${fig[$name.verify_normal]:-n/a}" "${fig[$name.verify_bare]:-n/a}" \
    "${fig[$name.smoke_git]:-?}/${fig[$name.smoke_orig]:-?}" "$(grep -c "^$name:" <<<"$(printf '%s\n' "${failures[@]}")")"
done
echo "(imports: local imports the JSON report counts; smoke: patched/unpatched)"
for name in "${names[@]}"; do
  [[ -n ${fig[$name.tests]:-} ]] && echo "$name own tests of the changed modules (patched): ${fig[$name.tests]}"
done
if [[ ${#failures[@]} -gt 0 ]]; then
  echo
  echo "FAILED checks:"
  printf '  %s\n' "${failures[@]}"
  exit 1
fi
echo "all checks passed"
exit 0
