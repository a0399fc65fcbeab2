// The tensor-parallel runner's interface: main parses the options, the runner does the work.
#pragma once

struct RunOptions {
  int m = 2048, n = 2048, k = 4096;  // the product is M x N; K is split across the ranks
  int warmup = 3, iters = 20;
};

// Runs the K-split GEMM and the all-reduce of its partial products `iters` times after `warmup`;
// returns the mean milliseconds of one pass on this rank.
float run_profile(const RunOptions& opt, int rank, int ranks);
