// The program's iteration as the analysis sees it, and the buffers it reads and writes: what the
// harness skeleton's seed.cu lists to move into cuco_candidate_run and reference.cu declares.
//
// Contract: pure functions of the Analysis (indices are AnalyzedOp::index values). A buffer
// whose first access in the iteration is a read is an input, one whose last access is a write
// an output (it may be both: updated in place), any other scratch; a GEMM that reads and writes
// its C matrix (beta) counts as writing it. Names keep the analysis's first-seen order.
#pragma once

#include <string>
#include <vector>

#include "analyze/analysis.h"

namespace cuco::scaffold_internal {

// A collective or point-to-point NCCL call.
bool IsCommOp(const AnalyzedOp& op);
// An op that moves or computes data: communication, kernels, GEMMs, copies, NCCL groups.
bool IsDataOp(const AnalyzedOp& op);

// A GEMM reads its output C only for beta: C counts as written, not read. Not so cublas<t>axpy,
// whose y = alpha x + y reads y.
bool OutputReadOnlyForBeta(const AnalyzedOp& op);

// Whether a GEMM of `op` accumulates into its C (`C = alpha A B + beta C` with beta not zero, as a
// SUMMA's or a K-split's panels do): its beta argument (`&beta`) names a variable that `code` (its
// file's text, comments blanked: BlankComments) sets only to numbers, one of them not zero. Then C is
// read as well as written.
// False for another op, or where the value is not known.
bool GemmAccumulates(const AnalyzedOp& op, const std::string& code);

// Ops of one iteration, per function holding communication: from the first producer (or comm op)
// to the last consumer (or comm op), data ops only; calls of helpers stay out.
std::vector<int> IterationOps(const Analysis& a);

struct IoGuess {
  std::vector<std::string> inputs, outputs, scratch;  // base variables as the program writes them
};

IoGuess GuessIo(const Analysis& a, const std::vector<int>& ops);

// "s.partial" -> "partial", "(void*)buf" -> "buf": a name for IO::in / IO::out (at most 40
// characters, "buf" when nothing is left).
std::string IoName(const std::string& base);

// The harness DType enumerator ("kBF16", ...) of an NCCL datatype; nullptr when unknown.
const char* DTypeFor(const std::string& nccl_type);

}  // namespace cuco::scaffold_internal
