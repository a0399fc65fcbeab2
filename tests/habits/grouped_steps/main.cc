// Habit of single-process attention and MoE examples (written here, not copied): one process
// drives every GPU and communicates in one-shot steps, each a group of per-GPU all-reduces with a
// copy between them on each GPU's stream; the last step keeps ncclGroupEnd's result
// in a variable that the code after it checks. There is no timed loop: the steps are the work.
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
  std::vector<float*> peak(ngpus), total(ngpus);
  const size_t count = 1 << 20;
  CK_NCCL(ncclCommInitAll(comms.data(), ngpus, nullptr));
  for (int g = 0; g < ngpus; ++g) {
    CK_CUDA(cudaSetDevice(g));
    CK_CUDA(cudaStreamCreate(&streams[g]));
    CK_CUDA(cudaMalloc(&peak[g], count * sizeof(float)));
    CK_CUDA(cudaMalloc(&total[g], count * sizeof(float)));
    std::vector<float> h(count, static_cast<float>(g + 1));
    CK_CUDA(cudaMemcpy(peak[g], h.data(), count * sizeof(float), cudaMemcpyHostToDevice));
    CK_CUDA(cudaMemcpy(total[g], h.data(), count * sizeof(float), cudaMemcpyHostToDevice));
  }
  // Step 1: every GPU's peak.
  CK_NCCL(ncclGroupStart());
  for (int g = 0; g < ngpus; ++g)
    CK_NCCL(ncclAllReduce(peak[g], peak[g], count, ncclFloat, ncclMax, comms[g], streams[g]));
  CK_NCCL(ncclGroupEnd());
  // Step 2: the totals, scaled by the peak on each GPU's stream.
  for (int g = 0; g < ngpus; ++g) {
    CK_CUDA(cudaSetDevice(g));
    CK_CUDA(cudaMemcpyAsync(total[g], peak[g], count * sizeof(float), cudaMemcpyDeviceToDevice, streams[g]));
  }
  CK_NCCL(ncclGroupStart());
  for (int g = 0; g < ngpus; ++g)
    CK_NCCL(ncclAllReduce(total[g], total[g], count, ncclFloat, ncclSum, comms[g], streams[g]));
  ncclResult_t ended = ncclGroupEnd();
  if (ended != ncclSuccess) { std::fprintf(stderr, "group: %s\n", ncclGetErrorString(ended)); return 1; }
  int bad = 0;
  for (int g = 0; g < ngpus; ++g) {
    CK_CUDA(cudaSetDevice(g));
    CK_CUDA(cudaStreamSynchronize(streams[g]));
    float first = 0;
    CK_CUDA(cudaMemcpy(&first, total[g], sizeof(float), cudaMemcpyDeviceToHost));
    bad += first != static_cast<float>(ngpus * ngpus);
  }
  std::printf("%s\n", bad ? "FAILED" : "PASSED");
  for (int g = 0; g < ngpus; ++g) ncclCommDestroy(comms[g]);
  return bad ? 1 : 0;
}
