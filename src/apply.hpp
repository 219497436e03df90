// Writing rewritten files: each one atomically (a temporary file in the same
// directory, then rename), keeping its permission bits, and only when its
// content is still what the rewrite was made from. Bytes are written as the
// rewrite produced them, so line endings, BOM and encoding are the file's own.
//
// A run that fails midway leaves every file either untouched or completely
// rewritten (per-file atomicity, not all-or-nothing across files); the result
// lists what was written.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace cyclefix {

struct FileWrite {
  std::filesystem::path path;
  std::string display;
  std::string expected;  // the content the change was computed from
  std::string content;   // the new content
};

struct ApplyOutcome {
  std::vector<std::string> written;  // display paths, in order
  std::vector<std::string> errors;   // "path: why", for files not written
};

ApplyOutcome apply_writes(const std::vector<FileWrite>& writes);

}  // namespace cyclefix
