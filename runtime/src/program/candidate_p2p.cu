// runtime/src/program/candidate_p2p.cu: program.h's p2p_send, p2p_receive and p2p_flush on the
// candidate side: MPI's point-to-point messages (cuco/program/impl/mpi_p2p.h) as NCCL sends and
// receives on the harness's communicator, linked into every CUDA harness's candidate (a cuco
// runtime unit: nothing here depends on the program's own macros).
//
// A send waits in this rank's list until its next receive or flush, which posts every waiting send
// and the receives in one ncclGroupStart/End on ctx.stream and waits for them: two ranks that both
// send before they receive (MPI's buffered sends) meet in one group each, as MPI's eager sends do.
// Device memory moves as it is; host memory and the bytes of a send that does not stay (MPI_Send's)
// through device buffers of this unit. Before a group, the device is synchronised: the program's
// kernels that wrote a send buffer, on any of its streams, are done (CUDA-aware MPI's contract).
#define CUCO_PROGRAM_RUNTIME_UNIT 1

#include <cstdio>
#include <vector>

#include <cuda_runtime.h>
#include <nccl.h>

#include <cuco/program/impl/candidate_state.h>
#include <cuco/program/impl/mpi_device.h>

namespace cuco_program {
namespace {

int Failed(const char* what) {
  std::fprintf(stderr, "cuco: MPI point-to-point over the harness's communicator: %s\n", what);
  std::fflush(stderr);
  return 1;
}

// Device buffers of this unit, reused by size: a program sending every iteration allocates nothing
// after its first.
class Staging {
 public:
  void* Take(size_t bytes) {
    for (size_t i = 0; i < free_.size(); ++i)
      if (free_[i].bytes >= bytes) {
        void* p = free_[i].ptr;
        free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(i));
        return p;
      }
    void* p = nullptr;
    if (cudaMalloc(&p, bytes == 0 ? 1 : bytes) != cudaSuccess) return nullptr;
    sizes_.push_back({p, bytes});
    return p;
  }
  void Give(void* p) {
    for (const Block& b : sizes_)
      if (b.ptr == p) free_.push_back(b);
  }

 private:
  struct Block {
    void* ptr;
    size_t bytes;
  };
  std::vector<Block> sizes_, free_;
};

struct Send {
  const void* data;
  size_t bytes;
  int to;
  void* staged;  // this unit's copy, given back after the group; null: `data` itself
};

struct P2p {
  std::vector<Send> sends;
  Staging staging;
};

P2p& State() {
  static P2p p;
  return p;
}

// Every waiting send and `receives` in one group on ctx.stream, then waits for it.
int Group(const P2pReceive* receives, int n) {
  P2p& p = State();
  if (p.sends.empty() && n == 0) return 0;
  cuco::RankContext& ctx = *candidate_detail::S().ctx;
  if (cudaDeviceSynchronize() != cudaSuccess) return Failed("cudaDeviceSynchronize before the messages");
  std::vector<void*> into(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const bool device = mpi::OnDevice(receives[i].data);
    into[static_cast<size_t>(i)] = device ? receives[i].data : p.staging.Take(receives[i].bytes);
    if (into[static_cast<size_t>(i)] == nullptr) return Failed("cudaMalloc of a receive's device buffer");
  }
  bool ok = ncclGroupStart() == ncclSuccess;
  for (const Send& s : p.sends)
    ok = ok && ncclSend(s.staged ? s.staged : s.data, s.bytes, ncclUint8, s.to, ctx.comm, ctx.stream) == ncclSuccess;
  for (int i = 0; i < n; ++i)
    ok = ok && ncclRecv(into[static_cast<size_t>(i)], receives[i].bytes, ncclUint8, receives[i].from, ctx.comm,
                        ctx.stream) == ncclSuccess;
  ok = ncclGroupEnd() == ncclSuccess && ok;
  ok = ok && cudaStreamSynchronize(ctx.stream) == cudaSuccess;
  for (int i = 0; i < n; ++i) {
    if (into[static_cast<size_t>(i)] == receives[i].data) continue;
    ok = ok && cudaMemcpy(receives[i].data, into[static_cast<size_t>(i)], receives[i].bytes, cudaMemcpyDeviceToHost) ==
                   cudaSuccess;
    p.staging.Give(into[static_cast<size_t>(i)]);
  }
  for (const Send& s : p.sends)
    if (s.staged) p.staging.Give(s.staged);
  p.sends.clear();
  return ok ? 0 : Failed("a group of NCCL sends and receives failed");
}

}  // namespace

int p2p_send(const void* data, size_t bytes, int to, int tag, bool stays) {
  (void)tag;  // NCCL pairs a rank's messages by their order (program.h)
  Send s{data, bytes, to, nullptr};
  if (!stays || !mpi::OnDevice(data)) {
    s.staged = State().staging.Take(bytes);
    if (s.staged == nullptr) return Failed("cudaMalloc of a send's device buffer");
    // The program's writes of a device buffer first (on any of its streams), then the copy.
    if (cudaDeviceSynchronize() != cudaSuccess || cudaMemcpy(s.staged, data, bytes, cudaMemcpyDefault) != cudaSuccess ||
        cudaDeviceSynchronize() != cudaSuccess)
      return Failed("copying a send's bytes");
  }
  State().sends.push_back(s);
  return 0;
}

int p2p_receive(const P2pReceive* receives, int n) { return Group(receives, n); }

int p2p_flush() { return Group(nullptr, 0); }

}  // namespace cuco_program
