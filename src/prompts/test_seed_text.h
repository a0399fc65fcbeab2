// Test-only: a 12-line seed with two EVOLVE blocks (a knob-marked constant and a kernel; then
// cuco_candidate_run) and one frozen line between them, which the prompt tests of prompts/ and
// propose/ quote. The comments give each line's number; tests rely on them.
#pragma once

#include <string>

namespace cuco::test_seed {

inline const std::string kSeed =
    "#include <cuco/harness.h>\n"                               // 1
    "// EVOLVE-BLOCK-START\n"                                   // 2
    "constexpr int kChunks = 4;  // cuco:knob chunks\n"         // 3
    "__global__ void Scale(float* x) { x[threadIdx.x] *= 2; }\n"  // 4
    "// EVOLVE-BLOCK-END\n"                                     // 5
    "int frozen;\n"                                             // 6
    "// EVOLVE-BLOCK-START\n"                                   // 7
    "cuco::Status cuco_candidate_run(cuco::RankContext& ctx, void*, const cuco::IO& io) {\n"  // 8
    "  Scale<<<1, 256, 0, ctx.stream>>>(static_cast<float*>(io.out(\"X\").ptr));\n"         // 9
    "  return cuco::Status::Ok();\n"                            // 10
    "}\n"                                                       // 11
    "// EVOLVE-BLOCK-END\n";                                    // 12

}  // namespace cuco::test_seed
