// Row-parallel linear layer (Megatron style) with fp16 cublasLt GEMM and the
// all-reduce on its own stream, so that the next micro-batch's GEMM can run
// while the previous one is being reduced.
//
// build: nvcc -O2 -std=c++17 -arch=sm_90 -Iinclude $(mpicc --showme:compile) main.cu linear_lt.cu -o tp_row -lcublasLt -lcublas -lnccl -lmpi
#include <mpi.h>
#include <vector>
#include <cstring>
#include <cstdlib>
#include <cmath>
#include "row_parallel.h"

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int rank = 0, tp_size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &tp_size);

  int tokens = 2048, hidden = 4096, ffn = 16384;
  for (int i = 1; i + 1 < argc; ++i) {
    if (!strcmp(argv[i], "--tokens")) tokens = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--hidden")) hidden = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--ffn")) ffn = atoi(argv[++i]);
  }
  const int ffn_local = ffn / tp_size;
  const int micro_batches = 4;
  const int mb_tokens = tokens / micro_batches;

  int ndev = 1;
  CHECK_CUDA(cudaGetDeviceCount(&ndev));
  CHECK_CUDA(cudaSetDevice(rank % ndev));

  ncclUniqueId uid;
  if (rank == 0) CHECK_NCCL(ncclGetUniqueId(&uid));
  MPI_Bcast(&uid, (int)sizeof(uid), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t tp_comm;
  CHECK_NCCL(ncclCommInitRank(&tp_comm, tp_size, uid, rank));

  cudaStream_t compute_stream, comm_stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&compute_stream, cudaStreamNonBlocking));
  CHECK_CUDA(cudaStreamCreateWithFlags(&comm_stream, cudaStreamNonBlocking));
  std::vector<cudaEvent_t> gemm_done(micro_batches), reduce_done(micro_batches);
  for (int m = 0; m < micro_batches; ++m) {
    CHECK_CUDA(cudaEventCreateWithFlags(&gemm_done[m], cudaEventDisableTiming));
    CHECK_CUDA(cudaEventCreateWithFlags(&reduce_done[m], cudaEventDisableTiming));
  }

  tp::RowParallelLinear fc2;
  tp::setup_linear(fc2, mb_tokens, ffn_local, hidden, 32u << 20);

  __half *act = nullptr, *out = nullptr;    // act: [tokens x ffn_local] (this rank's shard), out: [tokens x hidden]
  CHECK_CUDA(cudaMalloc(&act, sizeof(__half) * (size_t)tokens * ffn_local));
  CHECK_CUDA(cudaMalloc(&out, sizeof(__half) * (size_t)tokens * hidden));
  tp::fill_half(fc2.weight, (size_t)ffn_local * hidden, 7 + rank, 1.0f / std::sqrt((float)ffn), compute_stream);
  tp::fill_half(act, (size_t)tokens * ffn_local, 100 + rank, 1.0f, compute_stream);
  CHECK_CUDA(cudaStreamSynchronize(compute_stream));

  auto run_layer = [&]() {
    for (int m = 0; m < micro_batches; ++m) {
      const __half* x_mb = act + (size_t)m * mb_tokens * ffn_local;
      __half* y_mb = out + (size_t)m * mb_tokens * hidden;
      tp::linear_forward(fc2, x_mb, y_mb, compute_stream);
      CHECK_CUDA(cudaEventRecord(gemm_done[m], compute_stream));
      CHECK_CUDA(cudaStreamWaitEvent(comm_stream, gemm_done[m], 0));
      CHECK_NCCL(ncclAllReduce(y_mb, y_mb, (size_t)mb_tokens * hidden, ncclHalf, ncclSum, tp_comm, comm_stream));
      CHECK_CUDA(cudaEventRecord(reduce_done[m], comm_stream));
    }
    for (int m = 0; m < micro_batches; ++m)
      CHECK_CUDA(cudaStreamWaitEvent(compute_stream, reduce_done[m], 0));
  };

  for (int i = 0; i < 5; ++i) run_layer();
  CHECK_CUDA(cudaStreamSynchronize(compute_stream));
  MPI_Barrier(MPI_COMM_WORLD);

  const int iters = 50;
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i) run_layer();
  CHECK_CUDA(cudaStreamSynchronize(compute_stream));
  double t1 = MPI_Wtime();

  std::vector<__half> h_out((size_t)tokens * hidden);
  CHECK_CUDA(cudaMemcpy(h_out.data(), out, sizeof(__half) * h_out.size(), cudaMemcpyDeviceToHost));
  double checksum = 0.0;
  for (const __half& v : h_out) checksum += (double)__half2float(v);
  if (rank == 0) {
    double flops = 2.0 * tokens * (double)ffn * hidden;
    std::printf("row-parallel fc2 tp=%d tokens=%d hidden=%d ffn=%d: %.3f ms/iter, %.1f TFLOP/s, checksum=%.4f\n",
                tp_size, tokens, hidden, ffn, (t1 - t0) * 1e3 / iters, flops / ((t1 - t0) / iters) / 1e12, checksum);
  }

  tp::destroy_linear(fc2);
  cudaFree(act);
  cudaFree(out);
  for (int m = 0; m < micro_batches; ++m) {
    cudaEventDestroy(gemm_done[m]);
    cudaEventDestroy(reduce_done[m]);
  }
  cudaStreamDestroy(comm_stream);
  cudaStreamDestroy(compute_stream);
  ncclCommDestroy(tp_comm);
  MPI_Finalize();
  return 0;
}
