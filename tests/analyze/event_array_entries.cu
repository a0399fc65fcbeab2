// Events kept in an array (double buffers): ready[0] recorded after the first panel's broadcast,
// ready[buf] waited for in the loop, is the event the loop's first pass waits for; ready[1], recorded
// after the loop's all-reduce of `halo`, is never ready[0], which the scale kernel waits for.
#include <cuda_runtime.h>
#include <nccl.h>

__global__ void use(const float* panel, float* c) { c[threadIdx.x] += panel[threadIdx.x]; }
__global__ void scale(float* x) { x[threadIdx.x] *= 2.0f; }

void run(float* panel, float* c, float* halo, ncclComm_t comm, cudaStream_t compute, cudaStream_t comm_stream) {
  cudaEvent_t ready[2];
  cudaEventCreate(&ready[0]);
  cudaEventCreate(&ready[1]);
  int buf = 0;
  ncclBroadcast(panel, panel, 256, ncclFloat, 0, comm, comm_stream);
  cudaEventRecord(ready[0], comm_stream);
  for (int k = 0; k < 4; ++k) {
    cudaStreamWaitEvent(compute, ready[buf], 0);
    use<<<1, 256, 0, compute>>>(panel, c);
    buf = 1 - buf;
  }
  ncclAllReduce(halo, halo, 256, ncclFloat, ncclSum, comm, comm_stream);
  cudaEventRecord(ready[1], comm_stream);
  cudaStreamWaitEvent(compute, ready[0], 0);
  scale<<<1, 256, 0, compute>>>(halo);
}
