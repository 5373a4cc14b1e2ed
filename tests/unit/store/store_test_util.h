// Helpers of the store tests: a fresh directory per test, file utilities, and running a piece
// of code in a forked child (resource limits, another user) that reports through its exit code.
#pragma once
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>
#include "core/job_params.h"

namespace nq::store::test {

namespace stdfs = std::filesystem;

// The parameters of a job of size n whose files hold `boards_stored` (none|all|class).
inline core::JobParams params_for(int n, const std::string& boards_stored) {
  core::JobParams p;
  p.n = n;
  p.depth = 1;   // a run's files have a depth (the reader refuses 0)
  p.mode = boards_stored == "none" ? core::Mode::count : core::Mode::boards;
  core::set_boards_stored(p, boards_stored);
  return p;
}

class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (stdfs::temp_directory_path() / "nq-store-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    stdfs::permissions(dir_, stdfs::perms::owner_all, stdfs::perm_options::add, ec);
    stdfs::remove_all(dir_, ec);
  }
  std::string file(const std::string& name) const { return (stdfs::path(dir_) / name).string(); }
  std::vector<std::string> listing() const {
    std::vector<std::string> names;
    for (const auto& e : stdfs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  std::string dir_;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
inline void spit(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// Runs `body` in a forked child and returns its exit status (the body's return value), or -1
// if it died. Before the body: an optional file-size limit (SIGXFSZ ignored so write() fails
// with EFBIG) and, when running as root, an optional switch to user `nobody` (65534).
struct ChildOptions {
  rlim_t file_size_limit = RLIM_INFINITY;
  bool unprivileged = false;
};
inline int run_in_child(const ChildOptions& o, const std::function<int()>& body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    int rc = 99;
    try {
      if (o.file_size_limit != RLIM_INFINITY) {
        ::signal(SIGXFSZ, SIG_IGN);
        rlimit r{o.file_size_limit, o.file_size_limit};
        if (::setrlimit(RLIMIT_FSIZE, &r) != 0) ::_exit(98);
      }
      if (o.unprivileged && ::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(97);
      rc = body();
    } catch (...) {
      rc = 96;
    }
    ::_exit(rc);
  }
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace nq::store::test
