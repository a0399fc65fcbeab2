// Tensor-parallel MLP tail: a GEMM kernel writes partial sums, then ncclAllReduce sums them in place
// on the same stream, then a bias kernel consumes the reduced output.
#include <cstdio>
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

__global__ void gemm_partial(const float* a, const float* b, float* c, int m, int n, int k) {
  int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;
  float acc = 0.f;
  for (int i = 0; i < k; ++i) acc += a[row * k + i] * b[i * n + col];
  c[row * n + col] = acc;
}

__global__ void add_bias(float* out, const float* bias, int m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m * n) out[i] += bias[i % n];
}

void forward(const float* a, const float* b, float* partial, float* bias, int m, int n, int k,
             ncclComm_t comm, cudaStream_t stream) {
  dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);
  gemm_partial<<<grid, block, 0, stream>>>(a, b, partial, m, n, k);
  ncclAllReduce(partial, partial, (size_t)m * n, ncclFloat, ncclSum, comm, stream);
  add_bias<<<(m * n + 255) / 256, 256, 0, stream>>>(partial, bias, m, n);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  ncclUniqueId id;
  if (rank == 0) ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  cudaSetDevice(rank);
  ncclComm_t comm;
  ncclCommInitRank(&comm, world, id, rank);
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  const int m = 256, n = 256, k = 128;
  float *a, *b, *c, *bias;
  cudaMalloc(&a, m * k * sizeof(float));
  cudaMalloc(&b, k * n * sizeof(float));
  cudaMalloc(&c, m * n * sizeof(float));
  cudaMalloc(&bias, n * sizeof(float));
  forward(a, b, c, bias, m, n, k, comm, stream);
  cudaStreamSynchronize(stream);
  MPI_Barrier(MPI_COMM_WORLD);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
