#include "prompts/transform_stages.h"

#include "workload/evolve_blocks.h"

namespace cuco {

StageInstructions InfrastructureStageInstructions(bool cuda, bool harness, const std::string& where) {
  StageInstructions a;
  if (!cuda) {
    a.task =
        "Stage A of a CPU test workload (no NCCL here): make the preparatory change the instructions and feedback "
        "ask for, keeping the results correct.";
    a.rules = {"Keep the results within the workload's tolerance."};
    return a;
  }
  a.task =
      "Add the device-side communication infrastructure that the device-initiated version will need, while KEEPING "
      "every host NCCL communication call and the results unchanged. Allocate the buffers that are communicated in "
      "NCCL symmetric memory registered in windows and create the device communicator: " +
      std::string(harness ? "in harness mode use ctx.create_dev_comm(...) for the ncclDevComm and "
                            "cuco::codesign::alloc_peers(ctx, dev_comm, bytes, &buf) (or ctx.alloc_symmetric) for "
                            "the buffers, in cuco_candidate_setup, and release them in cuco_candidate_teardown"
                          : "ncclMemAlloc + ncclCommWindowRegister for the buffers and ncclDevCommCreate for the "
                            "device communicator, after the communicator exists, released before it is destroyed") +
      ". The host collectives now read and write the symmetric buffers. The program must still compile, run and "
      "verify exactly as before.";
  a.rules = {"Keep every host NCCL collective and send/recv call (" + where +
                 "); replace none yet: the next stage does that.",
             "Set-up is collective: every rank allocates the same buffers in the same order with the same sizes, "
             "once (set-up), never per iteration.",
             "Never use NVLink multicast (multimem / NVLS): leave lsaMultimem off in ncclDevCommRequirements.",
             "Keep the computation as it is."};
  if (harness)
    a.rules.push_back("The harness owns the communicator, streams, events and timing: use ctx.comm, ctx.stream and "
                      "ctx.side_stream(i); create no stream, event or communicator of your own.");
  return a;
}

StageInstructions ReplaceStageInstructions(bool cuda, const std::string& where) {
  StageInstructions b;
  if (!cuda) {
    b.task = "Stage B of a CPU test workload (no NCCL here): make the main change, keeping the results correct.";
    b.rules = {"Keep the results within the workload's tolerance."};
    return b;
  }
  b.task =
      "Replace every host NCCL communication call (" + where +
      ") with device-initiated communication built on the stage-A infrastructure and the cuco/codesign blocks: "
      "peers' buffers through LSA pointers (alloc_peers) moved by transfer kernels (launch_transfers) or copy-engine "
      "copies (ce_copy), ordered with lsa_barrier or epoch flags (signal_flag / wait_flag). Stay sequential: each "
      "transfer runs after the compute it depends on, in the same stream order as the collective it replaces. "
      "Correctness first: overlap comes later, in the search.";
  b.rules = {"No host NCCL collective or send/recv call may remain " + where + ".",
             "Before reading a peer's buffer, make sure the peer finished writing it (lsa_barrier or a flag); before "
             "overwriting a buffer peers read, make sure they finished reading it.",
             "Flags hold epochs (count the iterations) and are never reset; kernels that signal or spin are loaded "
             "before the first iteration (preload_transfer_kernels / preload_flag_kernels).",
             "Never use NVLink multicast (multimem / NVLS).",
             "The results must match the reference within the workload's tolerance on every rank."};
  return b;
}

StageInstructions AnnotateStageInstructions() {
  StageInstructions c;
  c.task =
      "Mark the code a performance search may change with EVOLVE-BLOCK marker lines: the communication (kernels, "
      "transfers, synchronisation), the computation it overlaps with, and the code that launches them. Leave outside "
      "the blocks (frozen) what defines correctness and timing: input generation, the reference and the check, the "
      "timer and what it prints, argument parsing, process and communicator set-up.";
  c.rules = {std::string("Add only lines `") + kEvolveStartLine + "` and `" + kEvolveEndLine +
                 "`, each on a line of its own; change, add or remove nothing else, not even whitespace.",
             "Blocks balance and do not nest; each holds whole declarations or statements, so that its body can be "
             "rewritten on its own.",
             "Answer with the whole annotated file in one fenced code block."};
  return c;
}

std::string StageAnswerFormatText(bool annotate, bool blocks, const std::string& lang) {
  if (annotate)
    return "Begin with one line `SUMMARY: <which code you put in blocks>`. Then the whole annotated file in one "
           "fenced block:\n```" +
           lang + "\n<the whole file with the marker lines added>\n```\n";
  std::string s =
      "Begin with one line `SUMMARY: <what you changed>`. Then give the change in ONE of two forms (only the code is "
      "read):\n"
      "1. SEARCH/REPLACE edits, one or more, each exactly:\n"
      "<<<<<<< SEARCH\n<lines copied exactly from the current code>\n=======\n<the lines that replace them>\n"
      ">>>>>>> REPLACE\n"
      "   The SEARCH lines must match the current code exactly and in one place (add surrounding lines to make them "
      "unique); edits apply in order, each to the result of the previous one. To add code, replace a line with itself "
      "plus the new lines.\n"
      "2. The whole new file in one fenced block (```" +
      lang + " ... ```), complete: nothing elided, no placeholders.\n";
  if (blocks)
    s += std::string("Only lines strictly between an ") + kEvolveBlockStart + " line and the next " + kEvolveBlockEnd +
         " line may change. Everything else, the marker lines included, is frozen and must stay byte for byte; "
         "SEARCH text must not include a marker or frozen line, and a whole file must reproduce the frozen text "
         "exactly.\n";
  else
    s += "Add no EVOLVE-BLOCK marker lines in this stage.\n";
  return s;
}

}  // namespace cuco
