// Writing rewritten files: each one atomically (a temporary file in the same
// directory, then rename), keeping its permission bits, and only when its
// content is still what the rewrite was made from. Bytes are written as the
// rewrite produced them, so line endings, BOM and encoding are the file's own.
//
// A run that fails midway leaves every file either untouched or completely
// rewritten (per-file atomicity, not all-or-nothing across files); the result
// lists what was written. A process killed between creating a temporary file
// and renaming it may leave that temporary (`.NAME.cyclefix-XXXXXX` beside the
// file), never a half-written NAME.
//
// Refused, with the reason: a symbolic link; a file whose real path (symbolic
// links in its directories resolved) is outside every allowed root; a file or
// directory without any write permission bit (honoured even when running as
// root); a file whose content is not what the change was computed from; a
// file to create where something already is.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace cyclefix {

struct FileWrite {
  std::filesystem::path path;
  std::string display;
  std::string expected;  // the content the change was computed from
  std::string content;   // the new content
  // A new file (a module an extraction creates): written only when nothing is
  // at `path` yet (never replacing one), with the permissions the umask gives.
  bool create = false;
};

struct ApplyOutcome {
  std::vector<std::string> written;  // display paths, in order
  std::vector<std::string> errors;   // "path: why", for files not written
};

struct ApplyOptions {
  // Real paths of the trees that may be written; empty: no restriction.
  std::vector<std::filesystem::path> roots;
  // Called after each file is written (fault-injection tests kill the process here).
  std::function<void(const std::string& display)> after_each;
};

// The real path of each PATH argument, for ApplyOptions::roots.
std::vector<std::filesystem::path> allowed_roots(const std::vector<std::string>& paths);

ApplyOutcome apply_writes(const std::vector<FileWrite>& writes, const ApplyOptions& options = {});

}  // namespace cyclefix
