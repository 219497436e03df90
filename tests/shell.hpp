// Running a shell command from a test: the binary end to end, git, patch.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
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

}  // namespace cyclefix::testing_support
