// Finding NCCL, cuBLASLt and NVSHMEM installs: environment overrides, Python wheels (nvidia.*),
// the CUDA toolkit and the system folders.
#pragma once

#include <string>
#include <vector>

#include "toolchain/toolchain.h"

namespace cuco {

// Folders of the nvidia.* Python packages that hold CUDA libraries ("" when not installed), from
// one run of $CUCO_PYTHON or python3.
struct PythonWheels {
  std::string nccl;     // nvidia.nccl: include/nccl.h, lib/libnccl.so.2
  std::string cublas;   // nvidia.cublas: include/cublasLt.h, lib/libcublasLt.so.*
  std::string nvshmem;  // nvidia.nvshmem: include/nvshmem.h, lib/libnvshmem_host.so.*
  std::string cu13;     // nvidia.cu13: CUDA 13 wheels put include/ and lib/ here
  std::string cudnn;    // nvidia.cudnn: include/cudnn.h, lib/libcudnn.so.9
  std::string cudnn_frontend;  // the nvidia-cudnn-frontend wheel's include/ (beside its cudnn package)
};
PythonWheels FindPythonWheels();

// Fills version ("2.28.9", plus NCCL_SUFFIX) and version_code from the text of nccl.h. False
// when NCCL_MAJOR/NCCL_MINOR/NCCL_PATCH are not all there.
bool ParseNcclVersion(const std::string& nccl_h, std::string* version, int* version_code);

// The NCCL install with headers in root/include and libnccl.so.2 (or libnccl.so) in root/lib64,
// root/lib or root/lib/<multiarch>. include_dir is set when nccl.h exists; found also needs the
// library.
NcclInstall ProbeNccl(const std::string& root, const std::string& source);

// The best found candidate: one with the device API first, then the highest version code, then
// the earliest. Appends a note for each other distinct install. found=false when none is found.
NcclInstall ChooseNccl(const std::vector<NcclInstall>& candidates, std::vector<std::string>* notes);

// Candidates, in order: $CUCO_NCCL_HOME, $NCCL_HOME, the wheel folder, cuda_home, /usr. A usable
// $CUCO_NCCL_HOME wins outright (it is an override); the rest go through ChooseNccl.
NcclInstall DetectNccl(const std::string& cuda_home, const std::string& nccl_wheel, std::vector<std::string>* notes);

// cublasLt.h and libcublasLt.so* under cuda_home, else in the nvidia.cublas or nvidia.cu13 wheel.
LibraryInstall DetectCublas(const std::string& cuda_home, const PythonWheels& wheels, std::vector<std::string>* notes);

// nvshmem.h and libnvshmem_host.so*: $CUCO_NVSHMEM_HOME, $NVSHMEM_HOME, the nvidia.nvshmem wheel,
// cuda_home, /usr/include/nvshmem*; the first found wins.
LibraryInstall DetectNvshmem(const std::string& cuda_home, const std::string& cuda_version,
                             const PythonWheels& wheels, std::vector<std::string>* notes);

// cudnn.h and libcudnn.so*: $CUCO_CUDNN_HOME, the nvidia.cudnn wheel, cuda_home, /usr; the
// first found wins. Version from cudnn_version.h.
LibraryInstall DetectCudnn(const std::string& cuda_home, const PythonWheels& wheels, std::vector<std::string>* notes);

// The folder holding cudnn_frontend.h: $CUCO_CUDNN_FRONTEND_INCLUDE, the nvidia-cudnn-frontend
// wheel, /usr/include, /usr/local/include; "" when none. *version from cudnn_frontend_version.h.
std::string DetectCudnnFrontend(const PythonWheels& wheels, std::string* version, std::vector<std::string>* notes);

}  // namespace cuco
