// Work spread over threads: the one loop the analysis and the simulator's
// tables both use.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace cyclefix {

// `jobs` threads for `work` items: 0 means all cores; never more than the items.
inline unsigned effective_jobs(unsigned jobs, std::size_t work) {
  unsigned n = jobs ? jobs : std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::min<std::size_t>(n, std::max<std::size_t>(work, 1)));
}

// Calls body(i, worker_state) for i in [0, n) on `jobs` threads (this one included);
// each thread makes its own state first (a parser, say).
template <class MakeState, class Body>
void parallel_for(std::size_t n, unsigned jobs, MakeState make_state, Body body) {
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    auto state = make_state();
    for (std::size_t i; (i = next.fetch_add(1)) < n;) body(i, state);
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < effective_jobs(jobs, n); ++t) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
}

}  // namespace cyclefix
