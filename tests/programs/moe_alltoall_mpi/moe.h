// Mixture-of-experts layer with expert parallelism: top-1 routing, fixed capacity per expert,
// all-to-all dispatch and combine as grouped ncclSend/ncclRecv.
#pragma once
#include <cublas_v2.h>
#include <nccl.h>

struct MoeShape {
  int tokens;            // tokens on this rank
  int hidden;
  int ffn;
  int experts_per_rank;
  int capacity;          // slots per (source rank, expert)
};

struct MoeBuffers {
  float* x;            // [tokens][hidden]               layer input
  float* w_router;     // [hidden][num_experts]
  float* w1;           // [experts_per_rank][hidden][ffn]
  float* w2;           // [experts_per_rank][ffn][hidden]
  float* logits;       // [tokens][num_experts]
  int* expert_idx;     // [tokens]
  float* gate;         // [tokens]
  int* slot;           // [tokens]  row in send_buf, -1 if dropped
  int* counts;         // [num_experts]
  float* send_buf;     // [world][experts_per_rank][capacity][hidden]
  float* recv_buf;     // same layout, rows from every source rank
  float* h;            // [world][experts_per_rank][capacity][ffn]
  float* expert_out;   // [world][experts_per_rank][capacity][hidden]
  float* combine_buf;  // [world][experts_per_rank][capacity][hidden]
  float* y;            // [tokens][hidden]               layer output
};

void moe_alloc(MoeBuffers* b, const MoeShape& s, int rank, int world);
void moe_free(MoeBuffers* b);
void moe_forward(const MoeShape& s, MoeBuffers& b, int world, cublasHandle_t blas, ncclComm_t comm,
                 cudaStream_t stream);
