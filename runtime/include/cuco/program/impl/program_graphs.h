// cuco/program/impl/program_graphs.h: the CUDA graphs a program captures and instantiates itself, on
// the candidate side (noted by candidate_shims.h's cudaStreamEndCapture, cudaGraphInstantiate*,
// forgotten by cudaGraphDestroy / cudaGraphExecDestroy). The program's code after its loop never
// runs in the harness, so the graphs it would have destroyed there are destroyed at teardown, before
// the communicator goes: ncclCommDestroy waits while a graph holds work of the communicator (a
// program that captured its NCCL calls would otherwise hang the teardown).
#pragma once

#include <algorithm>
#include <mutex>
#include <vector>

#include <cuda_runtime.h>

namespace cuco_program::candidate_detail {

class ProgramGraphs {
 public:
  void NoteGraph(cudaGraph_t g) { Note(graphs_, g); }
  void NoteExec(cudaGraphExec_t x) { Note(execs_, x); }
  void ForgetGraph(cudaGraph_t g) { Forget(graphs_, g); }
  void ForgetExec(cudaGraphExec_t x) { Forget(execs_, x); }

  size_t held() {
    std::lock_guard<std::mutex> lock(mu_);
    return graphs_.size() + execs_.size();
  }

  // After the program's thread has ended: waits for the device, then destroys every graph left.
  void DestroyAll() {
    std::lock_guard<std::mutex> lock(mu_);
    if (execs_.empty() && graphs_.empty()) return;
    cudaDeviceSynchronize();
    for (cudaGraphExec_t x : execs_) cudaGraphExecDestroy(x);
    for (cudaGraph_t g : graphs_) cudaGraphDestroy(g);
    execs_.clear();
    graphs_.clear();
  }

 private:
  template <class T>
  void Note(std::vector<T>& v, T h) {
    std::lock_guard<std::mutex> lock(mu_);
    if (h != nullptr) v.push_back(h);
  }
  template <class T>
  void Forget(std::vector<T>& v, T h) {
    std::lock_guard<std::mutex> lock(mu_);
    v.erase(std::remove(v.begin(), v.end(), h), v.end());
  }

  std::mutex mu_;
  std::vector<cudaGraph_t> graphs_;
  std::vector<cudaGraphExec_t> execs_;
};

}  // namespace cuco_program::candidate_detail
