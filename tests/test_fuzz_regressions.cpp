// Replays every input in tests/fuzz/regressions/ (inputs the fuzz target once
// failed on, and hand-picked hard cases) through the fuzz target's checks.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fuzz/fuzz_check.hpp"

namespace fs = std::filesystem;

TEST(FuzzRegressions, EveryInputKeepsThePromises) {
  const fs::path dir = fs::path(CYCLEFIX_SOURCE_DIR) / "tests/fuzz/regressions";
  int count = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().filename() == "README.md") continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    EXPECT_EQ(cyclefix::fuzzing::check_rewrite_promises(ss.str()), "") << e.path().filename();
    ++count;
  }
  EXPECT_GT(count, 0);
}
