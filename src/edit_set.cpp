#include "edit_set.hpp"

#include <algorithm>
#include <stdexcept>

namespace cyclefix {

namespace {

std::string describe(const Edit& e) {
  return e.length ? "bytes " + std::to_string(e.offset) + ".." + std::to_string(e.end())
                  : "an insertion at byte " + std::to_string(e.offset);
}

// Whether a and b cannot both be applied.
bool overlaps(const Edit& a, const Edit& b) {
  if (a.length && b.length) return a.offset < b.end() && b.offset < a.end();
  if (a.length) return b.offset > a.offset && b.offset < a.end();
  if (b.length) return a.offset > b.offset && a.offset < b.end();
  return false;  // two insertions never conflict
}

bool same(const Edit& a, const Edit& b) { return a.offset == b.offset && a.length == b.length && a.text == b.text; }

}  // namespace

bool EditSet::fits(const std::vector<Edit>& edits, std::string* error) const {
  EditSet copy = *this;
  return copy.add_all(edits, error);
}

bool EditSet::add_all(const std::vector<Edit>& edits, std::string* error) {
  EditSet trial = *this;
  for (const Edit& e : edits)
    if (!trial.add(e, error)) return false;
  *this = std::move(trial);
  return true;
}

bool EditSet::add(Edit e, std::string* error) {
  // Edits held are sorted by offset; only neighbours around e.offset can overlap,
  // but replacements may be long, so check every edit starting before e's end.
  for (const Edit& held : edits_) {
    if (held.offset > e.end()) break;
    if (e.length && same(held, e)) return true;
    if (overlaps(held, e)) {
      if (error) *error = describe(e) + " overlaps " + describe(held);
      return false;
    }
  }
  // After every edit at a smaller offset, and after insertions at the same offset
  // (order added); a replacement at offset x goes after the insertions at x.
  auto pos = std::upper_bound(edits_.begin(), edits_.end(), e, [](const Edit& x, const Edit& y) {
    return x.offset < y.offset || (x.offset == y.offset && x.length == 0 && y.length != 0);
  });
  edits_.insert(pos, std::move(e));
  return true;
}

std::string EditSet::apply(std::string_view source,
                           std::vector<std::pair<std::uint32_t, std::uint32_t>>* changed) const {
  std::string out;
  out.reserve(source.size() + 256);
  std::uint32_t at = 0;
  for (const Edit& e : edits_) {
    if (e.end() > source.size() || e.offset < at)
      throw std::logic_error("EditSet::apply: edit at byte " + std::to_string(e.offset) + " outside the text or out of order");
    out.append(source.substr(at, e.offset - at));
    if (changed) changed->emplace_back(out.size(), out.size() + e.text.size());
    out += e.text;
    at = e.end();
  }
  out.append(source.substr(at));
  return out;
}

}  // namespace cyclefix
