// See include/layer.h.
#include "layer.h"

void layer_forward(cublasHandle_t blas, const Layer& l, const float* in, int tokens) {
  const float one = 1.f, zero = 0.f;
  cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, l.rows, tokens, l.cols, &one, l.weight, l.rows, in, l.cols, &zero, l.out,
              l.rows);
}
