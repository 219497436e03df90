#!/usr/bin/env bash
# Set up cyclefix on a Debian 12 machine, build it, and run it.
#
#   tools/setup.sh example   install what is missing, build, run `cyclefix cycles docs/example`
#                            and `cyclefix docs/example` (the diff that breaks its cycle)
#   tools/setup.sh test      install what is missing, build, run every test (ctest), then
#                            the sanitizer build's tests and a 60 s fuzz run (tools/fuzz.sh)
#   tools/setup.sh build     install only the build dependencies and build the binary alone
#                            (Release, no tests) into build-release/ (the GitHub Action, action.yml)
#
# Installs only the Debian packages that are not installed yet (with sudo when
# not root), configures with CMake into build/ and builds on all cores. CMake
# fetches the tree-sitter-python grammar with `npm pack` at configure time and
# caches it in .cache/grammar/. Safe to run again; CI runs `tools/setup.sh test`.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

usage() {
  echo "usage: tools/setup.sh example|test|build" >&2
  exit 2
}
[[ $# -eq 1 ]] || usage
mode=$1
[[ $mode == example || $mode == test || $mode == build ]] || usage

# Build dependencies (Debian 12 package names; Ubuntu 24.04 has the same), then
# what the tests need. python3-django and python3-sympy are only for
# tests/bench/real_trees.sh and are not installed here.
packages=(
  build-essential cmake pkg-config git python3
  libtree-sitter-dev libboost-graph-dev libcli11-dev libdtl-dev
  nlohmann-json3-dev libtomlplusplus-dev coinor-libcbc-dev libjemalloc-dev
)
if [[ $mode != build ]]; then
  packages+=(time googletest libgtest-dev clang libclang-rt-14-dev graphviz chromium pre-commit
            patchelf pipx)
fi

install_missing_packages() {
  local missing=() pkg
  for pkg in "$@"; do
    if [[ $(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null) != "install ok installed" ]]; then
      missing+=("$pkg")
    fi
  done
  if [[ ${#missing[@]} -eq 0 ]]; then
    echo "setup: all Debian packages are installed"
    return
  fi

  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null; then
      sudo=(sudo)
    else
      echo "setup: missing packages and not root (and no sudo): ${missing[*]}" >&2
      exit 1
    fi
  fi
  echo "setup: installing ${missing[*]}"
  "${sudo[@]}" apt-get update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}"
}

# npm (with node) only fetches the grammar tarball. Once CMake has cached it,
# it is not needed; if the cached tarball fails its integrity check, CMake
# deletes it and the next run installs npm.
# An npm that is already on PATH (e.g. from NodeSource's nodejs, which conflicts
# with Debian's npm package) is used as it is.
if ! compgen -G ".cache/grammar/tree-sitter-python-*.tgz" >/dev/null && ! command -v npm >/dev/null; then
  packages+=(npm)
fi

install_missing_packages "${packages[@]}"

if [[ $mode == build ]]; then
  cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DCYCLEFIX_TESTS=OFF
  cmake --build build-release -j"$(nproc)" --target cyclefix
  build-release/cyclefix --version
  exit 0
fi

# The tests compare cyclefix with a real CPython 3.15 (PEP 810 lazy imports):
# tools/install_py315.sh puts Debian sid's build in .cache/py315 without
# touching the system. If it cannot (no network, no mirror), those tests skip
# and say so.
test_args=()
if [[ $mode == test ]]; then
  if py315=$(tools/install_py315.sh); then
    test_args=(-DCYCLEFIX_PYTHON315="$py315")
  else
    echo "setup: could not install Python 3.15; the lazy_case_* tests will be skipped" >&2
    test_args=(-DCYCLEFIX_PYTHON315=)
  fi
  # The wheel test builds with scikit-build-core and bundles the shared libraries
  # with auditwheel; neither is a Debian 12 package, so tools/install_wheel_tools.sh
  # unpacks Debian sid's into .cache/wheel-tools. If it cannot, the test tries pip.
  if wheel_tools=$(tools/install_wheel_tools.sh); then
    test_args+=(-DCYCLEFIX_WHEEL_TOOLS="$wheel_tools")
  else
    echo "setup: could not install scikit-build-core and auditwheel; the wheel test will try pip" >&2
    test_args+=(-DCYCLEFIX_WHEEL_TOOLS=)
  fi
fi

# A unity build (CMake batches the sources of cyclefix_lib and cyclefix; not the
# tests): a clean build takes about half the time. Incremental builds of your
# own are faster without it (plain `cmake -S . -B DIR`).
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_UNITY_BUILD=ON "${test_args[@]}"
cmake --build build -j"$(nproc)"

case $mode in
  example)
    echo
    echo "\$ build/cyclefix cycles docs/example"
    # cyclefix exits 1 when it finds cycles, which is the point of the example.
    status=0
    build/cyclefix cycles docs/example || status=$?
    if [[ $status -gt 1 ]]; then
      echo "setup: cyclefix failed (exit $status)" >&2
      exit "$status"
    fi
    echo
    echo "\$ build/cyclefix docs/example"
    # Prints the diff that breaks the cycle (nothing is written); exit 0.
    build/cyclefix docs/example
    ;;
  test)
    # 1. The normal build: every test. --no-tests=error: a build that lost its
    #    tests must not pass.
    failed=()
    echo "setup: === tests (RelWithDebInfo) ==="
    ctest --test-dir build --output-on-failure --no-tests=error -j"$(nproc)" || failed+=("tests")
    # 2. The sanitizer build (clang, AddressSanitizer + UndefinedBehaviorSanitizer,
    #    also instrumented for the fuzzer): unit tests and golden suite (the
    #    200-package differential run, the real-tree page-load measurements and
    #    the wheel, a Release build of its own, are covered by the normal build).
    echo "setup: === tests under ASan + UBSan (build-asan) ==="
    cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
      -DCMAKE_CXX_COMPILER=clang++ -DCYCLEFIX_SANITIZE=ON -DCYCLEFIX_FUZZ=ON -DCMAKE_UNITY_BUILD=ON >/dev/null
    cmake --build build-asan -j"$(nproc)"
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
      ctest --test-dir build-asan --output-on-failure --no-tests=error -j"$(nproc)" \
      -E "differential|html_report_(django|sympy)|wheel_install" \
      || failed+=("sanitizer tests")
    # 3. A bounded fuzz run of the parser-to-rewrite path.
    echo "setup: === fuzz (60 s) ==="
    tools/fuzz.sh 60 build-asan || failed+=("fuzz")
    if [[ ${#failed[@]} -gt 0 ]]; then
      echo "setup: FAILED: ${failed[*]}" >&2
      exit 1
    fi
    echo "setup: all passed (tests, sanitizer tests, fuzz)"
    ;;
esac
