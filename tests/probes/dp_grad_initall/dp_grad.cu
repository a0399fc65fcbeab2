// Data-parallel linear layer, one process driving every visible GPU.
// Each GPU computes the weight gradient of its micro-batch  dW = X^T * dY  (SGEMM),
// the gradients are summed across GPUs with ncclAllReduce (one group over all devices),
// and every GPU applies the same SGD step. Afterwards a few gradient entries are checked
// against a host computation.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <random>
#include <algorithm>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <nccl.h>

#define CUDACHECK(cmd) do {                                   \
    cudaError_t e = cmd;                                      \
    if (e != cudaSuccess) {                                   \
      printf("Failed: Cuda error %s:%d '%s'\n",               \
             __FILE__, __LINE__, cudaGetErrorString(e));      \
      exit(EXIT_FAILURE);                                     \
    }                                                         \
  } while (0)

#define NCCLCHECK(cmd) do {                                   \
    ncclResult_t r = cmd;                                     \
    if (r != ncclSuccess) {                                   \
      printf("Failed, NCCL error %s:%d '%s'\n",               \
             __FILE__, __LINE__, ncclGetErrorString(r));      \
      exit(EXIT_FAILURE);                                     \
    }                                                         \
  } while (0)

#define CUBLASCHECK(cmd) do {                                 \
    cublasStatus_t s = cmd;                                   \
    if (s != CUBLAS_STATUS_SUCCESS) {                         \
      printf("Failed, cuBLAS error %s:%d %d\n",               \
             __FILE__, __LINE__, (int)s);                     \
      exit(EXIT_FAILURE);                                     \
    }                                                         \
  } while (0)

__global__ void sgd_update(float* w, const float* g, int n, float lr, float inv_ndev) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] -= lr * g[i] * inv_ndev;
}

int main(int argc, char* argv[]) {
  int ndev = 0;
  CUDACHECK(cudaGetDeviceCount(&ndev));
  if (ndev < 1) { printf("no GPUs\n"); return 1; }

  const int batch = 512;      // rows per GPU
  const int in_dim = 2048;
  const int out_dim = 1024;
  const int iters = 50;
  const float lr = 1e-3f;
  const size_t x_elems = (size_t)batch * in_dim;
  const size_t dy_elems = (size_t)batch * out_dim;
  const size_t w_elems = (size_t)in_dim * out_dim;

  std::vector<int> devs(ndev);
  for (int i = 0; i < ndev; ++i) devs[i] = i;
  std::vector<ncclComm_t> comms(ndev);
  NCCLCHECK(ncclCommInitAll(comms.data(), ndev, devs.data()));

  // host data: a different micro-batch per GPU, same initial weights
  std::mt19937 gen(42);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<std::vector<float>> h_x(ndev, std::vector<float>(x_elems));
  std::vector<std::vector<float>> h_dy(ndev, std::vector<float>(dy_elems));
  std::vector<float> h_w(w_elems);
  for (int d = 0; d < ndev; ++d) {
    for (auto& v : h_x[d]) v = dist(gen);
    for (auto& v : h_dy[d]) v = dist(gen);
  }
  for (auto& v : h_w) v = 0.01f * dist(gen);

  std::vector<float*> d_in(ndev), d_dy(ndev), d_grad(ndev), d_w(ndev);
  std::vector<cudaStream_t> streams(ndev);
  std::vector<cublasHandle_t> handles(ndev);
  std::vector<cudaEvent_t> ev_start(ndev), ev_stop(ndev);

  for (int i = 0; i < ndev; ++i) {
    CUDACHECK(cudaSetDevice(i));
    CUDACHECK(cudaStreamCreate(&streams[i]));
    CUBLASCHECK(cublasCreate(&handles[i]));
    CUBLASCHECK(cublasSetStream(handles[i], streams[i]));
    CUDACHECK(cudaMalloc(&d_in[i], x_elems * sizeof(float)));
    CUDACHECK(cudaMalloc(&d_dy[i], dy_elems * sizeof(float)));
    CUDACHECK(cudaMalloc(&d_grad[i], w_elems * sizeof(float)));
    CUDACHECK(cudaMalloc(&d_w[i], w_elems * sizeof(float)));
    CUDACHECK(cudaMemcpy(d_in[i], h_x[i].data(), x_elems * sizeof(float), cudaMemcpyHostToDevice));
    CUDACHECK(cudaMemcpy(d_dy[i], h_dy[i].data(), dy_elems * sizeof(float), cudaMemcpyHostToDevice));
    CUDACHECK(cudaMemcpy(d_w[i], h_w.data(), w_elems * sizeof(float), cudaMemcpyHostToDevice));
    CUDACHECK(cudaEventCreate(&ev_start[i]));
    CUDACHECK(cudaEventCreate(&ev_stop[i]));
  }

  const float alpha = 1.f, beta = 0.f;
  for (int i = 0; i < ndev; ++i) {
    CUDACHECK(cudaSetDevice(i));
    CUDACHECK(cudaEventRecord(ev_start[i], streams[i]));
  }
  for (int it = 0; it < iters; ++it) {
    // dW[in, out] (row-major) = X^T[in, batch] * dY[batch, out]
    // column-major view: dW^T[out, in] = dY^T[out, batch] * X[batch, in]
    for (int i = 0; i < ndev; ++i) {
      CUDACHECK(cudaSetDevice(i));
      CUBLASCHECK(cublasSgemm(handles[i], CUBLAS_OP_N, CUBLAS_OP_T, out_dim, in_dim, batch, &alpha,
                              d_dy[i], out_dim, d_in[i], in_dim, &beta, d_grad[i], out_dim));
    }
    NCCLCHECK(ncclGroupStart());
    for (int i = 0; i < ndev; ++i) {
      NCCLCHECK(ncclAllReduce(d_grad[i], d_grad[i], w_elems, ncclFloat, ncclSum, comms[i], streams[i]));
    }
    NCCLCHECK(ncclGroupEnd());
    for (int i = 0; i < ndev; ++i) {
      CUDACHECK(cudaSetDevice(i));
      sgd_update<<<(unsigned)((w_elems + 255) / 256), 256, 0, streams[i]>>>(d_w[i], d_grad[i], (int)w_elems, lr,
                                                                            1.f / ndev);
    }
  }
  float worst_ms = 0.f;
  for (int i = 0; i < ndev; ++i) {
    CUDACHECK(cudaSetDevice(i));
    CUDACHECK(cudaEventRecord(ev_stop[i], streams[i]));
  }
  for (int i = 0; i < ndev; ++i) {
    CUDACHECK(cudaSetDevice(i));
    CUDACHECK(cudaEventSynchronize(ev_stop[i]));
    float ms = 0.f;
    CUDACHECK(cudaEventElapsedTime(&ms, ev_start[i], ev_stop[i]));
    worst_ms = std::max(worst_ms, ms);
  }

  // verify: the all-reduced gradient on every GPU equals sum_d X_d^T dY_d, checked on sampled entries
  std::vector<float> h_grad(w_elems);
  int bad = 0;
  double checksum = 0.0;
  std::mt19937 pick(7);
  for (int i = 0; i < ndev; ++i) {
    CUDACHECK(cudaSetDevice(i));
    CUDACHECK(cudaMemcpy(h_grad.data(), d_grad[i], w_elems * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t k = 0; k < w_elems; ++k) checksum += h_grad[k];
    for (int s = 0; s < 64; ++s) {
      int r = pick() % in_dim, c = pick() % out_dim;
      double ref = 0.0;
      for (int d = 0; d < ndev; ++d)
        for (int b = 0; b < batch; ++b)
          ref += (double)h_x[d][(size_t)b * in_dim + r] * h_dy[d][(size_t)b * out_dim + c];
      float got = h_grad[(size_t)r * out_dim + c];
      if (fabs(got - ref) > 1e-3 * (1.0 + fabs(ref))) {
        if (bad < 5) printf("mismatch gpu %d (%d,%d): got %f want %f\n", i, r, c, got, ref);
        ++bad;
      }
    }
  }

  printf("%d GPUs, batch %d x %d -> %d: %.3f ms/iter\n", ndev, batch, in_dim, out_dim, worst_ms / iters);
  printf("checksum %.6e\n", checksum);
  printf("%s\n", bad ? "FAILED" : "PASSED");

  for (int i = 0; i < ndev; ++i) {
    CUDACHECK(cudaSetDevice(i));
    cudaFree(d_in[i]); cudaFree(d_dy[i]); cudaFree(d_grad[i]); cudaFree(d_w[i]);
    cublasDestroy(handles[i]);
    cudaStreamDestroy(streams[i]);
    ncclCommDestroy(comms[i]);
  }
  return bad ? 1 : 0;
}
