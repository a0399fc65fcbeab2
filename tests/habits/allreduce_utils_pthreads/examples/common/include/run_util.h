// Habit of vendor example suites (written here, not copied): every example's main.cc sits in a
// folder called c/, hands its per-rank function to a shared launcher in ../common/src, and the same
// sources build for MPI (-DMPI_SUPPORT) or for one thread per GPU.
#ifndef RUN_UTIL_H_
#define RUN_UTIL_H_
#include <cuda_runtime.h>
#include <nccl.h>

typedef void* (*example_fn)(int rank, int nranks, int device);
int run_example(int argc, char** argv, example_fn fn);
void share_id(int rank, ncclUniqueId* id);

#endif
