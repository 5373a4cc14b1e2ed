// Fault injection for the `faults` test tier: NQUEENS_INJECT_FAULT=KIND:UNIT_ID[@RANK] makes the
// rank that computes UNIT_ID misbehave (only rank RANK when given). KIND is
//   garble       - the result's count changes after its checksum was taken (a bit flip on the
//                  way); once per process
//   duplicate    - the result is sent twice in its batch; once per process
//   wrong        - the count is off by one with a valid checksum (a lying worker: only the
//                  master's audit, or the final cross-checks, can notice); once per process
//   wrong-always - like wrong, every time this process computes the unit (a persistently
//                  faulty node)
// Unset (the normal case), nothing happens. Called by ComputePool only.
#pragma once
#include "proto/messages.h"

namespace nq::dist {

void inject_batch_fault(proto::ResultBatch& batch);

}  // namespace nq::dist
