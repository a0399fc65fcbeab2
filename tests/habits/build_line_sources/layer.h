// A row-parallel linear layer: y = x * w on this rank's slice, then summed over the ranks.
#pragma once
#include <cublas_v2.h>
#include <nccl.h>

void layer_forward(cublasHandle_t blas, ncclComm_t comm, cudaStream_t stream, const float* x, const float* w, float* y,
                   int tokens, int in_local, int out);
