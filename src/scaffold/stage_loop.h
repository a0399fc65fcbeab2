// A loop whose passes are the stages of one computation, not repetitions of an iteration: each pass
// communicates with the root or peer its variable picks (a SUMMA's panel loop `for (k < K_blocks)`
// broadcasting panel k+1 from `next_root_A = (k + 1) % P_c`). Served one pass at a time, its variable
// held at its first value, every harness iteration would redo stage 0 on whatever the last one left;
// the iteration is the whole loop, with the statements right before it that prime it (the first
// panel's copy and broadcast).
//   StageVariable  the loop's variable, when a root or peer of an NCCL call in its body derives from it;
//   WalkVariable   the loop's variable, when its body points into the buffers at offsets derived from it
//                  (a GEMM and all-reduce per block of rows, `float* C_blk = C + blk * rows * N;`;
//                  micro-batches, `&x[mb * size]`): each pass is one part of the data, the whole loop
//                  one computation, and a pass held at the first offset would leave the rest unwritten;
//   PrimingStart   the first token of the statements before the loop that prime it.
// Contract: pure functions of the tokens (tokens.h).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "scaffold/tokens.h"

namespace cuco::scaffold_internal {

// `loop`: the `for` token of a loop whose last token is `last`. "" when not such a loop.
std::string StageVariable(const std::vector<Tok>& t, size_t loop, size_t last);

// `loop` as for StageVariable. "" when not such a loop. An offset taken modulo something (a double
// buffer's `bufs + (it % 2) * n`) is no walk.
std::string WalkVariable(const std::vector<Tok>& t, size_t loop, size_t last);

// Walking back from the loop at `loop` in its block: statements that communicate (`names`, NCCL
// groups), record or wait for events, copy into what the statements taken read (an `if` around the
// copy included), or declare what they read with no call of CUDA, NCCL, MPI or cuBLAS; the
// synchronisations, barriers and host clocks between them go with them. `loop` when none.
size_t PrimingStart(const std::vector<Tok>& t, size_t loop, const std::set<std::string>& names);

}  // namespace cuco::scaffold_internal
