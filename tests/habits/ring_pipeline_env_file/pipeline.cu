// Habit of launcher-agnostic pipeline demos (written here, not copied): ranks come from RANK and
// WORLD_SIZE, rank 0 writes the NCCL id to a file named by NCCL_ID_FILE (a default otherwise) that
// the others poll, MASTER_PORT is read without a default for a log line, and the error macro asks
// ncclCommGetAsyncError. Each micro-batch is produced on a compute stream and passed around the
// ring with grouped send/recv on a communication stream, ordered by events.
#include <cuda_runtime.h>
#include <nccl.h>
#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

static ncclComm_t g_comm;
#define NCCL_OK(x) do { ncclResult_t r_ = (x); if (r_ != ncclSuccess) { ncclResult_t a_ = ncclSuccess; \
  ncclCommGetAsyncError(g_comm, &a_); std::fprintf(stderr, "%s:%d %s (async %d)\n", __FILE__, __LINE__, \
  ncclGetErrorString(r_), (int)a_); std::exit(1); } } while (0)
#define CUDA_OK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)

__global__ void produce(float* out, const float* in, int n, float scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * scale + 1.0f;
}

static ncclUniqueId exchange_id(int rank, const std::string& path) {
  ncclUniqueId id;
  if (rank == 0) {
    ncclGetUniqueId(&id);
    FILE* f = std::fopen((path + ".part").c_str(), "wb");
    std::fwrite(&id, sizeof(id), 1, f);
    std::fclose(f);
    std::rename((path + ".part").c_str(), path.c_str());
  } else {
    FILE* f = nullptr;
    while ((f = std::fopen(path.c_str(), "rb")) == nullptr) usleep(1000);
    if (std::fread(&id, sizeof(id), 1, f) != 1) std::exit(1);
    std::fclose(f);
  }
  return id;
}

int main() {
  const int rank = std::atoi(std::getenv("RANK"));
  const int world = std::atoi(std::getenv("WORLD_SIZE"));
  const int port = std::atoi(std::getenv("MASTER_PORT"));
  const char* file = std::getenv("NCCL_ID_FILE");
  const std::string id_path = file ? file : "pipeline_nccl_id";
  std::printf("rank %d of %d (port %d)\n", rank, world, port);
  CUDA_OK(cudaSetDevice(rank));
  const ncclUniqueId id = exchange_id(rank, id_path);
  NCCL_OK(ncclCommInitRank(&g_comm, world, id, rank));
  cudaStream_t compute, comm_stream;
  CUDA_OK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
  CUDA_OK(cudaStreamCreateWithFlags(&comm_stream, cudaStreamNonBlocking));
  cudaEvent_t made, moved;
  CUDA_OK(cudaEventCreateWithFlags(&made, cudaEventDisableTiming));
  CUDA_OK(cudaEventCreateWithFlags(&moved, cudaEventDisableTiming));
  const int n = 1 << 20, micro = 4;
  float *input, *stage, *received;
  CUDA_OK(cudaMalloc(&input, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&stage, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&received, n * sizeof(float)));
  CUDA_OK(cudaMemset(input, 0, n * sizeof(float)));
  const int next = (rank + 1) % world, prev = (rank + world - 1) % world;
  const int per = n / micro;
  double ms = 0;
  for (int it = 0; it < 20; ++it) {
    auto t0 = std::chrono::steady_clock::now();
    for (int m = 0; m < micro; ++m) {
      produce<<<(per + 255) / 256, 256, 0, compute>>>(stage + m * per, input + m * per, per, 0.5f);
      CUDA_OK(cudaEventRecord(made, compute));
      CUDA_OK(cudaStreamWaitEvent(comm_stream, made, 0));
      NCCL_OK(ncclGroupStart());
      NCCL_OK(ncclSend(stage + m * per, per, ncclFloat, next, g_comm, comm_stream));
      NCCL_OK(ncclRecv(received + m * per, per, ncclFloat, prev, g_comm, comm_stream));
      NCCL_OK(ncclGroupEnd());
    }
    CUDA_OK(cudaEventRecord(moved, comm_stream));
    CUDA_OK(cudaStreamWaitEvent(compute, moved, 0));
    CUDA_OK(cudaStreamSynchronize(compute));
    ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  std::printf("rank %d: %.3f ms per step\n", rank, ms / 20);
  if (rank == 0) unlink(id_path.c_str());
  ncclCommDestroy(g_comm);
  return 0;
}
