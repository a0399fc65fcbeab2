// Habit of single-process NCCL examples (written here, not copied): one process drives every GPU
// through ncclCommInitAll, checks each GPU's communicator in its set-up (rank, count, device), and
// passes a buffer once around a ring with per-GPU sends and receives inside one group. There is no
// timed loop: the group is the whole communication.
#include <cuda_runtime.h>
#include <nccl.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK_CUDA(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)
#define CK_NCCL(x) do { ncclResult_t r_ = (x); if (r_ != ncclSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, ncclGetErrorString(r_)); std::exit(1); } } while (0)

int main() {
  int ngpus = 0;
  CK_CUDA(cudaGetDeviceCount(&ngpus));
  std::vector<ncclComm_t> comms(ngpus);
  std::vector<cudaStream_t> streams(ngpus);
  std::vector<float*> send(ngpus), recv(ngpus);
  const size_t count = 1 << 22;
  CK_NCCL(ncclCommInitAll(comms.data(), ngpus, nullptr));
  for (int g = 0; g < ngpus; ++g) {
    int rank = -1, size = -1, dev = -1;
    CK_NCCL(ncclCommUserRank(comms[g], &rank));
    CK_NCCL(ncclCommCount(comms[g], &size));
    CK_NCCL(ncclCommCuDevice(comms[g], &dev));
    if (rank != g || size != ngpus) { std::fprintf(stderr, "GPU %d: rank %d of %d\n", g, rank, size); return 1; }
    CK_CUDA(cudaSetDevice(g));
    CK_CUDA(cudaStreamCreate(&streams[g]));
    CK_CUDA(cudaMalloc(&send[g], count * sizeof(float)));
    CK_CUDA(cudaMalloc(&recv[g], count * sizeof(float)));
    std::vector<float> h(count, static_cast<float>(g + 1));
    CK_CUDA(cudaMemcpy(send[g], h.data(), count * sizeof(float), cudaMemcpyHostToDevice));
  }
  CK_NCCL(ncclGroupStart());
  for (int g = 0; g < ngpus; ++g) {
    const int next = (g + 1) % ngpus, prev = (g + ngpus - 1) % ngpus;
    CK_NCCL(ncclSend(send[g], count, ncclFloat, next, comms[g], streams[g]));
    CK_NCCL(ncclRecv(recv[g], count, ncclFloat, prev, comms[g], streams[g]));
  }
  CK_NCCL(ncclGroupEnd());
  int bad = 0;
  for (int g = 0; g < ngpus; ++g) {
    CK_CUDA(cudaSetDevice(g));
    CK_CUDA(cudaStreamSynchronize(streams[g]));
    float first = 0;
    CK_CUDA(cudaMemcpy(&first, recv[g], sizeof(float), cudaMemcpyDeviceToHost));
    bad += first != static_cast<float>((g + ngpus - 1) % ngpus + 1);
  }
  std::printf("%s\n", bad ? "FAILED" : "PASSED");
  for (int g = 0; g < ngpus; ++g) ncclCommDestroy(comms[g]);
  return bad ? 1 : 0;
}
