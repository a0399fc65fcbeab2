#include "common/channel.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace cuco::protocol {

Message MakeMessage(MsgType type, int64_t a, int64_t b, const std::string& text) {
  Message m;
  m.type = static_cast<uint32_t>(type);
  m.a = a;
  m.b = b;
  std::memcpy(m.text, text.data(), std::min(text.size(), sizeof m.text - 1));
  return m;
}

std::string TextOf(const Message& m) { return std::string(m.text, strnlen(m.text, sizeof m.text)); }

std::string SendMessage(int sock, const Message& msg, const void* payload, size_t payload_bytes,
                        const std::vector<int>& fds) {
  if (payload_bytes > kMaxPayload) return "payload too large";
  if (fds.size() > static_cast<size_t>(kMaxFds)) return "too many fds";
  iovec iov[2];
  iov[0].iov_base = const_cast<Message*>(&msg);
  iov[0].iov_len = sizeof msg;
  iov[1].iov_base = const_cast<void*>(payload);
  iov[1].iov_len = payload_bytes;
  msghdr mh{};
  mh.msg_iov = iov;
  mh.msg_iovlen = payload_bytes > 0 ? 2 : 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)];
  if (!fds.empty()) {
    std::memset(control, 0, sizeof control);
    mh.msg_control = control;
    mh.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
    cmsghdr* c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  }
  for (;;) {
    const ssize_t n = ::sendmsg(sock, &mh, MSG_NOSIGNAL);
    if (n >= 0) return static_cast<size_t>(n) == sizeof msg + payload_bytes ? "" : "short send";
    if (errno == EINTR) continue;
    return std::string("sendmsg: ") + std::strerror(errno);
  }
}

RecvStatus RecvMessage(int sock, int timeout_ms, Received* out, std::string* error) {
  pollfd p{sock, POLLIN, 0};
  for (;;) {
    const int r = ::poll(&p, 1, timeout_ms);
    if (r > 0) break;
    if (r == 0) return RecvStatus::kTimeout;
    if (errno == EINTR) continue;
    *error = std::string("poll: ") + std::strerror(errno);
    return RecvStatus::kBad;
  }
  static thread_local std::vector<char> buf(sizeof(Message) + kMaxPayload + 1);
  iovec iov{buf.data(), buf.size()};
  msghdr mh{};
  mh.msg_iov = &iov;
  mh.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)];
  mh.msg_control = control;
  mh.msg_controllen = sizeof control;
  ssize_t n;
  do {
    n = ::recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  if (n == 0) return RecvStatus::kClosed;
  if (n < 0) {
    if (errno == ECONNRESET) return RecvStatus::kClosed;
    *error = std::string("recvmsg: ") + std::strerror(errno);
    return RecvStatus::kBad;
  }
  out->fds.clear();
  for (cmsghdr* c = CMSG_FIRSTHDR(&mh); c != nullptr; c = CMSG_NXTHDR(&mh, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    const size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < count; ++i) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
      out->fds.push_back(fd);
    }
  }
  auto bad = [&](const char* why) {
    for (int fd : out->fds) ::close(fd);
    out->fds.clear();
    *error = why;
    return RecvStatus::kBad;
  };
  if (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) return bad("a truncated message (too long, or too many fds)");
  if (static_cast<size_t>(n) < sizeof(Message)) return bad("a message shorter than the protocol's header");
  std::memcpy(&out->msg, buf.data(), sizeof(Message));
  if (out->msg.magic != kMagic) return bad("a message without the protocol's magic number");
  out->payload.assign(buf.data() + sizeof(Message), buf.data() + n);
  return RecvStatus::kOk;
}

}  // namespace cuco::protocol
