#include "prompts/design_space_text.h"
#include "util/testutil.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

namespace cuco {
using testutil::Has;
namespace {
namespace fs = std::filesystem;

// A private temporary folder, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = fs::temp_directory_path() / ("cuco-dst-" + std::to_string(rd()) + std::to_string(rd()));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  void Write(const std::string& rel, const std::string& text) const {
    fs::create_directories((path_ / rel).parent_path());
    std::ofstream(path_ / rel) << text;
  }

 private:
  fs::path path_;
};

TEST(InstalledCommApi, FromAFakeInstall) {
  TempDir d;
  d.Write("nccl.h",
          "typedef struct ncclComm* ncclComm_t;\n"
          "ncclResult_t  ncclMemAlloc(void** ptr, size_t size);\n"
          "ncclResult_t pncclMemAlloc(void** ptr, size_t size);\n"
          "ncclResult_t  ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId commId, int rank);\n"
          "ncclResult_t  ncclReduceScatter(const void* sendbuff, void* recvbuff, size_t recvcount, int comm);\n");
  d.Write("nccl_device/core.h",
          "#if __CUDACC__\nNCCL_DEVICE_INLINE void* ncclGetLsaPointer(ncclWindow_t w, size_t offset, int peer);\n#endif\n");
  d.Write("nccl_device/lsa_barrier.h",
          "template<typename Coop>\nstruct ncclLsaBarrierSession: ncclLsaBarrierSession_internal<Coop> {\n"
          "  NCCL_DEVICE_INLINE void sync(Coop, cuda::memory_order);\n};\n");
  d.Write("nccl_device/gin.h", "struct ncclGin_SignalInc { ncclGinSignal_t signal; };\n");
  d.Write("nccl_device/utility.h", "NCCL_DEVICE_INLINE int utilityThing();\n");
  NcclInstall nccl;
  nccl.found = true;
  nccl.version = "2.28.9";
  nccl.device_api = nccl.lsa = nccl.gin = true;
  nccl.include_dir = d.path().string();
  LibraryInstall none;

  const std::string text = InstalledCommApiText(nccl, none, 16000, /*rdma_nics=*/false);
  EXPECT_TRUE(Has(text, "NCCL 2.28.9: device API yes, LSA yes, GIN yes")) << text;
  EXPECT_TRUE(Has(text, "__device__ void* ncclGetLsaPointer(ncclWindow_t w, size_t offset, int peer);")) << text;
  EXPECT_TRUE(Has(text, "struct ncclLsaBarrierSession: ncclLsaBarrierSession_internal<Coop> {\n  __device__ void sync(Coop, cuda::memory_order);"))
      << text;
  EXPECT_TRUE(Has(text, "ncclResult_t ncclMemAlloc(void** ptr, size_t size);")) << text;
  EXPECT_TRUE(Has(text, "ncclReduceScatter")) << text;
  EXPECT_FALSE(Has(text, "pncclMemAlloc")) << text;
  EXPECT_FALSE(Has(text, "ncclCommInitRank")) << text;  // the harness owns the communicator
  EXPECT_FALSE(Has(text, "utilityThing")) << text;
  // Without NICs GIN comes last, marked.
  EXPECT_TRUE(Has(text, "gin.h (GIN needs RDMA NICs: none on this machine)")) << text;
  EXPECT_GT(text.find("gin.h"), text.find("nccl.h (host API)")) << text;

  const std::string small = InstalledCommApiText(nccl, none, 300, true);
  EXPECT_LE(small.size(), 300u) << small;
  EXPECT_TRUE(Has(small, "ncclGetLsaPointer")) << small;  // core.h comes first

  nccl.device_api = false;
  EXPECT_TRUE(Has(InstalledCommApiText(nccl, none), "no device API"));
  NcclInstall missing;
  EXPECT_EQ(InstalledCommApiText(missing, none), "No NCCL or NVSHMEM installation was found on this machine.\n");
}

TEST(InstalledCommApi, Nvshmem) {
  TempDir d;
  d.Write("nvshmem.h",
          "#include \"host/nvshmem_api.h\"\nvoid *nvshmem_malloc(size_t size);\nint unrelated_helper(int);\n"
          "__device__ void nvshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);\n");
  d.Write("nvshmemx.h", "__device__ void nvshmemx_putmem_signal_nbi_block(void *dest, const void *src, size_t n, "
                        "uint64_t *sig, uint64_t v, int op, int pe);\n");
  NcclInstall no_nccl;
  LibraryInstall nv;
  nv.found = true;
  nv.include_dir = d.path().string();
  const std::string text = InstalledCommApiText(no_nccl, nv);
  EXPECT_TRUE(Has(text, "// ---- NVSHMEM nvshmem.h ----\nvoid *nvshmem_malloc(size_t size);")) << text;
  EXPECT_TRUE(Has(text, "nvshmem_signal_wait_until")) << text;
  EXPECT_TRUE(Has(text, "nvshmemx_putmem_signal_nbi_block")) << text;
  EXPECT_FALSE(Has(text, "unrelated_helper")) << text;
}

TEST(InstalledCommApi, TheRealHeadersWhenInstalled) {
  // The NCCL that cuco doctor would find here, if any (CI images carry 2.28's device API).
  for (const char* dir : {"/usr/local/include", "/usr/local/cuda/include", "/usr/include"}) {
    if (!fs::exists(fs::path(dir) / "nccl_device" / "core.h") || !fs::exists(fs::path(dir) / "nccl.h")) continue;
    NcclInstall nccl;
    nccl.found = nccl.device_api = nccl.lsa = nccl.gin = true;
    nccl.include_dir = dir;
    const std::string text = InstalledCommApiText(nccl, LibraryInstall{}, 16000, false);
    EXPECT_LE(text.size(), 16000u);
    EXPECT_TRUE(Has(text, "ncclGetLsaPointer(ncclWindow_t w, size_t offset, int peer);")) << text;
    EXPECT_TRUE(Has(text, "struct ncclLsaBarrierSession")) << text;
    EXPECT_TRUE(Has(text, "ncclDevCommCreate")) << text;
    EXPECT_TRUE(Has(text, "lsaBarrierCount")) << text;
    EXPECT_TRUE(Has(text, "struct ncclCoopCta")) << text;
    EXPECT_TRUE(Has(text, "ncclCommWindowRegister")) << text;
    EXPECT_FALSE(Has(text, "NCCL_DEVICE_INLINE")) << text;
    EXPECT_FALSE(Has(text, "pncclAllReduce")) << text;
    return;
  }
  GTEST_SKIP() << "no NCCL device-API headers on this machine";
}

Toolchain TwoH200s() {
  Toolchain tc;
  tc.cuda_version = "13.0";
  tc.driver_version = "580.1";
  tc.nccl.found = tc.nccl.device_api = tc.nccl.lsa = tc.nccl.gin = true;
  tc.nccl.version = "2.28.9";
  for (int i = 0; i < 2; ++i) {
    GpuInfo g;
    g.index = i;
    g.name = "NVIDIA H200";
    g.sm_count = 132;
    g.memory_bytes = 150ull << 30;
    g.cc_major = 9;
    tc.gpus.push_back(g);
  }
  tc.gpu_links = {{"X", "NV18"}, {"NV18", "X"}};
  return tc;
}

TEST(DesignSpaceText, FiveDimensionsAndAvailability) {
  const std::string generic = DesignSpaceText();
  for (const char* part : {"1. Communication backend", "2. Placement", "3. Synchronisation scope",
                           "4. Issuer granularity", "5. Chunk size", "ncclGetLsaPointer", "ncclLsaBarrierSession",
                           "NCCL GIN", "cudaMemcpyAsync", "NVSHMEM", "side stream"})
    EXPECT_TRUE(Has(generic, part)) << part;
  EXPECT_FALSE(Has(generic, "available here"));

  Toolchain tc = TwoH200s();
  const std::string here = DesignSpaceText(&tc);
  EXPECT_TRUE(Has(here, "LSA (load/store accessible peers over NVLink) [available here]")) << here;
  EXPECT_TRUE(Has(here, "[NOT available here: no RDMA NICs]")) << here;
  EXPECT_TRUE(Has(here, "NVSHMEM [NOT available here: not installed]")) << here;
  tc.rdma_devices = {"mlx5_0"};
  EXPECT_TRUE(Has(DesignSpaceText(&tc), "over RDMA) [available here]"));
}

TEST(HarnessRulesText, NamesTheRules) {
  const std::string r = HarnessRulesText();
  for (const char* part : {"ctx.stream", "ctx.side_stream(i)", "record_event", "wait_event", "poisoned",
                           "unannounced", "alloc_symmetric", "create_dev_comm", "cudaEventCreate", "getenv",
                           "cudaStreamCreate", "#include", "multicast"})
    EXPECT_TRUE(Has(r, part)) << part;
}

TEST(HardwareFactsText, GpusLinksAndVersions) {
  Toolchain tc = TwoH200s();
  const std::string h = HardwareFactsText(tc);
  EXPECT_TRUE(Has(h, "GPU0: NVIDIA H200, 132 SMs, 150 GiB, compute capability 9.0")) << h;
  EXPECT_TRUE(Has(h, "GPU1: NV18 X")) << h;
  EXPECT_TRUE(Has(h, "every GPU pair is NVLink-connected")) << h;
  EXPECT_TRUE(Has(h, "RDMA NICs: none")) << h;
  EXPECT_TRUE(Has(h, "NCCL 2.28.9 (device API yes, LSA yes, GIN yes)")) << h;
  tc.gpu_links = {{"X", "SYS"}, {"SYS", "X"}};
  EXPECT_TRUE(Has(HardwareFactsText(tc), "not every GPU pair is NVLink-connected"));
  EXPECT_TRUE(Has(HardwareFactsText(Toolchain{}), "GPUs: none visible"));
}

}  // namespace
}  // namespace cuco
