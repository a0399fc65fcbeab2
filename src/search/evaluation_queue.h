// EvaluationQueue: the search's pool of evaluation workers. Push() queues a candidate id; a worker
// runs `work(id)` (on its own thread; `work` does its own locking) and then reports the id as
// finished. The thread that pushes collects the finished ids with WaitForFinished(), so proposer
// feedback and progress stay on that thread.
//
// An id counts as in flight from Push() until its work has returned. Stop() lets the workers
// finish the queue, then joins them (the destructor stops too).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace cuco {

class EvaluationQueue {
 public:
  EvaluationQueue(int workers, std::function<void(int64_t id)> work) : workers_(workers), work_(std::move(work)) {}
  ~EvaluationQueue() { Stop(); }

  void Start();
  void Stop();
  void Push(int64_t id);
  // Waits (at most a second) until an evaluation finishes or at most `max_in_flight` remain;
  // returns the ids finished since the last call and sets `*settled` when at most
  // `max_in_flight` are in flight.
  std::vector<int64_t> WaitForFinished(int max_in_flight, bool* settled);
  int in_flight() const;
  int64_t done() const;  // evaluations finished since Start()

 private:
  void WorkerLoop();

  const int workers_;
  std::function<void(int64_t)> work_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<int64_t> queue_;
  std::deque<int64_t> finished_;
  int in_flight_ = 0;
  int64_t done_ = 0;
  bool shutting_down_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace cuco
