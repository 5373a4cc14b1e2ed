// The commit the binary was built from, for `nqueens --version` and every result file's
// git_commit: `git rev-parse --short=12 HEAD` of the source tree at build time, "-dirty" appended
// when tracked files differed from it, "unknown" outside a git checkout. Defined in a source that
// stamp_git_commit.cmake writes on every build (library nq_buildinfo, linked by the app only).
#pragma once

namespace nq {
extern const char* const kGitCommit;
}  // namespace nq
