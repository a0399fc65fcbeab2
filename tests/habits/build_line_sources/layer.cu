#include "layer.h"

void layer_forward(cublasHandle_t blas, ncclComm_t comm, cudaStream_t stream, const float* x, const float* w, float* y,
                   int tokens, int in_local, int out) {
  const float one = 1.0f, zero = 0.0f;
  cublasSetStream(blas, stream);
  // Column-major: y (out x tokens) = w (out x in_local) * x (in_local x tokens).
  cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, out, tokens, in_local, &one, w, out, x, in_local, &zero, y, out);
  ncclAllReduce(y, y, static_cast<size_t>(out) * tokens, ncclFloat, ncclSum, comm, stream);
}
