// cuco/program/impl/mpi_device.h: device memory handed to cuco's MPI (cuco/program/mpi.h), as a
// CUDA-aware MPI takes it: a program broadcasting its weights with `MPI_Bcast(d_w, ...)` on a
// cudaMalloc'd buffer before its NCCL loop. The collectives' buffers are staged through host
// memory around the host implementation: copied in where the call reads them, back where it writes
// them, with the synchronous cudaMemcpy (the program orders its own streams before the call, as
// CUDA-aware MPI asks). Host memory, managed memory and MPI_IN_PLACE pass as they are.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include <cuda_runtime.h>

namespace cuco_program::mpi {

// Whether `p` is device memory (not host, registered host or managed memory). MPI_IN_PLACE and
// null are not; where CUDA cannot say (no driver), neither.
inline bool OnDevice(const void* p) {
  if (p == nullptr || p == reinterpret_cast<const void*>(1)) return false;  // MPI_IN_PLACE
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();  // a host pointer CUDA does not know of: no error left behind
    return false;
  }
  return a.type == cudaMemoryTypeDevice;
}

// One buffer of a call: `get()` is the pointer the host implementation uses, a host copy of `bytes`
// when `p` is device memory (filled from it when the call reads it, `in`), else `p`; the copy goes
// back when the call writes it (`out`) at scope end.
class Staged {
 public:
  Staged(const void* p, size_t bytes, bool in, bool out)
      : device_(const_cast<void*>(p)), bytes_(bytes), out_(out), on_device_(bytes > 0 && OnDevice(p)) {
    if (!on_device_) return;
    host_.resize(bytes);
    if (in) ok_ = cudaMemcpy(host_.data(), p, bytes, cudaMemcpyDeviceToHost) == cudaSuccess;
  }
  ~Staged() {
    if (on_device_ && out_ && ok_) ok_ = cudaMemcpy(device_, host_.data(), bytes_, cudaMemcpyHostToDevice) == cudaSuccess;
  }
  Staged(const Staged&) = delete;
  Staged& operator=(const Staged&) = delete;
  void* get() { return on_device_ ? host_.data() : device_; }
  // False when a copy failed (the call answers an error).
  bool ok() const { return ok_; }

 private:
  void* device_;
  size_t bytes_;
  bool out_;
  bool on_device_;
  bool ok_ = true;
  std::vector<unsigned char> host_;
};

// The bytes a v-collective's buffer spans: the furthest end of `world` blocks of counts[q] elements
// at displs[q] (`elem` bytes each).
inline size_t Extent(const int counts[], const int displs[], size_t world, size_t elem) {
  size_t end = 0;
  for (size_t q = 0; counts != nullptr && displs != nullptr && q < world; ++q)
    if (counts[q] > 0) end = std::max(end, static_cast<size_t>(displs[q]) + static_cast<size_t>(counts[q]));
  return end * elem;
}

}  // namespace cuco_program::mpi
