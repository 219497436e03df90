// The facts cache: hashing, the binary encoding of ModuleFacts, and the entry
// files. See facts_cache.hpp for the layout and the rules.
#include "facts_cache.hpp"

#include <fcntl.h>
#include <signal.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <system_error>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>

namespace cyclefix {

namespace {

// ---- hashing -----------------------------------------------------------------

inline std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

inline std::uint64_t fmix(std::uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  k ^= k >> 33;
  return k;
}

inline std::uint64_t load64(const unsigned char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// ---- encoding ------------------------------------------------------------------
// Unsigned integers are LEB128 varints, signed ones zigzag varints, vectors a
// count and the elements. Strings are indices into a table of the file's
// distinct strings, written first (names, scopes and `where` repeat a lot: a
// 1.5 MB file has 130,000 uses). Lines and begin offsets are stored as the
// difference from the previous one (facts come in source order), an end offset
// as its distance from the begin. One field list per struct (fields() below)
// serves both directions, so they cannot drift apart.

// The string table's index: string -> id, open addressing over one array
// (std::unordered_map allocated a node and ran a byte-wise hash per distinct
// string; serialising was ~4% of a cold run with a cache).
class StringIds {
 public:
  // The id of `s`, or `next` after adding it (then `added`).
  std::uint64_t find_or_add(std::string_view s, std::uint64_t next, bool& added) {
    if ((used_ + 1) * 2 > slots_.size()) grow();
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = hash(s) & mask;; i = (i + 1) & mask) {
      Slot& slot = slots_[i];
      if (slot.id == kEmpty) {
        slot = {s, next};
        ++used_;
        added = true;
        return next;
      }
      if (slot.key == s) {
        added = false;
        return slot.id;
      }
    }
  }

 private:
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  struct Slot {
    std::string_view key;
    std::uint64_t id = kEmpty;
  };
  static std::size_t hash(std::string_view s) {
    std::uint64_t h = 0x9e3779b97f4a7c15ull ^ s.size();
    std::size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) h = fmix(h ^ load64(reinterpret_cast<const unsigned char*>(s.data()) + i));
    std::uint64_t tail = 0;
    for (std::size_t k = s.size(); k > i; --k) tail = (tail << 8) | static_cast<unsigned char>(s[k - 1]);
    return static_cast<std::size_t>(fmix(h ^ tail));
  }
  void grow() {
    std::vector<Slot> old(slots_.empty() ? 64 : slots_.size() * 2);
    old.swap(slots_);
    const std::size_t mask = slots_.size() - 1;
    for (const Slot& e : old) {
      if (e.id == kEmpty) continue;
      std::size_t i = hash(e.key) & mask;
      while (slots_[i].id != kEmpty) i = (i + 1) & mask;
      slots_[i] = e;
    }
  }
  std::vector<Slot> slots_;
  std::size_t used_ = 0;
};

class Encoder {
 public:
  std::string out;
  StringIds ids;  // views into the facts being encoded
  std::vector<std::string_view> table;

  void operator()(std::uint64_t v) {
    while (v >= 0x80) {
      out.push_back(static_cast<char>(v | 0x80));
      v >>= 7;
    }
    out.push_back(static_cast<char>(v));
  }
  void operator()(std::uint32_t v) { (*this)(static_cast<std::uint64_t>(v)); }
  void operator()(std::uint8_t v) { (*this)(static_cast<std::uint64_t>(v)); }
  void operator()(int v) {
    const std::int64_t x = v;
    (*this)(static_cast<std::uint64_t>((x << 1) ^ (x >> 63)));
  }
  void operator()(bool v) { out.push_back(v ? 1 : 0); }
  void operator()(const std::string& s) { string(s); }
  void string(std::string_view s) {
    bool added = false;
    const std::uint64_t id = ids.find_or_add(s, table.size(), added);
    if (added) table.push_back(s);
    (*this)(id);
  }
  // `end` as its distance from `begin` (usually small).
  void end(const std::uint32_t& end, std::uint32_t begin) { signed_delta(end, begin); }
  void line(const int& line) { signed_delta(line, std::exchange(last_line_, line)); }
  void begin(const std::uint32_t& begin) { signed_delta(begin, std::exchange(last_begin_, begin)); }
  template <class E>
    requires std::is_enum_v<E>
  void enumeration(const E& e, E /*last*/) {
    (*this)(static_cast<std::uint64_t>(e));
  }
  void where(const char* const& w) { string(w); }
  template <class T>
  void operator()(const std::vector<T>& v);
  void operator()(const std::optional<std::vector<std::string>>& v) {
    (*this)(v.has_value());
    if (v) (*this)(*v);
  }

 private:
  void signed_delta(std::int64_t value, std::int64_t base) {
    const std::int64_t d = value - base;
    (*this)(static_cast<std::uint64_t>((d << 1) ^ (d >> 63)));
  }
  std::int64_t last_line_ = 0, last_begin_ = 0;
};

class Decoder {
 public:
  // Reads the string table; the fields follow.
  explicit Decoder(std::string_view in) : in_(in) {
    std::uint64_t n = 0;
    (*this)(n);
    if (!ok_ || n > in_.size() - pos_) {
      fail();
      return;
    }
    table_.resize(n);
    for (auto& s : table_) {
      std::uint64_t len = 0;
      (*this)(len);
      if (!ok_ || len > in_.size() - pos_) {
        fail();
        return;
      }
      s = in_.substr(pos_, len);
      pos_ += len;
    }
  }
  bool ok() const { return ok_; }
  bool at_end() const { return pos_ == in_.size(); }
  // A field decoded well but meaning nothing (an index out of range): the entry is corrupt.
  void reject() { fail(); }

  void operator()(std::uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= in_.size()) return fail();
      const auto byte = static_cast<unsigned char>(in_[pos_++]);
      v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return;
    }
    fail();
  }
  void operator()(std::uint32_t& v) {
    std::uint64_t x = 0;
    (*this)(x);
    if (x > UINT32_MAX) return fail();
    v = static_cast<std::uint32_t>(x);
  }
  void operator()(std::uint8_t& v) {
    std::uint64_t x = 0;
    (*this)(x);
    if (x > UINT8_MAX) return fail();
    v = static_cast<std::uint8_t>(x);
  }
  void operator()(int& v) {
    std::uint64_t x = 0;
    (*this)(x);
    const auto s = static_cast<std::int64_t>((x >> 1) ^ (~(x & 1) + 1));
    if (s < INT32_MIN || s > INT32_MAX) return fail();
    v = static_cast<int>(s);
  }
  void operator()(bool& v) {
    if (pos_ >= in_.size() || static_cast<unsigned char>(in_[pos_]) > 1) return fail();
    v = in_[pos_++] == 1;
  }
  void operator()(std::string& s) { s = string(); }
  std::string_view string() {
    std::uint64_t i = 0;
    (*this)(i);
    if (!ok_ || i >= table_.size()) {
      fail();
      return {};
    }
    return table_[i];
  }
  void end(std::uint32_t& end, std::uint32_t begin) { end = static_cast<std::uint32_t>(signed_delta(begin, UINT32_MAX)); }
  void line(int& line) { last_line_ = line = static_cast<int>(signed_delta(last_line_, INT32_MAX)); }
  void begin(std::uint32_t& begin) {
    last_begin_ = begin = static_cast<std::uint32_t>(signed_delta(last_begin_, UINT32_MAX));
  }
  template <class E>
    requires std::is_enum_v<E>
  void enumeration(E& e, E last) {
    std::uint64_t x = 0;
    (*this)(x);
    if (x > static_cast<std::uint64_t>(last)) return fail();
    e = static_cast<E>(x);
  }
  void where(const char*& w) {
    const std::string_view s = string();
    for (const char* known : known_use_wheres()) {
      if (s == known) {
        w = known;
        return;
      }
    }
    fail();
  }
  template <class T>
  void operator()(std::vector<T>& v);
  void operator()(std::optional<std::vector<std::string>>& v) {
    bool has = false;
    (*this)(has);
    if (!has) return v.reset();
    v.emplace();
    (*this)(*v);
  }

 private:
  void fail() { ok_ = false; pos_ = in_.size(); }
  // base + the next zigzag varint, checked against [0, max] (0 when it fails).
  std::int64_t signed_delta(std::int64_t base, std::int64_t max) {
    std::uint64_t x = 0;
    (*this)(x);
    const std::int64_t v = base + static_cast<std::int64_t>((x >> 1) ^ (~(x & 1) + 1));
    if (!ok_ || v < 0 || v > max) {
      fail();
      return 0;
    }
    return v;
  }

  std::string_view in_;
  std::size_t pos_ = 0;
  bool ok_ = true;
  std::vector<std::string_view> table_;
  std::int64_t last_line_ = 0, last_begin_ = 0;
};

// The field lists. `S` is the struct, const when encoding. A field added to a
// struct in facts.hpp must be added here (the field counts below fail until it is).
template <class IO, class S>
void fields(IO& io, S& a)
  requires std::is_same_v<std::remove_const_t<S>, ImportAlias>
{
  io(a.name);
  io(a.asname);
}

template <class IO, class S>
void fields(IO& io, S& s)
  requires std::is_same_v<std::remove_const_t<S>, ImportStatement>
{
  io(s.is_from);
  io(s.module);
  io(s.level);
  io(s.names);
  io(s.star);
  io.enumeration(s.context, ImportContext::MainGuard);
  io(s.at_import_time);
  io(s.guards_import_error);
  io(s.scope);
  io.line(s.line);
  io.begin(s.stmt_begin);
  io.end(s.stmt_end, s.stmt_begin);
  io.begin(s.span_begin);
  io.end(s.span_end, s.span_begin);
  io(s.shares_line);
  io(s.text);
  io(s.is_lazy);
  io(s.has_lazy_keyword);
}

template <class IO, class S>
void fields(IO& io, S& u)
  requires std::is_same_v<std::remove_const_t<S>, NameUse>
{
  io(u.dotted);
  io.enumeration(u.kind, UseKind::Annotation);
  io(u.eager);
  io(u.in_string);
  io.where(u.where);
  io(u.function);
  io(u.scope_class);
  io.line(u.line);
  io.begin(u.begin);
  io.end(u.end, u.begin);
  io(u.annotation_begin);
  io.end(u.annotation_end, u.annotation_begin);
}

template <class IO, class S>
void fields(IO& io, S& d)
  requires std::is_same_v<std::remove_const_t<S>, Definition>
{
  io(d.name);
  io.enumeration(d.kind, Definition::Kind::Import);
  io.line(d.line);
  io.begin(d.begin);
  io.end(d.end, d.begin);
  io(d.end_line);
}

template <class IO, class S>
void fields(IO& io, S& a)
  requires std::is_same_v<std::remove_const_t<S>, CallArgument>
{
  io(a.function);
  io(a.event);
  io(a.position);
  io(a.keyword);
  io(a.value);
}

template <class IO, class S>
void fields(IO& io, S& d)
  requires std::is_same_v<std::remove_const_t<S>, DynamicImport>
{
  io.line(d.line);
  io(d.call);
  io(d.argument);
  io(d.at_import_time);
}

template <class IO, class S>
void fields(IO& io, S& p)
  requires std::is_same_v<std::remove_const_t<S>, SyntaxProblem>
{
  io.line(p.line);
  io(p.column);
  io(p.message);
}

template <class IO, class S>
void fields(IO& io, S& e)
  requires std::is_same_v<std::remove_const_t<S>, Event>
{
  io.enumeration(e.kind, Event::Kind::Protocol);
  io(e.import);
  io(e.name);
  io.line(e.line);
  io(e.guarded);
  io(e.conditional);
  io(e.local);
  io(e.on_result);
  io(e.annotation);
  io(e.try_end);
  io(e.catches);
  io(e.guard);
}

template <class IO, class S>
void fields(IO& io, S& c)
  requires std::is_same_v<std::remove_const_t<S>, ClassInfo>
{
  io(c.qualified_name);
  io(c.bases);
  io(c.bases_complete);
  io.line(c.line);
  io(c.metaclass);
  io(c.decorators);
}

template <class IO, class S>
void fields(IO& io, S& a)
  requires std::is_same_v<std::remove_const_t<S>, Alias>
{
  io(a.name);
  io(a.target);
  io.line(a.line);
}

template <class IO, class S>
void fields(IO& io, S& f)
  requires std::is_same_v<std::remove_const_t<S>, FunctionInfo>
{
  io(f.qualified_name);
  io(f.class_name);
  io(f.is_async);
  io.line(f.line);
  io.begin(f.begin);
  io.end(f.end, f.begin);
  io.begin(f.body_begin);
  io(f.docstring_end);
  io.line(f.body_line);
  io(f.locals);
  io(f.globals);
  io(f.import_only);
  io(f.events);
  io(f.param_locals);
  if constexpr (!std::is_const_v<S>) {  // decoding: an index past the locals is a corrupt entry
    for (std::uint32_t l : f.param_locals)
      if (l >= f.locals.size()) return io.reject();
  }
  io(f.decorators);
  io(f.returns);
  io(f.reads_annotations);
}

template <class IO, class S>
void fields(IO& io, S& p)
  requires std::is_same_v<std::remove_const_t<S>, StoredParameter>
{
  io(p.function);
  io(p.attribute);
  io(p.parameter);
}

template <class IO, class S>
void fields(IO& io, S& b)
  requires std::is_same_v<std::remove_const_t<S>, TypeCheckingBlock>
{
  io.line(b.line);
  io(b.test);
  io.begin(b.begin);
  io.begin(b.body_begin);
  io.end(b.body_end, b.body_begin);
}

template <class IO, class S>
void fields(IO& io, S& m)
  requires std::is_same_v<std::remove_const_t<S>, ModuleFacts>
{
  io(m.imports);
  io(m.uses);
  io(m.definitions);
  io(m.functions);
  io(m.classes);
  io(m.type_checking_blocks);
  io(m.events);
  io(m.dunder_all);
  io(m.lazy_modules);
  io(m.future_annotations);
  io(m.dynamic_imports);
  io(m.call_arguments);
  io(m.stored_parameters);
  io(m.syntax_problems);
  io(m.lines);
  io(m.aliases);
  io(m.guards);
}

template <class T>
void Encoder::operator()(const std::vector<T>& v) {
  (*this)(static_cast<std::uint64_t>(v.size()));
  for (const T& x : v) {
    if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, std::uint32_t>) {
      (*this)(x);
    } else {
      fields(*this, x);
    }
  }
}

template <class T>
void Decoder::operator()(std::vector<T>& v) {
  std::uint64_t n = 0;
  (*this)(n);
  // Every element takes at least one byte: a count past the end is corrupt.
  if (!ok_ || n > in_.size() - pos_) return fail();
  v.resize(n);
  for (T& x : v) {
    if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, std::uint32_t>) {
      (*this)(x);
    } else {
      fields(*this, x);
    }
    if (!ok_) return;
  }
}

// Every struct's field count, as aggregate initialisation sees it: a field
// added in facts.hpp fails here until fields() above encodes it (then bump
// kCacheEntryVersion and the count).
struct AnyField {
  template <class T>
  operator T&() const;
};
template <class T, class... Fields>
constexpr std::size_t field_count() {
  if constexpr (requires { T{Fields{}..., AnyField{}}; }) {
    return field_count<T, Fields..., AnyField>();
  } else {
    return sizeof...(Fields);
  }
}
static_assert(field_count<ImportAlias>() == 2, "ImportAlias changed: update fields() in facts_cache.cpp");
static_assert(field_count<ImportStatement>() == 18, "ImportStatement changed: update fields() in facts_cache.cpp");
static_assert(field_count<NameUse>() == 12, "NameUse changed: update fields() in facts_cache.cpp");
static_assert(field_count<Definition>() == 6, "Definition changed: update fields() in facts_cache.cpp");
static_assert(field_count<DynamicImport>() == 4, "DynamicImport changed: update fields() in facts_cache.cpp");
static_assert(field_count<SyntaxProblem>() == 3, "SyntaxProblem changed: update fields() in facts_cache.cpp");
static_assert(field_count<Event>() == 12, "Event changed: update fields() in facts_cache.cpp");
static_assert(field_count<Alias>() == 3, "Alias changed: update fields() in facts_cache.cpp");
static_assert(field_count<ClassInfo>() == 6, "ClassInfo changed: update fields() in facts_cache.cpp");
static_assert(field_count<FunctionInfo>() == 17, "FunctionInfo changed: update fields() in facts_cache.cpp");
static_assert(field_count<TypeCheckingBlock>() == 5, "TypeCheckingBlock changed: update fields() in facts_cache.cpp");
static_assert(field_count<CallArgument>() == 5, "CallArgument changed: update fields() in facts_cache.cpp");
static_assert(field_count<StoredParameter>() == 3, "StoredParameter changed: update fields() in facts_cache.cpp");
static_assert(field_count<ModuleFacts>() == 17, "ModuleFacts changed: update fields() in facts_cache.cpp");

// ---- entries -------------------------------------------------------------------
// Header (little-endian u64/u32 as the host stores them: the build stamp keeps
// other machines' entries apart anyway), payload, then a checksum of both.

constexpr char kMagic[8] = {'C', 'Y', 'F', 'X', 'F', 'C', 'T', '\n'};

struct EntryHeader {
  char magic[8];
  std::uint32_t entry_version;
  std::uint32_t facts_version;
  std::uint64_t build;
  std::uint64_t content_lo, content_hi;
  std::uint64_t source_size;
  std::uint64_t payload_size;
};
static_assert(sizeof(EntryHeader) == 56);
constexpr std::size_t kChecksumSize = 8;

std::uint64_t checksum(std::string_view bytes) { return hash_bytes(bytes, 0x9e3779b97f4a7c15ull).lo; }

std::string hex64(std::uint64_t v) {
  static const char digits[] = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) s[i] = digits[v & 15];
  return s;
}

bool read_all(int fd, std::string& out) {
  struct stat st;
  if (::fstat(fd, &st) != 0 || st.st_size < 0 || st.st_size > (1ll << 30)) return false;
  out.resize(static_cast<std::size_t>(st.st_size));
  std::size_t got = 0;
  while (got < out.size()) {
    const ssize_t r = ::read(fd, out.data() + got, out.size() - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<std::size_t>(r);
  }
  out.resize(got);
  return true;
}

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t w = ::write(fd, data.data(), data.size());
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(w));
  }
  return true;
}

std::string stamp_directory_name(std::uint64_t stamp) {
  return "facts-v" + std::to_string(kCacheEntryVersion) + "." + std::to_string(kFactsFormatVersion) + "-" +
         hex64(stamp);
}

// Other builds' directories are removed when unused for 30 days, or when
// more than three others were used since (each rebuild during development
// starts a new one). A run of a removed build just misses and stops storing.
constexpr auto kStaleBuildAge = std::chrono::hours(24 * 30);
constexpr std::size_t kOtherBuildsKept = 3;

void prune_stale_builds(const std::filesystem::path& root, const std::filesystem::path& keep) {
  std::error_code ec;
  const auto now = std::filesystem::file_time_type::clock::now();
  std::vector<std::pair<std::filesystem::file_time_type, std::filesystem::path>> others;
  for (std::filesystem::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const auto& p = it->path();
    if (p == keep || p.filename().string().rfind("facts-v", 0) != 0) continue;
    std::error_code tec;
    const auto t = std::filesystem::last_write_time(p, tec);
    if (!tec) others.emplace_back(t, p);
  }
  std::sort(others.begin(), others.end(), std::greater<>());  // most recently used first
  for (std::size_t i = 0; i < others.size(); ++i) {
    if (i >= kOtherBuildsKept || now - others[i].first > kStaleBuildAge)
      std::filesystem::remove_all(others[i].second, ec);
  }
}

}  // namespace

std::string ContentHash::hex() const { return hex64(hi) + hex64(lo); }

ContentHash hash_bytes(std::string_view bytes, std::uint64_t seed) {
  constexpr std::uint64_t c1 = 0x87c37b91114253d5ull, c2 = 0x4cf5ad432745937full;
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::size_t len = bytes.size();
  std::uint64_t h1 = seed, h2 = seed;
  const std::size_t blocks = len / 16;
  for (std::size_t i = 0; i < blocks; ++i, p += 16) {
    std::uint64_t k1 = load64(p), k2 = load64(p + 8);
    k1 *= c1, k1 = rotl(k1, 31), k1 *= c2, h1 ^= k1;
    h1 = rotl(h1, 27), h1 += h2, h1 = h1 * 5 + 0x52dce729;
    k2 *= c2, k2 = rotl(k2, 33), k2 *= c1, h2 ^= k2;
    h2 = rotl(h2, 31), h2 += h1, h2 = h2 * 5 + 0x38495ab5;
  }
  std::uint64_t k1 = 0, k2 = 0;
  const std::size_t tail = len & 15;
  for (std::size_t i = tail; i > 8; --i) k2 = (k2 << 8) | p[i - 1];
  for (std::size_t i = std::min<std::size_t>(tail, 8); i > 0; --i) k1 = (k1 << 8) | p[i - 1];
  if (tail > 8) k2 *= c2, k2 = rotl(k2, 33), k2 *= c1, h2 ^= k2;
  if (tail > 0) k1 *= c1, k1 = rotl(k1, 31), k1 *= c2, h1 ^= k1;
  h1 ^= len, h2 ^= len;
  h1 += h2, h2 += h1;
  h1 = fmix(h1), h2 = fmix(h2);
  h1 += h2, h2 += h1;
  return {h1, h2};
}

std::uint64_t build_stamp() {
  static const std::uint64_t stamp = [] {
    // The GNU build id of the main program: the first object dl_iterate_phdr visits.
    std::string id;
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* data) -> int {
          auto* out = static_cast<std::string*>(data);
          for (int i = 0; i < info->dlpi_phnum && out->empty(); ++i) {
            const auto& ph = info->dlpi_phdr[i];
            if (ph.p_type != PT_NOTE) continue;
            const auto* p = reinterpret_cast<const unsigned char*>(info->dlpi_addr + ph.p_vaddr);
            const auto* end = p + ph.p_memsz;
            while (p + sizeof(ElfW(Nhdr)) <= end) {
              ElfW(Nhdr) nh;
              std::memcpy(&nh, p, sizeof nh);
              const auto* name = p + sizeof nh;
              const auto* desc = name + ((nh.n_namesz + 3) & ~3u);
              if (desc + nh.n_descsz > end) break;
              if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
                out->assign(reinterpret_cast<const char*>(desc), nh.n_descsz);
                break;
              }
              p = desc + ((nh.n_descsz + 3) & ~3u);
            }
          }
          return 1;  // the main program only
        },
        &id);
    if (id.empty()) {
      std::ifstream exe("/proc/self/exe", std::ios::binary);
      id.assign(std::istreambuf_iterator<char>(exe), {});
    }
    if (id.empty()) id = CYCLEFIX_VERSION;
    return hash_bytes(id).lo;
  }();
  return stamp;
}

std::string serialise_facts(const ModuleFacts& facts) {
  Encoder body;
  body.out.reserve(256 + facts.imports.size() * 32 + facts.uses.size() * 16 + facts.functions.size() * 32);
  fields(body, facts);
  Encoder head;
  head(static_cast<std::uint64_t>(body.table.size()));
  for (std::string_view s : body.table) {
    head(static_cast<std::uint64_t>(s.size()));
    head.out += s;
  }
  head.out.reserve(head.out.size() + body.out.size());
  head.out += body.out;
  return std::move(head.out);
}

std::optional<ModuleFacts> deserialise_facts(std::string_view bytes) {
  Decoder d(bytes);
  ModuleFacts facts;
  fields(d, facts);
  if (!d.ok() || !d.at_end()) return std::nullopt;
  return facts;
}

const std::vector<const char*>& known_use_wheres() {
  // Every `where` facts_collector.cpp assigns (test_facts_cache checks the list
  // against that file). An entry naming another one is a miss.
  static const std::vector<const char*> wheres = {
      "",           "module level",  "annotation", "TYPE_CHECKING block", "default value", "function body",
      "class keyword", "base class", "class body", "lambda body",         "decorator",     "comprehension",
      "__main__ block",
  };
  return wheres;
}

std::filesystem::path default_cache_dir(const std::vector<std::filesystem::path>& /*paths*/) {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/') {
    return std::filesystem::path(xdg) / "cyclefix";
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    return std::filesystem::path(home) / ".cache" / "cyclefix";
  }
  return {};
}

FactsCache::FactsCache(const std::filesystem::path& dir, std::uint64_t stamp) : stamp_(stamp) {
  if (dir.empty()) {
    problem_ = "no cache directory (set HOME or XDG_CACHE_HOME, or pass --cache-dir)";
    return;
  }
  dir_ = dir / stamp_directory_name(stamp);
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec || !std::filesystem::is_directory(dir_)) {
    problem_ = "cannot create " + dir_.string() + ": " + (ec ? ec.message() : "not a directory");
    return;
  }
  if (::access(dir_.c_str(), W_OK | X_OK) != 0) {
    problem_ = "cannot write " + dir_.string() + ": " + std::generic_category().message(errno);
    return;
  }
  // Marks the cache for backup tools (bford.info/cachedir); also a readable hint.
  const auto tag = dir / "CACHEDIR.TAG";
  if (!std::filesystem::exists(tag, ec)) {
    std::ofstream(tag) << "Signature: 8a477f597d28d172789f06886806bc55\n"
                          "# cyclefix's cache of per-file facts; safe to delete.\n";
  }
  // The build directory's time says when a run last used it.
  ::utimensat(AT_FDCWD, dir_.c_str(), nullptr, 0);
  prune_stale_builds(dir, dir_);
}

std::filesystem::path FactsCache::entry_path(const ContentHash& key) const {
  const std::string h = key.hex();
  return dir_ / h.substr(0, 2) / h.substr(2);
}

namespace {

// Header, payload, checksum of both: the framing of facts entries and run records.
std::string frame(const ContentHash& key, std::uint64_t source_size, std::string_view payload, std::uint64_t stamp,
                  std::uint32_t entry_version, std::uint32_t facts_version) {
  EntryHeader h;
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.entry_version = entry_version;
  h.facts_version = facts_version;
  h.build = stamp;
  h.content_lo = key.lo;
  h.content_hi = key.hi;
  h.source_size = source_size;
  h.payload_size = payload.size();
  std::string bytes;
  bytes.reserve(sizeof h + payload.size() + kChecksumSize);
  bytes.append(reinterpret_cast<const char*>(&h), sizeof h);
  bytes += payload;
  const std::uint64_t sum = checksum(bytes);
  bytes.append(reinterpret_cast<const char*>(&sum), kChecksumSize);
  return bytes;
}

// The payload of a framed entry, when every field and the checksum match.
std::optional<std::string_view> unframe(std::string_view bytes, const ContentHash& key, std::uint64_t source_size,
                                        std::uint64_t stamp, std::uint32_t facts_version) {
  if (bytes.size() < sizeof(EntryHeader) + kChecksumSize) return std::nullopt;
  EntryHeader h;
  std::memcpy(&h, bytes.data(), sizeof h);
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0 || h.entry_version != kCacheEntryVersion ||
      h.facts_version != facts_version || h.build != stamp || h.content_lo != key.lo || h.content_hi != key.hi ||
      h.source_size != source_size || h.payload_size != bytes.size() - sizeof h - kChecksumSize) {
    return std::nullopt;
  }
  const std::string_view body = bytes.substr(0, bytes.size() - kChecksumSize);
  std::uint64_t sum;
  std::memcpy(&sum, bytes.data() + body.size(), kChecksumSize);
  if (sum != checksum(body)) return std::nullopt;
  return body.substr(sizeof h);
}

// The whole file, or nothing when it cannot be opened or read.
std::optional<std::string> read_entry(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string bytes;
  const bool read = read_all(fd, bytes);
  ::close(fd);
  if (!read) return std::nullopt;
  return bytes;
}

// A temp file's name in `dir`: ".tmp.PID.N", `counter` keeping one process's
// names apart (and the pid telling a later run whether its writer is gone).
std::filesystem::path temp_path(const std::filesystem::path& dir, std::atomic<std::size_t>& counter) {
  return dir / (".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++));
}

// A private temp file renamed over the entry: readers see the old entry, no
// entry, or the whole new one, never a part. False when nothing was written.
bool write_entry(const std::filesystem::path& path, std::string_view bytes, std::atomic<std::size_t>& counter) {
  const std::filesystem::path tmp = temp_path(path.parent_path(), counter);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0 && errno == ENOENT) {
    ::mkdir(path.parent_path().c_str(), 0755);  // the shard; EEXIST when another run made it
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  }
  if (fd < 0) return false;
  const bool written = write_all(fd, bytes);
  if (::close(fd) != 0 || !written || ::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return false;
  }
  return true;
}

// Run records are few and can be large (a whole diff): the oldest go beyond this many.
constexpr std::size_t kRunRecordsKept = 16;

void prune_run_records(const std::filesystem::path& dir) {
  std::error_code ec;
  std::vector<std::pair<std::filesystem::file_time_type, std::filesystem::path>> records;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename().string().rfind(".tmp.", 0) == 0) continue;
    std::error_code tec;
    const auto t = std::filesystem::last_write_time(it->path(), tec);
    if (!tec) records.emplace_back(t, it->path());
  }
  if (records.size() <= kRunRecordsKept) return;
  std::sort(records.begin(), records.end(), std::greater<>());  // newest first
  for (std::size_t i = kRunRecordsKept; i < records.size(); ++i) std::filesystem::remove(records[i].second, ec);
}

}  // namespace

std::string encode_entry(const ContentHash& key, std::uint64_t source_size, const ModuleFacts& facts,
                         std::uint64_t stamp, std::uint32_t entry_version, std::uint32_t facts_version) {
  return frame(key, source_size, serialise_facts(facts), stamp, entry_version, facts_version);
}

std::optional<ModuleFacts> decode_entry(std::string_view bytes, const ContentHash& key, std::uint64_t source_size,
                                        std::uint64_t stamp) {
  const std::optional<std::string_view> payload = unframe(bytes, key, source_size, stamp, kFactsFormatVersion);
  if (!payload) return std::nullopt;
  return deserialise_facts(*payload);
}

namespace {

// ---- packs -----------------------------------------------------------------------
// Entries (framed as loose ones), then count index rows {lo, hi, offset, size}
// sorted by key, then the trailer.

constexpr char kPackMagic[8] = {'C', 'Y', 'F', 'X', 'P', 'A', 'K', '\n'};

struct PackTrailer {
  char magic[8];
  std::uint64_t count;
  std::uint64_t index_offset;
  std::uint64_t index_sum;  // checksum of the index rows
};
static_assert(sizeof(PackTrailer) == 32);
static_assert(sizeof(PackIndexRow) == 32, "a pack index row is stored as it is");

bool pread_all(int fd, char* into, std::size_t size, std::uint64_t offset) {
  std::size_t got = 0;
  while (got < size) {
    const ssize_t r = ::pread(fd, into + got, size - got, static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    got += static_cast<std::size_t>(r);
  }
  return true;
}

// The packs in `dir`, oldest first (by time, then name): a later one wins.
std::vector<std::filesystem::path> list_packs(const std::filesystem::path& dir) {
  std::error_code ec;
  std::vector<std::pair<std::filesystem::file_time_type, std::filesystem::path>> found;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() != ".pack") continue;
    std::error_code tec;
    const auto t = std::filesystem::last_write_time(it->path(), tec);
    if (!tec) found.emplace_back(t, it->path());
  }
  std::sort(found.begin(), found.end());
  std::vector<std::filesystem::path> out;
  for (auto& f : found) out.push_back(std::move(f.second));
  return out;
}

// A pack's index rows, or nothing when its trailer or index does not check.
// The size of an entry is checked when it is read (decode_entry).
std::optional<std::vector<PackIndexRow>> read_pack_index(int fd) {
  struct stat st;
  if (::fstat(fd, &st) != 0 || st.st_size < static_cast<off_t>(sizeof(PackTrailer))) return std::nullopt;
  const std::uint64_t size = static_cast<std::uint64_t>(st.st_size);
  PackTrailer t;
  if (!pread_all(fd, reinterpret_cast<char*>(&t), sizeof t, size - sizeof t)) return std::nullopt;
  if (std::memcmp(t.magic, kPackMagic, sizeof kPackMagic) != 0 || t.index_offset > size ||
      t.count > (size - t.index_offset) / sizeof(PackIndexRow) ||
      t.index_offset + t.count * sizeof(PackIndexRow) + sizeof t != size)
    return std::nullopt;
  std::vector<PackIndexRow> rows(t.count);
  const std::size_t index_size = t.count * sizeof(PackIndexRow);
  if (t.count && !pread_all(fd, reinterpret_cast<char*>(rows.data()), index_size, t.index_offset))
    return std::nullopt;
  if (checksum(std::string_view(reinterpret_cast<const char*>(rows.data()), index_size)) != t.index_sum)
    return std::nullopt;
  for (const PackIndexRow& r : rows)
    if (r.offset > t.index_offset || r.size > t.index_offset - r.offset) return std::nullopt;
  return rows;
}

// The index and trailer that end a pack whose entries are `rows`.
std::string pack_tail(std::vector<PackIndexRow> rows, std::uint64_t index_offset) {
  std::sort(rows.begin(), rows.end(),
            [](const PackIndexRow& x, const PackIndexRow& y) { return std::tie(x.hi, x.lo) < std::tie(y.hi, y.lo); });
  std::string out(reinterpret_cast<const char*>(rows.data()), rows.size() * sizeof(PackIndexRow));
  PackTrailer t;
  std::memcpy(t.magic, kPackMagic, sizeof kPackMagic);
  t.count = rows.size();
  t.index_offset = index_offset;
  t.index_sum = checksum(out);
  out.append(reinterpret_cast<const char*>(&t), sizeof t);
  return out;
}

// A name no other run picks: the time, the pid and a counter.
std::filesystem::path new_pack_path(const std::filesystem::path& dir, std::atomic<std::size_t>& counter) {
  const auto t = std::chrono::system_clock::now().time_since_epoch();
  return dir / (hex64(static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(t).count())) +
                "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".pack");
}

// Temp files of runs whose process is gone (killed before their pack was renamed).
void remove_dead_temps(const std::filesystem::path& dir) {
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(".tmp.", 0) != 0) continue;
    const long pid = std::strtol(name.c_str() + 5, nullptr, 10);
    if (pid <= 0 || pid == ::getpid() || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    std::error_code ignored;
    std::filesystem::remove(it->path(), ignored);
  }
}

}  // namespace

FactsCache::~FactsCache() {
  flush();
  for (int fd : packs_) ::close(fd);
}

void FactsCache::read_packs() {
  std::call_once(packs_once_, [&] {
    std::error_code ec;
    for (std::filesystem::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().filename().string().size() == 2 && it->is_directory()) has_loose_ = true;
    const std::filesystem::path dir = pack_directory();
    remove_dead_temps(dir);
    for (const auto& path : list_packs(dir)) {
      const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;  // merged away by another run meanwhile
      if (auto rows = read_pack_index(fd)) {
        add_pack(fd, *rows);
      } else {
        ::close(fd);
        std::error_code ignored;
        std::filesystem::remove(path, ignored);  // renamed whole, so damaged for good
      }
    }
  });
}

void FactsCache::add_pack(int fd, const std::vector<PackIndexRow>& rows) {
  const int index = static_cast<int>(packs_.size());
  packs_.push_back(fd);
  for (const PackIndexRow& r : rows) where_[ContentHash{r.lo, r.hi}] = Located{index, r.offset, r.size};
}

std::optional<std::string> FactsCache::read_packed(const Located& at) {
  if (at.size > (1ull << 30)) return std::nullopt;
  std::string bytes(static_cast<std::size_t>(at.size), '\0');
  if (at.pack < 0) {  // this run's pack: what is still pending goes to the file first
    std::lock_guard<std::mutex> lock(pack_mu_);
    if (!write_pending() || !pread_all(pack_fd_, bytes.data(), bytes.size(), at.offset)) return std::nullopt;
    return bytes;
  }
  if (!pread_all(packs_[static_cast<std::size_t>(at.pack)], bytes.data(), bytes.size(), at.offset))
    return std::nullopt;
  return bytes;
}

bool FactsCache::write_pending() {
  if (pack_failed_ || pack_fd_ < 0) return false;
  if (!write_all(pack_fd_, pending_)) {
    pack_failed_ = true;
    return false;
  }
  pack_size_ += pending_.size();
  pending_.clear();
  return true;
}

std::optional<ModuleFacts> FactsCache::load(const ContentHash& key, std::uint64_t source_size) {
  if (!enabled()) return std::nullopt;
  read_packs();
  std::optional<Located> at;
  {
    std::lock_guard<std::mutex> lock(pack_mu_);
    if (auto it = pending_where_.find(key); it != pending_where_.end()) at = it->second;
  }
  if (!at)
    if (auto it = where_.find(key); it != where_.end()) at = it->second;
  std::optional<std::string> bytes;
  if (at) bytes = read_packed(*at);
  else if (has_loose_) bytes = read_entry(entry_path(key));
  if (!bytes) {
    if (at) rejected_++;
    misses_++;
    return std::nullopt;
  }
  std::optional<ModuleFacts> facts = decode_entry(*bytes, key, source_size, stamp_);
  if (!facts) {
    rejected_++;
    misses_++;
    return std::nullopt;
  }
  hits_++;
  return facts;
}

void FactsCache::store(const ContentHash& key, std::uint64_t source_size, const ModuleFacts& facts) {
  if (!enabled()) return;
  read_packs();
  std::string bytes = encode_entry(key, source_size, facts, stamp_);
  std::lock_guard<std::mutex> lock(pack_mu_);
  if (pack_failed_) return;
  if (pack_fd_ < 0) {
    const std::filesystem::path dir = pack_directory();
    ::mkdir(dir.c_str(), 0755);  // EEXIST when another run made it
    pack_tmp_ = temp_path(dir, tmp_counter_);
    pack_fd_ = ::open(pack_tmp_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (pack_fd_ < 0) {
      pack_failed_ = true;
      return;
    }
  }
  pending_where_[key] = Located{-1, pack_size_ + pending_.size(), bytes.size()};
  pending_ += bytes;
  stored_++;
  // Written in large pieces: one write per MiB, not one per entry.
  if (pending_.size() >= (1u << 20)) write_pending();
}

void FactsCache::flush() {
  std::lock_guard<std::mutex> lock(pack_mu_);
  if (pack_fd_ < 0) return;
  std::vector<PackIndexRow> rows;  // each key's last copy
  rows.reserve(pending_where_.size());
  for (const auto& [key, at] : pending_where_) rows.push_back({key.lo, key.hi, at.offset, at.size});
  bool ok = write_pending();
  ok = ok && write_all(pack_fd_, pack_tail(rows, pack_size_));
  ok = ::close(pack_fd_) == 0 && ok;
  std::filesystem::path final_path = new_pack_path(pack_directory(), tmp_counter_);
  ok = ok && ::rename(pack_tmp_.c_str(), final_path.c_str()) == 0;
  if (!ok) ::unlink(pack_tmp_.c_str());
  pack_fd_ = -1;
  pack_failed_ = false;
  pack_size_ = 0;
  pending_.clear();
  pending_where_.clear();
  if (!ok) return;
  // What this run stored stays readable through this cache.
  if (const int fd = ::open(final_path.c_str(), O_RDONLY | O_CLOEXEC); fd >= 0) add_pack(fd, rows);
  merge_packs();
}

// All packs into one when there are more than kMaxPacks: each key's newest
// copy, the bytes as they are (checked when read). Another run may merge at
// the same time; each removes only the packs it copied, and duplicates are
// harmless.
void FactsCache::merge_packs() {
  const std::filesystem::path dir = pack_directory();
  const std::vector<std::filesystem::path> packs = list_packs(dir);
  if (packs.size() <= kMaxPacks) return;
  std::unordered_map<ContentHash, std::pair<std::size_t, PackIndexRow>, KeyHash> newest;
  std::vector<int> fds;
  std::vector<std::filesystem::path> merged;
  for (const auto& path : packs) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    auto rows = read_pack_index(fd);
    if (!rows) {
      ::close(fd);
      continue;
    }
    for (const PackIndexRow& r : *rows) newest[ContentHash{r.lo, r.hi}] = {fds.size(), r};
    fds.push_back(fd);
    merged.push_back(path);
  }
  const std::filesystem::path tmp = temp_path(dir, tmp_counter_);
  const int out = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  bool ok = out >= 0;
  std::vector<PackIndexRow> rows;
  std::uint64_t offset = 0;
  std::string buf, entry;
  for (const auto& [key, from] : newest) {
    if (!ok) break;
    entry.resize(static_cast<std::size_t>(from.second.size));
    if (!pread_all(fds[from.first], entry.data(), entry.size(), from.second.offset)) continue;
    rows.push_back({key.lo, key.hi, offset + buf.size(), entry.size()});
    buf += entry;
    if (buf.size() >= (1u << 20)) {
      ok = write_all(out, buf);
      offset += buf.size();
      buf.clear();
    }
  }
  ok = ok && write_all(out, buf);
  offset += buf.size();
  ok = ok && write_all(out, pack_tail(rows, offset));
  if (out >= 0) ok = ::close(out) == 0 && ok;
  for (int fd : fds) ::close(fd);
  if (ok && ::rename(tmp.c_str(), new_pack_path(dir, tmp_counter_).c_str()) == 0) {
    std::error_code ignored;
    for (const auto& path : merged) std::filesystem::remove(path, ignored);
  } else {
    ::unlink(tmp.c_str());
  }
}

std::filesystem::path FactsCache::record_path(const ContentHash& key) const { return dir_ / "runs" / key.hex(); }

std::optional<std::string> FactsCache::load_record(const ContentHash& key) {
  if (!enabled()) return std::nullopt;
  const std::optional<std::string> bytes = read_entry(record_path(key));
  if (!bytes) return std::nullopt;
  const std::optional<std::string_view> payload = unframe(*bytes, key, 0, stamp_, kRunRecordVersion);
  if (!payload) return std::nullopt;
  return std::string(*payload);
}

void FactsCache::store_record(const ContentHash& key, std::string_view payload) {
  if (!enabled()) return;
  if (write_entry(record_path(key), frame(key, 0, payload, stamp_, kCacheEntryVersion, kRunRecordVersion),
                  tmp_counter_))
    prune_run_records(record_path(key).parent_path());
}

FactsCacheStats FactsCache::stats() const {
  return {hits_.load(), misses_.load(), rejected_.load(), stored_.load()};
}

}  // namespace cyclefix
