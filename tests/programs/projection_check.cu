// Host-only check of cuco/program/impl/projection.h (ctest programs_projection_check: built with
// the real nvcc, run without a GPU). The guards cuco init writes for a program that drives every GPU
// from one process must call the real function only while the rank's GPU is selected, keep literal
// arguments as written, reach a library's aliased name (cublas_v2.h: cublasX -> cublasX_v2), and
// skip an NCCL call on another GPU's communicator. Exit 0 when every check holds.
#define CUCO_PROGRAM_PROJECTED 1
#include <cstdio>

#include <cuco/program/impl/projection.h>

// This process plays rank 1 of 2.
int cuco_program::rank() { return 1; }
int cuco_program::world() { return 2; }

namespace {
int calls = 0;
int last_arg = -1;
}  // namespace

// Stand-ins for a library: a status-returning call, an aliased one, a void one and an NCCL-like one.
enum Status { kOk = 0, kFailed = 7 };
Status fooCopy(void* dst, int n, void* stream) {
  ++calls;
  last_arg = n;
  return stream == nullptr && dst == nullptr ? kFailed : kOk;
}
Status barGemm_v2(int n) {
  ++calls;
  last_arg = n;
  return kOk;
}
#define barGemm barGemm_v2  // the library's own alias
void bazSync() { ++calls; }
struct Comm;
Status ncclLikeSend(const void*, int n, int peer, Comm* comm, void* stream) {
  ++calls;
  last_arg = n + peer + (comm == nullptr) + (stream == nullptr);
  return kOk;
}

// What cuco init writes (scaffold/projection.cc, ProjectionGuards).
#ifndef fooCopy
#define fooCopy(...) CUCO_PROGRAM_GUARD(fooCopy, __VA_ARGS__)
#endif
#ifdef barGemm
#define barGemm_v2(...) CUCO_PROGRAM_GUARD(barGemm_v2, __VA_ARGS__)
#else
#define barGemm(...) CUCO_PROGRAM_GUARD(barGemm, __VA_ARGS__)
#endif
#ifndef bazSync
#define bazSync(...) CUCO_PROGRAM_GUARD(bazSync, __VA_ARGS__)
#endif
#define ncclLikeSend(...) CUCO_PROGRAM_GUARD_COMM(ncclLikeSend, __VA_ARGS__)

int main() {
  int failed = 0;
  auto expect = [&](bool ok, const char* what) {
    if (!ok) std::printf("FAIL: %s\n", what), ++failed;
  };
  using cuco_program::proj::t_device;
  int x = 0;

  t_device = 0;  // another GPU's part: nothing runs, the status is success
  expect(fooCopy(nullptr, 5, 0) == kOk && calls == 0, "a call while GPU 0 is selected ran on rank 1");
  expect(barGemm(3) == kOk && calls == 0, "an aliased call while GPU 0 is selected ran");
  bazSync();
  expect(calls == 0, "a void call while GPU 0 is selected ran");

  t_device = 1;  // the rank's own GPU: the real call, literal 0 as the stream (a null pointer)
  expect(fooCopy(nullptr, 5, 0) == kFailed && calls == 1 && last_arg == 5, "the rank's own call did not run as written");
  expect(fooCopy(&x, 6, 0) == kOk && calls == 2 && last_arg == 6, "the rank's own call did not return its status");
  expect(barGemm(4) == kOk && calls == 3 && last_arg == 4, "the aliased call did not reach barGemm_v2");
  bazSync();
  expect(calls == 4, "the void call did not run");

  Comm* own = reinterpret_cast<Comm*>(&x);
  Comm* other = cuco_program::proj::Foreign<Comm*>(0);
  expect(cuco_program::proj::IsForeign(other) && !cuco_program::proj::IsForeign(own), "foreign handles are not told apart");
  t_device = 0;  // NCCL calls go by their communicator, not by the selected GPU
  expect(ncclLikeSend(&x, 10, 1, other, 0) == kOk && calls == 4, "a call on another GPU's communicator ran");
  expect(ncclLikeSend(&x, 10, 1, own, 0) == kOk && calls == 5 && last_arg == 12, "a call on the rank's communicator did not run");

  std::printf("%s\n", failed ? "projection_check: FAILED" : "projection_check: ok");
  return failed ? 1 : 0;
}
