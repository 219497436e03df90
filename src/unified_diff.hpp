// Unified diffs of whole files (dtl computes the edit script; this file only
// lays out the hunks), in the form `git apply` and `patch -p1` accept.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace cyclefix {

// Lines the diff from `before` to `after` adds and removes (what a review
// tool counts).
struct LineCounts {
  std::size_t added = 0, removed = 0;
};
LineCounts changed_lines(std::string_view before, std::string_view after);

// `--- a/<path>` / `+++ b/<path>` and hunks with `context` lines around each
// change. Lines are compared with their line endings (CRLF kept as is); a last
// line without a newline is marked `\ No newline at end of file`. Empty when
// the texts are equal. With `counts`, also what changed_lines() gives, from
// the same edit script.
std::string unified_diff(std::string_view before, std::string_view after, const std::string& path,
                         int context = 3, LineCounts* counts = nullptr);

// The diff that creates a file holding `text` (`--- /dev/null`), as git apply
// and patch(1) read it.
std::string new_file_diff(std::string_view text, const std::string& path);

}  // namespace cyclefix
