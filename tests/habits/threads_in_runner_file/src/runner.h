// The runner of the habit threads_in_runner_file (written here).
#pragma once

// Runs `iters` passes of a row-parallel layer on `gpus` GPUs, a thread per GPU; the milliseconds a
// pass on GPU 0.
float run_row_parallel(int gpus, int tokens, int hidden, int iters);
