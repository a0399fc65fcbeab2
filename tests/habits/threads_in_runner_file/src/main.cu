// Habit of tensor-parallel decode benchmarks laid out in files (written here, not copied): main
// parses its options and calls the runner of another file, which starts the threads.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "runner.h"

int main(int argc, char** argv) {
  int num_gpus = 1, tokens = 1024, hidden = 2048, iters = 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--num-gpus") == 0) num_gpus = std::atoi(argv[i + 1]);
    else if (std::strcmp(argv[i], "--tokens") == 0) tokens = std::atoi(argv[i + 1]);
  }
  const float ms = run_row_parallel(num_gpus, tokens, hidden, iters);
  std::printf("Time: %.3f ms\n", ms);
  return 0;
}
