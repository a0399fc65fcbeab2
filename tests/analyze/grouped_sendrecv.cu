// MoE dispatch as an all-to-all built from grouped ncclSend/ncclRecv: a routing kernel packs
// tokens per destination, the group exchanges them, an expert kernel consumes what arrived.
#include <cuda_runtime.h>
#include <nccl.h>

__global__ void pack_tokens(const float* tokens, const int* dest, float* send_buf, int n, int dim) {}
__global__ void expert_ffn(const float* recv_buf, float* out, int n, int dim) {}

void dispatch(const float* tokens, const int* dest, float* send_buf, float* recv_buf, float* out, int n, int dim,
              int nranks, ncclComm_t comm, cudaStream_t stream) {
  pack_tokens<<<n, 128, 0, stream>>>(tokens, dest, send_buf, n, dim);
  size_t per_peer = (size_t)n * dim / nranks;
  ncclGroupStart();
  for (int peer = 0; peer < nranks; ++peer) {
    ncclSend(send_buf + peer * per_peer, per_peer, ncclFloat, peer, comm, stream);
    ncclRecv(recv_buf + peer * per_peer, per_peer, ncclFloat, peer, comm, stream);
  }
  ncclGroupEnd();
  expert_ffn<<<n, 128, 0, stream>>>(recv_buf, out, n, dim);
}
