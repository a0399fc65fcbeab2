// utils.h: error-check macros and small host helpers shared by our NCCL programs.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <unistd.h>
#include <cuda_runtime.h>
#include <nccl.h>

#define CUDACHECK(cmd) do {                               \
  cudaError_t err_ = cmd;                                 \
  if (err_ != cudaSuccess) {                              \
    printf("Failed: Cuda error %s:%d '%s'\n",             \
        __FILE__, __LINE__, cudaGetErrorString(err_));    \
    exit(EXIT_FAILURE);                                   \
  }                                                       \
} while (0)

#define NCCLCHECK(cmd) do {                               \
  ncclResult_t res_ = cmd;                                \
  if (res_ != ncclSuccess) {                              \
    printf("Failed, NCCL error %s:%d '%s'\n",             \
        __FILE__, __LINE__, ncclGetErrorString(res_));    \
    exit(EXIT_FAILURE);                                   \
  }                                                       \
} while (0)

#define CUBLASCHECK(cmd) do {                             \
  int stat_ = (int)(cmd);                                 \
  if (stat_ != 0) {                                       \
    printf("Failed: cuBLAS error %s:%d status %d\n",      \
        __FILE__, __LINE__, stat_);                       \
    exit(EXIT_FAILURE);                                   \
  }                                                       \
} while (0)

// djb2 hash of the host name, to find the ranks that share a node (as in the NCCL examples).
static uint64_t getHostHash(const char* string) {
  uint64_t result = 5381;
  for (int c = 0; string[c] != '\0'; c++) result = ((result << 5) + result) ^ string[c];
  return result;
}

static void getHostName(char* hostname, int maxlen) {
  gethostname(hostname, maxlen);
  for (int i = 0; i < maxlen; i++) {
    if (hostname[i] == '.') { hostname[i] = '\0'; return; }
  }
}

// Deterministic uniform values in [-scale, scale): same seed, same numbers on every rank.
static void fill_uniform(float* v, size_t n, uint64_t seed, float scale) {
  uint64_t s = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  for (size_t i = 0; i < n; ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    float u = (float)((s >> 40) & 0xFFFFFF) / (float)0x1000000;
    v[i] = (2.f * u - 1.f) * scale;
  }
}

static double checksum(const float* v, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += v[i];
  return s;
}

// "--name value" from argv, else the default.
static int arg_int(int argc, char** argv, const char* name, int dflt) {
  for (int i = 1; i + 1 < argc; ++i)
    if (strcmp(argv[i], name) == 0) return atoi(argv[i + 1]);
  return dflt;
}

static int env_int(const char* name, int dflt) {
  const char* v = getenv(name);
  return v ? atoi(v) : dflt;
}
