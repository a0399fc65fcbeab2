// Host code calling min and max unqualified, as nvcc's headers allow (crt/math_functions.hpp
// declares them for host and device under nvcc): a host-only parse must not take them for errors
// and lose the statements around them.
#include <cuda_runtime.h>
#include <nccl.h>

static int Workers(int asked) { return max(asked, 4); }

int main() {
  const int n = 1 << 20;
  const int workers = Workers(2);
  const size_t chunk = min(static_cast<size_t>(n), static_cast<size_t>(1) << 16);
  const float scale = max(0.5f, 1.0f / workers);
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  ncclComm_t comm;
  ncclCommInitRank(&comm, 1, id, 0);
  cudaStream_t s;
  cudaStreamCreate(&s);
  float* x = nullptr;
  cudaMalloc(&x, n * sizeof(float));
  if (scale > 0 && chunk > 0) ncclAllReduce(x, x, min(n, workers * 1024), ncclFloat, ncclSum, comm, s);
  cudaStreamSynchronize(s);
  return 0;
}
