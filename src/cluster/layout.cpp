#include "cluster/layout.h"
#include <algorithm>
#include <cmath>

namespace nq::cluster {

NodeLayout plan_node(const std::vector<RankCpus>& ranks, int node_cpus) {
  NodeLayout out;
  const std::size_t size = ranks.size();
  out.masks.resize(size);
  out.threads.assign(size, 0);
  CpuSet pool, workers_may_use;
  std::vector<std::size_t> workers;
  for (std::size_t i = 0; i < size; ++i) {
    pool |= ranks[i].mask;
    out.masks[i] = ranks[i].mask;
    // A master alone on its node is planned like a worker: its threads are used when the job
    // is that one process, and ignored otherwise.
    if (!ranks[i].master || size == 1) workers.push_back(i);
  }
  out.pool = static_cast<int>(pool.count());
  for (const std::size_t w : workers) workers_may_use |= ranks[w].mask;
  const CpuSet leftover = pool & ~workers_may_use;   // rule 2: the master's own CPUs
  // The master may run on the whole pool: it sleeps while the workers compute, and at the end,
  // when they are idle, it compresses the result file on every CPU of its node.
  for (std::size_t i = 0; i < size; ++i)
    if (ranks[i].master) out.masks[i] = pool;
  std::size_t next = 0;
  for (int c = 0; c < kMaxCpus; ++c)
    if (leftover[c]) out.masks[workers[next++ % workers.size()]].set(c);
  // Rule 3: each CPU is shared by the workers that may run on it.
  std::vector<int> sharers(kMaxCpus, 0);
  for (const std::size_t w : workers)
    for (int c = 0; c < kMaxCpus; ++c) sharers[c] += out.masks[w][c];
  for (const std::size_t w : workers) {
    double share = 0;
    for (int c = 0; c < kMaxCpus; ++c)
      if (out.masks[w][c]) share += 1.0 / sharers[c];
    out.threads[w] = std::max(1, static_cast<int>(std::lround(share)));
  }
  if (out.pool < node_cpus)
    out.warning = "the job's " + std::to_string(size) + " rank(s) here may use only " +
                  std::to_string(out.pool) + " of the node's " + std::to_string(node_cpus) +
                  " CPUs (their CPU affinity: a launcher's binding, as Open MPI binds each rank to a core for 2 "
                  "ranks and to a socket above that, or taskset, or a cpuset), so " +
                  std::to_string(node_cpus - out.pool) +
                  " stay idle. Where the job may use them, give each rank its CPUs: `mpirun --bind-to none ...`, "
                  "or `mpirun --map-by slot:PE=T ...` (T CPUs per rank), or under Slurm `srun --cpus-per-task=T`; "
                  "a process started with `taskset -c LIST` keeps to LIST";
  return out;
}

std::optional<std::string> oversubscription_warning(int ranks, int threads, int cpus) {
  const long long all = static_cast<long long>(ranks) * threads;
  if (ranks < 1 || cpus < 1 || all <= cpus) return std::nullopt;
  return std::to_string(all) + " compute threads (--threads " + std::to_string(threads) +
         (ranks > 1 ? " on each of " + std::to_string(ranks) + " computing ranks" : std::string()) + ") on the " +
         std::to_string(cpus) +
         " CPU(s) the job may use here: threads beyond the CPUs only take turns on them, which adds no speed, "
         "only overhead. " +
         (ranks > cpus ? "Start at most " + std::to_string(cpus) + " computing rank(s) here, with --threads 1"
                       : std::string("Leave --threads out: each rank then starts its share of the CPUs"));
}

}  // namespace nq::cluster
