// The benchmark's per-thread arguments (habit of nccl-tests' common.h, written here): the process's
// per-GPU buffers are arrays of device pointers the thread reaches through this struct.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstddef>

struct threadArgs {
  int nGpus;
  size_t nbytes;
  void** sendbuffs;
  void** recvbuffs;
  ncclComm_t* comms;
  cudaStream_t* streams;
};
