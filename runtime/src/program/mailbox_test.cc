#include <cuco/program/impl/mailbox.h>

#include <gtest/gtest.h>

#include <thread>

namespace cuco_program::ref {
namespace {

// Messages between two ranks arrive in the order sent; a receive posted before its send waits for it.
TEST(Mailbox, MessagesArriveInTheOrderSentAndAReceiveWaitsForItsSend) {
  Mailbox m;
  const int a = 1, b = 2;
  m.Send(0, 1, 5, &a, sizeof a);
  m.Send(0, 1, 6, &b, sizeof b);
  int got = 0;
  EXPECT_EQ(m.Receive(0, 1, 5, &got, sizeof got, 1), "");
  EXPECT_EQ(got, 1);
  EXPECT_EQ(m.Receive(0, 1, -1, &got, sizeof got, 1), "");  // any tag
  EXPECT_EQ(got, 2);
  std::thread late([&] { m.Send(1, 0, 0, &b, sizeof b); });
  EXPECT_EQ(m.Receive(1, 0, 0, &got, sizeof got, 10), "");
  late.join();
}

// What cuco's candidate (NCCL, by order) would pair otherwise than MPI is refused, naming both.
TEST(Mailbox, ATagOutOfOrderOrAnotherSizeIsRefusedSayingWhy) {
  Mailbox m;
  const double x = 1;
  m.Send(0, 1, 1, &x, sizeof x);
  double y = 0;
  const std::string tag = m.Receive(0, 1, 2, &y, sizeof y, 1);
  EXPECT_NE(tag.find("rank 1 receives from rank 0 with tag 2, where the first message it has not received has tag 1"),
            std::string::npos)
      << tag;
  float small = 0;
  const std::string size = m.Receive(0, 1, 1, &small, sizeof small, 1);
  EXPECT_NE(size.find("4 bytes, where the message sent has 8"), std::string::npos) << size;
}

// No message within the limit, or a broken mailbox (a rank failed), ends the wait with why.
TEST(Mailbox, AWaitEndsAtItsLimitOrWhenBroken) {
  Mailbox m;
  int v = 0;
  EXPECT_NE(m.Receive(3, 0, 0, &v, sizeof v, 0.05).find("sent it nothing more within"), std::string::npos);
  std::thread breaker([&] { m.Break(); });
  EXPECT_EQ(m.Receive(3, 0, 0, &v, sizeof v, 10), "another rank failed");
  breaker.join();
  m.Reset();
  m.Send(3, 0, 0, &v, sizeof v);
  EXPECT_EQ(m.Receive(3, 0, 0, &v, sizeof v, 1), "");
}

}  // namespace
}  // namespace cuco_program::ref
