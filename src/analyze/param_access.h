// How a kernel's body uses one pointer parameter at one place, read from the source text around
// the reference: `p[i] = v` and `*p = v` write, `p[i] += v` and `p[i]++` read and write, any other
// `p[i]` or `*p` reads. A use the text cannot settle (`p + off`, `&p[i]`, `p` passed to another
// function or copied into another pointer) is both, which is what every kernel pointer argument
// was taken to be before this existed.
#pragma once

#include <string>
#include <vector>

namespace cuco {

struct ParamAccess {
  bool read = false, write = false;
  ParamAccess& operator|=(const ParamAccess& o) {
    read |= o.read;
    write |= o.write;
    return *this;
  }
};

// `text` is the file with comments and literal contents blanked (same offsets); the reference to
// the parameter spans [begin, end).
ParamAccess AccessAt(const std::string& text, size_t begin, size_t end);

// The kernel `name` (`__global__`, a template's too) defined in `text` (blanked like AccessAt's),
// read from the text alone, for a launch clang could not resolve (a template kernel in a file whose
// headers clang half-parses): its parameters, which are pointers (and which to const), and how its
// body uses each pointer. False when `text` defines no such kernel.
struct KernelParams {
  std::vector<int> pointers, const_pointers, read, written;
  std::vector<std::string> names;  // every parameter's name
  size_t body_begin = 0, body_end = 0;  // the body's bytes in the text
};
bool KernelParamsFromText(const std::string& text, const std::string& name, KernelParams* out);

}  // namespace cuco
