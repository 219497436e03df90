// RAII owners for the tree-sitter C objects, and the few node helpers every
// syntax-reading stage needs. This is the only header that includes the
// tree-sitter API; other stages see plain data (facts.hpp).
#pragma once

#include <tree_sitter/api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

extern "C" const TSLanguage* tree_sitter_python(void);

namespace cyclefix::ts {

struct ParserDeleter {
  void operator()(TSParser* p) const { ts_parser_delete(p); }
};
struct TreeDeleter {
  void operator()(TSTree* t) const { ts_tree_delete(t); }
};
using ParserPtr = std::unique_ptr<TSParser, ParserDeleter>;
using TreePtr = std::unique_ptr<TSTree, TreeDeleter>;

// A parser set to the Python grammar. One per thread: parsers are not shared.
ParserPtr make_python_parser();

// Parses UTF-8 bytes. Never returns null for a configured parser.
TreePtr parse(TSParser* parser, std::string_view source);

// Every identifier in the Python text `source` except attribute names after a
// dot and keyword-argument names: a superset of the names the code reads from
// its module's globals (parameters and locals are in it too). Sorted, unique.
// `clean` (when given) is set to whether the text parsed without errors.
std::vector<std::string> identifiers(std::string_view source, bool* clean = nullptr);

inline std::string_view text(TSNode n, std::string_view src) {
  uint32_t b = ts_node_start_byte(n), e = ts_node_end_byte(n);
  if (b > src.size() || e > src.size() || e < b) return {};
  return src.substr(b, e - b);
}
inline std::string_view type(TSNode n) { return ts_node_type(n); }
inline bool is(TSNode n, std::string_view t) { return !ts_node_is_null(n) && type(n) == t; }
inline int line(TSNode n) { return static_cast<int>(ts_node_start_point(n).row) + 1; }
inline TSNode field(TSNode n, std::string_view name) {
  return ts_node_child_by_field_name(n, name.data(), static_cast<uint32_t>(name.size()));
}
// By field id (ts_language_field_id_for_name, looked up once): no name lookup per call.
inline TSNode field(TSNode n, TSFieldId id) { return ts_node_child_by_field_id(n, id); }

class ChildPool;

// A node's children, as a view. Either in a vector borrowed from a ChildPool
// (handed back when this goes out of scope) or in the pool's memo. Use as a
// temporary or a local:   for (TSNode c : pool.named(n)) ...
class ChildList {
 public:
  ChildList(const ChildList&) = delete;
  ChildList& operator=(const ChildList&) = delete;
  inline ~ChildList();

  const TSNode* begin() const { return data_; }
  const TSNode* end() const { return data_ + size_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  TSNode operator[](std::size_t i) const { return data_[i]; }

 private:
  friend class ChildPool;
  // A borrowed vector.
  ChildList(ChildPool* pool, std::vector<TSNode> nodes)
      : pool_(pool), owned_(std::move(nodes)), data_(owned_.data()), size_(owned_.size()) {}
  // A view into the memo.
  inline ChildList(ChildPool* pool, const TSNode* data, std::size_t size);

  ChildPool* pool_;
  std::vector<TSNode> owned_;
  const TSNode* data_;
  std::size_t size_;
  bool memo_ = false;
};

// Enumerates children cheaply. In tree-sitter 0.20 ts_node_named_child(n, i)
// costs O(i) (so index loops are quadratic on wide nodes) and even a tree-cursor
// step costs hundreds of instructions, so:
//  - few children are fetched by index, many by one tree-cursor walk;
//  - a walk that will be repeated over the same subtree (a function body is
//    scanned for its local names before it is visited) can memoize the lists
//    with named_memo(); named() then finds them without touching the tree.
// Not thread-safe: one per walker, and one tree at a time.
class ChildPool {
 public:
  ChildPool() = default;
  ChildPool(const ChildPool&) = delete;
  ChildPool& operator=(const ChildPool&) = delete;
  ~ChildPool() {
    if (has_cursor_) ts_tree_cursor_delete(&cursor_);
  }

  // The named children of n (what ts_node_named_child(n, 0..count-1) returns).
  ChildList named(TSNode n) {
    if (memo_entries_ > 0 && !ts_node_is_null(n)) {
      if (const Slot* s = find(n)) return ChildList(this, s->data, s->count);
    }
    return ChildList(this, fill(n, true));
  }

  // The same, and remembered for later named() calls until forget().
  ChildList named_memo(TSNode n) {
    if (ts_node_is_null(n) || ts_node_child_count(n) == 0) return ChildList(this, nullptr, 0);
    if (memo_entries_ > 0) {
      if (const Slot* s = find(n)) return ChildList(this, s->data, s->count);
    }
    std::vector<TSNode> v = fill(n, true);
    const TSNode* data = store(v);
    const std::size_t count = v.size();
    insert(n, data, static_cast<uint32_t>(count));
    release(std::move(v));
    return ChildList(this, data, count);
  }

  // Every child of n, named or not (what ts_node_child(n, 0..count-1) returns).
  ChildList all(TSNode n) { return ChildList(this, fill(n, false)); }

  // Drops the memo (unless a list from it is still in use: then it stays).
  void forget() {
    if (live_memo_lists_ == 0) clear_memo();
  }
  // Drops the memo, which must not be in use: before walking another tree.
  void clear_memo() {
    if (memo_entries_ == 0) return;
    ++generation_;
    memo_entries_ = 0;
    chunk_ = 0;
    chunk_used_ = 0;
    big_.clear();
  }

 private:
  friend class ChildList;
  static constexpr uint32_t kIndexLoopMax = 6;
  static constexpr std::size_t kChunk = 4096;

  struct Slot {
    const void* id = nullptr;
    uint32_t start = 0;
    uint32_t count = 0;
    uint32_t generation = 0;
    const TSNode* data = nullptr;
  };

  static std::size_t hash(TSNode n) {
    uint64_t k = reinterpret_cast<uintptr_t>(n.id) ^ (static_cast<uint64_t>(n.context[0]) << 40);
    return static_cast<std::size_t>((k * 0x9E3779B97F4A7C15ull) >> 20);
  }
  const Slot* find(TSNode n) const {
    std::size_t mask = slots_.size() - 1;
    for (std::size_t i = hash(n) & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.generation != generation_) return nullptr;
      if (s.id == n.id && s.start == n.context[0]) return &s;
    }
  }
  void insert(TSNode n, const TSNode* data, uint32_t count) {
    if ((memo_entries_ + 1) * 2 > slots_.size()) grow();
    std::size_t mask = slots_.size() - 1;
    std::size_t i = hash(n) & mask;
    while (slots_[i].generation == generation_) i = (i + 1) & mask;
    slots_[i] = Slot{n.id, n.context[0], count, generation_, data};
    ++memo_entries_;
  }
  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(old.empty() ? 1024 : old.size() * 2, Slot{});
    std::size_t mask = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.generation != generation_) continue;
      TSNode key{};
      key.id = s.id;
      key.context[0] = s.start;
      std::size_t i = hash(key) & mask;
      while (slots_[i].generation == generation_) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }
  // Copies v into stable storage (chunks are never moved or freed before forget()).
  const TSNode* store(const std::vector<TSNode>& v) {
    if (v.empty()) return nullptr;
    if (v.size() > kChunk / 4) {
      big_.emplace_back(new TSNode[v.size()]);
      std::copy(v.begin(), v.end(), big_.back().get());
      return big_.back().get();
    }
    if (chunk_ < chunks_.size() && chunk_used_ + v.size() > kChunk) {
      ++chunk_;
      chunk_used_ = 0;
    }
    if (chunk_ == chunks_.size()) chunks_.emplace_back(new TSNode[kChunk]);
    TSNode* out = chunks_[chunk_].get() + chunk_used_;
    std::copy(v.begin(), v.end(), out);
    chunk_used_ += v.size();
    return out;
  }

  std::vector<TSNode> fill(TSNode n, bool named_only) {
    std::vector<TSNode> v;
    if (!free_.empty()) {
      v = std::move(free_.back());
      free_.pop_back();
    }
    if (ts_node_is_null(n)) return v;
    uint32_t count = named_only ? ts_node_named_child_count(n) : ts_node_child_count(n);
    if (count == 0) return v;
    if (count <= kIndexLoopMax) {
      // Few children: by index (O(i) each, but cheaper than the cursor's steps).
      v.reserve(count);
      for (uint32_t i = 0; i < count; ++i)
        v.push_back(named_only ? ts_node_named_child(n, i) : ts_node_child(n, i));
      return v;
    }
    if (has_cursor_) {
      ts_tree_cursor_reset(&cursor_, n);
    } else {
      cursor_ = ts_tree_cursor_new(n);
      has_cursor_ = true;
    }
    v.reserve(count);
    if (ts_tree_cursor_goto_first_child(&cursor_)) {
      do {
        TSNode c = ts_tree_cursor_current_node(&cursor_);
        if (!named_only || ts_node_is_named(c)) v.push_back(c);
      } while (ts_tree_cursor_goto_next_sibling(&cursor_));
    }
    return v;
  }
  void release(std::vector<TSNode>&& v) {
    v.clear();
    free_.push_back(std::move(v));
  }

  TSTreeCursor cursor_{};
  bool has_cursor_ = false;
  std::vector<std::vector<TSNode>> free_;
  // The memo: an open-addressing table keyed by node (id and start byte); a
  // slot is in use when its generation is the current one.
  std::vector<Slot> slots_;
  uint32_t generation_ = 1;
  std::size_t memo_entries_ = 0;
  std::vector<std::unique_ptr<TSNode[]>> chunks_;
  std::size_t chunk_ = 0, chunk_used_ = 0;
  std::vector<std::unique_ptr<TSNode[]>> big_;
  std::size_t live_memo_lists_ = 0;
};

inline ChildList::ChildList(ChildPool* pool, const TSNode* data, std::size_t size)
    : pool_(pool), data_(data), size_(size), memo_(true) {
  ++pool_->live_memo_lists_;
}

inline ChildList::~ChildList() {
  if (memo_) --pool_->live_memo_lists_;
  else pool_->release(std::move(owned_));
}

}  // namespace cyclefix::ts
