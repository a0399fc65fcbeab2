// Habit of halo-exchange libraries (written here, not copied): a descriptor holds the tile and one
// send and one receive buffer per neighbour (eight: edges and corners); each step packs the strided
// columns and rows with cudaMemcpy2DAsync, exchanges them in one group of sends and receives, and
// unpacks them with cudaMemcpy2DAsync. Options are parsed by prefix, `strncmp(argv[i], "--help", 6)`.
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CK(x) do { if ((x) != cudaSuccess) { std::fprintf(stderr, "cuda %s:%d\n", __FILE__, __LINE__); std::exit(1); } } while (0)
#define NK(x) do { if ((x) != ncclSuccess) { std::fprintf(stderr, "nccl %s:%d\n", __FILE__, __LINE__); std::exit(1); } } while (0)

struct Halo {
  int w = 0, h = 0, halo = 1;  // interior width and height, halo width
  float* tile = nullptr;       // (w + 2 halo) x (h + 2 halo)
  float* send[8] = {};
  float* recv[8] = {};
  int peer[8] = {};
};

__global__ void relax(const float* in, float* out, int w, int h, int halo) {
  const int stride = w + 2 * halo;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < w * h; i += gridDim.x * blockDim.x) {
    const int x = i % w + halo, y = i / w + halo;
    out[y * stride + x] = 0.25f * (in[y * stride + x - 1] + in[y * stride + x + 1] + in[(y - 1) * stride + x] +
                                   in[(y + 1) * stride + x]);
  }
}

// The corner of the interior each neighbour's block starts at, and the block's width and height.
static void Block(const Halo& d, int n, bool inner, int* x, int* y, int* bw, int* bh) {
  const int dx[8] = {-1, 1, 0, 0, -1, 1, -1, 1}, dy[8] = {0, 0, -1, 1, -1, -1, 1, 1};
  *bw = dx[n] == 0 ? d.w : d.halo;
  *bh = dy[n] == 0 ? d.h : d.halo;
  const int in_x = dx[n] < 0 ? d.halo : dx[n] > 0 ? d.w : d.halo;
  const int in_y = dy[n] < 0 ? d.halo : dy[n] > 0 ? d.h : d.halo;
  *x = inner ? in_x : (dx[n] < 0 ? 0 : dx[n] > 0 ? d.w + d.halo : d.halo);
  *y = inner ? in_y : (dy[n] < 0 ? 0 : dy[n] > 0 ? d.h + d.halo : d.halo);
}

static void Exchange(Halo& d, ncclComm_t comm, cudaStream_t s) {
  const int stride = d.w + 2 * d.halo;
  for (int n = 0; n < 8; ++n) {
    int x, y, bw, bh;
    Block(d, n, true, &x, &y, &bw, &bh);
    CK(cudaMemcpy2DAsync(d.send[n], bw * sizeof(float), d.tile + y * stride + x, stride * sizeof(float),
                         bw * sizeof(float), bh, cudaMemcpyDeviceToDevice, s));
  }
  NK(ncclGroupStart());
  for (int n = 0; n < 8; ++n) {
    int x, y, bw, bh;
    Block(d, n, true, &x, &y, &bw, &bh);
    NK(ncclSend(d.send[n], (size_t)bw * bh, ncclFloat, d.peer[n], comm, s));
    NK(ncclRecv(d.recv[n], (size_t)bw * bh, ncclFloat, d.peer[n], comm, s));
  }
  NK(ncclGroupEnd());
  for (int n = 0; n < 8; ++n) {
    int x, y, bw, bh;
    Block(d, n, false, &x, &y, &bw, &bh);
    CK(cudaMemcpy2DAsync(d.tile + y * stride + x, stride * sizeof(float), d.recv[n], bw * sizeof(float),
                         bw * sizeof(float), bh, cudaMemcpyDeviceToDevice, s));
  }
}

int main(int argc, char** argv) {
  int w = 512, h = 512, steps = 20;
  for (int i = 1; i < argc; ++i) {
    if (strncmp(argv[i], "--help", 6) == 0) {
      std::printf("usage: halo [--steps=N]\n");
      return 0;
    } else if (strncmp(argv[i], "--steps=", 8) == 0) {
      steps = atoi(argv[i] + 8);
    }
  }
  MPI_Init(&argc, &argv);
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  int gpus = 1;
  CK(cudaGetDeviceCount(&gpus));
  CK(cudaSetDevice(rank % gpus));
  ncclUniqueId id;
  if (rank == 0) NK(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  NK(ncclCommInitRank(&comm, nranks, id, rank));
  cudaStream_t s;
  CK(cudaStreamCreate(&s));

  Halo d;  // a periodic ring of tiles: the neighbours left and right are the ranks beside, the rest this rank
  d.w = w, d.h = h;
  const size_t tile = (size_t)(w + 2 * d.halo) * (h + 2 * d.halo);
  CK(cudaMalloc(&d.tile, tile * sizeof(float)));
  CK(cudaMemset(d.tile, 0, tile * sizeof(float)));
  float* next;
  CK(cudaMalloc(&next, tile * sizeof(float)));
  for (int n = 0; n < 8; ++n) {
    const size_t bytes = (size_t)(n < 2 ? d.halo * h : n < 4 ? w * d.halo : d.halo * d.halo) * sizeof(float);
    CK(cudaMalloc(&d.send[n], bytes));
    CK(cudaMalloc(&d.recv[n], bytes));
    d.peer[n] = n == 0 || n == 4 || n == 6 ? (rank + nranks - 1) % nranks : (rank + 1) % nranks;
  }

  for (int step = 0; step < steps; ++step) {
    Exchange(d, comm, s);
    relax<<<256, 256, 0, s>>>(d.tile, next, w, h, d.halo);
    CK(cudaMemcpyAsync(d.tile, next, tile * sizeof(float), cudaMemcpyDeviceToDevice, s));
  }
  CK(cudaStreamSynchronize(s));
  std::printf("halo: %d steps on %d ranks\n", steps, nranks);
  NK(ncclCommDestroy(comm));
  MPI_Finalize();
  return 0;
}
