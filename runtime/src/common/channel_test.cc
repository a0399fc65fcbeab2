#include "common/channel.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include <gtest/gtest.h>

namespace cuco::protocol {
namespace {

struct Pair {
  int a = -1, b = -1;
  Pair() {
    int sv[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
    a = sv[0];
    b = sv[1];
  }
  ~Pair() {
    if (a >= 0) ::close(a);
    if (b >= 0) ::close(b);
  }
};

TEST(Channel, RoundTripWithPayloadAndFds) {
  Pair p;
  int pipefd[2];
  ASSERT_EQ(::pipe(pipefd), 0);
  const char payload[] = "communicator id";
  ASSERT_EQ(SendMessage(p.a, MakeMessage(MsgType::kNcclId, 7, 9, "hello"), payload, sizeof payload, {pipefd[1]}), "");
  Received got;
  std::string err;
  ASSERT_EQ(RecvMessage(p.b, 1000, &got, &err), RecvStatus::kOk) << err;
  EXPECT_EQ(got.msg.type, static_cast<uint32_t>(MsgType::kNcclId));
  EXPECT_EQ(got.msg.a, 7);
  EXPECT_EQ(got.msg.b, 9);
  EXPECT_EQ(TextOf(got.msg), "hello");
  ASSERT_EQ(got.payload.size(), sizeof payload);
  EXPECT_EQ(std::memcmp(got.payload.data(), payload, sizeof payload), 0);
  ASSERT_EQ(got.fds.size(), 1u);
  // The received fd is the pipe's write end: what goes in comes out of the read end.
  ASSERT_EQ(::write(got.fds[0], "x", 1), 1);
  char c = 0;
  ASSERT_EQ(::read(pipefd[0], &c, 1), 1);
  EXPECT_EQ(c, 'x');
  EXPECT_NE(::fcntl(got.fds[0], F_GETFD) & FD_CLOEXEC, 0);  // received close-on-exec
  for (int fd : {pipefd[0], pipefd[1], got.fds[0]}) ::close(fd);
}

TEST(Channel, TimeoutAndClose) {
  Pair p;
  Received got;
  std::string err;
  EXPECT_EQ(RecvMessage(p.b, 20, &got, &err), RecvStatus::kTimeout);
  ::close(p.a);
  p.a = -1;
  EXPECT_EQ(RecvMessage(p.b, 1000, &got, &err), RecvStatus::kClosed);
}

TEST(Channel, RejectsMalformedDatagrams) {
  Pair p;
  Received got;
  std::string err;
  // Shorter than a header.
  ASSERT_EQ(::send(p.a, "short", 5, 0), 5);
  EXPECT_EQ(RecvMessage(p.b, 1000, &got, &err), RecvStatus::kBad);
  EXPECT_NE(err.find("shorter"), std::string::npos) << err;
  // Wrong magic.
  Message m = MakeMessage(MsgType::kHello);
  m.magic = 0xdeadbeef;
  ASSERT_EQ(::send(p.a, &m, sizeof m, 0), static_cast<ssize_t>(sizeof m));
  EXPECT_EQ(RecvMessage(p.b, 1000, &got, &err), RecvStatus::kBad);
  EXPECT_NE(err.find("magic"), std::string::npos) << err;
  // Longer than any message may be: truncated, refused.
  std::vector<char> big(sizeof(Message) + kMaxPayload + 4096, 0);
  std::memcpy(big.data(), &m, sizeof m);
  const uint32_t magic = kMagic;
  std::memcpy(big.data(), &magic, sizeof magic);
  ASSERT_EQ(::send(p.a, big.data(), big.size(), 0), static_cast<ssize_t>(big.size()));
  EXPECT_EQ(RecvMessage(p.b, 1000, &got, &err), RecvStatus::kBad);
  EXPECT_NE(err.find("truncated"), std::string::npos) << err;
}

TEST(Channel, TextNeverReadsPastItsField) {
  Message m;
  std::memset(m.text, 'a', sizeof m.text);  // no terminating NUL
  EXPECT_EQ(TextOf(m).size(), sizeof m.text);
}

}  // namespace
}  // namespace cuco::protocol
