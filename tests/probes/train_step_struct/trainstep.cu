// Data-parallel 2-layer MLP training step; gradients all-reduced in one NCCL group.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <mpi.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <nccl.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)
#define NK(x) do { ncclResult_t e = (x); if (e != ncclSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, ncclGetErrorString(e)); exit(1); } } while (0)
#define BK(x) do { cublasStatus_t e = (x); if (e != CUBLAS_STATUS_SUCCESS) { fprintf(stderr, "%s:%d cublas %d\n", __FILE__, __LINE__, (int)e); exit(1); } } while (0)

struct Model {
  int d_in, d_hid, d_out;
  float* w1;     // d_in x d_hid
  float* w2;     // d_hid x d_out
  float* grad1;
  float* grad2;
};

struct Batch {
  int n;
  float* x;      // n x d_in
  float* h;      // n x d_hid
  float* y;      // n x d_out
  float* dy;     // n x d_out
  float* dh;     // n x d_hid
};

static cublasHandle_t g_blas;

__global__ void relu_fwd(float* h, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) h[i] = fmaxf(h[i], 0.f);
}
__global__ void relu_bwd(float* dh, const float* h, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) dh[i] = h[i] > 0.f ? dh[i] : 0.f;
}
__global__ void mse_grad(float* dy, const float* y, size_t n, float scale) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) dy[i] = scale * (y[i] - 1.0f);
}
__global__ void init_uniform(float* p, size_t n, unsigned seed, float s) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) { unsigned v = (unsigned)(i * 747796405u + seed * 2891336453u); v ^= v >> 16; p[i] = s * ((v % 2001) / 1000.f - 1.f); }
}

// Column-major cuBLAS on row-major data: C[m x n] = A[m x k] * B[k x n]  ->  C^T = B^T A^T
void train_step(Model& m, Batch& b, ncclComm_t comm, cudaStream_t s) {
  const float one = 1.f, zero = 0.f;
  BK(cublasSetStream(g_blas, s));
  // forward: h = relu(x w1), y = h w2
  BK(cublasSgemm(g_blas, CUBLAS_OP_N, CUBLAS_OP_N, m.d_hid, b.n, m.d_in, &one, m.w1, m.d_hid, b.x, m.d_in, &zero, b.h, m.d_hid));
  size_t nh = (size_t)b.n * m.d_hid;
  relu_fwd<<<(nh + 255) / 256, 256, 0, s>>>(b.h, nh);
  BK(cublasSgemm(g_blas, CUBLAS_OP_N, CUBLAS_OP_N, m.d_out, b.n, m.d_hid, &one, m.w2, m.d_out, b.h, m.d_hid, &zero, b.y, m.d_out));
  size_t ny = (size_t)b.n * m.d_out;
  mse_grad<<<(ny + 255) / 256, 256, 0, s>>>(b.dy, b.y, ny, 2.f / ny);
  // backward: grad2 = h^T dy ; dh = dy w2^T ; grad1 = x^T dh
  BK(cublasSgemm(g_blas, CUBLAS_OP_N, CUBLAS_OP_T, m.d_out, m.d_hid, b.n, &one, b.dy, m.d_out, b.h, m.d_hid, &zero, m.grad2, m.d_out));
  BK(cublasSgemm(g_blas, CUBLAS_OP_T, CUBLAS_OP_N, m.d_hid, b.n, m.d_out, &one, m.w2, m.d_out, b.dy, m.d_out, &zero, b.dh, m.d_hid));
  relu_bwd<<<(nh + 255) / 256, 256, 0, s>>>(b.dh, b.h, nh);
  BK(cublasSgemm(g_blas, CUBLAS_OP_N, CUBLAS_OP_T, m.d_hid, m.d_in, b.n, &one, b.dh, m.d_hid, b.x, m.d_in, &zero, m.grad1, m.d_hid));
  // data-parallel gradient sync
  NK(ncclGroupStart());
  NK(ncclAllReduce(m.grad1, m.grad1, (size_t)m.d_in * m.d_hid, ncclFloat, ncclSum, comm, s));
  NK(ncclAllReduce(m.grad2, m.grad2, (size_t)m.d_hid * m.d_out, ncclFloat, ncclSum, comm, s));
  NK(ncclGroupEnd());
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, world;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  int ndev; CK(cudaGetDeviceCount(&ndev));
  CK(cudaSetDevice(rank % ndev));
  ncclUniqueId uid;
  if (rank == 0) NK(ncclGetUniqueId(&uid));
  MPI_Bcast(&uid, sizeof(uid), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  NK(ncclCommInitRank(&comm, world, uid, rank));
  cudaStream_t stream;
  CK(cudaStreamCreate(&stream));
  BK(cublasCreate(&g_blas));

  Model model{1024, 4096, 1024, nullptr, nullptr, nullptr, nullptr};
  Batch batch{};
  batch.n = 512;
  CK(cudaMalloc(&model.w1, sizeof(float) * model.d_in * model.d_hid));
  CK(cudaMalloc(&model.w2, sizeof(float) * model.d_hid * model.d_out));
  CK(cudaMalloc(&model.grad1, sizeof(float) * model.d_in * model.d_hid));
  CK(cudaMalloc(&model.grad2, sizeof(float) * model.d_hid * model.d_out));
  CK(cudaMalloc(&batch.x, sizeof(float) * batch.n * model.d_in));
  CK(cudaMalloc(&batch.h, sizeof(float) * batch.n * model.d_hid));
  CK(cudaMalloc(&batch.y, sizeof(float) * batch.n * model.d_out));
  CK(cudaMalloc(&batch.dy, sizeof(float) * batch.n * model.d_out));
  CK(cudaMalloc(&batch.dh, sizeof(float) * batch.n * model.d_hid));
  init_uniform<<<(model.d_in * model.d_hid + 255) / 256, 256, 0, stream>>>(model.w1, (size_t)model.d_in * model.d_hid, 1, 0.03f);
  init_uniform<<<(model.d_hid * model.d_out + 255) / 256, 256, 0, stream>>>(model.w2, (size_t)model.d_hid * model.d_out, 2, 0.03f);
  init_uniform<<<(batch.n * model.d_in + 255) / 256, 256, 0, stream>>>(batch.x, (size_t)batch.n * model.d_in, 10 + rank, 1.f);

  for (int i = 0; i < 3; ++i) train_step(model, batch, comm, stream);
  CK(cudaStreamSynchronize(stream));

  const int steps = 30;
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  CK(cudaEventRecord(e0, stream));
  for (int step = 0; step < steps; ++step) {
    train_step(model, batch, comm, stream);
  }
  CK(cudaEventRecord(e1, stream));
  CK(cudaEventSynchronize(e1));
  float ms; CK(cudaEventElapsedTime(&ms, e0, e1));

  std::vector<float> g1((size_t)model.d_in * model.d_hid), g2((size_t)model.d_hid * model.d_out);
  CK(cudaMemcpy(g1.data(), model.grad1, sizeof(float) * g1.size(), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(g2.data(), model.grad2, sizeof(float) * g2.size(), cudaMemcpyDeviceToHost));
  double cs = 0; for (float v : g1) cs += v; for (float v : g2) cs += v;
  if (rank == 0) printf("train_step: %.3f ms/step, grad checksum %.6e\n", ms / steps, cs);

  cublasDestroy(g_blas);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
