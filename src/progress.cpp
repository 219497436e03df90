#include "progress.hpp"

#include <unistd.h>

#include <algorithm>

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

}  // namespace

bool Progress::wanted(bool quiet) { return !quiet && ::isatty(STDERR_FILENO); }

Progress::Progress(bool enabled, int fd, std::chrono::milliseconds delay)
    : enabled_(enabled), fd_(fd), delay_(delay), start_(std::chrono::steady_clock::now()) {
  if (enabled_) reporter_ = std::thread([this] { report(); });
}

Progress::~Progress() {
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
