// Running a shell command from a test: the binary end to end, git, patch.
#pragma once

#include <sys/wait.h>

#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace cyclefix::testing_support {

struct ShellRun {
  int status = -1;  // exit status; -1 when it did not exit normally
  std::string out;  // stdout (the command redirects stderr as it likes)
};

inline ShellRun run_shell(const std::string& command) {
  ShellRun r;
  FILE* p = popen(command.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

struct CapturedRun {
  int status = -1;
  std::string out, err;
};

// `command` run by the shell in `cwd`, stdout and stderr captured. stderr goes
// through a file named per process (ctest -j runs tests side by side), removed
// once read.
inline CapturedRun run_in(const std::filesystem::path& cwd, const std::string& command) {
  const std::filesystem::path err =
      std::filesystem::temp_directory_path() / ("cyclefix_test_stderr." + std::to_string(::getpid()) + ".txt");
  ShellRun run = run_shell("cd '" + cwd.string() + "' && " + command + " 2>'" + err.string() + "'");
  CapturedRun r{run.status, std::move(run.out), {}};
  {
    std::ifstream in(err, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    r.err = ss.str();
  }
  std::error_code ec;
  std::filesystem::remove(err, ec);
  return r;
}

}  // namespace cyclefix::testing_support
