// How the ranks on one node share its CPUs: which CPUs each worker rank runs on and how many
// compute threads it starts by default. No MPI and no system calls: runtime.cpp gathers each
// rank's affinity mask (sched_getaffinity) over the node and applies the result.
//
// Rules, in order:
//   1. The node's pool is the union of the masks of all its ranks, the master's included: the
//      launcher gave the job exactly those CPUs (Open MPI binds each rank to a core for 2 ranks
//      and to a socket above that; Slurm to the step's CPUs). CPUs outside the pool are never
//      used: on a shared node they may belong to another job.
//   2. The master needs a few % of a core (7 % at N = 19, docs/operations.md), so CPUs that
//      only the master may use go to the worker ranks, one at a time in rank order. With
//      `mpirun -n 2` (master bound to core 0, worker to core 1) the worker runs on both cores.
//      The master itself may run on the whole pool (it compresses the result file on all of
//      them at the end, when the workers are idle).
//   3. A worker's default thread count is its share of its CPUs: each CPU counts 1/k for the k
//      workers that may use it (unbound ranks share the whole pool; bound ranks own theirs).
//   4. When the pool is smaller than the node (its online CPUs, or the CPUs Slurm allocated to
//      the job on it), the others stay idle: warn once with the fix.
//   5. (oversubscription_warning) A --threads T given to `ranks` computing ranks of a node that
//      may use `cpus` CPUs there, with ranks x T > cpus: the threads take turns on the CPUs,
//      which only adds overhead: warn, naming the default.
#pragma once
#include <bitset>
#include <optional>
#include <string>
#include <vector>

namespace nq::cluster {

inline constexpr int kMaxCpus = 1024;   // CPU_SETSIZE on Linux
using CpuSet = std::bitset<kMaxCpus>;

struct RankCpus {
  CpuSet mask;           // the rank's affinity mask
  bool master = false;   // rank 0 of the job (it computes only when it is alone)
};

struct NodeLayout {
  std::vector<CpuSet> masks;   // per rank (same order as the input): the CPUs it should run on
  std::vector<int> threads;    // per rank: default compute threads (0 for a master that does not compute)
  int pool = 0;                // CPUs the job's ranks may use on this node
  std::optional<std::string> warning;   // rule 4, without the host name
};

// `ranks`: the node's ranks in rank order. `node_cpus`: the node's online CPUs, or the CPUs
// the batch system allocated to the job there (SLURM_CPUS_ON_NODE) when known.
NodeLayout plan_node(const std::vector<RankCpus>& ranks, int node_cpus);

// Rule 5, without the host name: `ranks` computing ranks each told to start `threads` threads
// (--threads), on a node where they may use `cpus` CPUs (their pool).
std::optional<std::string> oversubscription_warning(int ranks, int threads, int cpus);

}  // namespace nq::cluster
