// Habit of CUDA-graph Jacobi codes (written here, not copied): blocking streams with priorities, the
// boundary rows computed on a second stream forked and joined by events inside each capture, the
// halo exchange grouped as receive-from-above, send-down, receive-from-below, send-up (at two ranks
// both neighbours are the same rank), four graphs (norm or not, by parity), a graph warm-up that
// uploads and launches all four, the grids reset with cudaMemset on the legacy stream, then the loop
// launching them by its counter.
#include <cuda_runtime.h>
#include <nccl.h>
#include <cstdio>
#include <cstdlib>
#include <utility>

__global__ void relax(float* out, const float* in, float* norm, int row0, int row1, int nx, bool with_norm) {
  const int i = row0 * nx + blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= row1 * nx) return;
  const float v = 0.25f * (in[i - nx] + in[i + nx]) + 0.5f * in[i];
  out[i] = v;
  if (with_norm) atomicAdd(norm, (v - in[i]) * (v - in[i]));
}

int main() {
  const int rank = std::atoi(std::getenv("RANK")), world = std::atoi(std::getenv("WORLD_SIZE"));
  cudaSetDevice(rank);
  ncclUniqueId id;
  ncclGetUniqueId(&id);  // one host: a real launcher would share rank 0's
  ncclComm_t comm;
  ncclCommInitRank(&comm, world, id, rank);
  int least = 0, greatest = 0;
  cudaDeviceGetStreamPriorityRange(&least, &greatest);
  cudaStream_t compute, push;
  cudaStreamCreateWithPriority(&compute, cudaStreamDefault, least);
  cudaStreamCreateWithPriority(&push, cudaStreamDefault, greatest);
  cudaEvent_t reset_done, prep_done, push_done;
  cudaEventCreateWithFlags(&reset_done, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&prep_done, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&push_done, cudaEventDisableTiming);
  const int nx = 1024, rows = 256;  // interior rows 1..rows, halo rows 0 and rows + 1
  float *a, *a_new, *norm_d, *norm_h;
  cudaMalloc(&a, nx * (rows + 2) * sizeof(float));
  cudaMalloc(&a_new, nx * (rows + 2) * sizeof(float));
  cudaMalloc(&norm_d, sizeof(float));
  cudaMallocHost(&norm_h, sizeof(float));
  const int top = rank > 0 ? rank - 1 : world - 1, bottom = (rank + 1) % world;
  cudaGraph_t graphs[2][2];
  cudaGraphExec_t exec[2], exec_norm[2];
  for (int k = 0; k < 4; ++k) {
    const bool with_norm = k < 2;
    cudaStreamBeginCapture(compute, cudaStreamCaptureModeGlobal);
    cudaMemsetAsync(norm_d, 0, sizeof(float), compute);
    cudaEventRecord(reset_done, compute);
    cudaStreamWaitEvent(push, reset_done, 0);
    relax<<<nx / 256, 256, 0, push>>>(a_new, a, norm_d, 1, 2, nx, with_norm);
    relax<<<nx / 256, 256, 0, push>>>(a_new, a, norm_d, rows, rows + 1, nx, with_norm);
    cudaEventRecord(prep_done, push);
    ncclGroupStart();
    ncclRecv(a_new, nx, ncclFloat, top, comm, push);
    ncclSend(a_new + rows * nx, nx, ncclFloat, bottom, comm, push);
    ncclRecv(a_new + (rows + 1) * nx, nx, ncclFloat, bottom, comm, push);
    ncclSend(a_new + nx, nx, ncclFloat, top, comm, push);
    ncclGroupEnd();
    cudaEventRecord(push_done, push);
    relax<<<(rows - 2) * nx / 256, 256, 0, compute>>>(a_new, a, norm_d, 2, rows, nx, with_norm);
    if (with_norm) {
      cudaStreamWaitEvent(compute, prep_done, 0);
      cudaMemcpyAsync(norm_h, norm_d, sizeof(float), cudaMemcpyDeviceToHost, compute);
    }
    cudaStreamWaitEvent(compute, push_done, 0);
    cudaStreamEndCapture(compute, &graphs[with_norm][k % 2]);
    std::swap(a, a_new);
  }
  for (int p = 0; p < 2; ++p) {
    cudaGraphInstantiateWithFlags(&exec[p], graphs[0][p], cudaGraphInstantiateFlagUseNodePriority);
    cudaGraphInstantiateWithFlags(&exec_norm[p], graphs[1][p], cudaGraphInstantiateFlagUseNodePriority);
  }
  for (int p = 0; p < 2; ++p) {
    cudaGraphDestroy(graphs[0][p]);
    cudaGraphDestroy(graphs[1][p]);
  }
  for (int p = 0; p < 2; ++p) {  // the warm-up: every graph uploaded and launched once
    cudaGraphUpload(exec[p], compute);
    cudaGraphUpload(exec_norm[p], compute);
  }
  cudaStreamSynchronize(compute);
  for (int p = 0; p < 2; ++p) cudaGraphLaunch(exec[p], compute);
  for (int p = 0; p < 2; ++p) cudaGraphLaunch(exec_norm[p], compute);
  cudaStreamSynchronize(compute);
  cudaMemset(a, 0, nx * (rows + 2) * sizeof(float));
  cudaMemset(a_new, 0, nx * (rows + 2) * sizeof(float));
  cudaDeviceSynchronize();
  float l2 = 0;
  for (int iter = 0; iter < 200; ++iter) {
    if (iter % 100 == 0) {
      cudaGraphLaunch(exec_norm[iter % 2], compute);
      cudaStreamSynchronize(compute);
      l2 = *norm_h;
    } else {
      cudaGraphLaunch(exec[iter % 2], compute);
    }
  }
  cudaDeviceSynchronize();
  std::printf("rank %d done, norm %g\n", rank, l2);
  ncclCommDestroy(comm);
  return 0;
}
