#include <cstdio>
#include <stdexcept>
#include <mpi.h>
#include <nccl.h>
#include <cuda_runtime.h>

template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t n) : n_(n) {
    if (cudaMalloc(&ptr_, n * sizeof(T)) != cudaSuccess) throw std::runtime_error("cudaMalloc");
  }
  ~DeviceBuffer() { cudaFree(ptr_); }
  T* data() { return ptr_; }
  size_t size() const { return n_; }
 private:
  T* ptr_ = nullptr;
  size_t n_;
};

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
  {
    DeviceBuffer<float> send(1 << 22), recv((1 << 22) * nranks);
    cudaStream_t s;
    cudaStreamCreate(&s);
    for (int i = 0; i < 25; ++i)
      ncclAllGather(send.data(), recv.data(), send.size(), ncclFloat, comm, s);
    cudaStreamSynchronize(s);
  }
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
