// The CPU supervisor: main() and the CPU backend for CPU workloads (cuco's own tests of its
// evaluator without a GPU). Frozen; built from this file, the supervisor library and the workload's
// reference only. Buffers are memfds the supervisor creates, seals against resizing and shares with
// the candidate; the window is timed with the supervisor's own steady clock around: fresh inputs,
// the go message, the candidate's done message, the copy of the outputs into private memory.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>

#include "cuco/cpu_harness.h"
#include "supervisor/supervisor.h"

namespace cuco::supervisor {
namespace {

using cuco::cpu::Buffer;
using cuco::cpu::IO;
using cuco::cpu::Role;

constexpr uint64_t kPoisonStream = 0xB0150Full;

// A NaN with random sign and payload: no finite output (the only kind that passes) ever equals
// its poison, so an element still holding it was not written, whatever the values (CPU outputs
// are float32).
uint32_t PoisonWord(uint64_t seed, uint64_t buffer, uint64_t i) {
  const double u = cuco_frozen::cpu::uniform(seed, kPoisonStream + buffer, 0, i);
  uint32_t w = (static_cast<uint32_t>(static_cast<int64_t>(u * 2147483647.0)) ^ 0x5A5A5A5Au);
  w = (w & 0x807FFFFFu) | 0x7F800000u;
  return (w & 0x007FFFFFu) != 0 ? w : w | 1u;
}

struct Shared {
  std::string name;
  size_t bytes = 0, mapped = 0;
  int fd = -1;
  void* ptr = nullptr;
};

class CpuBackend : public RankBackend {
 public:
  explicit CpuBackend(const Args& args) : args_(args), sizes_(args.sizes) {}
  ~CpuBackend() override {
    for (auto* set : {&inputs_, &outputs_[0], &outputs_[1]})
      for (auto& b : *set) {
        if (b.ptr) ::munmap(b.ptr, b.mapped);
        if (b.fd >= 0) ::close(b.fd);
      }
  }

  void Init(int rank, int world, int output_sets) override {
    rank_ = rank;
    world_ = world;
    sets_ = output_sets;
    specs_ = cuco_frozen::cpu::workload_buffers(sizes_, rank, world);
    for (const auto& s : specs_) {
      if (s.role == Role::kInput) inputs_.push_back(Make(s));
      else
        for (int set = 0; set < sets_; ++set) outputs_[set].push_back(Make(s));
    }
    if (outputs_[0].empty()) Fail(protocol::kExitSupervisor, "supervisor", "the workload declares no output buffer");
    for (const auto& b : outputs_[0]) snapshot_.emplace_back(b.bytes);
    rows_ = cuco_frozen::cpu::workload_rows(sizes_, rank, world);
  }
  std::string DeviceName() const override { return "cpu"; }
  void DescribeDevice(Json&) const override {}
  std::string TimingMethod() const override { return "supervisor steady_clock; socket go/done; memfd buffers"; }
  std::vector<protocol::WireBuffer> Buffers() const override {
    std::vector<protocol::WireBuffer> out;
    for (const auto* set : {&inputs_, &outputs_[0]})
      for (const auto& b : *set) {
        protocol::WireBuffer w{};
        std::memcpy(w.name, b.name.c_str(), std::min(b.name.size(), sizeof w.name - 1));
        w.is_output = set != &inputs_;
        w.bytes = w.registered = b.bytes;
        out.push_back(w);
      }
    return out;
  }
  int64_t OutputRows() const override { return rows_; }
  std::vector<int> ConfigFds() override {
    std::vector<int> fds;
    for (const auto& b : inputs_) fds.push_back(b.fd);
    for (int set = 0; set < sets_; ++set)
      for (const auto& b : outputs_[set]) fds.push_back(b.fd);
    return fds;
  }
  bool WantsCommId() const override { return false; }
  bool WantsBuffers() const override { return false; }
  void AcceptBuffers(protocol::Received&) override {}

  double NullIteration(uint64_t seed) override {
    Begin(seed, 0, 0);
    return End(0, 0, 0);
  }
  void Begin(uint64_t seed, int, int64_t) override {
    t0_ = std::chrono::steady_clock::now();
    cuco_frozen::cpu::workload_fill_inputs(sizes_, rank_, world_, seed, MakeIO(0));
  }
  double End(int set, int64_t, double) override {
    for (size_t i = 0; i < outputs_[set].size(); ++i)
      std::memcpy(snapshot_[i].data(), outputs_[set][i].ptr, outputs_[set][i].bytes);
    const auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::milli>(t1 - t0_).count();
  }
  void Unblock() override {}

  void Poison(int set, uint64_t seed) override {
    for (size_t i = 0; i < outputs_[set].size(); ++i) {
      auto* w = static_cast<uint32_t*>(outputs_[set][i].ptr);
      for (size_t k = 0; k < outputs_[set][i].bytes / 4; ++k) w[k] = PoisonWord(seed, i, k);
    }
  }
  int64_t ChangedSincePoison(int set, uint64_t seed) override {
    int64_t changed = 0;
    for (size_t i = 0; i < outputs_[set].size(); ++i) {
      const auto* w = static_cast<const uint32_t*>(outputs_[set][i].ptr);
      for (size_t k = 0; k < outputs_[set][i].bytes / 4; ++k) changed += w[k] != PoisonWord(seed, i, k);
    }
    return changed;
  }
  ScanFigures ScanSnapshot(uint64_t seed) override {
    ScanFigures f;
    for (size_t i = 0; i < snapshot_.size(); ++i) {
      const auto* w = reinterpret_cast<const uint32_t*>(snapshot_[i].data());
      const size_t words = snapshot_[i].size() / 4;
      f.elements += static_cast<int64_t>(words);
      for (size_t k = 0; k < words; ++k) {
        const bool poisoned = w[k] == PoisonWord(seed, i, k);
        f.poison_left += poisoned;
        float x;
        std::memcpy(&x, &w[k], sizeof x);
        f.nonfinite += !poisoned && !std::isfinite(x);
      }
    }
    return f;
  }
  CheckFigures CheckSnapshot(uint64_t seed, const std::vector<int64_t>& rows) override {
    IO io = MakeIO(0);
    for (size_t i = 0; i < outputs_[0].size(); ++i) io.outputs[outputs_[0][i].name].ptr = snapshot_[i].data();
    const auto r = cuco_frozen::cpu::workload_check(sizes_, rank_, world_, seed, io, rows);
    CheckFigures f;
    f.rel_l2 = r.rel_l2;
    f.max_abs = r.max_abs;
    f.nonfinite = r.nonfinite;
    f.elements = r.elements;
    f.rows = rows.empty() ? rows_ : static_cast<int64_t>(rows.size());
    return f;
  }
  void KeepSnapshot() override { kept_ = snapshot_; }
  AgreeFigures AgreeWithKept() override {
    AgreeFigures a;
    for (size_t i = 0; i < snapshot_.size() && i < kept_.size(); ++i) {
      const auto* x = reinterpret_cast<const float*>(kept_[i].data());
      const auto* y = reinterpret_cast<const float*>(snapshot_[i].data());
      for (size_t k = 0; k < snapshot_[i].size() / 4; ++k) {
        ++a.elements;
        if (std::memcmp(&x[k], &y[k], 4) == 0) continue;
        ++a.mismatches;
        const double d = std::fabs(static_cast<double>(x[k]) - y[k]);
        a.max_abs = std::isfinite(d) ? std::max(a.max_abs, d) : INFINITY;
      }
    }
    return a;
  }

 private:
  Shared Make(const cuco::cpu::BufferSpec& s) {
    Shared b;
    b.name = s.name;
    b.bytes = s.bytes;
    const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    b.mapped = std::max<size_t>(1, (s.bytes + page - 1) / page) * page;
    b.fd = ::memfd_create(("cuco-" + s.name).c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (b.fd < 0 || ::ftruncate(b.fd, static_cast<off_t>(b.mapped)) != 0 ||
        // The candidate maps these too: it must not be able to shrink one under the supervisor.
        ::fcntl(b.fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
      Fail(protocol::kExitSupervisor, "supervisor", "memfd for buffer " + s.name + ": " + std::strerror(errno));
    b.ptr = ::mmap(nullptr, b.mapped, PROT_READ | PROT_WRITE, MAP_SHARED, b.fd, 0);
    if (b.ptr == MAP_FAILED) Fail(protocol::kExitSupervisor, "supervisor", "mmap of buffer " + s.name + ": " + std::strerror(errno));
    std::memset(b.ptr, 0, b.mapped);
    return b;
  }
  IO MakeIO(int set) const {
    IO io;
    for (const auto& b : inputs_) io.inputs[b.name] = Buffer{b.ptr, b.bytes};
    for (const auto& b : outputs_[set]) io.outputs[b.name] = Buffer{b.ptr, b.bytes};
    return io;
  }

  const Args& args_;
  cuco::cpu::Sizes sizes_;
  int rank_ = 0, world_ = 1, sets_ = 1;
  int64_t rows_ = 0;
  std::vector<cuco::cpu::BufferSpec> specs_;
  std::vector<Shared> inputs_, outputs_[protocol::kMaxOutputSets];
  std::vector<std::vector<char>> snapshot_, kept_;
  std::chrono::steady_clock::time_point t0_;
};

}  // namespace
}  // namespace cuco::supervisor

int main(int argc, char** argv) {
  using namespace cuco::supervisor;
  const std::string nonce = TakeNonce();
  Args args;
  std::string error;
  if (!ParseArgs(argc, argv, &args, &error)) {
    Log("usage error: %s", error.c_str());
    return cuco::protocol::kExitUsage;
  }
  SupervisorIdentity id{"cuco-supervisor-cpu/1", args.workload, nonce};
  return RunSupervisor(args, id, [&] { return std::make_unique<CpuBackend>(args); });
}
