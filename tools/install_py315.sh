#!/usr/bin/env bash
# Install CPython 3.15 (Debian sid's build) into a private prefix, without touching
# the system's dpkg/apt state, and print the path of a `python3.15` wrapper. The
# tests that compare cyclefix with a real 3.15 (PEP 810 `lazy import`,
# `-X lazy_imports=all`) use it; tools/setup.sh test runs it and hands the path
# to CMake (-DCYCLEFIX_PYTHON315=...).
#
#   usage: tools/install_py315.sh [PREFIX]          PREFIX defaults to $PY315_PREFIX or
#                                                   the repository's .cache/py315
#          tools/install_py315.sh --check [PREFIX]  install if needed, then verify it
#          PY=$(tools/install_py315.sh) && "$PY" -X lazy_imports=all -c '...'
#
# stdout: only the wrapper's path (PREFIX/bin/python3.15). stderr: progress and the
# exact version. Idempotent: when the wrapper already runs a 3.15 interpreter it is
# printed at once; PY315_FORCE=1 reinstalls.
#
# How: a private apt configuration in a temporary folder, removed on exit (own
# sources.list naming sid, and experimental only if sid lacks a package; own lists
# and cache dirs) against the Debian mirror that this machine's apt already uses
# (read from /etc/apt at run time; SID_MIRROR overrides; tools/sid_apt.sh), then
# `apt-get download` of python3.15-minimal, libpython3.15-minimal,
# libpython3.15-stdlib and sid's libc6 plus the libraries they link, `dpkg-deb -x`
# into PREFIX. apt checks each .deb against sid's signed Release file. The wrapper
# runs PREFIX's python3.15 through sid's own dynamic loader with --library-path (no
# LD_LIBRARY_PATH, no PYTHONHOME: child processes such as the system's python3 are
# unaffected) and --argv0 "$0", so sys.executable is the wrapper and getpath finds
# the stdlib via the landmark link PREFIX/lib/python3.15 -> ../usr/lib/python3.15.
set -euo pipefail

log() { echo "install_py315: $*" >&2; }
# sid_apt, candidate, sid_download: a private apt state for Debian sid.
source "$(dirname "${BASH_SOURCE[0]}")/sid_apt.sh"

arch=$(dpkg --print-architecture)
case $arch in
  amd64) triplet=x86_64-linux-gnu ld=ld-linux-x86-64.so.2 ;;
  arm64) triplet=aarch64-linux-gnu ld=ld-linux-aarch64.so.1 ;;
  *) log "unsupported architecture $arch"; exit 1 ;;
esac

if [[ ${1:-} == --check ]]; then
  shift
  py=$(bash "$0" "$@")
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  fails=0
  check() {  # check NAME EXPECTED COMMAND...: compares the command's stdout+stderr
    local name=$1 want=$2 got
    shift 2
    got=$("$@" 2>&1) || true
    if [[ $got == "$want" ]]; then echo "ok   $name: $got"
    else echo "FAIL $name: want [$want] got [$got]"; fails=$((fails + 1)); fi
  }
  cd "$tmp"
  "$py" -VV
  check "stdlib on sys.path" "True" "$py" -c 'import sys, os; print(any(os.path.isfile(os.path.join(p, "os.py")) for p in sys.path))'
  check "sys.executable is the wrapper" "$py" "$py" -c 'import sys; print(sys.executable)'
  check "lazy from json import dumps" "False True {\"a\": 1} True" "$py" -c '
lazy from json import dumps
import sys
print("json" in sys.modules, type(globals()["dumps"]).__name__ == "lazy_import", dumps({"a": 1}), "json" in sys.modules)'
  check "-X lazy_imports=all" "all False True" "$py" -X lazy_imports=all -c '
import sys, json
print(sys.get_lazy_imports(), "json" in sys.modules, json.loads("1") == 1 and "json" in sys.modules)'
  check "PYTHON_LAZY_IMPORTS=all" "all" env PYTHON_LAZY_IMPORTS=all "$py" -c 'import sys; print(sys.get_lazy_imports())'
  check "-m json.tool" '{"a":1}' sh -c "echo '{\"a\":1}' | '$py' -m json.tool --compact"
  mkdir -p "$tmp/lib/cyc"
  : >"$tmp/lib/cyc/__init__.py"
  printf 'from cyc.b import g\ndef f(): return g()\n' >"$tmp/lib/cyc/a.py"
  printf 'from cyc.a import f\ndef g(): return 1\n' >"$tmp/lib/cyc/b.py"
  printf 'import importlib, sys\nimportlib.import_module(sys.argv[1])\nprint("imported", sys.argv[1])\n' >"$tmp/entry.py"
  check "script + PYTHONPATH" "imported cyc" env PYTHONPATH="$tmp/lib" "$py" "$tmp/entry.py" cyc
  sys_py=$(command -v python3)
  want=$(PYTHONPATH="$tmp/lib" "$sys_py" "$tmp/entry.py" cyc.a 2>&1 | tail -1 || true)
  check "cycle like $("$sys_py" -c 'import sys; print(sys.version.split()[0])')" "$want" \
    sh -c "PYTHONPATH='$tmp/lib' '$py' '$tmp/entry.py' cyc.a 2>&1 | tail -1"
  check "cycle under -X lazy_imports=all" "imported cyc.a" env PYTHONPATH="$tmp/lib" "$py" -X lazy_imports=all "$tmp/entry.py" cyc.a
  check "system python3 unaffected" "True" "$sys_py" -c 'import sys; print(sys.version_info[:2] != (3, 15))'
  echo "install_py315: $fails check(s) failed"
  exit $((fails > 0))
fi

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prefix=${1:-${PY315_PREFIX:-$repo/.cache/py315}}
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
wrapper=$prefix/bin/python3.15

works() {
  [[ -x $wrapper ]] && "$wrapper" -c 'import sys, json; sys.exit(sys.version_info[:2] != (3, 15))' 2>/dev/null
}

if [[ -z ${PY315_FORCE:-} ]] && works; then
  log "$("$wrapper" -c 'import sys; print(sys.version.splitlines()[0])') (already installed)"
  echo "$wrapper"
  exit 0
fi

sid_apt python3.15-minimal
ver=$(candidate python3.15-minimal)
log "python3.15-minimal $ver"

# The interpreter, its stdlib, sid's libc (the binaries need a newer glibc than
# Debian 12's) and the shared libraries that the interpreter and the stdlib's
# extension modules link. Optional ones are skipped when the archive lacks them.
required=(python3.15-minimal libpython3.15-minimal libpython3.15-stdlib
          libc6 libzstd1 libexpat1 zlib1g libgcc-s1 libffi8)
optional=(libssl3t64 libbz2-1.0 liblzma5 libsqlite3-0 libuuid1 libncursesw6 libtinfo6
          libreadline8t64 libmpdec4)
pkgs=("${required[@]}")
for p in "${optional[@]}"; do
  [[ -n $(candidate "$p") ]] && pkgs+=("$p")
done

rm -rf "$prefix/.debs" "$prefix/.apt"
sid_download "$prefix/.debs" "${pkgs[@]}"
log "downloaded ${#pkgs[@]} packages"

# Fresh tree (keep .debs).
rm -rf "$prefix/usr" "$prefix/lib" "$prefix/lib64" "$prefix/bin" "$prefix/etc" "$prefix/var"
for deb in "$prefix"/.debs/*.deb; do
  dpkg-deb -x "$deb" "$prefix"
done

loader=""
for c in "$prefix/usr/lib/$triplet/$ld" "$prefix/lib/$triplet/$ld" "$prefix/usr/lib64/$ld" "$prefix/lib64/$ld"; do
  if [[ -e $c ]]; then loader=$(readlink -f "$c"); break; fi
done
[[ -n $loader ]] || { log "sid's libc6 has no $ld"; exit 1; }
libpath=$prefix/usr/lib/$triplet
[[ -d $prefix/lib/$triplet ]] && libpath+=":$prefix/lib/$triplet"

# getpath's landmark: PREFIX/lib/python3.15/os.py (and lib-dynload) next to bin/.
mkdir -p "$prefix/lib" "$prefix/bin"
ln -sfn ../usr/lib/python3.15 "$prefix/lib/python3.15"

cat >"$wrapper" <<EOF
#!/bin/sh
# CPython 3.15 from Debian sid ($ver), run through sid's own dynamic loader.
# Generated by cyclefix tools/install_py315.sh; sys.executable is this script.
exec "$loader" --library-path "$libpath" --argv0 "\$0" "$prefix/usr/bin/python3.15" "\$@"
EOF
chmod +x "$wrapper"

if ! works; then
  log "the installed interpreter does not run:"
  "$wrapper" -c 'import sys; print(sys.version, sys.path)' >&2 || true
  exit 1
fi
log "Python $("$wrapper" -c 'import sys; print(sys.version.splitlines()[0])') (Debian $ver) at $wrapper"
echo "$wrapper"
