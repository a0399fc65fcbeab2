// Habit of implicit time steppers (written here, not copied): each step solves (1 + 4a) u - a (its
// neighbours) = u_old by Jacobi sweeps, the residual all-reduced after every sweep, and the program
// stops with exit(1) when a step has not converged in kMaxSweeps: as a CG or Newton miniapp does.
// From its own smooth field a step converges in a few sweeps; from noise it does not.
#include <cuda_runtime.h>
#include <nccl.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>

constexpr int kN = 1 << 16;
constexpr int kMaxSweeps = 12;
constexpr float kA = 1.0f, kTolerance = 1e-6f;

__global__ void sweep(const float* u_old, const float* u, float* u_next, float* residual2, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const float left = u[(i + n - 1) % n], right = u[(i + 1) % n];
    u_next[i] = (u_old[i] + kA * (left + right)) / (1 + 2 * kA);
    const float r = u_old[i] - ((1 + 2 * kA) * u[i] - kA * (left + right));
    atomicAdd(residual2, r * r);
  }
}

int main() {
  const int rank = std::atoi(std::getenv("RANK")), world = std::atoi(std::getenv("WORLD_SIZE"));
  cudaSetDevice(rank);
  ncclUniqueId id;
  ncclGetUniqueId(&id);  // one host: a real launcher would share rank 0's
  ncclComm_t comm;
  ncclCommInitRank(&comm, world, id, rank);
  cudaStream_t s;
  cudaStreamCreate(&s);
  float *u_old, *u, *u_next, *residual2, *global_residual2;
  cudaMalloc(&u_old, kN * sizeof(float));
  cudaMalloc(&u, kN * sizeof(float));
  cudaMalloc(&u_next, kN * sizeof(float));
  cudaMalloc(&residual2, sizeof(float));
  cudaMalloc(&global_residual2, sizeof(float));
  float* host = static_cast<float*>(std::malloc(kN * sizeof(float)));
  for (int i = 0; i < kN; ++i) host[i] = 1.0f + 0.5f * std::sin(6.2831853f * i / kN);  // a smooth field
  cudaMemcpy(u_old, host, kN * sizeof(float), cudaMemcpyHostToDevice);
  cudaEvent_t t0, t1;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  const int steps = 20;
  cudaEventRecord(t0, s);
  for (int step = 0; step < steps; ++step) {
    cudaMemcpyAsync(u, u_old, kN * sizeof(float), cudaMemcpyDeviceToDevice, s);
    float r2 = 0;
    int sweeps = 0;
    do {
      cudaMemsetAsync(residual2, 0, sizeof(float), s);
      sweep<<<64, 256, 0, s>>>(u_old, u, u_next, residual2, kN);
      ncclAllReduce(residual2, global_residual2, 1, ncclFloat, ncclSum, comm, s);
      cudaMemcpyAsync(u, u_next, kN * sizeof(float), cudaMemcpyDeviceToDevice, s);
      cudaMemcpyAsync(&r2, global_residual2, sizeof(float), cudaMemcpyDeviceToHost, s);
      cudaStreamSynchronize(s);
      ++sweeps;
    } while (std::sqrt(r2) > kTolerance * kN && sweeps < kMaxSweeps);
    if (std::sqrt(r2) > kTolerance * kN) {
      std::fprintf(stderr, "step %d: not converged after %d sweeps (residual %g)\n", step, sweeps, std::sqrt(r2));
      std::exit(1);
    }
    cudaMemcpyAsync(u_old, u, kN * sizeof(float), cudaMemcpyDeviceToDevice, s);
  }
  cudaEventRecord(t1, s);
  cudaEventSynchronize(t1);
  float ms = 0;
  cudaEventElapsedTime(&ms, t0, t1);
  std::printf("rank %d: %.3f ms per step\n", rank, ms / steps);
  ncclCommDestroy(comm);
  return 0;
}
