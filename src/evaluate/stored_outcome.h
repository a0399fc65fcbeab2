// An evaluation's outcome as the candidate store keeps it: the one place that copies an EvalRecord
// into a store record for `cuco eval`, `cuco bench` and generation 0's attempts (the search adds
// its own fields, search/search_records.cc). A template over the record type, so that evaluate/
// needs nothing of store/ (the same layer): used with store/candidate_store.h's CandidateRecord.
#pragma once

#include "evaluate/outcome.h"
#include "util/clock.h"

namespace cuco {

// Sets code_hash, status, time_ms (the median), metrics_json (the whole record), logs (each stage's
// tail) and finished_ms (now) of `cr` from `r`; its other fields are the caller's.
template <typename StoreRecord>
void FillOutcome(const EvalRecord& r, StoreRecord* cr) {
  cr->code_hash = r.code_hash;
  cr->status = EvalStatusName(r.status);
  cr->time_ms = r.timing.median_ms;
  cr->metrics_json = r.ToJson().dump();
  cr->logs = CollectLogs(r);
  cr->finished_ms = NowMs();
}

}  // namespace cuco
