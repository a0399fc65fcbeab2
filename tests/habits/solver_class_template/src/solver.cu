// The methods of JacobiSolver: the timed sweeps are solve's loop, whose buffers are its locals.
#include "src/solver.h"

#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <cstdio>

#define NCCL_OK(x) do { ncclResult_t r_ = (x); if (r_ != ncclSuccess) { \
  std::fprintf(stderr, "nccl %s at %s:%d\n", ncclGetErrorString(r_), __FILE__, __LINE__); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

template <typename Real>
__global__ void fill(Real* v, size_t n, Real value) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    v[i] = value + static_cast<Real>(i % 7);
}

template <typename Real>
__global__ void sweep(const Real* diag, const Real* b, const Real* x, Real* x_new, Real* residual, size_t n) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const Real next = (b[i] - Real(0.5) * x[i]) / diag[i];
    x_new[i] = next;
    if (i == 0) *residual = next - x[i];
  }
}

template <typename Real>
JacobiSolver<Real>::JacobiSolver(size_t rows_per_rank, int rank, int ranks) : rows_(rows_per_rank), rank_(rank), ranks_(ranks) {
  cudaMalloc(&diag_dev_, rows_ * sizeof(Real));
  fill<<<64, 256>>>(diag_dev_, rows_, Real(4));
}

template <typename Real>
JacobiSolver<Real>::~JacobiSolver() {
  cudaFree(diag_dev_);
}

template <typename Real>
bool JacobiSolver<Real>::solve(int iters, Real* x_host) {
  ncclUniqueId id;
  if (rank_ == 0) ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  NCCL_OK(ncclCommInitRank(&comm, ranks_, id, rank_));
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  Real *b_dev, *x_dev, *x_new_dev, *residual_dev;
  cudaMalloc(&b_dev, rows_ * sizeof(Real));
  cudaMalloc(&x_dev, rows_ * sizeof(Real));
  cudaMalloc(&x_new_dev, rows_ * sizeof(Real));
  cudaMalloc(&residual_dev, sizeof(Real));
  fill<<<64, 256, 0, stream>>>(b_dev, rows_, Real(1));
  cudaMemsetAsync(x_dev, 0, rows_ * sizeof(Real), stream);
  const ncclDataType_t type = sizeof(Real) == 8 ? ncclDouble : ncclFloat;
  for (int it = 0; it < iters; ++it) {
    sweep<<<64, 256, 0, stream>>>(diag_dev_, b_dev, x_dev, x_new_dev, residual_dev, rows_);
    NCCL_OK(ncclAllReduce(residual_dev, residual_dev, 1, type, ncclSum, comm, stream));
    cudaMemcpyAsync(x_dev, x_new_dev, rows_ * sizeof(Real), cudaMemcpyDeviceToDevice, stream);
  }
  cudaMemcpyAsync(x_host, x_dev, rows_ * sizeof(Real), cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);
  cudaFree(b_dev);
  cudaFree(x_dev);
  cudaFree(x_new_dev);
  cudaFree(residual_dev);
  ncclCommDestroy(comm);
  return true;
}

template class JacobiSolver<float>;
template class JacobiSolver<double>;
