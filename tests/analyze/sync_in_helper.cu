// Host syncs made inside helpers and methods (the habit of rodhuega/tfgMatrixNccl: its matrix
// object's method waits for the device between a kernel and the collective reading what it wrote):
// the call orders the work before and after it, as the sync written in place would, also through a
// class template's method that clang cannot resolve in a template. A helper that does not wait
// leaves the race it is called between.
#include <cuda_runtime.h>
#include <nccl.h>

__global__ void fill(float* x, int n) { x[n - 1] = n; }

struct Device {
  void wait() { cudaDeviceSynchronize(); }
  void wait_for(cudaStream_t t) { cudaStreamSynchronize(t); }
  void note() {}
};

void settle(Device& d) { d.wait(); }

void step(Device& d, float* a, float* b, float* c, float* e, float* h, int n, ncclComm_t comm, cudaStream_t work,
          cudaStream_t comm_stream) {
  fill<<<1, 1, 0, work>>>(a, n);
  d.wait();
  ncclAllReduce(a, a, n, ncclFloat, ncclSum, comm, comm_stream);
  fill<<<1, 1, 0, work>>>(b, n);
  d.wait_for(work);
  ncclAllReduce(b, b, n, ncclFloat, ncclSum, comm, comm_stream);
  fill<<<1, 1, 0, work>>>(c, n);
  settle(d);
  ncclAllReduce(c, c, n, ncclFloat, ncclSum, comm, comm_stream);
  fill<<<1, 1, 0, work>>>(e, n);
  d.note();
  ncclAllReduce(e, e, n, ncclFloat, ncclSum, comm, comm_stream);
  fill<<<1, 1, 0, work>>>(h, n);
  d.wait_for(comm_stream);  // waits for the collective's stream, not the kernel's
  ncclAllReduce(h, h, n, ncclFloat, ncclSum, comm, comm_stream);
}

template <class T>
class Matrix {
 public:
  void wait_all();
};

template <class T>
class Environment {
 public:
  void step(Matrix<T>* m, T* f, int n, ncclComm_t comm, cudaStream_t work, cudaStream_t comm_stream);
};

// Out of line, as a class template's methods often are: inside Environment<T>::step, m->wait_all()
// names a member of a dependent type, which clang leaves unresolved.
template <class T>
void Matrix<T>::wait_all() {
  cudaDeviceSynchronize();
}

template <class T>
void Environment<T>::step(Matrix<T>* m, T* f, int n, ncclComm_t comm, cudaStream_t work, cudaStream_t comm_stream) {
  cudaMemsetAsync(f, 0, n * sizeof(T), work);
  m->wait_all();
  ncclAllReduce(f, f, n, ncclFloat, ncclSum, comm, comm_stream);
}

// Through an object of any type the template is given: clang knows nothing of the call.
template <class Any>
void any_step(Any* m, float* g, int n, ncclComm_t comm, cudaStream_t work, cudaStream_t comm_stream) {
  fill<<<1, 1, 0, work>>>(g, n);
  m->wait_all();
  ncclAllReduce(g, g, n, ncclFloat, ncclSum, comm, comm_stream);
}
