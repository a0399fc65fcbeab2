#include "evaluate/object_check.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

namespace cuco {
namespace {

namespace fs = std::filesystem;

const char* kNvcc = "/usr/local/cuda/bin/nvcc";

class ObjectCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::system("readelf --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "readelf (binutils) not found";
    dir_ = fs::temp_directory_path() / ("cuco-objcheck-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  // Compiles `code` (C++ with g++, or CUDA with nvcc) to an object; "" when it does not compile.
  std::string Compile(const std::string& code, bool cuda, const std::string& flags = "") {
    fs::path src = dir_ / (cuda ? "c.cu" : "c.cc"), obj = dir_ / "c.o";
    std::ofstream(src) << code;
    fs::remove(obj);
    std::string cmd = cuda ? std::string(kNvcc) + " -std=c++20 -gencode=arch=compute_90a,code=sm_90a "
                                                  "-Xcompiler=-fPIC -O3 -c "
                           : "g++ -std=c++20 -O2 -fPIC -c ";
    cmd += flags + " ";
    cmd += src.string() + " -o " + obj.string() + " >" + (dir_ / "log").string() + " 2>&1";
    if (std::system(cmd.c_str()) != 0) {
      std::ifstream log(dir_ / "log");
      ADD_FAILURE() << "compile failed: " << cmd << "\n" << std::string(std::istreambuf_iterator<char>(log), {});
      return "";
    }
    return obj.string();
  }
  // The symbol of every finding.
  std::vector<std::string> Findings(const std::string& code, bool cuda = false, const std::string& flags = "") {
    std::string obj = Compile(code, cuda, flags);
    if (obj.empty()) return {"<no object>"};
    auto f = InspectCandidateObject(obj, cuda ? "cuda" : "cpu");
    EXPECT_TRUE(f.ok()) << f.status().message();
    std::vector<std::string> v;
    if (f.ok())
      for (const auto& x : *f) v.push_back(x.symbol);
    return v;
  }
  bool HaveGxx() { return std::system("g++ --version >/dev/null 2>&1") == 0; }
  fs::path dir_;
};

const char* kHonestCpu = R"(
#include <vector>
#include <algorithm>
namespace { struct State { std::vector<float> buf; }; int helper(int x) { return x * 2; } }
void cuco_candidate_teardown(void* s) { delete static_cast<State*>(s); }
bool cuco_candidate_run(void* s, int n) {
  auto* st = static_cast<State*>(s);
  st->buf.resize(n);
  std::sort(st->buf.begin(), st->buf.end());
  return helper(n) > 0;
}
)";

TEST_F(ObjectCheck, HonestCppObjectPasses) {
  if (!HaveGxx()) GTEST_SKIP() << "g++ not found";
  EXPECT_EQ(Findings(kHonestCpu), std::vector<std::string>{});
  EXPECT_TRUE(CheckCandidateObject((dir_ / "c.o").string(), "cpu", "cand.cc").ok());
}

TEST_F(ObjectCheck, CLinkageAndAsmLabelsAreNamed) {
  if (!HaveGxx()) GTEST_SKIP() << "g++ not found";
  EXPECT_EQ(Findings("#include <sys/types.h>\nextern \"C\" ssize_t write(int, const void*, size_t) { return 0; }"),
            std::vector<std::string>{"write"});
  EXPECT_EQ(Findings("int ncclAllReduce_impl() asm(\"ncclAllReduce\");\nint ncclAllReduce_impl() { return 0; }"),
            std::vector<std::string>{"ncclAllReduce"});
  EXPECT_EQ(Findings("extern \"C\" __attribute__((weak)) int cudaEventElapsedTime(float* ms, void*, void*) "
                     "{ *ms = 0.001f; return 0; }"),
            std::vector<std::string>{"cudaEventElapsedTime"});
  EXPECT_EQ(Findings("int counter = 1;"), std::vector<std::string>{"counter"});
  Status s = CheckCandidateObject((dir_ / "c.o").string(), "cpu", "cand.cc");
  EXPECT_EQ(s.message(),
            "cand.cc: the compiled candidate defines the unmangled global 'counter', which candidates may not do");
}

// The user's program's own globals (its reference defines them: `pthread_barrier_t barrier;` in
// NCCL's examples' utils.cc) are the candidate's to define, with the same kind; nothing else is.
TEST_F(ObjectCheck, TheProgramsOwnGlobalsAreAllowed) {
  if (!HaveGxx()) GTEST_SKIP() << "g++ not found";
  std::string ref = Compile("#include <pthread.h>\npthread_barrier_t barrier;\nint nccl_unique_id[4];\n"
                            "extern \"C\" int helper_c(int x) { return x + 1; }\nint _reserved_data = 1;\n"
                            "extern \"C\" int cuco_hook(int x) { return x; }\n"
                            "bool cuco_candidate_run(void*, int) { return true; }\n", false);
  ASSERT_FALSE(ref.empty());
  fs::rename(ref, dir_ / "reference.o");
  auto own = ProgramOwnOf((dir_ / "reference.o").string(), (dir_ / "reference.cc").string());
  ASSERT_TRUE(own.ok()) << own.status().message();
  EXPECT_EQ(own->names, (std::set<std::string>{"FUNC helper_c", "OBJECT barrier", "OBJECT nccl_unique_id"}));
  std::string cand = Compile("#include <pthread.h>\npthread_barrier_t barrier;\nint nccl_unique_id[4];\n"
                             "extern \"C\" int helper_c(int x) { return x + 1; }\n"
                             "int _reserved_data = 1;\nint counter = 1;\nextern \"C\" int barrier_fn() { return 0; }\n", false);
  ASSERT_FALSE(cand.empty());
  auto f = InspectCandidateObject(cand, "cpu", *own);
  ASSERT_TRUE(f.ok());
  std::vector<std::string> v;
  for (const auto& x : *f) v.push_back(x.symbol);
  std::sort(v.begin(), v.end());
  EXPECT_EQ(v, (std::vector<std::string>{"_reserved_data", "barrier_fn", "counter"}));
  // The same name with another kind (data in the program, a function here) is still refused.
  cand = Compile("extern \"C\" int barrier() { return 0; }\n", false);
  EXPECT_FALSE(CheckCandidateObject(cand, "cpu", "cand.cc", *own).ok());
  EXPECT_TRUE(CheckCandidateObject(Compile("int nccl_unique_id[4];\n", false), "cpu", "cand.cc", *own).ok());
}

// A global object of a class in the program's own header (eth-cscs's `Field x_new;`, freeing its
// memory in its destructor) runs the program's frozen code at exit: allowed, with what it calls,
// once the reference's line table places the class in the workload's folder. A class of the
// candidate file's, a template's instance, a frozen function reaching past the process, or one
// calling the candidate's own function is still refused.
TEST_F(ObjectCheck, TheProgramsFrozenDestructorsMayRunAtExit) {
  if (!HaveGxx()) GTEST_SKIP() << "g++ not found";
  const fs::path harness = dir_ / "harness";
  fs::create_directories(harness);
  std::ofstream(harness / "field.h")
      << "#include <cstdio>\n#include <cstdlib>\nvoid cuco_test_hook();\n"
         "namespace data { struct Field {\n  ~Field() { release(); }\n"
         "  void release() { if (p) std::free(p); p = nullptr; }\n  double* p = nullptr; };\n"
         "struct Logged { ~Logged() { std::remove(\"log.txt\"); } int n = 0; };\n"
         "struct Hooked { ~Hooked() { cuco_test_hook(); } int n = 0; };\n"
         "template <class T> struct Box { ~Box() { std::free(p); } T* p = nullptr; }; }\n";
  const std::string program = "#include \"field.h\"\ndata::Field x;\ndata::Logged logged;\ndata::Hooked hooked;\n"
                              "data::Box<int> box;\n[[gnu::noinline]] void cuco_test_hook() { std::puts(\"hook\"); }\n"
                              "int use() { return (x.p != nullptr) + logged.n + hooked.n + (box.p != nullptr); }\n";
  std::ofstream(harness / "reference.cc") << program;
  const std::string ref = (harness / "reference.o").string();
  ASSERT_EQ(std::system(("g++ -std=c++20 -O2 -fPIC -g1 -c " + (harness / "reference.cc").string() + " -o " + ref).c_str()), 0);
  auto own = ProgramOwnOf(ref, (harness / "reference.cc").string());
  ASSERT_TRUE(own.ok()) << own.status().message();
  EXPECT_TRUE(own->frozen_functions.count("_ZN4data5FieldD2Ev") || own->frozen_functions.count("_ZN4data5FieldD1Ev"));
  for (const std::string& f : own->frozen_functions) EXPECT_EQ(f.find("Box"), std::string::npos) << f;
  // The same program as the candidate: only what reaches past the process, the candidate's own
  // function a frozen destructor calls, and the template's instance are named.
  const std::string include = "-I" + harness.string();
  std::string cand = Compile(program, false, include);
  ASSERT_FALSE(cand.empty());
  auto f = InspectCandidateObject(cand, "cpu", *own);
  ASSERT_TRUE(f.ok()) << f.status().message();
  std::set<std::string> named;
  for (const auto& x : *f) named.insert(x.symbol);
  EXPECT_TRUE(named.count("remove")) << f->size();
  EXPECT_TRUE(named.count("cuco_test_hook()")) << f->size();
  EXPECT_TRUE(named.count("data::Box<int>::~Box()")) << f->size();
  for (const std::string& n : named) EXPECT_EQ(n.find("Field"), std::string::npos) << n;
  // Field alone passes with the program's own; without them it is the candidate's own code.
  cand = Compile("#include \"field.h\"\ndata::Field x;\nint use() { return x.p != nullptr; }\n", false, include);
  EXPECT_TRUE(CheckCandidateObject(cand, "cpu", "cand.cc", *own).ok());
  EXPECT_FALSE(CheckCandidateObject(cand, "cpu", "cand.cc").ok());
  // A class of the candidate file's own, however like the program's, is the candidate's.
  cand = Compile("#include <cstdlib>\nnamespace data { struct Field2 { ~Field2() { std::free(p); } double* p = nullptr; }; }\n"
                 "data::Field2 x;\nint use() { return x.p != nullptr; }\n", false, include);
  EXPECT_FALSE(CheckCandidateObject(cand, "cpu", "cand.cc", *own).ok());
}

// A class main's file defines outside the EVOLVE blocks, a global array of it destroyed at exit
// (wave3d's `Grid grids[3];`, whose destructor calls cudaFreeHost, stop 90): the compiler's exit
// helper `__tcf_0` inlines the destructor, and the candidate's line table places all of it in the
// frozen text, so it is the program's and runs as such. The same class inside a block is the
// candidate's own; so is frozen text that inlines a block's function.
TEST_F(ObjectCheck, TheCandidateFilesFrozenTextMayRunAtExit) {
  if (!HaveGxx()) GTEST_SKIP() << "g++ not found";
  auto program = [](const std::string& cls, bool in_block) {
    const std::string block = "// EVOLVE-BLOCK-START\nstatic int tuned = 1;\n" + (in_block ? cls : "") + "// EVOLVE-BLOCK-END\n";
    return "#include <cstdlib>\n" + (in_block ? "" : cls) + block + "Grid grids[3];\nint use() { return grids[0].p != nullptr; }\n";
  };
  const std::string grid = "struct Grid {\n  ~Grid() {\n    std::free(p);\n  }\n  double* p = nullptr;\n};\n";
  auto check = [&](const std::string& code) {
    const std::string obj = Compile(code, false, "-g1");
    ProgramOwn own;
    own.names = {"OBJECT grids"};  // the program's own global, as its reference says
    own.candidate_lines = FrozenLinesOf((dir_ / "c.cc").string());
    EXPECT_FALSE(own.candidate_lines.file.empty());
    return CheckCandidateObject(obj, "cpu", "cand.cc", own);
  };
  const Status frozen = check(program(grid, false));
  EXPECT_TRUE(frozen.ok()) << frozen.message();
  const Status in_block = check(program(grid, true));
  EXPECT_NE(in_block.message().find("'free'"), std::string::npos) << "the class inside a block is the candidate's";
  // The frozen destructor calling (inlined) a block's function: that code's lines are in the block.
  const std::string calls = "struct Grid {\n  ~Grid() {\n    let_go(p);\n  }\n  double* p = nullptr;\n};\n";
  const std::string code = "#include <cstdlib>\n// EVOLVE-BLOCK-START\ninline void let_go(double* p) { std::free(p); "
                           "std::getenv(\"X\"); }\n// EVOLVE-BLOCK-END\n" + calls + "Grid grids[3];\nint use() { return "
                           "grids[0].p != nullptr; }\n";
  EXPECT_NE(check(code).message().find("'free'"), std::string::npos);
  // Without the line table's verdict (no FrozenLines), the class is the candidate's own.
  ProgramOwn names_only;
  names_only.names = {"OBJECT grids"};
  EXPECT_FALSE(CheckCandidateObject(Compile(program(grid, false), false, "-g1"), "cpu", "cand.cc", names_only).ok());
}

// NVTX's header implementation finds its tool with dlopen; compiled with NVTX_NO_IMPL (as the
// builder compiles harness-mode candidates), the annotations are plain calls and pass.
TEST_F(ObjectCheck, NvtxAnnotationsPassWithoutTheirHeaderImplementation) {
  if (!fs::exists(kNvcc)) GTEST_SKIP() << "nvcc not found at " << kNvcc;
  const std::string code =
      "#include <nvtx3/nvToolsExt.h>\nint annotated(int x) { nvtxRangePushA(\"step\"); x += 1; nvtxRangePop(); "
      "return x; }\n";
  auto refused = Findings(code, true);
  EXPECT_NE(std::find(refused.begin(), refused.end(), "dlopen"), refused.end());
  EXPECT_EQ(Findings(code, true, "-DNVTX_NO_IMPL"), std::vector<std::string>{});
}

TEST_F(ObjectCheck, ReservedNamespacesAndOperatorNew) {
  if (!HaveGxx()) GTEST_SKIP() << "g++ not found";
  EXPECT_EQ(Findings("namespace std { void hook() {} }"), std::vector<std::string>{"std::hook()"});
  EXPECT_EQ(Findings("namespace std::chrono { int fake_now() { return 0; } }"),
            std::vector<std::string>{"std::chrono::fake_now()"});
  EXPECT_EQ(Findings("namespace cuco_frozen { float* reference = nullptr; }"),
            std::vector<std::string>{"cuco_frozen::reference"});
  EXPECT_EQ(Findings("#include <random>\nunsigned int std::random_device::_M_getval() { return 4; }"),
            std::vector<std::string>{"std::random_device::_M_getval()"});
  EXPECT_EQ(Findings("#include <cstdlib>\n#include <new>\nvoid* operator new(std::size_t n) { return std::malloc(n); }"),
            std::vector<std::string>{"operator new(unsigned long)"});
}

TEST_F(ObjectCheck, LoadAndExitTimeCodeIsNamed) {
  if (!HaveGxx()) GTEST_SKIP() << "g++ not found";
  EXPECT_EQ(Findings("extern volatile int seen;\n__attribute__((constructor)) static void early() { seen = 1; }"), std::vector<std::string>{"early()"});
  EXPECT_EQ(Findings("extern volatile int seen;\n__attribute__((destructor(200))) static void late() { seen = 2; }"), std::vector<std::string>{"late()"});
  EXPECT_EQ(Findings("static void f() {}\n__attribute__((section(\".init_array\"), used)) static void (*p)() = f;"),
            std::vector<std::string>{"f()"});
  // A namespace-scope object of the standard library's types may be initialised (generation 0's
  // cuco_dc is cuco's); what its initialiser runs is followed (StaticInitialisersRunNoCandidateCode).
  auto v = Findings("#include <vector>\nstatic std::vector<int> table(4);\nint get() { return table[0]; }");
  EXPECT_TRUE(v.empty()) << v[0];
  v = Findings("static int impl() { return 1; }\nextern \"C\" int (*resolve())() { return impl; }\n"
               "int picked() __attribute__((ifunc(\"resolve\")));");
  EXPECT_EQ(v, (std::vector<std::string>{"resolve", "picked()"}));
}

// Issue 28: any function can be found by name at run time through the dynamic loader's lists,
// whatever names the deny-list saw. References to them are refused (a global-namespace variable
// is not mangled: `extern T _r_debug;` needs no extern "C").
TEST_F(ObjectCheck, RunTimeLookupsAreRefused) {
  if (!HaveGxx()) GTEST_SKIP() << "g++ not found";
  EXPECT_EQ(Findings("struct R { int v; void* map; };\nextern R _r_debug;\nvoid* first() { return _r_debug.map; }"),
            std::vector<std::string>{"_r_debug"});
  Status s = CheckCandidateObject((dir_ / "c.o").string(), "cpu", "cand.cc");
  EXPECT_EQ(s.message(), "cand.cc: the compiled candidate refers to the dynamic loader's run-time lookup '_r_debug', "
                         "which candidates may not do");
  EXPECT_EQ(Findings("extern const long _DYNAMIC[];\nlong tag() { return _DYNAMIC[0]; }"),
            std::vector<std::string>{"_DYNAMIC"});
  EXPECT_EQ(Findings("#include <dlfcn.h>\nvoid* f() { return dlsym(RTLD_DEFAULT, \"write\"); }"),
            std::vector<std::string>{"dlsym"});
  EXPECT_EQ(Findings("#define _GNU_SOURCE 1\n#include <dlfcn.h>\nvoid* f() { return dlvsym(RTLD_NEXT, \"w\", \"G\"); }"),
            std::vector<std::string>{"dlvsym"});
  EXPECT_EQ(Findings("#include <link.h>\nint cb(dl_phdr_info*, size_t, void*) { return 0; }\n"
                     "int walk() { return dl_iterate_phdr(cb, nullptr); }"),
            std::vector<std::string>{"dl_iterate_phdr"});
  EXPECT_EQ(Findings("#include <sys/auxv.h>\nunsigned long base() { return getauxval(AT_BASE); }"),
            std::vector<std::string>{"getauxval"});
}

// Issue 28: a namespace-scope object's constructor runs before main. The translation unit's
// initialiser is followed through the object's code: it may build the standard library's objects,
// never run the candidate's own functions, other libraries' or an indirect call.
TEST_F(ObjectCheck, StaticInitialisersRunNoCandidateCode) {
  if (!HaveGxx()) GTEST_SKIP() << "g++ not found";
  // Honest: containers and strings of the standard library, constants computed in place.
  auto v = Findings(
      "#include <map>\n#include <string>\n#include <vector>\n"
      "namespace { std::vector<float> buf; std::map<int, std::string> cache; std::string name = \"candidate\";\n"
      "struct Plan { int tile = 64; int stages = 3; }; Plan plan; int squares[4] = {0, 1, 4, 9}; }\n"
      "int use() { return buf.size() + cache.size() + name.size() + plan.tile + squares[2]; }");
  EXPECT_TRUE(v.empty()) << v[0];
  // The candidate's own function, called from a constructor.
  v = Findings("#include <cstdio>\nnamespace { [[gnu::noinline]] int arm() { return std::puts(\"early\"); }\n"
               "struct Early { Early() { x = arm(); } int x; } early; }\nint get() { return early.x; }");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].find("arm()"), std::string::npos) << v[0];
  Status s = CheckCandidateObject((dir_ / "c.o").string(), "cpu", "cand.cc");
  EXPECT_NE(s.message().find("the compiled candidate runs, in a static initialiser or destructor (before main or at "
                             "exit), its own function '(anonymous namespace)::arm()"),
            std::string::npos)
      << s.message();
  // A library function called in the initialiser itself (the constructor inlined).
  EXPECT_EQ(Findings("#include <cstdio>\nnamespace { struct Early { Early() { x = std::puts(\"early\"); } int x; } "
                     "early; }\nint get() { return early.x; }"),
            std::vector<std::string>{"puts"});
  // A destructor of the candidate's own, registered to run at exit; also through std::vector's.
  v = Findings("#include <cstdio>\nnamespace { struct Late { ~Late(); int x = 1; }; Late::~Late() { std::puts(\"late\"); }\n"
               "Late late; }\nint get() { return late.x; }");
  ASSERT_FALSE(v.empty());
  EXPECT_TRUE(v[0] == "puts" || v[0].find("Late::~Late()") != std::string::npos) << v[0];
  v = Findings("#include <cstdio>\n#include <vector>\nnamespace { struct Late { ~Late() { std::puts(\"late\"); } };\n"
               "std::vector<Late> lates(2); }\nint get() { return lates.size(); }");
  ASSERT_FALSE(v.empty());
  // The runtime's own objects (cuco, cuco_program: a program harness's knobs) are its business.
  v = Findings("#include <cstdio>\nnamespace cuco_program { struct Knob { ~Knob() { std::puts(\"knob\"); } int on = 0; };\n"
               "inline Knob knob; }\nint use() { return cuco_program::knob.on; }");
  EXPECT_TRUE(v.empty()) << v[0];
  // An indirect call through a pointer the constructor loads.
  v = Findings("namespace { int (*volatile hook)() = nullptr; struct Early { Early() { if (hook) x = hook(); } int x = 0; } "
               "early; }\nint get() { return early.x; }");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].find("_GLOBAL__sub_I"), std::string::npos) << v[0];
}

TEST_F(ObjectCheck, LinesComeFromDebugInfo) {
  if (!HaveGxx()) GTEST_SKIP() << "g++ not found";
  fs::path src = dir_ / "g.cc", obj = dir_ / "g.o";
  std::ofstream(src) << "// line 1\n\nextern \"C\" int write(int, const void*, unsigned long) { return 0; }\n";
  ASSERT_EQ(std::system(("g++ -g -c " + src.string() + " -o " + obj.string()).c_str()), 0);
  Status s = CheckCandidateObject(obj.string(), "cpu", "cand.cc");
  EXPECT_EQ(s.message(),
            "cand.cc:3: the compiled candidate defines the C-linkage function 'write', which candidates may not do");
}

TEST_F(ObjectCheck, MissingObjectIsAnError) {
  EXPECT_FALSE(CheckCandidateObject((dir_ / "none.o").string(), "cpu", "x.cc").ok());
}

TEST_F(ObjectCheck, CudaObjectsKeepNvccRegistrationOnly) {
  if (!fs::exists(kNvcc)) GTEST_SKIP() << "nvcc not found at " << kNvcc;
  const std::string honest =
      "#include <vector>\n__device__ unsigned counter;  // nvcc keeps its host shadow local\nnamespace { __device__ int flag; __global__ void k(float* p) { p[threadIdx.x] += flag; }\n"
      "std::vector<int> sizes() { return {1, 2}; } }\n"
      "void cuco_candidate_run(float* p) { k<<<1, 32>>>(p); (void)sizes(); }\n__global__ void open_kernel(int* x) "
      "{ *x = 1; }\n";
  EXPECT_EQ(Findings(honest, true), std::vector<std::string>{});
  // The same object read as a CPU one: nvcc's registration is no longer expected.
  auto cpu = InspectCandidateObject((dir_ / "c.o").string(), "cpu");
  ASSERT_TRUE(cpu.ok());
  ASSERT_EQ(cpu->size(), 1u);
  EXPECT_EQ((*cpu)[0].symbol, "__sti____cudaRegisterAll()");
  EXPECT_EQ(Findings("#include <cuda_runtime.h>\nextern \"C\" cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t, "
                     "cudaEvent_t) { *ms = 0.001f; return cudaSuccess; }",
                     true),
            std::vector<std::string>{"cudaEventElapsedTime"});
  EXPECT_EQ(Findings("extern volatile int seen;\n__attribute__((constructor)) static void grab() { seen = 1; }\n"
                     "__global__ void k() {}", true),
            std::vector<std::string>{"grab()"});
}

// Every flag path of the co-design blocks, in every WaitMode, compiles into an object a candidate
// may hand in: a knob value (wait_mode = "wait_value") that the object check refuses is a dead
// half of the design space (it was: flags.h looked up cuStreamWaitValue32 itself).
TEST_F(ObjectCheck, EveryCodesignFlagPathPasses) {
  if (!fs::exists(kNvcc)) GTEST_SKIP() << "nvcc not found at " << kNvcc;
  const std::string code = R"(#include <cuco/codesign.h>
namespace cd = cuco::codesign;
namespace {
template <cd::WaitMode M>
cuco::Status all_paths(cuco::RankContext& ctx, uint32_t* flags, void* dst, const void* src) {
  cuco::Status s = cd::wait_flag(ctx, ctx.stream, flags, 1, M);
  if (s.ok()) s = cd::wait_flags(ctx, ctx.stream, flags, 4, 1, M);
  if (s.ok()) s = cd::signal_flag(ctx, ctx.stream, flags + 1, 1, M);
  if (s.ok()) s = cd::ce_copy_signal(ctx, ctx.side_stream(0), dst, src, 64, flags + 2, 1, M);
  return s;
}
}  // namespace
cuco::Status every_flag_path(cuco::RankContext& ctx, uint32_t* flags, void* dst, const void* src) {
  cuco::Status s = all_paths<cd::WaitMode::kSpinKernel>(ctx, flags, dst, src);
  if (s.ok()) s = all_paths<cd::WaitMode::kStreamWaitValue>(ctx, flags, dst, src);
  if (s.ok()) s = cd::wait_flag(ctx.stream, flags, 1, cd::WaitMode::kSpinKernel);
  if (s.ok()) s = cd::signal_flag(ctx.stream, flags, 1);
  return s;
}
)";
  EXPECT_EQ(Findings(code, true, "-I" CUCO_SOURCE_DIR "/runtime/include"), std::vector<std::string>{});
}

}  // namespace
}  // namespace cuco
