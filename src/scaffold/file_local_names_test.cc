#include "scaffold/file_local_names.h"

#include <gtest/gtest.h>

#include "scaffold/tokens.h"

namespace cuco::scaffold_internal {
namespace {

TEST(FileLocalNames, StaticsAndTheUnnamedNamespacesNames) {
  const std::string text = R"(#include "x.h"
static TpDataKind selected_data_kind() { return TpDataKind::Fp16; }
static int calls = 0;
static const float kScale[] = {1.f, 2.f};
static __device__ __forceinline__ float twice(float x) { return 2 * x; }
namespace {
struct Timer { int t; };
int helper(int a) { static int inner = 0; return a + inner; }
}
namespace tp {
static void setup(const std::vector<int>& v);
void run(int n) { static int per_call = 0; }
}
int visible = 1;
void exported() {}
extern "C" { static int c_local; }
)";
  EXPECT_EQ(FileLocalNames(text), (std::set<std::string>{"selected_data_kind", "calls", "kScale", "twice", "Timer",
                                                          "helper", "setup", "c_local"}));
}

// Declarations led by attributes (h1ppox99/ring-attention's `[[noreturn]] void mpi_die(...)` in an
// unnamed namespace of two files) are named as any other.
TEST(FileLocalNames, ADeclarationLedByAttributesIsNamed) {
  const std::string text =
      "namespace {\n[[noreturn]] void mpi_die(const char* msg) { abort(); }\n}\n"
      "[[nodiscard]] static int checked() { return 0; }\n"
      "__attribute__((unused)) static int spare = 0;\n"
      "[[maybe_unused]] int visible = 1;\n";
  EXPECT_EQ(FileLocalNames(text), (std::set<std::string>{"mpi_die", "checked", "spare"}));
}

TEST(FileLocalNames, AnEarlierFilesNameIsKeptAndALaterFilesRespelled) {
  const std::vector<std::string> texts = {"static int pick() { return 1; }\nint main() { return pick(); }\n",
                                          "static int pick() { return 2; }\nstatic int own() { return pick(); }\n",
                                          "namespace { int pick() { return 3; } }\nint use(S s) { return pick() + s.pick; }\n"};
  const auto renames = FileLocalRenames(texts, {"main", "summa_runner", "oned_runner"});
  ASSERT_EQ(renames.size(), 3u);
  EXPECT_TRUE(renames[0].empty());
  EXPECT_EQ(renames[1], (std::vector<std::pair<std::string, std::string>>{{"pick", "pick_cuco_summa_runner"}}));
  EXPECT_EQ(RenameTokens(texts[2], renames[2], {.members = false}),
            "namespace { int pick_cuco_oned_runner() { return 3; } }\n"
            "int use(S s) { return pick_cuco_oned_runner() + s.pick; }\n");  // a member of that name stays
}

// A device function two files each define (an MoE's experts and its shared expert each with its
// own `silu_`, held out in stop 86): each file's own in a build without -rdc, and so is device data
// (`__device__`, `__constant__`). A device function's declaration, a host-and-device function and an
// `extern` device variable are not.
TEST(FileLocalNames, ADeviceFunctionDefinedIsTheFilesOwn) {
  const std::string text =
      "__device__ __forceinline__ float silu_(float x) { return x / (1.f + __expf(-x)); }\n"
      "__device__ float gelu_(float x);\n"
      "__host__ __device__ inline float both(float x) { return x; }\n"
      "__device__ float table[4] = {1, 2, 3, 4};\n"
      "__device__ __constant__ double a2, Lx;\n"
      "extern __device__ int elsewhere;\n"
      "__global__ void k(float* p) { p[0] = silu_(p[0]); }\n";
  EXPECT_EQ(FileLocalNames(text), (std::set<std::string>{"silu_", "table", "a2", "Lx"}));
}

// A file's own name that another file's global has (aleksgri/3D-wave-equation-MPI-CUDA: the
// kernels' `__constant__ double Lx`, the host's `double Lx`) is respelled in the file keeping it,
// whichever comes first; the global keeps its name.
TEST(FileLocalNames, AFilesOwnNameAnotherFilesGlobalHasIsRespelled) {
  const auto renames = FileLocalRenames({"__constant__ double hx, Lx;\nvoid set() { cudaMemcpyToSymbol(Lx, &v, 8); }\n",
                                         "double Lx, Ly;\nint main() { Lx = 3.14; }\n"},
                                        {"kernels", "main"});
  EXPECT_EQ(renames[0], (std::vector<std::pair<std::string, std::string>>{{"Lx", "Lx_cuco_kernels"}}));
  EXPECT_TRUE(renames[1].empty());
}

TEST(FileLocalNames, NamesOfOneFileAloneAreNotRespelled) {
  const auto renames = FileLocalRenames({"static int a;\n", "static int b;\nint a_user();\n"}, {"x", "y"});
  EXPECT_TRUE(renames[0].empty() && renames[1].empty());
}

}  // namespace
}  // namespace cuco::scaffold_internal
