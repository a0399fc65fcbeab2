#include "launch/gpu_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <random>
#include <thread>

namespace cuco {
namespace {

using namespace std::chrono_literals;

TEST(GpuPool, LeasesAreDisjointAndReturned) {
  GpuPool pool({3, 1, 2, 0, 2});
  EXPECT_EQ(pool.Healthy(), 4);
  std::optional<GpuLease> a = pool.TryAcquire(3);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->gpus(), (std::vector<int>{0, 1, 2}));
  EXPECT_FALSE(pool.TryAcquire(2).has_value());
  std::optional<GpuLease> b = pool.TryAcquire(1);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->gpus(), (std::vector<int>{3}));
  EXPECT_EQ(pool.Free(), 0);
  a.reset();
  EXPECT_EQ(pool.Free(), 3);
  GpuLease moved = std::move(*b);
  EXPECT_TRUE(b->empty());
  b.reset();  // the moved-from lease gives nothing back
  EXPECT_EQ(pool.Free(), 3);
  moved.Release();
  EXPECT_EQ(pool.Free(), 4);
  EXPECT_FALSE(pool.TryAcquire(0).has_value());
}

TEST(GpuPool, ConcurrentLeasesNeverShareAGpu) {
  constexpr int kGpus = 8;
  GpuPool pool({0, 1, 2, 3, 4, 5, 6, 7});
  std::atomic<int> users[kGpus] = {};
  std::atomic<int> overlaps{0}, granted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      for (int i = 0; i < 150; ++i) {
        int n = 1 + static_cast<int>(rng() % 4);
        std::optional<GpuLease> lease;
        if (i % 3 == 0) {
          lease = pool.TryAcquire(n);
          if (!lease) continue;
        } else {
          Result<GpuLease> r = pool.Acquire(n);
          ASSERT_TRUE(r.ok());
          lease = std::move(r).value();
        }
        ASSERT_EQ(static_cast<int>(lease->gpus().size()), n);
        for (int g : lease->gpus()) {
          if (users[g].fetch_add(1) != 0) ++overlaps;
        }
        std::this_thread::yield();
        for (int g : lease->gpus()) users[g].fetch_sub(1);
        ++granted;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(overlaps.load(), 0);
  EXPECT_GT(granted.load(), 800);
  EXPECT_EQ(pool.Free(), kGpus);
}

TEST(GpuPool, BlockingAcquireWakesOnRelease) {
  GpuPool pool({0, 1});
  std::optional<GpuLease> held = pool.TryAcquire(2);
  ASSERT_TRUE(held.has_value());
  auto waiter = std::async(std::launch::async, [&] { return pool.Acquire(1); });
  EXPECT_EQ(waiter.wait_for(100ms), std::future_status::timeout);
  EXPECT_FALSE(pool.TryAcquire(1).has_value());
  held.reset();
  ASSERT_EQ(waiter.wait_for(5s), std::future_status::ready);
  Result<GpuLease> got = waiter.get();
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->gpus(), (std::vector<int>{0}));
}

// A queued big request is served before later small ones.
TEST(GpuPool, WaitersAreServedInOrder) {
  GpuPool pool({0, 1, 2});
  std::optional<GpuLease> held = pool.TryAcquire(2);
  auto big = std::async(std::launch::async, [&] { return pool.Acquire(3); });
  std::this_thread::sleep_for(50ms);
  auto small = std::async(std::launch::async, [&] { return pool.Acquire(1); });
  EXPECT_EQ(small.wait_for(100ms), std::future_status::timeout);  // one GPU is free, but big is first
  held.reset();
  ASSERT_EQ(big.wait_for(5s), std::future_status::ready);
  Result<GpuLease> b = big.get();
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(small.wait_for(100ms), std::future_status::timeout);
  b->Release();
  ASSERT_EQ(small.wait_for(5s), std::future_status::ready);
  EXPECT_TRUE(small.get().ok());
}

TEST(GpuPool, QuarantineIsHonoured) {
  GpuPool pool({0, 1, 2, 3});
  std::optional<GpuLease> lease = pool.TryAcquire(2);  // 0, 1
  ASSERT_TRUE(lease.has_value());
  EXPECT_TRUE(pool.Quarantine(1, "ECC errors").ok());  // leased: leaves when given back
  EXPECT_TRUE(pool.Quarantine(3, "hung kernel").ok());  // free: leaves now
  EXPECT_TRUE(pool.Quarantine(3, "again").ok());
  EXPECT_EQ(pool.Quarantine(9, "x").code(), Status::Code::kNotFound);
  EXPECT_EQ(pool.Quarantined(), (std::map<int, std::string>{{1, "ECC errors"}, {3, "hung kernel"}}));
  EXPECT_EQ(pool.Healthy(), 2);
  EXPECT_EQ(pool.Free(), 1);
  lease.reset();
  EXPECT_EQ(pool.Free(), 2);
  for (int i = 0; i < 3; ++i) {
    std::optional<GpuLease> l = pool.TryAcquire(2);
    ASSERT_TRUE(l.has_value());
    EXPECT_EQ(l->gpus(), (std::vector<int>{0, 2}));
  }
}

TEST(GpuPool, OversizeRequestsFail) {
  GpuPool pool({0, 1, 2});
  Result<GpuLease> r = pool.Acquire(4);
  EXPECT_EQ(r.status().code(), Status::Code::kUnavailable);
  EXPECT_EQ(pool.Acquire(0).status().code(), Status::Code::kInvalidArgument);
  EXPECT_FALSE(pool.TryAcquire(4).has_value());
  ASSERT_TRUE(pool.Quarantine(2, "bad").ok());
  EXPECT_EQ(pool.Acquire(3).status().code(), Status::Code::kUnavailable);
}

// A waiter whose request can no longer be met after a quarantine fails instead of blocking.
TEST(GpuPool, QuarantineWakesHopelessWaiters) {
  GpuPool pool({0, 1});
  std::optional<GpuLease> held = pool.TryAcquire(1);
  auto waiter = std::async(std::launch::async, [&] { return pool.Acquire(2); });
  EXPECT_EQ(waiter.wait_for(100ms), std::future_status::timeout);
  ASSERT_TRUE(pool.Quarantine(1, "bad").ok());
  ASSERT_EQ(waiter.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(waiter.get().status().code(), Status::Code::kUnavailable);
}

}  // namespace
}  // namespace cuco
