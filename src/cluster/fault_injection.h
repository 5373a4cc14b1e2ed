// Fault injection for the `faults` test tier: NQUEENS_INJECT_FAULT=KIND:UNIT_ID[@RANK] makes the
// rank that computes UNIT_ID misbehave (only rank RANK when given); several faults are separated
// by commas (stop-after:40,stop-writing:0). KIND is
//   garble       - the result's count changes after its checksum was taken (a bit flip on the
//                  way); once per process
//   duplicate    - the result is sent twice in its batch; once per process
//   repeat-board - boards mode: the unit's last board is replaced by its first (every board
//                  valid, the count and the checksum consistent: a board stored twice unless
//                  the master's board check sees it); once per process
//   wrong        - the count is off by one with a valid checksum (a lying worker: only the
//                  master's audit, or the final cross-checks, can notice); once per process
//   wrong-always - like wrong, every time this process computes the unit (a persistently
//                  faulty node)
//   undecodable  - the result message of the unit's batch is cut in half before it is framed,
//                  so its archive cannot be decoded; once per process
//   throw        - the compute thread throws when it starts the unit (a bug, a bad node)
//   freeze       - the compute thread sleeps for ever when it starts the unit (a bug, a faulty
//                  core looping), while the rank's main thread goes on answering
//   master-throw - the master throws while it hands the unit's checked result to the app (a
//                  bug in the master's own code: an exception that escapes the job's loop)
//   hang         - the rank stops answering when it receives the unit (with @RANK: that unit
//                  or any later one, so the rank is sure to strike): its main thread sleeps for
//                  ever and sends nothing (a hung node, SIGSTOP, a dead link)
// The stop kinds give a test a known moment to strike at (kill -9, a signal, a full disk), on
// a fast or a slow machine alike: the master stops itself (SIGSTOP, once per process), the test
// waits until it is stopped, acts, and sends SIGCONT. UNIT_ID is then a count, not an id:
//   stop-after   - once its journal holds at least UNIT_ID units, synced to disk (a resumed run
//                  counts the units it found in the journal)
//   stop-writing - while it writes the result file: the temporary file exists and holds the
//                  unit table, the boards (if any) and the commit are still to come (UNIT_ID: 0)
//   stop-opening - before it opens (and locks) the journal: it has read OUT and counted the
//                  plan (UNIT_ID: 0)
// Unset (the normal case), nothing happens. Called by ComputePool, the worker loop and the
// master's journal and result-file writers only.
#pragma once
#include <functional>
#include <string>
#include <vector>
#include "proto/messages.h"

namespace nq::cluster {

// `n`: the board size (boards are n bytes).
void inject_batch_fault(proto::ResultBatch& batch, int n);
// `encoded` is encode(batch), before framing.
void inject_message_fault(const proto::ResultBatch& batch, std::string& encoded);
// Before computing `unit` on `rank`: throws for `throw`, never returns for `freeze`.
void inject_unit_fault(std::uint64_t unit, int rank);
// The master is about to pass these checked units to its hooks: throws for `master-throw`.
void inject_master_fault(const std::vector<core::WorkUnit>& units);
// A work batch arrived at `rank`: never returns for `hang`.
void inject_work_fault(const proto::WorkBatch& batch, int rank);
// The master's journal holds `journaled` units: for `stop-after`, calls sync() (so they are on
// disk) and stops the process, the first time journaled >= UNIT_ID.
void inject_journal_fault(std::uint64_t journaled, const std::function<void()>& sync);
// The master wrote the result file's unit table: stops the process for `stop-writing`.
void inject_write_fault();
// The master is about to open its journal: stops the process for `stop-opening`.
void inject_open_fault();

}  // namespace nq::cluster
