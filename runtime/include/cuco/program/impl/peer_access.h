// cuco/program/impl/peer_access.h: peer access between the GPUs of a program that drives every GPU
// from one process (projection.h), on both sides. Each of its GPUs is a rank of its own (a process
// on the candidate side, a thread on the reference's one GPU), so no GPU is another's peer: the
// program is told so (its `if (can) cudaDeviceEnablePeerAccess(j, 0)` is skipped), and enabling or
// disabling access succeeds and does nothing. NCCL between the ranks needs none; a copy between GPUs
// outside NCCL (cudaMemcpyPeer) is refused by cuco init. Included by each side's shims after CUDA's
// headers; the names are macros for the stand-ins in the program's text from there on.
#pragma once

#include <cuda_runtime.h>

#if defined(CUCO_PROGRAM_PROJECTED) && !defined(CUCO_PROGRAM_RUNTIME_UNIT)
namespace cuco_program::proj {

inline cudaError_t NoPeerCanAccess(int* can, int /*device*/, int /*peer*/) {
  if (can != nullptr) *can = 0;
  return cudaSuccess;
}
inline cudaError_t NoPeerEnable(int /*peer*/, unsigned int /*flags*/) { return cudaSuccess; }
inline cudaError_t NoPeerDisable(int /*peer*/) { return cudaSuccess; }

}  // namespace cuco_program::proj

#define cudaDeviceCanAccessPeer cuco_program::proj::NoPeerCanAccess
#define cudaDeviceEnablePeerAccess cuco_program::proj::NoPeerEnable
#define cudaDeviceDisablePeerAccess cuco_program::proj::NoPeerDisable
#endif
