// Fuzz target: a language model's answer, read every way cuco reads one. The input is
// "file\0answer" (an empty file stands for a small seed with two EVOLVE blocks):
//  - the proposer's reading (block_edits.h): SEARCH/REPLACE diffs, block or whole-file rewrites,
//    the summary line; a result must keep the file's frozen text;
//  - the LLM transform's reading (ParseStageAnswer): with and without EVOLVE blocks (diffs on the
//    whole file), and stage C's annotated file (CheckAnnotationOnly), and its call finder.
#include "fuzz_input.h"
#include "edit/block_edits.h"
#include "transform/llm_transform.h"
#include "workload/evolve_blocks.h"

namespace {

const char* kSeed =
    "#include <cstdio>\n"
    "// frozen head\n"
    "// EVOLVE-BLOCK-START\n"
    "int tile = 64;\n"
    "void step(float* x, int n) {\n"
    "  for (int i = 0; i < n; ++i) x[i] *= 2;\n"
    "}\n"
    "// EVOLVE-BLOCK-END\n"
    "int frozen_middle() { return 1; }\n"
    "// EVOLVE-BLOCK-START\n"
    "  ncclAllReduce(a, b, n, ncclFloat, ncclSum, comm, s);\n"
    "// EVOLVE-BLOCK-END\n"
    "int main() { return frozen_middle(); }\n";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using cuco::fuzz::Broken;
  auto parts = cuco::fuzz::SplitInput(data, size, 2);
  const std::string file = parts[0].empty() ? std::string(kSeed) : parts[0];
  const std::string& answer = parts[1];

  (void)cuco::HasSearchReplace(answer);
  (void)cuco::ParseSearchReplace(answer);
  (void)cuco::FencedCodeBlocks(answer);
  if (cuco::AnswerSummary(answer).size() > 240 * 4) Broken("AnswerSummary is longer than 240 characters");

  const bool blocks = cuco::SplitEvolveBlocks(file, "seed.cu").ok();
  auto applied = cuco::ApplyLlmAnswer(file, file, answer, "seed.cu");
  if (applied.ok() && blocks) {
    cuco::Status frozen = cuco::CheckFrozenCode(file, "seed.cu", applied->code, "candidate.cu");
    if (!frozen.ok()) Broken("ApplyLlmAnswer changed frozen text", frozen.message());
  }
  (void)cuco::ApplyBlockRewrite(file, answer, "seed.cu");

  cuco::LlmStage stage{"B", "replace", "", {}, false, true, nullptr, nullptr};
  (void)cuco::ParseStageAnswer(stage, blocks, file, file, answer, "seed.cu");
  (void)cuco::ParseStageAnswer(stage, false, file, file, answer, "seed.cu");
  cuco::LlmStage annotate{"C", "annotate", "", {}, true, false, nullptr, nullptr};
  auto annotated = cuco::ParseStageAnswer(annotate, false, file, file, answer, "seed.cu");
  if (annotated.ok()) (void)cuco::CheckAnnotationOnly(file, annotated->code, "seed.cu");
  (void)cuco::FindCalls(answer, {"ncclAllReduce", "cudaMemcpy"}, true);
  (void)cuco::FindCalls(answer, {"ncclAllReduce"}, false);
  return 0;
}
