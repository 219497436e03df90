#!/usr/bin/env bash
# Install the Python build tools the wheel test needs, scikit-build-core (the
# build backend pyproject.toml names) and auditwheel (which bundles the shared
# libraries into the wheel), into a private folder without touching the system,
# and print the path of the folder that holds them as Python packages.
#
#   usage: tools/install_wheel_tools.sh [PREFIX]   PREFIX defaults to $WHEEL_TOOLS_PREFIX
#                                                  or the repository's .cache/wheel-tools
#          SITE=$(tools/install_wheel_tools.sh) && echo "$SITE" >VENV/lib/python3.X/site-packages/tools.pth
#
# Why: Debian 12 packages neither tool and this machine reaches no PyPI index.
# Debian sid packages both as pure-Python .debs (python3-scikit-build-core,
# python3-auditwheel and their dependencies), so they are fetched as the project
# fetches CPython 3.15 (tools/sid_apt.sh: a private apt state, .debs checked
# against sid's signed Release file) and unpacked with `dpkg-deb -x`. Nothing is
# installed into the system's Python: a virtual environment reaches them through
# a .pth file holding the printed path. auditwheel also runs `patchelf`, a
# Debian 12 package (tools/setup.sh test installs it).
#
# stdout: only the path (PREFIX/usr/lib/python3/dist-packages). stderr: progress
# and versions. Idempotent: when the tools already import from there, the path is
# printed at once; WHEEL_TOOLS_FORCE=1 reinstalls.
set -euo pipefail

log() { echo "install_wheel_tools: $*" >&2; }
# sid_apt, candidate, sid_download: a private apt state for Debian sid.
source "$(dirname "${BASH_SOURCE[0]}")/sid_apt.sh"

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prefix=${1:-${WHEEL_TOOLS_PREFIX:-$repo/.cache/wheel-tools}}
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
site=$prefix/usr/lib/python3/dist-packages

# The check runs in a clean interpreter (-I: no user site, no PYTHONPATH) with
# only $site added, as a venv with the .pth sees it.
works() {
  [[ -d $site ]] && python3 -I -c '
import sys
sys.path.insert(0, sys.argv[1])
import scikit_build_core.build, auditwheel.main, elftools, packaging, pathspec, pyproject_metadata
from importlib.metadata import version
print("scikit-build-core", version("scikit-build-core"), "auditwheel", version("auditwheel"))
' "$site"
}

if [[ -z ${WHEEL_TOOLS_FORCE:-} ]] && versions=$(works 2>/dev/null); then
  log "$versions (already installed)"
  echo "$site"
  exit 0
fi

pkgs=(python3-scikit-build-core python3-packaging python3-pathspec python3-pyproject-metadata
      python3-auditwheel python3-pyelftools)
sid_apt python3-scikit-build-core
for p in "${pkgs[@]}"; do
  [[ -n $(candidate "$p") ]] || { log "$p is not in sid"; exit 1; }
done
rm -rf "$prefix/.debs" "$prefix/usr"
sid_download "$prefix/.debs" "${pkgs[@]}"
for deb in "$prefix"/.debs/*.deb; do
  dpkg-deb -x "$deb" "$prefix"
done
log "downloaded ${#pkgs[@]} packages: $(cd "$prefix/.debs" && ls | sed 's/_all\.deb$//' | tr '\n' ' ')"

if ! versions=$(works); then
  log "the unpacked tools do not import with $(python3 -V)"
  exit 1
fi
log "$versions at $site"
echo "$site"
