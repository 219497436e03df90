#!/usr/bin/env bash
# The wheel (pyproject.toml, scikit-build-core) as a user gets it: built from
# this checkout in a clean virtual environment, installed into another fresh
# one, and the installed `cyclefix` run on docs/example: --version is the CMake
# build's, `cycles` finds the loop (exit 1), the diff is the built binary's,
# --check exits 1, --apply then --check exits 0. Prints the wheel's size and the
# install time; where auditwheel is installed, repairs the wheel and lists what
# it bundled, else lists the shared libraries it would have to bundle.
#
# Exit 77 (ctest: skipped, with the reason) when scikit-build-core cannot be
# installed into the venv (it is not packaged by Debian 12; pip needs a
# package index that has it).
#
# usage: tests/wheel/check_wheel.sh SOURCE_DIR REFERENCE_CYCLEFIX
set -euo pipefail
src=$(cd "$1" && pwd)
ref=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cyclefix-wheel.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }

python3 -m venv "$tmp/build-venv"
if ! "$tmp/build-venv/bin/pip" install --retries 1 --timeout 30 -q "scikit-build-core>=0.10" >"$tmp/pip.log" 2>&1; then
  echo "SKIP: scikit-build-core cannot be installed into a clean venv here (not a Debian 12 package;"
  echo "      no reachable package index has it). pip said:"
  tail -n 3 "$tmp/pip.log" | sed 's/^/      /'
  exit 77
fi

echo "== building the wheel"
start=$EPOCHREALTIME
# No build isolation: the build venv already holds the backend; CMake, the
# compilers and the libraries are the Debian packages'.
"$tmp/build-venv/bin/pip" wheel --no-build-isolation --no-deps -w "$tmp/dist" "$src"
wheel=$(ls "$tmp"/dist/cyclefix-*.whl)
echo "wheel: $(basename "$wheel"), $(du -k "$wheel" | cut -f1) KiB, built in $(elapsed "$start") s"

echo "== installing it into a fresh venv"
python3 -m venv "$tmp/user-venv"
start=$EPOCHREALTIME
"$tmp/user-venv/bin/pip" install --no-index -q "$wheel"
echo "installed in $(elapsed "$start") s"
installed="$tmp/user-venv/bin/cyclefix"
[[ -x $installed ]] || { echo "FAIL: the wheel installed no bin/cyclefix"; exit 1; }

version=$("$installed" --version)
[[ $version == "$("$ref" --version)" ]] || { echo "FAIL: installed '$version', CMake build '$("$ref" --version)'"; exit 1; }
echo "version: $version"

cp -r "$src/docs/example" "$tmp/example"
cd "$tmp/example"
status=0
"$installed" cycles --no-cache shop >/dev/null || status=$?
[[ $status -eq 1 ]] || { echo "FAIL: cyclefix cycles exited $status, expected 1 (a cycle)"; exit 1; }
diff -u <("$ref" --no-cache shop 2>/dev/null) <("$installed" --no-cache shop 2>/dev/null) \
  || { echo "FAIL: the installed cyclefix prints another diff than the CMake build"; exit 1; }
grep -q '^+++ b/shop/pricing.py' <("$installed" --no-cache shop 2>/dev/null) || { echo "FAIL: no diff"; exit 1; }
status=0
"$installed" --no-cache --check shop 2>/dev/null || status=$?
[[ $status -eq 1 ]] || { echo "FAIL: --check exited $status before the fix, expected 1"; exit 1; }
"$installed" --no-cache --apply shop >/dev/null 2>&1
"$installed" --no-cache --check shop 2>/dev/null || { echo "FAIL: --check fails after --apply"; exit 1; }

echo "== shared libraries"
if command -v auditwheel >/dev/null; then
  auditwheel repair -w "$tmp/repaired" "$wheel"
  repaired=$(ls "$tmp"/repaired/*.whl)
  echo "repaired: $(basename "$repaired"), $(du -k "$repaired" | cut -f1) KiB; bundled:"
  python3 -m zipfile -l "$repaired" | grep -o '[^ /]*\.libs/[^ ]*' | sed 's/^/  /'
else
  echo "auditwheel is not installed (not a Debian 12 package): not repaired. Libraries outside glibc it would bundle:"
  ldd "$installed" | awk '{print $1}' | grep -v -E '^(linux-vdso|/lib64/ld-linux|libc\.so|libm\.so|libpthread|libdl|librt)' | sed 's/^/  /'
fi
echo "ok: wheel built, installed, and the installed cyclefix breaks docs/example's cycle"
