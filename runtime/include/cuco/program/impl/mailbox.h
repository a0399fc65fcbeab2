// cuco/program/impl/mailbox.h: MPI's point-to-point messages between the reference's rank threads
// (program.h's p2p_send and p2p_receive on the reference side). A send never waits: its bytes join
// the queue from its rank to the receiver. A receive takes the first message of the queue from its
// source, which must have its tag (or any, MPI_ANY_TAG: -1) and its size: cuco's candidate matches
// messages between two ranks by their order alone, over NCCL, so a receive that MPI would pair with
// a later message (by its tag), or of another size, is refused here, naming both. Plain C++:
// runtime_test tests it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace cuco_program::ref {

class Mailbox {
 public:
  // Empties every queue and mends a broken mailbox (a new run of every rank).
  void Reset() {
    std::lock_guard<std::mutex> lock(mu_);
    queues_.clear();
    broken_ = false;
  }
  void Send(int from, int to, int tag, const void* data, size_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    const unsigned char* p = static_cast<const unsigned char*>(data);
    queues_[{from, to}].push_back({tag, std::vector<unsigned char>(p, p + bytes)});
    cv_.notify_all();
  }
  // "" once `to` has the next message from `from` in `data` (`bytes`); else why not: its tag or
  // size differ, no message came within limit_s, or the mailbox was broken.
  std::string Receive(int from, int to, int tag, void* data, size_t bytes, double limit_s) {
    std::unique_lock<std::mutex> lock(mu_);
    std::deque<Message>& q = queues_[{from, to}];
    const bool came = cv_.wait_for(lock, std::chrono::duration<double>(limit_s), [&] { return !q.empty() || broken_; });
    if (broken_) return "another rank failed";
    const std::string pair = "rank " + std::to_string(to) + " receives from rank " + std::to_string(from);
    if (!came)
      return pair + ", which sent it nothing more within " + std::to_string(static_cast<int>(limit_s)) + " s";
    const Message& m = q.front();
    if (tag != -1 && m.tag != tag)
      return pair + " with tag " + std::to_string(tag) + ", where the first message it has not received has tag " +
             std::to_string(m.tag) + ": cuco's MPI pairs the messages between two ranks in the order they are sent";
    if (m.bytes.size() != bytes)
      return pair + " " + std::to_string(bytes) + " bytes, where the message sent has " + std::to_string(m.bytes.size()) +
             ": cuco's MPI receives each message whole, into a buffer of its size";
    if (bytes > 0) std::memcpy(data, m.bytes.data(), bytes);
    q.pop_front();
    return "";
  }
  // Every receive, now and later, fails (a rank failed: the others must not wait for it).
  void Break() {
    std::lock_guard<std::mutex> lock(mu_);
    broken_ = true;
    cv_.notify_all();
  }

 private:
  struct Message {
    int tag;
    std::vector<unsigned char> bytes;
  };
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::pair<int, int>, std::deque<Message>> queues_;  // (from, to) -> in the order sent
  bool broken_ = false;
};

}  // namespace cuco_program::ref
