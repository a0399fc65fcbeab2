// A program whose communication is in files it includes, not in main's file: a ring step in an
// included .cu (ring.cu) that calls a send/recv helper in a header (util/comm.h), which uses a type
// main declares before including it (so it parses only as part of main's unit). util/math.h has no
// communication and stays out of the analysis.
#include <cuda_runtime.h>
#include <nccl.h>

struct Ring {
  float* send;
  float* recv;
  size_t count;
  int next, prev;
};

#include "util/math.h"
#include "ring.cu"

int main() {
  ncclComm_t comm;
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  ncclCommInitRank(&comm, 2, id, 0);
  float *q, *out;
  cudaMalloc(&q, 1024 * sizeof(float));
  cudaMalloc(&out, 1024 * sizeof(float));
  cudaStream_t s;
  cudaStreamCreate(&s);
  for (int it = 0; it < 10; ++it) forward(q, out, 1024, comm, s);
  cudaStreamSynchronize(s);
  return 0;
}
