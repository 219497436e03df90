// Reading one source file. Every expected failure becomes SourceText::problem
// (the caller adds "; skipped" and the file name); nothing here throws.
#include "source_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>

namespace cyclefix {

namespace {

constexpr std::uint64_t kMiB = 1ull << 20;

// strerror text, thread-safe (analysis reads files on several threads).
std::string errno_text(int err) { return std::generic_category().message(err); }

class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  ~FdCloser() { ::close(fd_); }
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;

 private:
  int fd_;
};

std::string describe_size(std::uint64_t n) {
  char buf[64];
  if (n >= kMiB) {
    std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(n) / kMiB);
  } else {
    std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(n));
  }
  return buf;
}

std::string describe_limit(std::uint64_t n) {
  if (n > 0 && n % kMiB == 0) return std::to_string(n / kMiB) + " MB";
  return describe_size(n);
}

std::string too_large(std::uint64_t size, std::uint64_t max_size) {
  return "file is " + describe_size(size) + ", over the " + describe_limit(max_size) + " limit";
}

// Why open(2) failed, naming the symlink cases that strerror alone hides.
std::string open_failure(const std::filesystem::path& path, int err) {
  struct stat lst;
  const bool is_link = ::lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode);
  if (is_link && err == ENOENT) return "cannot read: broken symlink (" + errno_text(err) + ")";
  if (err == ELOOP) return "cannot read: symlink loop (" + errno_text(err) + ")";
  return "cannot read: " + errno_text(err);
}

int line_at(std::string_view bytes, std::size_t offset) {
  return 1 + static_cast<int>(std::count(bytes.begin(), bytes.begin() + offset, '\n'));
}

bool starts_with_bom(std::string_view bytes) { return bytes.substr(0, 3) == "\xEF\xBB\xBF"; }

bool is_name_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  return std::isalnum(u) || c == '_' || c == '-' || c == '.';
}

// Matches ^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+) on one line (PEP 263) and
// returns the group, or "". Hand-written: std::regex recurses per character
// and a minified first line can be megabytes long.
std::string_view match_coding(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\f')) ++i;
  if (i >= line.size() || line[i] != '#') return {};
  for (std::size_t k = line.find("coding", i + 1); k != std::string_view::npos;
       k = line.find("coding", k + 1)) {
    std::size_t j = k + 6;
    if (j >= line.size() || (line[j] != ':' && line[j] != '=')) continue;
    ++j;
    while (j < line.size() && (line[j] == ' ' || line[j] == '\t')) ++j;
    const std::size_t start = j;
    while (j < line.size() && is_name_char(line[j])) ++j;
    if (j > start) return line.substr(start, j - start);
  }
  return {};
}

bool is_blank_or_comment(std::string_view line) {
  for (char c : line) {
    if (c == ' ' || c == '\t' || c == '\f' || c == '\r') continue;
    return c == '#';
  }
  return true;
}

// The encoding named by a coding declaration in line 1 or 2, or "". As in
// CPython's tokenizer, line 2 counts only when line 1 is blank or a comment.
std::string_view coding_declaration(std::string_view bytes, int* line_out) {
  std::size_t pos = 0;
  for (int line = 1; line <= 2; ++line) {
    std::size_t end = bytes.find('\n', pos);
    if (end == std::string_view::npos) end = bytes.size();
    std::string_view text = bytes.substr(pos, end - pos);
    if (line == 1 && starts_with_bom(text)) text.remove_prefix(3);
    if (std::string_view name = match_coding(text); !name.empty()) {
      *line_out = line;
      return name;
    }
    if (end == bytes.size() || !is_blank_or_comment(text)) break;
    pos = end + 1;
  }
  return {};
}

// Python's spellings of UTF-8 (codec lookup lowercases and maps '_' to '-').
bool names_utf8(std::string_view encoding) {
  std::string n(encoding);
  for (char& c : n) c = c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return n == "utf-8" || n == "utf8" || n == "u8" || n == "utf" || n == "cp65001" ||
         n == "utf8-sig" || n.rfind("utf-8-", 0) == 0;
}

}  // namespace

int first_invalid_utf8_line(std::string_view s) {
  // Well-formed sequences per Unicode Table 3-7: no overlongs, no surrogates,
  // nothing above U+10FFFF, no truncation.
  int line = 1;
  std::size_t i = 0;
  const std::size_t n = s.size();
  while (i < n) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c == '\n') ++line;
      ++i;
      continue;
    }
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c == 0xE0) {
      len = 3, lo = 0xA0;
    } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
      len = 3;
    } else if (c == 0xED) {
      len = 3, hi = 0x9F;
    } else if (c == 0xF0) {
      len = 4, lo = 0x90;
    } else if (c >= 0xF1 && c <= 0xF3) {
      len = 4;
    } else if (c == 0xF4) {
      len = 4, hi = 0x8F;
    } else {
      return line;  // continuation byte without a lead, C0/C1, F5..FF
    }
    if (n - i < len) return line;
    const auto c1 = static_cast<unsigned char>(s[i + 1]);
    if (c1 < lo || c1 > hi) return line;
    for (std::size_t k = 2; k < len; ++k) {
      const auto ck = static_cast<unsigned char>(s[i + k]);
      if (ck < 0x80 || ck > 0xBF) return line;
    }
    i += len;
  }
  return 0;
}

SourceText read_source(const std::filesystem::path& path, std::uint64_t max_size) {
  SourceText out;
  // O_NONBLOCK: opening a FIFO named *.py must not hang the run.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    out.problem = open_failure(path, errno);
    return out;
  }
  FdCloser closer(fd);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    out.problem = "cannot read: " + errno_text(errno);
    return out;
  }
  if (S_ISDIR(st.st_mode)) {
    out.problem = "cannot read: " + errno_text(EISDIR);
    return out;
  }
  if (!S_ISREG(st.st_mode)) {
    out.problem = "cannot read: not a regular file";
    return out;
  }
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size > max_size) {
    out.problem = too_large(size, max_size);
    return out;
  }

  // Read to EOF (the file may have changed since fstat), at most max_size + 1.
  // One byte of room past the size fstat gave: the read that finds EOF needs
  // no bigger buffer (growing by 64 KiB there zero-filled 64 KiB per file).
  std::string& bytes = out.bytes;
  bytes.resize(static_cast<std::size_t>(std::min<std::uint64_t>(size + 1, max_size + 1)));
  std::size_t got = 0;
  for (;;) {
    if (got == bytes.size()) {
      if (got > max_size) break;
      const std::uint64_t grown = std::min<std::uint64_t>(max_size + 1, got + 65536);
      bytes.resize(static_cast<std::size_t>(grown));
    }
    const ssize_t r = ::read(fd, bytes.data() + got, bytes.size() - got);
    if (r < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      bytes.clear();
      out.problem = "cannot read: " + errno_text(err);
      return out;
    }
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  bytes.resize(got);
  if (got > max_size) {
    bytes.clear();
    out.problem = too_large(got, max_size);
    return out;
  }

  if (const void* nul = std::memchr(bytes.data(), '\0', bytes.size())) {
    out.problem_line = line_at(bytes, static_cast<const char*>(nul) - bytes.data());
    out.problem = "binary file (NUL byte at line " + std::to_string(out.problem_line) + ")";
    bytes.clear();
    return out;
  }

  int coding_line = 0;
  const std::string_view coding = coding_declaration(bytes, &coding_line);
  if (!coding.empty() && !names_utf8(coding)) {
    if (starts_with_bom(bytes)) {
      // CPython refuses this too ("encoding problem: ... with BOM").
      out.problem_line = coding_line;
      out.problem = "coding declaration '" + std::string(coding) +
                    "' contradicts the UTF-8 byte order mark";
      bytes.clear();
      return out;
    }
    // Another encoding: tree-sitter still reads the bytes; the names an
    // import graph needs are ASCII.
    out.ok = true;
    return out;
  }
  if (const int bad = first_invalid_utf8_line(bytes)) {
    out.problem_line = bad;
    out.problem = "invalid UTF-8 at line " + std::to_string(bad);
    bytes.clear();
    return out;
  }
  out.ok = true;  // a BOM is kept in bytes: offsets must match the file on disk
  return out;
}

}  // namespace cyclefix
