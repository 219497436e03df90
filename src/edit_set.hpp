// Byte edits to one file's text and the set that collects them (style.md 3).
// An edit is {offset, length, text}: replace `length` bytes at `offset` by
// `text` (length 0: insert). A set refuses an edit that overlaps one it holds,
// with an error saying which; it applies all of them in one sorted pass.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cyclefix {

struct Edit {
  std::uint32_t offset = 0;
  std::uint32_t length = 0;
  std::string text;
  std::uint32_t end() const { return offset + length; }
};

class EditSet {
 public:
  // Adds `e` unless it overlaps an edit already held: two replacements whose
  // ranges intersect, or an insertion strictly inside a replaced range. An edit
  // identical to one held is accepted once (two changes may ask for the same
  // thing, e.g. quoting one annotation). Insertions at the same offset keep the
  // order they were added in. Returns false and sets *error when refused.
  bool add(Edit e, std::string* error);
  // True when every edit of `edits` could be added (nothing is added).
  bool fits(const std::vector<Edit>& edits, std::string* error) const;
  // Adds all of `edits` or none.
  bool add_all(const std::vector<Edit>& edits, std::string* error);

  bool empty() const { return edits_.empty(); }
  std::size_t size() const { return edits_.size(); }
  const std::vector<Edit>& edits() const { return edits_; }  // sorted by offset, then order added

  // The text with every edit applied. Offsets must lie inside `source`. When
  // `changed` is given, it receives each edit's range in the result ([begin, end)).
  std::string apply(std::string_view source,
                    std::vector<std::pair<std::uint32_t, std::uint32_t>>* changed = nullptr) const;

 private:
  std::vector<Edit> edits_;
};

}  // namespace cyclefix
