// Kernels launched through a function-like macro, as pantheongpu/pantheonsim's training test writes
// them: `#define LAUNCH(k, n, ...) k<<<grid of n, 128, 0, stream>>>(__VA_ARGS__)`. The launch is the
// macro's replacement with the use's arguments: relu_k writes `a`, sgd_k updates `shard`.
#include <nccl.h>

__global__ void relu_k(const float* z, float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = z[i] > 0 ? z[i] : 0;
}
__global__ void sgd_k(float* w, const float* g, int n, float lr) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] -= lr * g[i];
}

cudaStream_t stream;
#define LAUNCH(k, n, ...) k<<<((n) + 127) / 128, 128, 0, stream>>>(__VA_ARGS__)

int main() {
  ncclComm_t comm;
  float *z, *a, *shard, *gshard;
  int n = 1024;
  for (int step = 0; step < 5; ++step) {
    LAUNCH(relu_k, n, z, a, n);
    ncclReduceScatter(a, gshard, n / 2, ncclFloat, ncclSum, comm, stream);
    LAUNCH(sgd_k, n / 2, shard, gshard, n / 2, 0.1f);
  }
  return 0;
}

// llm.c's check wrapper: a macro calling a helper of the file whose name starts with `nccl`, used
// inside a group. The helper is no NCCL call of the group (it once was, and its op, dropped as a
// helper with no effect, left the group naming an op that no longer existed: cuco init crashed).
static void nccl_check(ncclResult_t r, const char* file, int line) {
  if (r != ncclSuccess) __builtin_trap();
}
#define ncclCheck(err) (nccl_check(err, __FILE__, __LINE__))

void reduce_grouped(float* a, float* b, int n, ncclComm_t comm) {
  ncclCheck(ncclGroupStart());
  ncclCheck(ncclAllReduce(a, a, n, ncclFloat, ncclSum, comm, stream));
  ncclCheck(ncclAllReduce(b, b, n, ncclFloat, ncclSum, comm, stream));
  ncclCheck(ncclGroupEnd());
}
