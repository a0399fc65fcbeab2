#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "toolchain/command.h"
#include "toolchain/gpus.h"
#include "toolchain/libraries.h"
#include "toolchain/toolchain.h"

namespace cuco {
namespace {
namespace fs = std::filesystem;

// `nvidia-smi topo -m` on a 2-GPU HGX slice, as written to a pipe (escape codes included).
const char kTopo2[] =
    "\t\x1b[4mGPU0\tGPU1\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[0m\n"
    "GPU0\t X \tNV18\tPXB\tSYS\t0-55,112-167\t0\t\tN/A\n"
    "GPU1\tNV18\t X \tSYS\tPXB\t56-111,168-223\t1\t\tN/A\n"
    "NIC0\tPXB\tSYS\t X \tSYS\t\t\t\t\n"
    "NIC1\tSYS\tPXB\tSYS\t X \t\t\t\t\n"
    "\n"
    "Legend:\n"
    "\n"
    "  X    = Self\n"
    "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n"
    "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node\n"
    "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
    "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)\n"
    "  PIX  = Connection traversing at most a single PCIe bridge\n"
    "  NV#  = Connection traversing a bonded set of # NVLinks\n"
    "\n"
    "NIC Legend:\n"
    "\n"
    "  NIC0: mlx5_0\n"
    "  NIC1: mlx5_1\n";

// Captured on a 2 x H200 machine (no NICs), 2026-11.
const char kTopoH200x2[] =
    "\t\x1b[4mGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[0m\nGPU0\t X \tNV18\t0-31\t0\t\tN/A\n"
    "GPU1\tNV18\t X \t0-31\t0\t\tN/A\n\nLegend:\n\n  X    = Self\n"
    "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n"
    "  NV#  = Connection traversing a bonded set of # NVLinks\n";

// A 4-GPU PCIe workstation with NVLink bridges between pairs; older nvidia-smi names NICs in the header.
const char kTopo4[] =
    "        GPU0    GPU1    GPU2    GPU3    mlx5_0  CPU Affinity    NUMA Affinity\n"
    "GPU0     X      NV4     NODE    SYS     NODE    0-23,48-71      0\n"
    "GPU1    NV4      X      NODE    SYS     NODE    0-23,48-71      0\n"
    "GPU2    NODE    NODE     X      NV4     PIX     0-23,48-71      0\n"
    "GPU3    SYS     SYS     NV4      X      SYS     24-47,72-95     1\n"
    "mlx5_0  NODE    NODE    PIX     SYS      X \n"
    "\n"
    "Legend:\n"
    "\n"
    "  X    = Self\n"
    "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n"
    "  NV#  = Connection traversing a bonded set of # NVLinks\n";

// A fresh empty folder under the system temp dir, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    static int counter = 0;
    path_ = fs::temp_directory_path() /
            ("cuco_toolchain_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Sets (or, with nullopt, unsets) an environment variable for the life of the object.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      ::setenv(name, value->c_str(), 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

void WriteText(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

struct FakeNccl {
  int major = 2, minor = 28, patch = 9;
  bool device_api = true, lsa = true, gin = true, library = true;
  std::string lib_subdir = "lib";
};

std::string NcclHeader(int major, int minor, int patch, bool with_code = true) {
  std::string h = "#ifndef NCCL_H_\n#define NCCL_H_\n#include <cuda_runtime.h>\n";
  h += "#define NCCL_MAJOR " + std::to_string(major) + "\n";
  h += "#define NCCL_MINOR " + std::to_string(minor) + "\n";
  h += "#define NCCL_PATCH " + std::to_string(patch) + "\n";
  h += "#define NCCL_SUFFIX \"\"\n\n";
  if (with_code) h += "#define NCCL_VERSION_CODE " + std::to_string(major * 10000 + minor * 100 + patch) + "\n";
  h += "#define NCCL_VERSION(X,Y,Z) (((X) <= 2 && (Y) <= 8) ? (X) * 1000 + (Y) * 100 + (Z) : (X) * 10000 + (Y) * 100 + (Z))\n";
  return h + "#endif\n";
}

void MakeFakeNccl(const fs::path& root, const FakeNccl& f) {
  WriteText(root / "include/nccl.h", NcclHeader(f.major, f.minor, f.patch));
  if (f.device_api) WriteText(root / "include/nccl_device.h", "#pragma once\n");
  if (f.lsa) WriteText(root / "include/nccl_device/lsa_barrier.h", "#pragma once\n");
  if (f.gin) WriteText(root / "include/nccl_device/gin.h", "#pragma once\n");
  if (f.library) {
    std::string full = "libnccl.so." + std::to_string(f.major) + "." + std::to_string(f.minor) + "." + std::to_string(f.patch);
    WriteText(root / f.lib_subdir / full, "ELF");
    fs::create_symlink(full, root / f.lib_subdir / "libnccl.so.2");
  }
}

bool HasNote(const Toolchain& tc, const std::string& part) {
  for (const std::string& n : tc.notes) {
    if (n.find(part) != std::string::npos) return true;
  }
  return false;
}

const FeatureStatus* FindFeature(const std::vector<FeatureStatus>& fs, const std::string& prefix) {
  for (const FeatureStatus& f : fs) {
    if (f.feature.rfind(prefix, 0) == 0) return &f;
  }
  return nullptr;
}

// ---- topology ----

TEST(Topology, TwoGpusWithNicsAndLegend) {
  Result<GpuLinks> links = ParseTopologyMatrix(kTopo2);
  ASSERT_TRUE(links.ok()) << links.status().ToString();
  GpuLinks want = {{"X", "NV18"}, {"NV18", "X"}};
  EXPECT_EQ(*links, want);
  Result<GpuLinks> captured = ParseTopologyMatrix(kTopoH200x2);
  ASSERT_TRUE(captured.ok()) << captured.status().ToString();
  EXPECT_EQ(*captured, want);
}

TEST(Topology, FourGpusMixedLinks) {
  Result<GpuLinks> links = ParseTopologyMatrix(kTopo4);
  ASSERT_TRUE(links.ok()) << links.status().ToString();
  GpuLinks want = {{"X", "NV4", "NODE", "SYS"},
                   {"NV4", "X", "NODE", "SYS"},
                   {"NODE", "NODE", "X", "NV4"},
                   {"SYS", "SYS", "NV4", "X"}};
  EXPECT_EQ(*links, want);
}

TEST(Topology, RejectsTextWithoutMatrixOrWithMissingRow) {
  EXPECT_FALSE(ParseTopologyMatrix("").ok());
  EXPECT_FALSE(ParseTopologyMatrix("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n").ok());
  std::string missing_row = "\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \tNV18\t0-7\n";
  EXPECT_FALSE(ParseTopologyMatrix(missing_row).ok());
  std::string short_row = "\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \nGPU1\tNV18\t X \t0-7\n";
  EXPECT_FALSE(ParseTopologyMatrix(short_row).ok());
}

TEST(Topology, ReorderedIntoCudaOrdinalsByBusId) {
  GpuLinks smi = *ParseTopologyMatrix(kTopo4);
  std::vector<std::string> smi_bus = {"00000000:18:00.0", "00000000:2A:00.0", "00000000:3A:00.0", "00000000:5D:00.0"};
  // CUDA_VISIBLE_DEVICES=3,0: the process sees nvidia-smi's GPU3 as 0 and GPU0 as 1.
  std::vector<GpuInfo> gpus(2);
  gpus[0].index = 0;
  gpus[0].pci_bus_id = "0000:5D:00.0";
  gpus[1].index = 1;
  gpus[1].pci_bus_id = "0000:18:00.0";
  Result<GpuLinks> links = LinksInDeviceOrder(smi, smi_bus, gpus);
  ASSERT_TRUE(links.ok()) << links.status().ToString();
  GpuLinks want = {{"X", "SYS"}, {"SYS", "X"}};
  EXPECT_EQ(*links, want);
  gpus[1].pci_bus_id = "0000:99:00.0";
  EXPECT_FALSE(LinksInDeviceOrder(smi, smi_bus, gpus).ok());
  EXPECT_EQ(NormalizePciBusId("00000000:2A:00.0"), NormalizePciBusId("0000:2a:00.0"));
}

// ---- NCCL ----

TEST(Nccl, VersionParsedFromHeaderInTempDir) {
  TempDir dir;
  MakeFakeNccl(dir.path(), {2, 28, 9, true, true, false, true, "lib64"});
  NcclInstall n = ProbeNccl(dir.path().string(), "test");
  EXPECT_TRUE(n.found);
  EXPECT_EQ(n.version, "2.28.9");
  EXPECT_EQ(n.version_code, 22809);
  EXPECT_TRUE(n.device_api);
  EXPECT_TRUE(n.lsa);
  EXPECT_FALSE(n.gin);
  EXPECT_EQ(n.include_dir, (dir.path() / "include").string());
  EXPECT_EQ(n.lib_dir, (dir.path() / "lib64").string());
  EXPECT_EQ(n.library, (dir.path() / "lib64/libnccl.so.2").string());
  EXPECT_EQ(n.source, "test");

  // Without NCCL_VERSION_CODE, the code follows nccl.h's NCCL_VERSION rule (old scheme up to 2.8).
  std::string version;
  int code = 0;
  ASSERT_TRUE(ParseNcclVersion(NcclHeader(2, 7, 8, false), &version, &code));
  EXPECT_EQ(version, "2.7.8");
  EXPECT_EQ(code, 2708);
  ASSERT_TRUE(ParseNcclVersion(NcclHeader(2, 19, 3, false), &version, &code));
  EXPECT_EQ(code, 21903);
  EXPECT_FALSE(ParseNcclVersion("#define NCCL_MAJOR 2\n", &version, &code));
}

TEST(Nccl, HeaderWithoutLibraryIsNotFound) {
  TempDir dir;
  FakeNccl f;
  f.library = false;
  MakeFakeNccl(dir.path(), f);
  NcclInstall n = ProbeNccl(dir.path().string(), "test");
  EXPECT_FALSE(n.found);
  EXPECT_EQ(n.include_dir, (dir.path() / "include").string());
  std::vector<std::string> notes;
  EXPECT_FALSE(ChooseNccl({n}, &notes).found);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("no libnccl.so.2"), std::string::npos);
}

TEST(Nccl, ChooserPrefersDeviceApiThenHighestVersion) {
  TempDir dir;
  // The GPU machines: the system NCCL is 2.28.3 without GIN, the wheel 2.28.9 with GIN.
  MakeFakeNccl(dir.path() / "usr", {2, 28, 3, true, true, false, true, "lib/x86_64-linux-gnu"});
  MakeFakeNccl(dir.path() / "wheel", {2, 28, 9, true, true, true, true, "lib"});
  NcclInstall system = ProbeNccl((dir.path() / "usr").string(), "/usr");
  NcclInstall wheel = ProbeNccl((dir.path() / "wheel").string(), "python nvidia.nccl");
  ASSERT_TRUE(system.found);
  ASSERT_TRUE(wheel.found);
  for (const auto& order : {std::vector<NcclInstall>{system, wheel}, std::vector<NcclInstall>{wheel, system}}) {
    std::vector<std::string> notes;
    NcclInstall chosen = ChooseNccl(order, &notes);
    EXPECT_EQ(chosen.version, "2.28.9");
    EXPECT_EQ(chosen.source, "python nvidia.nccl");
    EXPECT_TRUE(chosen.gin);
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("2.28.3"), std::string::npos) << notes[0];
  }
  // A newer NCCL without the device API loses to an older one with it.
  MakeFakeNccl(dir.path() / "plain", {2, 29, 0, false, false, false, true, "lib"});
  NcclInstall plain = ProbeNccl((dir.path() / "plain").string(), "env NCCL_HOME");
  EXPECT_EQ(ChooseNccl({plain, system}, nullptr).version, "2.28.3");
  // The same install seen twice is one candidate.
  std::vector<std::string> notes;
  ChooseNccl({wheel, wheel}, &notes);
  EXPECT_TRUE(notes.empty());
  EXPECT_FALSE(ChooseNccl({}, nullptr).found);
}

TEST(Nccl, EnvOverrideIsFoundAndWins) {
  TempDir dir;
  MakeFakeNccl(dir.path() / "override", {2, 27, 7, false, false, false, true, "lib"});
  MakeFakeNccl(dir.path() / "wheel", {2, 28, 9, true, true, true, true, "lib"});
  ScopedEnv unset_home("NCCL_HOME", std::nullopt);
  {
    ScopedEnv env("CUCO_NCCL_HOME", (dir.path() / "override").string());
    std::vector<std::string> notes;
    NcclInstall n = DetectNccl("", (dir.path() / "wheel").string(), &notes);
    EXPECT_TRUE(n.found);
    EXPECT_EQ(n.source, "env CUCO_NCCL_HOME");
    EXPECT_EQ(n.version, "2.27.7");
    EXPECT_EQ(n.lib_dir, (dir.path() / "override/lib").string());
    bool noted_wheel = false;
    for (const std::string& note : notes) noted_wheel |= note.find("python nvidia.nccl") != std::string::npos;
    EXPECT_TRUE(noted_wheel);
  }
  {
    // A CUCO_NCCL_HOME without NCCL is ignored, with a note; NCCL_HOME is an ordinary candidate.
    ScopedEnv env("CUCO_NCCL_HOME", (dir.path() / "nothing").string());
    ScopedEnv home("NCCL_HOME", (dir.path() / "override").string());
    std::vector<std::string> notes;
    NcclInstall n = DetectNccl("", (dir.path() / "wheel").string(), &notes);
    EXPECT_EQ(n.source, "python nvidia.nccl");
    EXPECT_EQ(n.version, "2.28.9");
    bool noted_bad_env = false;
    for (const std::string& note : notes) noted_bad_env |= note.find("CUCO_NCCL_HOME") != std::string::npos;
    EXPECT_TRUE(noted_bad_env);
  }
}

TEST(Cudnn, EnvHomeAndFrontendWithVersions) {
  TempDir dir;
  WriteText(dir.path() / "cudnn/include/cudnn.h", "#include \"cudnn_version.h\"\n");
  WriteText(dir.path() / "cudnn/include/cudnn_version.h", "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n");
  WriteText(dir.path() / "cudnn/lib/libcudnn.so.9", "");
  WriteText(dir.path() / "fe/cudnn_frontend.h", "");
  WriteText(dir.path() / "fe/cudnn_frontend_version.h",
            "#define CUDNN_FRONTEND_MAJOR_VERSION 1\n#define CUDNN_FRONTEND_MINOR_VERSION 32\n#define CUDNN_FRONTEND_PATCH_VERSION 0\n");
  {
    ScopedEnv home("CUCO_CUDNN_HOME", (dir.path() / "cudnn").string());
    ScopedEnv fe("CUCO_CUDNN_FRONTEND_INCLUDE", (dir.path() / "fe").string());
    std::vector<std::string> notes;
    LibraryInstall c = DetectCudnn("", PythonWheels{}, &notes);
    EXPECT_TRUE(c.found);
    EXPECT_EQ(c.source, "env CUCO_CUDNN_HOME");
    EXPECT_EQ(c.version, "9.19.0");
    EXPECT_EQ(c.library, (dir.path() / "cudnn/lib/libcudnn.so.9").string());
    std::string version;
    EXPECT_EQ(DetectCudnnFrontend(PythonWheels{}, &version, &notes), (dir.path() / "fe").string());
    EXPECT_EQ(version, "1.32.0");
    EXPECT_TRUE(notes.empty());
  }
  {
    // Folders the user names that hold nothing are noted, never silently used.
    ScopedEnv home("CUCO_CUDNN_HOME", (dir.path() / "nothing").string());
    ScopedEnv fe("CUCO_CUDNN_FRONTEND_INCLUDE", (dir.path() / "nothing").string());
    PythonWheels wheels;
    wheels.cudnn_frontend = (dir.path() / "fe").string();  // the wheel is still found
    std::vector<std::string> notes;
    DetectCudnn("", wheels, &notes);
    std::string version;
    EXPECT_EQ(DetectCudnnFrontend(wheels, &version, &notes), (dir.path() / "fe").string());
    ASSERT_EQ(notes.size(), 2u);
    EXPECT_NE(notes[0].find("CUCO_CUDNN_HOME="), std::string::npos);
    EXPECT_NE(notes[1].find("CUCO_CUDNN_FRONTEND_INCLUDE="), std::string::npos);
  }
}

// ---- commands ----

TEST(Command, MissingProgramAndTimeLimit) {
  EXPECT_EQ(toolchain_internal::FindProgram("cuco-no-such-program-xyz"), "");
  std::string sh = toolchain_internal::FindProgram("sh");
  ASSERT_FALSE(sh.empty());
  auto out = toolchain_internal::RunCommand({sh, "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_EQ(out.exit_code, 3);
  EXPECT_EQ(out.output, "out\nerr\n");
  auto start = std::chrono::steady_clock::now();
  auto slow = toolchain_internal::RunCommand({sh, "-c", "sleep 20"}, 1);
  EXPECT_NE(slow.exit_code, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(8));
}

// ---- this machine ----

TEST(DetectToolchain, FindsNvccAndNcclWithDeviceApi) {
  auto start = std::chrono::steady_clock::now();
  Toolchain tc = DetectToolchain();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << FormatReport(tc) << "(detected in " << seconds << " s)\n";

  ASSERT_FALSE(tc.nvcc.empty()) << "nvcc not found";
  EXPECT_TRUE(fs::path(tc.nvcc).is_absolute());
  EXPECT_EQ(fs::path(tc.nvcc).filename(), "nvcc");
  EXPECT_TRUE(fs::exists(fs::path(tc.cuda_home) / "include/cuda_runtime.h")) << tc.cuda_home;
  EXPECT_FALSE(tc.cuda_version.empty());
  EXPECT_NE(tc.cuda_version.find('.'), std::string::npos);

  ASSERT_TRUE(tc.nccl.found);
  EXPECT_EQ(tc.nccl.version, "2.28.9");
  EXPECT_EQ(tc.nccl.version_code, 22809);
  EXPECT_TRUE(tc.nccl.device_api);
  EXPECT_TRUE(tc.nccl.lsa);
  EXPECT_TRUE(tc.nccl.gin);
  EXPECT_TRUE(fs::exists(fs::path(tc.nccl.include_dir) / "nccl.h"));
  EXPECT_TRUE(fs::exists(tc.nccl.library));
  EXPECT_EQ(fs::path(tc.nccl.library).parent_path(), fs::path(tc.nccl.lib_dir));
  if (fs::exists("/usr/local/cuda/include/nccl.h") && std::getenv("CUCO_NCCL_HOME") == nullptr) {
    // Dev and CI machines: the toolkit's NCCL (ties go to earlier candidates, so a 2.28.9 wheel may win).
    EXPECT_TRUE(tc.nccl.source == tc.cuda_home || tc.nccl.source == "python nvidia.nccl") << tc.nccl.source;
  }
  EXPECT_FALSE(tc.cxx.empty());

  void* libcuda = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (libcuda == nullptr) {
    EXPECT_TRUE(tc.gpus.empty());
    EXPECT_TRUE(tc.gpu_links.empty());
    EXPECT_TRUE(tc.driver_cuda_version.empty());
    EXPECT_TRUE(HasNote(tc, "no NVIDIA driver (libcuda.so.1 not loadable)"));
  } else if (tc.gpus.empty()) {
    EXPECT_TRUE(HasNote(tc, "driver found but") || HasNote(tc, "no GPU"));
  } else {
    EXPECT_GT(tc.gpus[0].sm_count, 0);
    EXPECT_GT(tc.gpus[0].memory_bytes, 0u);
    EXPECT_GT(tc.gpus[0].cc_major, 0);
    EXPECT_FALSE(tc.gpus[0].pci_bus_id.empty());
    if (!tc.gpu_links.empty()) {
      EXPECT_EQ(tc.gpu_links.size(), tc.gpus.size());
    }
  }
}

TEST(Features, NoGpuDisablesRunButNotCompile) {
  Toolchain tc = DetectToolchain();
  if (!tc.gpus.empty()) GTEST_SKIP() << "this machine has GPUs";
  std::vector<FeatureStatus> features = Features(tc);
  const FeatureStatus* run = FindFeature(features, "run and benchmark on GPU (L2/L3)");
  ASSERT_NE(run, nullptr);
  EXPECT_FALSE(run->available);
  EXPECT_NE(run->reason.find("GPU"), std::string::npos) << run->reason;
  const FeatureStatus* multi = FindFeature(features, "multi-GPU workloads");
  ASSERT_NE(multi, nullptr);
  EXPECT_FALSE(multi->available);
  const FeatureStatus* compile = FindFeature(features, "compile CUDA candidates (L1)");
  ASSERT_NE(compile, nullptr);
  EXPECT_TRUE(compile->available);
  const FeatureStatus* lsa = FindFeature(features, "LSA backend");
  ASSERT_NE(lsa, nullptr);
  EXPECT_TRUE(lsa->available);
  EXPECT_NE(lsa->reason.find("NVLink"), std::string::npos) << lsa->reason;
  const FeatureStatus* gin = FindFeature(features, "GIN backend");
  ASSERT_NE(gin, nullptr);
  EXPECT_TRUE(gin->available);
  EXPECT_NE(gin->reason.find("RDMA"), std::string::npos) << gin->reason;
  EXPECT_EQ(PreferredCudaArch(tc), "sm_90a");
}

Toolchain SyntheticToolchain() {
  Toolchain tc;
  tc.nvcc = "/opt/cuda/bin/nvcc";
  tc.cuda_version = "13.0";
  tc.cuda_home = "/opt/cuda";
  tc.cublas = {true, "13.1.0", "/opt/cuda/include", "/opt/cuda/lib64", "/opt/cuda/lib64/libcublasLt.so.13", "/opt/cuda"};
  tc.nccl.found = true;
  tc.nccl.version = "2.28.9";
  tc.nccl.version_code = 22809;
  tc.nccl.include_dir = "/w/nvidia/nccl/include";
  tc.nccl.lib_dir = "/w/nvidia/nccl/lib";
  tc.nccl.library = "/w/nvidia/nccl/lib/libnccl.so.2";
  tc.nccl.source = "python nvidia.nccl";
  tc.nccl.device_api = tc.nccl.lsa = tc.nccl.gin = true;
  tc.cxx = "/usr/bin/g++";
  for (int i = 0; i < 2; ++i) {
    GpuInfo g;
    g.index = i;
    g.name = "NVIDIA H200";
    g.sm_count = 132;
    g.memory_bytes = 150754820096ull;
    g.cc_major = 9;
    g.cc_minor = 0;
    g.pci_bus_id = i == 0 ? "0000:18:00.0" : "0000:2A:00.0";
    g.uuid = i == 0 ? "GPU-8f6c1d2e-0000-1111-2222-333344445555" : "GPU-8f6c1d2e-0000-1111-2222-333344446666";
    g.compute_mode = i == 0 ? 0 : 3;
    tc.gpus.push_back(g);
  }
  tc.driver_version = "580.159.04";
  tc.driver_cuda_version = "13.0";
  tc.gpu_links = {{"X", "SYS"}, {"SYS", "X"}};
  tc.mpirun = "/usr/bin/mpirun";
  tc.mpi_version = "mpirun (Open MPI) 4.1.4";
  tc.in_slurm_allocation = true;
  tc.notes = {"a note"};
  return tc;
}

TEST(Features, NamesMissingPiecesAndNonNvlinkPairs) {
  Toolchain tc = SyntheticToolchain();
  std::vector<FeatureStatus> features = Features(tc);
  EXPECT_EQ(features.size(), 12u);
  EXPECT_TRUE(FindFeature(features, "multi-GPU workloads")->available);
  const FeatureStatus* cudnn = FindFeature(features, "cuDNN attention");
  EXPECT_FALSE(cudnn->available);
  EXPECT_NE(cudnn->reason.find("cuDNN 9"), std::string::npos) << cudnn->reason;
  EXPECT_NE(cudnn->reason.find("nvidia-cudnn-frontend"), std::string::npos) << cudnn->reason;
  EXPECT_TRUE(FindFeature(features, "run and benchmark on GPU (L2/L3)")->available);
  const FeatureStatus* lsa = FindFeature(features, "LSA backend");
  EXPECT_TRUE(lsa->available);
  EXPECT_NE(lsa->reason.find("GPU0-GPU1 (SYS) is not NVLink"), std::string::npos) << lsa->reason;
  EXPECT_FALSE(FindFeature(features, "NVSHMEM backend")->available);
  EXPECT_FALSE(FindFeature(features, "Slurm launcher")->available);
  EXPECT_NE(FindFeature(features, "Slurm launcher")->reason.find("srun"), std::string::npos);
  EXPECT_TRUE(FindFeature(features, "program mode under mpirun")->available);

  tc.gpu_links = {{"X", "NV18"}, {"NV18", "X"}};
  EXPECT_EQ(FindFeature(Features(tc), "LSA backend")->reason.find("not NVLink"), std::string::npos);

  tc.nvcc.clear();
  tc.nccl.gin = false;
  tc.cxx.clear();
  features = Features(tc);
  EXPECT_FALSE(FindFeature(features, "compile CUDA candidates (L1)")->available);
  EXPECT_NE(FindFeature(features, "compile CUDA candidates (L1)")->reason.find("nvcc"), std::string::npos);
  EXPECT_FALSE(FindFeature(features, "GIN backend")->available);
  EXPECT_NE(FindFeature(features, "GIN backend")->reason.find("gin.h"), std::string::npos);
  EXPECT_FALSE(FindFeature(features, "CPU test workloads")->available);

  tc.nccl = NcclInstall();
  features = Features(tc);
  EXPECT_FALSE(FindFeature(features, "NCCL host collectives")->available);
  EXPECT_FALSE(FindFeature(features, "LSA backend")->available);
}

// The Slurm packages without a cluster: srun prints errors and no version. Slurm is then not
// available, and nothing shows an error line as its version.
TEST(Features, SlurmInstalledWithoutAClusterIsNotAvailable) {
  const std::string no_cluster =
      "srun: error: resolve_ctls_from_dns_srv: res_nsearch error: Unknown host\n"
      "srun: error: fetch_config: DNS SRV lookup failed\n"
      "srun: error: _establish_config_source: failed to fetch config\n"
      "srun: fatal: Could not establish a configuration source\n";
  const SlurmVersion broken = ParseSlurmVersion(no_cluster, 1);
  EXPECT_EQ(broken.version, "");
  EXPECT_EQ(broken.error, "srun: error: resolve_ctls_from_dns_srv: res_nsearch error: Unknown host");
  const SlurmVersion fine = ParseSlurmVersion("slurm 23.11.4\n", 0);
  EXPECT_EQ(fine.version, "23.11.4");
  EXPECT_EQ(fine.error, "");
  EXPECT_EQ(ParseSlurmVersion("slurm-wlm 22.05.8\n", 0).version, "slurm-wlm 22.05.8");  // Debian's srun
  EXPECT_EQ(ParseSlurmVersion("", 1).error, "no version printed (exit 1)");

  Toolchain tc = SyntheticToolchain();
  tc.srun = "/usr/bin/srun";
  tc.slurm_error = broken.error;
  const std::vector<FeatureStatus> features = Features(tc);
  const FeatureStatus* slurm = FindFeature(features, "Slurm launcher");
  EXPECT_FALSE(slurm->available);
  EXPECT_NE(slurm->reason.find("needs a Slurm cluster: /usr/bin/srun is installed"), std::string::npos) << slurm->reason;
  EXPECT_NE(FormatReport(tc).find("/usr/bin/srun (no cluster: srun: error: resolve_ctls"), std::string::npos);
  EXPECT_EQ(ToolchainFromJson(ToJson(tc)).slurm_error, tc.slurm_error);
  tc.slurm_error.clear();
  tc.slurm_version = fine.version;
  const std::vector<FeatureStatus> with_cluster = Features(tc);
  EXPECT_TRUE(FindFeature(with_cluster, "Slurm launcher")->available);
}

TEST(PreferredCudaArch, FromFirstGpu) {
  Toolchain tc;
  EXPECT_EQ(PreferredCudaArch(tc), "sm_90a");
  tc.gpus.resize(1);
  tc.gpus[0].cc_major = 8;
  tc.gpus[0].cc_minor = 0;
  EXPECT_EQ(PreferredCudaArch(tc), "sm_80");
  tc.gpus[0].cc_major = 9;
  EXPECT_EQ(PreferredCudaArch(tc), "sm_90a");
  tc.gpus[0].cc_major = 10;
  tc.gpus[0].cc_minor = 3;
  EXPECT_EQ(PreferredCudaArch(tc), "sm_103a");
}

TEST(Json, RoundTripsKeyFields) {
  Toolchain tc = SyntheticToolchain();
  nlohmann::json j = nlohmann::json::parse(ToJson(tc).dump());
  EXPECT_EQ(j["nccl"]["version"], "2.28.9");
  EXPECT_EQ(j["preferred_cuda_arch"], "sm_90a");
  EXPECT_EQ(j["features"].size(), 12u);
  Toolchain back = ToolchainFromJson(j);
  EXPECT_EQ(back.nvcc, tc.nvcc);
  EXPECT_EQ(back.cuda_version, tc.cuda_version);
  EXPECT_EQ(back.cuda_home, tc.cuda_home);
  EXPECT_EQ(back.cublas.library, tc.cublas.library);
  EXPECT_EQ(back.cublas.version, tc.cublas.version);
  EXPECT_TRUE(back.nccl.found);
  EXPECT_EQ(back.nccl.version, tc.nccl.version);
  EXPECT_EQ(back.nccl.version_code, 22809);
  EXPECT_EQ(back.nccl.lib_dir, tc.nccl.lib_dir);
  EXPECT_EQ(back.nccl.source, tc.nccl.source);
  EXPECT_TRUE(back.nccl.device_api && back.nccl.lsa && back.nccl.gin);
  EXPECT_FALSE(back.nvshmem.found);
  EXPECT_EQ(back.cxx, tc.cxx);
  ASSERT_EQ(back.gpus.size(), 2u);
  EXPECT_EQ(back.gpus[1].pci_bus_id, tc.gpus[1].pci_bus_id);
  EXPECT_EQ(back.gpus[1].uuid, tc.gpus[1].uuid);  // what cuco's MPS daemon is given
  EXPECT_EQ(back.gpus[1].compute_mode, 3);
  EXPECT_EQ(ComputeModeName(back.gpus[1].compute_mode), "exclusive process");
  EXPECT_EQ(back.gpus[1].memory_bytes, tc.gpus[1].memory_bytes);
  EXPECT_EQ(back.gpus[1].sm_count, 132);
  EXPECT_EQ(back.gpus[1].cc_major, 9);
  EXPECT_EQ(back.driver_version, tc.driver_version);
  EXPECT_EQ(back.driver_cuda_version, tc.driver_cuda_version);
  EXPECT_EQ(back.gpu_links, tc.gpu_links);
  EXPECT_EQ(back.mpirun, tc.mpirun);
  EXPECT_EQ(back.mpi_version, tc.mpi_version);
  EXPECT_TRUE(back.in_slurm_allocation);
  EXPECT_EQ(back.notes, tc.notes);
  EXPECT_EQ(ToJson(back), ToJson(tc));
  // Bad input gives defaults, not exceptions.
  EXPECT_TRUE(ToolchainFromJson(nlohmann::json::array()).nvcc.empty());
  EXPECT_TRUE(ToolchainFromJson(nlohmann::json{{"gpus", 3}, {"nvcc", 5}}).gpus.empty());
}

TEST(Report, ListsPiecesFeaturesAndNotes) {
  Toolchain tc = SyntheticToolchain();
  std::string report = FormatReport(tc);
  for (const FeatureStatus& f : Features(tc)) EXPECT_NE(report.find(f.feature), std::string::npos) << f.feature;
  EXPECT_NE(report.find("2.28.9 from python nvidia.nccl"), std::string::npos) << report;
  EXPECT_NE(report.find("NVIDIA H200"), std::string::npos);
  EXPECT_NE(report.find("a note"), std::string::npos);
  EXPECT_NE(report.find("NVSHMEM     not found"), std::string::npos) << report;
}

}  // namespace
}  // namespace cuco
