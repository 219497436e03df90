// Reads a source file's bytes and decides whether it can be analysed: the
// expected failures (unreadable, binary, invalid UTF-8, too large) are values.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace cyclefix {

struct SourceText {
  std::string bytes;       // the file content as read
  bool ok = false;
  std::string problem;     // why it cannot be analysed, when !ok
  int problem_line = 0;    // line of the problem, when it has one
};

inline constexpr std::uint64_t kDefaultMaxFileSize = 16ull << 20;

SourceText read_source(const std::filesystem::path& path,
                       std::uint64_t max_size = kDefaultMaxFileSize);

// Checks UTF-8; returns the 1-based line of the first invalid byte, or 0 when valid.
int first_invalid_utf8_line(std::string_view bytes);

}  // namespace cyclefix
