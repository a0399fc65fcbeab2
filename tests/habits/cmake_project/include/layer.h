// Habit of CMake projects (written here, not copied): headers in include/, sources in src/, the
// compile command (with its -I and -D) only in the build folder's compile_commands.json.
#pragma once
#include <cublas_v2.h>
#include <nccl.h>

struct Layer {
  int rows, cols;
  float* weight;
  float* out;
};
void layer_forward(cublasHandle_t blas, const Layer& l, const float* in, int tokens);
