// A content-addressed cache of per-file facts: the facts of a file depend on
// its bytes alone, so an entry keyed by a hash of the bytes stays valid across
// runs, branches and checkouts. A hit skips parsing and fact collection.
//
// Layout: DIR/facts-v<entry>.<facts>-<build>/, where <build> is a stamp of the
// running binary (its ELF build id), so a rebuilt cyclefix never reads facts
// collected by another build. In it, packs/<name>.pack: the entries one run
// stored, one after the other, then an index of their 128-bit content hashes
// (sorted) and a trailer; a run writes its pack to a temp file as it goes and
// renames it into place at the end (one file per run, not one per source
// file: creating 50,000 small files cost more than a sixth of a cold run).
// Loose entries, <2 hex>/<30 hex> named by the hash (what earlier builds of
// the same layout wrote), are still read. Two runs may share a cache: packs
// are never changed once renamed, a later pack wins over an earlier one, and
// an entry that fails any check (magic, versions, hash, lengths, checksum,
// decoding) is a miss and gets stored again. Beyond kMaxPacks packs, the run
// that adds one merges them all into one. Nothing here throws or reports: a
// cache that cannot be used is a slow run.
#pragma once

#include <atomic>
#include <mutex>
#include <unordered_map>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "facts.hpp"

namespace cyclefix {

// Bump when the serialised form changes (the entry's field order or encoding).
inline constexpr std::uint32_t kCacheEntryVersion = 7;
// Bump when what the facts mean changes without the layout changing. Released
// binaries rely on this; development builds are also separated by build stamp.
inline constexpr std::uint32_t kFactsFormatVersion = 15;
// The facts-version field of a run record (run_record.hpp), whose payload is not facts.
inline constexpr std::uint32_t kRunRecordVersion = 0x52554e01;  // "RUN" 1

struct ContentHash {
  std::uint64_t lo = 0, hi = 0;
  bool operator==(const ContentHash&) const = default;
  std::string hex() const;  // 32 lowercase hex digits, hi first
};

// MurmurHash3 x64 128-bit (public-domain algorithm, written out here).
ContentHash hash_bytes(std::string_view bytes, std::uint64_t seed = 0);

// A stamp of the running binary: its GNU build id when it has one, else a hash
// of the executable's bytes.
std::uint64_t build_stamp();

// The facts of one file in the cache's binary encoding, and back. Decoding
// returns nothing on any inconsistency (a corrupt entry is a miss).
std::string serialise_facts(const ModuleFacts& facts);
std::optional<ModuleFacts> deserialise_facts(std::string_view bytes);

// One entry file's bytes: header {magic, versions, build stamp, content hash,
// source size, payload size}, the serialised facts, a checksum of both. And
// back: nothing when any of it does not match.
std::string encode_entry(const ContentHash& key, std::uint64_t source_size, const ModuleFacts& facts,
                         std::uint64_t stamp, std::uint32_t entry_version = kCacheEntryVersion,
                         std::uint32_t facts_version = kFactsFormatVersion);
std::optional<ModuleFacts> decode_entry(std::string_view bytes, const ContentHash& key, std::uint64_t source_size,
                                        std::uint64_t stamp);

// The NameUse::where descriptions the collector uses (string literals); a
// decoded `where` maps back to one of these.
const std::vector<const char*>& known_use_wheres();

// Where the cache lives when no --cache-dir is given: $XDG_CACHE_HOME/cyclefix,
// else $HOME/.cache/cyclefix; empty (no cache) when neither is set. Outside the
// analysed tree on purpose: nothing appears in a diff, a `git status` or a
// before/after tree comparison. `paths` are the PATH arguments, for a project
// location once a config file can name one.
std::filesystem::path default_cache_dir(const std::vector<std::filesystem::path>& paths);

// One row of a pack's index, as stored: the entry of content hash {lo, hi} is
// `size` bytes at `offset`.
struct PackIndexRow {
  std::uint64_t lo = 0, hi = 0, offset = 0, size = 0;
};

struct FactsCacheStats {
  std::size_t hits = 0;
  std::size_t misses = 0;    // no entry, or an entry that was rejected
  std::size_t rejected = 0;  // entries that existed but failed a check
  std::size_t stored = 0;
};

class FactsCache {
 public:
  // Creates DIR and the build's subdirectory as needed. When that fails the
  // cache is disabled: lookups miss, stores do nothing, problem() says why.
  explicit FactsCache(const std::filesystem::path& dir, std::uint64_t stamp = build_stamp());

  bool enabled() const { return problem_.empty(); }
  const std::string& problem() const { return problem_; }
  const std::filesystem::path& directory() const { return dir_; }  // the build's subdirectory

  // Writes this run's pack (flush()).
  ~FactsCache();
  FactsCache(const FactsCache&) = delete;
  FactsCache& operator=(const FactsCache&) = delete;

  // Thread-safe. `source_size` is checked against the entry too. A stored
  // entry goes into this run's pack, which load() reads too.
  std::optional<ModuleFacts> load(const ContentHash& key, std::uint64_t source_size);
  void store(const ContentHash& key, std::uint64_t source_size, const ModuleFacts& facts);
  // Renames this run's pack into place (nothing when nothing was stored) and
  // merges the packs when there are more than kMaxPacks. Later stores start a
  // new pack.
  void flush();

  // Where a loose entry of `key` lives (read, never written any more).
  std::filesystem::path entry_path(const ContentHash& key) const;
  std::filesystem::path pack_directory() const { return dir_ / "packs"; }
  static constexpr std::size_t kMaxPacks = 8;

  // Whole-run records (run_record.hpp), framed and written like facts entries,
  // under runs/ (the 16 newest are kept). Not counted in stats().
  std::optional<std::string> load_record(const ContentHash& key);
  void store_record(const ContentHash& key, std::string_view payload);
  std::filesystem::path record_path(const ContentHash& key) const;
  std::uint64_t stamp() const { return stamp_; }
  FactsCacheStats stats() const;

 private:
  struct Located {
    int pack = -1;  // index into packs_, or -1: this run's pack
    std::uint64_t offset = 0, size = 0;
  };
  void read_packs();  // once, on first use
  void add_pack(int fd, const std::vector<PackIndexRow>& rows);
  std::optional<std::string> read_packed(const Located& at);
  bool write_pending();  // pending_ to pack_fd_; false when the write failed
  void merge_packs();

  std::filesystem::path dir_;
  std::uint64_t stamp_ = 0;
  std::string problem_;
  std::atomic<std::size_t> hits_{0}, misses_{0}, rejected_{0}, stored_{0}, tmp_counter_{0};
  // The packs there were when the cache opened (descriptors), and where each
  // key is: the newest pack's copy.
  std::once_flag packs_once_;
  bool has_loose_ = false;  // the directory has loose entries (shard directories)
  std::vector<int> packs_;
  struct KeyHash {
    std::size_t operator()(const ContentHash& k) const { return static_cast<std::size_t>(k.lo); }
  };
  std::unordered_map<ContentHash, Located, KeyHash> where_;
  // This run's pack: a temp file, the bytes not yet written to it, its index.
  std::mutex pack_mu_;
  int pack_fd_ = -1;
  bool pack_failed_ = false;
  std::filesystem::path pack_tmp_;
  std::uint64_t pack_size_ = 0;  // bytes written to pack_fd_
  std::string pending_;
  std::unordered_map<ContentHash, Located, KeyHash> pending_where_;  // its index
};

}  // namespace cyclefix
