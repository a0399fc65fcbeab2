// Habit of benchmark suites with a shared timing header (written here, not copied): for each routing
// case main allocates its buffers (declared null first), then hands the exchange to the header's
// run_benchmark as a lambda; the timing lives in the helper, not in main.
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "timing.h"

#define CUDA_OK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)
#define NCCL_OK(x) do { ncclResult_t r_ = (x); if (r_ != ncclSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, ncclGetErrorString(r_)); std::exit(1); } } while (0)

__global__ void gate(const float* in, float* out, size_t n) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = in[i] * 0.5f + 1.0f;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  int gpus = 0;
  CUDA_OK(cudaGetDeviceCount(&gpus));
  CUDA_OK(cudaSetDevice(rank % gpus));
  ncclUniqueId id;
  if (rank == 0) NCCL_OK(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  NCCL_OK(ncclCommInitRank(&comm, ranks, id, rank));
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreate(&stream));
  const size_t tokens = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 4096, hidden = 256;
  for (int skew = 0; skew < 2; ++skew) {
    const size_t per_peer = tokens / ranks * hidden;  // the same count to every peer
    const size_t elements = per_peer * ranks;
    float* tokens_in = nullptr;
    float* gated = nullptr;
    float* received = nullptr;
    CUDA_OK(cudaMalloc(&tokens_in, elements * sizeof(float)));
    CUDA_OK(cudaMalloc(&gated, elements * sizeof(float)));
    CUDA_OK(cudaMalloc(&received, elements * sizeof(float)));
    std::vector<float> host(elements);
    for (size_t i = 0; i < elements; ++i) host[i] = static_cast<float>((i * 7 + rank + skew) % 13) / 13.0f;
    CUDA_OK(cudaMemcpy(tokens_in, host.data(), elements * sizeof(float), cudaMemcpyHostToDevice));
    const BenchStats stats = run_benchmark(2, 10, [&]() {
      gate<<<256, 256, 0, stream>>>(tokens_in, gated, elements);
      NCCL_OK(ncclGroupStart());
      for (int peer = 0; peer < ranks; ++peer) {
        NCCL_OK(ncclSend(gated + peer * per_peer, per_peer, ncclFloat, peer, comm, stream));
        NCCL_OK(ncclRecv(received + peer * per_peer, per_peer, ncclFloat, peer, comm, stream));
      }
      NCCL_OK(ncclGroupEnd());
      CUDA_OK(cudaStreamSynchronize(stream));
    });
    if (rank == 0) std::printf("skew %d: dispatch of %zu floats a peer: %.3f ms\n", skew, per_peer, stats.mean_ms);
    CUDA_OK(cudaFree(tokens_in));
    CUDA_OK(cudaFree(gated));
    CUDA_OK(cudaFree(received));
  }
  NCCL_OK(ncclCommDestroy(comm));
  MPI_Finalize();
  return 0;
}
