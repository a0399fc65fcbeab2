// Sequence-parallel MLP block (Megatron-SP): activations are sharded along the sequence;
// all-gather the sequence before the column-parallel GEMM, reduce-scatter after the
// row-parallel GEMM, then add the residual on the local shard. bf16 storage, fp32 accumulate.
//
// Sizes come from the environment: SEQ, HIDDEN, FFN, ITERS, WARMUP.
//   SEQ=4096 HIDDEN=4096 mpirun -np 4 ./sp_block
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <mpi.h>
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cublas_v2.h>
#include <nccl.h>

static void die(const char* what, const char* msg, const char* file, int line) {
  fprintf(stderr, "[%s] %s (%s:%d)\n", what, msg, file, line);
  MPI_Abort(MPI_COMM_WORLD, 1);
}
#define CUDA_CALL(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) die("cuda", cudaGetErrorString(e_), __FILE__, __LINE__); } while (0)
#define NCCL_CALL(x) do { ncclResult_t r_ = (x); if (r_ != ncclSuccess) die("nccl", ncclGetErrorString(r_), __FILE__, __LINE__); } while (0)
#define CUBLAS_CALL(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) die("cublas", "status != SUCCESS", __FILE__, __LINE__); } while (0)

static int env_int(const char* name, int dflt) {
  return getenv(name) ? atoi(getenv(name)) : dflt;
}

struct Config {
  int seq;      // full sequence length (all ranks)
  int hidden;
  int ffn;      // full ffn width (all ranks)
  int warmup;
  int iters;
  int world;
  int rank;
  int seq_local() const { return seq / world; }
  int ffn_local() const { return ffn / world; }
};

struct Buffers {
  __nv_bfloat16* x_local = nullptr;   // [seq/world, hidden]  this rank's sequence shard
  __nv_bfloat16* x_full = nullptr;    // [seq, hidden]        after all-gather
  __nv_bfloat16* w_in = nullptr;      // [hidden, ffn/world]
  __nv_bfloat16* w_out = nullptr;     // [ffn/world, hidden]
  __nv_bfloat16* act = nullptr;       // [seq, ffn/world]
  __nv_bfloat16* partial = nullptr;   // [seq, hidden]        partial sums of the row-parallel GEMM
  __nv_bfloat16* y_local = nullptr;   // [seq/world, hidden]  reduce-scattered
  __nv_bfloat16* out = nullptr;       // [seq/world, hidden]  y_local + x_local
};

static void alloc_buffers(Buffers& b, const Config& c) {
  const size_t H = c.hidden, S = c.seq, Sl = c.seq_local(), Fl = c.ffn_local();
  CUDA_CALL(cudaMalloc(&b.x_local, Sl * H * sizeof(__nv_bfloat16)));
  CUDA_CALL(cudaMalloc(&b.x_full, S * H * sizeof(__nv_bfloat16)));
  CUDA_CALL(cudaMalloc(&b.w_in, H * Fl * sizeof(__nv_bfloat16)));
  CUDA_CALL(cudaMalloc(&b.w_out, Fl * H * sizeof(__nv_bfloat16)));
  CUDA_CALL(cudaMalloc(&b.act, S * Fl * sizeof(__nv_bfloat16)));
  CUDA_CALL(cudaMalloc(&b.partial, S * H * sizeof(__nv_bfloat16)));
  CUDA_CALL(cudaMalloc(&b.y_local, Sl * H * sizeof(__nv_bfloat16)));
  CUDA_CALL(cudaMalloc(&b.out, Sl * H * sizeof(__nv_bfloat16)));
}

static void free_buffers(Buffers& b) {
  cudaFree(b.x_local); cudaFree(b.x_full); cudaFree(b.w_in); cudaFree(b.w_out);
  cudaFree(b.act); cudaFree(b.partial); cudaFree(b.y_local); cudaFree(b.out);
}

// Upload host-generated values (small LCG) so every run is reproducible.
static void fill_random(__nv_bfloat16* dst, size_t n, uint32_t seed, float scale) {
  std::vector<__nv_bfloat16> h(n);
  uint32_t s = seed * 747796405u + 2891336453u;
  for (size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    float u = (float)(s >> 8) / (float)(1u << 24);
    h[i] = __float2bfloat16((u - 0.5f) * scale);
  }
  CUDA_CALL(cudaMemcpy(dst, h.data(), n * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));
}

__global__ void silu_kernel(__nv_bfloat16* __restrict__ x, int64_t n) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    float v = __bfloat162float(x[i]);
    x[i] = __float2bfloat16(v / (1.f + __expf(-v)));
  }
}

__global__ void residual_add(const __nv_bfloat16* __restrict__ a,
                             const __nv_bfloat16* __restrict__ b,
                             __nv_bfloat16* __restrict__ c, int64_t n) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = __float2bfloat16(__bfloat162float(a[i]) + __bfloat162float(b[i]));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Config cfg;
  MPI_Comm_rank(MPI_COMM_WORLD, &cfg.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &cfg.world);
  cfg.seq    = getenv("SEQ") ? atoi(getenv("SEQ")) : 2048;
  cfg.hidden = getenv("HIDDEN") ? atoi(getenv("HIDDEN")) : 2048;
  cfg.ffn    = env_int("FFN", 8192);
  cfg.warmup = env_int("WARMUP", 10);
  cfg.iters  = env_int("ITERS", 100);
  if (cfg.seq % cfg.world || cfg.ffn % cfg.world) {
    if (cfg.rank == 0) fprintf(stderr, "SEQ and FFN must be divisible by the number of ranks\n");
    MPI_Finalize();
    return 1;
  }

  // local rank -> device
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, cfg.rank, MPI_INFO_NULL, &local);
  int local_rank;
  MPI_Comm_rank(local, &local_rank);
  CUDA_CALL(cudaSetDevice(local_rank));

  // every rank makes an id, rank 0's wins
  ncclUniqueId my_id, id;
  std::vector<ncclUniqueId> all_ids(cfg.world);
  NCCL_CALL(ncclGetUniqueId(&my_id));
  MPI_Allgather(&my_id, sizeof(ncclUniqueId), MPI_BYTE, all_ids.data(), sizeof(ncclUniqueId),
                MPI_BYTE, MPI_COMM_WORLD);
  id = all_ids[0];
  ncclComm_t comm;
  NCCL_CALL(ncclCommInitRank(&comm, cfg.world, id, cfg.rank));

  cudaStream_t s;
  CUDA_CALL(cudaStreamCreate(&s));
  cublasHandle_t handle;
  CUBLAS_CALL(cublasCreate(&handle));
  CUBLAS_CALL(cublasSetStream(handle, s));

  Buffers buf;
  alloc_buffers(buf, cfg);
  const size_t H = cfg.hidden, S = cfg.seq, Sl = cfg.seq_local(), Fl = cfg.ffn_local();
  fill_random(buf.x_local, Sl * H, 100 + cfg.rank, 2.f);
  fill_random(buf.w_in, H * Fl, 200 + cfg.rank, 0.05f);
  fill_random(buf.w_out, Fl * H, 300 + cfg.rank, 0.05f);

  cudaEvent_t start, stop;
  CUDA_CALL(cudaEventCreate(&start));
  CUDA_CALL(cudaEventCreate(&stop));
  const float one = 1.f, zero = 0.f;

  for (int step = 0; step < cfg.warmup + cfg.iters; ++step) {
    if (step == cfg.warmup) CUDA_CALL(cudaEventRecord(start, s));

    // [S/W, H] x W -> [S, H]
    NCCL_CALL(ncclAllGather(buf.x_local, buf.x_full, Sl * H, ncclBfloat16, comm, s));
    // act[S, Fl] = x_full[S, H] * w_in[H, Fl]   (row-major via column-major C^T = B^T A^T)
    CUBLAS_CALL(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, (int)Fl, (int)S, (int)H, &one,
                             buf.w_in, CUDA_R_16BF, (int)Fl, buf.x_full, CUDA_R_16BF, (int)H, &zero,
                             buf.act, CUDA_R_16BF, (int)Fl, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    silu_kernel<<<2048, 256, 0, s>>>(buf.act, (int64_t)(S * Fl));
    // partial[S, H] = act[S, Fl] * w_out[Fl, H]
    CUBLAS_CALL(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, (int)H, (int)S, (int)Fl, &one,
                             buf.w_out, CUDA_R_16BF, (int)H, buf.act, CUDA_R_16BF, (int)Fl, &zero,
                             buf.partial, CUDA_R_16BF, (int)H, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    NCCL_CALL(ncclReduceScatter(buf.partial, buf.y_local, Sl * H, ncclBfloat16, ncclSum, comm, s));
    residual_add<<<(unsigned)((Sl * H + 255) / 256), 256, 0, s>>>(buf.y_local, buf.x_local, buf.out,
                                                                  (int64_t)(Sl * H));
  }
  CUDA_CALL(cudaEventRecord(stop, s));
  CUDA_CALL(cudaEventSynchronize(stop));
  float ms = 0.f;
  CUDA_CALL(cudaEventElapsedTime(&ms, start, stop));

  std::vector<__nv_bfloat16> h_out(Sl * H);
  CUDA_CALL(cudaMemcpy(h_out.data(), buf.out, h_out.size() * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost));
  double local_sum = 0.0, global_sum = 0.0;
  for (auto v : h_out) local_sum += (double)__bfloat162float(v);
  MPI_Reduce(&local_sum, &global_sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);

  float max_ms = 0.f;
  MPI_Reduce(&ms, &max_ms, 1, MPI_FLOAT, MPI_MAX, 0, MPI_COMM_WORLD);
  if (cfg.rank == 0) {
    printf("sp_block seq=%d hidden=%d ffn=%d world=%d\n", cfg.seq, cfg.hidden, cfg.ffn, cfg.world);
    printf("per-step time: %.4f ms\n", max_ms / cfg.iters);
    printf("checksum: %.6e\n", global_sum);
  }

  free_buffers(buf);
  cublasDestroy(handle);
  cudaStreamDestroy(s);
  ncclCommDestroy(comm);
  MPI_Comm_free(&local);
  MPI_Finalize();
  return 0;
}
