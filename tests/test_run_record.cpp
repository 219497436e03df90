// Replaying a whole run (run_record.hpp): the record's encoding, the stream tee,
// and, end to end, that a replay gives back exactly what a full run gives and
// that any change to what the run reads makes a full run again.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "facts_cache.hpp"
#include "run_record.hpp"
#include "shell.hpp"

namespace fs = std::filesystem;
using namespace cyclefix;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::size_t records_in(const fs::path& cache) {
  std::size_t n = 0;
  for (const auto& build : fs::directory_iterator(cache))
    if (fs::is_directory(build.path() / "runs"))
      for ([[maybe_unused]] const auto& r : fs::directory_iterator(build.path() / "runs")) ++n;
  return n;
}

struct Outcome {
  int status = -1;
  std::string out, err;
};

// The binary in `dir` with `args`; stdout and stderr kept apart.
Outcome run_in(const fs::path& dir, const std::string& args) {
  const fs::path err_file = dir.parent_path() / (dir.filename().string() + ".stderr");
  auto r = testing_support::run_shell("cd '" + dir.string() + "' && '" + CYCLEFIX_BINARY + "' " + args + " 2>'" +
                                      err_file.string() + "'");
  return {r.status, std::move(r.out), slurp(err_file)};
}

class RunRecordCli : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) / ("cyclefix_run_record_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    tree_ = root_ / "tree";
    cache_ = root_ / "cache";
    fs::create_directories(tree_ / "pkg");
    write("pkg/__init__.py", "");
    write("pkg/a.py", "from pkg.b import g\ndef f():\n    return g()\n");
    write("pkg/b.py", "from pkg.a import f\ndef g():\n    return f()\n");
    write("pkg/c.py", "import json\n");
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& rel, const std::string& text) { std::ofstream(tree_ / rel, std::ios::binary) << text; }
  Outcome run(const std::string& args) { return run_in(tree_, args + " --cache-dir '" + cache_.string() + "'"); }
  // The same run without any cache: what a replay must equal.
  Outcome fresh(const std::string& args) { return run_in(tree_, args + " --no-cache"); }

  fs::path root_, tree_, cache_;
};

// The plan prints how long it took: the one thing two full runs may differ in.
std::string without_times(const std::string& s) { return std::regex_replace(s, std::regex(R"([0-9.e+-]+ s\))"), "<t> s)"); }

void expect_same(const Outcome& a, const Outcome& b) {
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(without_times(a.out), without_times(b.out));
  EXPECT_EQ(without_times(a.err), without_times(b.err));
}

}  // namespace

TEST(RunRecord, EncodesAndDecodes) {
  RecordedRun r;
  r.exit_code = 1;
  r.out = std::string("diff\0with nul\n", 14);
  r.err = "summary\n";
  r.files = {{"report.json", "{}"}, {"", ""}};
  std::optional<RecordedRun> back = decode_run(encode_run(r));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->exit_code, 1);
  EXPECT_EQ(back->out, r.out);
  EXPECT_EQ(back->err, r.err);
  EXPECT_EQ(back->files, r.files);
}

TEST(RunRecord, MalformedRecordsAreRejected) {
  RecordedRun r;
  r.out = "x";
  r.files = {{"a", "b"}};
  const std::string bytes = encode_run(r);
  for (std::size_t n = 0; n < bytes.size(); ++n) EXPECT_FALSE(decode_run(bytes.substr(0, n))) << n;
  EXPECT_FALSE(decode_run(bytes + "trailing"));
}

TEST(RunRecord, TeeCopiesAndForwards) {
  std::ostringstream target;
  std::string copy;
  {
    StreamTee tee(target, copy);
    target << "one " << 2 << '\n';
    target.write("three", 5);
  }
  target << " after";
  EXPECT_EQ(copy, "one 2\nthree");
  EXPECT_EQ(target.str(), "one 2\nthree after");
}

TEST(RunRecord, CacheKeepsRecordsApartFromFactsAndRejectsCorruptOnes) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("cyclefix_run_record_cache_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  FactsCache cache(dir, 42);
  const ContentHash key = hash_bytes("some run");
  EXPECT_FALSE(cache.load_record(key));
  cache.store_record(key, "payload");
  EXPECT_EQ(cache.load_record(key), std::optional<std::string>("payload"));
  EXPECT_FALSE(cache.load(key, 0));  // a record is not a facts entry
  EXPECT_FALSE(FactsCache(dir, 43).load_record(key));  // another build
  std::string bytes = slurp(cache.record_path(key));
  bytes[bytes.size() / 2] ^= 1;
  std::ofstream(cache.record_path(key), std::ios::binary | std::ios::trunc) << bytes;
  EXPECT_FALSE(cache.load_record(key));
  fs::remove_all(dir);
}

TEST(RunRecord, OnlyTheNewestRecordsAreKept) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("cyclefix_run_record_prune_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  FactsCache cache(dir, 42);
  for (int i = 0; i < 20; ++i) cache.store_record(hash_bytes("run " + std::to_string(i)), "x");
  EXPECT_EQ(records_in(dir), 16u);
  fs::remove_all(dir);
}

TEST_F(RunRecordCli, ReplayEqualsAFullRun) {
  for (const std::string args : {"cycles .", "cycles --json report.json .", "plan .", ".", ". --check", ". --explain"}) {
    SCOPED_TRACE(args);
    const Outcome expected = fresh(args);
    const std::string json = args.find("json") != std::string::npos ? slurp(tree_ / "report.json") : "";
    const Outcome first = run(args);
    fs::remove(tree_ / "report.json");
    const Outcome replay = run(args);
    expect_same(first, expected);
    EXPECT_EQ(replay.status, first.status);  // a replay gives back the recorded run byte for byte
    EXPECT_EQ(replay.out, first.out);
    EXPECT_EQ(replay.err, first.err);
    if (!json.empty()) EXPECT_EQ(slurp(tree_ / "report.json"), json);  // written again by the replay
  }
  EXPECT_EQ(records_in(cache_), 6u);
}

TEST_F(RunRecordCli, AnyChangeToTheInputsIsAFullRun) {
  const Outcome before = run("cycles .");
  EXPECT_EQ(before.status, 1);
  // Another working directory shows other paths.
  fs::create_directories(root_ / "elsewhere");
  const Outcome there = run_in(root_ / "elsewhere", "cycles ../tree --cache-dir '" + cache_.string() + "'");
  EXPECT_NE(there.out.find("../tree/pkg/a.py"), std::string::npos) << there.out;
  // A changed byte: the cycle is gone.
  write("pkg/b.py", "def g():\n    return 1\n");
  const Outcome edited = run("cycles .");
  expect_same(edited, fresh("cycles ."));
  EXPECT_EQ(edited.status, 0);
  // A new file brings a cycle back.
  write("pkg/d.py", "import pkg.c\nimport pkg.d\n");
  expect_same(run("cycles ."), fresh("cycles ."));
  // The configuration changes the diff, not the files.
  write("pkg/b.py", "from pkg.a import f\ndef g():\n    return f()\n");
  const Outcome noted = run(".");
  EXPECT_NE(noted.out.find("# Deferred: import cycle"), std::string::npos) << noted.out;
  std::ofstream(tree_ / "pyproject.toml") << "[tool.cyclefix]\nnote = false\n";
  const Outcome configured = run(".");
  expect_same(configured, fresh("."));
  EXPECT_EQ(configured.out.find("# Deferred"), std::string::npos) << configured.out;
}

TEST_F(RunRecordCli, BaselineFileIsPartOfTheKey) {
  ASSERT_EQ(run("cycles --write-baseline base.json .").status, 0);
  EXPECT_EQ(run("cycles --baseline base.json .").status, 0);  // recorded: nothing new
  // The baseline of a tree without cycles.
  fs::create_directories(root_ / "acyclic/pkg");
  std::ofstream(root_ / "acyclic/pkg/__init__.py") << "";
  ASSERT_EQ(run_in(root_ / "acyclic", "cycles --no-cache --write-baseline ../tree/base.json .").status, 0);
  const Outcome stricter = run("cycles --baseline base.json .");
  expect_same(stricter, fresh("cycles --baseline base.json ."));
  EXPECT_EQ(stricter.status, 1);
}

TEST_F(RunRecordCli, WritingRunsAreNotRecorded) {
  run(". --apply");
  run("cycles --write-baseline base.json .");
  EXPECT_EQ(records_in(cache_), 0u);
}
