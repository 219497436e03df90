// Fault injection for `--apply` (src/apply.cpp): every way a write can fail
// leaves each file either untouched or completely rewritten, never touches a
// file outside the given trees, names the file in the error, and (through the
// binary) makes the run exit 2.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "apply.hpp"
#include "shell.hpp"

namespace fs = std::filesystem;
using namespace cyclefix;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const fs::path& p, const std::string& s) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << s;
}

// A fresh directory per test, removed (permissions restored first) at the end.
struct Tree {
  fs::path root;
  Tree() {
    std::string tmpl = (fs::temp_directory_path() / "cyclefix-apply-XXXXXX").string();
    root = ::mkdtemp(tmpl.data());
  }
  ~Tree() {
    std::error_code ec;
    for (auto& e : fs::recursive_directory_iterator(root, fs::directory_options::none, ec))
      if (!e.is_symlink()) fs::permissions(e.path(), fs::perms::owner_all, fs::perm_options::add, ec);
    fs::permissions(root, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(root, ec);
  }
  FileWrite change(const std::string& rel, const std::string& now, const std::string& next) const {
    spit(root / rel, now);
    return {root / rel, rel, now, next};
  }
  // Files whose names look like our temporaries.
  int temporaries() const {
    int n = 0;
    for (auto& e : fs::recursive_directory_iterator(root))
      n += e.path().filename().string().find(".cyclefix-") != std::string::npos;
    return n;
  }
};

const std::string kOld = "from a import b\n\ndef f():\n    return b\n";
const std::string kNew = "def f():\n    from a import b\n    return b\n";

}  // namespace

TEST(Apply, WritesAtomicallyKeepingMode) {
  Tree t;
  FileWrite w = t.change("pkg/m.py", kOld, kNew);
  fs::permissions(w.path, fs::perms(0640));
  ApplyOutcome out = apply_writes({w}, {allowed_roots({t.root.string()}), {}});
  EXPECT_TRUE(out.errors.empty());
  EXPECT_EQ(out.written, std::vector<std::string>{"pkg/m.py"});
  EXPECT_EQ(slurp(w.path), kNew);
  EXPECT_EQ(fs::status(w.path).permissions(), fs::perms(0640));
  EXPECT_EQ(t.temporaries(), 0);
}

TEST(Apply, CreatesANewFileButNeverReplacesOne) {
  Tree t;
  fs::create_directories(t.root / "pkg");
  const FileWrite created{t.root / "pkg/_m_defs.py", "pkg/_m_defs.py", "", "LIMIT = 10\n", true};
  ApplyOutcome out = apply_writes({created}, {allowed_roots({t.root.string()}), {}});
  EXPECT_TRUE(out.errors.empty());
  EXPECT_EQ(out.written, std::vector<std::string>{"pkg/_m_defs.py"});
  EXPECT_EQ(slurp(created.path), "LIMIT = 10\n");
  const mode_t mask = ::umask(0);
  ::umask(mask);
  EXPECT_EQ(static_cast<mode_t>(fs::status(created.path).permissions()), 0666 & ~mask);
  // Something appeared at the name since the plan: it is kept, and said.
  spit(created.path, "# someone else's\n");
  out = apply_writes({created}, {});
  ASSERT_EQ(out.errors.size(), 1u);
  EXPECT_EQ(out.errors[0], "pkg/_m_defs.py: already exists; not created");
  EXPECT_EQ(slurp(created.path), "# someone else's\n");
  EXPECT_EQ(t.temporaries(), 0);
}

TEST(ApplyFault, ReadOnlyFileIsNotWritten) {
  Tree t;
  FileWrite ro = t.change("pkg/ro.py", kOld, kNew);
  FileWrite ok = t.change("pkg/ok.py", kOld, kNew);
  fs::permissions(ro.path, fs::perms(0444));
  ApplyOutcome out = apply_writes({ro, ok});
  ASSERT_EQ(out.errors.size(), 1u);
  EXPECT_EQ(out.errors[0], "pkg/ro.py: is read-only; not written");
  EXPECT_EQ(slurp(ro.path), kOld);
  EXPECT_EQ(slurp(ok.path), kNew);  // the others still go ahead
  EXPECT_EQ(t.temporaries(), 0);
}

TEST(ApplyFault, ReadOnlyDirectoryIsNotWritten) {
  Tree t;
  FileWrite w = t.change("pkg/m.py", kOld, kNew);
  fs::permissions(t.root / "pkg", fs::perms(0555));
  ApplyOutcome out = apply_writes({w});
  ASSERT_EQ(out.errors.size(), 1u);
  EXPECT_NE(out.errors[0].find("pkg/m.py: "), std::string::npos);
  EXPECT_NE(out.errors[0].find("read-only"), std::string::npos);
  EXPECT_EQ(slurp(w.path), kOld);
  EXPECT_EQ(t.temporaries(), 0);
}

TEST(ApplyFault, DiskFullLeavesTheFileWhole) {
  // A file-size limit (ulimit -f) makes write() fail with EFBIG part way
  // through the temporary file, as a full disk would with ENOSPC.
  Tree t;
  const std::string big(64 * 1024, '#');
  FileWrite w = t.change("pkg/m.py", kOld, kOld + big);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);
    rlimit lim{4096, 4096};
    setrlimit(RLIMIT_FSIZE, &lim);
    ApplyOutcome out = apply_writes({w});
    bool named = out.errors.size() == 1 && out.errors[0].rfind("pkg/m.py: cannot write", 0) == 0;
    _exit(out.written.empty() && named ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the error does not name the file, or the write was reported done";
  EXPECT_EQ(slurp(w.path), kOld);
  EXPECT_EQ(t.temporaries(), 0);
}

TEST(ApplyFault, FileChangedSinceReadIsNotWritten) {
  Tree t;
  FileWrite w = t.change("pkg/m.py", kOld, kNew);
  spit(w.path, kOld + "# edited by someone else\n");
  ApplyOutcome out = apply_writes({w});
  ASSERT_EQ(out.errors.size(), 1u);
  EXPECT_EQ(out.errors[0], "pkg/m.py: changed since it was read; not written");
  EXPECT_EQ(slurp(w.path), kOld + "# edited by someone else\n");
}

TEST(ApplyFault, SymlinkedFileIsNotFollowed) {
  Tree t, outside;
  spit(outside.root / "victim.py", kOld);
  fs::create_directories(t.root / "pkg");
  fs::create_symlink(outside.root / "victim.py", t.root / "pkg/m.py");
  FileWrite w{t.root / "pkg/m.py", "pkg/m.py", kOld, kNew};
  ApplyOutcome out = apply_writes({w}, {allowed_roots({t.root.string()}), {}});
  ASSERT_EQ(out.errors.size(), 1u);
  EXPECT_NE(out.errors[0].find("pkg/m.py: is a symbolic link"), std::string::npos);
  EXPECT_EQ(slurp(outside.root / "victim.py"), kOld);
  EXPECT_TRUE(fs::is_symlink(t.root / "pkg/m.py"));
}

TEST(ApplyFault, SymlinkedDirectoryLeadingOutOfTheTreeIsRefused) {
  Tree t, outside;
  spit(outside.root / "lib/m.py", kOld);
  fs::create_directories(t.root / "pkg");
  fs::create_directory_symlink(outside.root / "lib", t.root / "pkg/lib");
  FileWrite w{t.root / "pkg/lib/m.py", "pkg/lib/m.py", kOld, kNew};
  ApplyOutcome out = apply_writes({w}, {allowed_roots({t.root.string()}), {}});
  ASSERT_EQ(out.errors.size(), 1u);
  EXPECT_NE(out.errors[0].find("pkg/lib/m.py: its real path"), std::string::npos);
  EXPECT_NE(out.errors[0].find("outside the trees given"), std::string::npos);
  EXPECT_EQ(slurp(outside.root / "lib/m.py"), kOld);
  EXPECT_EQ(outside.temporaries(), 0);
}

TEST(ApplyFault, KilledAfterTheFirstFileLeavesWholeFiles) {
  Tree t;
  std::vector<FileWrite> ws = {t.change("pkg/a.py", kOld, kNew), t.change("pkg/b.py", kOld, kNew),
                               t.change("pkg/c.py", kOld, kNew)};
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ApplyOptions o;
    o.after_each = [](const std::string&) { ::kill(::getpid(), SIGKILL); };
    apply_writes(ws, o);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  EXPECT_EQ(slurp(ws[0].path), kNew);
  EXPECT_EQ(slurp(ws[1].path), kOld);
  EXPECT_EQ(slurp(ws[2].path), kOld);
  EXPECT_EQ(t.temporaries(), 0);
}

TEST(ApplyFault, KilledAtAnyMomentLeavesEachFileOldOrNew) {
  // SIGKILL at increasing delays while a child rewrites 200 files: whatever
  // the moment, every file holds either its old or its new bytes.
  const std::string big_old = kOld + std::string(20000, '#') + "\n";
  const std::string big_new = kNew + std::string(20000, '#') + "\n";
  for (int delay_us : {0, 200, 1000, 3000, 10000}) {
    Tree t;
    std::vector<FileWrite> ws;
    for (int i = 0; i < 200; ++i) ws.push_back(t.change("pkg/m" + std::to_string(i) + ".py", big_old, big_new));
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      apply_writes(ws);
      _exit(0);
    }
    usleep(static_cast<useconds_t>(delay_us));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    for (const FileWrite& w : ws) {
      std::string now = slurp(w.path);
      EXPECT_TRUE(now == big_old || now == big_new) << w.display << " is half-written (delay " << delay_us << " us)";
    }
  }
}

TEST(ApplyFault, BinaryExitsTwoAndNamesTheFile) {
  Tree t;
  spit(t.root / "pkg/__init__.py", "");
  spit(t.root / "pkg/a.py", "from pkg.b import g\n\n\nclass Base:\n    pass\n\n\ndef f():\n    return g()\n");
  spit(t.root / "pkg/b.py", "from pkg.a import Base\n\n\nclass B(Base):\n    pass\n\n\ndef g():\n    return 1\n");
  fs::permissions(t.root / "pkg/a.py", fs::perms(0444));
  std::string cmd = "cd '" + t.root.string() + "' && '" + CYCLEFIX_BINARY + "' pkg --apply 2>&1";
  auto [status, out] = cyclefix::testing_support::run_shell(cmd);
  EXPECT_EQ(status, 2) << out;
  EXPECT_NE(out.find("pkg/a.py: is read-only; not written"), std::string::npos) << out;
  EXPECT_EQ(slurp(t.root / "pkg/a.py").rfind("from pkg.b import g\n", 0), 0u);
}
