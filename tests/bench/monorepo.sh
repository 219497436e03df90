#!/usr/bin/env bash
# Benchmark cyclefix on a synthetic monorepo (gen_monorepo.py) and compare it
# with pylint's cyclic-import and pyright's reportImportCycles on Django.
#
#   tests/bench/monorepo.sh [--modules N] [--seed S] [--binary PATH] [--runs R]
#                           [--timeout SECONDS] [--no-compare] [--no-rewrite]
#                           [--only-compare]
#
# The tree (N files, default 50,000, ~100 lines each) is generated once into
# $CYCLEFIX_BENCH_CACHE (default ~/.cache/cyclefix-bench), keyed by N, the seed
# and a hash of gen_monorepo.py, and reused after that. Each command runs under
# /usr/bin/time (Debian package `time`) for wall seconds, user+sys CPU seconds
# and peak RSS; with --runs R the best wall time of R runs is kept (default 1),
# and a run still going after --timeout seconds (default 1800) is killed and
# reported as timed out:
#   parse       BINARY parse --no-cache TREE          read + parse every file
#   cold-nosim  BINARY cycles --no-simulate --cache-dir EMPTY TREE
#               the graph and its cycles, facts cache empty
#   warm-nosim  the same again: nothing changed, the whole run is replayed from
#               its record (docs/cli.md, "Cache")
#   edit1-nosim the same with one file edited (a comment appended, restored
#               afterwards): a full run, every other file's facts from the cache
#   cold-full   BINARY cycles --cache-dir EMPTY2 TREE  the default command, which
#               also simulates every entry point (failing entry points per cycle)
#   warm-full   the same again
#   simulate    BINARY simulate --entry both --cache-dir EMPTY2 TREE  (facts warm
#               from cold-full): every entry point in normal and bare entry
#   rewrite     BINARY --cache-dir EMPTY3 TREE > /dev/null   plan + diff, cache empty;
#               then once more with CYCLEFIX_PROFILE=1 for its time and peak RSS by stage
# A binary without --cache-dir gets "cache: not supported by this binary" and
# no warm rows. The table gives files/s and the ratios cold/parse (target
# <= 1.3x), warm/cold (target < 0.10x) and peak memory (target < 2 GB, 10^9
# bytes; peak_MiB columns are MiB).
#
# Then, unless --no-compare, on Debian's Django (python3-django, 3.2; with
# --only-compare, just that):
#   cyclefix   BINARY cycles --no-cache DJANGO
#   pylint     /usr/bin/pylint --disable=all --enable=cyclic-import django
#              (run in /usr/lib/python3/dist-packages with Debian's python3)
#   pyright    pyright with "reportImportCycles": "error" on a copy of django,
#              installed from the npm registry at a pinned version into
#              $CYCLEFIX_BENCH_CACHE/pyright-VERSION (never into the repository)
# with the number of cycles each reports and each tool's time as a multiple of
# cyclefix's. pylint is installed with apt-get when missing (as root or with
# sudo); a tool that is missing or cannot be installed is reported and skipped.
#
# Exit status: 0 when every cyclefix run worked (cycles exiting 1 because it
# found cycles is normal), 1 when one failed, 2 on a usage error. Missing a
# target is reported, not an error: timings on a shared machine are too noisy
# to gate on.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bench_cache=${CYCLEFIX_BENCH_CACHE:-$HOME/.cache/cyclefix-bench}
pyright_version=1.1.414
django=/usr/lib/python3/dist-packages/django

modules=50000
seed=1
binary=$repo/build/cyclefix
runs=1
timeout_s=1800
compare=1
rewrite=1
monorepo=1
usage() {
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
}
while [[ $# -gt 0 ]]; do
  case $1 in
    --modules) modules=${2:?}; shift 2 ;;
    --seed) seed=${2:?}; shift 2 ;;
    --binary) binary=${2:?}; shift 2 ;;
    --runs) runs=${2:?}; shift 2 ;;
    --timeout) timeout_s=${2:?}; shift 2 ;;
    --no-compare) compare=0; shift ;;
    --no-rewrite) rewrite=0; shift ;;
    --only-compare) monorepo=0; shift ;;
    -h|--help) usage ;;
    *) echo "monorepo: unknown argument '$1'" >&2; usage ;;
  esac
done
if [[ ! -x $binary ]]; then
  echo "monorepo: $binary is not an executable; build it with tools/setup.sh example" >&2
  exit 2
fi
if [[ ! -x /usr/bin/time ]]; then
  echo "monorepo: /usr/bin/time is missing: apt-get install time" >&2
  exit 2
fi
py=/usr/bin/python3
[[ -x $py ]] || py=python3

work=$(mktemp -d)
edited=""  # a tree file changed for the edit1 rows, restored from $work/edited.orig
trap 'if [[ -n $edited ]]; then cp -p "$work/edited.orig" "$edited"; fi; rm -rf "$work"' EXIT

# timed MAX_OK CMD...: runs CMD $runs times under /usr/bin/time; sets wall
# (best), cpu (user+sys of that run) and rss (KB, the highest). stdout goes to
# $work/stdout, stderr to $work/stderr. Returns the exit status of a run that
# exited above MAX_OK (and prints its stderr unless it is 124, a timeout).
timed() {
  local max_ok=$1 i status w u s m
  shift
  wall="" cpu="" rss=0
  for ((i = 0; i < runs; i++)); do
    status=0
    /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" >"$work/stdout" 2>"$work/stderr" || status=$?
    if [[ $status -gt $max_ok ]]; then
      if [[ $status -ne 124 ]]; then
        echo "monorepo: '$*' exited with $status; its stderr:" >&2
        tail -n 20 "$work/stderr" >&2
      fi
      return "$status"
    fi
    # GNU time puts "Command exited with non-zero status N" before the numbers.
    read -r w u s m < <(tail -n 1 "$work/time")
    if [[ -z $wall ]] || awk -v a="$w" -v b="$wall" 'BEGIN { exit !(a < b) }'; then
      wall=$w
      cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
    fi
    if ((m > rss)); then rss=$m; fi
  done
  return 0
}

# ratio A B: "A/B" as "1.23x", or "n/a" when a figure is missing.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b > 0) printf "%.2fx", a / b; else print "n/a" }'; }
verdict() { awk -v r="${1%x}" -v t="$2" -v op="$3" 'BEGIN { if (r == "n/a") print "n/a"; else if (op == "le") print (r <= t ? "ok" : "MISSED"); else print (r < t ? "ok" : "MISSED") }'; }

echo "cyclefix: $binary ($("$binary" --version 2>/dev/null | sed -n 1p))"
echo "machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.1f GB", $2 / 1048576 }' /proc/meminfo) RAM; load at start:$(uptime | sed 's/.*load average://')"
echo

failed=0
if ((monorepo)); then
# ---------------------------------------------------------------- the tree
gen=$repo/tests/bench/gen_monorepo.py
gen_hash=$(sha256sum "$gen" | cut -c1-12)
tree=$bench_cache/monorepo-$modules-s$seed-$gen_hash
manifest=$tree/cyclefix_bench_manifest.json
if [[ -f $manifest ]]; then
  echo "tree: $tree (reused)"
else
  mkdir -p "$bench_cache"
  rm -rf "$bench_cache"/monorepo-"$modules"-s"$seed"-*  # older generator versions
  echo "tree: generating $tree"
  "$py" "$gen" --modules "$modules" --seed "$seed" --out "$tree.tmp" --force
  mv "$tree.tmp" "$tree"
fi
read -r files lines edges sccs largest < <("$py" - "$manifest" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
print(m["files"], m["lines"], m["import_time_edges"], m["cyclic_sccs"], m["scc_sizes"][0] if m["scc_sizes"] else 0)
PY
)
echo "      $files .py files, $lines lines, $edges import-time edges, $sccs cycles (largest $largest modules)"
echo

# ---------------------------------------------------------------- cyclefix runs
cache_ok=0
if "$binary" cycles --help 2>/dev/null | grep -q -- '--cache-dir'; then cache_ok=1; fi
parse_flags=()
if "$binary" parse --help 2>/dev/null | grep -q -- '--no-cache'; then parse_flags=(--no-cache); fi

rows=()
declare -A W C  # wall and CPU seconds per row name
peak_rss=0
# run NAME MAX_OK CMD...: times CMD (killed after $timeout_s), adds a table row.
# Returns 1 when it failed, 2 when it timed out.
run() {
  local name=$1 max_ok=$2 status=0 fps
  shift 2
  timed "$max_ok" timeout "$timeout_s" "$@" || status=$?
  if ((status == 124)); then
    rows+=("$(printf '%-12s %9s %9s %9s %9s' "$name" ">$timeout_s" "-" "-" "-")  timed out")
    return 2
  fi
  if ((status != 0)); then
    rows+=("$(printf '%-12s %9s' "$name" failed)")
    failed=1
    return 1
  fi
  W[$name]=$wall C[$name]=$cpu
  if ((rss > peak_rss)); then peak_rss=$rss; fi
  fps=$(awk -v f="$files" -v w="$wall" 'BEGIN { if (w > 0) printf "%.0f", f / w; else print "n/a" }')
  rows+=("$(printf '%-12s %9s %9s %9s %9s' "$name" "$wall" "$cpu" "$((rss / 1024))" "$fps")")
  return 0
}

check_found() {  # the first line of `cycles` names the number of cycles
  local found
  found=$(head -n 1 "$work/stdout" | sed -n 's/.*: \([0-9]*\) import cycle.*/\1/p')
  if [[ -n $found && $found != "$sccs" ]]; then
    echo "monorepo: cyclefix found $found cycles, the generator made $sccs" >&2
  fi
}

# Every run reads the tree from the page cache, the floor too: read once,
# untimed, first (the floor was the first run and paid for the disk reads, which
# made the ratios below look up to 20% better than they are).
find "$tree" -name '*.py' -print0 | xargs -0 cat >/dev/null
if run parse 0 "$binary" parse "${parse_flags[@]}" "$tree"; then
  echo "parse:   $(tail -n 1 "$work/stdout")"
fi

# The graph and its cycles (--no-simulate), then the default `cycles`, which
# also simulates every entry point; each cold (empty cache), then warm.
for variant in nosim full; do
  flags=()
  if [[ $variant == nosim ]]; then flags=(--no-simulate); fi
  cache=()
  if ((cache_ok)); then cache=(--cache-dir "$work/cache-$variant"); fi
  status=0
  run "cold-$variant" 1 "$binary" cycles "${flags[@]}" "${cache[@]}" "$tree" || status=$?
  if ((status == 0)); then
    echo "cycles:  $(head -n 1 "$work/stdout")"
    check_found
  fi
  if ((cache_ok && status == 0)); then
    # One run whatever --runs says: the first warm run is the one that matters.
    runs=1 run "warm-$variant" 1 "$binary" cycles "${flags[@]}" "${cache[@]}" "$tree" || true
    # One file edited: the whole-run record misses, the facts cache serves the other files.
    edited=$(find "$tree" -name '*.py' -print -quit)
    cp -p "$edited" "$work/edited.orig"
    echo "# edited by monorepo.sh" >>"$edited"
    runs=1 run "edit1-$variant" 1 "$binary" cycles "${flags[@]}" "${cache[@]}" "$tree" || true
    cp -p "$work/edited.orig" "$edited"
    edited=""
  fi
done

# The simulator on its own, both entry modes, facts from the warm cache of the
# runs above (cold, without one).
cache=()
if ((cache_ok)); then cache=(--cache-dir "$work/cache-full"); fi
run simulate 1 "$binary" simulate --entry both "${cache[@]}" "$tree" || true

if ((rewrite)); then
  cache=()
  if ((cache_ok)); then cache=(--cache-dir "$work/cache-rewrite"); fi
  if run rewrite 1 "$binary" "${cache[@]}" "$tree"; then
    echo "rewrite: $(tail -n 1 "$work/stderr")"
    # Where its time and memory go, by stage (CYCLEFIX_PROFILE; docs/architecture.md,
    # "Memory on large trees"): a second run, as the profile resets the peak it reads.
    CYCLEFIX_PROFILE=1 "$binary" --no-cache "$tree" >/dev/null 2>"$work/stages" || true
    if grep -q '^cyclefix: profile: ' "$work/stages"; then
      echo "rewrite by stage (wall, the stage's own peak RSS, RSS at its end):"
      sed -n 's/^cyclefix: profile: /  /p' "$work/stages"
    fi
  fi
fi

echo
printf '%-12s %9s %9s %9s %9s\n' run wall_s cpu_s peak_MiB files/s
printf '%s\n' "${rows[@]}"
echo
for variant in nosim full; do
  r=$(ratio "${W[cold-$variant]:-}" "${W[parse]:-}")
  echo "cold-$variant/parse: wall ${r} (target <= 1.3x: $(verdict "$r" 1.3 le)), CPU $(ratio "${C[cold-$variant]:-}" "${C[parse]:-}")"
done
for variant in nosim full; do
  if ((cache_ok)); then
    r=$(ratio "${W[warm-$variant]:-}" "${W[cold-$variant]:-}")
    echo "warm-$variant/cold-$variant: wall ${r} (target < 0.10x: $(verdict "$r" 0.10 lt)), CPU $(ratio "${C[warm-$variant]:-}" "${C[cold-$variant]:-}")"
    echo "edit1-$variant/cold-$variant (one file changed): wall $(ratio "${W[edit1-$variant]:-}" "${W[cold-$variant]:-}"), CPU $(ratio "${C[edit1-$variant]:-}" "${C[cold-$variant]:-}")"
  else
    echo "warm-$variant: cache: not supported by this binary"
  fi
done
# /usr/bin/time gives KiB: the target is 2 GB (10^9 bytes), the stricter reading.
gib=$(awk -v k="$peak_rss" 'BEGIN { printf "%.2f", k / 1048576 }')
gb=$(awk -v k="$peak_rss" 'BEGIN { printf "%.2f", k * 1024 / 1e9 }')
echo "peak memory: $gb GB ($gib GiB) over the runs that finished (target < 2 GB for 50,000 files: $(verdict "$gb" 2 lt))"
echo "load at end:$(uptime | sed 's/.*load average://')"
fi  # monorepo

# ---------------------------------------------------------------- Django
if ((!compare)); then exit "$failed"; fi
echo
if [[ ! -d $django ]]; then
  echo "django: $django is missing (apt-get install python3-django); comparison skipped"
  exit "$failed"
fi
dj_files=$(find "$django" -name '*.py' | wc -l)
dj_version=$("$py" -c 'import django; print(django.get_version())' 2>/dev/null || echo "?")
echo "== Django $dj_version: $django, $dj_files .py files"

as_root() { if [[ $(id -u) -eq 0 ]]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else return 1; fi; }

cmp_rows=()
cmp_row() { cmp_rows+=("$(printf '%-9s %9s %9s %9s %8s %8s  %s' "$@")"); }

cf_wall="" cf_cpu=""
if timed 1 "$binary" cycles --no-cache "$django"; then
  cf_wall=$wall cf_cpu=$cpu
  n=$(head -n 1 "$work/stdout" | sed -n 's/.*: \([0-9]*\) import cycle.*/\1/p')
  cmp_row cyclefix "$wall" "$cpu" "$((rss / 1024))" "1.00x" "1.00x" "${n:-0} cycles (SCCs)"
else
  failed=1
fi

if [[ ! -x /usr/bin/pylint ]]; then
  echo "pylint: missing; installing the Debian package"
  if ! { as_root apt-get update -qq && DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq pylint; } \
      >"$work/apt.log" 2>&1; then
    echo "pylint: could not be installed (apt-get failed: $(tail -n 1 "$work/apt.log")); skipped"
  fi
fi
if [[ -x /usr/bin/pylint ]]; then
  pl_version=$(/usr/bin/pylint --version 2>/dev/null | sed -n 1p)
  # pylint exits with a bit mask of the message kinds it printed; 32 is a usage error.
  if timed 31 env -C "$(dirname "$django")" timeout 3600 /usr/bin/pylint --disable=all --enable=cyclic-import \
      --score=n django; then
    n=$(grep -c 'R0401' "$work/stdout" || true)
    cmp_row pylint "$wall" "$cpu" "$((rss / 1024))" "$(ratio "$wall" "$cf_wall")" "$(ratio "$cpu" "$cf_cpu")" "$n cyclic-import messages ($pl_version)"
  else
    echo "pylint: failed; skipped"
  fi
fi

pyright=$bench_cache/pyright-$pyright_version/node_modules/.bin/pyright
if [[ ! -x $pyright ]]; then
  if command -v npm >/dev/null; then
    echo "pyright: installing pyright@$pyright_version from the npm registry into $bench_cache"
    mkdir -p "$bench_cache/pyright-$pyright_version"
    if ! npm install --prefix "$bench_cache/pyright-$pyright_version" --no-audit --no-fund --silent \
        "pyright@$pyright_version" >"$work/npm.log" 2>&1; then
      echo "pyright: npm install failed ($(tail -n 1 "$work/npm.log")); skipped"
    fi
  else
    echo "pyright: npm is missing (apt-get install npm); skipped"
  fi
fi
if [[ -x $pyright ]]; then
  mkdir -p "$work/pyright"
  cp -r "$django" "$work/pyright/django"
  find "$work/pyright/django" -name __pycache__ -prune -exec rm -rf {} +
  cat >"$work/pyright/pyrightconfig.json" <<'JSON'
{
  "include": ["django"],
  "reportImportCycles": "error"
}
JSON
  # pyright exits 1 when it reports errors (the cycles and type errors).
  if timed 1 env -C "$work/pyright" timeout 3600 "$pyright" --outputjson --pythonpath "$py"; then
    n=$("$py" -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(sum(1 for x in d.get("generalDiagnostics", []) if x.get("rule") == "reportImportCycles"))' "$work/stdout" \
      2>/dev/null || echo "?")
    cmp_row pyright "$wall" "$cpu" "$((rss / 1024))" "$(ratio "$wall" "$cf_wall")" "$(ratio "$cpu" "$cf_cpu")" "$n reportImportCycles errors (pyright $pyright_version)"
  else
    echo "pyright: failed; skipped"
  fi
fi

echo
printf '%-9s %9s %9s %9s %8s %8s  %s\n' tool wall_s cpu_s peak_MiB wall/cf cpu/cf what
printf '%s\n' "${cmp_rows[@]}"
exit "$failed"
