#include "launch/gpu_pool.h"

#include <algorithm>

namespace cuco {

GpuLease::GpuLease(GpuLease&& other) noexcept : pool_(other.pool_), gpus_(std::move(other.gpus_)) {
  other.pool_ = nullptr;
  other.gpus_.clear();
}

GpuLease& GpuLease::operator=(GpuLease&& other) noexcept {
  if (this != &other) {
    Release();
    pool_ = other.pool_;
    gpus_ = std::move(other.gpus_);
    other.pool_ = nullptr;
    other.gpus_.clear();
  }
  return *this;
}

void GpuLease::Release() {
  if (pool_ != nullptr && !gpus_.empty()) pool_->Return(gpus_);
  pool_ = nullptr;
  gpus_.clear();
}

GpuPool::GpuPool(std::vector<int> gpus) : all_(gpus.begin(), gpus.end()), free_(all_) {}

std::vector<int> GpuPool::TakeLocked(int n) {
  std::vector<int> taken;
  auto it = free_.begin();
  for (int i = 0; i < n; ++i) taken.push_back(*it++);
  free_.erase(free_.begin(), it);
  return taken;
}

std::optional<GpuLease> GpuPool::TryAcquire(int n) {
  std::lock_guard<std::mutex> lock(mu_);
  if (n < 1 || !queue_.empty() || static_cast<int>(free_.size()) < n) return std::nullopt;
  return GpuLease(this, TakeLocked(n));
}

Result<GpuLease> GpuPool::Acquire(int n) {
  std::unique_lock<std::mutex> lock(mu_);
  if (n < 1) return Status::InvalidArgument("GPU request for " + std::to_string(n) + " GPUs");
  auto too_big = [&] {
    return Status::Unavailable("GPU request for " + std::to_string(n) + " GPUs, but the pool has " +
                               std::to_string(HealthyLocked()) + " healthy (" + std::to_string(quarantined_.size()) +
                               " quarantined)");
  };
  if (n > HealthyLocked()) return too_big();
  auto me = queue_.insert(queue_.end(), n);
  cv_.wait(lock, [&] {
    return n > HealthyLocked() || (queue_.begin() == me && static_cast<int>(free_.size()) >= n);
  });
  queue_.erase(me);
  cv_.notify_all();  // the next in line may be able to go now
  if (n > HealthyLocked()) return too_big();
  return GpuLease(this, TakeLocked(n));
}

void GpuPool::Return(const std::vector<int>& gpus) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int g : gpus) {
      if (quarantined_.count(g) == 0) free_.insert(g);
    }
  }
  cv_.notify_all();
}

Status GpuPool::Quarantine(int gpu, std::string why) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (all_.count(gpu) == 0) return Status::NotFound("GPU " + std::to_string(gpu) + " is not in the pool");
    quarantined_.emplace(gpu, std::move(why));
    free_.erase(gpu);
  }
  cv_.notify_all();  // waiters that can never be served now must fail
  return Status::Ok();
}

std::map<int, std::string> GpuPool::Quarantined() const {
  std::lock_guard<std::mutex> lock(mu_);
  return quarantined_;
}

int GpuPool::Healthy() const {
  std::lock_guard<std::mutex> lock(mu_);
  return HealthyLocked();
}

int GpuPool::Free() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(free_.size());
}

}  // namespace cuco
