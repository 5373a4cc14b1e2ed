#include "app/job_config.h"
#include <toml++/toml.h>
#include <algorithm>
#include <charconv>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>
#include <string_view>
#include <unistd.h>
#include "app/exit_codes.h"
#include "app/result_files.h"
#include "core/known_counts.h"
#include "core/types.h"

namespace nq::app {
namespace {

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw ExitError(kUsage, where + ": " + what);
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

template <core::NamedEnum E>
E get_choice(const toml::node& node, const std::string& where, const std::string& key) {
  const auto v = get<std::string>(node, where, key, "a string");
  if (const auto e = core::find_name<E>(v)) return *e;
  bad(where, "key '" + key + "' = \"" + v + "\" is not one of " + core::name_list<E>());
}

// A number of seconds in (0, hi]; the one rule for the *_interval keys and flags.
bool valid_interval(double v, double hi) { return v > 0 && v <= hi; }
std::string interval_rule(double hi) {
  return "must be a number of seconds in (0, " + std::to_string(static_cast<int>(hi)) + "]";
}
constexpr double kMaxProgressInterval = 86400, kMaxCheckpointInterval = 3600;

double get_interval(const toml::node& node, const std::string& where, const std::string& key, double hi) {
  const auto v = node.value<double>();
  if (!v || !valid_interval(*v, hi))
    bad(where, "key '" + key + "' " + interval_rule(hi));
  return *v;
}

void check_interval(double v, const char* flag, double hi) {
  if (!valid_interval(v, hi))
    throw ExitError(kUsage, std::string(flag) + " " + interval_rule(hi));
}

// The audit share: the one rule for the key and the flag.
bool valid_audit(double v) { return v >= 0 && v <= 1; }
constexpr const char* kAuditRule = "must be a number from 0 to 1 (the share of units computed twice)";

// --lock-wait (a flag only). NaN fails every comparison, so each rule here holds only for numbers.
bool valid_lock_wait(double v) { return v >= 0 && v <= kMaxLockWait; }

constexpr std::size_t kMaxStatusBytes = 200;   // longer than any line a run or a batch script writes there

// `run --status-file F` replaces F's contents at the end: F must be a regular file (or not exist
// yet), and none of the job's own files. It once truncated whatever it named: the result file, its
// journal, a log behind /dev/stderr; and a FIFO without a reader hung the finished run.
void check_status_file(const std::string& path, const JobConfig& c) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(path, ec);
  if (fs::exists(st) && !fs::is_regular_file(st))
    throw ExitError(kUsage, "--status-file " + path +
                                " is not a regular file (a symbolic link, a directory, a FIFO or a device): give a file path");
  // The same file however it is spelled (./x, an absolute path, through a linked directory),
  // existing yet or not; or a hard link of it.
  const auto same = [&](const std::string& other) {
    if (other.empty()) return false;
    std::error_code e1, e2, e3;
    if (fs::exists(path, e1) && fs::exists(other, e2) && fs::equivalent(path, other, e3)) return true;
    return fs::weakly_canonical(fs::absolute(path, e1), e1) == fs::weakly_canonical(fs::absolute(other, e2), e2);
  };
  for (const auto& [file, what] : {std::pair{c.out, "the result file"}, std::pair{c.out + ".journal", "its journal"},
                                   std::pair{c.job_file, "the job file"}})
    if (same(file))
      throw ExitError(kUsage, "--status-file " + path + " is " + what + " (" + file + "): give another path");
  // Any other file it would replace too: one that exists is taken only if it may be a status
  // file, one short line of text (this run's CODE UNITS, or what a batch script wrote there
  // before the launch). A typo naming another job's result file used to replace it, exit 0.
  if (fs::exists(st)) {
    std::ifstream in(path, std::ios::binary);
    std::string text(kMaxStatusBytes + 1, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (!text.empty() && text.back() == '\n') text.pop_back();
    const bool one_line = text.size() <= kMaxStatusBytes &&
                          std::all_of(text.begin(), text.end(), [](char ch) { return ch >= ' ' && ch <= '~'; });
    if (!one_line)
      throw ExitError(kUsage, "--status-file " + path +
                                  " exists and is not a status file (one short line: CODE UNITS), which the run would "
                                  "replace: give another path, or remove it");
  }
  // Its folder, now: the run used to end with a warning that it could not write it, exit 0.
  const fs::path folder = fs::absolute(path, ec).parent_path();
  if (!fs::is_directory(folder, ec))
    throw ExitError(kUsage, "--status-file " + path + ": the folder " + folder.string() +
                                " does not exist: create it, or give another path");
  if (::access(folder.c_str(), W_OK) != 0) {
    const int err = errno;
    if (!fs::exists(st) || ::access(path.c_str(), W_OK) != 0)
      throw ExitError(kUsage, "--status-file " + path + ": the folder " + folder.string() + " is not writable (" +
                                  std::strerror(err) + "): give another path");
  }
}

constexpr int kMaxBoardsN = 20;   // boards mode: N = 20 is ~0.13 TB of result file, N = 21 ~1.1 TB

// Bytes as "1.1 TB" or "830 GB" (decimal units).
std::string tera(double bytes) {
  std::ostringstream out;
  const char* units[] = {"GB", "TB", "PB", "EB", "ZB", "YB"};
  double v = bytes / 1e9;
  int u = 0;
  while (v >= 1000 && u < 5) v /= 1000, ++u;
  out << std::fixed << std::setprecision(v < 10 ? 1 : 0) << v << " " << units[u];
  return out.str();
}

// A time limit as sbatch --time reads it: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S, whole numbers, the
// fields after the first below 60 (hours below 24 after a day count), and more than 0 in all
// (0 is no limit at all to Slurm). slurm/submit, which turns the key into --time, holds the same
// rule (slurm_time); `run` judges it too, so that a job file is judged alike by both.
bool valid_time_limit(const std::string& t) {
  const std::size_t dash = t.find('-');
  const bool days = dash != std::string::npos;
  std::vector<std::uint64_t> fields;
  std::string_view rest = std::string_view(t).substr(days ? dash + 1 : 0);
  std::uint64_t total = 0;
  if (days) {
    std::uint64_t d = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + dash, d);
    if (dash == 0 || dash > 9 || ec != std::errc() || end != t.data() + dash) return false;
    total = d;
  }
  while (true) {
    const std::size_t colon = rest.find(':');
    const std::string_view f = rest.substr(0, colon);
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
    if (f.empty() || ec != std::errc() || end != f.data() + f.size() || f.size() > 9) return false;
    fields.push_back(v);
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  if (fields.size() > 3) return false;
  for (std::size_t i = 1; i < fields.size(); ++i)
    if (fields[i] >= 60) return false;
  if (days && fields[0] >= 24) return false;
  for (const std::uint64_t f : fields) total += f;
  return total > 0;
}

}  // namespace

core::Shard parse_shard(const std::string& s, const std::string& what) {
  try {
    return core::parse_shard(s);
  } catch (const std::invalid_argument& e) {
    throw ExitError(kUsage, what + ": " + e.what());
  }
}

JobConfig read_job_file(const std::string& path) {
  const std::string where = "job file " + path;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    const bool a_number = !path.empty() && std::all_of(path.begin(), path.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
    bad(where, a_number ? "not found or not a regular file (N is given as --n " + path + ")" : "not found or not a regular file");
  }
  toml::table t;
  try {
    t = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    std::ostringstream msg;
    msg << "line " << e.source().begin.line << ": " << e.description();
    bad(where, msg.str());
  }
  JobConfig c;
  c.job_file = path;
  core::JobParams& p = c.params;
  bool have_n = false;
  for (const auto& [k, node] : t) {
    const std::string key(k.str());
    c.file_keys.insert(key);
    if (key == "n") {
      p.n = get_int(node, where, key, 1, core::kMaxN);
      have_n = true;
    } else if (key == "mode") p.mode = get_choice<core::Mode>(node, where, key);
    else if (key == "out") {
      c.out = get<std::string>(node, where, key, "a string (a file path)");
      if (c.out.empty()) bad(where, "key 'out' is empty: give a file path, or leave the key out for the default");
    }
    // As the flags: 0 (the default's value inside) was taken, and did what leaving the key out does.
    else if (key == "depth") p.depth = get_int(node, where, key, 1, core::kMaxN);
    else if (key == "threads") c.threads = get_int(node, where, key, 1, kMaxThreads);
    else if (key == "boards") p.boards = get_choice<core::BoardSet>(node, where, key);
    else if (key == "symmetry") p.symmetry = get_choice<core::Symmetry>(node, where, key);
    else if (key == "progress_interval") c.progress_interval = get_interval(node, where, key, kMaxProgressInterval);
    else if (key == "checkpoint_interval") c.checkpoint_interval = get_interval(node, where, key, kMaxCheckpointInterval);
    else if (key == "audit") {
      const auto v = node.value<double>();
      if (!v || !valid_audit(*v)) bad(where, std::string("key 'audit' ") + kAuditRule);
      c.audit = *v;
    } else if (key == "shard") p.shard = parse_shard(get<std::string>(node, where, key, "a string like \"0/4\""), where + ": key 'shard'");
    else if (key == "time_limit") {
      c.time_limit = get<std::string>(node, where, key, "a string like \"02:00:00\"");
      if (!valid_time_limit(c.time_limit))
        bad(where, "key 'time_limit' must be a wall time for Slurm's --time: minutes (\"90\"), \"[D-]HH:MM:SS\" (\"02:00:00\", "
                   "\"1-12:00:00\") or their shorter forms, not 0 (which Slurm takes for no limit); got \"" +
                       c.time_limit + "\"");
    }
    else if (key == "description") get<std::string>(node, where, key, "a string");
    else bad(where, "unknown key '" + key + "' (known: n, mode, out, depth, threads, boards, symmetry, progress_interval, checkpoint_interval, audit, shard, time_limit, description)");
  }
  if (!have_n) bad(where, "key 'n' (the board size) is missing");
  return c;
}

void finalize_config(JobConfig& c) {
  core::JobParams& p = c.params;
  // Where a setting was given: "--depth 11", or "depth 11 (key 'depth' of job file j.toml)".
  const auto given = [&c](const std::string& key, const std::string& value) {
    if (!c.file_keys.count(key)) return "--" + key + " " + value;
    return key + " " + value + " (key '" + key + "' of job file " + c.job_file + ")";
  };
  if (p.n < 1 || p.n > core::kMaxN)
    throw ExitError(kUsage, "N is missing or outside 1.." + std::to_string(core::kMaxN) +
                                " (give --n or a job file with n = ...)");
  if (p.depth > p.n)
    throw ExitError(kUsage, given("depth", std::to_string(p.depth)) + " exceeds N = " + std::to_string(p.n) +
                                (c.file_keys.count("n") || c.job_file.empty() ? "" : " (--n)") +
                                ": give a depth of at most N, or none for the default");
  if (p.boards_mode() && p.n > kMaxBoardsN) {
    // The bytes a board and a completion take (docs/performance.md: 'all' files 3.2-3.4 bytes a
    // board at N = 16-19, the journal N bytes a completion, an eighth of the boards).
    const double boards = core::expected_total(p.n).value_or(0);
    std::ostringstream size;
    size << std::setprecision(2) << "N = " << p.n << " has about " << boards << " solutions: ~"
         << tera(boards * 3.4) << " of result file, and ~" << tera(boards / 8 * p.n) << " of journal beside it";
    throw ExitError(kUsage, "boards mode stores every solution, up to N = " + std::to_string(kMaxBoardsN) + "; " +
                                size.str() + " (use count mode)");
  }
  // `boards = class` of a count job was ignored without a word (a count file, no board stored).
  // A job file's boards job counted with --mode count is what was asked: its board set goes.
  if (!p.boards_mode() && p.boards == core::BoardSet::classes &&
      !(c.file_keys.count("boards") && c.flag_keys.count("mode")))
    throw ExitError(kUsage, given("boards", "class") + " is for boards mode, and this job counts (mode count): " +
                                "give --mode boards to store the boards, or leave the board set out");
  if (!p.boards_mode()) p.boards = core::BoardSet::all;
  check_interval(c.progress_interval, "--progress-interval", kMaxProgressInterval);
  check_interval(c.checkpoint_interval, "--checkpoint-interval", kMaxCheckpointInterval);
  if (!valid_audit(c.audit)) throw ExitError(kUsage, std::string("--audit ") + kAuditRule);
  if (!valid_lock_wait(c.lock_wait))
    throw ExitError(kUsage, "--lock-wait must be a number of seconds from 0 to " + std::to_string(static_cast<int>(kMaxLockWait)));
  if (c.out.empty())
    c.out = "results/nqueens-n" + std::to_string(p.n) + "-" + core::to_string(p.mode) +
            (p.shard.whole() ? "" : "-shard" + std::to_string(p.shard.index) + "of" + std::to_string(p.shard.count)) +
            ".h5";
  if (c.out.back() == '/')
    throw ExitError(kUsage, given("out", "'" + c.out + "'") + " ends with '/': give the result file's path (e.g. " +
                                c.out + "result.h5)");
  c.out = result_path(c.out);
  // A name that leaves no room for the longest name nqueens puts beside OUT,
  // OUT.journal.tmp-<pid> (store::Journal::create_file; a pid has at most 7 digits), failed
  // with exit 4 when the journal was created.
  constexpr std::size_t kLongestSuffix = sizeof(".journal.tmp-") - 1 + 7;
  const std::size_t name = std::filesystem::path(c.out).filename().string().size();
  if (name + kLongestSuffix > NAME_MAX)
    throw ExitError(kUsage, "the result file's name is " + std::to_string(name) + " bytes long; at most " +
                                std::to_string(NAME_MAX - kLongestSuffix) +
                                " fit (nqueens writes OUT.journal.tmp-<pid> beside it): give " +
                                (c.file_keys.count("out") ? "the job file's key 'out'" : std::string("--out")) +
                                " a shorter name");
  if (c.status_file) check_status_file(*c.status_file, c);
  if (c.force && c.skip_complete)
    throw ExitError(kUsage, "--force recomputes a complete result, --skip-complete keeps it: give one of them");
}

}  // namespace nq::app
