#!/usr/bin/env bash
# Import-time truth on real trees: `cyclefix reach` against what CPython runs while
# importing every module of Debian's Django and SymPy (tests/oracle/compare_reach.py),
# both entry modes, report only (--min-recall 0). Too slow for ctest: one fresh
# interpreter per module and mode (about 2 x 830 for Django, 2 x 1500 for SymPy).
#
#   tests/bench/oracle_real_trees.sh [BINARY] [PKG...]
#
# BINARY defaults to build/cyclefix; the PKGs to django sympy, looked up in
# /usr/lib/python3/dist-packages (apt-get install python3-django python3-sympy; a
# missing one is skipped with a hint). The imports run under /usr/bin/python3, the
# interpreter Debian built those packages for (ORACLE_PYTHON overrides). Per
# package and entry mode it prints compare_reach.py's figures (modules, import outcomes, traced
# bodies, recall, precision, misses by cause, the first $ORACLE_SHOW misses) and the
# wall time, and keeps the JSON report in $ORACLE_OUT (default: a temporary folder,
# printed). ORACLE_JOBS sets the parallel interpreters (default: all cores).
# ORACLE_KEEP=1 keeps the traces in $ORACLE_OUT/traces-PKG-MODE (SymPy's take about
# 2 GB per mode); ORACLE_KEEP=reuse reads them back instead of importing again.
#
# Exit status: 0 when every comparison ran, 1 when one failed, 2 on a usage error.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dist=/usr/lib/python3/dist-packages
python=${ORACLE_PYTHON:-/usr/bin/python3}
show=${ORACLE_SHOW:-15}
jobs=${ORACLE_JOBS:-$(nproc)}

binary=${1:-$repo/build/cyclefix}
if [[ $# -gt 0 ]]; then shift; fi
if [[ $# -gt 0 ]]; then pkgs=("$@"); else pkgs=(django sympy); fi

if [[ ! -x $binary ]]; then
  echo "oracle_real_trees: $binary is not an executable; build it first" >&2
  exit 2
fi
if [[ ! -x $python ]]; then
  echo "oracle_real_trees: $python is missing (set ORACLE_PYTHON)" >&2
  exit 2
fi
out=${ORACLE_OUT:-$(mktemp -d -t cyclefix-oracle-real.XXXXXX)}
mkdir -p "$out"

status=0
for pkg in "${pkgs[@]}"; do
  if [[ ! -d $dist/$pkg ]]; then
    echo "== $pkg: $dist/$pkg is missing (apt-get install python3-$pkg); skipped"
    continue
  fi
  version=$("$python" -c 'import sys; print(sys.version.split()[0])')
  for mode in normal bare; do
    echo "== $pkg [$mode] ($dist/$pkg, Python $version)"
    start=$(date +%s%N)
    rc=0
    keep=()
    case ${ORACLE_KEEP:-} in
      1) keep=(--keep "$out/traces-$pkg-$mode") ;;
      reuse) keep=(--keep "$out/traces-$pkg-$mode" --reuse) ;;
    esac
    "$python" "$repo/tests/oracle/compare_reach.py" --cyclefix "$binary" --python "$python" \
      --package "$pkg" --entry "$mode" --min-recall 0 --jobs "$jobs" --show "$show" \
      --report "$out/$pkg-$mode.json" "${keep[@]}" "$dist" || rc=$?
    ms=$((($(date +%s%N) - start) / 1000000))
    printf '== %s [%s]: wall %d.%01d s, report %s\n\n' "$pkg" "$mode" $((ms / 1000)) $((ms % 1000 / 100)) \
      "$out/$pkg-$mode.json"
    if [[ $rc -ne 0 ]]; then
      echo "oracle_real_trees: compare_reach.py failed on $pkg [$mode] ($rc)" >&2
      status=1
    fi
  done
done
exit $status
