// Host memory an iteration's helpers copy its inputs from and its result to.
//
// A helper that makes its device buffers itself each call (`multi_gpu_sgemm(M, N, K, h_A, h_B, h_C)`:
// cudaMalloc, copy h_A and h_B in, GEMM, all-reduce, copy the sum out to h_C, cudaFree) leaves the
// loop's function no device buffer to bind: its inputs and result are the host memory it hands
// the helper. Those are bound by copy instead (`cuco_bind.host_input("h_B", h_B)`,
// program.h): the harness's buffers copied into the program's host memory before the iteration
// and out of it after.
#pragma once

#include <string>
#include <vector>

#include "analyze/analysis.h"

namespace cuco::scaffold_internal {

// One host end of a copy the iteration makes.
struct HostCopy {
  std::string name;                  // the loop function's variable (`h_C`)
  bool to_host = false;              // the copy writes it (the iteration's result), else reads it (an input)
  const AnalyzedOp* copy = nullptr;  // the cudaMemcpy, in a helper
  int line = 0;                      // the loop function's line handing it on (a call in its loop)
};

// Every host end of a cudaMemcpy (to or from the host) in a function other than `loop_fn`, followed
// up through the helpers' parameters (the call in the loop, else the one caller of each function)
// to a variable of `loop_fn` that a call inside its loop (lines [loop_line, loop_end_line] of
// `loop_file`) hands on: `h_C` for `cudaMemcpy(h_C.data(), d_C, ...)` in multi_gpu_sgemm whose
// parameter h_C main's `multi_gpu_sgemm(..., h_C)` passes. In the order of the copies.
std::vector<HostCopy> HostCopiesOfIteration(const Analysis& a, const std::string& loop_fn, const std::string& loop_file,
                                            int loop_line, int loop_end_line);

// Whether `before_loop` gives `name` host memory: declares it a std::vector (any of a declaration's
// declarators), assigns it `new ...`, malloc, calloc, aligned_alloc or realloc, or pins it
// (cudaMallocHost, cudaHostAlloc: a CUDA-aware MPI program's norm reduced on the host).
bool HostMemoryOf(const std::string& name, const std::string& before_loop);

// The arguments of a host_* bind of `name` as `before_loop` (the loop's function up to its loop,
// NameableBeforeLoop) declares it: "h_C" for a std::vector, "h_C, <elements>" for an array made
// with new[] (`new float[n]`: "h_C, n"), malloc or calloc (bytes over sizeof(*h_C)), or declared
// with a size (`float h_C[N]`); "" for anything else (a pointer from elsewhere: no size known).
std::string HostBindArguments(const std::string& name, const std::string& before_loop);

// The host_* binds of the iteration's host memory: one per variable HostCopiesOfIteration finds
// whose size HostBindArguments knows (an input where a copy reads it, an output where one writes
// it, inout where both), in the order found; none unless one is an output (the result).
struct HostBind {
  std::string statement;  // `cuco_bind.host_output("h_C", h_C);`
  std::string name;       // the bind's name (`h_C`)
  bool in = false, out = false;
  std::string guess;      // for the harness's README
};
std::vector<HostBind> HostBinds(const Analysis& a, const std::string& loop_fn, const std::string& loop_file,
                                int loop_line, int loop_end_line, const std::string& before_loop);

}  // namespace cuco::scaffold_internal
