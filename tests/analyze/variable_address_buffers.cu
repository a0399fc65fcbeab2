// A throughput figure all-reduced from host scalars (`ncclAllReduce(&val, &sum, ...)`, a TensorRT
// benchmark's): NCCL moves device memory, so both buffers are wrong. `&d[off]`, an element of a
// device array, is device memory.
#include <cuda_runtime.h>
#include <nccl.h>

void report(float* d, int off, ncclComm_t comm, cudaStream_t s) {
  float val = 1.0f, sum = 0.0f;
  ncclAllReduce(&val, &sum, 1, ncclFloat, ncclSum, comm, s);
  ncclAllReduce(&d[off], &d[off], 1, ncclFloat, ncclSum, comm, s);
  cudaStreamSynchronize(s);
}
