#include "progress.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>

namespace cyclefix {

namespace {

void write_fd(int fd, const std::string& s) {
  std::size_t off = 0;
  while (off < s.size()) {
    const ssize_t w = ::write(fd, s.data() + off, s.size() - off);
    if (w <= 0) return;  // a progress line is not worth retrying
    off += static_cast<std::size_t>(w);
  }
}

// VmRSS or VmHWM of this process in MiB, from /proc/self/status (0 where unreadable).
std::size_t status_mib(std::string_view key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.compare(0, key.size(), key) == 0 && line.size() > key.size() && line[key.size()] == ':')
      return std::strtoull(line.c_str() + key.size() + 1, nullptr, 10) / 1024;
  return 0;
}

// Bytes the program holds in malloc'd blocks, by the allocator's own count:
// jemalloc's "stats.allocated" when the binary runs on jemalloc (CMake links it
// when installed; looked up at run time, so the tests, linked without it, still
// build), else glibc's mallinfo2. 0 where neither is known.
std::size_t heap_in_use() {
  using Mallctl = int (*)(const char*, void*, std::size_t*, void*, std::size_t);
  static const auto mallctl = reinterpret_cast<Mallctl>(::dlsym(RTLD_DEFAULT, "mallctl"));
  if (mallctl) {
    std::uint64_t epoch = 1;  // refreshes jemalloc's cached statistics
    std::size_t size = sizeof epoch;
    mallctl("epoch", &epoch, &size, &epoch, size);
    std::size_t allocated = 0;
    size = sizeof allocated;
    if (mallctl("stats.allocated", &allocated, &size, nullptr, 0) == 0) return allocated;
  }
#if defined(__GLIBC__)
  const struct mallinfo2 mi = ::mallinfo2();
  return mi.uordblks + mi.hblkhd;
#else
  return 0;
#endif
}

struct StageProfile {
  bool on = std::getenv("CYCLEFIX_PROFILE") != nullptr;
  std::chrono::steady_clock::time_point since = std::chrono::steady_clock::now();
  std::string stage = "start";
};

StageProfile& stage_profile() {
  static StageProfile p;
  return p;
}

}  // namespace

bool profiling() { return stage_profile().on; }

void profile_stage(std::string_view next) {
  StageProfile& p = stage_profile();
  if (!p.on || next == p.stage) return;
  const auto now = std::chrono::steady_clock::now();
  char line[160];
  // The heap in use (malloc's count): what the stage left live, where the RSS
  // also holds what was freed and not given back.
  const std::size_t heap = heap_in_use() >> 20;
  std::snprintf(line, sizeof line,
                "cyclefix: profile: %-10s %8.2f s  peak %6zu MiB  rss at end %6zu MiB  heap in use %6zu MiB\n",
                p.stage.c_str(), std::chrono::duration<double>(now - p.since).count(), status_mib("VmHWM"),
                status_mib("VmRSS"), heap);
  write_fd(STDERR_FILENO, line);
  // Writing 5 resets VmHWM to the current RSS (Linux >= 4.0): the next peak is the next stage's own.
  if (std::FILE* f = std::fopen("/proc/self/clear_refs", "w")) {
    std::fputs("5", f);
    std::fclose(f);
  }
  p.stage = next;
  p.since = std::chrono::steady_clock::now();
}

bool Progress::wanted(bool quiet) { return !quiet && ::isatty(STDERR_FILENO); }

Progress::Progress(bool enabled, int fd, std::chrono::milliseconds delay)
    : enabled_(enabled), fd_(fd), delay_(delay), start_(std::chrono::steady_clock::now()) {
  if (enabled_) reporter_ = std::thread([this] { report(); });
}

Progress::~Progress() {
  profile_stage("end");
  if (!enabled_) return;
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
    erase_locked();
  }
  wake_.notify_all();
  reporter_.join();
}

void Progress::phase(std::string_view name, std::size_t total) {
  profile_stage(name);
  if (!enabled_) return;
  std::lock_guard lock(mutex_);
  phase_ = name;
  total_ = total;
  done_.store(0, std::memory_order_relaxed);
}

void Progress::clear() {
  if (!enabled_) return;
  std::lock_guard lock(mutex_);
  erase_locked();
  phase_.clear();
}

void Progress::erase_locked() {
  if (shown_width_ == 0) return;
  write_fd(fd_, "\r" + std::string(shown_width_, ' ') + "\r");
  shown_width_ = 0;
}

void Progress::report() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, std::chrono::milliseconds(100));
    if (stop_ || phase_.empty() || std::chrono::steady_clock::now() - start_ < delay_) continue;
    std::string line = "cyclefix: " + phase_;
    if (total_) {
      line += " " + std::to_string(std::min(done_.load(std::memory_order_relaxed), total_)) + "/" +
              std::to_string(total_) + " files";
    }
    if (shown_width_ && line == shown_) continue;  // unchanged: no redraw
    shown_ = line;
    const std::size_t width = line.size();
    if (width < shown_width_) line.append(shown_width_ - width, ' ');  // cover a longer old line
    write_fd(fd_, "\r" + line);
    shown_width_ = std::max(width, shown_width_);
  }
}

}  // namespace cyclefix
