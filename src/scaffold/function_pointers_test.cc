#include "scaffold/function_pointers.h"

#include <gtest/gtest.h>

namespace cuco::scaffold_internal {
namespace {

using Targets = std::map<std::string, std::vector<std::string>>;

// nccl-tests' table: a struct of function pointers filled positionally, in a file of its own.
TEST(FunctionPointers, APositionalInitialiserFillsTheFieldAtItsPlace) {
  const std::string code =
      "struct testColl {\n  const char name[20];\n  void (*getBuffSize)(size_t*, size_t*, size_t, int);\n"
      "  ncclResult_t (*runColl)(void*, void*, size_t);\n};\n"
      "struct testColl allReduceTest = {\"AllReduce\", AllReduceGetBuffSize, AllReduceRunColl};\n"
      "int main() { for (;;) collTest->runColl(a, b, n); }\n";
  EXPECT_EQ(FunctionPointerTargets(code, {"AllReduceRunColl", "AllReduceGetBuffSize", "main"}),
            (Targets{{"getBuffSize", {"AllReduceGetBuffSize"}}, {"runColl", {"AllReduceRunColl"}}}));
}

// An array of such structs: every element's field, first stored first.
TEST(FunctionPointers, AnArrayOfRecordsFillsTheFieldOfEveryElement) {
  const std::string code =
      "typedef void (*run_t)(void*, void*);\nstruct op { const char* name; size_t factor; run_t run; };\n"
      "static op ops[] = {\n  {\"allreduce\", 1, run_allreduce},\n  {\"allgather\", 0, run_allgather},\n};\n";
  EXPECT_EQ(FunctionPointerTargets(code, {"run_allreduce", "run_allgather"}),
            (Targets{{"run", {"run_allreduce", "run_allgather"}}}));
}

// Assigned members (also a ternary's two), designated initialisers and pointer variables; a call,
// a comparison and a name that is itself a function store nothing.
TEST(FunctionPointers, AssignmentsAndDesignatedInitialisers) {
  const std::string code =
      "void setup(Ops* o) { o->reduce = &reduce_nccl; o->count = count_of(3); }\n"
      "Ops table = {.name = \"x\", .gather = gather_nccl};\ncoll_fn fn = reduce_nccl;\n"
      "bool same = fn == reduce_nccl;\nvoid step() { step = other; run(reduce_nccl(a)); }\n"
      "void start(T* t) { t->func = parallel ? init_all : run_tests; int k = a ? b : c; }\n";
  EXPECT_EQ(FunctionPointerTargets(code, {"reduce_nccl", "gather_nccl", "count_of", "step", "other", "init_all", "run_tests"}),
            (Targets{{"fn", {"reduce_nccl"}},
                     {"func", {"init_all", "run_tests"}},  // a ternary's two (nccl-tests' threads)
                     {"gather", {"gather_nccl"}},
                     {"reduce", {"reduce_nccl"}}}));
}

}  // namespace
}  // namespace cuco::scaffold_internal
