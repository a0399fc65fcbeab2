// The CUDA driver calls the supervisor and the candidate runtime need (virtual-memory allocations
// shared as POSIX fds, stream memory operations on the go/done flags), fetched once through the
// runtime's entry-point lookup so that neither executable links libcuda directly.
#pragma once

#include <cuda.h>

#include <string>

namespace cuco::driver {

struct Api {
  decltype(&::cuMemCreate) MemCreate = nullptr;
  decltype(&::cuMemRelease) MemRelease = nullptr;
  decltype(&::cuMemExportToShareableHandle) MemExportToShareableHandle = nullptr;
  decltype(&::cuMemImportFromShareableHandle) MemImportFromShareableHandle = nullptr;
  decltype(&::cuMemAddressReserve) MemAddressReserve = nullptr;
  decltype(&::cuMemAddressFree) MemAddressFree = nullptr;
  decltype(&::cuMemMap) MemMap = nullptr;
  decltype(&::cuMemUnmap) MemUnmap = nullptr;
  decltype(&::cuMemSetAccess) MemSetAccess = nullptr;
  decltype(&::cuMemGetAllocationGranularity) MemGetAllocationGranularity = nullptr;
  decltype(&::cuMemGetAllocationPropertiesFromHandle) MemGetAllocationPropertiesFromHandle = nullptr;
  decltype(&::cuMemRetainAllocationHandle) MemRetainAllocationHandle = nullptr;
  decltype(&::cuMemGetAddressRange) MemGetAddressRange = nullptr;
  decltype(&::cuStreamWriteValue32) StreamWriteValue32 = nullptr;
  decltype(&::cuStreamWaitValue32) StreamWaitValue32 = nullptr;
  decltype(&::cuGetErrorName) GetErrorName = nullptr;
};

// The table, loaded on first use (after the CUDA runtime is initialised); *error says which entry
// point is missing when it returns nullptr.
const Api* Load(std::string* error);

// "CUDA_ERROR_X" for a driver result.
std::string ErrorName(CUresult r);

// A device allocation of `bytes` (rounded up to the granularity) that can be exported as a POSIX
// fd, mapped read-write for `device`. On failure returns "" ... else the error text.
struct Shareable {
  CUmemGenericAllocationHandle handle = 0;
  CUdeviceptr ptr = 0;
  size_t size = 0;
};
std::string CreateShareable(int device, size_t bytes, Shareable* out);
// Maps an imported allocation (its fd, `size` bytes from offset 0) read-write for `device`.
std::string MapImported(int device, int fd, size_t size, Shareable* out);
std::string ExportFd(CUmemGenericAllocationHandle handle, int* fd);
void Unmap(Shareable* s);

}  // namespace cuco::driver
