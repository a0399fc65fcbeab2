// A solver whose fields are objects of a small class owning their device storage, handed whole to
// its functions by reference, as C++ codes write them (eth-cscs's miniapp `Field`, a `Tensor`): the
// loop never names a pointer, and the functions reach the memory through `device_data()`. Each pass
// relaxes `u` into `v` and sums `v` over the ranks with NCCL, then copies it back into `u`.
#include <mpi.h>
#include <nccl.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK_CUDA(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)
#define CHECK_NCCL(x) do { ncclResult_t r_ = (x); if (r_ != ncclSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, ncclGetErrorString(r_)); std::exit(1); } } while (0)

class DeviceField {
 public:
  explicit DeviceField(int n) : n_(n) { CHECK_CUDA(cudaMalloc(&device_ptr_, sizeof(float) * n)); }
  ~DeviceField() { cudaFree(device_ptr_); }
  DeviceField(const DeviceField&) = delete;
  DeviceField& operator=(const DeviceField&) = delete;
  float* device_data() { return device_ptr_; }
  const float* device_data() const { return device_ptr_; }
  int size() const { return n_; }

 private:
  int n_;
  float* device_ptr_ = nullptr;
};

__global__ void relax_kernel(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) out[i] = 0.25f * in[i - 1] + 0.5f * in[i] + 0.25f * in[i + 1];
  else if (i < n) out[i] = in[i];
}

static void relax(const DeviceField& in, DeviceField& out, cudaStream_t s) {
  relax_kernel<<<(in.size() + 255) / 256, 256, 0, s>>>(in.device_data(), out.device_data(), in.size());
}

static void sum_over_ranks(DeviceField& f, ncclComm_t comm, cudaStream_t s) {
  CHECK_NCCL(ncclAllReduce(f.device_data(), f.device_data(), f.size(), ncclFloat, ncclSum, comm, s));
}

static void copy_field(DeviceField& to, const DeviceField& from, cudaStream_t s) {
  CHECK_CUDA(cudaMemcpyAsync(to.device_data(), from.device_data(), sizeof(float) * from.size(),
                             cudaMemcpyDeviceToDevice, s));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK_CUDA(cudaSetDevice(rank));
  ncclUniqueId id;
  if (rank == 0) CHECK_NCCL(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  CHECK_NCCL(ncclCommInitRank(&comm, size, id, rank));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));

  const int n = argc > 1 ? std::atoi(argv[1]) : 1 << 20;
  DeviceField u(n), v(n);
  CHECK_CUDA(cudaMemset(u.device_data(), 0, sizeof(float) * n));
  CHECK_CUDA(cudaMemset(v.device_data(), 0, sizeof(float) * n));
  for (int step = 0; step < 100; ++step) {
    relax(u, v, stream);
    sum_over_ranks(v, comm, stream);
    copy_field(u, v, stream);
  }
  CHECK_CUDA(cudaStreamSynchronize(stream));
  if (rank == 0) std::printf("done\n");
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
