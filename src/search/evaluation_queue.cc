#include "search/evaluation_queue.h"

#include <algorithm>
#include <chrono>

namespace cuco {

void EvaluationQueue::Start() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    shutting_down_ = false;
  }
  for (int i = 0; i < std::max(1, workers_); ++i) threads_.emplace_back([this] { WorkerLoop(); });
}

void EvaluationQueue::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    shutting_down_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

void EvaluationQueue::Push(int64_t id) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(id);
    ++in_flight_;
  }
  cv_.notify_all();
}

void EvaluationQueue::WorkerLoop() {
  while (true) {
    int64_t id = 0;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return shutting_down_ || !queue_.empty(); });
      if (queue_.empty()) return;
      id = queue_.front();
      queue_.pop_front();
    }
    work_(id);
    {
      std::lock_guard<std::mutex> lock(mu_);
      --in_flight_;
      ++done_;
      finished_.push_back(id);
    }
    cv_.notify_all();
  }
}

std::vector<int64_t> EvaluationQueue::WaitForFinished(int max_in_flight, bool* settled) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, std::chrono::seconds(1), [&] { return !finished_.empty() || in_flight_ <= max_in_flight; });
  std::vector<int64_t> done(finished_.begin(), finished_.end());
  finished_.clear();
  *settled = in_flight_ <= max_in_flight;
  return done;
}

int EvaluationQueue::in_flight() const {
  std::lock_guard<std::mutex> lock(mu_);
  return in_flight_;
}

int64_t EvaluationQueue::done() const {
  std::lock_guard<std::mutex> lock(mu_);
  return done_;
}

}  // namespace cuco
