// The data accesses of one pass of a program's timed loop, in the terms of the function holding the
// loop (cuco init's harness, program_harness.h): each call to one of the program's own functions is
// followed into it, its parameters standing for the caller's expressions (both alternatives of a
// ternary argument), its local pointers and references for the buffers they alias. Reads and writes
// come from the analysis's ops; a buffer it cannot name in the loop's function is listed as unnamed.
#pragma once

#include <map>
#include <set>
#include <utility>
#include <string>
#include <vector>

#include "analyze/analysis.h"
#include "scaffold/program_defaults.h"

namespace cuco::scaffold_internal {

// One data access of the iteration, in the loop's function's terms.
struct Access {
  std::vector<std::string> reads, writes;
  std::vector<std::string> root_writes;  // of `writes`, those only one rank makes (ncclReduce's and ncclGather's receive buffer: the root's)
  // Of `writes`, those a communication op makes into part of the buffer past its start, whatever its
  // offset's names hold (a halo row's receive, `MPI_Recv(&grid[(n + 1) * w], w, ...)`; not a chunk
  // loop's `recv + c * chunk`): the rest keeps what the buffer held.
  std::vector<std::string> partial_writes;
  std::vector<std::string> unnamed;  // buffers as their function names them, not nameable there
  int line = 0;                      // the loop function's line that makes it (the call into a helper); 0: not known
  bool to_host = false;              // a copy to the host (cudaMemcpy...DeviceToHost): the program reads its result
  bool helper_if = false;            // made under an `if` of a helper (or by a helper called under one)
  std::string datatype;              // a communication op's NCCL datatype in main's terms (`ncclFloat`), else ""
  bool gemm = false;                 // a GEMM's (its operands and result of one precision: iteration_use.cc)
};

// The program's function `name`, or null.
const AnalyzedFunction* FindFunction(const Analysis& a, const std::string& name);

// The locals a helper's body (comments and literals blanked) declares that live only while it runs:
// not one of `callee` (its parameters, members and aliases of the caller's buffers), not returned nor
// stored where the caller sees them (`*output = buf;`, `s->w = w;`). Its accesses of them (a sweep's
// `std::vector<size_t> lengths(size)` that an MPI_Allgather of counts fills) are none of the iteration's.
std::set<std::string> HelperTemporaries(const std::string& body, const std::map<std::string, std::string>& callee);

// The other alternative of the first ternary in an expression (`(s == 0 ? st.x : st.recv) + off` ->
// `st.recv`), "" when there is none: BufferBase takes the first, and both are the buffer.
std::string SecondAlternative(const std::string& arg);

// A copy of device memory to the host (cudaMemcpy, cudaMemcpy2D and their Async forms with a DeviceToHost kind).
bool CopiesToHost(const AnalyzedOp& op);
// A copy from host memory to the device (the same calls with a HostToDevice kind).
bool CopiesFromHost(const AnalyzedOp& op);

// "dir/mlp.cu" -> "mlp.cu": how the analysis's files and the program's texts are matched.
std::string SourceFileName(const std::string& path);

class LoopAccesses {
 public:
  // `texts`: the program's files by file name (SourceFileName).
  LoopAccesses(const Analysis& a, const std::map<std::string, std::string>& texts) : a_(a), texts_(texts) {}

  // Appends the accesses of the calls in `text` (code of one function, whose ops are `ops`), in the
  // text's order: each call is that function's next op of the same name, or, for a function of the
  // program the analysis lists no op for (arguments that are structs), a call made up from the text.
  void Walk(const std::string& text, const std::vector<const AnalyzedOp*>& ops, const std::string& function,
            const std::map<std::string, std::string>& to_main, int depth, std::vector<Access>* out);

  // What the program's variables hold as the harness starts it: a helper's arms that do not run then
  // (branches_run.h; its parameters hold what each call passes, or their defaults: kopernik278's
  // `launchCompute(c, reps)` with `Workload wl = WL_COMPUTE` runs one case of its `switch (wl)`) are
  // not walked. Without it only conditions of literals (`if (0)`) are decided.
  void UseDefaults(const ProgramDefaults& d) { defaults_ = {d}; }

  // Calls through a function pointer (`test->run(...)`) are followed into the function given for its
  // name (FoundLoop::pointer_calls: "run" -> "run_allreduce").
  void FollowPointers(std::map<std::string, std::string> pointer_calls) { pointers_ = std::move(pointer_calls); }

  // Appends the accesses of `op` (a helper's call is followed into the helper). `object`: what a
  // method is called on, with its accessor (CallSite::object), "" for none.
  void Op(const AnalyzedOp& op, const std::map<std::string, std::string>& to_main, int depth, std::vector<Access>* out,
          const std::string& object = "");

 private:
  // The accesses of helper `fn`'s body, its parameters naming `callee`'s expressions; `args`: the
  // call's arguments, as written.
  void WalkHelper(const AnalyzedFunction& fn, std::map<std::string, std::string> callee,
                  const std::vector<std::string>& args, int depth, std::vector<Access>* out);
  // Appends the reads and writes of data op `op`, in the loop's function's terms.
  void OpAccess(const AnalyzedOp& op, const std::map<std::string, std::string>& to_main, std::vector<Access>* out);
  // Method `fn`'s view of its object: "this", and each data member of its class as the object's
  // member in the caller's terms (`stressor.step()`: `d_w` is `stressor.d_w`); nothing when the
  // object cannot be named there.
  void MemberNames(const AnalyzedFunction& fn, const std::string& object, const std::map<std::string, std::string>& to_main,
                   std::map<std::string, std::string>* callee);
  // Local pointers of `fn` made from a buffer (`const float* w1 = w.w1 + off;`) name that buffer.
  void AddAliases(const AnalyzedFunction& fn, std::map<std::string, std::string>* m);

  // Whether `op` (a helper's) sits under an `if` of the helper being walked.
  bool UnderHelperIf(const AnalyzedOp& op) const;

  const Analysis& a_;
  const std::map<std::string, std::string>& texts_;
  std::map<std::string, std::string> pointers_;  // FollowPointers
  std::map<std::string, std::string> blanked_;   // texts_ with comments blanked, as OpAccess needs them
  int site_line_ = 0;  // the line of the loop function's op being walked
  // The helpers being walked, innermost last: each one's file and its conditional lines.
  std::vector<std::pair<std::string, std::vector<std::pair<int, int>>>> helpers_;
  // Each helper's temporaries (HelperTemporaries), innermost last: its accesses of them are none of the iteration's.
  std::vector<std::set<std::string>> temporaries_;
  int conditional_calls_ = 0;  // helpers entered from under an `if` of another helper
  // Each helper's branches (BranchLinesIn), by "file:name" and its parameters' values.
  std::map<std::string, std::pair<std::vector<std::pair<int, int>>, std::vector<std::pair<int, int>>>> branches_;
  // UseDefaults's, then each helper's being walked, innermost last: empty without UseDefaults.
  std::vector<ProgramDefaults> defaults_;
};

}  // namespace cuco::scaffold_internal
