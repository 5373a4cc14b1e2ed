// Shared by the MPI tests: the process's MPI session (set up by mpi_gtest_main.cpp).
#pragma once
#include "cluster/runtime.h"

namespace nq::test {
const cluster::MpiSession& mpi();
}  // namespace nq::test
