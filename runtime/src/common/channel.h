// One rank's socket between the supervisor and the candidate runtime (cuco/protocol.h): whole
// messages over SOCK_SEQPACKET, each a protocol::Message plus an optional payload and up to
// kMaxFds file descriptors (SCM_RIGHTS). Used on both sides; the supervisor treats every received
// byte as hostile (RecvMessage checks the magic, the sizes and truncation; extra fds are closed).
#pragma once

#include <string>
#include <vector>

#include <cuco/protocol.h>

namespace cuco::protocol {

constexpr int kMaxFds = kMaxBuffers * kMaxOutputSets + 2;
constexpr size_t kMaxPayload = 16384;

enum class RecvStatus { kOk, kTimeout, kClosed, kBad };

struct Received {
  Message msg;
  std::vector<char> payload;
  std::vector<int> fds;  // owned by the caller once received
};

// "" on success, else what failed.
std::string SendMessage(int sock, const Message& msg, const void* payload = nullptr, size_t payload_bytes = 0,
                        const std::vector<int>& fds = {});

// Waits up to timeout_ms (< 0: forever) for one message. kBad: a malformed datagram (wrong magic,
// shorter than a Message, truncated, too many fds); *error says what.
RecvStatus RecvMessage(int sock, int timeout_ms, Received* out, std::string* error);

// A message of `type` with a, b and text (cut to fit).
Message MakeMessage(MsgType type, int64_t a = 0, int64_t b = 0, const std::string& text = "");

// The text field as a string (stops at the first NUL; never reads past the field).
std::string TextOf(const Message& m);

}  // namespace cuco::protocol
