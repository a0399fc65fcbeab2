// Which elements of a buffer an operation touches, as expressions over the program's variables, so
// that two operations on disjoint parts of one array are no dependency (a stencil's kernel writing
// its interior rows while halo rows go out in sends: no race).
//   an NCCL or MPI send, receive or same-count collective on `a + off` or `&a[off]` with count n:
//   [off, off + n);
//   a kernel whose body indexes a pointer parameter row-major, `p[R * W + C]`, with R = (thread and
//   block indices) + LO guarded by R < HI, and C within [0, W) (its own index guarded by C < W - m,
//   or a constant): rows [LO, HI) of width W, i.e. [LO * W, HI * W), row offsets R + k included.
// ProvablyDisjoint compares two ranges as polynomials over the variables, each taken >= 0 (sizes,
// row indices); it says true only when one ends before the other begins for every such value.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cuco {

struct ElemRange {
  std::string lo, hi;  // [lo, hi), element offsets
};

bool ProvablyDisjoint(const ElemRange& a, const ElemRange& b);

// `expr` with each identifier of `names` replaced by "(value)".
std::string SubstituteNames(const std::string& expr, const std::map<std::string, std::string>& names);

// The range an NCCL buffer argument `expr` (`a_new + (iy_end - 1) * nx`, or `&a[(n + 1) * w]`) covers
// with `count` elements: [offset, offset + count); nullopt when the expression is not base + offset.
std::optional<ElemRange> RangeOfArgument(const std::string& expr, const std::string& count);

// The rows a kernel's pointer parameter `param` is indexed in, by its uses that write (`writes`) or
// that read, in the kernel's own parameter names; nullopt when any such use is not of the row-major
// form. `blank`: the file with comments and literal contents blanked; [body_begin, body_end) the
// kernel's body; `params` its parameter names.
std::optional<ElemRange> KernelParamRange(const std::string& blank, size_t body_begin, size_t body_end,
                                          const std::string& param, const std::vector<std::string>& params, bool writes);

}  // namespace cuco
