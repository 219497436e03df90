#!/bin/sh
# `cyclefix verify` with each isolation, with and without the run's bytecode
# cache, on one tree and entry mode: wall time of each run, the ratio against
# the old behaviour (process, no cache), and whether the --json results are
# identical to it. Not a ctest.
#
#   tests/bench/verify_isolation.sh CYCLEFIX TREE [ENTRY] [--python EXE] [--jobs N] [--timeout S]
#       ENTRY: normal (default), bare, lazy. VARIANTS (environment) picks the
#       runs, default "process-nocache fork-cache process-cache fork-nocache";
#       the first is the reference. OUT (environment): where the JSON files
#       go (default: a temporary directory, removed afterwards).
#
# Example (Debian's SymPy with the system interpreter):
#   tests/bench/verify_isolation.sh build/cyclefix /usr/lib/python3/dist-packages/sympy normal \
#       --python /usr/bin/python3 --jobs 2
set -eu
[ $# -ge 2 ] || { sed -n '2,16p' "$0"; exit 2; }
cyclefix=$1 tree=$2
shift 2
entry=normal
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then entry=$1; shift; fi
variants=${VARIANTS:-"process-nocache fork-cache process-cache fork-nocache"}
if [ -n "${OUT:-}" ]; then out=$OUT; mkdir -p "$out"; keep=1; else out=$(mktemp -d); keep=0; fi
[ "$keep" = 1 ] || trap 'rm -rf "$out"' EXIT

ref= ref_time=
printf '%-16s %10s %8s  %s\n' variant "wall s" ratio "results vs ${variants%% *}"
for v in $variants; do
  isolation=${v%-*}
  cache=
  [ "${v#*-}" = nocache ] && cache=--no-bytecode-cache
  start=$(date +%s.%N)
  status=0
  "$cyclefix" verify "$tree" --entry "$entry" --isolation "$isolation" $cache --quiet \
      --json "$out/$v.json" "$@" >/dev/null 2>"$out/$v.stderr" || status=$?
  end=$(date +%s.%N)
  [ "$status" -le 1 ] || { echo "$v: cyclefix exited $status:"; cat "$out/$v.stderr"; exit 1; }
  wall=$(echo "$end - $start" | bc)
  if [ -z "$ref" ]; then
    ref=$out/$v.json ref_time=$wall ratio=1.00 same=reference
  else
    ratio=$(echo "scale=2; $ref_time / $wall" | bc)
    if cmp -s "$ref" "$out/$v.json"; then same=identical; else same=DIFFERENT; fi
  fi
  printf '%-16s %10.1f %7sx  %s\n' "$v" "$wall" "$ratio" "$same"
  [ -s "$out/$v.stderr" ] && sed 's/^/    /' "$out/$v.stderr"
  if [ "$same" = DIFFERENT ]; then
    python3 - "$ref" "$out/$v.json" <<'PY' || true
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
ra = {r["module"]: r for r in a["results"]}
n = 0
for r in b["results"]:
    if ra.get(r["module"]) != r and n < 10:
        n += 1
        print("    differs:", json.dumps(ra.get(r["module"])), "->", json.dumps(r))
PY
  fi
done
