#!/usr/bin/env python3
"""The repository's pre-commit hooks (.pre-commit-hooks.yaml) run by the real
pre-commit on a throwaway git repository that holds an import cycle:

  * cyclefix-check fails, printing the cycle and the diff, and changes nothing;
  * cyclefix (the fix hook) rewrites the files (pre-commit fails, as for any
    hook that modifies files);
  * a second run of both hooks passes, and the rewritten package imports.

[tool.cyclefix] in the throwaway repository's pyproject.toml excludes a
vendored copy of the cycle (package legacy_shop): the hooks must leave it alone.

pre-commit runs the hooks with `pre-commit try-repo SOURCE HOOK`, which clones
the cyclefix checkout (uncommitted changes included), so this tests the hooks
file as it is. `language: system`: the built binary is put first on PATH.

Exit 77 (ctest: skipped) when pre-commit or git is not installed (Debian
package `pre-commit`; tools/setup.sh installs it).

usage: check_hooks.py --cyclefix BIN --source DIR
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

CYCLE = {
    "shop/__init__.py": "",
    "shop/orders.py": (
        "from shop.pricing import price_of\n"
        "\n"
        "\n"
        "class Order:\n"
        "    def __init__(self, items):\n"
        "        self.items = items\n"
        "\n"
        "    def total(self):\n"
        "        return price_of(self)\n"
    ),
    "shop/pricing.py": (
        "from shop import orders\n"
        "\n"
        "RATE = 1.2\n"
        "\n"
        "\n"
        "def price_of(order: orders.Order) -> float:\n"
        "    return sum(order.items) * RATE\n"
    ),
}

PYPROJECT = """[project]
name = "shop"
version = "0"

[tool.cyclefix]
exclude = ["vendored"]
"""


def run(cmd, cwd, env):
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(f"$ {' '.join(cmd)}  (exit {p.returncode})\n{p.stdout}")
    return p


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def tree(root):
    out = {}
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if x not in (".git", "__pycache__")]
        for f in files:
            p = os.path.join(d, f)
            out[os.path.relpath(p, root)] = open(p, "rb").read()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cyclefix", required=True)
    ap.add_argument("--source", required=True, help="the cyclefix checkout holding .pre-commit-hooks.yaml")
    o = ap.parse_args()
    for tool in ("pre-commit", "git"):
        if not shutil.which(tool):
            print(f"SKIP: {tool} is not installed (Debian package {tool}; tools/setup.sh installs it)")
            sys.exit(77)
    source = os.path.abspath(o.source)
    if not os.path.exists(os.path.join(source, ".git")):
        print(f"SKIP: {source} is not a git checkout; pre-commit try-repo needs one")
        sys.exit(77)

    with tempfile.TemporaryDirectory(prefix="cyclefix-precommit-") as tmp:
        bin_dir = os.path.join(tmp, "bin")
        os.makedirs(bin_dir)
        os.symlink(os.path.abspath(o.cyclefix), os.path.join(bin_dir, "cyclefix"))
        env = dict(os.environ)
        env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
        env["PRE_COMMIT_HOME"] = os.path.join(tmp, "pre-commit-home")  # no cache outside tmp
        env["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")  # cyclefix's facts cache too
        env.pop("PRE_COMMIT", None)
        for k in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
            env.pop(k, None)
        for k, v in (("GIT_AUTHOR_NAME", "t"), ("GIT_AUTHOR_EMAIL", "t@example.invalid"),
                     ("GIT_COMMITTER_NAME", "t"), ("GIT_COMMITTER_EMAIL", "t@example.invalid")):
            env[k] = v

        repo = os.path.join(tmp, "repo")
        for rel, text in CYCLE.items():
            for path, text in ((rel, text), ("vendored/legacy_" + rel, text.replace("shop", "legacy_shop"))):
                path = os.path.join(repo, path)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                open(path, "w").write(text)
        open(os.path.join(repo, "pyproject.toml"), "w").write(PYPROJECT)
        run(["git", "init", "-q"], repo, env)
        run(["git", "add", "-A"], repo, env)
        run(["git", "commit", "-qm", "a cycle"], repo, env)

        def hook(hook_id):
            return run(["pre-commit", "try-repo", source, hook_id, "--all-files", "--verbose"], repo, env)

        before = tree(repo)
        check = hook("cyclefix-check")
        if "cyclefix (import cycles to break)" not in check.stdout:
            fail("pre-commit did not run the check hook (is .pre-commit-hooks.yaml committed or staged?)")
        if check.returncode == 0:
            fail("the check hook passed on a tree with an import cycle")
        if "shop.pricing -> shop.orders -> shop.pricing" not in check.stdout \
                and "shop.orders -> shop.pricing -> shop.orders" not in check.stdout:
            fail("the check hook's output does not name the cycle")
        if "cyclefix: 1 import cycle(s)" not in check.stdout:
            fail("the check hook saw more or fewer cycles than shop's ([tool.cyclefix] excludes vendored/)")
        if "+++ b/shop/pricing.py" not in check.stdout and "+++ b/shop/orders.py" not in check.stdout:
            fail("the check hook's output holds no diff")
        if tree(repo) != before:
            fail("the check hook changed files")

        fix = hook("cyclefix")
        if fix.returncode == 0:
            fail("the fix hook rewrote nothing (pre-commit passes only when a hook changes no file)")
        after = tree(repo)
        changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
        if not changed or any(not c.startswith("shop/") for c in changed):
            fail(f"the fix hook should change files of shop/ only ([tool.cyclefix] excludes vendored/): {changed}")
        print(f"fix hook changed: {', '.join(changed)}")

        for hook_id in ("cyclefix-check", "cyclefix"):
            again = hook(hook_id)
            if again.returncode != 0:
                fail(f"{hook_id} fails on the fixed tree")
        if tree(repo) != after:
            fail("a second run changed files")

        # The rewritten package imports from either end of the former cycle.
        for module in ("shop.pricing", "shop.orders"):
            p = run([sys.executable, "-c", f"import {module}"], repo, env)
            if p.returncode != 0:
                fail(f"import {module} fails after the fix")
    print("ok: check hook failed and named the cycle, fix hook rewrote shop/ only, second run passed")


if __name__ == "__main__":
    main()
