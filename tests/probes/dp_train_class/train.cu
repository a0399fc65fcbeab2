// Data-parallel MLP training step (2 Linear layers + ReLU, MSE loss), launched
// with one process per GPU by mpirun or a shell loop; no MPI calls: rank/world
// come from the environment and rank 0 hands out the NCCL id through a file.
//
// build: nvcc -O2 -std=c++17 -arch=sm_90 train.cu -o train -lnccl -lcublas
// run:   mpirun -np 4 ./train   (or RANK=i WORLD_SIZE=n LOCAL_RANK=i ./train)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <fstream>
#include <thread>
#include <chrono>
#include <unistd.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <nccl.h>

#define CK(call) do { auto _e = (call); if (_e != cudaSuccess) { \
  printf("cuda error %s (%s:%d)\n", cudaGetErrorString(_e), __FILE__, __LINE__); exit(1); } } while (0)
#define NK(call) do { auto _e = (call); if (_e != ncclSuccess) { \
  printf("nccl error %s (%s:%d)\n", ncclGetErrorString(_e), __FILE__, __LINE__); exit(1); } } while (0)
#define BK(call) do { auto _e = (call); if (_e != CUBLAS_STATUS_SUCCESS) { \
  printf("cublas error %d (%s:%d)\n", (int)_e, __FILE__, __LINE__); exit(1); } } while (0)

static int env_int(const char* name, int dflt)
{
  const char* v = getenv(name);
  return v ? atoi(v) : dflt;
}

__global__ void relu_fwd(float* x, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] > 0.f ? x[i] : 0.f;
}

__global__ void relu_bwd(const float* act, float* g, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && act[i] <= 0.f) g[i] = 0.f;
}

__global__ void mse_grad(const float* pred, const float* target, float* g, int n, float scale)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) g[i] = scale * (pred[i] - target[i]);
}

__global__ void sgd_update(float* w, const float* g, int n, float lr)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] -= lr * g[i];
}

__global__ void init_uniform(float* p, int n, unsigned seed, float scale)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned h = (unsigned)i * 2654435761u ^ seed;
    h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = scale * ((h & 0xffffff) / (float)0x1000000 - 0.5f);
  }
}

// y[batch x out] = x[batch x in] * W^T, W stored [out x in] row-major.
class Linear {
 public:
  float* w = nullptr;
  float* grad = nullptr;
  int in_f, out_f;

  Linear(int in_features, int out_features, unsigned seed) : in_f(in_features), out_f(out_features) {
    CK(cudaMalloc(&w, sizeof(float) * in_f * out_f));
    CK(cudaMalloc(&grad, sizeof(float) * in_f * out_f));
    init_uniform<<<(in_f * out_f + 255) / 256, 256>>>(w, in_f * out_f, seed, 2.0f / in_f);
    CK(cudaMemset(grad, 0, sizeof(float) * in_f * out_f));
  }
  ~Linear() { cudaFree(w); cudaFree(grad); }
  size_t numel() const { return (size_t)in_f * out_f; }

  void forward(cublasHandle_t h, const float* x, float* y, int batch) {
    const float one = 1.f, zero = 0.f;
    // column-major view: y^T[out x batch] = W[out x in] (as col-major in x out, transposed) * x^T
    BK(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, out_f, batch, in_f, &one, w, in_f, x, in_f, &zero, y, out_f));
  }
  // dy [batch x out]; writes grad (dW) and, if dx != nullptr, dx [batch x in]
  void backward(cublasHandle_t h, const float* x, const float* dy, float* dx, int batch) {
    const float one = 1.f, zero = 0.f;
    // dW^T[in x out] = x^T[in x batch] * dy[batch x out]
    BK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, in_f, out_f, batch, &one, x, in_f, dy, out_f, &zero, grad, in_f));
    if (dx)
      BK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, in_f, batch, out_f, &one, w, in_f, dy, out_f, &zero, dx, in_f));
  }
};

static ncclUniqueId exchange_id(int rank, const std::string& path)
{
  ncclUniqueId id;
  if (rank == 0) {
    NK(ncclGetUniqueId(&id));
    std::string tmp = path + ".tmp";
    std::ofstream f(tmp, std::ios::binary);
    f.write(reinterpret_cast<const char*>(&id), sizeof(id));
    f.close();
    rename(tmp.c_str(), path.c_str());
  } else {
    for (;;) {
      std::ifstream f(path, std::ios::binary);
      if (f.good()) {
        f.read(reinterpret_cast<char*>(&id), sizeof(id));
        if (f.gcount() == sizeof(id)) break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  return id;
}

int main()
{
  const int rank = env_int("OMPI_COMM_WORLD_RANK", env_int("RANK", 0));
  const int world = env_int("OMPI_COMM_WORLD_SIZE", env_int("WORLD_SIZE", 1));
  const int local_rank = env_int("LOCAL_RANK", env_int("OMPI_COMM_WORLD_LOCAL_RANK", 0));
  CK(cudaSetDevice(local_rank));

  const char* idfile_env = getenv("NCCL_ID_FILE");
  std::string idfile = idfile_env ? idfile_env : "nccl_id.bin";
  ncclUniqueId id = exchange_id(rank, idfile);
  ncclComm_t comm;
  NK(ncclCommInitRank(&comm, world, id, rank));

  const int batch = 256, d_in = 1024, d_hidden = 4096, d_out = 1024;
  const int steps = 30;
  const float lr = 1e-3f;

  cudaStream_t stream;
  CK(cudaStreamCreate(&stream));
  cublasHandle_t blas;
  BK(cublasCreate(&blas));
  BK(cublasSetStream(blas, stream));

  std::vector<Linear*> layers;
  layers.push_back(new Linear(d_in, d_hidden, 17));
  layers.push_back(new Linear(d_hidden, d_out, 29));
  CK(cudaDeviceSynchronize());

  // per-rank data shard
  float *x, *target, *h, *y, *dy, *dh;
  CK(cudaMalloc(&x, sizeof(float) * batch * d_in));
  CK(cudaMalloc(&target, sizeof(float) * batch * d_out));
  CK(cudaMalloc(&h, sizeof(float) * batch * d_hidden));
  CK(cudaMalloc(&y, sizeof(float) * batch * d_out));
  CK(cudaMalloc(&dy, sizeof(float) * batch * d_out));
  CK(cudaMalloc(&dh, sizeof(float) * batch * d_hidden));
  init_uniform<<<(batch * d_in + 255) / 256, 256, 0, stream>>>(x, batch * d_in, 1000 + rank, 1.f);
  init_uniform<<<(batch * d_out + 255) / 256, 256, 0, stream>>>(target, batch * d_out, 2000 + rank, 1.f);

  // make every replica start from rank 0's weights
  for (Linear* layer : layers)
    NK(ncclBroadcast(layer->w, layer->w, layer->numel(), ncclFloat, 0, comm, stream));
  CK(cudaStreamSynchronize(stream));

  Linear& fc1 = *layers[0];
  Linear& fc2 = *layers[1];
  const float grad_scale = 2.0f / (batch * d_out * world);

  cudaEvent_t start, stop;
  CK(cudaEventCreate(&start));
  CK(cudaEventCreate(&stop));
  CK(cudaEventRecord(start, stream));
  for (int step = 0; step < steps; ++step) {
    fc1.forward(blas, x, h, batch);
    relu_fwd<<<(batch * d_hidden + 255) / 256, 256, 0, stream>>>(h, batch * d_hidden);
    fc2.forward(blas, h, y, batch);
    mse_grad<<<(batch * d_out + 255) / 256, 256, 0, stream>>>(y, target, dy, batch * d_out, grad_scale);
    fc2.backward(blas, h, dy, dh, batch);
    relu_bwd<<<(batch * d_hidden + 255) / 256, 256, 0, stream>>>(h, dh, batch * d_hidden);
    fc1.backward(blas, x, dh, nullptr, batch);

    // gradient all-reduce, one call per layer (sum; the 1/world is folded into grad_scale)
    for (Linear* lp : layers) {
      Linear& layer = *lp;
      NK(ncclAllReduce(layer.grad, layer.grad, layer.numel(), ncclFloat, ncclSum, comm, stream));
      sgd_update<<<(int)((layer.numel() + 255) / 256), 256, 0, stream>>>(layer.w, layer.grad, (int)layer.numel(), lr);
    }
  }
  CK(cudaEventRecord(stop, stream));
  CK(cudaStreamSynchronize(stream));
  float ms = 0.f;
  CK(cudaEventElapsedTime(&ms, start, stop));

  std::vector<float> hw(fc2.numel());
  CK(cudaMemcpy(hw.data(), fc2.w, sizeof(float) * hw.size(), cudaMemcpyDeviceToHost));
  double sum = 0.0;
  for (float v : hw) sum += v;
  printf("rank %d/%d: %d steps, %.3f ms/step, weight checksum %.8f\n", rank, world, steps, ms / steps, sum);

  for (Linear* layer : layers) delete layer;
  cudaFree(x); cudaFree(target); cudaFree(h); cudaFree(y); cudaFree(dy); cudaFree(dh);
  cublasDestroy(blas);
  ncclCommDestroy(comm);
  cudaStreamDestroy(stream);
  if (rank == 0) unlink(idfile.c_str());
  return 0;
}
