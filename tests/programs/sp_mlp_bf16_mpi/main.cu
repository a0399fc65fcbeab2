// Sequence-parallel MLP in bf16 (Megatron-LM sequence parallelism): each rank holds seq/world
// tokens; all-gather before the column-parallel GEMM, reduce-scatter after the row-parallel GEMM.
//   mpirun -np 2 ./sp_mlp --seq 1024 --hidden 1024 --ffn 4096 --layers 2 --iters 20
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <mpi.h>

#include <cmath>
#include <vector>

#include "utils.h"

typedef __nv_bfloat16 bf16;

__global__ void gelu_kernel(bf16* h, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = __bfloat162float(h[i]);
  h[i] = __float2bfloat16(0.5f * v * (1.f + erff(v * 0.70710678f)));
}

__global__ void residual_kernel(bf16* y, const bf16* r, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) y[i] = __float2bfloat16(__bfloat162float(y[i]) + __bfloat162float(r[i]));
}

__global__ void to_float_kernel(float* out, const bf16* in, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) out[i] = __bfloat162float(in[i]);
}

// Row-major C[m][n] = A[m][k] B[k][n], bf16 in/out, fp32 accumulate.
static void gemm_bf16(cublasHandle_t handle, int m, int n, int k, const bf16* A, const bf16* B, bf16* C) {
  const float alpha = 1.f, beta = 0.f;
  CUBLASCHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, B, CUDA_R_16BF, n, A,
                           CUDA_R_16BF, k, &beta, C, CUDA_R_16BF, n, CUBLAS_COMPUTE_32F,
                           CUBLAS_GEMM_DEFAULT));
}

static bf16* upload_bf16(size_t n, uint64_t seed, float scale) {
  std::vector<float> f(n);
  fill_uniform(f.data(), n, seed, scale);
  std::vector<bf16> b(n);
  for (size_t i = 0; i < n; ++i) b[i] = __float2bfloat16(f[i]);
  bf16* d;
  CUDACHECK(cudaMalloc(&d, n * sizeof(bf16)));
  CUDACHECK(cudaMemcpy(d, b.data(), n * sizeof(bf16), cudaMemcpyHostToDevice));
  return d;
}

static inline unsigned blocks_for(size_t n) { return (unsigned)((n + 255) / 256); }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  const int seq = arg_int(argc, argv, "--seq", 1024);
  const int hidden = arg_int(argc, argv, "--hidden", 1024);
  const int ffn = arg_int(argc, argv, "--ffn", 4096);
  const int layers = arg_int(argc, argv, "--layers", 2);
  const int iters = arg_int(argc, argv, "--iters", 20);
  if (seq % nranks || ffn % nranks) {
    if (rank == 0) fprintf(stderr, "seq and ffn must be divisible by %d\n", nranks);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const int seq_local = seq / nranks;
  const int ffn_local = ffn / nranks;

  int ndev = 0;
  CUDACHECK(cudaGetDeviceCount(&ndev));
  CUDACHECK(cudaSetDevice(rank % ndev));
  ncclUniqueId id;
  if (rank == 0) ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  NCCLCHECK(ncclCommInitRank(&comm, nranks, id, rank));

  cudaStream_t stream;
  CUDACHECK(cudaStreamCreate(&stream));
  cublasHandle_t handle;
  CUBLASCHECK(cublasCreate(&handle));
  CUBLASCHECK(cublasSetStream(handle, stream));

  // Weights of every layer: W1 column shard [hidden][ffn_local], W2 row shard [ffn_local][hidden].
  bf16* w1 = upload_bf16((size_t)layers * hidden * ffn_local, 10 + rank, 1.f / sqrtf(hidden));
  bf16* w2 = upload_bf16((size_t)layers * ffn_local * hidden, 20 + rank, 1.f / sqrtf(ffn));
  bf16* x_local = upload_bf16((size_t)seq_local * hidden, 100 + rank, 1.f);
  bf16 *y_local, *x_full, *h, *partial, *rs_out;
  CUDACHECK(cudaMalloc(&y_local, (size_t)seq_local * hidden * sizeof(bf16)));
  CUDACHECK(cudaMalloc(&x_full, (size_t)seq * hidden * sizeof(bf16)));
  CUDACHECK(cudaMalloc(&h, (size_t)seq * ffn_local * sizeof(bf16)));
  CUDACHECK(cudaMalloc(&partial, (size_t)seq * hidden * sizeof(bf16)));
  CUDACHECK(cudaMalloc(&rs_out, (size_t)seq_local * hidden * sizeof(bf16)));
  const size_t local_elems = (size_t)seq_local * hidden;

  cudaEvent_t t0, t1;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  for (int it = -3; it < iters; ++it) {  // 3 warmup iterations
    if (it == 0) cudaEventRecord(t0, stream);
    CUDACHECK(cudaMemcpyAsync(y_local, x_local, local_elems * sizeof(bf16), cudaMemcpyDeviceToDevice, stream));
    for (int l = 0; l < layers; ++l) {
      NCCLCHECK(ncclAllGather(y_local, x_full, local_elems, ncclBfloat16, comm, stream));
      gemm_bf16(handle, seq, ffn_local, hidden, x_full, w1 + (size_t)l * hidden * ffn_local, h);
      gelu_kernel<<<blocks_for((size_t)seq * ffn_local), 256, 0, stream>>>(h, (size_t)seq * ffn_local);
      gemm_bf16(handle, seq, hidden, ffn_local, h, w2 + (size_t)l * ffn_local * hidden, partial);
      NCCLCHECK(ncclReduceScatter(partial, rs_out, local_elems, ncclBfloat16, ncclSum, comm, stream));
      residual_kernel<<<blocks_for(local_elems), 256, 0, stream>>>(y_local, rs_out, local_elems);
    }
  }
  cudaEventRecord(t1, stream);
  CUDACHECK(cudaStreamSynchronize(stream));
  float ms;
  cudaEventElapsedTime(&ms, t0, t1);

  // Gather the full output on rank 0 for the checksum.
  float* y_f32;
  CUDACHECK(cudaMalloc(&y_f32, local_elems * sizeof(float)));
  to_float_kernel<<<blocks_for(local_elems), 256, 0, stream>>>(y_f32, y_local, local_elems);
  std::vector<float> mine(local_elems), all(rank == 0 ? local_elems * nranks : 1);
  CUDACHECK(cudaMemcpyAsync(mine.data(), y_f32, local_elems * sizeof(float), cudaMemcpyDeviceToHost, stream));
  CUDACHECK(cudaStreamSynchronize(stream));
  MPI_Gather(mine.data(), (int)local_elems, MPI_FLOAT, all.data(), (int)local_elems, MPI_FLOAT, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("sp_mlp bf16: seq=%d hidden=%d ffn=%d layers=%d ranks=%d\n", seq, hidden, ffn, layers, nranks);
    printf("checksum: %.4f\n", checksum(all.data(), all.size()));
    printf("avg iteration time: %.3f ms\n", ms / iters);
  }

  cudaFree(w1); cudaFree(w2); cudaFree(x_local); cudaFree(y_local); cudaFree(x_full);
  cudaFree(h); cudaFree(partial); cudaFree(rs_out); cudaFree(y_f32);
  cublasDestroy(handle);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
