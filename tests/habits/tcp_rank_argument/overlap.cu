// Habit of two-process programs started by hand, `./overlap <ip> <port> <rank>` in two shells
// (written here, not copied): the rank is a positional argument, rank 0 serves the NCCL id over a
// TCP socket the other connects to, and each pass runs a cuBLAS GEMM then an all-reduce of its
// output on a high-priority stream of the communicator's wrapper class.
#include <arpa/inet.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#define CHECK(cmd)                                                            \
  do {                                                                        \
    cudaError_t e = (cmd);                                                    \
    if (e != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      std::exit(1);                                                           \
    }                                                                         \
  } while (0)

class Link {
 public:
  Link(int nrank, int rank, const char* ip, unsigned short port) : rank_(rank) {
    CHECK(cudaSetDevice(rank));
    int low = 0, high = 0;
    CHECK(cudaDeviceGetStreamPriorityRange(&low, &high));
    CHECK(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking, high));
    ncclUniqueId id;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = inet_addr(ip);
    if (rank == 0) {
      ncclGetUniqueId(&id);
      int server = socket(AF_INET, SOCK_STREAM, 0);
      int yes = 1;
      setsockopt(server, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
      if (bind(server, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || listen(server, nrank) != 0) {
        std::perror("bind");
        std::exit(1);
      }
      for (int peer = 1; peer < nrank; ++peer) {
        int fd = accept(server, nullptr, nullptr);
        if (write(fd, &id, sizeof(id)) != static_cast<ssize_t>(sizeof(id))) std::exit(1);
        close(fd);
      }
      close(server);
    } else {
      int fd = socket(AF_INET, SOCK_STREAM, 0);
      while (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) usleep(1000);
      size_t got = 0;
      while (got < sizeof(id)) {
        ssize_t n = read(fd, reinterpret_cast<char*>(&id) + got, sizeof(id) - got);
        if (n <= 0) std::exit(1);
        got += static_cast<size_t>(n);
      }
      close(fd);
    }
    ncclCommInitRank(&comm_, nrank, id, rank);
  }
  ~Link() { ncclCommDestroy(comm_); }
  void AllReduce(float* data, size_t count) { ncclAllReduce(data, data, count, ncclFloat, ncclSum, comm_, stream_); }
  cudaStream_t stream() const { return stream_; }

 private:
  int rank_;
  ncclComm_t comm_;
  cudaStream_t stream_;
};

__global__ void fill(float* p, size_t n, int seed) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    p[i] = static_cast<float>((i * 7 + seed) % 13) * 0.125f;
}

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s <ip> <port> <rank>\n", argv[0]);
    return 1;
  }
  const int nrank = 2;
  int rank = atoi(argv[3]);
  const unsigned short port = static_cast<unsigned short>(atoi(argv[2]));
  std::unique_ptr<Link> link = std::make_unique<Link>(nrank, rank, argv[1], port);
  const int m = 1024, n = 1024, k = 1024;
  float *a, *b, *c;
  CHECK(cudaMalloc(&a, sizeof(float) * m * k));
  CHECK(cudaMalloc(&b, sizeof(float) * k * n));
  CHECK(cudaMalloc(&c, sizeof(float) * m * n));
  fill<<<64, 256>>>(a, static_cast<size_t>(m) * k, rank);
  fill<<<64, 256>>>(b, static_cast<size_t>(k) * n, rank + 3);
  CHECK(cudaDeviceSynchronize());
  cublasHandle_t blas;
  cublasCreate(&blas);
  cublasSetStream(blas, link->stream());
  const float one = 1.0f, zero = 0.0f;
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start, link->stream()));
  for (int it = 0; it < 50; ++it) {
    cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, a, m, b, k, &zero, c, m);
    link->AllReduce(c, static_cast<size_t>(m) * n);
  }
  CHECK(cudaEventRecord(stop, link->stream()));
  CHECK(cudaEventSynchronize(stop));
  float ms = 0.0f;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  std::printf("rank %d: gemm + allreduce %.3f ms per pass\n", rank, ms / 50);
  cublasDestroy(blas);
  return 0;
}
