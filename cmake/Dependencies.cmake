# All third-party packages, from Debian (scripts/setup-deps.sh installs them).
find_package(Threads REQUIRED)
find_package(MPI REQUIRED COMPONENTS CXX)
# Serial HDF5 on purpose: only the master writes result files (see docs/contract.md).
set(HDF5_PREFER_PARALLEL OFF)
find_package(HDF5 REQUIRED COMPONENTS C)
find_package(ZLIB REQUIRED)   # the store compresses board chunks itself (zlib1g-dev comes with libhdf5-dev)
find_package(Boost 1.74 REQUIRED COMPONENTS serialization)
find_package(CLI11 CONFIG REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(TOMLPP REQUIRED IMPORTED_TARGET tomlplusplus)
if(NQUEENS_BUILD_TESTS)
  find_package(GTest REQUIRED)
  # The Python tiers need pytest, h5py, numpy and matplotlib (Debian's python3-* packages). Unless
  # Python3_EXECUTABLE is given, take the first python3 on PATH that imports them: a pyenv shim
  # without them may come before /usr/bin/python3.
  if(NOT Python3_EXECUTABLE)
    function(nq_python_has_test_modules result candidate)
      execute_process(COMMAND "${candidate}" -c "import pytest, h5py, numpy, matplotlib"
        RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
      if(NOT rc EQUAL 0)
        set(${result} FALSE PARENT_SCOPE)
      endif()
    endfunction()
    find_program(NQ_TEST_PYTHON NAMES python3 VALIDATOR nq_python_has_test_modules)
    if(NQ_TEST_PYTHON)
      set(Python3_EXECUTABLE "${NQ_TEST_PYTHON}" CACHE FILEPATH "Python for the test tiers")
    endif()
  endif()
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
endif()
