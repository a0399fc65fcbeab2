// GpuPool hands out disjoint sets of GPU ids to concurrent jobs. Thread-safe. Two live leases
// never share a GPU; a GPU that failed a health check can be quarantined and is never handed out
// again.
#pragma once

#include <condition_variable>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "util/status.h"

namespace cuco {

class GpuPool;

// GPUs held from a pool; given back when the lease is destroyed or Release()d. Must not outlive
// its pool. Move-only.
class GpuLease {
 public:
  GpuLease() = default;  // holds nothing
  GpuLease(GpuLease&& other) noexcept;
  GpuLease& operator=(GpuLease&& other) noexcept;
  GpuLease(const GpuLease&) = delete;
  GpuLease& operator=(const GpuLease&) = delete;
  ~GpuLease() { Release(); }

  // Ascending ids.
  const std::vector<int>& gpus() const { return gpus_; }
  bool empty() const { return gpus_.empty(); }
  // Gives the GPUs back now.
  void Release();

 private:
  friend class GpuPool;
  GpuLease(GpuPool* pool, std::vector<int> gpus) : pool_(pool), gpus_(std::move(gpus)) {}
  GpuPool* pool_ = nullptr;
  std::vector<int> gpus_;
};

class GpuPool {
 public:
  // Repeated ids count once.
  explicit GpuPool(std::vector<int> gpus);
  GpuPool(const GpuPool&) = delete;
  GpuPool& operator=(const GpuPool&) = delete;

  // n GPUs if they are free now and nobody is queued in Acquire; nullopt otherwise (also when
  // n < 1 or n exceeds the healthy GPUs).
  std::optional<GpuLease> TryAcquire(int n);
  // Blocks until n GPUs are free; waiters are served first come, first served (a large request
  // is not starved by small ones). InvalidArgument if n < 1; Unavailable if n exceeds the healthy
  // GPUs, now or because of a quarantine while waiting.
  Result<GpuLease> Acquire(int n);

  // Takes `gpu` out of service for good: a free one at once, a leased one when it is given back.
  // NotFound if the pool never had it; quarantining twice keeps the first reason.
  Status Quarantine(int gpu, std::string why);
  // gpu -> why.
  std::map<int, std::string> Quarantined() const;

  int Healthy() const;  // GPUs not quarantined
  int Free() const;     // healthy GPUs not leased

 private:
  friend class GpuLease;
  void Return(const std::vector<int>& gpus);
  std::vector<int> TakeLocked(int n);  // the n lowest free ids; caller checked there are enough
  int HealthyLocked() const { return static_cast<int>(all_.size() - quarantined_.size()); }

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::set<int> all_;
  std::set<int> free_;  // healthy and not leased
  std::map<int, std::string> quarantined_;
  std::list<int> queue_;  // one entry (the request size) per blocked Acquire, oldest first
};

}  // namespace cuco
