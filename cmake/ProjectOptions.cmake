# Options and the INTERFACE targets that carry flags (no global flags).
option(NQUEENS_WERROR "Treat warnings as errors" OFF)
option(NQUEENS_SANITIZE "Build with AddressSanitizer + UndefinedBehaviorSanitizer" OFF)
option(NQUEENS_NATIVE "Tune the kernel for the build machine (-march=native)" ON)
option(NQUEENS_BUILD_TESTS "Build the tests" ON)
option(NQUEENS_BUILD_BENCH "Build the benchmarks" ON)

set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)
if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE Release CACHE STRING "Build type" FORCE)
endif()

# Every project target links nq_options: warnings, sanitizers, tuning.
add_library(nq_options INTERFACE)
target_compile_options(nq_options INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
  -Wno-sign-conversion)
if(NQUEENS_WERROR)
  target_compile_options(nq_options INTERFACE -Werror)
endif()
if(NQUEENS_SANITIZE)
  target_compile_options(nq_options INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer
    -fno-sanitize-recover=undefined)
  target_link_options(nq_options INTERFACE -fsanitize=address,undefined)
endif()
if(NQUEENS_NATIVE)
  target_compile_options(nq_options INTERFACE -march=native)
endif()
