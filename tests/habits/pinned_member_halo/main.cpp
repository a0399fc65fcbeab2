// Habit of MPI stencils written with small classes (written here, not copied): each halo plane is a
// `Plane` whose constructor pins its host copy with cudaMallocHost and whose destructor frees it; the
// planes are exchanged with the periodic neighbours by MPI_Sendrecv of those members, staged through
// the host, around a device update of the interior.
#include <mpi.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

void update(double* cur, const double* below, const double* above, int n, cudaStream_t stream);

class Plane {
 public:
  double* host;    // pinned: the MPI buffer
  double* device;  // the device copy
  int n;
  explicit Plane(int n_) : n(n_) {
    cudaMallocHost(&host, n * sizeof(double));
    std::memset(host, 0, n * sizeof(double));
    cudaMalloc(&device, n * sizeof(double));
    cudaMemset(device, 0, n * sizeof(double));
  }
  ~Plane() {
    cudaFreeHost(host);
    cudaFree(device);
  }
  void to_host(cudaStream_t s) { cudaMemcpyAsync(host, device, n * sizeof(double), cudaMemcpyDeviceToHost, s); }
  void to_device(cudaStream_t s) { cudaMemcpyAsync(device, host, n * sizeof(double), cudaMemcpyHostToDevice, s); }
};

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  cudaSetDevice(rank);
  const int n = 1 << 16;
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  Plane mine(n), below(n), above(n);
  for (int i = 0; i < n; ++i) mine.host[i] = ((i * 7919 + rank) % 1000) / 1000.0;
  mine.to_device(stream);
  cudaStreamSynchronize(stream);
  const int down = (rank + world - 1) % world, up = (rank + 1) % world;
  const double t0 = MPI_Wtime();
  for (int step = 0; step < 20; ++step) {
    mine.to_host(stream);
    cudaStreamSynchronize(stream);
    MPI_Sendrecv(mine.host, n, MPI_DOUBLE, up, 1, below.host, n, MPI_DOUBLE, down, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(mine.host, n, MPI_DOUBLE, down, 2, above.host, n, MPI_DOUBLE, up, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    below.to_device(stream);
    above.to_device(stream);
    update(mine.device, below.device, above.device, n, stream);
  }
  cudaStreamSynchronize(stream);
  const double t1 = MPI_Wtime();
  if (rank == 0) std::printf("%.3f ms per step\n", 1e3 * (t1 - t0) / 20);
  MPI_Finalize();
  return 0;
}
