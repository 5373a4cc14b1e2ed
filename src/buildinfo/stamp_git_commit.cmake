# Writes OUTPUT, the C++ source that defines nq::kGitCommit (buildinfo/git_commit.h) for the
# tree at SOURCE_DIR. Run on every build by the target nq_git_stamp:
#   cmake -DSOURCE_DIR=<tree> -DOUTPUT=<file.cpp> [-DGIT_EXECUTABLE=<git>] -P stamp_git_commit.cmake
# The value is `git rev-parse --short=12 HEAD`, plus "-dirty" when
# `git status --porcelain --untracked-files=no` lists anything, or "unknown" when SOURCE_DIR is not
# the top of a git work tree (an unpacked tarball, even one inside another repository) or there
# is no git. OUTPUT is rewritten only when its content changes: a build after no commit and no
# edit recompiles and relinks nothing.
if(NOT SOURCE_DIR OR NOT OUTPUT)
  message(FATAL_ERROR
    "usage: cmake -DSOURCE_DIR=<tree> -DOUTPUT=<file.cpp> [-DGIT_EXECUTABLE=<git>] -P ${CMAKE_CURRENT_LIST_FILE}")
endif()
if(NOT GIT_EXECUTABLE)
  find_program(GIT_EXECUTABLE git)
endif()
# Ask about SOURCE_DIR's own repository whatever the caller's environment says (git hooks set these).
unset(ENV{GIT_DIR})
unset(ENV{GIT_WORK_TREE})
unset(ENV{GIT_INDEX_FILE})

set(commit "unknown")
if(GIT_EXECUTABLE)
  execute_process(COMMAND "${GIT_EXECUTABLE}" rev-parse --show-toplevel
    WORKING_DIRECTORY "${SOURCE_DIR}" OUTPUT_VARIABLE top RESULT_VARIABLE rc
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(rc EQUAL 0)
    file(REAL_PATH "${SOURCE_DIR}" source_real)
    file(REAL_PATH "${top}" top_real)
  endif()
  if(rc EQUAL 0 AND top_real STREQUAL source_real)
    execute_process(COMMAND "${GIT_EXECUTABLE}" rev-parse --short=12 HEAD
      WORKING_DIRECTORY "${SOURCE_DIR}" OUTPUT_VARIABLE head RESULT_VARIABLE rc
      OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(rc EQUAL 0 AND head)   # no HEAD before the first commit: "unknown"
      # --no-optional-locks: no index refresh, so a build never holds .git/index.lock.
      execute_process(COMMAND "${GIT_EXECUTABLE}" --no-optional-locks status --porcelain --untracked-files=no
        WORKING_DIRECTORY "${SOURCE_DIR}" OUTPUT_VARIABLE changes RESULT_VARIABLE rc
        OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      set(commit "${head}")
      if(NOT rc EQUAL 0 OR changes)   # a tree git cannot vouch for is not clean
        string(APPEND commit "-dirty")
      endif()
    endif()
  endif()
endif()

# file(CONFIGURE) leaves OUTPUT (and its timestamp) alone when the content is unchanged.
file(CONFIGURE OUTPUT "${OUTPUT}" @ONLY CONTENT [[
// Generated on every build by src/buildinfo/stamp_git_commit.cmake: do not edit.
#include "buildinfo/git_commit.h"

namespace nq {
const char* const kGitCommit = "@commit@";
}  // namespace nq
]])
