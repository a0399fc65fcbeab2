// Tensor-parallel MLP block (Megatron style): W1 split by columns, W2 split by rows,
// one all-reduce per layer.
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

struct MlpConfig {
  int tokens;
  int hidden;
  int ffn;      // full FFN width; each rank holds ffn / world columns
  int layers;
};

// All layers' weights in one allocation per kind; layer l starts at l * (per-layer size).
struct MlpWeights {
  float* w1;  // [layers][hidden][ffn/world]
  float* b1;  // [layers][ffn/world]
  float* w2;  // [layers][ffn/world][hidden]
  float* b2;  // [layers][hidden]
};

void alloc_weights(MlpWeights* w, const MlpConfig& cfg, int rank, int world);
void free_weights(MlpWeights* w);

// y = MLP^layers(x). h and z are scratch: [tokens][ffn/world] and [tokens][hidden].
void mlp_forward(cublasHandle_t blas, ncclComm_t comm, cudaStream_t stream, const MlpConfig& cfg,
                 int world, const MlpWeights& w, const float* x, float* y, float* h, float* z);
