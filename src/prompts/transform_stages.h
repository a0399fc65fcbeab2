// Transform stages: what the fast path (transform/llm_transform) tells its writer model in each
// stage of turning a host-driven file into a device-initiated one, as in the CUCo paper:
//   A "infrastructure"  add symmetric memory, windows and the device communicator; the host
//                       collectives stay;
//   B "replace"         replace the host collectives with device-initiated communication from
//                       cuco/codesign, sequentially (correctness first);
//   C "annotate"        (a file without EVOLVE blocks) add EVOLVE-BLOCK marker lines, nothing else;
// and how an answer to a stage must be written. For a CPU workload (cuco's own tests) A and B ask
// for a generic change. Pure text; the stages' checks live in transform/.
#pragma once

#include <string>
#include <vector>

namespace cuco {

struct StageInstructions {
  std::string task;                // what the writer must do, one paragraph
  std::vector<std::string> rules;  // listed in the prompt under the task
};

// `where` says where the host communication calls are: "inside the EVOLVE blocks" or "in the file".
// `harness`: the workload runs under cuco's harness (ctx.create_dev_comm, alloc_peers, ...);
// otherwise it is a whole program (ncclMemAlloc, ncclCommWindowRegister, ncclDevCommCreate).
StageInstructions InfrastructureStageInstructions(bool cuda, bool harness, const std::string& where);
StageInstructions ReplaceStageInstructions(bool cuda, const std::string& where);
StageInstructions AnnotateStageInstructions();

// The answer format of a stage: an annotating stage (C) takes the whole file in one fence; the
// others take SEARCH/REPLACE edits or the whole file. `blocks`: the file has EVOLVE blocks, so
// only their insides may change; otherwise no marker line may be added. `lang` names the fence.
std::string StageAnswerFormatText(bool annotate, bool blocks, const std::string& lang);

}  // namespace cuco
