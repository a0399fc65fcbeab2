// runtime/src/program/reference_check.cu: cuco/program/impl/reference_check.h, the reference's
// inputs and checks over the engine's ranks (reference_engine.h), linked into every CUDA harness's
// supervisor (a cuco runtime unit: compiled once, nothing here depends on the program's own macros;
// a supervisor whose reference is not a program's links it unused).
#define CUCO_PROGRAM_RUNTIME_UNIT 1

#include <cuco/program/impl/reference_check.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cuco/program/impl/left_alone.h>
#include <cuco/program/impl/output_order.h>
#include <cuco/program/impl/reference_engine.h>
#include <cuco/program/impl/row_compare.h>

namespace cuco_program::ref {
namespace {

constexpr int64_t kRowElements = 1024;

struct Spec {
  cuco_frozen::BufferSpec spec;
  int bound = 0;  // index in Rank::bound
};

std::vector<Spec> Specs(int rank, bool outputs) {
  std::vector<Spec> v;
  const auto& bound = E().ranks[static_cast<size_t>(rank)]->bound;
  for (size_t i = 0; i < bound.size(); ++i) {
    const Bound& b = bound[i];
    const int64_t n = static_cast<int64_t>(b.bytes / b.elem_bytes);
    const bool in = b.role != Role::kOutput, out = b.role != Role::kInput;
    if (!outputs && in) v.push_back({{b.name, cuco_frozen::Role::kInput, DTypeOf(b.elem), n}, static_cast<int>(i)});
    if (outputs && out)
      v.push_back({{b.role == Role::kInOut ? b.name + "_out" : b.name, cuco_frozen::Role::kOutput, DTypeOf(b.elem), n},
                   static_cast<int>(i)});
  }
  return v;
}

template <class T>
__global__ void FillKernel(T* p, size_t n, uint64_t key, float scale) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const float v = cuco_frozen::uniform_pm1(key, i) * scale;
    if constexpr (std::is_same_v<T, __half>) p[i] = __float2half_rn(v);
    else if constexpr (std::is_same_v<T, __nv_bfloat16>) p[i] = __float2bfloat16_rn(v);
    else p[i] = static_cast<T>(v);
  }
}

// Own-state inputs (Engine::own_state_inputs): the program's value times (1 + kOwnStateScale * c +
// kOwnStateNoise * u), c one uniform value in [-1, 1) per buffer, rank and seed (a smooth change no
// solver's smoothing removes: outputs differ from seed to seed), u one per element.
constexpr float kOwnStateScale = 1e-2f, kOwnStateNoise = 1e-3f;

template <class T>
__global__ void OwnStateKernel(T* p, size_t n, uint64_t key, float whole) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const float f = 1 + whole + kOwnStateNoise * cuco_frozen::uniform_pm1(key, i);
    if constexpr (std::is_same_v<T, __half>) p[i] = __float2half_rn(__half2float(p[i]) * f);
    else if constexpr (std::is_same_v<T, __nv_bfloat16>) p[i] = __float2bfloat16_rn(__bfloat162float(p[i]) * f);
    else p[i] = static_cast<T>(static_cast<double>(p[i]) * f);
  }
}

// `launch` called with `p` as a pointer to the float type `elem` names.
template <class Launch>
void AsFloats(Elem elem, void* p, Launch launch) {
  switch (elem) {
    case Elem::kF32: launch(static_cast<float*>(p)); break;
    case Elem::kF64: launch(static_cast<double*>(p)); break;
    case Elem::kF16: launch(static_cast<__half*>(p)); break;
    default: launch(static_cast<__nv_bfloat16*>(p)); break;
  }
}

// Writes rank `rank`'s input `b` for `seed` into dst (at least b.bytes), on `stream`.
cudaError_t Fill(void* dst, const Bound& b, int index, int rank, uint64_t seed, cudaStream_t stream) {
  if (!IsFloat(b.elem))
    return cudaMemcpyAsync(dst, b.initial.data(), b.bytes, cudaMemcpyHostToDevice, stream);
  const size_t n = b.bytes / b.elem_bytes;
  const uint64_t key = cuco_frozen::stream_key(seed, static_cast<uint64_t>(index + 1), static_cast<uint64_t>(rank));
  const unsigned blocks = static_cast<unsigned>(std::min<size_t>(n / 256 + 1, 4096));
  if (E().own_state_inputs) {
    if (cudaError_t c = cudaMemcpyAsync(dst, b.initial.data(), b.bytes, cudaMemcpyHostToDevice, stream); c != cudaSuccess)
      return c;
    const float whole = kOwnStateScale * cuco_frozen::uniform_pm1(key, ~uint64_t{0});
    AsFloats(b.elem, dst, [&](auto* p) { OwnStateKernel<<<blocks, 256, 0, stream>>>(p, n, key, whole); });
  } else {
    const float s = static_cast<float>(b.scale);
    AsFloats(b.elem, dst, [&](auto* p) { FillKernel<<<blocks, 256, 0, stream>>>(p, n, key, s); });
  }
  return cudaGetLastError();
}

// Fill for the program's own buffer `b` (Rank::bound[index]): host memory is filled on the GPU in a
// buffer of its own and copied in, so that its values are the ones FillInputs gives the candidates.
cudaError_t FillOwn(const Bound& b, int index, int rank, uint64_t seed) {
  if (!b.host) return Fill(b.buffer, b, index, rank, seed, nullptr);
  void* staged = nullptr;
  cudaError_t e = ::cudaMalloc(&staged, b.bytes);
  if (e == cudaSuccess) e = Fill(staged, b, index, rank, seed, nullptr);
  if (e == cudaSuccess) e = cudaMemcpy(b.buffer, staged, b.bytes, cudaMemcpyDeviceToHost);
  if (staged != nullptr) ::cudaFree(staged);
  return e;
}

// The program's own buffer `b` into `to` (b.bytes), then every byte of it set to `value`.
bool TakeOwn(const Bound& b, unsigned char* to, int value) {
  if (b.host) {
    std::memcpy(to, b.buffer, b.bytes);
    std::memset(b.buffer, value, b.bytes);
    return true;
  }
  return cudaMemcpy(to, b.buffer, b.bytes, cudaMemcpyDeviceToHost) == cudaSuccess &&
         cudaMemset(b.buffer, value, b.bytes) == cudaSuccess;
}

// Every byte of the program's own buffer `b` set to `value`.
bool SetOwn(const Bound& b, int value) {
  if (b.host) return std::memset(b.buffer, value, b.bytes) != nullptr;
  return cudaMemset(b.buffer, value, b.bytes) == cudaSuccess;
}

// One iteration of every rank on `seed`'s inputs; every rank's outputs into *outputs (host memory),
// their device copies zeroed.
cuco::Status RunOnce(uint64_t seed, std::vector<std::vector<std::vector<unsigned char>>>* outputs) {
  Engine& e = E();
  for (int q = 0; q < e.world; ++q) {
    const auto& bound = e.ranks[static_cast<size_t>(q)]->bound;
    for (size_t i = 0; i < bound.size(); ++i)
      if (bound[i].role != Role::kOutput && bound[i].bytes != 0 && FillOwn(bound[i], static_cast<int>(i), q, seed) != cudaSuccess)
        return cuco::Status::Error("filling the reference's inputs failed");
  }
  if (cudaDeviceSynchronize() != cudaSuccess) return cuco::Status::Error("filling the reference's inputs failed on the GPU");
  {
    std::unique_lock<std::mutex> lock(e.state_mu);
    for (auto& r : e.ranks) ++r->requested;
    e.cv.notify_all();
    auto running = [](const Rank& r) { return r.done < r.requested && !r.ended; };
    WaitSaying(
        lock, "iteration " + std::to_string(e.iterations) + " of the program",
        [&] { return RanksWhere(running).empty(); }, [&] { return RanksWhere(running); });
    ++e.iterations;
    const std::string err = FirstError();
    if (!err.empty()) return cuco::Status::Error("the program, run as the reference: " + err);
  }
  // Into the host copies of the last run (their storage reused: no whole output allocated and
  // faulted in per check).
  outputs->resize(static_cast<size_t>(e.world));
  for (int q = 0; q < e.world; ++q) {
    const auto specs = Specs(q, true);
    auto& mine = (*outputs)[static_cast<size_t>(q)];
    mine.resize(specs.size());
    for (size_t k = 0; k < specs.size(); ++k) {
      const Bound& b = e.ranks[static_cast<size_t>(q)]->bound[static_cast<size_t>(specs[k].bound)];
      mine[k].resize(b.bytes);
      if (b.bytes != 0 && !TakeOwn(b, mine[k].data(), 0))  // no answer stays in the program's memory
        return cuco::Status::Error("reading the reference's output '" + b.name + "' failed");
    }
  }
  return cuco::Status::Ok();
}

// An output's bytes (bound `b`), as values.
std::vector<double> OutputValues(const std::vector<unsigned char>& bytes, const Bound& b) {
  std::vector<double> v;
  v.reserve(bytes.size() / b.elem_bytes);
  for (size_t i = 0; i + b.elem_bytes <= bytes.size(); i += b.elem_bytes) v.push_back(ElementValue(bytes.data() + i, b.elem));
  return v;
}

// Compares the two runs of the determinism check (RunAll): every output agrees in place, or holds
// the same values in another order (then compared without its order on every rank, said once in the
// supervisor's log), or the program cannot be checked.
cuco::Status JudgeDeterminism(const std::vector<std::vector<std::vector<unsigned char>>>& again) {
  Engine& e = E();
  for (int q = 0; q < e.world; ++q) {
    const auto specs = Specs(q, true);
    for (size_t k = 0; k < specs.size(); ++k) {
      const Bound& b = e.ranks[static_cast<size_t>(q)]->bound[static_cast<size_t>(specs[k].bound)];
      const std::vector<double> x = OutputValues(e.outputs[static_cast<size_t>(q)][k], b);
      size_t moved = 0;
      const RunsAgree agree = CompareRuns(x, OutputValues(again[static_cast<size_t>(q)][k], b), RunsTolerance(b.elem), &moved);
      const std::string counted = std::to_string(moved) + " of the " + std::to_string(x.size()) + " elements of output '" +
                                  specs[k].spec.name + "' on rank " + std::to_string(q);
      if (agree == RunsAgree::kDiffer)
        return cuco::Status::Error(
            "the program's iteration is not deterministic: run twice on the same inputs, " + counted +
            " differ, and not only in their order, so no candidate can be checked against it (atomics that decide "
            "which rows are kept, a reduction whose order changes between runs, or state the iteration carries from "
            "one run to the next: a generator of its own, a file it reads on, device memory it updates that is not "
            "bound, do this); make the iteration deterministic");
      if (agree == RunsAgree::kReordered && e.unordered_outputs.insert(specs[k].spec.name).second)
        std::fprintf(stderr,
                     "cuco reference: run twice on the same inputs, %s moved (the same values in another order, as "
                     "atomics that hand out slots leave them): it is compared without its order on every rank\n",
                     counted.c_str());
    }
  }
  return cuco::Status::Ok();
}

// E().left_alone for `seed` (left_alone.h): the iteration run again from outputs of 0xFF bytes,
// against `from_zero`, its run from zeroed outputs. Where the first seed leaves nothing alone, no
// later seed is probed (a program's output is its whole buffer, or it is not).
cuco::Status FindLeftAlone(uint64_t seed, const std::vector<std::vector<std::vector<unsigned char>>>& from_zero) {
  Engine& e = E();
  for (int q = 0; q < e.world; ++q)
    for (const Spec& s : Specs(q, true)) {
      const Bound& b = e.ranks[static_cast<size_t>(q)]->bound[static_cast<size_t>(s.bound)];
      if (b.role == Role::kOutput && b.bytes != 0 && !SetOwn(b, 0xFF))
        return cuco::Status::Error("filling the reference's output '" + b.name + "' failed");
    }
  if (cuco::Status st = RunOnce(seed, &e.probe_outputs); !st.ok()) return st;
  bool any = false;
  e.left_alone.assign(static_cast<size_t>(e.world), {});
  for (int q = 0; q < e.world; ++q) {
    const auto specs = Specs(q, true);
    for (size_t k = 0; k < specs.size(); ++k) {
      const Bound& b = e.ranks[static_cast<size_t>(q)]->bound[static_cast<size_t>(specs[k].bound)];
      const auto& z = from_zero[static_cast<size_t>(q)][k];
      const auto& o = e.probe_outputs[static_cast<size_t>(q)][k];
      e.left_alone[static_cast<size_t>(q)].push_back(LeftAlone(z.data(), o.data(), std::min(z.size(), o.size()), b.elem_bytes));
      any = any || !e.left_alone[static_cast<size_t>(q)].back().empty();
    }
  }
  const bool first = !e.left_alone_probed;
  e.left_alone_probed = true;
  if (first && !any) e.probe_left_alone = false;
  if (first && any)
    std::fprintf(stderr, "cuco reference: the iteration leaves part of its outputs alone (an output buffer larger than "
                         "what the iteration writes): that part is not checked, and its poison is allowed\n");
  return cuco::Status::Ok();
}

// Every rank's outputs for `seed`, in host memory (E().outputs). Call with E().mu held. The first
// call runs the iteration twice and judges how the runs agree (JudgeDeterminism): a program whose
// outputs are not a function of its inputs (atomics that decide which rows are kept, say) cannot be
// checked.
cuco::Status RunAll(uint64_t seed) {
  Engine& e = E();
  if (e.cached && e.cached_seed == seed) return cuco::Status::Ok();
  e.cached = false;
  if (cuco::Status st = RunOnce(seed, &e.outputs); !st.ok()) return st;
  // The run that began from zeroed outputs: the first began from what the program's set-up left.
  const std::vector<std::vector<std::vector<unsigned char>>>* from_zero = &e.outputs;
  std::vector<std::vector<std::vector<unsigned char>>> again;
  if (!e.determinism_checked) {
    e.determinism_checked = true;
    if (cuco::Status st = RunOnce(seed, &again); !st.ok()) return st;
    if (cuco::Status st = JudgeDeterminism(again); !st.ok()) return st;
    from_zero = &again;
  }
  if (e.probe_left_alone)
    if (cuco::Status st = FindLeftAlone(seed, *from_zero); !st.ok()) return st;
  e.cached = true;
  e.cached_seed = seed;
  return cuco::Status::Ok();
}


// True when every output element the program writes (all but those it left alone, `alone`) is zero
// in `want`, a rank's outputs of the last run (specs: Specs(rank, true); bound: its Bound): a check
// of them would pass any candidate that writes zeros. False for a rank the program gives no output
// (every element left alone).
bool WrittenOutputsAllZero(const std::vector<Spec>& specs, const std::vector<Bound>& bound,
                           const std::vector<std::vector<unsigned char>>& want, const std::vector<ElementRuns>* alone) {
  bool written = false;
  for (size_t k = 0; k < specs.size() && k < want.size(); ++k) {
    const Bound& b = bound[static_cast<size_t>(specs[k].bound)];
    const int64_t n = static_cast<int64_t>(want[k].size() / b.elem_bytes);
    for (int64_t j = 0; j < n; ++j) {
      if (alone && k < alone->size() && (*alone)[k].Contains(j)) continue;
      written = true;
      if (ElementValue(want[k].data() + static_cast<size_t>(j) * b.elem_bytes, b.elem) != 0) return false;
    }
  }
  return written;
}

// Whether the program writes any element of a rank's outputs (`want`, as WrittenOutputsAllZero
// takes them): a rank whose outputs are all left alone, or that has none, has nothing to check.
bool WritesOutputs(const std::vector<Spec>& specs, const std::vector<Bound>& bound,
                   const std::vector<std::vector<unsigned char>>& want, const std::vector<ElementRuns>* alone) {
  for (size_t k = 0; k < specs.size() && k < want.size(); ++k) {
    const int64_t n = static_cast<int64_t>(want[k].size() / bound[static_cast<size_t>(specs[k].bound)].elem_bytes);
    if (n > (alone && k < alone->size() ? (*alone)[k].elements() : 0)) return true;
  }
  return false;
}

// Whether some rank's inputs are filled fresh for each seed (a float input): then outputs that stay
// the same from seed to seed do not answer them. Integer inputs keep the program's own values.
bool RandomInputs() {
  for (const auto& r : E().ranks)
    for (const Bound& b : r->bound)
      if (b.role != Role::kOutput && IsFloat(b.elem)) return true;
  return false;
}

// Every rank's ended_loop and exited_in_iteration cleared, the caches of the outputs reset: a new
// first run. With `errors`, the ranks' errors too and the barriers mended (after a failed run).
void FreshStart(bool errors) {
  Engine& e = E();
  {
    std::lock_guard<std::mutex> lock(e.state_mu);
    for (auto& r : e.ranks) {
      r->ended_loop = r->exited_in_iteration = false;
      if (errors) r->error.clear();
    }
    if (errors) e.refusal.clear();
  }
  if (errors) MendBarriers(e);
  e.cached = e.determinism_checked = e.left_alone_probed = false;
  e.probe_left_alone = true;
  e.left_alone.clear();
  e.first_outputs.clear();
}

// Whether some rank's pass exited (the program's own check) or ended the program's loop.
void PassesEnded(bool* exited, bool* ended_loop, bool* serving) {
  Engine& e = E();
  std::lock_guard<std::mutex> lock(e.state_mu);
  *exited = *ended_loop = false;
  *serving = true;
  for (const auto& r : e.ranks)
    *exited = *exited || r->exited_in_iteration, *ended_loop = *ended_loop || r->ended_loop, *serving = *serving && !r->ended;
}

// The first fill of the supervisor: the reference runs on `seed`'s fresh inputs before any candidate
// does. Where the program's own check ends that run (an exit in its pass) or a pass ends its loop
// (a `break`: a solver giving up unconverged, as from noise it does) while every rank still serves,
// and it has float inputs, they become its own state at the loop, scaled per seed (OwnStateKernel),
// for the reference and every candidate alike, said on stderr and in every check's result. A
// program whose passes end its loop on its own state too (a `break` once converged) keeps fresh
// inputs. Call with E().mu held.
cuco::Status DecideInputs(uint64_t seed) {
  Engine& e = E();
  if (e.inputs_decided) return cuco::Status::Ok();
  e.inputs_decided = true;
  int device = 0;
  cudaGetDevice(&device);
  cudaSetDevice(e.device);
  cuco::Status st = RunAll(seed);
  bool exited = false, ended_loop = false, serving = true;
  PassesEnded(&exited, &ended_loop, &serving);
  const bool stopped = st.ok() ? ended_loop : exited;
  if (stopped && serving && e.thread_error.empty() && RandomInputs()) {
    const bool by_its_loop = st.ok();  // a `break` of its loop, not an exit
    e.fresh_inputs_error = by_its_loop ? "a pass ended the program's loop (its `break`)" : st.message();
    FreshStart(!by_its_loop);
    e.own_state_inputs = true;
    st = RunAll(seed);
    PassesEnded(&exited, &ended_loop, &serving);
    if (st.ok() && ended_loop && by_its_loop) {
      e.own_state_inputs = false;  // its loop ends on its own state too: not the inputs' doing
      FreshStart(false);
      st = RunAll(seed);
    } else if (st.ok()) {
      std::fprintf(stderr,
                   "cuco reference: the program stopped on fresh random inputs (%s): its float inputs are its "
                   "own state at the timed loop instead, times 1 + 1%% x c (c uniform in [-1, 1) per buffer and "
                   "seed) with 0.1%% noise per element, for the reference and every candidate\n",
                   e.fresh_inputs_error.c_str());
    } else {
      st = cuco::Status::Error(st.message() + " (on its own state at the timed loop too; on fresh random inputs: " +
                               e.fresh_inputs_error + ")");
    }
  }
  cudaSetDevice(device);
  return st;
}

}  // namespace

std::vector<cuco_frozen::BufferSpec> BufferSpecs(int rank) {
  std::vector<cuco_frozen::BufferSpec> v;
  for (auto& s : Specs(rank, false)) v.push_back(s.spec);
  for (auto& s : Specs(rank, true)) v.push_back(s.spec);
  return v;
}

int64_t OutputRows(int rank) {
  int64_t n = 0;
  for (auto& s : Specs(rank, true)) n += s.spec.elements;
  return (n + kRowElements - 1) / kRowElements;
}

cuco::Status FillInputs(int rank, uint64_t seed, const cuco::IO& io, cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(E().mu);
  if (cuco::Status st = DecideInputs(seed); !st.ok()) return st;
  const auto& bound = E().ranks[static_cast<size_t>(rank)]->bound;
  for (const Spec& s : Specs(rank, false)) {
    const cuco::Buffer& dst = io.in(s.spec.name.c_str());
    const Bound& b = bound[static_cast<size_t>(s.bound)];
    if (dst.bytes < b.bytes) return cuco::Status::Error("input '" + b.name + "' is smaller than the program's");
    if (b.bytes == 0) continue;  // a buffer this rank does not have
    if (Fill(dst.ptr, b, s.bound, rank, seed, stream) != cudaSuccess)
      return cuco::Status::Error("filling input '" + b.name + "' failed");
  }
  return cuco::Status::Ok();
}

cuco::Status Check(int rank, uint64_t seed, const cuco::IO& io, const cuco_frozen::CheckPlan& plan, cudaStream_t stream,
                   cuco_frozen::CheckResult* result) {
  std::lock_guard<std::mutex> lock(E().mu);
  int device = 0;
  cudaGetDevice(&device);
  cudaSetDevice(E().device);  // the reference's ranks and buffers live there
  cuco::Status st = RunAll(seed);
  cudaSetDevice(device);
  if (!st.ok()) return st;
  // This rank's outputs as the candidate left them and as the reference has them. An output whose
  // order changes between runs of the program itself is read whole and compared sorted; any other
  // is read only at the rows checked (row_compare.h).
  const auto specs = Specs(rank, true);
  const auto& bound = E().ranks[static_cast<size_t>(rank)]->bound;
  const auto& want = E().outputs[static_cast<size_t>(rank)];
  E().candidate_outputs.resize(static_cast<size_t>(E().world));
  auto& got = E().candidate_outputs[static_cast<size_t>(rank)];
  got.resize(specs.size());
  std::vector<std::vector<double>> got_sorted(specs.size()), want_sorted(specs.size());
  std::vector<int64_t> counts;
  std::vector<bool> unordered;
  for (size_t k = 0; k < specs.size(); ++k) {
    const Bound& b = bound[static_cast<size_t>(specs[k].bound)];
    got[k].resize(b.bytes);
    counts.push_back(static_cast<int64_t>(b.bytes / b.elem_bytes));
    unordered.push_back(E().unordered_outputs.count(specs[k].spec.name) > 0);
  }
  const OutputSpans spans(counts);
  std::vector<int64_t> rows;
  if (plan.all_rows) {
    for (int64_t r = 0; r * kRowElements < spans.total(); ++r) rows.push_back(r);
  } else {
    rows = plan.rows;
  }
  auto read = [&](size_t k, int64_t j, int64_t n) {
    const size_t eb = bound[static_cast<size_t>(specs[k].bound)].elem_bytes;
    const auto* from = static_cast<const unsigned char*>(io.out(specs[k].spec.name.c_str()).ptr);
    return cudaMemcpyAsync(got[k].data() + static_cast<size_t>(j) * eb, from + static_cast<size_t>(j) * eb,
                           static_cast<size_t>(n) * eb, cudaMemcpyDeviceToHost, stream) == cudaSuccess;
  };
  bool read_ok = true;
  for (size_t k = 0; k < specs.size(); ++k)
    if (plan.all_rows || unordered[k]) read_ok = read(k, 0, counts[k]) && read_ok;
  if (!plan.all_rows)
    ForEachPiece(spans, rows, kRowElements, [&](size_t k, int64_t j, int64_t n) {
      if (!unordered[k]) read_ok = read(k, j, n) && read_ok;
    });
  if (!read_ok || cudaStreamSynchronize(stream) != cudaSuccess)
    return cuco::Status::Error("reading the candidate's outputs on rank " + std::to_string(rank) + " failed");
  for (size_t k = 0; k < specs.size(); ++k) {
    if (!unordered[k]) continue;
    const Bound& b = bound[static_cast<size_t>(specs[k].bound)];
    got_sorted[k] = OutputValues(got[k], b);
    want_sorted[k] = OutputValues(want[k], b);
    SortValues(&got_sorted[k]);
    SortValues(&want_sorted[k]);
  }
  // Elements the program itself leaves alone are not its output (left_alone.h): an output compared
  // without its order is compared whole.
  const std::vector<ElementRuns>* alone =
      static_cast<size_t>(rank) < E().left_alone.size() ? &E().left_alone[static_cast<size_t>(rank)] : nullptr;
  const RowFigures f = CompareRows(spans, rows, kRowElements, [&](size_t k, int64_t j, double* g, double* w) {
    if (unordered[k]) {
      *g = got_sorted[k][static_cast<size_t>(j)];
      *w = want_sorted[k][static_cast<size_t>(j)];
      return true;
    }
    if (alone && k < alone->size() && (*alone)[k].Contains(j)) return false;
    const Bound& b = bound[static_cast<size_t>(specs[k].bound)];
    const size_t at = static_cast<size_t>(j) * b.elem_bytes;
    *g = ElementValue(got[k].data() + at, b.elem);
    *w = ElementValue(want[k].data() + at, b.elem);
    return true;
  });
  if (f.want_nonfinite_at >= 0) {
    // Inputs the program left zero, or had overflowed before its timed loop (no finite value), filled
    // uniform in [-1, 1): maybe past its range.
    std::string zeroed, overflowed;
    for (const Bound& b : bound) {
      if (b.zero_in_program) zeroed += (zeroed.empty() ? "" : ", ") + b.name;
      if (b.nonfinite_in_program) overflowed += (overflowed.empty() ? "" : ", ") + b.name;
    }
    std::string why;
    if (!zeroed.empty())
      why += " (its inputs " + zeroed + " hold only zeros in the program and are filled uniform in [-1, 1): give them "
             "values at their real scale before the timed loop)";
    if (!overflowed.empty())
      why += " (its inputs " + overflowed + " hold no finite value in the program at its timed loop: it overflows "
             "already in its set-up or warm-up, so its outputs say nothing a candidate could be checked against; give "
             "its data a scale its passes keep finite)";
    return cuco::Status::Error("the program's own output (the reference) is not finite on rank " + std::to_string(rank) +
                               " at element " + std::to_string(f.want_nonfinite_at) +
                               " of its outputs: the program overflows or has a bug" + why);
  }
  if (WrittenOutputsAllZero(specs, bound, want, alone))
    return cuco::Status::Error(
        "the program's outputs on rank " + std::to_string(rank) +
        " are all zero for fresh random inputs: a check of them would pass any candidate that writes zeros. What "
        "decides them is not among the bound inputs (README.md lists what cuco init bound): bind it, or give the "
        "program's outputs a dependence on its inputs");
  if (RandomInputs() && WritesOutputs(specs, bound, want, alone)) {
    E().first_outputs.resize(static_cast<size_t>(E().world));
    if (SameForAnotherSeed(&E().first_outputs[static_cast<size_t>(rank)], seed, want))
      return cuco::Status::Error(
          "the program's outputs on rank " + std::to_string(rank) +
          " are the same, byte for byte, for two sets of fresh random inputs: a check of them would pass a candidate "
          "that computes them once and copies them every iteration. What the iteration leaves last does not depend on "
          "its inputs (a buffer put back to its starting values at the end of every pass, or values from something "
          "cuco init did not bind: README.md lists what it bound): serve the work whose result matters, or bind what "
          "decides it");
  }
  *result = cuco_frozen::CheckResult{};
  const double rms = f.elements ? std::sqrt(f.r2 / static_cast<double>(f.elements)) : 0;
  result->rel_l2 = f.r2 > 0 ? std::sqrt(f.d2 / f.r2) : std::sqrt(f.d2);
  result->max_abs = rms > 0 ? f.max_abs / rms : f.max_abs;
  result->max_abs_scale = rms > 0 ? rms : 1;
  result->own_state_inputs = E().own_state_inputs;
  result->nonfinite = f.nonfinite;
  result->elements_checked = f.elements;
  result->rows_checked = static_cast<int64_t>(rows.size());
  for (size_t k = 0; k < specs.size() && k < 64; ++k)
    if (unordered[k]) result->unordered_outputs |= uint64_t{1} << k;
  for (size_t k = 0; alone && k < alone->size() && k < specs.size(); ++k) {
    if (unordered[k]) continue;
    for (const auto& [begin, end] : (*alone)[k].runs())
      result->left_alone.push_back({static_cast<int>(k), begin, end});
    result->left_alone_elements += (*alone)[k].elements();
  }
  return cuco::Status::Ok();
}

}  // namespace cuco_program::ref
