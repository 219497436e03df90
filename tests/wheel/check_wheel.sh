#!/usr/bin/env bash
# The wheel (pyproject.toml, scikit-build-core) as a user gets it: built from
# this checkout in a clean virtual environment, repaired with auditwheel (the
# shared libraries it links, Boost's aside as Boost.Graph is header-only: CBC,
# tree-sitter, toml++ and theirs, bundled into the wheel), installed into a
# fresh venv and with pipx, and the installed `cyclefix` run on docs/example:
# --version is the CMake build's, `cycles` finds the loop (exit 1), the diff is
# the built binary's, --check exits 1, --apply then --check exits 0. Then the
# installed binary runs again with the system's copies of every bundled library
# hidden (a user namespace bind-mounts /dev/null over them): it must not need
# them. Prints the wheel's size, what auditwheel bundled and the install times.
#
# usage: tests/wheel/check_wheel.sh SOURCE_DIR REFERENCE_CYCLEFIX [TOOLS_SITE]
#
# TOOLS_SITE: a folder holding scikit-build-core and auditwheel as Python
# packages (tools/install_wheel_tools.sh prints it; neither is a Debian 12
# package). Without it, pip installs them from a package index. Exit 77 (ctest:
# skipped, with the reason) when neither way has them.
set -euo pipefail
src=$(cd "$1" && pwd)
ref=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
tools_site=${3:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cyclefix-wheel.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
fail() { echo "FAIL: $*"; exit 1; }

python3 -m venv "$tmp/build-venv"
bpy=$tmp/build-venv/bin/python
if [[ -n $tools_site && -d $tools_site ]]; then
  # The venv sees the unpacked tools through a .pth (an absolute path), as site-packages would.
  echo "$(cd "$tools_site" && pwd)" >"$("$bpy" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/wheel-tools.pth"
elif ! "$bpy" -m pip install --retries 1 --timeout 30 -q "scikit-build-core>=0.10" auditwheel >"$tmp/pip.log" 2>&1; then
  echo "SKIP: no scikit-build-core here: tools/install_wheel_tools.sh gave no folder and no"
  echo "      reachable package index has it. pip said:"
  tail -n 3 "$tmp/pip.log" | sed 's/^/      /'
  exit 77
fi
"$bpy" -c 'import scikit_build_core.build' || fail "scikit-build-core does not import in the build venv"

echo "== building the wheel"
start=$EPOCHREALTIME
# No build isolation: the build venv already holds the backend; CMake, the
# compilers and the libraries are the Debian packages'.
"$bpy" -m pip wheel --no-build-isolation --no-deps -w "$tmp/dist" "$src"
wheel=$(ls "$tmp"/dist/cyclefix-*.whl)
echo "wheel: $(basename "$wheel"), $(du -k "$wheel" | cut -f1) KiB, built in $(elapsed "$start") s"

echo "== bundling its shared libraries (auditwheel repair)"
command -v patchelf >/dev/null || fail "auditwheel needs patchelf (Debian 12 package patchelf; tools/setup.sh test installs it)"
"$bpy" -m auditwheel show "$wheel" | sed 's/^/  /'
"$bpy" -m auditwheel repair -w "$tmp/repaired" "$wheel"
repaired=$(ls "$tmp"/repaired/cyclefix-*.whl)
bundled=$("$bpy" -m zipfile -l "$repaired" | awk '{print $1}' | sed -n 's|^cyclefix\.libs/\(..*\)|\1|p')
[[ -n $bundled ]] || fail "auditwheel bundled nothing into $(basename "$repaired")"
echo "repaired: $(basename "$repaired"), $(du -k "$repaired" | cut -f1) KiB; bundled $(wc -l <<<"$bundled") libraries:"
sed 's/^/  /' <<<"$bundled"

echo "== installing it into a fresh venv"
python3 -m venv "$tmp/user-venv"
start=$EPOCHREALTIME
"$tmp/user-venv/bin/pip" install --no-index -q "$repaired"
echo "installed in $(elapsed "$start") s"
installed="$tmp/user-venv/bin/cyclefix"
[[ -x $installed ]] || fail "the wheel installed no bin/cyclefix"

version=$("$installed" --version)
[[ $version == "$("$ref" --version)" ]] || fail "installed '$version', CMake build '$("$ref" --version)'"
echo "version: $version"

# check_example CYCLEFIX [WRAPPER...]: the installed binary on a fresh copy of docs/example.
check_example() {
  local bin=$1 dir
  shift
  dir=$(mktemp -d "$tmp/example.XXXXXX")
  cp -r "$src/docs/example/." "$dir"
  (
    cd "$dir"
    status=0
    "$@" "$bin" cycles --no-cache shop >/dev/null || status=$?
    [[ $status -eq 1 ]] || fail "cyclefix cycles exited $status, expected 1 (a cycle)"
    diff -u <("$ref" --no-cache shop 2>/dev/null) <("$@" "$bin" --no-cache shop 2>/dev/null) \
      || fail "the installed cyclefix prints another diff than the CMake build"
    grep -q '^+++ b/shop/pricing.py' <("$@" "$bin" --no-cache shop 2>/dev/null) || fail "no diff"
    status=0
    "$@" "$bin" --no-cache --check shop 2>/dev/null || status=$?
    [[ $status -eq 1 ]] || fail "--check exited $status before the fix, expected 1"
    "$@" "$bin" --no-cache --apply shop >/dev/null 2>&1
    "$@" "$bin" --no-cache --check shop 2>/dev/null || fail "--check fails after --apply"
  )
}
check_example "$installed"
echo "ok: pip-installed cyclefix breaks docs/example's cycle"

echo "== without the system's copies of the bundled libraries"
# Every library the CMake build loads from the system that the repaired wheel
# carries itself (auditwheel renames them libX-<hash>.so.N), by real path.
hidden=()
while read -r name path; do
  stem=${name%%.so*}
  grep -q "^${stem}-[0-9a-f]*\.so" <<<"$bundled" && hidden+=("$(readlink -f "$path")")
done < <(ldd "$ref" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}')
[[ ${#hidden[@]} -gt 0 ]] || fail "none of the CMake build's libraries is among the bundled ones"
if unshare -rm true 2>/dev/null; then
  # In a private mount namespace, /dev/null over each: the loader finds an empty
  # file where the library was. The built binary must fail there, the installed one not.
  hide="for f in ${hidden[*]}; do mount --bind /dev/null \"\$f\"; done; exec \"\$@\""
  unshare -rm sh -c "$hide" sh "$ref" --version >/dev/null 2>&1 \
    && fail "hiding ${#hidden[@]} system libraries did not stop the CMake build: the check proves nothing"
  check_example "$installed" unshare -rm sh -c "$hide" sh
  echo "ok: the installed cyclefix runs with ${#hidden[@]} system libraries hidden: ${hidden[*]##*/}"
else
  echo "not checked: user namespaces are not available here (unshare -rm), so the system's"
  echo "libraries could not be hidden; ldd of the installed binary:"
  ldd "$installed" | sed 's/^/  /'
fi

echo "== pipx install"
if command -v pipx >/dev/null; then
  start=$EPOCHREALTIME
  PIPX_HOME=$tmp/pipx PIPX_BIN_DIR=$tmp/pipx-bin pipx install "$repaired" >"$tmp/pipx.log" 2>&1 \
    || { cat "$tmp/pipx.log"; fail "pipx install of the repaired wheel failed"; }
  echo "pipx installed it in $(elapsed "$start") s"
  [[ $("$tmp/pipx-bin/cyclefix" --version) == "$version" ]] || fail "pipx's cyclefix prints another version"
  check_example "$tmp/pipx-bin/cyclefix"
  echo "ok: pipx-installed cyclefix breaks docs/example's cycle"
else
  echo "not checked: pipx is not installed (Debian 12 package pipx)"
fi
echo "ok: wheel built, repaired, installed with pip and pipx, and self-contained"
