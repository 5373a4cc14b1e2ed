// Fault injection for the `faults` test tier: NQUEENS_INJECT_FAULT=KIND:UNIT_ID makes the rank
// that computes UNIT_ID misbehave once per process. KIND is
//   garble     - the result's count changes after its checksum was taken (a bit flip on the way)
//   duplicate  - the result is sent twice in its batch
// Unset (the normal case), nothing happens. Called by ComputePool only.
#pragma once
#include "proto/messages.h"

namespace nq::dist {

void inject_batch_fault(proto::ResultBatch& batch);

}  // namespace nq::dist
