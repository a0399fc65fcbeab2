// cuco/program/impl/rank_barrier.h: a barrier for the reference's rank threads that gives up after
// a time limit (a program whose ranks call different collectives would otherwise wait forever).
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace cuco_program::ref {

class RankBarrier {
 public:
  void Reset(int parties) {
    std::lock_guard<std::mutex> lock(mu_);
    parties_ = parties;
    waiting_ = 0;
  }
  // False when the others did not come within limit_s, or when the barrier was broken.
  bool ArriveAndWait(double limit_s) {
    std::unique_lock<std::mutex> lock(mu_);
    if (broken_) return false;
    const long gen = generation_;
    if (++waiting_ == parties_) {
      waiting_ = 0;
      ++generation_;
      cv_.notify_all();
      return true;
    }
    const bool came = cv_.wait_for(lock, std::chrono::duration<double>(limit_s),
                                   [&] { return generation_ != gen || broken_; });
    if (!came || broken_) {
      broken_ = true;
      cv_.notify_all();
      return false;
    }
    return true;
  }

  // Mended after a failed run of every rank, none of them waiting: waits count again.
  void Mend() {
    std::lock_guard<std::mutex> lock(mu_);
    broken_ = false;
    waiting_ = 0;
    ++generation_;
  }

  // Every wait, now and later, returns false (a rank failed: the others must not wait for it).
  void Break() {
    std::lock_guard<std::mutex> lock(mu_);
    broken_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int parties_ = 1, waiting_ = 0;
  long generation_ = 0;
  bool broken_ = false;
};

}  // namespace cuco_program::ref
