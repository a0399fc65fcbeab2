// Toolchain and hardware detection: where nvcc, NCCL, cuBLASLt, NVSHMEM, the host compiler, the
// GPUs, MPI and Slurm are on this machine, and which cuco features their absence disables.
// Behind `cuco doctor`; every command that compiles, runs or launches asks DetectToolchain().
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cuco {

// One installed library: a header folder and a folder holding its shared object.
struct LibraryInstall {
  bool found = false;       // headers and shared object both present
  std::string version;      // "2.28.9"; "" when no version header was readable
  std::string include_dir;  // holds the main header (nccl.h, cublasLt.h, nvshmem.h)
  std::string lib_dir;      // holds `library`; pass as -L and -Wl,-rpath (or LD_LIBRARY_PATH)
  std::string library;      // full path of the shared object to link, e.g. lib_dir/libnccl.so.2
                            // (wheels ship no unversioned .so: link it by path, not -lnccl)
  std::string source;       // how it was found: "env CUCO_NCCL_HOME", "python nvidia.nccl", "/usr/local/cuda", ...
};

struct NcclInstall : LibraryInstall {
  bool device_api = false;  // include_dir/nccl_device.h
  bool lsa = false;         // include_dir/nccl_device/lsa_barrier.h
  bool gin = false;         // include_dir/nccl_device/gin.h
  int version_code = 0;     // NCCL_VERSION_CODE, e.g. 22809
};

struct GpuInfo {
  int index = 0;  // CUDA device ordinal, as this process sees it (after CUDA_VISIBLE_DEVICES)
  std::string name;
  int sm_count = 0;
  uint64_t memory_bytes = 0;
  int cc_major = 0, cc_minor = 0;
  std::string pci_bus_id;  // "0000:18:00.0" as the driver writes it
  std::string uuid;        // "GPU-8f6c...": what cuco's MPS daemon is given in CUDA_VISIBLE_DEVICES; "" unknown
  int compute_mode = -1;   // CU_COMPUTEMODE_*: 0 default, 2 prohibited, 3 exclusive process; -1 unknown
};

// "default", "exclusive process", "prohibited", "exclusive thread" or "unknown".
std::string ComputeModeName(int mode);

struct Toolchain {
  std::string nvcc;          // absolute path or empty
  std::string cuda_version;  // "13.0" from `nvcc --version`
  std::string cuda_home;     // root containing bin/nvcc, include/, lib64/
  LibraryInstall cublas;     // libcublasLt + cublasLt.h
  NcclInstall nccl;          // the chosen install; the others found are listed in notes
  LibraryInstall nvshmem;
  LibraryInstall cudnn;      // cudnn.h + libcudnn.so.9
  // The cuDNN frontend (header-only C++ graph API, the nvidia-cudnn-frontend wheel): the folder
  // holding cudnn_frontend.h, and its version; "" when not found.
  std::string cudnn_frontend_include, cudnn_frontend_version;
  std::string cxx;           // host C++ compiler used by nvcc and for CPU workloads (g++)
  std::vector<GpuInfo> gpus;
  std::string driver_version;       // "580.159.04" from nvidia-smi; "" without nvidia-smi
  std::string driver_cuda_version;  // newest CUDA the driver runs, "13.0" from cuDriverGetVersion
  // gpu_links[i][j] = "X", "NV18", "SYS", "PIX", ... from `nvidia-smi topo -m`, indexed like gpus.
  // Empty when nvidia-smi is missing or its GPUs could not be matched to the driver's.
  std::vector<std::vector<std::string>> gpu_links;
  std::vector<std::string> rdma_devices;  // /sys/class/infiniband entries ("mlx5_0"): GIN needs these
  std::string mpirun, mpi_version;        // mpi_version: first line of `mpirun --version`
  std::string srun, slurm_version;
  // Why Slurm is unusable although srun is installed: the first error line of `srun --version` (the
  // packages without a cluster: no slurm.conf, no DNS SRV record); "" when it printed its version.
  std::string slurm_error;
  bool in_slurm_allocation = false;  // SLURM_JOB_ID is set
  std::vector<std::string> notes;    // warnings found while detecting
};

// Looks at the environment, the file system, the Python wheels, the driver and a few programs'
// --version output. Never throws, never fails, prints nothing: missing pieces are empty/false and
// usually explained in notes. Takes well under a second without GPUs (nvcc and python3 are run);
// with GPUs, cuInit and nvidia-smi add their time. Calls cuInit() in this process.
Toolchain DetectToolchain();

// What `srun --version` answered (`output`, stdout and stderr, and its exit code): the version
// ("23.11.4" from "slurm 23.11.4") when it printed one, else `error`, its first line (a Slurm
// without a cluster prints "srun: error: resolve_ctls_from_dns_srv: ..." and no version).
struct SlurmVersion {
  std::string version, error;
};
SlurmVersion ParseSlurmVersion(const std::string& output, int exit_code);

nlohmann::json ToJson(const Toolchain& tc);
// The inverse of ToJson; missing or mistyped keys leave defaults. Never throws.
Toolchain ToolchainFromJson(const nlohmann::json& j);

// Human-readable report for `cuco doctor`: each piece, the features it enables, the notes.
std::string FormatReport(const Toolchain& tc);

struct FeatureStatus {
  std::string feature;  // "compile CUDA candidates (L1)", ...
  bool available = false;
  std::string reason;  // what provides it, or the missing piece; may add a caveat for running
};
// Which cuco features the detected pieces enable, and what each missing piece disables.
std::vector<FeatureStatus> Features(const Toolchain& tc);

// nvcc -arch for the first GPU: "sm_90a" for compute capability 9.0 ('a' from 9.0 on, where
// arch-specific instructions such as wgmma exist), "sm_80" for 8.0; "sm_90a" when there is no GPU.
std::string PreferredCudaArch(const Toolchain& tc);

}  // namespace cuco
