#!/usr/bin/env bash
# Simulator certainty on real trees (issue 16): per tree and entry mode, how many
# entry points the simulator is certain about, how many of those agree with the
# real interpreter, and which certain ones are wrong (bugs). Not a ctest: one fresh
# interpreter per module and mode (SymPy: 2 x ~1500, 10+ minutes per mode on 2 jobs).
#
#   tests/bench/certainty_real_trees.sh [BINARY] [PKG...]
#   tests/bench/certainty.py compare BEFORE_OUT AFTER_OUT    # two binaries side by side
#
# BINARY defaults to build/cyclefix; PKGs to django sympy requests networkx matplotlib
# ansible, looked up in /usr/lib/python3/dist-packages (python3-PKG / ansible-core;
# a missing one is skipped). From that directory it runs
#   BINARY verify PKG --entry both --compare --json verify-PKG.json --jobs N --python PY
#   BINARY simulate PKG --entry both --json simulate-PKG.json
# and tests/bench/certainty.py combines them (definitions there): entries, real
# ok/circular/other, certain (count, %), certain-and-agreeing, certain-but-wrong
# (each listed with predicted vs real message and the chain), certain with real
# outcome other, uncertain, uncertain_by_reason (`*`: derived, the binary's JSON
# lacks the field). Environment: CERTAINTY_OUT (output folder, default a temporary
# one, printed; holds the JSONs, summary-PKG.json and a per-binary facts cache),
# CERTAINTY_JOBS (interpreters at a time, default 2), CERTAINTY_PYTHON (default
# /usr/bin/python3, the interpreter Debian built the packages for), CERTAINTY_REUSE=1
# (reuse JSONs already in CERTAINTY_OUT), CERTAINTY_SHOW (wrong entries shown, 30).
#
# Exit status: 0 when every measurement ran, 1 when one failed, 2 on a usage error.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dist=/usr/lib/python3/dist-packages
python=${CERTAINTY_PYTHON:-/usr/bin/python3}
jobs=${CERTAINTY_JOBS:-2}

binary=${1:-$repo/build/cyclefix}
if [[ $# -gt 0 ]]; then shift; fi
if [[ $# -gt 0 ]]; then pkgs=("$@"); else pkgs=(django sympy requests networkx matplotlib ansible); fi

if [[ ! -x $binary ]]; then
  echo "certainty_real_trees: $binary is not an executable; build it first" >&2
  exit 2
fi
if [[ ! -x $python ]]; then
  echo "certainty_real_trees: $python is missing (set CERTAINTY_PYTHON)" >&2
  exit 2
fi
binary=$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")
out=${CERTAINTY_OUT:-$(mktemp -d -t cyclefix-certainty.XXXXXX)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
echo "certainty_real_trees: $binary, $("$python" -c 'import sys; print(sys.version.split()[0])'), output in $out"

ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

status=0
done_pkgs=()
for pkg in "${pkgs[@]}"; do
  if [[ ! -d $dist/$pkg ]]; then
    echo "== $pkg: $dist/$pkg is missing (apt-get install python3-$pkg); skipped"
    continue
  fi
  v=$out/verify-$pkg.json s=$out/simulate-$pkg.json
  echo "== $pkg"
  # The facts cache is per output folder, so binaries with different cache formats never share one.
  common=(--cache-dir "$out/facts-cache" -q)
  if [[ ${CERTAINTY_REUSE:-} != 1 || ! -s $v ]]; then
    start=$(date +%s%N)
    rc=0
    (cd "$dist" && "$binary" verify "$pkg" --entry both --compare --json "$v" --jobs "$jobs" \
       --python "$python" "${common[@]}" > "$out/verify-$pkg.txt" 2>&1) || rc=$?
    # 1 = there are disagreements: that is what is measured, not a failure.
    if [[ $rc -gt 1 || ! -s $v ]]; then
      echo "   verify failed (exit $rc), see $out/verify-$pkg.txt"; status=1; continue
    fi
    echo "   verify: $(ms "$start") ms"
  fi
  if [[ ${CERTAINTY_REUSE:-} != 1 || ! -s $s ]]; then
    start=$(date +%s%N)
    rc=0
    (cd "$dist" && "$binary" simulate "$pkg" --entry both --json "$s" "${common[@]}" \
       > "$out/simulate-$pkg.txt" 2>&1) || rc=$?
    if [[ $rc -gt 1 || ! -s $s ]]; then
      echo "   simulate failed (exit $rc), see $out/simulate-$pkg.txt"; status=1; continue
    fi
    echo "   simulate: $(ms "$start") ms"
  fi
  "$python" "$repo/tests/bench/certainty.py" row --tree "$pkg" --verify "$v" --simulate "$s" \
    --summary "$out/summary-$pkg.json" || { status=1; continue; }
  done_pkgs+=("$out/summary-$pkg.json")
done

if [[ ${#done_pkgs[@]} -gt 0 ]]; then
  echo
  echo "== summary ($binary)"
  "$python" "$repo/tests/bench/certainty.py" table "${done_pkgs[@]}"
fi
exit $status
