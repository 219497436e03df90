// The facts cache: the encoding round-trips every field, entries hit and miss,
// corrupt or foreign entries are ignored and rebuilt, two processes can share a
// cache, and the binary's output is the same with and without it. Also the
// progress line.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "analysis.hpp"
#include "facts_cache.hpp"
#include "progress.hpp"

using namespace cyclefix;
namespace fs = std::filesystem;

namespace {

// Field-by-field views for comparisons (`where` by text: literals in two
// translation units need not share an address).
auto view(const ImportAlias& a) { return std::tie(a.name, a.asname); }
auto view(const ImportStatement& s) {
  std::vector<std::tuple<std::string, std::string>> names;
  for (const auto& n : s.names) names.emplace_back(view(n));
  return std::make_tuple(s.is_from, s.module, s.level, names, s.star, s.context, s.at_import_time,
                         s.guards_import_error, s.scope, s.line, s.stmt_begin, s.stmt_end, s.span_begin,
                         s.span_end, s.shares_line, s.text);
}
auto view(const NameUse& u) {
  return std::make_tuple(u.dotted, u.kind, u.eager, u.in_string, std::string(u.where), u.function,
                         u.scope_class, u.line, u.begin, u.end, u.annotation_begin, u.annotation_end);
}
auto view(const Definition& d) { return std::tie(d.name, d.kind, d.line, d.begin); }
auto view(const DynamicImport& d) { return std::tie(d.line, d.call, d.argument, d.at_import_time); }
auto view(const SyntaxProblem& p) { return std::tie(p.line, p.column, p.message); }
auto view(const Event& e) { return std::tie(e.kind, e.import, e.name, e.line, e.guarded, e.conditional, e.local, e.on_result); }
auto view(const ClassInfo& c) { return std::tie(c.qualified_name, c.bases, c.line); }
auto view(const StoredParameter& p) { return std::tie(p.function, p.attribute, p.parameter); }
auto view(const TypeCheckingBlock& b) { return std::tie(b.line, b.test, b.begin, b.body_begin, b.body_end); }
auto view(const FunctionInfo& f) {
  std::vector<decltype(view(f.events.front()))> events;
  for (const auto& e : f.events) events.push_back(view(e));
  return std::make_tuple(f.qualified_name, f.class_name, f.is_async, f.line, f.begin, f.end, f.body_begin,
                         f.docstring_end, f.body_line, f.locals, f.globals, f.import_only, f.param_locals, events);
}
template <class T>
auto views(const std::vector<T>& v) {
  std::vector<decltype(view(v.front()))> out;
  for (const auto& x : v) out.push_back(view(x));
  return out;
}

bool same_facts(const ModuleFacts& a, const ModuleFacts& b) {
  return views(a.imports) == views(b.imports) && views(a.uses) == views(b.uses) &&
         views(a.definitions) == views(b.definitions) && views(a.functions) == views(b.functions) &&
         views(a.classes) == views(b.classes) && views(a.type_checking_blocks) == views(b.type_checking_blocks) &&
         views(a.events) == views(b.events) && a.dunder_all == b.dunder_all &&
         a.future_annotations == b.future_annotations && views(a.dynamic_imports) == views(b.dynamic_imports) &&
         views(a.syntax_problems) == views(b.syntax_problems) && a.lines == b.lines &&
         views(a.stored_parameters) == views(b.stored_parameters);
}

// A file that sets every field of every struct to something other than its default.
const char* const kRichSource = R"PY("""Module docstring."""
from typing import TYPE_CHECKING
import os.path as osp, sys
from . import sibling
from ..pkg.mod import (
    thing as other_thing,  # trailing
    more,
)
from star_mod import *
import json; import re
import importlib

# A leading comment.
import collections.abc

if TYPE_CHECKING:
    from typing_mod import OnlyForTypes
else:
    from runtime_mod import OnlyForTypes

try:
    import fast_json
except ImportError:
    fast_json = None

if sys.version_info >= (3, 9):
    import cond_mod

__all__ = ["Base", "decorate", "async_fn"]

plugin = importlib.import_module("plugins.first")
other = __import__(sys.argv[0])
table = [collections.abc.Mapping for _ in range(2)]


def decorate(fn):
    return fn


@decorate
class Base(collections.abc.Mapping, metaclass=json.JSONDecoder):
    import class_level_mod
    attr: osp.Foo = 1

    def method(self, x: "OnlyForTypes", y=sibling.DEFAULT) -> more.Result:
        global other
        import local_mod
        if x:
            local_mod.go(re.compile(x))
        helper = lambda z: other_thing.run(z)
        return helper(x)


async def async_fn(a, *args, **kw):
    """Docstring."""
    data: fast_json.Thing = None

    def inner():
        return cond_mod.value

    return inner()


def late():
    dyn = importlib.import_module(name)
    return __import__("late_mod")

value = decorate(Base)


class Keeper:
    def __init__(self, func):
        self.func = func
)PY";

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

void write_file(const fs::path& p, const std::string& s) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << s;
}

// A folder of its own per test, removed when the test program ends (by the
// process that made it, not by a forked child).
fs::path fresh_dir(const std::string& name) {
  struct Made {
    pid_t owner = ::getpid();
    std::vector<fs::path> dirs;
    ~Made() {
      std::error_code ec;
      if (::getpid() == owner)
        for (const fs::path& d : dirs) fs::remove_all(d, ec);
    }
  };
  static Made made;
  fs::path d = fs::path(testing::TempDir()) / ("cyclefix_facts_cache_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  made.dirs.push_back(d);
  return d;
}

// A package of `n` modules importing each other in a ring, with a few shapes
// of statements each, so entries differ in size.
fs::path make_tree(const fs::path& root, int n) {
  write_file(root / "ring/__init__.py", "from ring import m0\n");
  for (int i = 0; i < n; ++i) {
    std::ostringstream s;
    s << "from typing import TYPE_CHECKING\n"
      << "from ring import m" << (i + 1) % n << "\n";
    for (int k = 0; k < i % 7; ++k) s << "import os as os" << k << "\n";
    s << "if TYPE_CHECKING:\n    from ring.m" << (i + 3) % n << " import T\n"
      << "class C" << i << "(m" << (i + 1) % n << ".Base if False else object):\n"
      << "    def f(self, x: 'T'):\n        from ring import m" << (i + 2) % n << "\n"
      << "        return m" << (i + 2) % n << ".g(x)\n"
      << "Base = C" << i << "\n";
    write_file(root / ("ring/m" + std::to_string(i) + ".py"), s.str());
  }
  return root;
}

AnalysisOptions options_for(const fs::path& tree, const fs::path& cache_dir) {
  AnalysisOptions o;
  o.discovery.paths.push_back(tree);
  o.cache_dir = cache_dir;
  o.jobs = 2;
  return o;
}

// Files in a cache directory by kind: loose entries (in 2-hex shard
// directories), packs, and temp files.
std::vector<fs::path> cache_files(const fs::path& cache_dir, const std::string& kind) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(cache_dir)) {
    if (!e.is_regular_file()) continue;
    const std::string name = e.path().filename().string();
    const bool temp = name.rfind(".tmp.", 0) == 0;
    if (kind == "temp" ? temp
        : kind == "pack" ? e.path().extension() == ".pack"
                         : !temp && e.path().parent_path().filename().string().size() == 2)
      out.push_back(e.path());
  }
  return out;
}

// A pack's index rows, read from its trailer.
std::vector<cyclefix::PackIndexRow> pack_rows(const std::string& pack) {
  std::uint64_t count = 0, index_offset = 0;
  std::memcpy(&count, pack.data() + pack.size() - 24, 8);
  std::memcpy(&index_offset, pack.data() + pack.size() - 16, 8);
  std::vector<cyclefix::PackIndexRow> rows(count);
  std::memcpy(rows.data(), pack.data() + index_offset, count * sizeof(cyclefix::PackIndexRow));
  return rows;
}

std::string run_command(const std::string& cmd, int* status = nullptr) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  std::array<char, 4096> buf;
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  int st = pclose(p);
  if (status) *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return out;
}

}  // namespace

TEST(FactsCacheHash, MatchesMurmur3AndSeesEveryByte) {
  EXPECT_EQ(hash_bytes(""), (ContentHash{0, 0}));
  ContentHash fox = hash_bytes("The quick brown fox jumps over the lazy dog");
  EXPECT_EQ(fox.lo, 0xe34bbc7bbc071b6cull);
  EXPECT_EQ(fox.hi, 0x7a433ca9c49a9347ull);
  // Every length of tail, and a change in any byte, gives a new hash.
  std::string s(40, 'a');
  std::set<std::string> seen;
  for (std::size_t len = 0; len <= s.size(); ++len) seen.insert(hash_bytes(std::string_view(s).substr(0, len)).hex());
  for (std::size_t i = 0; i < s.size(); ++i) {
    std::string t = s;
    t[i] = 'b';
    seen.insert(hash_bytes(t).hex());
  }
  EXPECT_EQ(seen.size(), 41u + 40u);
  EXPECT_EQ(fox.hex().size(), 32u);
}

TEST(FactsCacheEncoding, RoundTripsEveryFieldOfARichFile) {
  ModuleFacts f = collect_facts(kRichSource);
  // The source exercises every part of the facts.
  EXPECT_FALSE(f.imports.empty());
  EXPECT_FALSE(f.uses.empty());
  EXPECT_FALSE(f.definitions.empty());
  EXPECT_FALSE(f.functions.empty());
  EXPECT_FALSE(f.classes.empty());
  EXPECT_FALSE(f.type_checking_blocks.empty());
  EXPECT_FALSE(f.events.empty());
  EXPECT_TRUE(f.dunder_all.has_value());
  EXPECT_GE(f.dynamic_imports.size(), 2u);
  EXPECT_EQ(f.stored_parameters.size(), 1u);
  std::set<std::string> wheres;
  std::set<int> contexts, kinds, event_kinds;
  for (const auto& u : f.uses) wheres.insert(u.where), kinds.insert(static_cast<int>(u.kind));
  for (const auto& s : f.imports) contexts.insert(static_cast<int>(s.context));
  for (const auto& e : f.events) event_kinds.insert(static_cast<int>(e.kind));
  EXPECT_GE(wheres.size(), 6u);
  EXPECT_EQ(contexts.size(), 7u);
  EXPECT_EQ(kinds.size(), 3u);
  EXPECT_EQ(event_kinds.size(), 5u);  // Import, Bind, Use, Call, Protocol

  std::string bytes = serialise_facts(f);
  std::optional<ModuleFacts> back = deserialise_facts(bytes);
  ASSERT_TRUE(back);
  EXPECT_TRUE(same_facts(f, *back));
  for (std::size_t i = 0; i < f.uses.size(); ++i) EXPECT_STREQ(back->uses[i].where, f.uses[i].where);
  EXPECT_EQ(serialise_facts(*back), bytes);

  // Syntax problems, `from __future__ import annotations`, no `__all__`.
  ModuleFacts g = collect_facts("from __future__ import annotations\nimport a\ndef f(:\n  pass\n");
  EXPECT_FALSE(g.syntax_problems.empty());
  EXPECT_TRUE(g.future_annotations);
  std::optional<ModuleFacts> gb = deserialise_facts(serialise_facts(g));
  ASSERT_TRUE(gb);
  EXPECT_TRUE(same_facts(g, *gb));
}

TEST(FactsCacheEncoding, EveryTruncationIsRejected) {
  std::string bytes = serialise_facts(collect_facts(kRichSource));
  for (std::size_t len = 0; len < bytes.size(); ++len)
    EXPECT_FALSE(deserialise_facts(std::string_view(bytes).substr(0, len))) << len;
  EXPECT_FALSE(deserialise_facts(bytes + "x"));
  // Flipped bytes (which the entry checksum normally catches) never crash the
  // decoder nor make it allocate past the input.
  std::uint64_t seed = 12345;
  for (int round = 0; round < 3000; ++round) {
    std::string t = bytes;
    for (int k = 0; k < 1 + round % 4; ++k) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      t[(seed >> 33) % t.size()] ^= static_cast<char>(1 + (seed >> 20) % 255);
    }
    (void)deserialise_facts(t);
  }
}

TEST(FactsCacheEncoding, KnowsEveryWhereTheCollectorWrites) {
  std::string src = read_file(fs::path(CYCLEFIX_SOURCE_DIR) / "src/facts_collector.cpp");
  ASSERT_FALSE(src.empty());
  std::set<std::string> known;
  for (const char* w : known_use_wheres()) known.insert(w);
  std::regex assign(R"(\bwhere\s*=\s*"([^"]*)\")");
  int found = 0;
  for (std::sregex_iterator it(src.begin(), src.end(), assign), end; it != end; ++it, ++found)
    EXPECT_TRUE(known.count((*it)[1].str())) << "facts_cache.cpp does not know where = \"" << (*it)[1] << "\"";
  EXPECT_GE(found, 10);
}

TEST(FactsCache, MissThenStoreThenHit) {
  fs::path dir = fresh_dir("hit");
  ContentHash key = hash_bytes(kRichSource);
  const std::uint64_t size = std::strlen(kRichSource);
  ModuleFacts f = collect_facts(kRichSource);
  {
    FactsCache cache(dir);
    ASSERT_TRUE(cache.enabled()) << cache.problem();
    EXPECT_FALSE(cache.load(key, size));
    cache.store(key, size, f);
    std::optional<ModuleFacts> got = cache.load(key, size);  // from this run's pack, not yet renamed
    ASSERT_TRUE(got);
    EXPECT_TRUE(same_facts(f, *got));
    // Another key, or the same hash with another size, misses.
    EXPECT_FALSE(cache.load(hash_bytes("x = 1\n"), 6));
    EXPECT_FALSE(cache.load(key, size + 1));
    FactsCacheStats st = cache.stats();
    EXPECT_EQ(st.hits, 1u);
    EXPECT_EQ(st.misses, 3u);
    EXPECT_EQ(st.rejected, 1u);  // the size mismatch: the entry exists
    EXPECT_EQ(st.stored, 1u);
    EXPECT_EQ(cache_files(dir, "pack").size(), 0u);
  }
  // One pack per run, renamed into place when the cache closes; no loose
  // entries, no temp files.
  EXPECT_EQ(cache_files(dir, "pack").size(), 1u);
  EXPECT_EQ(cache_files(dir, "loose").size(), 0u);
  EXPECT_EQ(cache_files(dir, "temp").size(), 0u);
  FactsCache next(dir);
  std::optional<ModuleFacts> got = next.load(key, size);
  ASSERT_TRUE(got);
  EXPECT_TRUE(same_facts(f, *got));
  EXPECT_TRUE(fs::exists(dir / "CACHEDIR.TAG"));
}

TEST(FactsCache, CorruptEntriesAreMissesAndGetRewritten) {
  ContentHash key = hash_bytes(kRichSource);
  const std::uint64_t size = std::strlen(kRichSource);
  ModuleFacts f = collect_facts(kRichSource);
  const std::uint64_t stamp = 0x4242;
  const std::string good = encode_entry(key, size, f, stamp);

  std::vector<std::string> bad;
  for (std::size_t len : {std::size_t{0}, std::size_t{10}, std::size_t{56}, good.size() / 2, good.size() - 1})
    bad.push_back(good.substr(0, len));                           // truncated
  for (std::size_t at : {std::size_t{0}, std::size_t{9}, std::size_t{30}, std::size_t{60}, good.size() / 2,
                         good.size() - 3}) {
    std::string s = good;
    s[at] ^= 0x20;  // one flipped bit: magic, version, hash, payload, checksum
    bad.push_back(s);
  }
  bad.push_back(good + "trailing");
  bad.push_back(std::string(good.size(), '\0'));
  // A loose entry (as earlier builds wrote them) and an entry in a pack.
  for (std::size_t i = 0; i < bad.size(); ++i) {
    fs::path dir = fresh_dir("corrupt-loose");
    {
      FactsCache cache(dir, stamp);
      write_file(cache.entry_path(key), bad[i]);
      EXPECT_FALSE(cache.load(key, size)) << "variant " << i;
      EXPECT_EQ(cache.stats().rejected, 1u) << "variant " << i;
      cache.store(key, size, f);  // what analyse() does on a miss
      std::optional<ModuleFacts> again = cache.load(key, size);
      ASSERT_TRUE(again) << "variant " << i;
      EXPECT_TRUE(same_facts(f, *again));
    }
    FactsCache next(dir, stamp);  // the new pack wins over the loose entry
    EXPECT_TRUE(next.load(key, size)) << "variant " << i;
  }
  fs::path dir = fresh_dir("corrupt-pack");
  {
    FactsCache cache(dir, stamp);
    cache.store(key, size, f);
  }
  ASSERT_EQ(cache_files(dir, "pack").size(), 1u);
  const fs::path pack = cache_files(dir, "pack")[0];
  const std::string whole = read_file(pack);
  ASSERT_EQ(whole.substr(0, good.size()), good);
  std::vector<std::string> bad_packs;
  for (const std::string& entry : bad)
    if (entry.size() == good.size()) bad_packs.push_back(entry + whole.substr(good.size()));  // a damaged entry
  const std::size_t damaged_entries = bad_packs.size();
  for (std::size_t at : {good.size() + 3, whole.size() - 30, whole.size() - 20, whole.size() - 1}) {
    std::string s = whole;
    s[at] ^= 0x20;  // index, trailer
    bad_packs.push_back(s);
  }
  bad_packs.push_back(whole.substr(0, whole.size() - 1));
  bad_packs.push_back(whole + "x");
  bad_packs.push_back(whole.substr(0, 20));
  for (std::size_t i = 0; i < bad_packs.size(); ++i) {
    for (const auto& p : cache_files(dir, "pack")) fs::remove(p);
    write_file(pack, bad_packs[i]);
    {
      FactsCache cache(dir, stamp);
      EXPECT_FALSE(cache.load(key, size)) << "pack variant " << i;
      // A damaged entry is one miss; a pack whose index or trailer does not
      // check is removed whole.
      EXPECT_EQ(cache.stats().rejected, i < damaged_entries ? 1u : 0u) << "pack variant " << i;
      EXPECT_EQ(fs::exists(pack), i < damaged_entries) << "pack variant " << i;
      cache.store(key, size, f);
    }
    FactsCache next(dir, stamp);
    std::optional<ModuleFacts> again = next.load(key, size);
    ASSERT_TRUE(again) << "pack variant " << i;
    EXPECT_TRUE(same_facts(f, *again));
    EXPECT_EQ(next.stats().rejected, 0u) << "pack variant " << i;
  }
}

TEST(FactsCache, PacksBeyondTheLimitAreMergedIntoOne) {
  fs::path dir = fresh_dir("merge");
  std::vector<std::string> sources;
  for (std::size_t i = 0; i <= FactsCache::kMaxPacks + 1; ++i) {
    sources.push_back("import os\nX" + std::to_string(i) + " = os.sep\n");
    FactsCache cache(dir);
    cache.store(hash_bytes(sources.back()), sources.back().size(), collect_facts(sources.back()));
    cache.store(hash_bytes(sources[0]), sources[0].size(), collect_facts(sources[0]));  // the same entry again
    const std::size_t packs = cache_files(dir, "pack").size();
    EXPECT_EQ(packs, i) << "before the run's own pack";
    if (i == FactsCache::kMaxPacks) {
      cache.flush();  // the ninth: merged with the other eight
      EXPECT_EQ(cache_files(dir, "pack").size(), 1u);
      EXPECT_TRUE(cache.load(hash_bytes(sources[3]), sources[3].size()));  // still read, from a removed pack
      break;
    }
  }
  EXPECT_EQ(cache_files(dir, "temp").size(), 0u);
  FactsCache cache(dir);
  for (const std::string& src : sources) EXPECT_TRUE(cache.load(hash_bytes(src), src.size())) << src;
  EXPECT_EQ(cache.stats().rejected, 0u);
}

TEST(FactsCache, OtherVersionsAndBuildsAreMisses) {
  fs::path dir = fresh_dir("version");
  FactsCache cache(dir, 0x1111);
  ContentHash key = hash_bytes(kRichSource);
  const std::uint64_t size = std::strlen(kRichSource);
  ModuleFacts f = collect_facts(kRichSource);
  const fs::path entry = cache.entry_path(key);
  fs::create_directories(entry.parent_path());
  // Valid entries (good checksum) written by another entry layout, facts format or build.
  for (const std::string& other : {encode_entry(key, size, f, 0x1111, kCacheEntryVersion + 1),
                                   encode_entry(key, size, f, 0x1111, kCacheEntryVersion, kFactsFormatVersion + 1),
                                   encode_entry(key, size, f, 0x2222)}) {
    write_file(entry, other);
    EXPECT_FALSE(cache.load(key, size));
  }
  write_file(entry, encode_entry(key, size, f, 0x1111));
  EXPECT_TRUE(cache.load(key, size));
  // Each build has its own directory.
  FactsCache other_build(dir, 0x2222);
  EXPECT_NE(other_build.directory(), cache.directory());
  EXPECT_FALSE(other_build.load(key, size));
  EXPECT_NE(cache.directory().filename().string().find("facts-v" + std::to_string(kCacheEntryVersion) + "."),
            std::string::npos);
}

TEST(FactsCache, RemovesOldAndSurplusBuildDirectories) {
  fs::path dir = fresh_dir("prune");
  const auto now = fs::file_time_type::clock::now();
  // Five other builds used 1..5 hours ago, one 40 days ago, and a file that is not a build.
  for (int h = 1; h <= 5; ++h) {
    fs::path d = dir / ("facts-v1.1-00000000000000" + std::to_string(10 + h));
    write_file(d / "ab/cdef", "x");
    fs::last_write_time(d, now - std::chrono::hours(h));
  }
  fs::path ancient = dir / "facts-v0.1-0000000000000099";
  fs::create_directories(ancient);
  fs::last_write_time(ancient, now - std::chrono::hours(24 * 40));
  write_file(dir / "notes.txt", "mine\n");

  FactsCache cache(dir, 0x77);
  ASSERT_TRUE(cache.enabled());
  std::set<std::string> left;
  for (const auto& e : fs::directory_iterator(dir)) left.insert(e.path().filename().string());
  EXPECT_EQ(left, (std::set<std::string>{"CACHEDIR.TAG", "notes.txt", cache.directory().filename().string(),
                                         "facts-v1.1-0000000000000011", "facts-v1.1-0000000000000012",
                                         "facts-v1.1-0000000000000013"}));
}

TEST(FactsCache, UnusableDirectoryDisablesTheCache) {
  fs::path dir = fresh_dir("unusable");
  write_file(dir / "file", "not a directory\n");
  FactsCache cache(dir / "file" / "cache");
  EXPECT_FALSE(cache.enabled());
  EXPECT_FALSE(cache.problem().empty());
  cache.store(hash_bytes("a"), 1, ModuleFacts{});
  EXPECT_FALSE(cache.load(hash_bytes("a"), 1));

  // analyse() still works, and says why there was no cache.
  fs::path tree = make_tree(dir / "tree", 3);
  Analysis a = analyse(options_for(tree, dir / "file" / "cache"));
  EXPECT_EQ(a.files.size(), 4u);
  EXPECT_FALSE(a.cache_problem.empty());
  EXPECT_EQ(a.cache.hits + a.cache.misses, 0u);
}

TEST(FactsCache, AnalyseTakesHitsAndRebuildsCorruptEntries) {
  fs::path dir = fresh_dir("analyse");
  fs::path tree = make_tree(dir / "tree", 40);
  Analysis plain = analyse(options_for(tree, {}));
  const std::size_t n = plain.files.size();
  ASSERT_EQ(n, 41u);

  Analysis cold = analyse(options_for(tree, dir / "cache"));
  EXPECT_EQ(cold.cache.hits, 0u);
  EXPECT_EQ(cold.cache.stored, n);
  Analysis warm = analyse(options_for(tree, dir / "cache"));
  EXPECT_EQ(warm.cache.hits, n);
  EXPECT_EQ(warm.cache.stored, 0u);
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_TRUE(same_facts(plain.files[i].facts, warm.files[i].facts)) << plain.files[i].source.display;
    EXPECT_EQ(plain.files[i].content_hash, warm.files[i].content_hash);
    EXPECT_EQ(plain.files[i].rewritable, warm.files[i].rewritable);
  }
  EXPECT_EQ(plain.graph.edges().size(), warm.graph.edges().size());
  EXPECT_EQ(plain.total_lines, warm.total_lines);

  // Damage every entry: all are misses, all are rebuilt, the facts do not change.
  std::vector<fs::path> packs = cache_files(dir / "cache", "pack");
  ASSERT_EQ(packs.size(), 1u);
  EXPECT_EQ(cache_files(dir / "cache", "loose").size(), 0u);
  std::string pack = read_file(packs[0]);
  std::vector<cyclefix::PackIndexRow> rows = pack_rows(pack);
  ASSERT_EQ(rows.size(), n);
  for (std::size_t i = 0; i < rows.size(); ++i) pack[rows[i].offset + (i % 2 ? rows[i].size / 2 : 20)] ^= 1;
  write_file(packs[0], pack);
  Analysis rebuilt = analyse(options_for(tree, dir / "cache"));
  EXPECT_EQ(rebuilt.cache.hits, 0u);
  EXPECT_EQ(rebuilt.cache.rejected, n);
  EXPECT_EQ(rebuilt.cache.stored, n);
  for (std::size_t i = 0; i < n; ++i) EXPECT_TRUE(same_facts(plain.files[i].facts, rebuilt.files[i].facts));
  EXPECT_EQ(analyse(options_for(tree, dir / "cache")).cache.hits, n);

  // An edited file misses; the others still hit.
  write_file(tree / "ring/m5.py", read_file(tree / "ring/m5.py") + "x = 1\n");
  Analysis edited = analyse(options_for(tree, dir / "cache"));
  EXPECT_EQ(edited.cache.hits, n - 1);
  EXPECT_EQ(edited.cache.stored, 1u);
}

// Two processes fill one empty cache at the same time, then a third reads it.
TEST(FactsCache, TwoProcessesShareOneCache) {
  fs::path dir = fresh_dir("fork");
  fs::path tree = make_tree(dir / "tree", 300);
  int go[2];
  ASSERT_EQ(::pipe(go), 0);
  std::vector<pid_t> children;
  for (int c = 0; c < 2; ++c) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      char b;
      ::close(go[1]);
      if (::read(go[0], &b, 1) != 0) ::_exit(3);  // start together when the pipe closes
      Analysis a = analyse(options_for(tree, dir / "cache"));
      ::_exit(a.files.size() == 301 && a.cache.rejected == 0 ? 0 : 1);
    }
    children.push_back(pid);
  }
  ::close(go[0]);
  ::close(go[1]);
  for (pid_t pid : children) {
    int st = 0;
    ASSERT_EQ(::waitpid(pid, &st, 0), pid);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << st;
  }
  Analysis plain = analyse(options_for(tree, {}));
  Analysis third = analyse(options_for(tree, dir / "cache"));
  EXPECT_EQ(third.cache.hits, 301u);
  EXPECT_EQ(third.cache.rejected, 0u);
  for (std::size_t i = 0; i < plain.files.size(); ++i)
    EXPECT_TRUE(same_facts(plain.files[i].facts, third.files[i].facts));
  // One pack per process (the third stored nothing), no temp files.
  EXPECT_EQ(cache_files(dir / "cache", "pack").size(), 2u);
  EXPECT_EQ(cache_files(dir / "cache", "temp").size(), 0u);
}

// The binary: two runs in parallel on one cache, then a third, then --no-cache:
// the same JSON report and the same diff, byte for byte; every entry valid.
TEST(FactsCache, BinaryOutputIsTheSameWithAndWithoutCache) {
  fs::path dir = fresh_dir("binary");
  fs::path tree = make_tree(dir / "tree", 120);
  // Golden inputs add variety (syntax errors, encodings, TYPE_CHECKING, ...).
  fs::copy(fs::path(CYCLEFIX_SOURCE_DIR) / "golden", tree / "golden", fs::copy_options::recursive);
  auto files_in = [](const fs::path& root) {
    std::set<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(root)) out.insert(e.path().string());
    return out;
  };
  const std::set<std::string> tree_before = files_in(tree);
  const std::string bin = std::string("'") + CYCLEFIX_BINARY + "'";
  const std::string cd = "cd '" + dir.string() + "' && ";
  const std::string cache = " --cache-dir '" + (dir / "cache").string() + "'";
  // The planner's run time is the one part that may differ.
  auto masked = [](const std::string& s) {
    return std::regex_replace(s, std::regex(", [0-9.e+-]+ s\\)"), ", <time> s)");
  };
  auto run = [&](const std::string& cmd, const std::string& name) {
    return cd + bin + cmd + " >" + name + ".out 2>" + name + ".err";
  };
  for (const std::string cmd : {std::string(" cycles --json - tree"), std::string(" tree --explain"),
                                std::string(" tree")}) {
    run_command(cd + "(" + run(cmd + cache, "first") + " & " + run(cmd + cache, "second") + "; wait)");
    run_command(run(cmd + cache, "third"));
    run_command(run(cmd + " --no-cache", "plain"));
    for (const char* stream : {".out", ".err"}) {
      const std::string plain = masked(read_file(dir / ("plain" + std::string(stream))));
      EXPECT_GT(plain.size(), 100u) << cmd << stream;
      for (const char* name : {"first", "second", "third"})
        EXPECT_TRUE(masked(read_file(dir / (name + std::string(stream)))) == plain) << cmd << " " << name << stream;
    }
  }
  // Every entry the binary wrote is complete and valid for its file.
  std::vector<fs::path> stamps;
  for (const auto& e : fs::directory_iterator(dir / "cache"))
    if (e.is_directory()) stamps.push_back(e.path());
  ASSERT_EQ(stamps.size(), 1u);
  const std::string name = stamps[0].filename().string();
  const std::uint64_t stamp = std::stoull(name.substr(name.rfind('-') + 1), nullptr, 16);
  std::size_t checked = 0;
  FactsCache written(dir / "cache", stamp);
  for (const auto& e : fs::recursive_directory_iterator(tree / "ring")) {
    if (e.path().extension() != ".py") continue;
    std::string src = read_file(e.path());
    EXPECT_TRUE(written.load(hash_bytes(src), src.size())) << e.path();
    ++checked;
  }
  EXPECT_EQ(checked, 121u);
  EXPECT_EQ(written.stats().rejected, 0u);
  for (const auto& e : fs::recursive_directory_iterator(dir / "cache"))
    EXPECT_EQ(e.path().filename().string().rfind(".tmp.", 0), std::string::npos) << e.path();
  EXPECT_EQ(files_in(tree), tree_before);  // nothing was written into the analysed tree
}

TEST(Progress, ShowsThePhaseAndCountOnlyWhenEnabledAndLate) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  {
    Progress quiet(false, fds[1], std::chrono::milliseconds(0));
    quiet.phase("parsing", 10);
    quiet.advance();
    Progress not_yet(true, fds[1], std::chrono::hours(1));
    not_yet.phase("parsing", 10);
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  {
    Progress p(true, fds[1], std::chrono::milliseconds(0));
    p.phase("parsing", 10);
    for (int i = 0; i < 3; ++i) p.advance();
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    p.phase("simulate");
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  ::close(fds[1]);
  std::string out;
  char buf[4096];
  for (ssize_t r; (r = ::read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, r);
  ::close(fds[0]);
  EXPECT_EQ(out.find("cyclefix: parsing 3/10 files"), 1u) << out;  // after the first \r
  EXPECT_NE(out.find("\rcyclefix: simulate"), std::string::npos) << out;
  EXPECT_EQ(out.back(), '\r') << out;  // cleared at the end
  EXPECT_EQ(out.find('\n'), std::string::npos);
}
