// Habit of SUMMA programs (written here, not copied; rz-hpc's summa_gemm.cu is one): a 2-D grid of
// ranks (MPI_Dims_create, MPI_Cart_create), a row and a column communicator each (MPI_Comm_split),
// NCCL communicators of each bootstrapped over them, and one GEMM computed as a loop over K panels:
// the first panel primed before the loop, each pass accumulating its panel's product into C (beta 1)
// while the next panel is broadcast from the rank its index picks. The program runs it once.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#define CHECK_CUDA(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)
#define CHECK_NCCL(x) do { ncclResult_t r_ = (x); if (r_ != ncclSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, ncclGetErrorString(r_)); std::exit(1); } } while (0)

__global__ void fill(float* x, size_t n, int seed) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    x[i] = static_cast<float>((i * 3 + seed) % 13) / 13.0f - 0.5f;
}

// A communicator of NCCL over the ranks of `group` (an MPI row or column).
ncclComm_t CommOf(MPI_Comm group) {
  int rank = 0, size = 1;
  MPI_Comm_rank(group, &rank);
  MPI_Comm_size(group, &size);
  ncclUniqueId id;
  if (rank == 0) CHECK_NCCL(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, group);
  ncclComm_t comm;
  CHECK_NCCL(ncclCommInitRank(&comm, size, id, rank));
  return comm;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int world_rank = 0, world_size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  CHECK_CUDA(cudaSetDevice(world_rank));
  int dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2] = {0, 0};
  MPI_Dims_create(world_size, 2, dims);
  MPI_Comm grid, row_group, col_group;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &grid);
  MPI_Cart_coords(grid, world_rank, 2, coords);
  MPI_Comm_split(grid, coords[0], coords[1], &row_group);
  MPI_Comm_split(grid, coords[1], coords[0], &col_group);
  const int p_r = dims[0], p_c = dims[1], my_row = coords[0], my_col = coords[1];
  ncclComm_t row_comm = CommOf(row_group), col_comm = CommOf(col_group);

  // Each rank holds an m x k_local block of A and a k_local x n block of B; panels of nb columns.
  const int m = 1024, n = 1024, nb = 256, k_blocks = 8;
  const int k_local = nb * k_blocks / p_c;
  float *d_a, *d_b, *d_c, *d_a_panel[2], *d_b_panel[2];
  CHECK_CUDA(cudaMalloc(&d_a, sizeof(float) * m * k_local));
  CHECK_CUDA(cudaMalloc(&d_b, sizeof(float) * k_local * n));
  CHECK_CUDA(cudaMalloc(&d_c, sizeof(float) * m * n));
  for (int i = 0; i < 2; ++i) {
    CHECK_CUDA(cudaMalloc(&d_a_panel[i], sizeof(float) * m * nb));
    CHECK_CUDA(cudaMalloc(&d_b_panel[i], sizeof(float) * nb * n));
  }
  fill<<<128, 256>>>(d_a, static_cast<size_t>(m) * k_local, world_rank);
  fill<<<128, 256>>>(d_b, static_cast<size_t>(k_local) * n, world_rank + 7);
  CHECK_CUDA(cudaMemset(d_c, 0, sizeof(float) * m * n));
  cudaStream_t compute, comm;
  CHECK_CUDA(cudaStreamCreate(&compute));
  CHECK_CUDA(cudaStreamCreate(&comm));
  cudaEvent_t ready[2], used[2];
  for (int i = 0; i < 2; ++i) {
    CHECK_CUDA(cudaEventCreate(&ready[i]));
    CHECK_CUDA(cudaEventCreate(&used[i]));
  }
  cublasHandle_t handle;
  cublasCreate(&handle);
  cublasSetStream(handle, compute);

  float alpha = 1.0f, beta = 1.0f;  // C += A_panel B_panel
  int buf = 0;
  int root_a = 0 % p_c, root_b = 0 % p_r;
  if (my_col == root_a)
    CHECK_CUDA(cudaMemcpyAsync(d_a_panel[0], d_a, sizeof(float) * m * nb, cudaMemcpyDeviceToDevice, comm));
  if (my_row == root_b)
    CHECK_CUDA(cudaMemcpyAsync(d_b_panel[0], d_b, sizeof(float) * nb * n, cudaMemcpyDeviceToDevice, comm));
  CHECK_NCCL(ncclGroupStart());
  CHECK_NCCL(ncclBroadcast(d_a_panel[0], d_a_panel[0], static_cast<size_t>(m) * nb, ncclFloat, root_a, row_comm, comm));
  CHECK_NCCL(ncclBroadcast(d_b_panel[0], d_b_panel[0], static_cast<size_t>(nb) * n, ncclFloat, root_b, col_comm, comm));
  CHECK_NCCL(ncclGroupEnd());
  CHECK_CUDA(cudaEventRecord(ready[0], comm));
  for (int k = 0; k < k_blocks; ++k) {
    const int next = (buf + 1) % 2;
    CHECK_CUDA(cudaStreamWaitEvent(compute, ready[buf], 0));
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, nb, &alpha, d_a_panel[buf], m, d_b_panel[buf], nb, &beta, d_c, m);
    CHECK_CUDA(cudaEventRecord(used[buf], compute));
    if (k + 1 < k_blocks) {
      const int next_k = k + 1;
      const int next_root_a = next_k % p_c, next_root_b = next_k % p_r;
      const int local_k = next_k / p_c;
      CHECK_CUDA(cudaStreamWaitEvent(comm, used[next], 0));
      if (my_col == next_root_a)
        CHECK_CUDA(cudaMemcpyAsync(d_a_panel[next], d_a + static_cast<size_t>(local_k) * m * nb, sizeof(float) * m * nb,
                                   cudaMemcpyDeviceToDevice, comm));
      if (my_row == next_root_b)
        CHECK_CUDA(cudaMemcpyAsync(d_b_panel[next], d_b + static_cast<size_t>(next_k / p_r) * nb * n,
                                   sizeof(float) * nb * n, cudaMemcpyDeviceToDevice, comm));
      CHECK_NCCL(ncclGroupStart());
      CHECK_NCCL(ncclBroadcast(d_a_panel[next], d_a_panel[next], static_cast<size_t>(m) * nb, ncclFloat, next_root_a,
                               row_comm, comm));
      CHECK_NCCL(ncclBroadcast(d_b_panel[next], d_b_panel[next], static_cast<size_t>(nb) * n, ncclFloat, next_root_b,
                               col_comm, comm));
      CHECK_NCCL(ncclGroupEnd());
      CHECK_CUDA(cudaEventRecord(ready[next], comm));
    }
    buf = next;
  }
  CHECK_CUDA(cudaDeviceSynchronize());
  float corner = 0.0f;
  CHECK_CUDA(cudaMemcpy(&corner, d_c, sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("rank %d (row %d, col %d): C[0][0] = %f (alpha %.1f, beta %.1f)\n", world_rank, my_row, my_col, corner, alpha,
              beta);
  cublasDestroy(handle);
  ncclCommDestroy(row_comm);
  ncclCommDestroy(col_comm);
  MPI_Finalize();
  return 0;
}
