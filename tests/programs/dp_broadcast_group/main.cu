// Data-parallel training of a linear layer, one process driving every GPU. The communicators
// are made with a loop of ncclCommInitRank inside ncclGroupStart/End. Each step: rank 0 (the
// parameter owner) broadcasts the weights, every GPU runs forward + weight gradient on its shard
// of the batch, gradients are all-reduced, and rank 0 applies SGD.
//   ./dp_train [ngpus] [--batch 512] [--in 1024] [--out 1024] [--steps 20]
#include <cublas_v2.h>

#include <cmath>
#include <vector>

#include "utils.h"

// err = y - target; the loss is 0.5 * |err|^2.
__global__ void residual_kernel(const float* y, const float* target, float* err, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) err[i] = y[i] - target[i];
}

__global__ void sgd_kernel(float* w, const float* grad, float lr, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] -= lr * grad[i];
}

int main(int argc, char** argv) {
  int ndev = 0;
  CUDACHECK(cudaGetDeviceCount(&ndev));
  const int ngpus = (argc > 1 && argv[1][0] != '-') ? atoi(argv[1]) : ndev;
  const int batch = arg_int(argc, argv, "--batch", 512);  // per GPU
  const int in_dim = arg_int(argc, argv, "--in", 1024);
  const int out_dim = arg_int(argc, argv, "--out", 1024);
  const int steps = arg_int(argc, argv, "--steps", 20);
  const float lr = 0.1f / (batch * ngpus);
  const size_t w_elems = (size_t)in_dim * out_dim;

  std::vector<ncclComm_t> comms(ngpus);
  std::vector<cudaStream_t> streams(ngpus);
  std::vector<cublasHandle_t> handles(ngpus);
  ncclUniqueId id;
  NCCLCHECK(ncclGetUniqueId(&id));
  NCCLCHECK(ncclGroupStart());
  for (int i = 0; i < ngpus; ++i) {
    CUDACHECK(cudaSetDevice(i));
    NCCLCHECK(ncclCommInitRank(&comms[i], ngpus, id, i));
  }
  NCCLCHECK(ncclGroupEnd());

  std::vector<float*> d_w(ngpus), d_x(ngpus), d_target(ngpus), d_y(ngpus), d_err(ngpus), d_grad(ngpus);
  std::vector<float> h_w(w_elems), h_x((size_t)batch * in_dim), h_t((size_t)batch * out_dim);
  fill_uniform(h_w.data(), w_elems, 1, 0.01f);
  for (int i = 0; i < ngpus; ++i) {
    CUDACHECK(cudaSetDevice(i));
    CUDACHECK(cudaStreamCreate(&streams[i]));
    CUBLASCHECK(cublasCreate(&handles[i]));
    CUBLASCHECK(cublasSetStream(handles[i], streams[i]));
    CUDACHECK(cudaMalloc(&d_w[i], w_elems * sizeof(float)));
    CUDACHECK(cudaMalloc(&d_x[i], h_x.size() * sizeof(float)));
    CUDACHECK(cudaMalloc(&d_target[i], h_t.size() * sizeof(float)));
    CUDACHECK(cudaMalloc(&d_y[i], h_t.size() * sizeof(float)));
    CUDACHECK(cudaMalloc(&d_err[i], h_t.size() * sizeof(float)));
    CUDACHECK(cudaMalloc(&d_grad[i], w_elems * sizeof(float)));
    fill_uniform(h_x.data(), h_x.size(), 100 + i, 1.f);   // this GPU's shard of the batch
    fill_uniform(h_t.data(), h_t.size(), 200 + i, 1.f);
    CUDACHECK(cudaMemcpy(d_x[i], h_x.data(), h_x.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDACHECK(cudaMemcpy(d_target[i], h_t.data(), h_t.size() * sizeof(float), cudaMemcpyHostToDevice));
    if (i == 0) CUDACHECK(cudaMemcpy(d_w[i], h_w.data(), w_elems * sizeof(float), cudaMemcpyHostToDevice));
  }

  const float one = 1.f, zero = 0.f;
  auto train_step = [&]() {
    NCCLCHECK(ncclGroupStart());
    for (int i = 0; i < ngpus; ++i)
      NCCLCHECK(ncclBroadcast(d_w[i], d_w[i], w_elems, ncclFloat, 0, comms[i], streams[i]));
    NCCLCHECK(ncclGroupEnd());
    for (int i = 0; i < ngpus; ++i) {
      CUDACHECK(cudaSetDevice(i));
      // y[batch][out] = x[batch][in] * w[in][out]
      CUBLASCHECK(cublasSgemm(handles[i], CUBLAS_OP_N, CUBLAS_OP_N, out_dim, batch, in_dim, &one, d_w[i], out_dim,
                              d_x[i], in_dim, &zero, d_y[i], out_dim));
      residual_kernel<<<(batch * out_dim + 255) / 256, 256, 0, streams[i]>>>(d_y[i], d_target[i], d_err[i],
                                                                              batch * out_dim);
      // grad[in][out] = x^T[in][batch] * err[batch][out]
      CUBLASCHECK(cublasSgemm(handles[i], CUBLAS_OP_N, CUBLAS_OP_T, out_dim, in_dim, batch, &one, d_err[i], out_dim,
                              d_x[i], in_dim, &zero, d_grad[i], out_dim));
    }
    NCCLCHECK(ncclGroupStart());
    for (int i = 0; i < ngpus; ++i)
      NCCLCHECK(ncclAllReduce(d_grad[i], d_grad[i], w_elems, ncclFloat, ncclSum, comms[i], streams[i]));
    NCCLCHECK(ncclGroupEnd());
    CUDACHECK(cudaSetDevice(0));
    sgd_kernel<<<(unsigned)((w_elems + 255) / 256), 256, 0, streams[0]>>>(d_w[0], d_grad[0], lr, (int)w_elems);
  };

  train_step();  // warmup
  cudaEvent_t start, stop;
  CUDACHECK(cudaSetDevice(0));
  CUDACHECK(cudaEventCreate(&start));
  CUDACHECK(cudaEventCreate(&stop));
  CUDACHECK(cudaEventRecord(start, streams[0]));
  for (int s = 0; s < steps; ++s) train_step();
  CUDACHECK(cudaSetDevice(0));
  CUDACHECK(cudaEventRecord(stop, streams[0]));
  for (int i = 0; i < ngpus; ++i) {
    CUDACHECK(cudaSetDevice(i));
    CUDACHECK(cudaStreamSynchronize(streams[i]));
  }
  float ms = 0.f;
  CUDACHECK(cudaEventElapsedTime(&ms, start, stop));

  CUDACHECK(cudaSetDevice(0));
  CUDACHECK(cudaMemcpy(h_w.data(), d_w[0], w_elems * sizeof(float), cudaMemcpyDeviceToHost));
  printf("dp_train: %d GPUs, batch %d per GPU, %dx%d weights, %d steps\n", ngpus, batch, in_dim, out_dim, steps);
  printf("weights checksum: %.6f\n", checksum(h_w.data(), w_elems));
  printf("avg iteration time: %.3f ms\n", ms / steps);

  for (int i = 0; i < ngpus; ++i) {
    CUDACHECK(cudaSetDevice(i));
    for (float* p : {d_w[i], d_x[i], d_target[i], d_y[i], d_err[i], d_grad[i]}) CUDACHECK(cudaFree(p));
    CUBLASCHECK(cublasDestroy(handles[i]));
    NCCLCHECK(ncclCommDestroy(comms[i]));
  }
  return 0;
}
