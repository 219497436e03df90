# Fetches the tree-sitter-python grammar from the npm registry by pinned version,
# checks the tarball against the registry's published sha512 integrity, and
# unpacks it into an ignored cache folder. Nothing of the grammar is committed.
#
# Defines the static library target `tree_sitter_python`.

set(TSPY_VERSION "0.23.6")
set(TSPY_INTEGRITY
    "sha512-yIM9z0oxKIxT7bAtPOhgoVl6gTXlmlIhue7liFT4oBPF/lha7Ha4dQBS82Av6hMMRZoVnFJI8M6mL+SwWoLD3A==")
set(TSPY_CACHE "${CMAKE_SOURCE_DIR}/.cache/grammar" CACHE PATH
    "Where the tree-sitter-python tarball is downloaded and unpacked")
set(TSPY_TARBALL "${TSPY_CACHE}/tree-sitter-python-${TSPY_VERSION}.tgz")
set(TSPY_SRC "${TSPY_CACHE}/tree-sitter-python-${TSPY_VERSION}")

# The integrity is base64; CMake hashes to hex. Decode with coreutils.
string(REGEX REPLACE "^sha512-" "" _tspy_b64 "${TSPY_INTEGRITY}")
execute_process(
  COMMAND sh -c "printf '%s' '${_tspy_b64}' | base64 -d | od -An -tx1 -v | tr -d ' \\n'"
  OUTPUT_VARIABLE TSPY_SHA512_HEX RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0 OR NOT TSPY_SHA512_HEX MATCHES "^[0-9a-f]+$")
  message(FATAL_ERROR "cyclefix: could not decode the grammar integrity string")
endif()

function(_tspy_check_tarball out_ok)
  set(${out_ok} FALSE PARENT_SCOPE)
  if(EXISTS "${TSPY_TARBALL}")
    file(SHA512 "${TSPY_TARBALL}" _actual)
    if(_actual STREQUAL TSPY_SHA512_HEX)
      set(${out_ok} TRUE PARENT_SCOPE)
    else()
      message(WARNING "cyclefix: ${TSPY_TARBALL} does not match the pinned sha512 "
                      "integrity (got ${_actual}); discarding it")
      file(REMOVE "${TSPY_TARBALL}")
    endif()
  endif()
endfunction()

_tspy_check_tarball(_ok)
if(NOT _ok)
  find_program(NPM_EXECUTABLE npm)
  if(NOT NPM_EXECUTABLE)
    message(FATAL_ERROR
      "cyclefix: npm is needed to fetch tree-sitter-python@${TSPY_VERSION} "
      "(install Debian's 'npm' package, or put the verified tarball at ${TSPY_TARBALL})")
  endif()
  file(MAKE_DIRECTORY "${TSPY_CACHE}")
  message(STATUS "cyclefix: fetching tree-sitter-python@${TSPY_VERSION} from the npm registry")
  execute_process(
    COMMAND "${NPM_EXECUTABLE}" pack "tree-sitter-python@${TSPY_VERSION}"
            --pack-destination "${TSPY_CACHE}" --silent
    WORKING_DIRECTORY "${TSPY_CACHE}"
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err
    TIMEOUT 300)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR
      "cyclefix: 'npm pack tree-sitter-python@${TSPY_VERSION}' failed (exit ${_rc}). "
      "Is the npm registry reachable?\n${_err}")
  endif()
  _tspy_check_tarball(_ok)
  if(NOT _ok)
    message(FATAL_ERROR
      "cyclefix: the downloaded tree-sitter-python@${TSPY_VERSION} tarball does not match "
      "the pinned integrity ${TSPY_INTEGRITY}; refusing to build with it")
  endif()
endif()

if(NOT EXISTS "${TSPY_SRC}/src/parser.c" OR "${TSPY_TARBALL}" IS_NEWER_THAN "${TSPY_SRC}/src/parser.c")
  file(REMOVE_RECURSE "${TSPY_SRC}" "${TSPY_CACHE}/package")
  file(ARCHIVE_EXTRACT INPUT "${TSPY_TARBALL}" DESTINATION "${TSPY_CACHE}")
  file(RENAME "${TSPY_CACHE}/package" "${TSPY_SRC}")
endif()

add_library(tree_sitter_python STATIC "${TSPY_SRC}/src/parser.c" "${TSPY_SRC}/src/scanner.c")
target_include_directories(tree_sitter_python PRIVATE "${TSPY_SRC}/src")
set_target_properties(tree_sitter_python PROPERTIES C_STANDARD 11 POSITION_INDEPENDENT_CODE ON)
target_compile_options(tree_sitter_python PRIVATE -w)
