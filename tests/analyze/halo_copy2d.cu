// A halo exchange packing and unpacking strided rows with cudaMemcpy2D: the send buffer is what the
// packing copy wrote (the send's producer), the receive buffer what the unpacking copy reads (the
// receive's consumer), and the grid's rows go back to the host with cudaMemcpy2D's seventh argument.
#include <cuda_runtime.h>
#include <nccl.h>

int main() {
  const int w = 256, h = 256, halo = 2;
  ncclUniqueId id;
  ncclComm_t comm;
  ncclGetUniqueId(&id);
  ncclCommInitRank(&comm, 1, id, 0);
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  float *grid, *send_left, *recv_left;
  cudaMalloc(&grid, (size_t)w * h * sizeof(float));
  cudaMalloc(&send_left, (size_t)halo * h * sizeof(float));
  cudaMalloc(&recv_left, (size_t)halo * h * sizeof(float));
  float* host = new float[(size_t)w * h];
  for (int it = 0; it < 10; ++it) {
    cudaMemcpy2DAsync(send_left, halo * sizeof(float), grid + halo, w * sizeof(float), halo * sizeof(float), h,
                      cudaMemcpyDeviceToDevice, stream);
    ncclGroupStart();
    ncclSend(send_left, (size_t)halo * h, ncclFloat, 0, comm, stream);
    ncclRecv(recv_left, (size_t)halo * h, ncclFloat, 0, comm, stream);
    ncclGroupEnd();
    cudaMemcpy2DAsync(grid, w * sizeof(float), recv_left, halo * sizeof(float), halo * sizeof(float), h,
                      cudaMemcpyDeviceToDevice, stream);
  }
  cudaMemcpy2D(host, w * sizeof(float), grid, w * sizeof(float), w * sizeof(float), h, cudaMemcpyDeviceToHost);
  delete[] host;
  return 0;
}
