#include "app/job_config.h"
#include <toml++/toml.h>
#include <filesystem>
#include <map>
#include <sstream>
#include "app/exit_codes.h"
#include "core/types.h"

namespace nq::app {
namespace {

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw Failure(kUsage, where + ": " + what);
}

template <class T>
T get(const toml::node& node, const std::string& where, const std::string& key, const char* type) {
  const auto v = node.value_exact<T>();
  if (!v) bad(where, "key '" + key + "' must be " + type);
  return *v;
}

int get_int(const toml::node& node, const std::string& where, const std::string& key, long long lo,
            long long hi) {
  const auto v = get<std::int64_t>(node, where, key, "an integer");
  if (v < lo || v > hi)
    bad(where, "key '" + key + "' = " + std::to_string(v) + " is outside " + std::to_string(lo) +
                   ".." + std::to_string(hi));
  return static_cast<int>(v);
}

std::string get_choice(const toml::node& node, const std::string& where, const std::string& key,
                       std::initializer_list<const char*> choices) {
  const auto v = get<std::string>(node, where, key, "a string");
  std::string list;
  for (const char* c : choices) {
    if (v == c) return v;
    list += (list.empty() ? "" : ", ") + std::string(c);
  }
  bad(where, "key '" + key + "' = \"" + v + "\" is not one of " + list);
}

// A number of seconds in (0, hi]; the one rule for the *_interval keys and flags.
bool valid_interval(double v, double hi) { return v > 0 && v <= hi; }
constexpr double kMaxProgressInterval = 86400, kMaxCheckpointInterval = 3600;

double get_interval(const toml::node& node, const std::string& where, const std::string& key, double hi) {
  const auto v = node.value<double>();
  if (!v || !valid_interval(*v, hi))
    bad(where, "key '" + key + "' must be a number of seconds in (0, " + std::to_string(static_cast<int>(hi)) + "]");
  return *v;
}

void check_interval(double v, const char* flag, double hi) {
  if (!valid_interval(v, hi))
    throw Failure(kUsage, std::string(flag) + " must be a number of seconds in (0, " + std::to_string(static_cast<int>(hi)) + "]");
}

// The audit share: the one rule for the key and the flag.
bool valid_audit(double v) { return v >= 0 && v <= 1; }
constexpr const char* kAuditRule = "must be a number from 0 to 1 (the share of units computed twice)";

}  // namespace

std::pair<int, int> parse_shard(const std::string& s) {
  int i = -1, n = 0;
  char slash = 0, extra = 0;
  std::istringstream in(s);
  if (!(in >> i >> slash >> n) || slash != '/' || (in >> extra) || n < 1 || i < 0 || i >= n)
    throw Failure(kUsage, "--shard '" + s + "' must be i/n with 0 <= i < n (e.g. 0/4)");
  return {i, n};
}

JobConfig read_job_file(const std::string& path) {
  const std::string where = "job file " + path;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) bad(where, "not found or not a regular file");
  toml::table t;
  try {
    t = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    std::ostringstream msg;
    msg << "line " << e.source().begin.line << ": " << e.description();
    bad(where, msg.str());
  }
  JobConfig c;
  bool have_n = false;
  for (const auto& [k, node] : t) {
    const std::string key(k.str());
    if (key == "n") {
      c.n = get_int(node, where, key, 1, core::kMaxN);
      have_n = true;
    } else if (key == "mode") c.mode = get_choice(node, where, key, {"count", "boards"});
    else if (key == "out") c.out = get<std::string>(node, where, key, "a string (a file path)");
    else if (key == "depth") c.depth = get_int(node, where, key, 0, core::kMaxN);
    else if (key == "threads") c.threads = get_int(node, where, key, 0, 4096);
    else if (key == "boards") c.boards = get_choice(node, where, key, {"all", "class"});
    else if (key == "symmetry") c.symmetry = get_choice(node, where, key, {"none", "mirror", "full"});
    else if (key == "progress_interval") c.progress_interval = get_interval(node, where, key, kMaxProgressInterval);
    else if (key == "checkpoint_interval") c.checkpoint_interval = get_interval(node, where, key, kMaxCheckpointInterval);
    else if (key == "audit") {
      const auto v = node.value<double>();
      if (!v || !valid_audit(*v)) bad(where, std::string("key 'audit' ") + kAuditRule);
      c.audit = *v;
    } else if (key == "shard") std::tie(c.shard_index, c.shard_count) = parse_shard(get<std::string>(node, where, key, "a string like \"0/4\""));
    else if (key == "time_limit") c.time_limit = get<std::string>(node, where, key, "a string like \"02:00:00\"");
    else if (key == "description") get<std::string>(node, where, key, "a string");
    else bad(where, "unknown key '" + key + "' (known: n, mode, out, depth, threads, boards, symmetry, progress_interval, checkpoint_interval, audit, shard, time_limit, description)");
  }
  if (!have_n) bad(where, "key 'n' (the board size) is missing");
  return c;
}

void finalize_config(JobConfig& c) {
  if (c.n < 1 || c.n > core::kMaxN)
    throw Failure(kUsage, "N is missing or outside 1.." + std::to_string(core::kMaxN) +
                              " (give --n or a job file with n = ...)");
  if (c.depth > c.n)
    throw Failure(kUsage, "depth " + std::to_string(c.depth) + " exceeds N = " + std::to_string(c.n));
  if (c.mode != "count" && c.mode != "boards")
    throw Failure(kUsage, "mode '" + c.mode + "' is not count or boards");
  if (c.mode == "boards" && c.n > 20)
    throw Failure(kUsage, "boards mode stores every solution; N = " + std::to_string(c.n) +
                              " would need petabytes (use count mode, or N <= 20)");
  check_interval(c.progress_interval, "--progress-interval", kMaxProgressInterval);
  check_interval(c.checkpoint_interval, "--checkpoint-interval", kMaxCheckpointInterval);
  if (!valid_audit(c.audit)) throw Failure(kUsage, std::string("--audit ") + kAuditRule);
  if (c.out.empty())
    c.out = "results/nqueens-n" + std::to_string(c.n) + "-" + c.mode +
            (c.shard_count > 1 ? "-shard" + std::to_string(c.shard_index) + "of" + std::to_string(c.shard_count) : "") + ".h5";
  if (c.symmetry.empty()) c.symmetry = "full";
}

}  // namespace nq::app
