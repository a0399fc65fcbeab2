// A data-parallel GEMM whose helper owns its device memory, as small benchmarks write it (perflab's
// multi-GPU SGEMM): each call allocates device buffers, copies main's host matrices in, multiplies,
// all-reduces the product, copies the sum out to main's result vector and frees everything. The
// iteration's inputs and result are host memory only.
#include <mpi.h>
#include <nccl.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void gemm(const float* a, const float* b, float* c, int n) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n || col >= n) return;
  float sum = 0.0f;
  for (int k = 0; k < n; ++k) sum += a[row * n + k] * b[k * n + col];
  c[row * n + col] = sum;
}

static void gemm_sum(int n, const std::vector<float>& h_a, const std::vector<float>& h_b, std::vector<float>& h_c,
                     ncclComm_t comm, cudaStream_t stream) {
  const size_t bytes = static_cast<size_t>(n) * n * sizeof(float);
  float *d_a, *d_b, *d_c;
  cudaMalloc(&d_a, bytes);
  cudaMalloc(&d_b, bytes);
  cudaMalloc(&d_c, bytes);
  cudaMemcpyAsync(d_a, h_a.data(), bytes, cudaMemcpyHostToDevice, stream);
  cudaMemcpyAsync(d_b, h_b.data(), bytes, cudaMemcpyHostToDevice, stream);
  dim3 block(16, 16), grid((n + 15) / 16, (n + 15) / 16);
  gemm<<<grid, block, 0, stream>>>(d_a, d_b, d_c, n);
  ncclAllReduce(d_c, d_c, static_cast<size_t>(n) * n, ncclFloat, ncclSum, comm, stream);
  cudaMemcpyAsync(h_c.data(), d_c, bytes, cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_c);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ncclUniqueId id;
  if (rank == 0) ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  cudaSetDevice(rank);
  ncclComm_t comm;
  ncclCommInitRank(&comm, size, id, rank);
  cudaStream_t stream;
  cudaStreamCreate(&stream);

  const int n = 256;
  std::vector<float> h_a(n * n), h_b(n * n), h_c(n * n, 0.0f);
  std::srand(1 + rank);
  for (auto& v : h_a) v = static_cast<float>(std::rand()) / RAND_MAX - 0.5f;
  for (auto& v : h_b) v = static_cast<float>(std::rand()) / RAND_MAX - 0.5f;

  for (int iter = 0; iter < 20; ++iter) gemm_sum(n, h_a, h_b, h_c, comm, stream);
  if (rank == 0) std::printf("c[0] = %f\n", h_c[0]);

  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
