// Habit of expert-parallel MoE layers (written here, not copied): the experts are an array of
// structs, each step reached through a reference `Expert& e = experts[k];` inside the layer's
// forward; every process also makes a data-parallel communicator of one rank (`ncclCommInitRank(&dp,
// 1, dp_id, 0)`) beside the world's; the layer's cuBLAS handle gets its stream through the
// constructor's parameter; and a second benchmark mode, taken only with `--sweep`, writes its
// results into a folder it makes (mkdir), which the default run never reaches.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <sys/stat.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CK(x) do { if ((x) != cudaSuccess) { std::fprintf(stderr, "cuda %s:%d\n", __FILE__, __LINE__); std::exit(1); } } while (0)
#define NK(x) do { if ((x) != ncclSuccess) { std::fprintf(stderr, "nccl %s:%d\n", __FILE__, __LINE__); std::exit(1); } } while (0)

struct Expert {
  float* w = nullptr;  // d x d
};

__global__ void fill(float* p, size_t n, float v) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] = v * (1 + i % 7);
}

struct Layer {
  int d, tokens, local_experts;
  Expert* experts;
  float *x, *h, *y;
  cudaStream_t stream;
  cublasHandle_t blas;
  Layer(int d_, int tokens_, int local_, cudaStream_t st) : d(d_), tokens(tokens_), local_experts(local_) {
    stream = st;
    cublasCreate(&blas);
    cublasSetStream(blas, st);
    experts = new Expert[local_experts];
    for (int k = 0; k < local_experts; ++k) {  // the weights are the program's own: made here, never refilled
      CK(cudaMalloc(&experts[k].w, (size_t)d * d * sizeof(float)));
      fill<<<64, 256, 0, st>>>(experts[k].w, (size_t)d * d, 0.01f * (k + 1));
    }
    CK(cudaMalloc(&x, (size_t)d * tokens * sizeof(float)));
    CK(cudaMalloc(&h, (size_t)d * tokens * sizeof(float)));
    CK(cudaMalloc(&y, (size_t)d * tokens * sizeof(float)));
  }
  // Every local expert applied to the tokens, summed into y, then y summed over the world and the
  // data-parallel group.
  void forward(ncclComm_t world, ncclComm_t dp) {
    const float one = 1.f, zero = 0.f;
    CK(cudaMemsetAsync(y, 0, (size_t)d * tokens * sizeof(float), stream));
    for (int k = 0; k < local_experts; ++k) {
      Expert& e = experts[k];
      cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, d, tokens, d, &one, e.w, d, x, d, &zero, h, d);
      cublasSaxpy(blas, d * tokens, &one, h, 1, y, 1);
    }
    CK(cudaStreamSynchronize(stream));
    NK(ncclAllReduce(y, y, (size_t)d * tokens, ncclFloat, ncclSum, world, stream));
    NK(ncclAllReduce(y, y, (size_t)d * tokens, ncclFloat, ncclSum, dp, stream));
  }
};

static void Sweep(Layer& layer, ncclComm_t world, ncclComm_t dp) {
  mkdir("sweep_results", 0755);
  FILE* f = std::fopen("sweep_results/times.txt", "w");
  for (int i = 0; i < 10; ++i) {
    layer.forward(world, dp);
    NK(ncclAllReduce(layer.y, layer.h, (size_t)layer.d * layer.tokens, ncclFloat, ncclMax, world, layer.stream));
  }
  if (f) std::fclose(f);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  int gpus = 1;
  CK(cudaGetDeviceCount(&gpus));
  CK(cudaSetDevice(rank % gpus));
  ncclUniqueId id;
  if (rank == 0) NK(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t world, dp;
  NK(ncclCommInitRank(&world, nranks, id, rank));
  ncclUniqueId dp_id;
  NK(ncclGetUniqueId(&dp_id));
  NK(ncclCommInitRank(&dp, 1, dp_id, 0));
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  Layer layer(256, 512, 8 / (nranks < 8 ? nranks : 8), s);
  if (argc > 1 && std::strcmp(argv[1], "--sweep") == 0) {
    Sweep(layer, world, dp);
  } else {
    for (int i = 0; i < 20; ++i) layer.forward(world, dp);
  }
  CK(cudaStreamSynchronize(s));
  std::printf("moe: %d ranks\n", nranks);
  MPI_Finalize();
  return 0;
}
