// SseDecoder: splits a text/event-stream (server-sent events) into events as bytes arrive.
// Follows the WHATWG framing: lines end in \n, \r\n or \r; "event:" names the event, "data:"
// lines are joined with \n; a blank line ends the event; lines starting with ':' are comments.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "util/status.h"

namespace cuco {

struct SseEvent {
  std::string event;  // empty when the server named none ("message")
  std::string data;
};

class SseDecoder {
 public:
  // Called once per complete event; a non-ok Status stops decoding and is returned by Feed.
  using Handler = std::function<Status(const SseEvent&)>;
  explicit SseDecoder(Handler handler) : handler_(std::move(handler)) {}

  // Consumes the next bytes of the stream (any split, even mid-line).
  Status Feed(std::string_view bytes);
  // The stream ended: dispatches a last event that lacked its blank line.
  Status Finish();
  // Events dispatched so far.
  int events() const { return events_; }

 private:
  Status Line(std::string_view line);
  Status Dispatch();

  Handler handler_;
  std::string partial_;    // bytes of an unfinished line
  bool after_cr_ = false;  // the last byte was \r: a following \n belongs to it
  SseEvent pending_;
  bool has_data_ = false;
  int events_ = 0;
};

}  // namespace cuco
