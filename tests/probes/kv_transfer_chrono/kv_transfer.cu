// Disaggregated serving toy: even ranks run "prefill" and ship the KV cache of a
// request, layer by layer, to the paired odd "decode" rank, which then runs one
// decode step (a GEMV against each layer's cache).
//
// build: nvcc -O2 -std=c++17 -arch=sm_90 $(mpicc --showme:compile) kv_transfer.cu -o kv_transfer -lnccl -lcublas -lmpi
// run:   mpirun -np 2 ./kv_transfer [num_layers] [seq_len]
#include <mpi.h>
#include <nccl.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <chrono>

static void checkCuda(cudaError_t err, const char* what)
{
  if (err != cudaSuccess) {
    fprintf(stderr, "[cuda] %s failed: %s\n", what, cudaGetErrorString(err));
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

static void checkNccl(ncclResult_t res, const char* what)
{
  if (res != ncclSuccess) {
    fprintf(stderr, "[nccl] %s failed: %s\n", what, ncclGetErrorString(res));
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
}

struct KVConfig {
  int num_layers = 8;
  int num_heads = 16;
  int head_dim = 64;
  int seq_len = 1024;
  size_t layer_elems() const { return (size_t)2 * num_heads * seq_len * head_dim; }  // K and V
};

// Fake prefill: writes the KV cache for one layer from a "hidden state" seed.
__global__ void prefill_layer_kernel(half* kv, const float* hidden, int layer, size_t n)
{
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (; i < n; i += stride) {
    float h = hidden[i % 4096];
    kv[i] = __float2half(h * (1.0f + 0.01f * layer) + 1e-3f * (float)(i % 97));
  }
}

// One decode step: out[l][h*seq + s] = dot(K[l][h][s][:], q[h][:])  (scores against the cache)
__global__ void gemv_scores_kernel(const half* __restrict__ k, const float* __restrict__ q,
                                   float* __restrict__ scores, int heads, int seq, int dim)
{
  int row = blockIdx.x * blockDim.y + threadIdx.y;   // row in [0, heads*seq)
  if (row >= heads * seq) return;
  int h = row / seq;
  const half* krow = k + (size_t)row * dim;
  const float* qh = q + (size_t)h * dim;
  float acc = 0.f;
  for (int d = threadIdx.x; d < dim; d += 32) acc += __half2float(krow[d]) * qh[d];
  for (int off = 16; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffff, acc, off);
  if (threadIdx.x == 0) scores[row] = acc;
}

int main(int argc, char* argv[])
{
  MPI_Init(&argc, &argv);
  int world_rank = 0, world_size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  if (world_size % 2 != 0) {
    if (world_rank == 0) fprintf(stderr, "need an even number of ranks (prefill/decode pairs)\n");
    MPI_Finalize();
    return 1;
  }

  KVConfig cfg;
  if (argc > 1) cfg.num_layers = atoi(argv[1]);
  if (argc > 2) cfg.seq_len = atoi(argv[2]);
  const int num_layers = cfg.num_layers;
  const bool is_prefill = (world_rank % 2 == 0);
  const int peer = is_prefill ? world_rank + 1 : world_rank - 1;

  int local_devices = 0;
  checkCuda(cudaGetDeviceCount(&local_devices), "cudaGetDeviceCount");
  checkCuda(cudaSetDevice(world_rank % local_devices), "cudaSetDevice");

  ncclUniqueId nccl_id;
  if (world_rank == 0) checkNccl(ncclGetUniqueId(&nccl_id), "ncclGetUniqueId");
  MPI_Bcast(reinterpret_cast<void*>(&nccl_id), sizeof(nccl_id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t nccl_comm;
  checkNccl(ncclCommInitRank(&nccl_comm, world_size, nccl_id, world_rank), "ncclCommInitRank");

  cudaStream_t s;
  checkCuda(cudaStreamCreate(&s), "cudaStreamCreate");

  const size_t layer_elems = cfg.layer_elems();
  std::vector<half*> kv_cache(num_layers, nullptr);
  for (int l = 0; l < num_layers; ++l)
    checkCuda(cudaMalloc(&kv_cache[l], layer_elems * sizeof(half)), "cudaMalloc kv");

  float* d_hidden = nullptr;   // prefill input
  float* d_query = nullptr;    // decode query, [heads x dim]
  float* d_scores = nullptr;   // decode output, [layers x heads x seq]
  checkCuda(cudaMalloc(&d_hidden, 4096 * sizeof(float)), "cudaMalloc hidden");
  checkCuda(cudaMalloc(&d_query, (size_t)cfg.num_heads * cfg.head_dim * sizeof(float)), "cudaMalloc query");
  const size_t score_elems = (size_t)num_layers * cfg.num_heads * cfg.seq_len;
  checkCuda(cudaMalloc(&d_scores, score_elems * sizeof(float)), "cudaMalloc scores");
  checkCuda(cudaMemset(d_scores, 0, score_elems * sizeof(float)), "cudaMemset scores");

  std::vector<float> h_hidden(4096), h_query((size_t)cfg.num_heads * cfg.head_dim);
  for (size_t i = 0; i < h_hidden.size(); ++i) h_hidden[i] = 0.001f * (float)((i * 37 + world_rank) % 1000);
  for (size_t i = 0; i < h_query.size(); ++i) h_query[i] = 0.01f * (float)((i * 13) % 100) - 0.5f;
  checkCuda(cudaMemcpy(d_hidden, h_hidden.data(), h_hidden.size() * sizeof(float), cudaMemcpyHostToDevice), "H2D hidden");
  checkCuda(cudaMemcpy(d_query, h_query.data(), h_query.size() * sizeof(float), cudaMemcpyHostToDevice), "H2D query");

  const int iters = 50;
  double total_ms = 0.0;
  for (int iter = 0; iter < iters; ++iter) {
    MPI_Barrier(MPI_COMM_WORLD);
    auto start = std::chrono::high_resolution_clock::now();

    if (is_prefill) {
      for (int l = 0; l < num_layers; ++l)
        prefill_layer_kernel<<<256, 256, 0, s>>>(kv_cache[l], d_hidden, l, layer_elems);
      checkNccl(ncclGroupStart(), "group start");
      for (int l = 0; l < num_layers; ++l)
        checkNccl(ncclSend(kv_cache[l], layer_elems * sizeof(half), ncclUint8, peer, nccl_comm, s), "ncclSend");
      checkNccl(ncclGroupEnd(), "group end");
    } else {
      checkNccl(ncclGroupStart(), "group start");
      for (int l = 0; l < num_layers; ++l)
        checkNccl(ncclRecv(kv_cache[l], layer_elems * sizeof(half), ncclUint8, peer, nccl_comm, s), "ncclRecv");
      checkNccl(ncclGroupEnd(), "group end");
      dim3 block(32, 8);
      dim3 grid((cfg.num_heads * cfg.seq_len + block.y - 1) / block.y);
      for (int l = 0; l < num_layers; ++l) {
        // the K half of the layer buffer; V is unused by this toy decode step
        gemv_scores_kernel<<<grid, block, 0, s>>>(kv_cache[l], d_query,
                                                  d_scores + (size_t)l * cfg.num_heads * cfg.seq_len,
                                                  cfg.num_heads, cfg.seq_len, cfg.head_dim);
      }
    }
    checkCuda(cudaStreamSynchronize(s), "sync");
    auto stop = std::chrono::high_resolution_clock::now();
    if (iter >= 5) total_ms += std::chrono::duration<double, std::milli>(stop - start).count();
  }

  double checksum = 0.0;
  if (!is_prefill) {
    std::vector<float> h_scores(score_elems);
    checkCuda(cudaMemcpy(h_scores.data(), d_scores, score_elems * sizeof(float), cudaMemcpyDeviceToHost), "D2H scores");
    for (float v : h_scores) checksum += v;
  }
  double global_checksum = 0.0;
  MPI_Reduce(&checksum, &global_checksum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (world_rank == 0) {
    double gb = (double)num_layers * layer_elems * sizeof(half) / 1e9;
    double avg = total_ms / (iters - 5);
    printf("kv transfer: layers=%d seq=%d  avg %.3f ms  (%.2f GB/s per pair)\n", num_layers, cfg.seq_len, avg, gb / (avg / 1e3));
    printf("checksum %.6e\n", global_checksum);
  }

  for (auto p : kv_cache) cudaFree(p);
  cudaFree(d_hidden); cudaFree(d_query); cudaFree(d_scores);
  ncclCommDestroy(nccl_comm);
  cudaStreamDestroy(s);
  MPI_Finalize();
  return 0;
}
