// Fault injection for the `faults` test tier: NQUEENS_INJECT_FAULT=KIND:UNIT_ID[@RANK] makes the
// rank that computes UNIT_ID misbehave (only rank RANK when given). KIND is
//   garble       - the result's count changes after its checksum was taken (a bit flip on the
//                  way); once per process
//   duplicate    - the result is sent twice in its batch; once per process
//   wrong        - the count is off by one with a valid checksum (a lying worker: only the
//                  master's audit, or the final cross-checks, can notice); once per process
//   wrong-always - like wrong, every time this process computes the unit (a persistently
//                  faulty node)
//   undecodable  - the result message of the unit's batch is cut in half before it is framed,
//                  so its archive cannot be decoded; once per process
//   throw        - the compute thread throws when it starts the unit (a bug, a bad node)
//   master-throw - the master throws while it hands the unit's checked result to the app (a
//                  bug in the master's own code: an exception that escapes the job's loop)
//   hang         - the rank stops answering when it receives the unit (with @RANK: that unit
//                  or any later one, so the rank is sure to strike): its main thread sleeps for
//                  ever and sends nothing (a hung node, SIGSTOP, a dead link)
// Unset (the normal case), nothing happens. Called by ComputePool and the worker loop only.
#pragma once
#include <string>
#include <vector>
#include "proto/messages.h"

namespace nq::cluster {

void inject_batch_fault(proto::ResultBatch& batch);
// `encoded` is encode(batch), before framing.
void inject_message_fault(const proto::ResultBatch& batch, std::string& encoded);
// Before computing `unit` on `rank`: throws for `throw`.
void inject_unit_fault(std::uint64_t unit, int rank);
// The master is about to pass these checked units to its hooks: throws for `master-throw`.
void inject_master_fault(const std::vector<core::WorkUnit>& units);
// A work batch arrived at `rank`: never returns for `hang`.
void inject_work_fault(const proto::WorkBatch& batch, int rank);

}  // namespace nq::cluster
