// One table of names per enum: the strings that stand for its values in job files, on the
// command line and in result files and journals. Each enum specialises EnumNames<E> once, next
// to its definition; to_string and from_string<E> are the only conversions, and from_string's
// error lists the valid names. Pure functions, safe from any thread.
#pragma once
#include <array>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nq::core {

// Specialise with
//   static constexpr std::string_view what = "symmetry";        // for error messages
//   static constexpr std::array table{std::pair{E::a, std::string_view("a")}, ...};
template <class E>
struct EnumNames;

template <class E>
concept NamedEnum = requires {
  EnumNames<E>::what;
  EnumNames<E>::table;
};

template <NamedEnum E>
constexpr std::string_view name_of(E v) {
  for (const auto& [e, s] : EnumNames<E>::table)
    if (e == v) return s;
  return "invalid";
}

template <NamedEnum E>
std::string to_string(E v) {
  return std::string(name_of(v));
}

template <NamedEnum E>
constexpr std::optional<E> find_name(std::string_view s) {
  for (const auto& [e, name] : EnumNames<E>::table)
    if (name == s) return e;
  return std::nullopt;
}

// The valid names in table order, e.g. for a command-line check.
template <NamedEnum E>
std::vector<std::string> names_of() {
  std::vector<std::string> v;
  for (const auto& entry : EnumNames<E>::table) v.emplace_back(entry.second);
  return v;
}

// "none, mirror, full"
template <NamedEnum E>
std::string name_list() {
  std::string list;
  for (const auto& entry : EnumNames<E>::table) list += (list.empty() ? "" : ", ") + std::string(entry.second);
  return list;
}

// Throws std::invalid_argument: "unknown symmetry 'rotation' (valid: none, mirror, full)".
template <NamedEnum E>
E from_string(std::string_view s) {
  if (const auto e = find_name<E>(s)) return *e;
  throw std::invalid_argument("unknown " + std::string(EnumNames<E>::what) + " '" + std::string(s) +
                              "' (valid: " + name_list<E>() + ")");
}

}  // namespace nq::core
