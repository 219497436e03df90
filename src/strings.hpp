// Small string helpers the report writers share.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cyclefix {

// The items with `sep` between each two.
inline std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

}  // namespace cyclefix
