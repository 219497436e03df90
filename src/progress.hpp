// Progress on stderr for long runs: "cyclefix: parsing 12345/50000 files",
// then the phase ("graph", "simulate", "plan", "rewrite"), rewritten in place
// with \r by a reporter thread. Shown only when stderr is a terminal, the run
// is not --quiet, and it has already taken a second; otherwise nothing is
// written and the cost is one relaxed atomic increment per file.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace cyclefix {

// With CYCLEFIX_PROFILE set in the environment: ends the current stage and
// starts `next`, printing on stderr the stage's wall time, its own peak RSS
// and the RSS at its end ("cyclefix: profile: parse 12.3 s peak 900 MiB ...").
// Progress::phase() calls it, so every phase is a stage; a no-op otherwise.
void profile_stage(std::string_view next);
// Whether CYCLEFIX_PROFILE is set.
bool profiling();

class Progress {
 public:
  // True when progress should be shown on stderr: a terminal, and not quiet.
  static bool wanted(bool quiet);

  // Disabled: every call does (almost) nothing. `fd` and `delay` are for tests.
  explicit Progress(bool enabled, int fd = 2, std::chrono::milliseconds delay = std::chrono::seconds(1));
  ~Progress();  // clears the line
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Starts a phase; with `total` > 0 the line counts files: "parsing 3/10 files".
  void phase(std::string_view name, std::size_t total = 0);
  void advance() {
    if (enabled_) done_.fetch_add(1, std::memory_order_relaxed);
  }
  // Removes the line before other output goes to the terminal; nothing more is
  // shown until the next phase().
  void clear();

 private:
  void report();
  void erase_locked();

  bool enabled_;
  int fd_;
  std::chrono::milliseconds delay_;
  std::chrono::steady_clock::time_point start_;
  std::atomic<std::size_t> done_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
  std::string phase_;       // empty: nothing to show
  std::size_t total_ = 0;
  std::string shown_;             // the text last drawn
  std::size_t shown_width_ = 0;  // characters of the line on screen (0: none)
  bool stop_ = false;
  std::thread reporter_;
};

}  // namespace cyclefix
