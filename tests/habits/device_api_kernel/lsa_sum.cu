// Habit of device-API demos (written here, not copied): the kernel reads every peer's window
// through load/store pointers; the host only sets the device communicator up and launches it.
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <nccl_device.h>
#include <cstdio>

__global__ void lsa_sum(ncclWindow_t win, float* out, size_t count, ncclDevComm dev) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
    float acc = 0;
    for (int p = 0; p < dev.nRanks; ++p) acc += static_cast<float*>(ncclGetLsaPointer(win, 0, p))[i];
    out[i] = acc;
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  cudaSetDevice(rank);
  ncclUniqueId id;
  if (rank == 0) ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  ncclCommInitRank(&comm, nranks, id, rank);
  const size_t count = 1 << 20;
  float *buf, *out;
  ncclMemAlloc(reinterpret_cast<void**>(&buf), count * sizeof(float));
  cudaMalloc(&out, count * sizeof(float));
  ncclWindow_t win;
  ncclCommWindowRegister(comm, buf, count * sizeof(float), &win, NCCL_WIN_COLL_SYMMETRIC);
  ncclDevCommRequirements reqs = NCCL_DEV_COMM_REQUIREMENTS_INITIALIZER;
  ncclDevComm dev;
  ncclDevCommCreate(comm, &reqs, &dev);
  lsa_sum<<<64, 256>>>(win, out, count, dev);
  cudaDeviceSynchronize();
  ncclDevCommDestroy(comm, &dev);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
