// cuco/program/impl/pinned_host_shims.h: the program's calls that pin host memory, on both sides:
// each is CUDA's own call, and the range it pins or frees is noted (pinned_host.h). Included by each
// side's shims after CUDA's headers; the names are macros for the stand-ins in the program's text
// from there on.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

#include <cuco/program/impl/pinned_host.h>

#ifndef CUCO_PROGRAM_RUNTIME_UNIT
namespace cuco_program::pinned {

// cudaMallocHost(&p, bytes) and its template form with flags; cudaHostAlloc(&p, bytes, flags).
template <class T>
cudaError_t MallocHost(T** p, size_t bytes, unsigned int flags = cudaHostAllocDefault) {
  // Through void*, as CUDA's own template does: a pointer to const data (`const float* h`) too.
  const cudaError_t e = ::cudaHostAlloc(reinterpret_cast<void**>(static_cast<void*>(p)), bytes, flags);
  if (e == cudaSuccess) Note(*p, bytes);
  return e;
}
// CUDA's C form, `cudaError_t (*)(void**, size_t)`: what a template given cudaMallocHost as a value
// takes (thrust's pinned_memory_resource, `cuda_memory_resource<cudaMallocHost, cudaFreeHost, ...>`).
inline cudaError_t MallocHost(void** p, size_t bytes) { return MallocHost<void>(p, bytes, cudaHostAllocDefault); }
template <class T>
cudaError_t HostAlloc(T** p, size_t bytes, unsigned int flags) {
  return MallocHost(p, bytes, flags);
}
inline cudaError_t FreeHost(void* p) {
  Forget(p);
  return ::cudaFreeHost(p);
}
inline cudaError_t HostRegister(void* p, size_t bytes, unsigned int flags) {
  const cudaError_t e = ::cudaHostRegister(p, bytes, flags);
  if (e == cudaSuccess) Note(p, bytes);
  return e;
}
inline cudaError_t HostUnregister(void* p) {
  Forget(p);
  return ::cudaHostUnregister(p);
}

}  // namespace cuco_program::pinned

#define cudaMallocHost cuco_program::pinned::MallocHost
#define cudaHostAlloc cuco_program::pinned::HostAlloc
#define cudaFreeHost cuco_program::pinned::FreeHost
#define cudaHostRegister cuco_program::pinned::HostRegister
#define cudaHostUnregister cuco_program::pinned::HostUnregister
#endif
