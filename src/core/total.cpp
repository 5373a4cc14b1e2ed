#include "core/total.h"
#include <algorithm>

namespace nq::core {

std::string to_decimal(Total v) {
  std::string s;
  do {
    s.push_back(static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  } while (v != 0);
  std::reverse(s.begin(), s.end());
  return s;
}

std::optional<Total> parse_decimal(std::string_view s) {
  if (s.empty() || s.size() > 39) return std::nullopt;
  Total v = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    Total next = 0;
    if (__builtin_mul_overflow(v, Total{10}, &next) ||
        __builtin_add_overflow(next, Total(static_cast<unsigned>(c - '0')), &next))
      return std::nullopt;
    v = next;
  }
  return v;
}

}  // namespace nq::core
