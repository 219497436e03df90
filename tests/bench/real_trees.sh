#!/usr/bin/env bash
# Benchmark cyclefix on real Python trees that Debian packages.
#
#   tests/bench/real_trees.sh [BINARY] [TREE...]
#
# BINARY defaults to build/cyclefix; the TREEs default to Debian's Django and
# SymPy (apt-get install python3-django python3-sympy); a missing tree is
# skipped with a hint. For each tree it prints the number of .py files and their
# lines, then times
#   (a) BINARY parse TREE                 read + parse every file, no facts/graph
#   (b) BINARY cycles --no-simulate TREE --json OUT   the graph and its cycles
#   (c) BINARY cycles TREE                 the same plus the simulator's counts
# with /usr/bin/time (Debian package `time`): wall seconds, best of 3 runs, and
# peak RSS, the highest of those runs. modules/edges/SCCs come from the JSON
# report. The table ends with cycles/parse wall time against the 1.5x target.
#
# Exit status: 0 when every run worked (cycles exiting 1 because it found
# cycles is normal), 1 when a run failed or a report could not be read, 2 on a
# usage error. Missing the 1.5x target is reported, not an error: timings are
# too noisy to gate on.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
runs=3
target_ratio=1.5

binary=${1:-$repo/build/cyclefix}
if [[ $# -gt 0 ]]; then shift; fi
if [[ $# -gt 0 ]]; then
  trees=("$@")
else
  trees=(/usr/lib/python3/dist-packages/django /usr/lib/python3/dist-packages/sympy)
fi

if [[ ! -x $binary ]]; then
  echo "real_trees: $binary is not an executable; build it with tools/setup.sh example" >&2
  exit 2
fi
if [[ ! -x /usr/bin/time ]]; then
  echo "real_trees: /usr/bin/time is missing: apt-get install time" >&2
  exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# timed MAX_OK CMD...: runs CMD $runs times under /usr/bin/time and sets
# best_wall (seconds) and peak_rss (KB). CMD's stdout of the last run goes to
# $work/stdout and its stderr to $work/stderr. Returns 1 if any run exited with
# a status above MAX_OK.
timed() {
  local max_ok=$1 i status wall rss
  shift
  best_wall="" peak_rss=0
  for ((i = 0; i < runs; i++)); do
    status=0
    /usr/bin/time -f '%e %M' -o "$work/time" "$@" >"$work/stdout" 2>"$work/stderr" || status=$?
    if [[ $status -gt $max_ok ]]; then
      echo "real_trees: '$*' exited with $status; its stderr:" >&2
      tail -n 20 "$work/stderr" >&2
      return 1
    fi
    # GNU time writes "Command exited with non-zero status N" before the
    # format line when the command exits non-zero: the numbers are the last line.
    read -r wall rss < <(tail -n 1 "$work/time")
    if [[ -z $best_wall ]] || awk -v a="$wall" -v b="$best_wall" 'BEGIN { exit !(a < b) }'; then
      best_wall=$wall
    fi
    if ((rss > peak_rss)); then peak_rss=$rss; fi
  done
  return 0
}

# report_counts FILE: prints "files modules edges sccs" from a JSON report.
report_counts() {
  python3 - "$1" <<'PY'
import json, sys
with open(sys.argv[1]) as f:
    report = json.load(f)
print(report["files"], report["modules"], report["edges"], len(report["sccs"]))
PY
}

echo "cyclefix: $binary"
echo "cores: $(nproc), best of $runs runs"
echo

rows=()
failed=0
for tree in "${trees[@]}"; do
  name=$(basename "$tree")
  if [[ ! -d $tree ]]; then
    echo "== $name: $tree is missing, skipped (apt-get install python3-django python3-sympy)"
    echo
    continue
  fi

  files=$(find "$tree" -type f -name '*.py' | wc -l)
  lines=$(find "$tree" -type f -name '*.py' -print0 | xargs -0 cat -- | wc -l)
  echo "== $name: $tree"
  echo "   $files .py files, $lines lines"

  if ! timed 0 "$binary" parse "$tree"; then
    failed=1
    echo
    continue
  fi
  parse_wall=$best_wall parse_rss=$peak_rss
  echo "   parse:  $(tail -n 1 "$work/stdout")"

  json="$work/$name.json"
  # The graph report alone (the 1.5x target); the simulator's per-cycle
  # failing-entry counts are timed separately below.
  if ! timed 1 "$binary" cycles --no-simulate "$tree" --json "$json"; then
    failed=1
    echo
    continue
  fi
  cycles_wall=$best_wall cycles_rss=$peak_rss
  if ! counts=$(report_counts "$json"); then
    echo "real_trees: could not read modules/edges/sccs/files from $json" >&2
    failed=1
    echo
    continue
  fi
  read -r report_files modules edges sccs <<<"$counts"
  echo "   cycles: $report_files files in the report, $modules modules, $edges edges, $sccs SCCs"
  if timed 1 "$binary" cycles "$tree"; then
    echo "   cycles with failing entry points per cycle (simulator, both modes): ${best_wall} s, $((peak_rss / 1024)) MB"
  else
    failed=1
  fi
  echo

  ratio=$(awk -v c="$cycles_wall" -v p="$parse_wall" 'BEGIN { if (p > 0) printf "%.2f", c / p; else print "n/a" }')
  verdict=$(awk -v r="$ratio" -v t="$target_ratio" 'BEGIN { if (r == "n/a") print "n/a"; else print (r <= t ? "ok" : "OVER") }')
  rows+=("$(printf '%-10s %7s %9s %8s %9s %8s %9s %8s %7s %5s %7s  %s' \
    "$name" "$files" "$lines" "$parse_wall" "$((parse_rss / 1024))" \
    "$cycles_wall" "$((cycles_rss / 1024))" "$modules" "$edges" "$sccs" "${ratio}x" "$verdict")")
done

if [[ ${#rows[@]} -gt 0 ]]; then
  printf '%-10s %7s %9s %8s %9s %8s %9s %8s %7s %5s %7s  %s\n' \
    tree files lines parse_s parse_MB cycles_s cycles_MB modules edges sccs ratio "target <=${target_ratio}x"
  printf '%s\n' "${rows[@]}"
fi
exit "$failed"
