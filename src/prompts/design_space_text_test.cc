#include "prompts/design_space_text.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

namespace cuco {
namespace {
namespace fs = std::filesystem;

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

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

const char* kHeader = R"(/* Copyright header
 * spanning lines */
#ifndef _MY_H_
#define _MY_H_
#include <stdint.h>
#define MY_API_VERSION 3
#define MY_CHECK(x) do { if (!(x)) abort(); } while (0)
#define MY_LONG_VALUE { sizeof(int), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 }
#define _MY_PRIVATE 1

// Allocates n bytes.
int myAlloc(void** ptr,
            size_t n);
int pmyAlloc(void** ptr, size_t n);

typedef enum { myOk = 0,
  myBad = 1 } myResult_t;

struct myPoint {
  int x, y;  // coordinates
  int norm() const { return x * x + y * y; }
};

class myBox {
  int hidden_;
 public:
  // Makes a box.
  myBox(int w) : w_(w), h_(w) {}
  int area() const;
 private:
  int w_, h_;
};

template<typename T>
struct myHolder_internal;

namespace detail {
int helper();
}

namespace my {
inline int twice(int v) {
  if (v > 0) { return 2 * v; }
  return 0;
}
struct Opt { int a = 1; int b[4] = {1, 2, 3, 4}; };
}

NCCL_DEVICE_INLINE void* myPeer(int peer, const char* s = "}{;");
static_assert(sizeof(int) == 4, "int");
int _myPrivate();
#endif
)";

TEST(ExtractDeclarations, KeepsPrototypesAndPublicMembers) {
  const std::string out = ExtractDeclarations(kHeader);
  EXPECT_TRUE(Has(out, "#define MY_API_VERSION 3\n")) << out;
  EXPECT_TRUE(Has(out, "#define MY_CHECK(x)\n")) << out;
  EXPECT_FALSE(Has(out, "MY_LONG_VALUE")) << out;
  EXPECT_FALSE(Has(out, "_MY_H_")) << out;
  EXPECT_FALSE(Has(out, "_MY_PRIVATE")) << out;
  EXPECT_TRUE(Has(out, "int myAlloc(void** ptr, size_t n);\n")) << out;
  EXPECT_FALSE(Has(out, "pmyAlloc")) << out;
  EXPECT_TRUE(Has(out, "typedef enum { myOk = 0, myBad = 1 } myResult_t;\n")) << out;
  EXPECT_TRUE(Has(out, "struct myPoint {\n  int x, y;\n  int norm() const;\n};\n")) << out;
  EXPECT_TRUE(Has(out, "class myBox {\n  myBox(int w);\n  int area() const;\n};\n")) << out;
  EXPECT_FALSE(Has(out, "hidden_")) << out;
  EXPECT_FALSE(Has(out, "w_")) << out;
  EXPECT_FALSE(Has(out, "_internal")) << out;
  EXPECT_FALSE(Has(out, "helper")) << out;
  EXPECT_TRUE(Has(out, "namespace my {\n  inline int twice(int v);\n  struct Opt {\n    int a = 1;\n    int b[4] = {...};\n  };\n}\n"))
      << out;
  EXPECT_TRUE(Has(out, "__device__ void* myPeer(int peer, const char* s = \"}{;\");\n")) << out;
  EXPECT_FALSE(Has(out, "static_assert")) << out;
  EXPECT_FALSE(Has(out, "_myPrivate")) << out;
  EXPECT_FALSE(Has(out, "Copyright")) << out;
  EXPECT_FALSE(Has(out, "Allocates")) << out;  // comments only when asked
}

TEST(ExtractDeclarations, CommentsWhenAsked) {
  DeclarationOptions o;
  o.keep_comments = true;
  const std::string out = ExtractDeclarations(kHeader, o);
  EXPECT_TRUE(Has(out, "// Allocates n bytes.\nint myAlloc(void** ptr, size_t n);\n")) << out;
  EXPECT_TRUE(Has(out, "  int x, y;  // coordinates\n")) << out;
  EXPECT_TRUE(Has(out, "  // Makes a box.\n  myBox(int w);\n")) << out;
  EXPECT_FALSE(Has(out, "Copyright")) << out;
}

TEST(ExtractDeclarations, FiltersAndCap) {
  DeclarationOptions skip;
  skip.skip_names = {"Alloc", "myBox"};
  const std::string s = ExtractDeclarations(kHeader, skip);
  EXPECT_FALSE(Has(s, "myAlloc")) << s;
  EXPECT_FALSE(Has(s, "area")) << s;
  EXPECT_TRUE(Has(s, "struct myPoint")) << s;

  DeclarationOptions only;
  only.only_names = {"myPoint"};
  const std::string o = ExtractDeclarations(kHeader, only);
  EXPECT_TRUE(Has(o, "struct myPoint {\n  int x, y;\n")) << o;
  EXPECT_FALSE(Has(o, "myAlloc")) << o;

  DeclarationOptions cap;
  cap.max_chars = 120;
  const std::string c = ExtractDeclarations(kHeader, cap);
  EXPECT_LE(c.size(), 120u + 40u);
  EXPECT_TRUE(Has(c, "more lines cut)\n")) << c;
}

TEST(ExtractDeclarations, NeverFailsOnGarbage) {
  for (const std::string& junk : {std::string(""), std::string("}}}{{{;;;(((\n#define\n"), std::string("struct {"),
                                 std::string("/* unterminated"), std::string("\"unterminated string\n{"),
                                 std::string(1000, '{'), std::string("int f(int a = ((1)"), std::string("\0\xff", 2)}) {
    std::string out = ExtractDeclarations(junk);
    EXPECT_LE(out.size(), junk.size() + 64) << out;
  }
}

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
