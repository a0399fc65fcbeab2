#include "common/driver_api.h"

#include <cuda_runtime.h>
#include <unistd.h>

#include <cstdint>
#include <mutex>

namespace cuco::driver {
namespace {

template <typename F>
bool Get(const char* name, F* fn, std::string* missing) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult q;
  if (cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
      q != cudaDriverEntryPointSuccess || p == nullptr) {
    *missing += std::string(missing->empty() ? "" : ", ") + name;
    return false;
  }
  *fn = reinterpret_cast<F>(p);
  return true;
}

}  // namespace

const Api* Load(std::string* error) {
  static Api api;
  static std::string missing;
  static std::once_flag once;
  std::call_once(once, [] {
    Get("cuMemCreate", &api.MemCreate, &missing);
    Get("cuMemRelease", &api.MemRelease, &missing);
    Get("cuMemExportToShareableHandle", &api.MemExportToShareableHandle, &missing);
    Get("cuMemImportFromShareableHandle", &api.MemImportFromShareableHandle, &missing);
    Get("cuMemAddressReserve", &api.MemAddressReserve, &missing);
    Get("cuMemAddressFree", &api.MemAddressFree, &missing);
    Get("cuMemMap", &api.MemMap, &missing);
    Get("cuMemUnmap", &api.MemUnmap, &missing);
    Get("cuMemSetAccess", &api.MemSetAccess, &missing);
    Get("cuMemGetAllocationGranularity", &api.MemGetAllocationGranularity, &missing);
    Get("cuMemGetAllocationPropertiesFromHandle", &api.MemGetAllocationPropertiesFromHandle, &missing);
    Get("cuMemRetainAllocationHandle", &api.MemRetainAllocationHandle, &missing);
    Get("cuMemGetAddressRange", &api.MemGetAddressRange, &missing);
    Get("cuStreamWriteValue32", &api.StreamWriteValue32, &missing);
    Get("cuStreamWaitValue32", &api.StreamWaitValue32, &missing);
    Get("cuGetErrorName", &api.GetErrorName, &missing);
  });
  if (!missing.empty()) {
    *error = "CUDA driver entry points not found: " + missing;
    return nullptr;
  }
  return &api;
}

std::string ErrorName(CUresult r) {
  std::string e;
  const Api* api = Load(&e);
  const char* name = nullptr;
  if (api && api->GetErrorName(r, &name) == CUDA_SUCCESS && name) return name;
  return "CUresult " + std::to_string(static_cast<int>(r));
}

#define DRV(call)                                                                  \
  do {                                                                             \
    const CUresult r_ = (call);                                                    \
    if (r_ != CUDA_SUCCESS) return std::string(#call) + ": " + ErrorName(r_);      \
  } while (0)

namespace {

CUmemAllocationProp Prop(int device) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  return prop;
}

std::string MapAndAllow(const Api* api, int device, Shareable* s) {
  DRV(api->MemAddressReserve(&s->ptr, s->size, 0, 0, 0));
  DRV(api->MemMap(s->ptr, s->size, 0, s->handle, 0));
  CUmemAccessDesc access{};
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = device;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  DRV(api->MemSetAccess(s->ptr, s->size, &access, 1));
  return "";
}

}  // namespace

std::string CreateShareable(int device, size_t bytes, Shareable* out) {
  std::string e;
  const Api* api = Load(&e);
  if (!api) return e;
  const CUmemAllocationProp prop = Prop(device);
  size_t gran = 0;
  DRV(api->MemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  out->size = (std::max<size_t>(bytes, 1) + gran - 1) / gran * gran;
  DRV(api->MemCreate(&out->handle, out->size, &prop, 0));
  return MapAndAllow(api, device, out);
}

std::string MapImported(int device, int fd, size_t size, Shareable* out) {
  std::string e;
  const Api* api = Load(&e);
  if (!api) return e;
  DRV(api->MemImportFromShareableHandle(&out->handle, reinterpret_cast<void*>(static_cast<uintptr_t>(fd)),
                                        CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
  CUmemAllocationProp prop{};
  DRV(api->MemGetAllocationPropertiesFromHandle(&prop, out->handle));
  if (prop.location.type != CU_MEM_LOCATION_TYPE_DEVICE || prop.location.id != device)
    return "the shared allocation is not memory of device " + std::to_string(device);
  size_t gran = 0;
  const CUmemAllocationProp want = Prop(device);
  DRV(api->MemGetAllocationGranularity(&gran, &want, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  if (size == 0 || size % gran != 0) return "the shared allocation's size is not a multiple of the granularity";
  out->size = size;
  return MapAndAllow(api, device, out);
}

std::string ExportFd(CUmemGenericAllocationHandle handle, int* fd) {
  std::string e;
  const Api* api = Load(&e);
  if (!api) return e;
  DRV(api->MemExportToShareableHandle(fd, handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  return "";
}

void Unmap(Shareable* s) {
  std::string e;
  const Api* api = Load(&e);
  if (!api || s->ptr == 0) return;
  api->MemUnmap(s->ptr, s->size);
  api->MemAddressFree(s->ptr, s->size);
  api->MemRelease(s->handle);
  s->ptr = 0;
}

}  // namespace cuco::driver
