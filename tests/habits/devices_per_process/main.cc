// Sums a vector over every GPU of every process. Each process drives `gpus_per_process` GPUs (the
// first argument) through host arrays of device pointers, one entry per GPU, and a small
// communicator class issues the grouped all-reduce. Run with one GPU per process:
//   mpirun -np 2 ./allsum 1 65536
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK_CUDA(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s\n", cudaGetErrorString(e)); exit(1); } } while (0)
#define CHECK_NCCL(x) do { ncclResult_t r = (x); if (r != ncclSuccess) { printf("NCCL %s\n", ncclGetErrorString(r)); exit(1); } } while (0)

class DeviceGroup {
 public:
  DeviceGroup(int gpus, int process, int processes) : gpus_(gpus), first_(process * gpus) {
    ncclUniqueId id;
    if (process == 0) ncclGetUniqueId(&id);
    MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
    comms_.resize(gpus);
    streams_.resize(gpus);
    CHECK_NCCL(ncclGroupStart());
    for (int g = 0; g < gpus; ++g) {
      CHECK_CUDA(cudaSetDevice(g));
      CHECK_CUDA(cudaStreamCreate(&streams_[g]));
      CHECK_NCCL(ncclCommInitRank(&comms_[g], processes * gpus, id, first_ + g));
    }
    CHECK_NCCL(ncclGroupEnd());
  }
  void Sum(int count, float** in, float** out) {
    CHECK_NCCL(ncclGroupStart());
    for (int g = 0; g < gpus_; ++g)
      CHECK_NCCL(ncclAllReduce(in[g], out[g], count, ncclFloat, ncclSum, comms_[g], streams_[g]));
    CHECK_NCCL(ncclGroupEnd());
  }
  void Wait() {
    for (int g = 0; g < gpus_; ++g) CHECK_CUDA(cudaStreamSynchronize(streams_[g]));
  }

 private:
  int gpus_, first_;
  std::vector<ncclComm_t> comms_;
  std::vector<cudaStream_t> streams_;
};

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int process = 0, processes = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &process);
  MPI_Comm_size(MPI_COMM_WORLD, &processes);
  if (argc < 3) {
    printf("usage: %s gpus_per_process count\n", argv[0]);
    return 1;
  }
  int gpus_per_process = atoi(argv[1]);
  int count = atoi(argv[2]);
  DeviceGroup group(gpus_per_process, process, processes);

  float** in = (float**)malloc(gpus_per_process * sizeof(float*));
  float** out = (float**)malloc(gpus_per_process * sizeof(float*));
  std::vector<float> host(count);
  for (int i = 0; i < count; ++i) host[i] = 0.001f * (i % 1000) + process;
  for (int g = 0; g < gpus_per_process; ++g) {
    CHECK_CUDA(cudaSetDevice(g));
    CHECK_CUDA(cudaMalloc(in + g, count * sizeof(float)));
    CHECK_CUDA(cudaMalloc(out + g, count * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(in[g], host.data(), count * sizeof(float), cudaMemcpyHostToDevice));
  }

  double start = MPI_Wtime();
  for (int rep = 0; rep < 20; ++rep) {
    group.Sum(count, in, out);
    group.Wait();
  }
  double seconds = (MPI_Wtime() - start) / 20;
  CHECK_CUDA(cudaMemcpy(host.data(), out[0], count * sizeof(float), cudaMemcpyDeviceToHost));
  if (process == 0) printf("count %d: %.3f ms per sum, out[1] = %f\n", count, seconds * 1e3, host[1]);
  for (int g = 0; g < gpus_per_process; ++g) {
    cudaFree(in[g]);
    cudaFree(out[g]);
  }
  free(in);
  free(out);
  MPI_Finalize();
  return 0;
}
