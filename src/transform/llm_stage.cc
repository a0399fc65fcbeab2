#include "transform/llm_stage.h"

#include <utility>

#include "prompts/transform_stages.h"
#include "transform/host_calls.h"
#include "workload/evolve_blocks.h"

namespace cuco {
namespace {

std::string JoinNames(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + names[i];
  return s;
}

LlmStage Stage(const std::string& id, const std::string& name, StageInstructions text) {
  LlmStage s;
  s.id = id;
  s.name = name;
  s.task = std::move(text.task);
  s.rules = std::move(text.rules);
  return s;
}

// Stage A's and B's NCCL checks and skips: the host communication calls `where` (inside the
// EVOLVE blocks when `blocks`, else in the file) and the device-side set-up calls.
void AddNcclChecks(bool blocks, const std::string& where, LlmStage& a, LlmStage& b) {
  const std::vector<std::string>& host = HostCommunicationApis();
  const std::vector<std::string>& setup = DeviceSetupApis();
  a.skip = [blocks, host](const std::string& in) -> std::string {
    if (FindCalls(in, host, blocks).empty()) return "no host communication call to prepare for";
    // Symmetric buffers alone may serve host collectives; the device communicator is what
    // device-initiated code needs.
    auto dev_comm = FindCalls(in, {"ncclDevCommCreate", "create_dev_comm"});
    if (!dev_comm.empty()) return "the code creates a device communicator already (" + CallListText(dev_comm, 3) + ")";
    return "";
  };
  a.check = [blocks, host, setup, where](const std::string& in, const std::string& out) -> Status {
    for (const std::string& api : host) {
      auto before = FindCalls(in, {api}, blocks);
      if (!before.empty() && FindCalls(out, {api}, blocks).empty())
        return Status::InvalidArgument("stage A must keep the host communication, but " + api + " (line " +
                                       std::to_string(before[0].line) + " of the input) is no longer called " +
                                       where + "; stage B replaces it");
    }
    if (FindCalls(out, setup).size() <= FindCalls(in, setup).size())
      return Status::InvalidArgument("no device-side set-up was added: expected a call of one of " +
                                     JoinNames(setup));
    return Status::Ok();
  };
  b.skip = [blocks, host](const std::string& in) -> std::string {
    return FindCalls(in, host, blocks).empty() ? "no host communication call left" : "";
  };
  b.check = [blocks, host, where](const std::string&, const std::string& out) -> Status {
    auto left = FindCalls(out, host, blocks);
    if (left.empty()) return Status::Ok();
    return Status::InvalidArgument("host communication calls remain " + where + ": " + CallListText(left) +
                                   "; stage B must replace every one with device-initiated communication");
  };
}

}  // namespace

std::vector<LlmStage> DefaultLlmStages(const WorkloadConfig& workload, const std::string& code) {
  const bool cuda = workload.language != "cpu";
  const bool harness = workload.mode == "harness";
  const bool blocks = HasEvolveBlocks(code);
  const std::string where = blocks ? "inside the EVOLVE blocks" : "in the file";
  std::vector<LlmStage> stages;
  LlmStage a = Stage("A", "infrastructure", InfrastructureStageInstructions(cuda, harness, where));
  LlmStage b = Stage("B", "replace", ReplaceStageInstructions(cuda, where));
  if (cuda) AddNcclChecks(blocks, where, a, b);
  stages.push_back(std::move(a));
  stages.push_back(std::move(b));
  if (!blocks) {
    LlmStage c = Stage("C", "annotate", AnnotateStageInstructions());
    c.annotate = true;
    c.evaluate = false;
    stages.push_back(std::move(c));
  }
  return stages;
}

}  // namespace cuco
