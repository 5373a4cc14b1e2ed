# All third-party packages, from Debian (scripts/setup-deps.sh installs them).
find_package(Threads REQUIRED)
find_package(MPI REQUIRED COMPONENTS CXX)
# Serial HDF5 on purpose: only the master writes result files (see docs/contract.md).
set(HDF5_PREFER_PARALLEL OFF)
find_package(HDF5 REQUIRED COMPONENTS C)
find_package(Boost 1.74 REQUIRED COMPONENTS serialization)
find_package(CLI11 CONFIG REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(TOMLPP REQUIRED IMPORTED_TARGET tomlplusplus)
if(NQUEENS_BUILD_TESTS)
  find_package(GTest REQUIRED)
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
endif()
