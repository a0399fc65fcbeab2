// Vocab-parallel cross-entropy (the LM head of a tensor-parallel model): each rank holds
// vocab/world columns of the output embedding; the softmax max and denominator and the target
// logit are combined with all-reduces. Rank and world are command-line arguments; the NCCL
// unique id goes through a file (on a shared file system for several nodes).
//   ./vocab_ce --rank 0 --world 2 --id-file /tmp/ce.id & ./vocab_ce --rank 1 --world 2 --id-file /tmp/ce.id
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(call) do { auto r_ = (call); if ((int)r_ != 0) { \
  fprintf(stderr, "%s:%d: %s failed with %d\n", __FILE__, __LINE__, #call, (int)r_); exit(1); } } while (0)

const int TOKENS = 512;
const int HIDDEN = 1024;
const int VOCAB = 32000;

static float hval(size_t i) { return (float)((i * 2654435761u) % 1000) / 1000.f - 0.5f; }
static float wval(size_t i) { return ((float)((i * 40503u + 7) % 997) / 997.f - 0.5f) * 0.1f; }

__global__ void row_max_kernel(const float* logits, float* row_max, int tokens, int cols) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= tokens) return;
  float m = -FLT_MAX;
  for (int c = 0; c < cols; ++c) m = fmaxf(m, logits[(size_t)t * cols + c]);
  row_max[t] = m;
}

// stats[t] = sum_c exp(logit - max), stats[tokens + t] = the target's logit if this rank holds it.
__global__ void sumexp_target_kernel(const float* logits, const float* row_max, const int* target, float* stats,
                                     int tokens, int cols, int vocab_start) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= tokens) return;
  float s = 0.f;
  for (int c = 0; c < cols; ++c) s += expf(logits[(size_t)t * cols + c] - row_max[t]);
  stats[t] = s;
  int local = target[t] - vocab_start;
  stats[tokens + t] = (local >= 0 && local < cols) ? logits[(size_t)t * cols + local] : 0.f;
}

__global__ void loss_kernel(const float* stats, const float* row_max, float* loss, int tokens) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < tokens) loss[t] = logf(stats[t]) + row_max[t] - stats[tokens + t];
}

int main(int argc, char** argv) {
  int rank = 0, world = 1, tokens = TOKENS, iters = 20;
  const char* id_file = "vocab_ce.id";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--rank")) rank = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--world")) world = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--tokens")) tokens = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--iters")) iters = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--id-file")) id_file = argv[i + 1];
  }
  if (VOCAB % world) { fprintf(stderr, "vocab %d not divisible by world %d\n", VOCAB, world); return 1; }
  const int vocab_local = VOCAB / world;
  const int vocab_start = rank * vocab_local;

  CK(cudaSetDevice(rank));
  ncclUniqueId id;
  if (rank == 0) {
    CK(ncclGetUniqueId(&id));
    FILE* f = fopen(id_file, "wb");
    fwrite(&id, 1, sizeof(id), f);
    fclose(f);
  } else {
    struct stat st;
    while (stat(id_file, &st) != 0 || st.st_size < (off_t)sizeof(id)) usleep(20000);
    FILE* f = fopen(id_file, "rb");
    if (fread(&id, 1, sizeof(id), f) != sizeof(id)) { fprintf(stderr, "bad id file\n"); return 1; }
    fclose(f);
  }
  ncclComm_t comm;
  CK(ncclCommInitRank(&comm, world, id, rank));
  cudaStream_t stream;
  CK(cudaStreamCreate(&stream));
  cublasHandle_t blas;
  CK(cublasCreate(&blas));
  CK(cublasSetStream(blas, stream));

  // hidden states (replicated), this rank's columns of the output embedding, targets
  std::vector<float> h_h((size_t)tokens * HIDDEN), h_w((size_t)HIDDEN * vocab_local);
  std::vector<int> h_target(tokens);
  for (size_t i = 0; i < h_h.size(); ++i) h_h[i] = hval(i);
  for (int k = 0; k < HIDDEN; ++k)
    for (int v = 0; v < vocab_local; ++v) h_w[(size_t)k * vocab_local + v] = wval((size_t)k * VOCAB + vocab_start + v);
  for (int t = 0; t < tokens; ++t) h_target[t] = (t * 7919) % VOCAB;
  float *d_hidden, *d_w, *d_logits, *d_max, *d_stats, *d_loss;
  int* d_target;
  CK(cudaMalloc(&d_hidden, h_h.size() * sizeof(float)));
  CK(cudaMalloc(&d_w, h_w.size() * sizeof(float)));
  CK(cudaMalloc(&d_logits, (size_t)tokens * vocab_local * sizeof(float)));
  CK(cudaMalloc(&d_max, tokens * sizeof(float)));
  CK(cudaMalloc(&d_stats, 2 * tokens * sizeof(float)));
  CK(cudaMalloc(&d_loss, tokens * sizeof(float)));
  CK(cudaMalloc(&d_target, tokens * sizeof(int)));
  CK(cudaMemcpy(d_hidden, h_h.data(), h_h.size() * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_w, h_w.data(), h_w.size() * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_target, h_target.data(), tokens * sizeof(int), cudaMemcpyHostToDevice));

  const float alpha = 1.f, beta = 0.f;
  const int threads = 128, blocks = (tokens + threads - 1) / threads;
  cudaEvent_t ev0, ev1;
  cudaEventCreate(&ev0);
  cudaEventCreate(&ev1);
  for (int it = 0; it < iters + 2; ++it) {
    if (it == 2) cudaEventRecord(ev0, stream);  // two warmup iterations
    // logits[tokens][vocab_local] = hidden[tokens][HIDDEN] * w[HIDDEN][vocab_local]
    CK(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, vocab_local, tokens, HIDDEN, &alpha, d_w, vocab_local, d_hidden,
                   HIDDEN, &beta, d_logits, vocab_local));
    row_max_kernel<<<blocks, threads, 0, stream>>>(d_logits, d_max, tokens, vocab_local);
    CK(ncclAllReduce(d_max, d_max, tokens, ncclFloat, ncclMax, comm, stream));
    sumexp_target_kernel<<<blocks, threads, 0, stream>>>(d_logits, d_max, d_target, d_stats, tokens, vocab_local,
                                                         vocab_start);
    CK(ncclAllReduce(d_stats, d_stats, 2 * tokens, ncclFloat, ncclSum, comm, stream));
    loss_kernel<<<blocks, threads, 0, stream>>>(d_stats, d_max, d_loss, tokens);
  }
  cudaEventRecord(ev1, stream);
  CK(cudaStreamSynchronize(stream));
  float ms = 0;
  cudaEventElapsedTime(&ms, ev0, ev1);

  std::vector<float> loss(tokens);
  CK(cudaMemcpy(loss.data(), d_loss, tokens * sizeof(float), cudaMemcpyDeviceToHost));
  double mean = 0;
  for (float l : loss) mean += l;
  mean /= tokens;
  if (rank == 0) {
    double max_err = 0;  // CPU reference on every 64th token, over the full vocabulary
    std::vector<double> logit(VOCAB);
    for (int t = 0; t < tokens; t += 64) {
      double m = -1e30, s = 0;
      for (int v = 0; v < VOCAB; ++v) {
        double acc = 0;
        for (int k = 0; k < HIDDEN; ++k) acc += (double)hval((size_t)t * HIDDEN + k) * wval((size_t)k * VOCAB + v);
        logit[v] = acc;
        m = fmax(m, acc);
      }
      for (int v = 0; v < VOCAB; ++v) s += exp(logit[v] - m);
      double ref = log(s) + m - logit[h_target[t]];
      max_err = fmax(max_err, fabs(ref - loss[t]));
    }
    printf("vocab_ce: %d ranks, %d tokens, vocab %d, hidden %d\n", world, tokens, VOCAB, HIDDEN);
    printf("checksum: %.6f\n", mean * tokens);
    printf("mean loss: %.6f  max err vs CPU reference: %.3e\n", mean, max_err);
    printf("avg iteration time: %.3f ms\n", ms / iters);
    unlink(id_file);
  }
  CK(ncclCommDestroy(comm));
  return 0;
}
