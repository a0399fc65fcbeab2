// Ring pipeline without MPI: each rank transforms its data chunk by chunk on a compute stream
// and passes every finished chunk to the next rank on a second (communication) stream, so the
// transfer of chunk c overlaps the GEMM of chunk c+1. Rank and world come from the environment;
// rank 0 writes the NCCL unique id to a file the other ranks poll for.
//   RANK=0 WORLD_SIZE=2 ./ring & RANK=1 WORLD_SIZE=2 ./ring      (NCCL_ID_FILE, default ./nccl_id)
//   ./ring [rows] [hidden] [chunks]
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CUDACHECK(cmd) do { cudaError_t e = cmd; if (e != cudaSuccess) { \
  printf("Failed: Cuda error %s:%d '%s'\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(EXIT_FAILURE); } } while (0)
#define NCCLCHECK(cmd) do { ncclResult_t r = cmd; if (r != ncclSuccess) { \
  printf("Failed, NCCL error %s:%d '%s'\n", __FILE__, __LINE__, ncclGetErrorString(r)); exit(EXIT_FAILURE); } } while (0)

static const int kMaxChunks = 64;

__global__ void tanh_kernel(float* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = tanhf(v[i]);
}

__global__ void combine_kernel(float* out, const float* mine, const float* theirs, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = mine[i] + 0.5f * theirs[i];
}

static float value(int rank, size_t i, int salt) { return (float)((i * 31 + rank * 17 + salt) % 23) / 23.f - 0.5f; }

static ncclUniqueId get_unique_id(int rank, const std::string& path) {
  ncclUniqueId id;
  if (rank == 0) {
    NCCLCHECK(ncclGetUniqueId(&id));
    std::string tmp = path + ".tmp";
    FILE* f = fopen(tmp.c_str(), "wb");
    if (!f || fwrite(&id, sizeof(id), 1, f) != 1) { perror("writing the NCCL id"); exit(1); }
    fclose(f);
    rename(tmp.c_str(), path.c_str());  // appears all at once
  } else {
    FILE* f = nullptr;
    for (int tries = 0; !(f = fopen(path.c_str(), "rb")); ++tries) {
      if (tries > 3000) { fprintf(stderr, "rank %d: no %s after 30 s\n", rank, path.c_str()); exit(1); }
      usleep(10000);
    }
    if (fread(&id, sizeof(id), 1, f) != 1) { fprintf(stderr, "short read of %s\n", path.c_str()); exit(1); }
    fclose(f);
  }
  return id;
}

int main(int argc, char** argv) {
  const int rank = getenv("RANK") ? atoi(getenv("RANK")) : 0;
  const int world = getenv("WORLD_SIZE") ? atoi(getenv("WORLD_SIZE")) : 1;
  const std::string id_file = getenv("NCCL_ID_FILE") ? getenv("NCCL_ID_FILE") : "nccl_id";
  const int rows = argc > 1 ? atoi(argv[1]) : 4096;
  const int hidden = argc > 2 ? atoi(argv[2]) : 1024;
  const int chunks = argc > 3 ? atoi(argv[3]) : 8;
  if (rows % chunks != 0 || chunks > kMaxChunks) {
    fprintf(stderr, "rows must split into at most %d equal chunks\n", kMaxChunks);
    return 1;
  }
  const int chunk_rows = rows / chunks;
  const size_t chunk_elems = (size_t)chunk_rows * hidden;
  const size_t total = (size_t)rows * hidden;
  const int next = (rank + 1) % world;
  const int prev = (rank - 1 + world) % world;

  int ndev;
  CUDACHECK(cudaGetDeviceCount(&ndev));
  CUDACHECK(cudaSetDevice(rank % ndev));
  ncclUniqueId id = get_unique_id(rank, id_file);
  ncclComm_t comm;
  NCCLCHECK(ncclCommInitRank(&comm, world, id, rank));

  cudaStream_t compute, comm_stream;
  CUDACHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
  CUDACHECK(cudaStreamCreateWithFlags(&comm_stream, cudaStreamNonBlocking));
  cudaEvent_t ready[kMaxChunks], arrived;
  for (int c = 0; c < chunks; ++c) CUDACHECK(cudaEventCreateWithFlags(&ready[c], cudaEventDisableTiming));
  CUDACHECK(cudaEventCreateWithFlags(&arrived, cudaEventDisableTiming));
  cublasHandle_t blas;
  cublasCreate(&blas);
  cublasSetStream(blas, compute);

  std::vector<float> hx(total), hw((size_t)hidden * hidden);
  for (size_t i = 0; i < total; ++i) hx[i] = value(rank, i, 1);
  for (size_t i = 0; i < hw.size(); ++i) hw[i] = value(rank, i, 2) / sqrtf((float)hidden);
  float *x, *w, *y, *recv, *out;
  CUDACHECK(cudaMalloc(&x, total * sizeof(float)));
  CUDACHECK(cudaMalloc(&w, hw.size() * sizeof(float)));
  CUDACHECK(cudaMalloc(&y, total * sizeof(float)));
  CUDACHECK(cudaMalloc(&recv, total * sizeof(float)));
  CUDACHECK(cudaMalloc(&out, total * sizeof(float)));
  CUDACHECK(cudaMemcpy(x, hx.data(), total * sizeof(float), cudaMemcpyHostToDevice));
  CUDACHECK(cudaMemcpy(w, hw.data(), hw.size() * sizeof(float), cudaMemcpyHostToDevice));

  const float one = 1.f, zero = 0.f;
  auto iteration = [&]() {
    for (int c = 0; c < chunks; ++c) {
      // y_c = tanh(x_c W) on the compute stream
      cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, hidden, chunk_rows, hidden, &one, w, hidden,
                  x + c * chunk_elems, hidden, &zero, y + c * chunk_elems, hidden);
      tanh_kernel<<<(chunk_elems + 255) / 256, 256, 0, compute>>>(y + c * chunk_elems, chunk_elems);
      CUDACHECK(cudaEventRecord(ready[c], compute));
      // ... and handed to the next rank on the comm stream while chunk c+1 is computed
      CUDACHECK(cudaStreamWaitEvent(comm_stream, ready[c], 0));
      NCCLCHECK(ncclGroupStart());
      NCCLCHECK(ncclSend(y + c * chunk_elems, chunk_elems, ncclFloat, world == 1 ? rank : next, comm, comm_stream));
      NCCLCHECK(ncclRecv(recv + c * chunk_elems, chunk_elems, ncclFloat, world == 1 ? rank : prev, comm, comm_stream));
      NCCLCHECK(ncclGroupEnd());
    }
    CUDACHECK(cudaEventRecord(arrived, comm_stream));
    CUDACHECK(cudaStreamWaitEvent(compute, arrived, 0));
    combine_kernel<<<(total + 255) / 256, 256, 0, compute>>>(out, y, recv, total);
  };

  iteration();
  iteration();
  const int iters = 20;
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start, compute);
  for (int i = 0; i < iters; ++i) iteration();
  cudaEventRecord(stop, compute);
  CUDACHECK(cudaEventSynchronize(stop));
  float ms;
  cudaEventElapsedTime(&ms, start, stop);

  std::vector<float> hout(total);
  CUDACHECK(cudaMemcpy(hout.data(), out, total * sizeof(float), cudaMemcpyDeviceToHost));
  double sum = 0;
  for (float v : hout) sum += v;
  // CPU reference on a sample of rows: out = tanh(x_r W_r) + 0.5 tanh(x_prev W_prev).
  double max_err = 0;
  for (int r = 0; r < rows; r += 61) {
    for (int col = 0; col < hidden; col += 17) {
      double mine = 0, theirs = 0;
      for (int k = 0; k < hidden; ++k) {
        mine += (double)value(rank, (size_t)r * hidden + k, 1) * (value(rank, (size_t)k * hidden + col, 2) / sqrtf((float)hidden));
        theirs += (double)value(prev, (size_t)r * hidden + k, 1) * (value(prev, (size_t)k * hidden + col, 2) / sqrtf((float)hidden));
      }
      double ref = tanh(mine) + 0.5 * tanh(theirs);
      max_err = fmax(max_err, fabs(ref - hout[(size_t)r * hidden + col]));
    }
  }
  printf("rank %d: checksum %.6f, max err vs CPU reference %.2e\n", rank, sum, max_err);
  if (rank == 0) printf("avg iteration time: %.3f ms\n", ms / iters);

  NCCLCHECK(ncclCommDestroy(comm));
  if (rank == 0) unlink(id_file.c_str());
  cudaFree(x); cudaFree(w); cudaFree(y); cudaFree(recv); cudaFree(out);
  return 0;
}
