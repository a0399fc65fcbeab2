// runtime/src/program/nccl_emulation.cu: cuco/program/impl/nccl_emulation.h's calls, executed between
// the reference's rank threads, linked into every CUDA harness's supervisor (a cuco runtime unit:
// compiled once, nothing here depends on the program's own macros; a supervisor whose reference
// is not a program's links it unused).
#define CUCO_PROGRAM_RUNTIME_UNIT 1

#include <cuco/program/impl/nccl_emulation.h>

#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <cuco/impl/nccl_type_bytes.h>
#include <cuco/program/impl/emulated_groups.h>
#include <cuco/program/impl/emulated_matching.h>
#include <cuco/program/impl/reference_engine.h>

namespace cuco_program::emu {

template <class T>
__device__ __forceinline__ double Load(const void* p, size_t i) {
  if constexpr (std::is_same_v<T, __half>) return static_cast<double>(__half2float(static_cast<const __half*>(p)[i]));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return static_cast<double>(__bfloat162float(static_cast<const __nv_bfloat16*>(p)[i]));
  else return static_cast<double>(static_cast<const T*>(p)[i]);
}
template <class T>
__device__ __forceinline__ void Store(void* p, size_t i, double v) {
  if constexpr (std::is_same_v<T, __half>) static_cast<__half*>(p)[i] = __float2half_rn(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) static_cast<__nv_bfloat16*>(p)[i] = __float2bfloat16_rn(static_cast<float>(v));
  else static_cast<T*>(p)[i] = static_cast<T>(v);
}

// out[i] = op over q of in[q][offset + i].
template <class T>
__global__ void ReduceKernel(void* out, Ptrs in, int n, size_t offset, size_t count, int op) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    double acc = Load<T>(in.p[0], offset + i);
    for (int q = 1; q < n; ++q) {
      const double v = Load<T>(in.p[q], offset + i);
      if (op == ncclSum || op == ncclAvg) acc += v;
      else if (op == ncclProd) acc *= v;
      else if (op == ncclMax) acc = v > acc ? v : acc;
      else if (op == ncclMin) acc = v < acc ? v : acc;
    }
    if (op == ncclAvg) acc /= n;
    Store<T>(out, i, acc);
  }
}

inline void Check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("emulated NCCL: ") + what + ": " + cudaGetErrorString(e));
}

// On `stream` when one is given (a captured call), else on the legacy stream, waited for.
inline void Reduce(void* out, const Ptrs& in, int n, size_t offset, size_t count, ncclDataType_t t, ncclRedOp_t op,
                   cudaStream_t stream = nullptr) {
  if (count == 0) return;
  const unsigned blocks = static_cast<unsigned>(count / 256 + 1 < 4096 ? count / 256 + 1 : 4096);
  const int o = static_cast<int>(op);
  switch (t) {
    case ncclFloat32: ReduceKernel<float><<<blocks, 256, 0, stream>>>(out, in, n, offset, count, o); break;
    case ncclFloat64: ReduceKernel<double><<<blocks, 256, 0, stream>>>(out, in, n, offset, count, o); break;
    case ncclFloat16: ReduceKernel<__half><<<blocks, 256, 0, stream>>>(out, in, n, offset, count, o); break;
    case ncclBfloat16: ReduceKernel<__nv_bfloat16><<<blocks, 256, 0, stream>>>(out, in, n, offset, count, o); break;
    case ncclInt32: ReduceKernel<int32_t><<<blocks, 256, 0, stream>>>(out, in, n, offset, count, o); break;
    case ncclUint32: ReduceKernel<uint32_t><<<blocks, 256, 0, stream>>>(out, in, n, offset, count, o); break;
    case ncclInt64: ReduceKernel<int64_t><<<blocks, 256, 0, stream>>>(out, in, n, offset, count, o); break;
    case ncclUint64: ReduceKernel<uint64_t><<<blocks, 256, 0, stream>>>(out, in, n, offset, count, o); break;
    case ncclInt8: ReduceKernel<int8_t><<<blocks, 256, 0, stream>>>(out, in, n, offset, count, o); break;
    case ncclUint8: ReduceKernel<uint8_t><<<blocks, 256, 0, stream>>>(out, in, n, offset, count, o); break;
    default: throw std::runtime_error("emulated NCCL: this datatype is not supported");
  }
  Check(cudaGetLastError(), "reduce kernel");
  if (stream == nullptr) Check(cudaStreamSynchronize(nullptr), "reduce kernel");
}

struct DeviceCounters;
// A send's staged copy; `captured`: the counters of a send captured into a graph (its copy is made
// when the graph runs).
struct MailItem {
  void* staged = nullptr;
  size_t bytes = 0;
  DeviceCounters* captured = nullptr;
};
struct Mailboxes {
  std::mutex mu;
  std::condition_variable cv;
  // (communicator: a split's group id or -1 for the world, from, to: world ranks) -> staged copies
  std::map<std::tuple<int, int, int>, std::deque<MailItem>> box;
};
inline Mailboxes& Mail() {
  static Mailboxes m;
  return m;
}

inline void* Stage(const void* src, size_t bytes) {
  void* d = nullptr;
  Check(cudaMalloc(&d, bytes ? bytes : 1), "staging");
  if (bytes) Check(cudaMemcpy(d, src, bytes, cudaMemcpyDeviceToDevice), "staging copy");
  return d;
}

// Each world rank's call, read by every rank between a collective's two Meet()s (emulated_matching.h).
inline CallKey g_calls[kMaxRanks];

// A call's communicator as the emulation runs it: its ranks (n), the caller's index in them (me),
// and where they meet: the world's barrier, slots and calls, or a split's group's.
struct Comm {
  int n = 0, me = 0;
  ref::RankBarrier* barrier = nullptr;
  const void** slots = nullptr;
  CallKey* calls = nullptr;
  Group* group = nullptr;  // a split's; nullptr for the world
  // The world rank of the communicator's rank r.
  int World(int r) const { return group ? group->members[static_cast<size_t>(r)] : r; }
};
inline Comm CommOf(ncclComm_t c) {
  int id = -1, index = 0;
  if (IsGroupToken(reinterpret_cast<uintptr_t>(c), &id, &index))
    if (Group* g = AllGroups().ById(id))
      return {static_cast<int>(g->members.size()), index, &g->barrier, g->slots.data(), g->calls.data(), g};
  ref::Engine& e = ref::E();
  return {e.world, ref::t_rank, &e.barrier, e.slots.data(), g_calls, nullptr};
}

inline void Meet(const Comm& c) {
  if (!c.barrier->ArriveAndWait(ref::kWaitLimitS))
    throw std::runtime_error("an emulated NCCL collective waited " + std::to_string(ref::kWaitLimitS) +
                             " s for the other ranks (do all ranks call the same collectives in the same order?)");
}

inline void NoteCall(const Op& op, const Comm& c) {
  c.calls[c.me] = KeyOf(op.kind, op.count, static_cast<int>(op.type), static_cast<int>(op.red), op.root);
}
// After the first Meet(): throws on every rank alike where the ranks' calls differ.
inline void CheckSameCalls(const Comm& c) {
  const std::string why = MismatchedCalls(c.calls, c.n);
  if (!why.empty()) throw std::runtime_error(why);
}

// What rank `me` of n stages for a collective: its whole send buffer (n blocks for a reduce-scatter,
// all-to-all or scatter), or nothing where only the root's means anything (a broadcast's or a
// scatter's other ranks, whose send buffer may be null).
struct Staging {
  size_t elem_bytes, bytes;
  bool sends;
};
inline Staging StagingOf(const Op& op, int me, int n) {
  const size_t eb = cuco::NcclTypeBytes(op.type);
  if (eb == 0) throw std::runtime_error("emulated NCCL: this datatype is not supported");
  size_t bytes = op.count * eb;
  if (op.kind == Kind::kReduceScatter || op.kind == Kind::kAlltoAll || op.kind == Kind::kScatter) bytes *= static_cast<size_t>(n);
  return {eb, bytes, !((op.kind == Kind::kBroadcast || op.kind == Kind::kScatter) && me != op.root)};
}

// A device-to-device copy: on `stream` when one is given (a captured call), else waited for.
inline void CopyOn(void* dst, const void* src, size_t bytes, cudaStream_t stream, const char* what) {
  if (bytes == 0) return;
  Check(stream == nullptr ? cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice)
                          : cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream),
        what);
}

// Rank `me`'s output of a collective from every rank's staged copy (in.p[q]), on `stream` as CopyOn.
inline void WriteOwnOutput(const Op& op, const Ptrs& in, int me, int n, size_t eb, cudaStream_t stream) {
  auto at = [&](int q, size_t block) { return static_cast<const unsigned char*>(in.p[q]) + op.count * eb * block; };
  unsigned char* out = static_cast<unsigned char*>(op.recv);
  switch (op.kind) {
    case Kind::kAllReduce: Reduce(op.recv, in, n, 0, op.count, op.type, op.red, stream); break;
    case Kind::kReduce:
      if (me == op.root) Reduce(op.recv, in, n, 0, op.count, op.type, op.red, stream);
      break;
    case Kind::kReduceScatter:
      Reduce(op.recv, in, n, op.count * static_cast<size_t>(me), op.count, op.type, op.red, stream);
      break;
    case Kind::kBroadcast: CopyOn(op.recv, in.p[op.root], op.count * eb, stream, "broadcast copy"); break;
    case Kind::kAllGather:
    case Kind::kGather:
      if (op.kind == Kind::kGather && me != op.root) break;
      for (int q = 0; q < n; ++q)
        CopyOn(out + op.count * eb * static_cast<size_t>(q), at(q, 0), op.count * eb, stream, "all-gather copy");
      break;
    case Kind::kAlltoAll:  // block q of mine is rank q's; block `me` of each rank's is mine
      for (int q = 0; q < n; ++q)
        CopyOn(out + op.count * eb * static_cast<size_t>(q), at(q, static_cast<size_t>(me)), op.count * eb, stream,
               "all-to-all copy");
      break;
    case Kind::kScatter: CopyOn(op.recv, at(op.root, static_cast<size_t>(me)), op.count * eb, stream, "scatter copy"); break;
    default: break;
  }
}

// `c`: the communicator op.comm is (CommOf).
inline void Collective(const Op& op, const Comm& c) {
  const int me = c.me, n = c.n;
  const Staging staging = StagingOf(op, me, n);
  void* mine = Stage(staging.sends ? op.send : nullptr, staging.sends ? staging.bytes : 0);
  c.slots[me] = mine;
  NoteCall(op, c);
  Meet(c);
  try {
    CheckSameCalls(c);
  } catch (...) {
    cudaFree(mine);
    throw;
  }
  Ptrs in{};
  for (int q = 0; q < n; ++q) in.p[q] = c.slots[q];
  WriteOwnOutput(op, in, me, n, staging.elem_bytes, nullptr);
  Meet(c);
  cudaFree(mine);
}

}  // namespace cuco_program::emu

#include <cuco/program/impl/nccl_emulation_captured.h>

namespace cuco_program::emu {

// One call, or everything between ncclGroupStart and ncclGroupEnd.
void Execute(const std::vector<Op>& ops) {
  const int me = ref::t_rank;
  if (me < 0 || me >= ref::E().world)
    throw std::runtime_error("emulated NCCL: a call from a thread that is not one of the program's ranks");
  std::vector<bool> captured;  // per op: its stream is being captured into a graph (decided once)
  std::vector<Comm> comms;     // per op: the communicator it is on (looked up once)
  for (const Op& op : ops) {
    const Comm& c = comms.emplace_back(CommOf(op.comm));
    captured.push_back(Capturing(op.stream));
    if (captured.back() && c.group)
      throw std::runtime_error("emulated NCCL: a call on a communicator ncclCommSplit made, captured into a CUDA graph, "
                               "is not emulated");
    if (!captured.back()) Check(cudaStreamSynchronize(op.stream), "waiting for the call's stream");
    if ((op.kind == Kind::kSend || op.kind == Kind::kRecv) && (op.peer < 0 || op.peer >= c.n))
      throw std::runtime_error("emulated NCCL: a send or receive with peer " + std::to_string(op.peer) + " of " +
                               std::to_string(c.n) + " ranks");
    if (Rooted(op.kind) && (op.root < 0 || op.root >= c.n))
      throw std::runtime_error("emulated NCCL: root " + std::to_string(op.root) + " of " + std::to_string(c.n) + " ranks");
    const std::string small = TooSmall(op.kind, op.count, cuco::NcclTypeBytes(op.type), c.me, c.n, op.root,
                                       op.send ? ref::AllocationBytes(op.send) : 0,
                                       op.recv ? ref::AllocationBytes(op.recv) : 0);
    if (!small.empty()) throw std::runtime_error(small);
  }
  std::vector<Kind> kinds;
  std::vector<int> peers;  // world ranks
  for (size_t i = 0; i < ops.size(); ++i) {
    kinds.push_back(ops[i].kind);
    peers.push_back(comms[i].World(ops[i].peer));
  }
  if (const std::string unpaired = UnpairedSelfCalls(kinds, peers, me); !unpaired.empty())
    throw std::runtime_error(unpaired);
  Mailboxes& m = Mail();
  for (size_t i = 0; i < ops.size(); ++i)
    if (const Op& op = ops[i]; op.kind == Kind::kSend) {
      const size_t bytes = op.count * cuco::NcclTypeBytes(op.type);
      MailItem item = captured[i] ? CapturedSendStart(op) : MailItem{Stage(op.send, bytes), bytes, nullptr};
      const Comm& c = comms[i];
      std::lock_guard<std::mutex> lock(m.mu);
      m.box[{c.group ? c.group->id : -1, me, c.World(op.peer)}].push_back(item);
      m.cv.notify_all();
    }
  for (size_t i = 0; i < ops.size(); ++i)
    if (ops[i].kind != Kind::kSend && ops[i].kind != Kind::kRecv) {
      if (captured[i]) CapturedCollective(ops[i]);
      else Collective(ops[i], comms[i]);
    }
  for (size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    if (op.kind != Kind::kRecv) continue;
    const Comm& c = comms[i];
    std::unique_lock<std::mutex> lock(m.mu);
    auto& q = m.box[{c.group ? c.group->id : -1, c.World(op.peer), me}];
    if (!m.cv.wait_for(lock, std::chrono::duration<double>(ref::kWaitLimitS), [&] { return !q.empty(); }))
      throw std::runtime_error("an emulated ncclRecv from rank " + std::to_string(op.peer) + " waited " +
                               std::to_string(ref::kWaitLimitS) + " s for its ncclSend");
    const MailItem item = q.front();
    q.pop_front();
    lock.unlock();
    const size_t want = op.count * cuco::NcclTypeBytes(op.type);
    if (item.bytes != want)
      throw std::runtime_error("an emulated ncclRecv of " + std::to_string(want) + " bytes matched a send of " +
                               std::to_string(item.bytes));
    if ((item.captured != nullptr) != captured[i])
      throw std::runtime_error("an emulated ncclRecv from rank " + std::to_string(op.peer) + " matched a send " +
                               (item.captured ? "captured into a CUDA graph while the receive was not"
                                              : "made outside a CUDA graph while the receive was captured into one"));
    if (item.captured) {
      CapturedRecv(op, item);
      continue;
    }
    Check(cudaMemcpy(op.recv, item.staged, item.bytes, cudaMemcpyDeviceToDevice), "recv copy");
    cudaFree(item.staged);
  }
}

}  // namespace cuco_program::emu
