// Habit of launcher-agnostic benchmarks that parse `--rank` and `--nranks` in a function of their
// own (written here, not copied): rank 0 writes the NCCL id to a file the others poll, and each
// rank all-reduces a buffer a number of times, timed with events.
#include <cuda_runtime.h>
#include <nccl.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

struct Options {
  int rank = -1;
  int nranks = 2;
  int count = 1 << 20;
  const char* id_file = "bench_nccl_id";
};

static Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--rank")) o.rank = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--nranks")) o.nranks = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--count")) o.count = std::atoi(argv[++i]);
  }
  if (o.rank < 0 || o.rank >= o.nranks) {
    std::fprintf(stderr, "usage: %s --rank R --nranks N [--count C]\n", argv[0]);
    std::exit(2);
  }
  return o;
}

static ncclUniqueId shared_id(const Options& o) {
  ncclUniqueId id;
  if (o.rank == 0) {
    ncclGetUniqueId(&id);
    const std::string part = std::string(o.id_file) + ".part";
    FILE* f = std::fopen(part.c_str(), "wb");
    std::fwrite(&id, sizeof(id), 1, f);
    std::fclose(f);
    std::rename(part.c_str(), o.id_file);
  } else {
    FILE* f = nullptr;
    while ((f = std::fopen(o.id_file, "rb")) == nullptr) usleep(1000);
    if (std::fread(&id, sizeof(id), 1, f) != 1) std::exit(1);
    std::fclose(f);
  }
  return id;
}

int main(int argc, char** argv) {
  const Options o = parse_options(argc, argv);
  cudaSetDevice(0);
  const ncclUniqueId id = shared_id(o);
  ncclComm_t comm;
  ncclCommInitRank(&comm, o.nranks, id, o.rank);
  float *in, *out;
  cudaMalloc(&in, o.count * sizeof(float));
  cudaMalloc(&out, o.count * sizeof(float));
  cudaMemset(in, 0, o.count * sizeof(float));
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start, s);
  for (int it = 0; it < 50; ++it) ncclAllReduce(in, out, o.count, ncclFloat, ncclSum, comm, s);
  cudaEventRecord(stop, s);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  if (o.rank == 0) std::printf("Time: %.4f ms\n", ms / 50);
  ncclCommDestroy(comm);
  return 0;
}
