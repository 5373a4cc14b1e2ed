# Program version and git commit, baked into the binary and every result file.
execute_process(COMMAND git rev-parse --short=12 HEAD
  WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" OUTPUT_VARIABLE NQUEENS_GIT_COMMIT
  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
execute_process(COMMAND git status --porcelain --untracked-files=no
  WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" OUTPUT_VARIABLE _nq_dirty
  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT NQUEENS_GIT_COMMIT)
  set(NQUEENS_GIT_COMMIT "unknown")
elseif(_nq_dirty)
  string(APPEND NQUEENS_GIT_COMMIT "-dirty")
endif()
