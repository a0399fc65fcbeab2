// The shared launcher (see run_util.h): MPI ranks, or a pthread per GPU meeting at a barrier.
#include "run_util.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifdef MPI_SUPPORT
#include <mpi.h>
#define MPI_OK(x) do { int rc_ = (x); if (rc_ != MPI_SUCCESS) { char msg_[MPI_MAX_ERROR_STRING]; int len_ = 0; \
  MPI_Error_string(rc_, msg_, &len_); std::fprintf(stderr, "MPI error: %s\n", msg_); MPI_Abort(MPI_COMM_WORLD, rc_); } } while (0)
#else
#include <pthread.h>
static pthread_barrier_t g_barrier;
static ncclUniqueId g_id;
struct ThreadArgs {
  example_fn fn;
  int rank, nranks;
};
static void* thread_main(void* p) {
  ThreadArgs* a = static_cast<ThreadArgs*>(p);
  return a->fn(a->rank, a->nranks, a->rank);
}
#endif

void share_id(int rank, ncclUniqueId* id) {
#ifdef MPI_SUPPORT
  MPI_OK(MPI_Bcast(id, sizeof(*id), MPI_BYTE, 0, MPI_COMM_WORLD));
  (void)rank;
#else
  if (rank == 0) g_id = *id;
  pthread_barrier_wait(&g_barrier);
  *id = g_id;
  pthread_barrier_wait(&g_barrier);
#endif
}

int run_example(int argc, char** argv, example_fn fn) {
#ifdef MPI_SUPPORT
  MPI_OK(MPI_Init(&argc, &argv));
  int rank = 0, nranks = 1;
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &nranks));
  int ndev = 1;
  cudaGetDeviceCount(&ndev);
  void* failed = fn(rank, nranks, rank % ndev);
  MPI_OK(MPI_Finalize());
  return failed ? 1 : 0;
#else
  (void)argc;
  (void)argv;
  int nranks = 0;
  cudaGetDeviceCount(&nranks);
  if (const char* n = getenv("NTHREADS")) nranks = atoi(n);
  pthread_barrier_init(&g_barrier, nullptr, nranks);
  pthread_t* threads = static_cast<pthread_t*>(malloc(sizeof(pthread_t) * nranks));
  ThreadArgs* args = static_cast<ThreadArgs*>(malloc(sizeof(ThreadArgs) * nranks));
  for (int r = 0; r < nranks; ++r) {
    args[r] = ThreadArgs{fn, r, nranks};
    pthread_create(&threads[r], nullptr, thread_main, &args[r]);
  }
  int failed = 0;
  for (int r = 0; r < nranks; ++r) {
    void* out = nullptr;
    pthread_join(threads[r], &out);
    failed += out != nullptr;
  }
  pthread_barrier_destroy(&g_barrier);
  free(threads);
  free(args);
  return failed ? 1 : 0;
#endif
}
