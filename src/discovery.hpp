// Finds the Python files under the given paths, the source roots they belong
// to, and the dotted module name of each. Knows the file system, not syntax.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "diagnostics.hpp"

namespace cyclefix {

struct DiscoveryOptions {
  std::vector<std::filesystem::path> paths;   // files or directories; empty means "."
  std::vector<std::filesystem::path> roots;   // explicit source roots (--root); empty: detect
  std::vector<std::string> excludes;          // glob patterns (--exclude), matched against
                                              // the path relative to the walked PATH argument and each component
};

struct SourceFile {
  // As found (absolute or relative to the cwd). A string, not a
  // std::filesystem::path, which also allocates each of its components: on a
  // 50,000-file tree some 20 MiB per copy of the files.
  std::string path;
  std::string display;           // path shown to users: relative to the cwd when below it
  std::string module;            // dotted module name, e.g. "pkg.sub.mod"; "pkg" for pkg/__init__.py
  bool is_package = false;       // an __init__.py
  int root = 0;                  // index into Discovery::roots
};

struct Discovery {
  std::vector<std::filesystem::path> roots;      // the source roots in use
  std::vector<SourceFile> files;                 // sorted by module name, unique modules
  std::vector<std::string> namespace_packages;   // PEP 420 directories (dotted names), sorted
  // Compiled extension modules (`.so`, `.pyd`) inside first-party packages,
  // dotted names, sorted: modules that run no first-party Python.
  std::vector<std::string> extension_modules;
  std::vector<Diagnostic> diagnostics;           // skipped files and why
};

Discovery discover(const DiscoveryOptions& options);

// True when `name` is a valid Python identifier (ASCII rules plus non-ASCII letters).
bool is_identifier(std::string_view name);

}  // namespace cyclefix
