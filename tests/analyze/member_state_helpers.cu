// A trainer object holds its buffers and communicator as members; its methods reach NCCL on them,
// with no parameter the caller passes (the style of a data-parallel stress test). main's loop
// reaches the all-reduce through step(), and a free function on a global through sync_globals().
#include <cuda_runtime.h>
#include <nccl.h>

float* g_buf;
ncclComm_t g_comm;
cudaStream_t g_stream;

void sync_globals() { ncclAllReduce(g_buf, g_buf, 1024, ncclFloat, ncclSum, g_comm, g_stream); }

class Trainer {
 public:
  void step() {
    backward();
    reduce_gradients();
  }

 private:
  void backward() { cudaMemsetAsync(grad_, 0, 1024 * sizeof(float), stream_); }
  void reduce_gradients() { ncclAllReduce(grad_, grad_, 1024, ncclFloat, ncclSum, comm_, stream_); }
  float* grad_ = nullptr;
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

int main() {
  Trainer trainer;
  for (int epoch = 0; epoch < 10; ++epoch) {
    trainer.step();
    sync_globals();
  }
  return 0;
}
