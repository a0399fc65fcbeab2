/* Habit of C benchmarks (written here, not copied): a C program driving every GPU from one thread,
 * its options a struct whose enum's enumerators C names bare, its buffers from malloc uncast. */
#include <cuda_runtime.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>

struct options {
  int gpus;
  enum { KIND_FLOAT, KIND_INT } kind;
};

int main(int argc, char** argv) {
  struct options opt = {2, KIND_FLOAT};
  if (argc > 1) opt.gpus = atoi(argv[1]);
  const size_t n = 1 << 18;
  int* devs = malloc(opt.gpus * sizeof(int));
  ncclComm_t* comms = malloc(opt.gpus * sizeof(ncclComm_t));
  cudaStream_t* streams = malloc(opt.gpus * sizeof(cudaStream_t));
  float** bufs = malloc(opt.gpus * sizeof(float*));
  for (int i = 0; i < opt.gpus; ++i) {
    devs[i] = i;
    cudaSetDevice(i);
    cudaMalloc((void**)&bufs[i], n * sizeof(float));
    cudaMemset(bufs[i], 0, n * sizeof(float));
    cudaStreamCreate(&streams[i]);
  }
  ncclCommInitAll(comms, opt.gpus, devs);
  for (int it = 0; it < 10; ++it) {
    ncclGroupStart();
    for (int i = 0; i < opt.gpus; ++i)
      ncclAllReduce(bufs[i], bufs[i], n, opt.kind == KIND_FLOAT ? ncclFloat : ncclInt, ncclSum, comms[i], streams[i]);
    ncclGroupEnd();
  }
  for (int i = 0; i < opt.gpus; ++i) {
    cudaSetDevice(i);
    cudaStreamSynchronize(streams[i]);
    ncclCommDestroy(comms[i]);
  }
  printf("done\n");
  return 0;
}
