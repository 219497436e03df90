#include "apply.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "source_reader.hpp"

namespace cyclefix {

namespace {

bool write_all(int fd, const std::string& s) {
  std::size_t done = 0;
  while (done < s.size()) {
    ssize_t w = ::write(fd, s.data() + done, s.size() - done);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<std::size_t>(w);
  }
  return true;
}

bool inside(const std::filesystem::path& p, const std::filesystem::path& root) {
  auto r = root.begin(), q = p.begin();
  for (; r != root.end(); ++r, ++q)
    if (q == p.end() || *q != *r) return false;
  return true;
}

// Creates a new file: the bytes go to a temporary in its directory, which is
// then linked to the name (link(2) fails when the name exists: nothing is
// replaced, and the name never holds a partial file).
std::string create_one(const FileWrite& w, const ApplyOptions& options) {
  std::filesystem::path dir = w.path.parent_path();
  if (dir.empty()) dir = ".";
  struct stat st;
  if (::lstat(w.path.c_str(), &st) == 0) return "already exists; not created";
  if (!options.roots.empty()) {
    std::error_code ec;
    std::filesystem::path real = std::filesystem::canonical(dir, ec);
    if (ec) return "cannot resolve the real path of its directory: " + ec.message();
    if (std::none_of(options.roots.begin(), options.roots.end(),
                     [&](const std::filesystem::path& r) { return inside(real, r); }))
      return "its directory's real path " + real.string() + " is outside the trees given; not created";
  }
  std::string tmpl = (dir / ("." + w.path.filename().string() + ".cyclefix-XXXXXX")).string();
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) return std::string("cannot create a temporary file in ") + dir.string() + ": " + std::strerror(errno);
  const mode_t mask = ::umask(0);
  ::umask(mask);
  std::string error;
  if (!write_all(fd, w.content)) error = std::string("cannot write: ") + std::strerror(errno);
  if (error.empty() && ::fchmod(fd, 0666 & ~mask) != 0)
    error = std::string("cannot set permissions: ") + std::strerror(errno);
  if (error.empty() && ::fsync(fd) != 0) error = std::string("cannot write: ") + std::strerror(errno);
  if (::close(fd) != 0 && error.empty()) error = std::string("cannot write: ") + std::strerror(errno);
  if (error.empty() && ::link(tmpl.c_str(), w.path.c_str()) != 0)
    error = errno == EEXIST ? std::string("already exists; not created")
                            : std::string("cannot create the file: ") + std::strerror(errno);
  ::unlink(tmpl.c_str());
  return error;
}

// Writes one file; an empty string on success, else why not.
std::string write_one(const FileWrite& w, const ApplyOptions& options) {
  if (w.create) return create_one(w, options);
  struct stat st;
  if (::lstat(w.path.c_str(), &st) != 0) return std::string("cannot stat: ") + std::strerror(errno);
  if (S_ISLNK(st.st_mode)) return "is a symbolic link; not rewritten (rewrite its target instead)";
  if (!S_ISREG(st.st_mode)) return "is not a regular file";
  if (!options.roots.empty()) {
    std::error_code ec;
    std::filesystem::path real = std::filesystem::canonical(w.path, ec);
    if (ec) return "cannot resolve its real path: " + ec.message();
    if (std::none_of(options.roots.begin(), options.roots.end(),
                     [&](const std::filesystem::path& r) { return inside(real, r); }))
      return "its real path " + real.string() + " is outside the trees given (a symbolic link leads out); not written";
  }
  if ((st.st_mode & 0222) == 0) return "is read-only; not written";
  std::filesystem::path parent = w.path.parent_path();
  struct stat dst;
  if (::stat(parent.empty() ? "." : parent.c_str(), &dst) == 0 && (dst.st_mode & 0222) == 0)
    return "its directory is read-only; not written";
  SourceText now = read_source(w.path, w.expected.size() + (std::uint64_t{1} << 20));
  if (!now.ok) return now.problem + "; not written";
  if (now.bytes != w.expected) return "changed since it was read; not written";

  std::filesystem::path dir = w.path.parent_path();
  if (dir.empty()) dir = ".";
  std::string tmpl = (dir / ("." + w.path.filename().string() + ".cyclefix-XXXXXX")).string();
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) return std::string("cannot create a temporary file in ") + dir.string() + ": " + std::strerror(errno);
  std::string error;
  if (!write_all(fd, w.content)) error = std::string("cannot write: ") + std::strerror(errno);
  if (error.empty() && ::fchmod(fd, st.st_mode & 07777) != 0)
    error = std::string("cannot set permissions: ") + std::strerror(errno);
  if (error.empty() && ::fsync(fd) != 0) error = std::string("cannot write: ") + std::strerror(errno);
  if (::close(fd) != 0 && error.empty()) error = std::string("cannot write: ") + std::strerror(errno);
  if (error.empty() && ::rename(tmpl.c_str(), w.path.c_str()) != 0)
    error = std::string("cannot replace the file: ") + std::strerror(errno);
  if (!error.empty()) ::unlink(tmpl.c_str());
  return error;
}

}  // namespace

std::vector<std::filesystem::path> allowed_roots(const std::vector<std::string>& paths) {
  std::vector<std::filesystem::path> out;
  for (const std::string& p : paths.empty() ? std::vector<std::string>{"."} : paths) {
    std::error_code ec;
    std::filesystem::path real = std::filesystem::canonical(p, ec);
    if (!ec) out.push_back(real);
  }
  return out;
}

ApplyOutcome apply_writes(const std::vector<FileWrite>& writes, const ApplyOptions& options) {
  ApplyOutcome out;
  for (const FileWrite& w : writes) {
    std::string error = write_one(w, options);
    if (error.empty()) {
      out.written.push_back(w.display);
      if (options.after_each) options.after_each(w.display);
    } else {
      out.errors.push_back(w.display + ": " + error);
    }
  }
  return out;
}

}  // namespace cyclefix
