// Exact totals past 2^64: Q(29) ~ 2.7e19 and the unique counts of N >= 30 do not fit in 64 bits,
// so sums over units (and Burnside's identity) use 128-bit unsigned integers. Per-unit counts
// stay core::Count (64-bit). Header and total.cpp: pure functions, thread-safe.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace nq::core {

// g++ and clang provide unsigned __int128 on 64-bit targets; `__extension__` keeps -Wpedantic
// quiet about the GNU type. Other compilers are refused here rather than getting a silent
// 64-bit total.
#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 Total;
#else
#error "nqueens needs unsigned __int128 (g++ or clang on a 64-bit target) for totals past 2^64"
#endif

constexpr std::uint64_t high_half(Total v) { return static_cast<std::uint64_t>(v >> 64); }
constexpr std::uint64_t low_half(Total v) { return static_cast<std::uint64_t>(v); }
constexpr Total from_halves(std::uint64_t hi, std::uint64_t lo) { return Total{hi} << 64 | lo; }
constexpr bool fits_u64(Total v) { return high_half(v) == 0; }

// Decimal digits, no sign or separators: "27359264067916806101" (Q(29)).
std::string to_decimal(Total v);
// The value of a string of 1..39 decimal digits below 2^128; nullopt for anything else.
std::optional<Total> parse_decimal(std::string_view s);

// acc += m * x; false (acc unchanged) if the result would not fit in 128 bits.
inline bool add_product(Total& acc, std::uint64_t m, std::uint64_t x) {
  const Total product = Total{m} * x;   // < 2^128: both factors are below 2^64
  Total sum = 0;
  if (__builtin_add_overflow(acc, product, &sum)) return false;
  acc = sum;
  return true;
}

}  // namespace nq::core
