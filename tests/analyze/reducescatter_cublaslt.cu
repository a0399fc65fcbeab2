// Row-parallel linear layer: cublasLtMatmul writes the full partial product D, then
// ncclReduceScatter leaves each rank its reduced slice, which a residual-add kernel then reads.
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cublasLt.h>
#include <nccl.h>

struct Layer {
  cublasLtHandle_t lt;
  cublasLtMatmulDesc_t desc;
  cublasLtMatrixLayout_t la, lb, ld;
  void* workspace;
  size_t workspace_bytes;
  __nv_bfloat16* d;
};

__global__ void residual_add(__nv_bfloat16* slice, const __nv_bfloat16* residual, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) slice[i] = __float2bfloat16(__bfloat162float(slice[i]) + __bfloat162float(residual[i]));
}

void layer_forward(Layer& L, const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* out_slice,
                   const __nv_bfloat16* residual, size_t slice_elems, ncclComm_t comm, cudaStream_t s) {
  const float alpha = 1.f, beta = 0.f;
  cublasLtMatmul(L.lt, L.desc, &alpha, w, L.la, x, L.lb, &beta, L.d, L.ld, L.d, L.ld, nullptr, L.workspace,
                 L.workspace_bytes, s);
  ncclReduceScatter(L.d, out_slice, slice_elems, ncclBfloat16, ncclSum, comm, s);
  residual_add<<<(slice_elems + 255) / 256, 256, 0, s>>>(out_slice, residual, slice_elems);
}
