// The benchmark's one-size run, in a file of its own (habit of collective benchmarks split into a
// driver and a runner).
#pragma once

#include <cstddef>
#include <nccl.h>
#include <cuda_runtime.h>

// Times `iters` all-reduces of `count` floats after `warmup`; the mean in ms.
double run_size(size_t count, int warmup, int iters, ncclComm_t comm, cudaStream_t stream, int rank);
