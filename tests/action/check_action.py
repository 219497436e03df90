#!/usr/bin/env python3
"""The composite GitHub Action (action.yml), as far as it runs without GitHub:

  * its shape: a composite action whose shell steps use bash, whose SARIF
    upload is github/codeql-action/upload-sarif on the file cyclefix wrote;
  * the "Run cyclefix" step's script, run as GitHub runs it (bash -eo pipefail,
    ${{ inputs.* }} replaced by the defaults, GITHUB_OUTPUT a file, the built
    binary first on PATH) on a copy of docs/example: it must write a valid SARIF
    log, print workflow commands, and set exit-code=1 (a cut is needed);
  * the "Verdict" step: fails on exit code 1 only when fail-on-change is true,
    always on 2.

The "Build cyclefix" step is tools/setup.sh build (not run here: it is a full
Release build). Exit 77 (ctest: skipped) when PyYAML is missing.

usage: check_action.py --cyclefix BIN --source DIR
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def expand(text, inputs, outputs):
    def sub(m):
        expr = m.group(1).strip()
        if expr.startswith("inputs."):
            return inputs[expr[len("inputs."):]]
        if expr.startswith("steps.run.outputs."):
            return outputs.get(expr[len("steps.run.outputs."):], "")
        fail(f"unexpected expression in a run step: {expr}")
    return re.sub(r"\$\{\{(.*?)\}\}", sub, text)


def run_step(step, inputs, outputs, cwd, env):
    step_env = dict(env)
    for k, v in step.get("env", {}).items():
        step_env[k] = expand(str(v), inputs, outputs)
    script = expand(step["run"], inputs, outputs)
    # GitHub's `shell: bash`: bash --noprofile --norc -eo pipefail {0}
    return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=cwd, env=step_env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cyclefix", required=True)
    ap.add_argument("--source", required=True)
    o = ap.parse_args()
    try:
        import yaml
    except ImportError:
        print("SKIP: PyYAML is not installed (Debian package python3-yaml)")
        sys.exit(77)
    action = yaml.safe_load(open(os.path.join(o.source, "action.yml")))
    if action["runs"]["using"] != "composite":
        fail("action.yml is not a composite action")
    steps = {s.get("name"): s for s in action["runs"]["steps"]}
    for s in action["runs"]["steps"]:
        if "run" in s and s.get("shell") != "bash":
            fail(f"step {s.get('name')} has no `shell: bash` (composite run steps need a shell)")
    upload = [s for s in action["runs"]["steps"] if str(s.get("uses", "")).startswith("github/codeql-action/upload-sarif@")]
    if len(upload) != 1 or upload[0]["with"]["sarif_file"] != "${{ inputs.sarif-file }}":
        fail("no github/codeql-action/upload-sarif step on inputs.sarif-file")
    if "tools/setup.sh\" build" not in steps["Build cyclefix"]["run"]:
        fail("the build step does not run tools/setup.sh build")
    inputs = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}

    with tempfile.TemporaryDirectory(prefix="cyclefix-action-") as tmp:
        work = os.path.join(tmp, "workspace")
        shutil.copytree(os.path.join(o.source, "docs", "example"), work)
        bin_dir = os.path.join(tmp, "bin")
        os.makedirs(bin_dir)
        os.symlink(os.path.abspath(o.cyclefix), os.path.join(bin_dir, "cyclefix"))
        github_output = os.path.join(tmp, "github_output")
        open(github_output, "w").close()
        env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""), GITHUB_OUTPUT=github_output,
                   XDG_CACHE_HOME=os.path.join(tmp, "cache"))

        p = run_step(steps["Run cyclefix"], inputs, {}, work, env)
        print(f"Run cyclefix: exit {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
        if p.returncode != 0:
            fail("the run step failed (a needed cut must not fail it: the verdict step decides)")
        outputs = dict(line.split("=", 1) for line in open(github_output).read().splitlines() if "=" in line)
        if outputs.get("exit-code") != "1":
            fail(f"exit-code should be 1 (docs/example needs a cut), got {outputs.get('exit-code')!r}")
        sarif = json.load(open(os.path.join(work, inputs["sarif-file"])))
        rules = {r["ruleId"] for r in sarif["runs"][0]["results"]}
        if sarif.get("version") != "2.1.0" or not {"CF001", "CF002"} <= rules:
            fail(f"the SARIF log lacks the cycle or the failing entry point: rules {sorted(rules)}")
        commands = [line for line in p.stdout.splitlines() if line.startswith("::")]
        if not any(c.startswith("::error file=shop/") for c in commands) or \
                not any(c.startswith("::warning file=shop/") for c in commands):
            fail("no workflow commands for the failing entry point and the cut")

        verdict = steps["Verdict"]
        for status, fail_on_change, expected in (("0", "true", 0), ("1", "true", 1), ("1", "false", 0),
                                                 ("2", "false", 1)):
            v = run_step(verdict, dict(inputs, **{"fail-on-change": fail_on_change}), {"exit-code": status}, work, env)
            if v.returncode != expected:
                fail(f"verdict with exit code {status}, fail-on-change {fail_on_change}: exit {v.returncode}, "
                     f"expected {expected}")
    print("ok: SARIF written, workflow commands printed, exit-code=1, verdicts as documented")


if __name__ == "__main__":
    main()
