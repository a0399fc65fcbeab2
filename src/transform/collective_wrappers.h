// Collective wrappers (transform/ internal): the program's functions that run a collective on one of
// their parameters, as users wrap NCCL in a class, a helper or a lambda:
//   void allReduce(void* data, size_t count, ncclDataType_t t, ncclRedOp_t op) {
//     NCCLCHECK(ncclGroupStart());
//     NCCLCHECK(ncclAllReduce(data, data, count, t, op, m_comm, m_stream));   <- reads parameter 0
//     NCCLCHECK(ncclGroupEnd());
//   }
//   auto all_reduce = [&](float* y) { ncclAllReduce(y, y, n, ncclFloat, ncclSum, comm, s); };
// A call of one in the seed's EVOLVE blocks (`comm->allReduce(z, n, ncclFloat, ncclSum);`) is a
// collective site for producer_sites.h, its buffer the argument at that parameter.
#pragma once

#include <cstddef>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "transform/seed_source.h"

namespace cuco::transform_internal {

struct CollectiveWrapper {
  std::string name;        // the function's unqualified name, or the variable holding the lambda
  size_t param = 0;        // the parameter the collective reads first
  std::string collective;  // "ncclAllReduce"
  std::string where;       // the collective's file:line ("comm.h:31")
  bool in_blocks = false;  // the collective lies in the seed's EVOLVE blocks (rewritten there, else
                           // reached only when the program's other NCCL calls are routed)
};

// The wrappers of `collectives` that `text` defines (`file`: its name in `where`; `in_block(pos)`:
// whether byte `pos` lies in an EVOLVE block). A wrapper's collective reads the parameter itself,
// possibly cast (`(const void*)data`, `static_cast<float*>(data)`); one reading a member or a
// local is none, and so is a function that computes too (a kernel launch, a call other than NCCL's,
// the CUDA runtime's, MPI's, a check macro's or a member's: a layer all-reducing its output).
std::vector<CollectiveWrapper> FindCollectiveWrappers(const std::string& text, const std::string& file,
                                                      const std::set<std::string>& collectives,
                                                      const std::function<bool(size_t)>& in_block);

// The functions and named lambdas of `text` whose bodies call one of `names` (the program's GEMM
// helpers: `hgemm` in gemm.h calling cublasHgemm), each once, in the order found.
std::vector<std::string> FunctionsCalling(const std::string& text, const std::set<std::string>& names);

// The calls of `w` in the EVOLVE blocks of `src`, member calls (`obj->f(`, `obj.f(`) included,
// definitions and declarations (`void f(float* y) {`, `void f(float* y);`) not.
std::vector<SeedCall> WrapperCalls(const SeedSource& src, const CollectiveWrapper& w);

}  // namespace cuco::transform_internal
