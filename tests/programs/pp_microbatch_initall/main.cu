// Pipeline-parallel forward in one process driving every GPU (ncclCommInitAll): GPU s holds
// stage s (a few Linear+ReLU layers); micro-batches flow GPU 0 -> 1 -> ... -> last.
//   ./pp_forward [micro_batches] [micro_batch_tokens] [hidden] [layers_per_stage]
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CALL(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  printf("CUDA failure %s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)
#define NCCL_CALL(x) do { ncclResult_t e_ = (x); if (e_ != ncclSuccess) { \
  printf("NCCL failure %s:%d: %s\n", __FILE__, __LINE__, ncclGetErrorString(e_)); exit(1); } } while (0)
#define CUBLAS_CALL(x) do { cublasStatus_t e_ = (x); if (e_ != CUBLAS_STATUS_SUCCESS) { \
  printf("cuBLAS failure %s:%d: %d\n", __FILE__, __LINE__, (int)e_); exit(1); } } while (0)

#define MAX_GPUS 8

__global__ void bias_relu(float* x, const float* b, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows * cols) x[i] = fmaxf(x[i] + b[i % cols], 0.f);
}

struct Stage {
  cublasHandle_t blas;
  cudaStream_t stream;
  float* w;          // [layers_per_stage][hidden][hidden]
  float* b;          // [layers_per_stage][hidden]
  float* x;          // stage 0 only: [micro_batches][mb_tokens][hidden] the input batch
  float* recv;       // stages > 0: [micro_batches][mb_tokens][hidden] activations from stage - 1
  float* tmp[2];     // ping-pong between layers: [mb_tokens][hidden]
  float* out;        // [micro_batches][mb_tokens][hidden] this stage's output per micro-batch
};

static void fill(std::vector<float>& v, unsigned seed, float scale) {
  srand(seed);
  for (auto& e : v) e = scale * (2.f * rand() / (float)RAND_MAX - 1.f);
}

// Runs stage s's layers on one micro-batch: in -> tmp -> ... -> out.
static void stage_forward(Stage& st, const float* in, float* out, int tokens, int hidden, int layers) {
  const float one = 1.f, zero = 0.f;
  const float* cur = in;
  for (int l = 0; l < layers; ++l) {
    float* dst = l == layers - 1 ? out : st.tmp[l % 2];
    CUBLAS_CALL(cublasSgemm(st.blas, CUBLAS_OP_N, CUBLAS_OP_N, hidden, tokens, hidden, &one,
                            st.w + (size_t)l * hidden * hidden, hidden, cur, hidden, &zero, dst, hidden));
    bias_relu<<<(tokens * hidden + 255) / 256, 256, 0, st.stream>>>(dst, st.b + l * hidden, tokens, hidden);
    cur = dst;
  }
}

int main(int argc, char** argv) {
  const int micro_batches = argc > 1 ? atoi(argv[1]) : 8;
  const int mb_tokens = argc > 2 ? atoi(argv[2]) : 256;
  const int hidden = argc > 3 ? atoi(argv[3]) : 1024;
  const int layers_per_stage = argc > 4 ? atoi(argv[4]) : 2;
  int nGPUs = 0;
  CUDA_CALL(cudaGetDeviceCount(&nGPUs));
  if (const char* n = getenv("NUM_GPUS")) nGPUs = atoi(n);
  if (nGPUs > MAX_GPUS) nGPUs = MAX_GPUS;
  const size_t mb_elems = (size_t)mb_tokens * hidden;

  int devs[MAX_GPUS];
  for (int i = 0; i < nGPUs; ++i) devs[i] = i;
  ncclComm_t comms[MAX_GPUS];
  NCCL_CALL(ncclCommInitAll(comms, nGPUs, devs));

  Stage stages[MAX_GPUS];
  for (int s = 0; s < nGPUs; ++s) {
    Stage& st = stages[s];
    CUDA_CALL(cudaSetDevice(devs[s]));
    CUDA_CALL(cudaStreamCreate(&st.stream));
    CUBLAS_CALL(cublasCreate(&st.blas));
    CUBLAS_CALL(cublasSetStream(st.blas, st.stream));
    std::vector<float> hw((size_t)layers_per_stage * hidden * hidden), hb((size_t)layers_per_stage * hidden);
    fill(hw, 100 + s, 1.5f / sqrtf((float)hidden));
    fill(hb, 200 + s, 0.05f);
    CUDA_CALL(cudaMalloc(&st.w, hw.size() * sizeof(float)));
    CUDA_CALL(cudaMalloc(&st.b, hb.size() * sizeof(float)));
    CUDA_CALL(cudaMemcpy(st.w, hw.data(), hw.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CALL(cudaMemcpy(st.b, hb.data(), hb.size() * sizeof(float), cudaMemcpyHostToDevice));
    st.x = st.recv = nullptr;
    if (s == 0) {
      std::vector<float> hx(micro_batches * mb_elems);
      fill(hx, 7, 1.f);
      CUDA_CALL(cudaMalloc(&st.x, hx.size() * sizeof(float)));
      CUDA_CALL(cudaMemcpy(st.x, hx.data(), hx.size() * sizeof(float), cudaMemcpyHostToDevice));
    } else {
      CUDA_CALL(cudaMalloc(&st.recv, micro_batches * mb_elems * sizeof(float)));
    }
    CUDA_CALL(cudaMalloc(&st.tmp[0], mb_elems * sizeof(float)));
    CUDA_CALL(cudaMalloc(&st.tmp[1], mb_elems * sizeof(float)));
    CUDA_CALL(cudaMalloc(&st.out, micro_batches * mb_elems * sizeof(float)));
  }

  // One forward pass of the whole batch: micro-batch m goes through stage 0, then is handed to
  // stage 1, and so on. Stage s works on m while stage s-1 already works on m+1 (their streams
  // only wait on each other through the send/recv).
  auto forward = [&]() {
    for (int m = 0; m < micro_batches; ++m) {
      for (int s = 0; s < nGPUs; ++s) {
        Stage& st = stages[s];
        if (s > 0) {  // hand micro-batch m from stage s-1 to stage s
          NCCL_CALL(ncclGroupStart());
          NCCL_CALL(ncclSend(stages[s - 1].out + m * mb_elems, mb_elems, ncclFloat, s, comms[s - 1],
                             stages[s - 1].stream));
          NCCL_CALL(ncclRecv(st.recv + m * mb_elems, mb_elems, ncclFloat, s - 1, comms[s], st.stream));
          NCCL_CALL(ncclGroupEnd());
        }
        CUDA_CALL(cudaSetDevice(devs[s]));
        stage_forward(st, (s == 0 ? st.x : st.recv) + m * mb_elems, st.out + m * mb_elems, mb_tokens, hidden,
                      layers_per_stage);
      }
    }
  };

  forward();  // warmup
  const int iters = 10;
  cudaEvent_t start[MAX_GPUS], stop[MAX_GPUS];
  for (int s = 0; s < nGPUs; ++s) {
    CUDA_CALL(cudaSetDevice(devs[s]));
    CUDA_CALL(cudaEventCreate(&start[s]));
    CUDA_CALL(cudaEventCreate(&stop[s]));
    CUDA_CALL(cudaEventRecord(start[s], stages[s].stream));
  }
  for (int it = 0; it < iters; ++it) forward();
  for (int s = 0; s < nGPUs; ++s) {
    CUDA_CALL(cudaSetDevice(devs[s]));
    CUDA_CALL(cudaEventRecord(stop[s], stages[s].stream));
  }
  for (int s = 0; s < nGPUs; ++s) {
    CUDA_CALL(cudaSetDevice(devs[s]));
    CUDA_CALL(cudaStreamSynchronize(stages[s].stream));
  }
  const int last = nGPUs - 1;
  float ms = 0;
  CUDA_CALL(cudaSetDevice(devs[last]));
  CUDA_CALL(cudaEventElapsedTime(&ms, start[last], stop[last]));

  std::vector<float> result(micro_batches * mb_elems);
  CUDA_CALL(cudaMemcpy(result.data(), stages[last].out, result.size() * sizeof(float), cudaMemcpyDeviceToHost));
  double sum = 0, asum = 0;
  for (float v : result) { sum += v; asum += fabs(v); }
  printf("pipeline: %d stages, %d micro-batches of %d tokens, hidden %d\n", nGPUs, micro_batches, mb_tokens, hidden);
  printf("checksum: %.6f (abs %.6f)\n", sum, asum);
  printf("avg iteration time: %.3f ms\n", ms / iters);

  for (int s = 0; s < nGPUs; ++s) {
    CUDA_CALL(cudaSetDevice(devs[s]));
    cudaFree(stages[s].w); cudaFree(stages[s].b); cudaFree(stages[s].x); cudaFree(stages[s].recv);
    cudaFree(stages[s].tmp[0]); cudaFree(stages[s].tmp[1]); cudaFree(stages[s].out);
    cublasDestroy(stages[s].blas);
    ncclCommDestroy(comms[s]);
  }
  return 0;
}
