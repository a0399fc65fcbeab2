// The GPU backend of the supervisor (rank_backend.h). One per rank, each on its own device
// (device index = rank among the visible GPUs). The candidate allocates its input and output buffers
// (NCCL windows, so its peers can reach them) and shares each allocation as a cuMem POSIX fd; the
// supervisor maps them, checks that they are distinct and large enough, and from then on writes the
// inputs and reads the outputs itself. The timed window is two events on the supervisor's own stream:
//   start line (every rank's stream here), E0, fill inputs(seed), start line (every rank's fill
//   done), GO := n, wait DONE >= n, copy outputs -> private snapshot, E1
// The driver asks for the run before Begin (CandidateWaitsForGo), so the candidate's work is
// usually enqueued when E0 is recorded. The candidate's stream waits for GO before its work and writes DONE after it; a DONE written
// early only makes the snapshot hold poison or partial results. The start line (start_line.h)
// makes every rank's candidate start together, however long each rank's own fill takes; the first
// one keeps the ranks' host-side skew out of the window (a local GEMM's window differed by up to
// 0.2 ms between the ranks of one evaluation at W=4 without it).
#include "supervisor/gpu_backend.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>

#include <nccl.h>

#include "supervisor/agree_unordered.h"
#include "supervisor/check_kernels.cuh"
#include "supervisor/gpu_state_settle.h"
#include "supervisor/supervisor.h"

namespace cuco::supervisor {
namespace {

constexpr size_t kGoOffset = 0, kDoneOffset = 128;  // separate cache lines of the flags allocation
constexpr uint32_t kUnblockValue = 0x7fffffffu;

bool MpsActive();

// A fatal GPU fault (a kernel's illegal access, say) is sticky and, under MPS, reaches every client
// of the GPU: the supervisor's own, checked kernels do not fault, so such an error while the
// candidate shares the GPU is the candidate's crash, not the supervisor's failure.
bool FatalFault(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
      return true;
    default:
      return false;
  }
}

void CudaOk(cudaError_t e, const char* expr, const char* file, int line) {
  if (e == cudaSuccess) return;
  const std::string what =
      std::string("CUDA error ") + cudaGetErrorName(e) + " from " + expr + " at " + file + ":" + std::to_string(line);
  if (FatalFault(e) && MpsActive())
    Fail(protocol::kExitCandidateCrashed, "candidate_crashed",
         "a fatal GPU fault reached the supervisor through the shared MPS server (" + what +
             "): the candidate's kernels faulted");
  Fail(protocol::kExitSupervisor, "supervisor", what);
}
#define S_CUDA(expr) CudaOk((expr), #expr, __FILE__, __LINE__)

void DrvOk(CUresult r, const char* expr) {
  if (r != CUDA_SUCCESS)
    Fail(protocol::kExitSupervisor, "supervisor", std::string("CUDA driver error ") + driver::ErrorName(r) + " from " + expr);
}

bool MpsActive() {
  const char* dir = std::getenv("CUDA_MPS_PIPE_DIRECTORY");
  const std::string control = std::string(dir ? dir : "/tmp/nvidia-mps") + "/control";
  return ::access(control.c_str(), F_OK) == 0;
}

size_t RegisteredSize(const cuco::Sizes& sizes, int world, size_t i) {
  size_t m = 0;
  for (int r = 0; r < world; ++r) {
    const auto specs = cuco_frozen::buffers(sizes, r, world);
    m = std::max(m, static_cast<size_t>(specs[i].elements) * cuco_frozen::dtype_bytes(specs[i].dtype));
  }
  m = std::max<size_t>(m, 1);
  return (m + 4095) / 4096 * 4096;
}

}  // namespace

GpuBackend::GpuBackend(const Args& args, StartLine* start_line) : args_(args), start_line_(start_line) {
  for (const auto& [name, value] : args.sizes)
    if (!sizes_.set(name.c_str(), value)) Fail(protocol::kExitUsage, "usage", "cannot store size " + name);
}

GpuBackend::~GpuBackend() = default;  // the process exits right after: the driver reclaims everything

unsigned GpuBackend::Grid(int64_t n) const {
  const int64_t cap = std::max(1, sm_count_) * 8;
  return static_cast<unsigned>(std::max<int64_t>(1, std::min(cap, (n + 255) / 256)));
}

void GpuBackend::Init(int rank, int world, int output_sets) {
  rank_ = rank;
  world_ = world;
  sets_ = output_sets;
  std::string err;
  api_ = driver::Load(&err);
  int count = 0;
  S_CUDA(cudaGetDeviceCount(&count));
  if (rank >= count)
    Fail(protocol::kExitUsage, "config",
         "rank " + std::to_string(rank) + " has no GPU: " + std::to_string(count) + " visible (CUDA_VISIBLE_DEVICES='" +
             std::string(std::getenv("CUDA_VISIBLE_DEVICES") ? std::getenv("CUDA_VISIBLE_DEVICES") : "") + "')");
  device_ = rank;
  S_CUDA(cudaSetDevice(device_));
  if (!api_) Fail(protocol::kExitSupervisor, "supervisor", err);
  const cuco::Status v = cuco_frozen::validate_sizes(sizes_, world);
  if (!v.ok()) Fail(protocol::kExitUsage, "config", std::string(cuco_frozen::workload_name()) + ": " + v.message());
  cudaDeviceProp prop;
  S_CUDA(cudaGetDeviceProperties(&prop, device_));
  device_name_ = prop.name;
  cc_ = std::to_string(prop.major) + "." + std::to_string(prop.minor);
  S_CUDA(cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, device_));
  char bus[32] = {0};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus - 1, device_) == cudaSuccess) pci_bus_id_ = bus;
  S_CUDA(cudaRuntimeGetVersion(&runtime_version_));
  S_CUDA(cudaDriverGetVersion(&driver_version_));
  ncclGetVersion(&nccl_version_);
  mps_ = MpsActive();
  S_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  S_CUDA(cudaStreamCreateWithFlags(&rescue_, cudaStreamNonBlocking));
  S_CUDA(cudaEventCreate(&e0_));
  S_CUDA(cudaEventCreate(&e1_));
  S_CUDA(cudaMalloc(&counters_, 2 * sizeof(unsigned long long)));

  const auto specs = cuco_frozen::buffers(sizes_, rank, world);
  for (int r = 0; r < world; ++r) {
    const auto other = cuco_frozen::buffers(sizes_, r, world);
    bool same = other.size() == specs.size();
    for (size_t i = 0; same && i < specs.size(); ++i)
      same = other[i].name == specs[i].name && other[i].role == specs[i].role && other[i].dtype == specs[i].dtype;
    if (!same) Fail(protocol::kExitSupervisor, "supervisor", "the workload's buffer list differs between ranks");
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].elements < 0) Fail(protocol::kExitSupervisor, "supervisor", "negative buffer size for " + specs[i].name);
    Buf b;
    b.spec = specs[i];
    b.index = static_cast<int>(i);
    b.bytes = static_cast<size_t>(specs[i].elements) * cuco_frozen::dtype_bytes(specs[i].dtype);
    b.registered = RegisteredSize(sizes_, world, i);
    (specs[i].role == cuco_frozen::Role::kOutput ? outputs_ : inputs_).push_back(b);
  }
  if (outputs_.empty()) Fail(protocol::kExitSupervisor, "supervisor", "the workload declares no output buffer");
  if (inputs_.size() + outputs_.size() > static_cast<size_t>(protocol::kMaxBuffers))
    Fail(protocol::kExitSupervisor, "supervisor", "too many buffers");
  // Private memory: the snapshot, the kept snapshot (agreement), the calibration's own buffers.
  for (const auto& b : outputs_) {
    void* p = nullptr;
    S_CUDA(cudaMalloc(&p, std::max<size_t>(b.bytes, 1)));
    snapshot_.push_back(p);
    if (sets_ > 1) {
      S_CUDA(cudaMalloc(&p, std::max<size_t>(b.bytes, 1)));
      kept_.push_back(p);
    }
    S_CUDA(cudaMalloc(&p, std::max<size_t>(b.registered, 1)));
    cal_outputs_.push_back(p);
  }
  for (const auto& b : inputs_) {
    void* p = nullptr;
    S_CUDA(cudaMalloc(&p, std::max<size_t>(b.registered, 1)));
    cal_inputs_.push_back(p);
  }
  // The go/done flags: shared with the candidate; the calibration uses a private pair.
  const std::string e = driver::CreateShareable(device_, 4096, &flags_);
  if (!e.empty()) Fail(protocol::kExitSupervisor, "supervisor", "flags allocation: " + e);
  S_CUDA(cudaMemset(reinterpret_cast<void*>(flags_.ptr), 0, flags_.size));
  S_CUDA(cudaMalloc(&cal_flags_, 256));
  S_CUDA(cudaMemset(cal_flags_, 0, 256));
  S_CUDA(cudaDeviceSynchronize());
}

void GpuBackend::DescribeDevice(Json& j) const {
  j.kv("device_index", device_).kv("sm_count", sm_count_).kv("compute_capability", cc_);
  j.key("versions").begin_object();
  j.kv("nccl", nccl_version_).kv("cuda_runtime", runtime_version_).kv("cuda_driver", driver_version_);
  j.end_object();
  j.kv("mps", mps_).kv("pci_bus_id", pci_bus_id_);
  j.key("gpu_state").begin_object();
  for (const auto* r : {&state_before_, &state_after_}) {
    j.key(r == &state_before_ ? "before" : "after");
    if (r->taken) WriteGpuReading(j, *r);
    else j.null();
  }
  j.end_object();
}

void GpuBackend::ReadDeviceState(const std::string& point) {
  GpuReading r = ReadGpuState(device_, pci_bus_id_);
  if (point == "before") {
    state_before_ = r;
    return;
  }
  const GpuReading first = r;
  for (int i = 0; i < kSettleRereads && ReadAgain(state_before_, r); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(kSettlePauseMs));
    r = ReadGpuState(device_, pci_bus_id_);
    r.reads = i + 2;
    r.first_kernel_ms = first.kernel_ms;
    r.first_copy_ms = first.copy_ms;
  }
  state_after_ = r;
}

std::string GpuBackend::TimingMethod() const {
  return std::string("supervisor cudaEvents on its own stream; ranks released together after every rank's input fill; "
                     "device-flag go/done; ") +
         (mps_ ? "MPS (candidate and supervisor run concurrently)"
               : "time-sliced (no MPS): not comparable with peers (the supervisor's and the candidate's contexts take "
                 "turns on the GPU)");
}

std::vector<protocol::WireBuffer> GpuBackend::Buffers() const {
  std::vector<protocol::WireBuffer> out;
  for (const auto* set : {&inputs_, &outputs_})
    for (const auto& b : *set) {
      protocol::WireBuffer w{};
      std::memcpy(w.name, b.spec.name.c_str(), std::min(b.spec.name.size(), sizeof w.name - 1));
      w.is_output = set == &outputs_;
      w.dtype = static_cast<uint32_t>(b.spec.dtype);
      w.bytes = b.bytes;
      w.registered = b.registered;
      out.push_back(w);
    }
  return out;
}

int64_t GpuBackend::OutputRows() const { return cuco_frozen::output_rows(sizes_, rank_, world_); }

std::vector<int> GpuBackend::ConfigFds() {
  if (flags_fd_ < 0) {
    const std::string e = driver::ExportFd(flags_.handle, &flags_fd_);
    if (!e.empty()) Fail(protocol::kExitSupervisor, "supervisor", "exporting the flags: " + e);
  }
  return {flags_fd_};
}

void GpuBackend::AcceptBuffers(protocol::Received& msg) {
  S_CUDA(cudaSetDevice(device_));
  const size_t want = inputs_.size() + outputs_.size() * static_cast<size_t>(sets_);
  auto bad = [&](const std::string& why) {
    for (int fd : msg.fds) ::close(fd);
    Fail(protocol::kExitProtocol, "protocol", "rank " + std::to_string(rank_) + "'s buffers: " + why);
  };
  if (msg.fds.size() != want)
    bad("expected " + std::to_string(want) + " allocations, got " + std::to_string(msg.fds.size()));
  size_t k = 0;
  auto take = [&](Buf& b) {
    const size_t size = static_cast<size_t>(msg.msg.sizes[k]);
    if (size < b.registered)
      bad("buffer " + b.spec.name + " is shared as " + std::to_string(size) + " bytes, fewer than its " +
          std::to_string(b.registered));
    driver::Shareable s;
    const std::string e = driver::MapImported(device_, msg.fds[k], size, &s);
    if (!e.empty()) bad("buffer " + b.spec.name + ": " + e);
    ::close(msg.fds[k]);
    msg.fds[k] = -1;
    ++k;
    return s;
  };
  for (auto& b : inputs_) b.shared[0] = take(b);
  for (int set = 0; set < sets_; ++set)
    for (auto& b : outputs_) b.shared[set] = take(b);
  msg.fds.clear();
  // Distinct allocations: a marker written into each one must come back from each one.
  std::vector<void*> all;
  for (auto& b : inputs_) all.push_back(reinterpret_cast<void*>(b.shared[0].ptr));
  for (int set = 0; set < sets_; ++set)
    for (auto& b : outputs_) all.push_back(reinterpret_cast<void*>(b.shared[set].ptr));
  for (size_t i = 0; i < all.size(); ++i) {
    const uint64_t mark = 0xC0C0A11A5ull ^ (i * 0x9E3779B97F4A7C15ull);
    S_CUDA(cudaMemcpy(all[i], &mark, sizeof mark, cudaMemcpyHostToDevice));
  }
  for (size_t i = 0; i < all.size(); ++i) {
    uint64_t got = 0;
    S_CUDA(cudaMemcpy(&got, all[i], sizeof got, cudaMemcpyDeviceToHost));
    if (got != (0xC0C0A11A5ull ^ (i * 0x9E3779B97F4A7C15ull))) bad("two of the shared buffers are the same memory");
  }
}

cuco::IO GpuBackend::SharedIO(int set) const {
  cuco::IO io;
  for (const auto& b : inputs_)
    io.add(b.spec.name.c_str(), false, cuco::Buffer{reinterpret_cast<void*>(b.shared[0].ptr), b.bytes, nullptr});
  for (const auto& b : outputs_)
    io.add(b.spec.name.c_str(), true, cuco::Buffer{reinterpret_cast<void*>(b.shared[set].ptr), b.bytes, nullptr});
  return io;
}

void GpuBackend::Fill(uint64_t seed, const cuco::IO& io) {
  const cuco::Status s = cuco_frozen::fill_inputs(sizes_, rank_, world_, seed, io, stream_);
  if (!s.ok()) Fail(protocol::kExitSupervisor, "supervisor", std::string("fill_inputs: ") + s.message());
}

double GpuBackend::NullIteration(uint64_t seed) {
  S_CUDA(cudaSetDevice(device_));
  cuco::IO io;
  for (size_t i = 0; i < inputs_.size(); ++i)
    io.add(inputs_[i].spec.name.c_str(), false, cuco::Buffer{cal_inputs_[i], inputs_[i].bytes, nullptr});
  for (size_t i = 0; i < outputs_.size(); ++i)
    io.add(outputs_[i].spec.name.c_str(), true, cuco::Buffer{cal_outputs_[i], outputs_[i].bytes, nullptr});
  const auto go = reinterpret_cast<CUdeviceptr>(cal_flags_);
  start_line_->Enqueue(api_, reinterpret_cast<CUstream>(stream_), rank_, ++round_);  // as Begin
  Fill(seed, io);
  start_line_->Enqueue(api_, reinterpret_cast<CUstream>(stream_), rank_, ++round_);
  S_CUDA(cudaEventRecord(e0_, stream_));
  DrvOk(api_->StreamWriteValue32(reinterpret_cast<CUstream>(stream_), go, ++cal_serial_, CU_STREAM_WRITE_VALUE_DEFAULT),
        "cuStreamWriteValue32");
  DrvOk(api_->StreamWaitValue32(reinterpret_cast<CUstream>(stream_), go, cal_serial_, CU_STREAM_WAIT_VALUE_GEQ),
        "cuStreamWaitValue32");
  for (size_t i = 0; i < outputs_.size(); ++i)
    S_CUDA(cudaMemcpyAsync(snapshot_[i], cal_outputs_[i], outputs_[i].bytes, cudaMemcpyDeviceToDevice, stream_));
  S_CUDA(cudaEventRecord(e1_, stream_));
  S_CUDA(cudaEventSynchronize(e1_));
  float ms = 0;
  S_CUDA(cudaEventElapsedTime(&ms, e0_, e1_));
  return ms;
}

void GpuBackend::Begin(uint64_t seed, int set, int64_t serial) {
  S_CUDA(cudaSetDevice(device_));
  const CUstream s = reinterpret_cast<CUstream>(stream_);
  // The first line: every rank's stream is here before any fills, so when each rank's driver thread
  // got here (it differs by the candidates' answers and the threads' wake-ups) stays out. The
  // second: every rank's inputs are written before any candidate is released, and the window opens
  // there, so no rank times any fill (its own or a slower peer's): the supervisor's writes of large
  // inputs took longer than the iteration they fed, and the calibration subtracting them was off by
  // more than the iteration (stop 52: a 4 MB all-reduce at W=2 timed at the 0.001 ms floor).
  start_line_->Enqueue(api_, s, rank_, ++round_);
  Fill(seed, SharedIO(set));
  start_line_->Enqueue(api_, s, rank_, ++round_);
  S_CUDA(cudaEventRecord(e0_, stream_));
  DrvOk(api_->StreamWriteValue32(s, flags_.ptr + kGoOffset, static_cast<cuuint32_t>(serial), CU_STREAM_WRITE_VALUE_DEFAULT),
        "cuStreamWriteValue32 (GO)");
  DrvOk(api_->StreamWaitValue32(s, flags_.ptr + kDoneOffset, static_cast<cuuint32_t>(serial), CU_STREAM_WAIT_VALUE_GEQ),
        "cuStreamWaitValue32 (DONE)");
  for (size_t i = 0; i < outputs_.size(); ++i)
    S_CUDA(cudaMemcpyAsync(snapshot_[i], reinterpret_cast<void*>(outputs_[i].shared[set].ptr), outputs_[i].bytes,
                           cudaMemcpyDeviceToDevice, stream_));
  S_CUDA(cudaEventRecord(e1_, stream_));
}

double GpuBackend::End(int, int64_t serial, double limit_s) {
  S_CUDA(cudaSetDevice(device_));
  const auto t0 = std::chrono::steady_clock::now();
  for (int polls = 0;; ++polls) {
    const cudaError_t q = cudaEventQuery(e1_);
    if (q == cudaSuccess) break;
    if (q != cudaErrorNotReady) S_CUDA(q);
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > limit_s) {
      Unblock();
      Fail(protocol::kExitHang, "candidate_hang",
           "iteration " + std::to_string(serial) + ": the candidate's DONE flag did not come within " +
               std::to_string(static_cast<int64_t>(std::ceil(limit_s))) +
               " s (--iteration-limit): a hang, e.g. a kernel waiting for a flag or a peer that never comes");
    }
    if (polls > 1000) std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  float ms = 0;
  S_CUDA(cudaEventElapsedTime(&ms, e0_, e1_));
  return ms;
}

void GpuBackend::Unblock() {
  start_line_->Open();  // every rank's waits at the start line pass
  if (api_ == nullptr || flags_.ptr == 0) return;
  cudaSetDevice(device_);
  const CUstream s = reinterpret_cast<CUstream>(rescue_);
  api_->StreamWriteValue32(s, flags_.ptr + kGoOffset, kUnblockValue, CU_STREAM_WRITE_VALUE_DEFAULT);
  api_->StreamWriteValue32(s, flags_.ptr + kDoneOffset, kUnblockValue, CU_STREAM_WRITE_VALUE_DEFAULT);
}

void GpuBackend::Poison(int set, uint64_t seed) {
  S_CUDA(cudaSetDevice(device_));
  for (const auto& b : outputs_) {
    const int64_t n = b.spec.elements;
    if (n <= 0) continue;
    const uint64_t key = cuco_frozen::stream_key(seed, cuco_frozen::kPoisonTensorBase + b.index, rank_);
    poison_kernel<<<Grid(n), 256, 0, stream_>>>(reinterpret_cast<void*>(b.shared[set].ptr), n,
                                                static_cast<int>(cuco_frozen::dtype_bytes(b.spec.dtype)),
                                                cuco_frozen::dtype_is_float(b.spec.dtype) ? 1 : 0, key);
    S_CUDA(cudaGetLastError());
  }
  S_CUDA(cudaStreamSynchronize(stream_));
}

ScanFigures GpuBackend::Scan(const std::vector<const void*>& ptrs, uint64_t seed) {
  ScanFigures f;
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const Buf& b = outputs_[i];
    const int64_t n = b.spec.elements;
    f.elements += n;
    if (n <= 0) continue;
    if (!cuco_frozen::dtype_is_float(b.spec.dtype))  // chance matches of an honest integer output
      f.poison_expected += std::ldexp(static_cast<double>(n), -8 * static_cast<int>(cuco_frozen::dtype_bytes(b.spec.dtype)));
    const uint64_t key = cuco_frozen::stream_key(seed, cuco_frozen::kPoisonTensorBase + b.index, rank_);
    S_CUDA(cudaMemsetAsync(counters_, 0, 2 * sizeof(unsigned long long), stream_));
    scan_kernel<<<Grid(n), 256, 0, stream_>>>(ptrs[i], n, static_cast<int>(cuco_frozen::dtype_bytes(b.spec.dtype)),
                                              static_cast<int>(b.spec.dtype),
                                              cuco_frozen::dtype_is_float(b.spec.dtype) ? 1 : 0, key, counters_);
    S_CUDA(cudaGetLastError());
    unsigned long long h[2] = {0, 0};
    S_CUDA(cudaMemcpyAsync(h, counters_, sizeof h, cudaMemcpyDeviceToHost, stream_));
    S_CUDA(cudaStreamSynchronize(stream_));
    f.poison_left += static_cast<int64_t>(h[0]);
    f.nonfinite += static_cast<int64_t>(h[1]);
  }
  return f;
}

int64_t GpuBackend::ChangedSincePoison(int set, uint64_t seed) {
  S_CUDA(cudaSetDevice(device_));
  std::vector<const void*> ptrs;
  for (const auto& b : outputs_) ptrs.push_back(reinterpret_cast<const void*>(b.shared[set].ptr));
  const ScanFigures f = Scan(ptrs, seed);
  return f.elements - f.poison_left;
}

ScanFigures GpuBackend::ScanSnapshot(uint64_t seed) {
  S_CUDA(cudaSetDevice(device_));
  return Scan(std::vector<const void*>(snapshot_.begin(), snapshot_.end()), seed);
}

CheckFigures GpuBackend::CheckSnapshot(uint64_t seed, const std::vector<int64_t>& rows) {
  S_CUDA(cudaSetDevice(device_));
  cuco::IO io;
  for (size_t i = 0; i < inputs_.size(); ++i)
    io.add(inputs_[i].spec.name.c_str(), false, cuco::Buffer{cal_inputs_[i], inputs_[i].bytes, nullptr});
  for (size_t i = 0; i < outputs_.size(); ++i)
    io.add(outputs_[i].spec.name.c_str(), true, cuco::Buffer{snapshot_[i], outputs_[i].bytes, nullptr});
  cuco_frozen::CheckPlan plan;
  if (!rows.empty()) {
    plan.all_rows = false;
    plan.rows = rows;
  }
  cuco_frozen::CheckResult r;
  const cuco::Status s = cuco_frozen::check(sizes_, rank_, world_, seed, io, plan, stream_, &r);
  if (!s.ok()) Fail(protocol::kExitSupervisor, "supervisor", std::string("check: ") + s.message());
  S_CUDA(cudaDeviceSynchronize());
  CheckFigures f;
  f.rel_l2 = r.rel_l2;
  f.max_abs = r.max_abs;
  f.nonfinite = r.nonfinite;
  f.elements = r.elements_checked;
  f.rows = r.rows_checked;
  f.left_alone = r.left_alone_elements;
  f.own_state_inputs = r.own_state_inputs;
  unordered_outputs_ |= r.unordered_outputs;
  left_alone_ = r.left_alone;
  max_abs_scale_ = r.max_abs_scale > 0 && std::isfinite(r.max_abs_scale) ? r.max_abs_scale : 1;
  return f;
}

void GpuBackend::KeepSnapshot() {
  S_CUDA(cudaSetDevice(device_));
  for (size_t i = 0; i < outputs_.size() && i < kept_.size(); ++i)
    S_CUDA(cudaMemcpyAsync(kept_[i], snapshot_[i], outputs_[i].bytes, cudaMemcpyDeviceToDevice, stream_));
  S_CUDA(cudaStreamSynchronize(stream_));
}

AgreeFigures GpuBackend::AgreeWithKept() {
  S_CUDA(cudaSetDevice(device_));
  // What the program leaves alone holds each run's own poison: the same in both, as the check saw.
  for (const auto& run : left_alone_) {
    if (run.output < 0 || static_cast<size_t>(run.output) >= outputs_.size() ||
        static_cast<size_t>(run.output) >= kept_.size() || run.begin < 0 || run.end < run.begin ||
        run.end > outputs_[static_cast<size_t>(run.output)].spec.elements)
      Fail(protocol::kExitSupervisor, "supervisor", "the reference's check named elements outside its outputs");
    const size_t eb = cuco_frozen::dtype_bytes(outputs_[static_cast<size_t>(run.output)].spec.dtype);
    S_CUDA(cudaMemcpyAsync(static_cast<char*>(snapshot_[static_cast<size_t>(run.output)]) + run.begin * eb,
                           static_cast<const char*>(kept_[static_cast<size_t>(run.output)]) + run.begin * eb,
                           static_cast<size_t>(run.end - run.begin) * eb, cudaMemcpyDeviceToDevice, stream_));
  }
  AgreeFigures a;
  for (size_t i = 0; i < outputs_.size() && i < kept_.size(); ++i) {
    const Buf& b = outputs_[i];
    const int64_t n = b.spec.elements;
    a.elements += n;
    if (n <= 0) continue;
    if (i < 64 && (unordered_outputs_ >> i & 1)) {  // compared without its order (agree_unordered.h)
      const size_t bytes = static_cast<size_t>(n) * cuco_frozen::dtype_bytes(b.spec.dtype);
      std::vector<unsigned char> x(bytes), y(bytes);
      S_CUDA(cudaMemcpy(x.data(), kept_[i], bytes, cudaMemcpyDeviceToHost));
      S_CUDA(cudaMemcpy(y.data(), snapshot_[i], bytes, cudaMemcpyDeviceToHost));
      const AgreeFigures u = AgreeUnordered(x, y, b.spec.dtype);
      a.max_abs = std::max(a.max_abs, u.max_abs);
      a.mismatches += u.mismatches;
      continue;
    }
    S_CUDA(cudaMemsetAsync(counters_, 0, 2 * sizeof(unsigned long long), stream_));
    agree_kernel<<<Grid(n), 256, 0, stream_>>>(kept_[i], snapshot_[i], n,
                                               static_cast<int>(cuco_frozen::dtype_bytes(b.spec.dtype)),
                                               static_cast<int>(b.spec.dtype), counters_);
    S_CUDA(cudaGetLastError());
    unsigned long long h[2] = {0, 0};
    S_CUDA(cudaMemcpyAsync(h, counters_, sizeof h, cudaMemcpyDeviceToHost, stream_));
    S_CUDA(cudaStreamSynchronize(stream_));
    double m = 0;
    std::memcpy(&m, &h[0], sizeof m);
    a.max_abs = std::max(a.max_abs, m);
    a.mismatches += static_cast<int64_t>(h[1]);
  }
  a.max_abs /= max_abs_scale_;  // on the check's scale (CheckResult::max_abs_scale)
  return a;
}

}  // namespace cuco::supervisor
