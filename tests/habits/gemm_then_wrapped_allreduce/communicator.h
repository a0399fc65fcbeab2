// The communicator of the habit gemm_then_wrapped_allreduce (written here): NCCL behind a class,
// its all-reduce a method taking the buffer, inside a group, on the class's own stream.
#pragma once
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <cstdio>
#include <cstdlib>

#define NCCL_OK(x) do { ncclResult_t r_ = (x); if (r_ != ncclSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, ncclGetErrorString(r_)); std::exit(1); } } while (0)

class Communicator {
 public:
  Communicator(int rank, int ranks) : rank_(rank), ranks_(ranks) {
    ncclUniqueId id;
    if (rank_ == 0) NCCL_OK(ncclGetUniqueId(&id));
    MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
    NCCL_OK(ncclCommInitRank(&comm_, ranks_, id, rank_));
    cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
  }
  ~Communicator() {
    cudaStreamDestroy(stream_);
    ncclCommDestroy(comm_);
  }
  // Sums `count` floats of `data` over the ranks, in place, on stream().
  void all_reduce(float* data, size_t count) {
    NCCL_OK(ncclGroupStart());
    NCCL_OK(ncclAllReduce((const void*)data, (void*)data, count, ncclFloat, ncclSum, comm_, stream_));
    NCCL_OK(ncclGroupEnd());
  }
  cudaStream_t stream() const { return stream_; }

 private:
  int rank_, ranks_;
  ncclComm_t comm_;
  cudaStream_t stream_;
};
